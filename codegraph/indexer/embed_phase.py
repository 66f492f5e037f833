"""The embedding phase: give every chunk without a vector its vector.

Resumable by construction: it reads ``chunks_missing_vectors`` and writes each batch's
vectors before reading the next, so a killed run loses at most one batch and the next
run starts from what is still missing. Reads and writes are cheap next to the model
(a 64-chunk batch takes about a second to embed on 2 cores), so the loop is plain.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from codegraph.core.embedder import Embedder
from codegraph.core.search_index import SearchIndex

Progress = Callable[[dict[str, Any]], None]


def run_embedding(
    index: SearchIndex,
    embedder: Embedder,
    repo: str | None = None,
    batch_size: int = 64,
    progress: Progress | None = None,
    max_chunks: int | None = None,
) -> dict[str, Any]:
    """Embed ``embed_text`` of every chunk missing a vector (in ``repo``, else all).

    ``progress`` gets {"done", "total", "chunks_per_s"} after each batch; ``total`` is
    the number missing at the start. ``max_chunks`` stops after about that many.
    Returns {"embedded", "batches", "seconds", "chunks_per_s", "embed_seconds",
    "model_load_seconds", "remaining"}; "seconds" excludes the model load, "remaining"
    is what is still missing afterwards.
    Raises EmbedderUnavailable without a model, StoreUnavailable from the index.
    """
    load_s = embedder.load()
    before = index.stats(repo)
    total = int(before["chunks"]) - int(before["with_vectors"])
    done = batches = 0
    embed_s = 0.0
    seen: set[str] = set()
    t0 = time.perf_counter()
    while max_chunks is None or done < max_chunks:
        batch = index.chunks_missing_vectors(repo=repo, limit=batch_size)
        # A chunk still missing after we wrote its vector was deleted or changed under
        # us by a concurrent upsert; stop instead of looping on it.
        batch = [c for c in batch if c.chunk_id not in seen]
        if not batch:
            break
        t = time.perf_counter()
        vecs = embedder.embed([c.embed_text for c in batch])
        embed_s += time.perf_counter() - t
        index.set_vectors({c.chunk_id: v for c, v in zip(batch, vecs, strict=True)})
        seen.update(c.chunk_id for c in batch)
        done += len(batch)
        batches += 1
        if progress is not None:
            elapsed = time.perf_counter() - t0
            progress({"done": done, "total": total, "chunks_per_s": done / elapsed if elapsed else 0.0})
    secs = time.perf_counter() - t0
    after = index.stats(repo)
    return {
        "embedded": done,
        "batches": batches,
        "seconds": secs,
        "chunks_per_s": done / secs if secs else 0.0,
        "embed_seconds": embed_s,
        "model_load_seconds": load_s,
        "remaining": int(after["chunks"]) - int(after["with_vectors"]),
    }

"""The embedding phase: give every chunk without a vector its vector.

Resumable by construction: it reads ``chunks_missing_vectors`` a window at a time and
writes the window's vectors before reading the next, so a killed run loses at most one
window and the next run starts from what is still missing.

Why windows larger than the model batch: the embedder sorts a call's texts by token
count and pads each model batch to its longest text, so a wider window pads less (sorting
64 texts pads a stdlib corpus to 1.34x its real tokens; 512, to 1.08x). Batches: at most
``batch_size`` texts per run, one run at a time; one text per run and two runs in flight
for the int8 file (codegraph.core.embedder STREAMS_*, codegraph.core.embed_runner). Reads and writes are
about 1 % of the phase next to the model (embedded store), so the loop is otherwise plain.
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
    batch_size: int = 16,
    progress: Progress | None = None,
    max_chunks: int | None = None,
    window: int = 512,
) -> dict[str, Any]:
    """Embed ``embed_text`` of every chunk missing a vector (in ``repo``, else all).

    ``batch_size``: texts per model run; ``window``: chunks read, embedded and written
    per round. ``progress`` gets {"done", "total", "chunks_per_s"} after each window;
    ``total`` is the number missing at the start. ``max_chunks`` stops after that many.
    Returns {"embedded", "batches" (windows), "seconds", "chunks_per_s", "embed_seconds",
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
        limit = window if max_chunks is None else min(window, max_chunks - done)
        batch = index.chunks_missing_vectors(repo=repo, limit=limit)
        # A chunk still missing after we wrote its vector was deleted or changed under
        # us by a concurrent upsert; stop instead of looping on it.
        batch = [c for c in batch if c.chunk_id not in seen]
        if not batch:
            break
        t = time.perf_counter()
        vecs = embedder.embed([c.embed_text for c in batch], batch_size=batch_size)
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

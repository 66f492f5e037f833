"""Elasticsearch bulk writes, before vs after in one run: ``upsert_chunks`` of a full
load (new repo) and ``set_vectors`` (the embed phase's partial updates), chunks/s.

Chunks are real: the standard library's files (tests left out) through the real
extractor and chunker. "before" is ``codegraph/core/elastic_search.py`` as it was at
``--before`` (loaded from git under another module name, same client and server);
"after" is this checkout. Runs alternate after/before ``--runs`` times, each into a
fresh index, in batches of 2,000 chunks as the pipeline writes them; medians and the
ratio after/before. Needs Elasticsearch (``make services`` writes .codegraph/services.env).

    .venv/bin/python bench/bench_es_bulk.py [--files 300] [--runs 3] [--before REF]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from codegraph.core.models import Chunk  # noqa: E402
from codegraph.indexer.chunks import chunks_for_file  # noqa: E402
from codegraph.indexer.extract import extract_source  # noqa: E402
from tests.services import service_settings  # noqa: E402

BEFORE_DEFAULT = "325fe7d"  # main before the bulk work
BATCH = 2000  # chunks per upsert_chunks call, as codegraph.indexer.pipeline writes them
TEST_PARTS = ("test", "tests", "idle_test", "site-packages")
REPO = "cg-esbulk"


def old_module(ref: str) -> Any:
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:codegraph/core/elastic_search.py"],
                         capture_output=True, text=True, check=True).stdout
    path = Path(tempfile.mkdtemp(prefix="cg-es-before-")) / "elastic_search_before.py"
    path.write_text(src, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("elastic_search_before", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def real_chunks(files: int) -> list[Chunk]:
    root = Path(sysconfig.get_paths()["stdlib"])
    out: list[Chunk] = []
    paths = [p for p in sorted(root.rglob("*.py"))
             if not any(part in TEST_PARTS for part in p.relative_to(root).parts[:-1])][:files]
    for p in paths:
        data = p.read_bytes()
        fx = extract_source(REPO, p.relative_to(root).as_posix(), "python", data)
        out += chunks_for_file(fx, data.decode("utf-8", "replace"))
    return out


def one_run(cls: Any, url: str, prefix: str, repo: str, chunks: list[Chunk],
            vectors: dict[str, np.ndarray]) -> tuple[float, float]:
    """(upsert chunks/s, set_vectors chunks/s) into a fresh index."""
    ix = cls(url, prefix)
    ix.ensure_schema()
    ix.delete_repo(repo)
    mine = chunks
    t = time.perf_counter()
    for i in range(0, len(mine), BATCH):
        ix.upsert_chunks(mine[i:i + BATCH])
    up = len(mine) / (time.perf_counter() - t)
    t = time.perf_counter()
    items = list(vectors.items())
    for i in range(0, len(items), 256):  # the embed phase's batch
        ix.set_vectors(dict(items[i:i + 256]))
    vec = len(items) / (time.perf_counter() - t)
    assert ix.stats(repo)["chunks"] == len(mine), "not every chunk was stored"
    ix.delete_repo(repo)
    ix.close()
    return up, vec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--before", default=BEFORE_DEFAULT)
    ap.add_argument("--vectors", type=int, default=5000, help="chunks given a vector in the set_vectors figure")
    args = ap.parse_args()
    settings = service_settings()
    if not settings.search.startswith("http"):
        print("Elasticsearch is not configured (run `make services`); nothing measured")
        return
    from codegraph.core.elastic_search import ElasticsearchIndex

    before = old_module(args.before).ElasticsearchIndex
    chunks = real_chunks(args.files)
    rng = np.random.default_rng(3)
    repo = REPO
    vectors = {c.chunk_id: rng.normal(size=384).astype(np.float32) for c in chunks[: args.vectors]}
    print(f"{len(chunks)} real chunks from {args.files} standard-library files; {len(vectors)} vectors; "
          f"Elasticsearch {settings.search}; before = {args.before}")
    res: dict[str, list[tuple[float, float]]] = {"after": [], "before": []}
    for _ in range(args.runs):
        res["after"].append(one_run(ElasticsearchIndex, settings.search, "cgbench", repo, chunks, vectors))
        res["before"].append(one_run(before, settings.search, "cgbenchold", repo, chunks, vectors))
    print(f"runs: {args.runs} per side, alternating after/before; wall clock, this process + the server\n")
    print(f"{'figure':32} {'after':>10} {'before':>10} {'ratio':>6}")
    for i, name in enumerate(("upsert_chunks chunks/s (new)", "set_vectors chunks/s")):
        a = statistics.median(r[i] for r in res["after"])
        b = statistics.median(r[i] for r in res["before"])
        print(f"{name:32} {a:10,.0f} {b:10,.0f} {a / b:6.2f}")


if __name__ == "__main__":
    main()

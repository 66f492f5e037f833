"""Indexing benchmark on this machine's Python standard library (the figures in README and docs/accuracy.md).

Prints: files/s, symbols/s, edges/s, peak RSS, time until graph + BM25 answer queries,
embedding chunks/s against the model's raw throughput on the same texts (ratio), the
embedding total, and the time of a second run over the unchanged tree.

    .venv/bin/python bench/bench_index.py [--with-tests] [--embed-limit N] [--workers N]

Runs in a temporary CODEGRAPH_HOME on the embedded backend. ``--embed-limit`` embeds
only the first N chunks (0 = all; the whole standard library takes many minutes on two
cores) and extrapolates the total from the measured rate, saying so.
"""

from __future__ import annotations

import argparse
import os
import resource
import sysconfig
import tempfile
import time
from pathlib import Path

TEST_DIRS = ["test/", "idlelib/idle_test/", "lib2to3/tests/", "tkinter/test/", "distutils/tests/", "unittest/test/",
             "ctypes/test/", "sqlite3/test/"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--with-tests", action="store_true", help="include the standard library's test folders")
    ap.add_argument("--embed-limit", type=int, default=3000, help="chunks to embed (0 = all)")
    ap.add_argument("--workers", type=int, default=0)
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="cg-bench-"))
    os.environ["CODEGRAPH_HOME"] = str(home)

    from codegraph.core.embedded_graph import EmbeddedGraphStore
    from codegraph.core.embedded_search import EmbeddedSearchIndex
    from codegraph.core.embedder import Embedder, measure_throughput
    from codegraph.core.retrieval import hybrid_search
    from codegraph.core.settings import load_settings
    from codegraph.indexer.embed_phase import run_embedding
    from codegraph.indexer.pipeline import index_repo
    from codegraph.indexer.state import StateStore

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    exclude = None if args.with_tests else TEST_DIRS
    settings = load_settings()
    graph, search = EmbeddedGraphStore(settings.graph_db), EmbeddedSearchIndex(settings.search_db)
    state = StateStore(settings.state_db)
    print(f"standard library: {stdlib} ({'with' if args.with_tests else 'without'} its test folders); "
          f"cores {os.cpu_count()}; load average {os.getloadavg()[0]:.1f}")

    t0 = time.perf_counter()
    s = index_repo(stdlib, "stdlib", graph, search, state, workers=args.workers, exclude=exclude)
    ready = time.perf_counter() - t0
    t = time.perf_counter()
    from codegraph.core.impact import impact

    imp = impact(graph, "json.loads", depth=3)
    hits = hybrid_search(search, None, "parse a configuration file", k=5, graph=graph)
    q_ms = (time.perf_counter() - t) * 1000
    print(f"files {s.files}, symbols {s.symbols}, edges {s.edges}, stubs {s.stubs}, chunks {s.chunks_written}")
    print(f"graph + BM25 queryable after {ready:.1f} s "
          f"({s.files / ready:.0f} files/s, {s.symbols / ready:.0f} symbols/s, {s.edges / ready:.0f} edges/s)")
    print("phases: " + ", ".join(f"{k} {v:.1f}s" for k, v in s.timings.items()))
    print(f"first queries: impact json.loads -> {imp.total_callers} callers, BM25 -> {len(hits.hits)} hits, {q_ms:.0f} ms")

    emb = Embedder.from_settings(settings)
    if emb.available:
        load_s = emb.load()
        sample = [c.embed_text for c in search.chunks_missing_vectors(limit=min(512, args.embed_limit or 512))]
        raw = measure_throughput(emb, sample)
        limit = args.embed_limit or None
        rep = run_embedding(search, emb, repo="stdlib", max_chunks=limit)
        ratio = rep["chunks_per_s"] / raw["texts_per_s"] if raw.get("texts_per_s") else 0.0
        total_chunks = search.stats("stdlib")["chunks"]
        print(f"model load {load_s:.1f} s; raw model throughput on {len(sample)} compact texts: "
              f"{raw['texts_per_s']:.1f} texts/s")
        print(f"embedding phase: {rep['embedded']} chunks at {rep['chunks_per_s']:.1f} chunks/s "
              f"= {ratio:.0%} of raw; {rep['remaining']} left")
        if rep["remaining"]:
            print(f"embedding total (extrapolated at that rate): {total_chunks / rep['chunks_per_s'] / 60:.1f} min "
                  f"for {total_chunks} chunks")
        else:
            print(f"embedding total: {rep['seconds']:.1f} s")
    else:
        print(emb.reason)

    t = time.perf_counter()
    s2 = index_repo(stdlib, "stdlib", graph, search, state, workers=args.workers, exclude=exclude)
    print(f"second run over the unchanged tree: {time.perf_counter() - t:.2f} s ({s2.changed} files parsed)")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB (this process; "
          f"children {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f} MB)")


if __name__ == "__main__":
    main()

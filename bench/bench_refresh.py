"""Refresh and query figures on a copy of this machine's standard library (issues 3, 6).

For each backend pair that answers (embedded; Neo4j + Elasticsearch from
``.codegraph/services.env`` after ``make services``) it prints:
- full index of the copy (no tests) until graph + BM25 answer, in s;
- no-op refresh (nothing changed), in s;
- refresh after one changed file, including its embeddings, in ms (p50 of 5 edits);
- impact at depth 5 over 20 seeded targets that have callers, p50 / p95 in ms;
- hybrid search over 20 queries, model load excluded, p50 / p95 in ms
  (both after a warm-up of 5 untimed queries).
``watch`` runs the same one-file refresh after its debounce (150 ms by default).

To measure refresh latency rather than the model, every chunk of the initial index gets a
random unit vector instead of a real embedding (the real model embeds only what changed
afterwards, exactly as in use); it says so in its output.

    .venv/bin/python bench/bench_refresh.py [--only embedded|servers]
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codegraph.core.embedder import Embedder  # noqa: E402
from codegraph.core.errors import CodegraphError  # noqa: E402
from codegraph.core.impact import impact  # noqa: E402
from codegraph.core.retrieval import hybrid_search  # noqa: E402
from codegraph.core.settings import load_settings  # noqa: E402
from codegraph.core.stores import open_graph_store, open_search_index  # noqa: E402
from codegraph.indexer.embed_phase import run_embedding  # noqa: E402
from codegraph.indexer.pipeline import index_repo  # noqa: E402
from codegraph.indexer.state import StateStore  # noqa: E402
from tests.services import service_settings  # noqa: E402

EXCLUDE = ["test/", "idlelib/idle_test/", "lib2to3/tests/", "tkinter/test/", "distutils/tests/",
           "unittest/test/", "ctypes/test/", "sqlite3/test/", "site-packages/"]
QUERIES = ["parse a configuration file", "split a shell command line", "wrap text to a width", "json decode error",
           "open a zip archive", "send an email message", "http request headers", "compute a checksum",
           "format a date", "read csv rows", "create a temporary file", "compare two sequences",
           "thread pool executor", "url quote", "base64 encode", "deep copy an object", "pretty print",
           "logging handler rotate", "random sample", "heap queue push"]


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def run(name: str, settings, src: Path, emb: Embedder) -> None:  # type: ignore[no-untyped-def]
    graph, search = open_graph_store(settings), open_search_index(settings)
    repo = f"bench-stdlib-{int(time.time())}"
    state = StateStore(Path(tempfile.mkdtemp(prefix="cg-state-")) / "state.db")
    try:
        t = time.perf_counter()
        s = index_repo(src, repo, graph, search, state, exclude=EXCLUDE)
        full = time.perf_counter() - t
        rng = np.random.default_rng(0)
        while batch := search.chunks_missing_vectors(repo, limit=2000):
            v = rng.standard_normal((len(batch), 384)).astype(np.float32)
            v /= np.linalg.norm(v, axis=1, keepdims=True)
            search.set_vectors({c.chunk_id: v[i] for i, c in enumerate(batch)})
        t = time.perf_counter()
        index_repo(src, repo, graph, search, state, exclude=EXCLUDE)
        noop = time.perf_counter() - t
        edits = []
        target = src / "textwrap.py"
        original = target.read_text()
        for i in range(5):
            target.write_text(original + f"\n\ndef _bench_added_{i}():\n    return dedent('x')\n")
            t = time.perf_counter()
            index_repo(src, repo, graph, search, state, exclude=EXCLUDE, workers=1)
            run_embedding(search, emb, repo=repo)
            edits.append((time.perf_counter() - t) * 1000)
        target.write_text(original)
        index_repo(src, repo, graph, search, state, exclude=EXCLUDE, workers=1)
        funcs = [n for n in graph.nodes_by_label("Symbol", repo, limit=100000)
                 if n.props.get("kind") in ("function", "method")]
        random.Random(7).shuffle(funcs)
        targets = []
        for n in funcs:
            if graph.neighbours([n.uid], "in", ["CALLS"]):
                targets.append(n.props["qualified_name"])
            if len(targets) == 20:
                break
        for q in targets[:5]:  # warm-up (server JIT, caches), not measured
            impact(graph, q, repo=repo, depth=5)
            hybrid_search(search, emb, QUERIES[0], k=10, repo=repo, graph=graph)
        imp = []
        for q in targets:
            t = time.perf_counter()
            impact(graph, q, repo=repo, depth=5)
            imp.append((time.perf_counter() - t) * 1000)
        hyb = []
        for q in QUERIES:
            t = time.perf_counter()
            hybrid_search(search, emb, q, k=10, repo=repo, graph=graph)
            hyb.append((time.perf_counter() - t) * 1000)
        print(f"| {name} | {s.files} files, {s.symbols} symbols, {s.edges} edges: {full:.1f} s | {noop:.2f} s "
              f"| {statistics.median(edits):.0f} ms | {statistics.median(imp):.0f} / {pct(imp, 95):.0f} ms "
              f"| {statistics.median(hyb):.0f} / {pct(hyb, 95):.0f} ms |")
    finally:
        graph.delete_repo(repo)
        search.delete_repo(repo)
        graph.close()
        search.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=["embedded", "servers"])
    args = ap.parse_args()
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    src = Path(tempfile.mkdtemp(prefix="cg-stdlib-")) / "stdlib"
    shutil.copytree(stdlib, src, ignore=shutil.ignore_patterns("__pycache__", "site-packages", "test", "tests",
                                                               "idle_test"))
    home = Path(tempfile.mkdtemp(prefix="cg-home-"))
    emb = Embedder.from_settings(load_settings())
    load_note = f"loaded in {emb.load():.1f} s (excluded below)" if emb.available else emb.reason
    print(f"model: {load_note}")
    print("initial vectors are random unit vectors; edits are embedded with the real model\n")
    print("| backend | full index until queryable | no-op refresh | one-file refresh incl. embeddings (p50) "
          "| impact depth 5, p50 / p95 | hybrid search, p50 / p95 |")
    print("|---|---|---|---|---|---|")
    if args.only != "servers":
        run("embedded", load_settings(home=home, graph="embedded", search="embedded"), src, emb)
    if args.only != "embedded":
        st = service_settings()
        if st.graph == "embedded" or st.search == "embedded":
            print("| Neo4j + Elasticsearch | not running (make services) | | | | |")
        else:
            try:
                run("Neo4j + Elasticsearch", st, src, emb)
            except CodegraphError as e:
                print(f"| Neo4j + Elasticsearch | {e} | | | | |")
    shutil.rmtree(src.parent, ignore_errors=True)


if __name__ == "__main__":
    main()

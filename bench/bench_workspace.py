"""Cross-repo figures on a workspace of 25 real repositories (docs/DESIGN.md#workspaces).

PyPI sdists that depend on each other (Flask and the Pallets libraries, requests and
urllib3, httpx and httpcore/h11/anyio, pytest and pluggy, rich and markdown-it-py...)
are fetched at bench time (tests/pypi_sdists.py; cached in .cache/, never committed),
copied to a scratch folder, and each is indexed as its own repository of one workspace.
Prints:

- index time of the whole workspace (every repo, graph only, no embeddings) and of the
  cross-repo link pass;
- cross-repo edge counts by kind (library / http / kafka) and the repo pairs linked;
- relink after one library repo changes: the library (MarkupSafe, which Jinja2, Werkzeug
  and Flask import) loses a function and gains one; its re-index and the relink of every
  dependant are timed apart, and the number of dependant files parsed during the relink
  is counted (goal: relink < 5 s, 0 files parsed);
- impact p50/p95 over targets with callers in other repos, scoped to the workspace
  (goal: < 1 s embedded, < 1.5 s Neo4j).

Usage: ``.venv/bin/python bench/bench_workspace.py [--backend embedded|neo4j] [--targets 60]``.
Neo4j uses .codegraph/services.env (``make services``); its repos are named ``bws-*`` and
removed afterwards. Exit 2 when the sdists cannot be fetched (one line says why).
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from codegraph.core.impact import impact  # noqa: E402
from codegraph.core.workspace import Workspace, WorkspaceConfig  # noqa: E402
from codegraph.indexer import pipeline  # noqa: E402
from codegraph.indexer.cross_repo import link_workspace  # noqa: E402
from codegraph.indexer.pipeline import index_repo  # noqa: E402
from codegraph.indexer.state import StateStore  # noqa: E402
from tests.pypi_sdists import fetch_sdists  # noqa: E402

PINS = {"flask": "3.0.3", "werkzeug": "3.0.3", "click": "8.1.7", "itsdangerous": "2.2.0", "jinja2": "3.1.4",
        "markupsafe": "2.1.5", "blinker": "1.8.2", "requests": "2.32.3", "urllib3": "2.2.2", "idna": "3.7",
        "certifi": "2024.7.4", "charset-normalizer": "3.3.2", "httpx": "0.27.0", "httpcore": "1.0.5", "h11": "0.14.0",
        "anyio": "4.4.0", "sniffio": "1.3.1", "attrs": "23.2.0", "packaging": "24.1", "pluggy": "1.5.0",
        "iniconfig": "2.0.0", "pytest": "8.2.2", "rich": "13.7.1", "markdown-it-py": "3.0.0", "mdurl": "0.1.2"}
SKIP = ["tests/", "test/", "testing/", "docs/", "doc/", "examples/", "bench/", "benchmarks/", "artwork/"]
LIBRARY = "markupsafe"


def open_graph(backend: str, home: Path):  # type: ignore[no-untyped-def]
    if backend == "embedded":
        from codegraph.core.embedded_graph import EmbeddedGraphStore

        return EmbeddedGraphStore(home / "graph.db")
    from codegraph.core.neo4j_graph import Neo4jGraphStore
    from tests.services import service_settings

    s = service_settings()
    return Neo4jGraphStore(s.graph, s.neo4j_user, s.neo4j_password.get_secret_value(), s.neo4j_database)


def change_library(root: Path) -> str:
    """MarkupSafe's pure-Python ``soft_str`` is renamed and a new function appears."""
    native = root / "src" / "markupsafe" / "_native.py"
    text = native.read_text(encoding="utf-8")
    native.write_text(text.replace("def soft_str(", "def soft_text(") + "\n\ndef added_in_bench(s):\n    return s\n",
                      encoding="utf-8")
    init = root / "src" / "markupsafe" / "__init__.py"
    init.write_text(init.read_text(encoding="utf-8").replace("from ._native import soft_str as soft_str",
                                                             "from ._native import soft_text as soft_str"),
                    encoding="utf-8")
    return "markupsafe._native.soft_str renamed soft_text, markupsafe._native.added_in_bench added"


def cross_pairs(graph, repos: list[str]) -> tuple[Counter[tuple[str, str]], list[str]]:  # type: ignore[no-untyped-def]
    """(dependant, provider) -> cross-repo edges; and the CALLS targets they reach ("qn\0repo")."""
    pairs: Counter[tuple[str, str]] = Counter()
    targets: list[str] = []
    for n in repos:
        uids = [x.uid for label in ("Symbol", "File") for x in graph.nodes_by_label(label, n, limit=200000)]
        for hits in graph.neighbours(uids, "out").values():
            for h in hits:
                if h.edge.resolution == "cross_repo":
                    pairs[(n, h.node.repo)] += 1
                    if h.node.label == "Symbol" and h.edge.type == "CALLS":
                        targets.append(h.node.props["qualified_name"] + "\x00" + h.node.repo)
    return pairs, targets


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", choices=("embedded", "neo4j"), default="embedded")
    ap.add_argument("--targets", type=int, default=60, help="impact targets sampled for p50/p95")
    args = ap.parse_args()

    roots, problem = fetch_sdists(PINS)
    if problem:
        print(f"cannot fetch the workspace's sdists: {problem}", file=sys.stderr)
        return 2
    scratch = Path(tempfile.mkdtemp(prefix="bench-ws-"))
    prefix = "bws-" if args.backend == "neo4j" else ""
    names = {n: prefix + n for n in PINS}
    graph = open_graph(args.backend, scratch)
    state = StateStore(scratch / "state.db")
    try:
        for n, r in roots.items():
            shutil.copytree(r, scratch / "src" / n)
        print(f"workspace: {len(PINS)} real repositories (PyPI sdists), backend {args.backend}")

        t0 = time.perf_counter()
        files = 0
        for n in PINS:
            s = index_repo(scratch / "src" / n, names[n], graph, None, state, exclude=SKIP)
            files += s.files
        t_index = time.perf_counter() - t0
        cfg = WorkspaceConfig([Workspace("bench", list(names.values()))])
        t0 = time.perf_counter()
        linked = link_workspace(graph, state, cfg, state_db=scratch / "state.db")
        t_link = time.perf_counter() - t0
        print(f"index: {files} files in {t_index:.1f} s (every repo, graph only); "
              f"cross-repo link pass {t_link:.2f} s")
        print("cross-repo edges by kind: " + ", ".join(f"{k} {linked.edges.get(k, 0)}" for k in ("library", "http", "kafka"))
              + f"; ambiguous {sum(linked.ambiguous.values())}, unmatched client calls {linked.unmatched_http}")
        pairs, _ = cross_pairs(graph, list(names.values()))
        print(f"repo pairs linked: {len(pairs)}; top: "
              + ", ".join(f"{a}->{b} {c}" for (a, b), c in pairs.most_common(8)))

        # -- relink after one library changes -------------------------------------------------------
        what = change_library(scratch / "src" / LIBRARY)
        t0 = time.perf_counter()
        s = index_repo(scratch / "src" / LIBRARY, names[LIBRARY], graph, None, state, exclude=SKIP)
        t_lib = time.perf_counter() - t0
        parsed = {"n": 0}
        real = pipeline.extract_source

        def counting(*a, **k):  # type: ignore[no-untyped-def]
            parsed["n"] += 1
            return real(*a, **k)

        pipeline.extract_source = counting  # type: ignore[assignment]
        dependants = [r for r in cfg.peers(names[LIBRARY])]
        t0 = time.perf_counter()
        relinked = link_workspace(graph, state, cfg, [names[LIBRARY], *dependants], state_db=scratch / "state.db")
        t_relink = time.perf_counter() - t0
        pipeline.extract_source = real  # type: ignore[assignment]
        print(f"library change ({what}): re-index of {LIBRARY} {t_lib:.2f} s ({s.changed} file(s) parsed); "
              f"relink of {len(relinked.repos)} repos {t_relink:.2f} s, {parsed['n']} dependant file(s) parsed, "
              f"{relinked.restored_stubs} reference(s) back to stubs (goal < 5 s, 0 parsed)")

        # -- impact across repos ---------------------------------------------------------------------
        _, targets = cross_pairs(graph, list(names.values()))
        random.seed(14)
        uniq = sorted(set(targets))
        sample = random.sample(uniq, min(args.targets, len(uniq)))
        impact(graph, sample[0].split("\x00")[0], repos=list(names.values()), depth=5)  # warm-up
        times, reached, repos_reached = [], [], []
        for t in sample:
            qn = t.split("\x00")[0]
            t1 = time.perf_counter()
            res = impact(graph, qn, repos=list(names.values()), depth=5)
            times.append(time.perf_counter() - t1)
            reached.append(res.total_callers)
            repos_reached.append(len(res.by_repo))
        times.sort()
        p95 = times[max(0, int(round(0.95 * len(times))) - 1)]
        goal = "1 s" if args.backend == "embedded" else "1.5 s"
        print(f"impact across repos ({len(sample)} targets with callers in another repo, depth 5, workspace scope): "
              f"p50 {statistics.median(times) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, max {times[-1] * 1000:.0f} ms "
              f"(goal < {goal}); callers per answer median {statistics.median(reached):.0f}, "
              f"max {max(reached)}; repos per answer max {max(repos_reached)}")
    finally:
        state.close()
        if args.backend == "neo4j":
            for n in names.values():
                graph.delete_repo(n)
        graph.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Scale: a corpus of real code (>= 2 million lines) indexed into both backends.

The corpus is fetched at bench time, never committed: the standard library of this Python
with its tests (site-packages left out), and PyPI sdists (Django, SQLAlchemy and the 25
packages of bench/bench_workspace.py) downloaded with pip into ``--workdir`` (default
/tmp/codegraph-scale). Each tree is one repository, indexed by ``codegraph index --no-embed``
in its own process, one after another, for each backend:

- ``embedded``: SQLite graph + FTS5 search in a fresh CODEGRAPH_HOME;
- ``served``: the Neo4j + Elasticsearch of ``make services`` (.codegraph/services.env),
  repositories named ``scale-<name>`` (deleted afterwards unless ``--keep``).

Printed per backend: index wall time, peak RSS of the whole process tree of each index run
(the CLI and its extraction workers, sampled every 0.2 s from /proc; the Neo4j and
Elasticsearch servers are printed apart), files, lines (File.line_count in the graph),
symbols, edges, and p50 / p95 of ``impact`` (depth 5) over a fixed set of targets and of
``hybrid_search`` (BM25, nothing embedded) over a fixed set of queries. The 1-minute load
average is printed with each figure: the machine is shared, wall times follow its load.

    .venv/bin/python bench/bench_scale.py [--backends embedded,served] [--quick] [--keep]

``--quick``: the standard library without tests and 4 small packages (a smoke run).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_workspace import PINS  # noqa: E402
from tests.pypi_sdists import fetch_sdists  # noqa: E402

BIG = {"django": "5.0.6", "sqlalchemy": "2.0.31"}
QUICK = ("click", "itsdangerous", "markupsafe", "idna")
# Fixed targets: suffixes resolved by codegraph.core.targets inside their repository.
TARGETS = {
    "stdlib": ["json.loads", "os.path.join", "re.compile", "logging.getLogger", "subprocess.run",
               "collections.namedtuple", "unittest.case.TestCase.assertEqual", "pathlib.Path.open",
               "argparse._ActionsContainer.add_argument", "typing.cast"],
    "django": ["QuerySet.filter", "HttpResponse", "timezone.now", "Model.save", "reverse", "get_object_or_404",
               "Field.clean", "Template.render"],
    "sqlalchemy": ["Session.execute", "select", "Column", "create_engine", "Connection.execute", "relationship"],
    "requests": ["requests.api.get", "Session.request"],
    "flask": ["Scaffold.route", "render_template"],
    "click": ["command", "echo"],
    "jinja2": ["Environment.get_template"],
    "rich": ["Console.print"],
    "httpx": ["Client.request"],
    "werkzeug": ["Request"],
}
QUERIES = {
    "stdlib": ["parse json text into python objects", "join path components", "compile a regular expression",
               "run a child process and capture output", "read a zip archive", "format a date as iso string",
               "open a tcp socket connection", "temporary directory cleanup"],
    "django": ["validate an email address", "render a template with context", "database migration operation",
               "csrf token check", "paginate a queryset"],
    "sqlalchemy": ["create a database engine", "execute a select statement", "connection pool checkout",
                   "declarative base mapping"],
}


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else float("nan")


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def corpus(workdir: Path, quick: bool) -> tuple[dict[str, tuple[Path, list[str]]], str]:
    """name -> (folder, extra --exclude globs); plus a problem line ('' when all fetched)."""
    os.environ.setdefault("CODEGRAPH_SDIST_CACHE", str(workdir / "sdists"))
    pins = {n: v for n, v in PINS.items() if n in QUICK} if quick else {**PINS, **BIG}
    roots, problem = fetch_sdists(pins)
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    excl = ["site-packages/"] + (["test/", "tests/", "idle_test/", "*/test_*.py"] if quick else [])
    out = {"stdlib": (stdlib, excl)}
    out.update({n: (p, []) for n, p in sorted(roots.items())})
    return out, problem


def tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and all its descendants (0 for processes gone)."""
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                ppid = int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(d))
    total, todo, page = 0, [pid], os.sysconf("SC_PAGE_SIZE")
    while todo:
        p = todo.pop()
        with contextlib.suppress(OSError, IndexError, ValueError):  # a process that just ended
            total += int(Path(f"/proc/{p}/statm").read_text().split()[1]) * page
        todo += kids.get(p, [])
    return total


def server_rss() -> str:
    out = []
    for name, pattern in (("neo4j", "Neo4jLauncher"), ("elasticsearch", "org.elasticsearch.bootstrap")):
        pids = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split()
        if pids:
            out.append(f"{name} {sum(tree_rss(int(p)) for p in pids) / 2**20:,.0f} MiB")
    return ", ".join(out) or "no local servers found"


def index_one(path: Path, repo: str, excludes: list[str], env: dict[str, str]) -> tuple[float, int, dict[str, Any]]:
    """(wall s, peak tree RSS bytes, the --json summary) of one ``codegraph index`` run."""
    cmd = [str(ROOT / ".venv" / "bin" / "codegraph"), "index", str(path), "--repo", repo, "--no-embed", "--json",
           "--workers", "2", *(a for x in excludes for a in ("-x", x))]
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = [0]
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], tree_rss(proc.pid))
            stop.wait(0.2)
    th = threading.Thread(target=sample, daemon=True)
    th.start()
    out, err = proc.communicate()
    stop.set()
    th.join()
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise RuntimeError(f"codegraph index {repo} failed ({proc.returncode}): {(err.strip().splitlines() or [''])[-1]}")
    try:
        summary = json.loads(out)
    except json.JSONDecodeError:
        summary = {}
    return wall, peak[0], summary


def lines_of(graph: Any, repo: str) -> tuple[int, int]:
    """(files, lines) of ``repo`` from its File nodes."""
    files = lines = offset = 0
    while True:
        page = graph.nodes_by_label("File", repo=repo, limit=5000, offset=offset)
        files += len(page)
        lines += sum(int(n.props.get("line_count") or 0) for n in page)
        if len(page) < 5000:
            return files, lines
        offset += 5000


def run_backend(name: str, env: dict[str, str], trees: dict[str, tuple[Path, list[str]]], prefix: str,
                keep: bool) -> dict[str, str]:
    from codegraph.core.errors import CodegraphError
    from codegraph.core.impact import impact
    from codegraph.core.retrieval import hybrid_search
    from codegraph.core.settings import load_settings
    from codegraph.core.stores import open_graph_store, open_search_index

    wall = 0.0
    peak = 0
    for n, (path, excl) in trees.items():
        w, rss, _ = index_one(path, prefix + n, excl, env)
        wall += w
        peak = max(peak, rss)
        print(f"  {name}: indexed {n} in {w:.1f} s, peak tree RSS {rss / 2**20:,.0f} MiB (load {load()})", flush=True)
    settings = load_settings(graph=env["CODEGRAPH_GRAPH"], search=env["CODEGRAPH_SEARCH"],
                             home=Path(env["CODEGRAPH_HOME"]))
    graph, index = open_graph_store(settings), open_search_index(settings)
    try:
        files = lines = symbols = edges = 0
        for n in trees:
            f, ln = lines_of(graph, prefix + n)
            c = graph.counts(prefix + n)
            files, lines = files + f, lines + ln
            symbols += c["nodes"].get("Symbol", 0)
            edges += sum(c["edges"].values())
        ilat: list[float] = []
        missing: list[str] = []
        slowest = (0.0, "-")  # (ms, repo:target): what the p95 is made of
        for n, targets in TARGETS.items():
            if n not in trees:
                continue
            for target in targets:
                t = time.perf_counter()
                try:
                    impact(graph, target, repo=prefix + n, depth=5)
                except CodegraphError:
                    missing.append(f"{n}:{target}")
                    continue
                ilat.append((time.perf_counter() - t) * 1000)
                slowest = max(slowest, (ilat[-1], f"{n}:{target}"))
        slat: list[float] = []
        for n, queries in QUERIES.items():
            if n not in trees:
                continue
            for q in queries:
                t = time.perf_counter()
                hybrid_search(index, None, q, k=10, repo=prefix + n, graph=graph)
                slat.append((time.perf_counter() - t) * 1000)
        if missing:
            print(f"  {name}: impact targets not found: {', '.join(missing)}")
        return {
            "repositories": f"{len(trees)}", "files": f"{files:,}", "lines": f"{lines:,}",
            "symbols": f"{symbols:,}", "edges": f"{edges:,}",
            "index wall s (sum of runs)": f"{wall:,.1f}", "lines/s": f"{lines / wall:,.0f}",
            "peak RSS of a run's process tree MiB": f"{peak / 2**20:,.0f}",
            f"impact d5 p50 / p95 ms ({len(ilat)} targets)": f"{pct(ilat, 50):,.0f} / {pct(ilat, 95):,.0f}",
            "impact d5 slowest target (ms)": f"{slowest[1]} ({slowest[0]:,.0f})",
            f"search p50 / p95 ms ({len(slat)} queries, BM25)": f"{pct(slat, 50):,.0f} / {pct(slat, 95):,.0f}",
            "load average (1 min) at the end": load(),
        }
    finally:
        if not keep:
            for n in trees:
                graph.delete_repo(prefix + n)
                index.delete_repo(prefix + n)
        graph.close()
        index.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backends", default="embedded,served", help="comma list of: embedded, served")
    ap.add_argument("--quick", action="store_true", help="stdlib without tests + 4 small packages")
    ap.add_argument("--keep", action="store_true", help="leave the repositories in the stores")
    ap.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "codegraph-scale")
    ap.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    ap.add_argument("--trees", default="", help="only these trees of the corpus (comma list, e.g. click,idna)")
    args = ap.parse_args()
    from codegraph.core.settings import load_settings

    args.workdir.mkdir(parents=True, exist_ok=True)
    trees, problem = corpus(args.workdir, args.quick)
    if args.trees:
        trees = {n: t for n, t in trees.items() if n in set(args.trees.split(","))}
    if problem:
        print(f"corpus: {problem} (going on with what was fetched)")
    print(f"corpus: {len(trees)} trees: {', '.join(trees)}; load average {load()}", flush=True)
    served = load_settings()
    cols: dict[str, dict[str, str]] = {}
    for b in [x.strip() for x in args.backends.split(",") if x.strip()]:
        home = Path(tempfile.mkdtemp(prefix=f"scale-{b}-", dir=args.workdir))
        env = {**os.environ, "CODEGRAPH_HOME": str(home), "CODEGRAPH_LOG": "warning"}
        if b == "embedded":
            env |= {"CODEGRAPH_GRAPH": "embedded", "CODEGRAPH_SEARCH": "embedded"}
            label = "embedded"
        elif b == "served":
            if served.graph == "embedded" or served.search == "embedded":
                print("served: skipped (no Neo4j / Elasticsearch in .codegraph/services.env; run `make services`)")
                continue
            env |= {"CODEGRAPH_GRAPH": served.graph, "CODEGRAPH_SEARCH": served.search}
            label = "neo4j + elasticsearch"
        else:
            print(f"unknown backend {b!r} (embedded, served)")
            return 2
        print(f"{label}: indexing ...", flush=True)
        cols[label] = run_backend(label, env, trees, "scale-", args.keep)
        subprocess.run(["rm", "-rf", str(home)], check=False)
        # Each backend's figures as soon as they exist: a long run cut short keeps them.
        print(f"{label}: " + "; ".join(f"{k} {v}" for k, v in cols[label].items()), flush=True)
        if args.json:
            args.json.write_text(json.dumps(cols, indent=2))
    keys = list(dict.fromkeys(k for c in cols.values() for k in c))
    w0 = max((len(k) for k in keys), default=10) + 2
    names = list(cols)
    print("\nScale (" + ("quick corpus" if args.quick else "full corpus") + ")")
    print("".ljust(w0) + "".join(n.rjust(max(len(n), 14) + 2) for n in names))
    for k in keys:
        print(k.ljust(w0) + "".join(cols[n].get(k, "-").rjust(max(len(n), 14) + 2) for n in names))
    print(f"servers' RSS now: {server_rss()}")
    if args.json:
        args.json.write_text(json.dumps(cols, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

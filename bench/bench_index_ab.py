"""Time until a tree is queryable (graph + BM25, no embedding), this checkout (after)
against an older commit (before), run in turn: the standard library (what ``make demo``
indexes) and Django's ``django/`` package (the 5.0.6 sdist, fetched from PyPI with pip at
bench time into ``.cache/sdists``, never committed).

Each run is a whole ``codegraph index TREE --no-embed --json`` process into a fresh
embedded CODEGRAPH_HOME, extraction on ``--workers`` processes; both sides' ``codegraph``
packages are byte-compiled first (``compileall``), as a normal install's second run finds
them (``make install`` compiles too). Printed per tree and side:
medians of wall seconds, CPU seconds of the process tree (user + sys of the CLI and its
workers), the largest RSS of one process of the tree, and the pipeline's own phase timings
(wall; "search writes" runs beside load and resolve+link, "search" is what the run still
waited for it); then the after/before ratio of the wall and CPU medians (pairwise) and the
load average before and after the tree's runs. The standard library's lines start with the
side; other trees' with the tree's name.

    .venv/bin/python bench/bench_index_ab.py [--runs 2] [--before REF] [--workers 2] [--trees stdlib,django]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.pypi_sdists import fetch_sdists  # noqa: E402

BEFORE_DEFAULT = "325fe7d"
DJANGO = "5.0.6"
EXCLUDE = ["test/", "idlelib/idle_test/", "lib2to3/tests/", "tkinter/test/", "distutils/tests/", "unittest/test/",
           "ctypes/test/", "sqlite3/test/", "site-packages/"]


def one(tree: Path, python: str, root: Path, repo: str, excludes: list[str], workers: int, tmp: Path) -> dict:
    home = Path(tempfile.mkdtemp(prefix="cg-ab-", dir=tmp))
    env = {**os.environ, "CODEGRAPH_HOME": str(home), "CODEGRAPH_GRAPH": "embedded", "CODEGRAPH_SEARCH": "embedded",
           "PYTHONPATH": str(tree), "CODEGRAPH_EMBED_MODEL_PATH": "none"}
    cmd = [python, "-m", "codegraph", "index", str(root), "--repo", repo, "--no-embed", "--json",
           "--workers", str(workers), *[a for x in excludes for a in ("-x", x)]]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, text=True)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"{tree}: exit {out.returncode}: {out.stderr[-500:]}")
    summary = json.loads(out.stdout)["summary"]
    return {"wall": wall, "cpu": (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime),
            "rss_mib": r1.ru_maxrss / 1024, "timings": summary.get("timings", {}), "files": summary.get("files"),
            "symbols": summary.get("symbols"), "edges": summary.get("edges")}


def trees(names: list[str]) -> list[tuple[str, Path, list[str]]]:
    """(name, root, --exclude globs) of each tree asked for that could be had."""
    out = []
    for name in names:
        if name == "stdlib":
            out.append(("stdlib", Path(sysconfig.get_paths()["stdlib"]), EXCLUDE))
        elif name == "django":
            roots, problem = fetch_sdists({"django": DJANGO})
            if "django" in roots:
                out.append(("django", roots["django"] / "django", []))
            else:
                print(f"django left out: {problem}")
        else:
            raise SystemExit(f"unknown tree {name!r} (stdlib, django)")
    return out


def report(name: str, root: Path, res: dict[str, list[dict]], args: argparse.Namespace, loads: tuple[str, str]) -> None:
    a0 = res["after"][0]
    lead = "" if name == "stdlib" else f"{name} "
    print(f"\n{name} {root}: {a0['files']} files, {a0['symbols']} symbols, {a0['edges']} edges; workers "
          f"{args.workers}; load average {loads[0]} before, {loads[1]} after; before = {args.before}; runs {args.runs}")
    print(f"{lead}{'side':7} {'wall s':>8} {'cpu s':>8} {'max rss MiB':>12}  phases (median s)")
    for side, runs in res.items():
        phases = sorted({k for r in runs for k in r["timings"]})
        ph = ", ".join(f"{k} {statistics.median(r['timings'].get(k, 0) for r in runs):.2f}" for k in phases)
        print(f"{lead}{side:7} {statistics.median(r['wall'] for r in runs):8.2f} "
              f"{statistics.median(r['cpu'] for r in runs):8.2f} {max(r['rss_mib'] for r in runs):12.0f}  {ph}")
    wall = statistics.median(a["wall"] / b["wall"] for a, b in zip(res["after"], res["before"], strict=True))
    cpu = statistics.median(a["cpu"] / b["cpu"] for a, b in zip(res["after"], res["before"], strict=True))
    print(f"{lead}ratio after/before: wall {wall:.2f}, cpu {cpu:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--before", default=BEFORE_DEFAULT)
    ap.add_argument("--before-python", default=sys.executable)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--trees", default="stdlib,django", help="comma list of stdlib, django")
    args = ap.parse_args()
    todo = trees([t for t in args.trees.split(",") if t])
    with tempfile.TemporaryDirectory(prefix="cg-index-ab-") as t:
        tmp = Path(t)
        before_tree = tmp / "before"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(before_tree), args.before],
                       check=True, capture_output=True)
        # Both sides byte-compiled first, as a second run finds them: an editable install
        # compiles nothing, and where PYTHONDONTWRITEBYTECODE is set no run writes the .pyc.
        for tree, python in ((ROOT, sys.executable), (before_tree, args.before_python)):
            subprocess.run([python, "-m", "compileall", "-q", str(tree / "codegraph")], check=True)
        try:
            for name, root, excludes in todo:
                load0 = f"{os.getloadavg()[0]:.1f}"
                res: dict[str, list[dict]] = {"after": [], "before": []}
                for _ in range(args.runs):
                    res["after"].append(one(ROOT, sys.executable, root, name, excludes, args.workers, tmp))
                    res["before"].append(one(before_tree, args.before_python, root, name, excludes, args.workers,
                                             tmp))
                report(name, root, res, args, (load0, f"{os.getloadavg()[0]:.1f}"))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before_tree)],
                           capture_output=True)


if __name__ == "__main__":
    main()

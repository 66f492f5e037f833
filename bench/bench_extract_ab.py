"""CPU and wall of the index's extract phase alone, this checkout (after) against an
older revision (before), run in turn: the standard library's 733 files (the excludes
``make demo`` and bench_index_ab use) or any tree.

Each run is a fresh process doing what ``index_repo`` does between "hash" and "load":
the revision's ``_extract_job`` (extraction, framework adapters, chunks and their BM25
terms) over every discovered file in the revision's worker pool (``--workers``
processes, results unpickled in the main process as the index does), nothing stored.
Printed per side: medians of wall seconds, CPU seconds of the process tree (user + sys
of the process and its workers), the largest RSS of one process; then the after/before
ratios of the medians (pairwise) and the load average before and after.

    .venv/bin/python bench/bench_extract_ab.py [--runs 3] [--before REF] [--workers 2] [--root DIR]
"""

from __future__ import annotations

import argparse
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
from bench.bench_index_ab import EXCLUDE  # noqa: E402

# Run in the child with the revision's code first on sys.path.
CHILD = r"""
import gc, sys
from pathlib import Path
from codegraph.indexer.discover import discover
from codegraph.indexer import pipeline
root, workers, excludes = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
gc.disable()  # as index_repo (the workers inherit it)
disc = discover(root, exclude=excludes or None)
jobs = [("bench", f.path, f.language, str(f.abs_path), True) for f in disc.files]
files = chunks = 0
extract = getattr(pipeline, "extract_pooled", None)  # the revision's own way across the pipe, if it has one
with pipeline.worker_pool(workers) as pool:
    for fx, ch in (extract(pool, jobs) if extract else pool.map(pipeline._extract_job, jobs, chunksize=8)):
        files += 1
        chunks += len(list(ch))  # built, as the search writes build them (wire.WireChunks is lazy)
print(files, chunks)
"""


def one(tree: Path, root: Path, excludes: list[str], workers: int, tmp: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD, str(root), str(workers), *excludes], env=env, cwd=tmp,
                         capture_output=True, text=True)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"{tree}: exit {out.returncode}: {out.stderr[-800:]}")
    files, chunks = out.stdout.split()
    return {"wall": wall, "cpu": (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime),
            "rss_mib": r1.ru_maxrss / 1024, "files": int(files), "chunks": int(chunks)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--before", default="main")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--root", type=Path, default=None, help="tree to extract (default: the stdlib, tests left out)")
    args = ap.parse_args()
    root = args.root or Path(sysconfig.get_paths()["stdlib"])
    excludes = [] if args.root else EXCLUDE
    with tempfile.TemporaryDirectory(prefix="cg-extract-ab-") as t:
        tmp = Path(t)
        before_tree = tmp / "before"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(before_tree), args.before],
                       check=True, capture_output=True)
        try:
            load0 = os.getloadavg()[0]
            res: dict[str, list[dict]] = {"after": [], "before": []}
            for _ in range(args.runs):
                res["after"].append(one(ROOT, root, excludes, args.workers, tmp))
                res["before"].append(one(before_tree, root, excludes, args.workers, tmp))
            load1 = os.getloadavg()[0]
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before_tree)],
                           capture_output=True)
    a0 = res["after"][0]
    print(f"{root}: {a0['files']} files, {a0['chunks']} chunks; workers {args.workers}; load average "
          f"{load0:.1f} before, {load1:.1f} after; before = {args.before}; runs {args.runs}")
    print(f"{'side':7} {'wall s':>8} {'cpu s':>8} {'max rss MiB':>12}")
    for side, runs in res.items():
        print(f"{side:7} {statistics.median(r['wall'] for r in runs):8.2f} "
              f"{statistics.median(r['cpu'] for r in runs):8.2f} {max(r['rss_mib'] for r in runs):12.0f}")
    wall = statistics.median(a["wall"] / b["wall"] for a, b in zip(res["after"], res["before"], strict=True))
    cpu = statistics.median(a["cpu"] / b["cpu"] for a, b in zip(res["after"], res["before"], strict=True))
    print(f"ratio after/before: wall {wall:.2f}, cpu {cpu:.2f}")


if __name__ == "__main__":
    main()

"""CLI start-up figures: whole-process time of ``codegraph --help``, ``callers`` and
``search`` on a small repo, this checkout (after) against an older commit (before), run
in turn. ``search`` runs twice: on a repo without vectors (BM25 only: the model must not
load) and on one with vectors, asking a query already asked (the query-vector cache).

Each command runs ``--runs`` times per side, alternating after/before so that a drift of
the shared machine's speed hits both; the figures are medians of the per-run CPU time
(user + sys of the child) and wall time, and the ratio after/before is the median of the
pairwise ratios. ``python -c pass`` is printed as the floor every Python CLI pays.

The before side is a temporary ``git worktree`` of ``--before`` (default: the commit the
start-up work started from), run with ``--before-python`` (default: the same interpreter;
give a venv that still has the old dependencies, e.g. typer 0.29 and pydantic-settings,
to include their cost). Both sides read one embedded store indexed by this checkout.
Both sides' ``codegraph`` packages are byte-compiled first (``compileall``): a normal
install keeps ``.pyc`` files, and this machine sets ``PYTHONDONTWRITEBYTECODE=1``, so
without it every run would compile the product's sources (``--cold-bytecode`` keeps that).

    .venv/bin/python bench/bench_startup.py [--runs 9] [--before REF] [--before-python PY] [--cold-bytecode]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEFORE_DEFAULT = "3cefff6"  # main before this session's start-up work (325fe7d: before pydantic-settings went)
ENTRY = "import sys; from codegraph.cli import {fn} as f; sys.argv[0] = 'codegraph'; sys.exit(f())"
SMALL_REPO = {
    "shop/orders.py": "from shop.db import save\n\n\ndef place(order):\n    check(order)\n    return save(order)\n\n\n"
                      "def check(order):\n    return bool(order)\n",
    "shop/db.py": "def save(row):\n    return row\n",
    "shop/api.py": "from shop.orders import place\n\n\ndef handler(req):\n    return place(req)\n",
}


def run_once(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int]:
    """(cpu s, wall s, exit code) of one run of ``cmd`` in ``cwd`` (outside both checkouts:
    ``python -c`` puts the working directory first on sys.path)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    rc = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), wall, rc


def instructions(cmd: list[str], env: dict[str, str], cwd: Path) -> float | None:
    """Instructions executed by one run (millions), counted by valgrind's callgrind: a
    figure the load of a shared machine does not move. None without valgrind."""
    if not shutil.which("valgrind"):
        return None
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd], env=env, cwd=cwd,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True).stderr
    m = re.search(r"Collected : (\d+)", out)
    return int(m.group(1)) / 1e6 if m else None


def side_command(python: str, fn: str, args: list[str]) -> list[str]:
    return [python, "-c", ENTRY.format(fn=fn), *args]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--before", default=BEFORE_DEFAULT, help="git ref of the 'before' side")
    ap.add_argument("--before-python", default=sys.executable)
    ap.add_argument("--callgrind", action="store_true", help="also count instructions (valgrind), one run per side")
    ap.add_argument("--cold-bytecode", action="store_true", help="do not byte-compile the packages first")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="cg-startup-") as tmp:
        tmpdir = Path(tmp)
        repo = tmpdir / "small"
        for rel, text in SMALL_REPO.items():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (repo / rel).write_text(text, encoding="utf-8")
        home = tmpdir / "home"
        env = {**os.environ, "CODEGRAPH_HOME": str(home), "CODEGRAPH_GRAPH": "embedded",
               "CODEGRAPH_SEARCH": "embedded", "PYTHONPATH": str(ROOT)}
        sys.path.insert(0, str(ROOT))
        from codegraph.core.model_source import resolve_model
        from codegraph.core.settings import load_settings

        model = resolve_model(load_settings())
        if model.folder is not None:  # both sides use the same model file
            env["CODEGRAPH_EMBED_MODEL_PATH"] = str(model.folder)
            env["CODEGRAPH_EMBED_MODEL_FILE"] = model.model_file
        subprocess.run([sys.executable, "-m", "codegraph", "index", str(repo), "--repo", "small", "--no-embed",
                        "--json"], env=env, check=True, stdout=subprocess.DEVNULL, cwd=tmpdir)
        vec_repo = tmpdir / "withvec"
        for rel, text in SMALL_REPO.items():
            (vec_repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (vec_repo / rel).write_text(text, encoding="utf-8")
        subprocess.run([sys.executable, "-m", "codegraph", "index", str(vec_repo), "--repo", "withvec", "--json"],
                       env=env, check=True, stdout=subprocess.DEVNULL, cwd=tmpdir)
        before_tree = tmpdir / "before"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(before_tree), args.before],
                       check=True, capture_output=True)
        try:
            env_before = {**env, "PYTHONPATH": str(before_tree)}
            # The before side's console entry point: main() where it has one (the console script), else app.
            before_fn = "main" if "\ndef main(" in (before_tree / "codegraph" / "cli.py").read_text() else "app"
            if not args.cold_bytecode:
                for tree, py in ((ROOT, sys.executable), (before_tree, args.before_python)):
                    subprocess.run([py, "-m", "compileall", "-q", str(tree / "codegraph")], check=True,
                                   stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""})
            versions = {}
            for label, py, e in (("after", sys.executable, env), ("before", args.before_python, env_before)):
                versions[label] = subprocess.run(
                    [py, "-c", "import typer, codegraph; print(typer.__version__, codegraph.__file__)"],
                    env=e, capture_output=True, text=True, cwd=tmpdir).stdout.strip()
            print(f"after  = this checkout ({versions['after']})")
            print(f"before = {args.before} ({versions['before']})")
            print(f"model: {model.describe()}")
            for label, py, fn, e in (("after", sys.executable, "main", env), ("before", args.before_python, before_fn, env_before)):
                out = subprocess.run(side_command(py, fn, ["search", "save an order", "-r", "withvec", "--json"]), env=e,
                                     cwd=tmpdir, capture_output=True, text=True).stdout
                try:
                    res = json.loads(out)
                    print(f"  {label} search on withvec: mode {res.get('mode')}, steps "
                          + ", ".join(f"{st['name']} {st['ms']:.0f} ms" for st in res.get("steps", [])))
                except ValueError:
                    print(f"  {label} search on withvec: no JSON answer")
            print(f"runs per side: {args.runs}, alternating after/before; CPU = user + sys of the process; "
                  + ("sources not byte-compiled" if args.cold_bytecode else "both sides byte-compiled") + "\n")
            cases = [("python -c pass (floor)", [sys.executable, "-c", "pass"], [args.before_python, "-c", "pass"]),
                     ("codegraph --help", side_command(sys.executable, "main", ["--help"]),
                      side_command(args.before_python, before_fn, ["--help"])),
                     ("codegraph callers shop.db.save", side_command(sys.executable, "main", ["callers", "shop.db.save"]),
                      side_command(args.before_python, before_fn, ["callers", "shop.db.save"])),
                     ("codegraph callers ... --json",
                      side_command(sys.executable, "main", ["callers", "shop.db.save", "--json"]),
                      side_command(args.before_python, before_fn, ["callers", "shop.db.save", "--json"])),
                     ("codegraph search, no vectors",
                      side_command(sys.executable, "main", ["search", "save an order", "-r", "small", "--json"]),
                      side_command(args.before_python, before_fn, ["search", "save an order", "-r", "small", "--json"])),
                     ("codegraph search, vectors, asked before",
                      side_command(sys.executable, "main", ["search", "save an order", "-r", "withvec", "--json"]),
                      side_command(args.before_python, before_fn, ["search", "save an order", "-r", "withvec", "--json"]))]
            print(f"{'command':40} {'after cpu ms':>12} {'before cpu ms':>13} {'cpu ratio':>9} "
                  f"{'after wall ms':>13} {'before wall ms':>14} {'wall ratio':>10}")
            for name, after_cmd, before_cmd in cases:
                a_runs, b_runs, bad = [], [], set()
                run_once(after_cmd, env, tmpdir)  # warm-up (page cache, .pyc)
                run_once(before_cmd, env_before, tmpdir)
                for _ in range(args.runs):
                    a = run_once(after_cmd, env, tmpdir)
                    b = run_once(before_cmd, env_before, tmpdir)
                    a_runs.append(a)
                    b_runs.append(b)
                    bad |= {label for label, r in (("after", a), ("before", b)) if r[2] not in (0,)}
                cpu_ratio = statistics.median(x[0] / y[0] for x, y in zip(a_runs, b_runs, strict=True))
                wall_ratio = statistics.median(x[1] / y[1] for x, y in zip(a_runs, b_runs, strict=True))
                print(f"{name:40} {statistics.median(x[0] for x in a_runs) * 1e3:12.1f} "
                      f"{statistics.median(x[0] for x in b_runs) * 1e3:13.1f} {cpu_ratio:9.2f} "
                      f"{statistics.median(x[1] for x in a_runs) * 1e3:13.1f} "
                      f"{statistics.median(x[1] for x in b_runs) * 1e3:14.1f} {wall_ratio:10.2f}"
                      + (f"   (non-zero exit: {', '.join(sorted(bad))})" if bad else ""))
                if args.callgrind and "search" not in name:  # a model load under valgrind takes minutes
                    ia, ib = instructions(after_cmd, env, tmpdir), instructions(before_cmd, env_before, tmpdir)
                    if ia and ib:
                        print(f"{'':40} instructions: after {ia:.0f} M, before {ib:.0f} M, ratio {ia / ib:.2f}")
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before_tree)],
                           capture_output=True)


if __name__ == "__main__":
    main()

"""One-file edit on the standard library until queryable, "before" vs "after" in the same
run, alternating (docs/DESIGN.md#refresh).

A copy of this machine's standard library (tests left out, as ``bench_index_ab``) is
indexed once into a fresh embedded home (graph + BM25, no embedding). Then, ``--runs``
times each and alternating, ``textwrap.py`` gets one more function and is refreshed

- in a long-running process (``index_repo`` in ``bench/refresh_driver.py``; the state's
  decoded extractions are cached, as in ``codegraph watch`` or a server), and
- from the CLI (``codegraph index STDLIB --no-embed``: a new process each time).

"before" is, by default, this code with ``CODEGRAPH_FULL_RESOLVE=1`` (every file resolved
again, what the pipeline did before affected-file resolution); with ``--base REV`` it is
the code of revision REV (a git worktree in a temp folder, its own stdlib copy and home,
run by this venv's interpreter with that tree first on ``PYTHONPATH``). Both sides'
packages are byte-compiled first (``compileall``): a normal install keeps ``.pyc`` files,
and this machine sets ``PYTHONDONTWRITEBYTECODE=1``, so without it every CLI run would
compile the product's sources (``--cold-bytecode`` keeps that). Last, what recording the
look-ups costs a full index: the whole repo resolved with the plain ``SymbolTable`` and
with the ``TracingTable``, CPU s, alternating (this code). Prints medians, the phases of
the in-process runs, how many files were resolved, and the load average beside them.

    .venv/bin/python bench/bench_refresh_affected.py [--runs 5] [--base main] [--json out.json]

``--json`` writes {"load_average", "files", "before_label", "in_process", "cli",
"in_process_cpu", "cli_cpu" (each {"before", "after"}: median ms), "resolved_files", "hashed_files",
"phases_ms", "full_resolution_cpu_s"}.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXCLUDE = ["test/", "idlelib/idle_test/", "lib2to3/tests/", "tkinter/test/", "distutils/tests/", "unittest/test/",
           "ctypes/test/", "sqlite3/test/", "site-packages/"]
REPO = "stdlib"


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


class Side:
    """One side's code, stdlib copy, home and in-process driver."""

    def __init__(self, label: str, code: Path, src: Path, home: Path, full: bool) -> None:
        self.label, self.code, self.src, self.home, self.full = label, code, src, home, full
        self.env = {**os.environ, "CODEGRAPH_HOME": str(home), "CODEGRAPH_GRAPH": "embedded",
                    "CODEGRAPH_SEARCH": "embedded", "CODEGRAPH_EMBED_MODEL_PATH": "none",
                    "CODEGRAPH_FULL_RESOLVE": "1" if full else "0",
                    "PYTHONPATH": os.pathsep.join([str(code), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
        self.proc: subprocess.Popen[str] | None = None
        self.n = 0
        self.original = ""

    def start(self, shared: Side | None) -> None:
        if shared is not None:  # same code and home: one driver answers both
            self.proc, self.original = shared.proc, shared.original
            return
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "bench" / "refresh_driver.py"), str(self.src), str(self.home), REPO,
             json.dumps(EXCLUDE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=self.env)
        self.original = (self.src / "textwrap.py").read_text()

    def ask(self, **cmd: object) -> dict:
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"{self.label}: the refresh driver exited (code {self.proc.wait()})")
        return json.loads(line)

    def edit(self) -> None:
        self.n += 1
        (self.src / "textwrap.py").write_text(
            self.original + f"\n\ndef _bench_added_{self.label}_{self.n}(text):\n    return dedent(text)\n")

    def cli(self) -> tuple[float, float]:
        cmd = [str(ROOT / ".venv/bin/codegraph"), "index", str(self.src), "--repo", REPO, "--no-embed", "--json",
               *[a for x in EXCLUDE for a in ("-x", x)]]
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        out = subprocess.run(cmd, env=self.env, capture_output=True, text=True)
        wall = (time.perf_counter() - t) * 1000
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if out.returncode != 0:
            raise SystemExit(f"{self.label}: codegraph index failed: {out.stderr[-400:]}")
        return wall, (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--base", default="", help="revision of the 'before' code (default: this code with "
                                              "CODEGRAPH_FULL_RESOLVE=1)")
    ap.add_argument("--cold-bytecode", action="store_true", help="do not byte-compile the packages first")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="cg-refresh-"))
    stdlib = sysconfig.get_paths()["stdlib"]
    ignore = shutil.ignore_patterns("__pycache__", "site-packages", "test", "tests", "idle_test")
    base_tree: Path | None = None
    try:
        shutil.copytree(stdlib, tmp / "stdlib", ignore=ignore)
        if args.base:
            base_tree = tmp / "base-code"
            sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", args.base], capture_output=True,
                                 text=True, check=True).stdout.strip()
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base_tree), sha],
                           capture_output=True, check=True)
            shutil.copytree(stdlib, tmp / "stdlib-base", ignore=ignore)
            before = Side("before", base_tree, tmp / "stdlib-base", tmp / "home-base", False)
            label = f"{args.base} ({sha}), affected files"
        else:
            before = Side("before", ROOT, tmp / "stdlib", tmp / "home", True)
            label = "whole repo resolved (CODEGRAPH_FULL_RESOLVE=1)"
        after = Side("after", ROOT, tmp / "stdlib", tmp / "home", False)
        if not args.cold_bytecode:
            for code in {before.code, after.code}:
                subprocess.run([sys.executable, "-m", "compileall", "-q", str(code / "codegraph")],
                               capture_output=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""})
        sides = [before, after]
        after.start(None)
        before.start(None if args.base else after)
        for side in sides if args.base else [after]:
            s = side.ask(cmd="index")
            print(f"{side.label} ({side.code}): full index: {s['files']} files, {s['symbols']} symbols, "
                  f"{s['edges']} edges in {s['seconds']:.1f} s (load average {load()})", flush=True)
            # warm-up: the first refresh decodes the state once (a long-running process keeps it)
            side.edit()
            side.ask(cmd="refresh", full=side.full)
        files = s["files"]
        inproc: dict[str, list[float]] = {"before": [], "after": []}
        inproc_cpu: dict[str, list[float]] = {"before": [], "after": []}
        cli: dict[str, list[float]] = {"before": [], "after": []}
        cli_cpu: dict[str, list[float]] = {"before": [], "after": []}
        phases: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
        resolved: dict[str, int] = {}
        hashed: dict[str, int] = {}
        for i in range(args.runs):
            order = sides if i % 2 == 0 else sides[::-1]
            for side in order:
                side.edit()
                r = side.ask(cmd="refresh", full=side.full)
                inproc[side.label].append(r["wall_ms"])
                inproc_cpu[side.label].append(r["cpu_ms"])
                resolved[side.label] = r["resolved_files"]
                hashed[side.label] = r.get("hashed", r["files"])
                for k, v in r["phases_ms"].items():
                    phases[side.label].setdefault(k, []).append(v)
            for side in order:
                side.edit()
                w, c = side.cli()
                cli[side.label].append(w)
                cli_cpu[side.label].append(c)
        for side in sides:
            (side.src / "textwrap.py").write_text(side.original)
        rec = after.ask(cmd="recording", runs=args.runs)
        for proc in {id(x.proc): x.proc for x in sides if x.proc is not None}.values():
            proc.stdin.close()  # type: ignore[union-attr]  # the driver ends at end of input
            proc.wait()
    finally:
        for x in (locals().get("before"), locals().get("after")):
            if x is not None and x.proc is not None and x.proc.poll() is None:
                x.proc.kill()
        if base_tree is not None:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base_tree)],
                           capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)

    med = {k: statistics.median(v) for k, v in inproc.items()}
    cmed = {k: statistics.median(v) for k, v in cli.items()}
    mcpu = {k: statistics.median(v) for k, v in inproc_cpu.items()}
    ccpu = {k: statistics.median(v) for k, v in cli_cpu.items()}
    print(f"\none-file edit (textwrap.py), {args.runs} runs per side, alternating; load average {load()}")
    print(f"before: {label}; after: this code ({ROOT}), affected files; "
          f"bytecode {'not ' if args.cold_bytecode else ''}precompiled")
    print("(wall ms, and CPU ms of the process: the machine is shared, CPU moves less with the load)\n")
    print("| path | before wall / CPU ms | after wall / CPU ms | ratio wall, CPU |")
    print("| --- | ---: | ---: | ---: |")
    print(f"| in process (`index_repo`) | {med['before']:.0f} / {mcpu['before']:.0f} | {med['after']:.0f} / "
          f"{mcpu['after']:.0f} | {med['after'] / med['before']:.2f}, {mcpu['after'] / mcpu['before']:.2f} |")
    print(f"| CLI (`codegraph index --no-embed`) | {cmed['before']:.0f} / {ccpu['before']:.0f} | {cmed['after']:.0f} / "
          f"{ccpu['after']:.0f} | {cmed['after'] / cmed['before']:.2f}, {ccpu['after'] / ccpu['before']:.2f} |")
    print(f"\nfiles resolved: before {resolved.get('before')}, after {resolved.get('after')} (of {files}); "
          f"files read to hash them: before {hashed.get('before')}, after {hashed.get('after')}\n")
    keys = [k for k in phases["after"] if k != "total"]
    print("| phase (in process, median ms) | before | after |")
    print("| --- | ---: | ---: |")
    for k in keys:
        print(f"| {k} | {statistics.median(phases['before'].get(k, [0])):.0f} "
              f"| {statistics.median(phases['after'][k]):.0f} |")
    rp, rr = rec["plain"], rec["recording"]
    print(f"\nfull resolution of the repo (table + bases + references), CPU s: plain {rp:.2f}, "
          f"recording look-ups {rr:.2f} (x{rr / rp:.2f})")
    if args.json:
        args.json.write_text(json.dumps({
            "load_average": load(), "files": files, "before_label": label,
            "full_resolution_cpu_s": {"plain": rp, "recording": rr},
            "in_process": med, "cli": cmed, "in_process_cpu": mcpu, "cli_cpu": ccpu, "resolved_files": resolved,
            "hashed_files": hashed,
            "phases_ms": {side: {k: statistics.median(v) for k, v in ph.items()} for side, ph in phases.items()},
        }, indent=2))


if __name__ == "__main__":
    main()

"""One-file edit on the standard library until queryable: whole-repo re-resolution vs
affected files only (docs/DESIGN.md#refresh), in the same run, alternating.

A copy of this machine's standard library (tests left out, as ``bench_index_ab``) is
indexed once into a fresh embedded home (graph + BM25, no embedding). Then, ``--runs``
times each and alternating, ``textwrap.py`` gets one more function and is refreshed

- in this process (``index_repo``; the state's decoded extractions are cached, as in
  ``codegraph watch`` or a server), and
- from the CLI (``codegraph index STDLIB --no-embed``: a new process each time),

once with ``CODEGRAPH_FULL_RESOLVE=1`` ("before": every file resolved again, what the
pipeline did until this change) and once without ("after"). Last, what recording the
look-ups costs a full index: the whole repo resolved with the plain ``SymbolTable`` and
with the ``TracingTable``, CPU s, alternating. Prints medians, the phases
of the in-process runs, how many files were resolved, and the load average beside them.

    .venv/bin/python bench/bench_refresh_affected.py [--runs 5] [--json out.json]

``--json`` writes {"load_average", "files", "in_process", "cli", "in_process_cpu", "cli_cpu"
(each {"before", "after"}: median ms), "resolved_files", "phases_ms"}.
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
sys.path.insert(0, str(ROOT))

from codegraph.core.settings import load_settings  # noqa: E402
from codegraph.core.stores import open_graph_store, open_search_index  # noqa: E402
from codegraph.indexer.pipeline import index_repo  # noqa: E402
from codegraph.indexer.state import StateStore  # noqa: E402

EXCLUDE = ["test/", "idlelib/idle_test/", "lib2to3/tests/", "tkinter/test/", "distutils/tests/", "unittest/test/",
           "ctypes/test/", "sqlite3/test/", "site-packages/"]


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="cg-refresh-"))
    src = tmp / "stdlib"
    shutil.copytree(sysconfig.get_paths()["stdlib"], src,
                    ignore=shutil.ignore_patterns("__pycache__", "site-packages", "test", "tests", "idle_test"))
    home = tmp / "home"
    env = {**os.environ, "CODEGRAPH_HOME": str(home), "CODEGRAPH_GRAPH": "embedded", "CODEGRAPH_SEARCH": "embedded",
           "CODEGRAPH_EMBED_MODEL_PATH": "none"}
    settings = load_settings(home=home, graph="embedded", search="embedded")
    graph, search = open_graph_store(settings), open_search_index(settings)
    state = StateStore(home / "state.db")
    repo = "stdlib"
    cmd = [str(ROOT / ".venv/bin/codegraph"), "index", str(src), "--repo", repo, "--no-embed", "--json",
           *[a for x in EXCLUDE for a in ("-x", x)]]
    recording: dict[str, list[float]] = {"plain": [], "recording": []}
    try:
        t = time.perf_counter()
        s = index_repo(src, repo, graph, search, state, exclude=EXCLUDE, workers=2)
        print(f"full index: {s.files} files, {s.symbols} symbols, {s.edges} edges in {time.perf_counter() - t:.1f} s "
              f"(load average {load()})")
        target = src / "textwrap.py"
        original = target.read_text()
        n = 0
        inproc: dict[str, list[float]] = {"before": [], "after": []}
        inproc_cpu: dict[str, list[float]] = {"before": [], "after": []}
        cli_cpu: dict[str, list[float]] = {"before": [], "after": []}
        phases: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
        resolved: dict[str, int] = {}
        cli: dict[str, list[float]] = {"before": [], "after": []}

        def edit() -> None:
            nonlocal n
            n += 1
            target.write_text(original + f"\n\ndef _bench_added_{n}(text):\n    return dedent(text)\n")

        # warm-up: the first refresh decodes the whole state once (a long-running process keeps it)
        edit()
        index_repo(src, repo, graph, search, state, exclude=EXCLUDE, workers=1)
        for i in range(args.runs):
            for side in (("before", "after") if i % 2 == 0 else ("after", "before")):
                edit()
                t, c = time.perf_counter(), time.process_time()
                s = index_repo(src, repo, graph, search, state, exclude=EXCLUDE, workers=1,
                               full_resolve=side == "before")
                inproc[side].append((time.perf_counter() - t) * 1000)
                inproc_cpu[side].append((time.process_time() - c) * 1000)
                resolved[side] = s.resolved_files
                for k, v in s.timings.items():
                    phases[side].setdefault(k, []).append(v * 1000)
            for side in (("before", "after") if i % 2 == 0 else ("after", "before")):
                edit()
                e = {**env, "CODEGRAPH_FULL_RESOLVE": "1" if side == "before" else "0"}
                r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                t = time.perf_counter()
                out = subprocess.run(cmd, env=e, capture_output=True, text=True)
                cli[side].append((time.perf_counter() - t) * 1000)
                r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                cli_cpu[side].append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000)
                if out.returncode != 0:
                    raise SystemExit(f"codegraph index failed: {out.stderr[-400:]}")
        target.write_text(original)
        from codegraph.indexer.affected import TracingTable
        from codegraph.indexer.resolve import SymbolTable, link_bases, resolve_repo

        all_fx = sorted(state.extractions(repo).values(), key=lambda fx: fx.file.path)
        for _ in range(args.runs):
            for side, cls in (("plain", SymbolTable), ("recording", TracingTable)):
                c = time.process_time()
                table = cls(repo, all_fx)
                link_bases(table, all_fx)
                resolve_repo(repo, all_fx, table=table)
                recording[side].append(time.process_time() - c)
    finally:
        graph.close()
        search.close()
        state.close()
        shutil.rmtree(tmp, ignore_errors=True)

    med = {k: statistics.median(v) for k, v in inproc.items()}
    cmed = {k: statistics.median(v) for k, v in cli.items()}
    mcpu = {k: statistics.median(v) for k, v in inproc_cpu.items()}
    ccpu = {k: statistics.median(v) for k, v in cli_cpu.items()}
    print(f"\none-file edit (textwrap.py), {args.runs} runs per side, alternating; load average {load()}")
    print("(wall ms, and CPU ms of the process: the machine is shared, CPU moves less with the load)\n")
    print("| path | before (whole repo resolved) wall / CPU ms | after (affected files) wall / CPU ms | ratio wall, CPU |")
    print("| --- | ---: | ---: | ---: |")
    print(f"| in process (`index_repo`) | {med['before']:.0f} / {mcpu['before']:.0f} | {med['after']:.0f} / "
          f"{mcpu['after']:.0f} | {med['after'] / med['before']:.2f}, {mcpu['after'] / mcpu['before']:.2f} |")
    print(f"| CLI (`codegraph index --no-embed`) | {cmed['before']:.0f} / {ccpu['before']:.0f} | {cmed['after']:.0f} / "
          f"{ccpu['after']:.0f} | {cmed['after'] / cmed['before']:.2f}, {ccpu['after'] / ccpu['before']:.2f} |")
    print(f"\nfiles resolved: before {resolved.get('before')}, after {resolved.get('after')} (of {s.files})\n")
    keys = [k for k in phases["after"] if k != "total"]
    print("| phase (in process, median ms) | before | after |")
    print("| --- | ---: | ---: |")
    for k in keys:
        print(f"| {k} | {statistics.median(phases['before'].get(k, [0])):.0f} "
              f"| {statistics.median(phases['after'][k]):.0f} |")
    rp, rr = (statistics.median(recording[k]) for k in ("plain", "recording"))
    print(f"\nfull resolution of the repo (table + bases + references), CPU s: plain {rp:.2f}, "
          f"recording look-ups {rr:.2f} (x{rr / rp:.2f})")
    if args.json:
        args.json.write_text(json.dumps({
            "load_average": load(), "files": s.files,
            "full_resolution_cpu_s": {"plain": rp, "recording": rr},
            "in_process": med, "cli": cmed, "in_process_cpu": mcpu, "cli_cpu": ccpu, "resolved_files": resolved,
            "phases_ms": {side: {k: statistics.median(v) for k, v in ph.items()} for side, ph in phases.items()},
        }, indent=2))


if __name__ == "__main__":
    main()

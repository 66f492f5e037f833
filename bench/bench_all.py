"""Every figure of the performance work in one run, with before/after ratios, as one table.

Runs the bench scripts one after another (each in its own process, its whole output kept in
``--logs``) and picks their figures out of what they print:

| step | script | "before" |
|---|---|---|
| startup | bench_startup.py | the script's own: a git worktree of its default base (3cefff6), byte-compiled, run in turn |
| index | bench_index_ab.py | the script's own: 325fe7d, run in turn |
| refresh | bench_refresh_affected.py if present, else bench_refresh.py | the script's own / the same script of ``--base`` |
| embeddings | bench_embed.py | none: phase vs raw model throughput in the same run (goal >= 0.90) |
| elasticsearch | bench_es_bulk.py | the script's own: elastic_search.py of 325fe7d, alternating |
| neo4j | bench_backends.py --no-search | the same script from a ``git archive`` of ``--base`` (its own code) |
| scale | bench_scale.py | none (new figures) |

"before" measured in this run says which revision; a figure with no before says so. The
1-minute load average at the start and end of each step is printed beside its figures: the
machine is shared, so compare within a row, not across runs. A step that fails prints its
last line and the run goes on.

    .venv/bin/python bench/bench_all.py [--quick] [--only neo4j,elasticsearch] [--base REF]

``--quick``: fewer runs and smaller inputs everywhere (minutes, not an hour); the scale
step then indexes the quick corpus. ``--scale-json FILE``: the full scale run takes most of
an hour on the shared machine; its figures can come from an earlier ``bench_scale.py --json``
run instead, and the table names the file and its time. ``--only index --logs DIR`` re-runs
steps into an earlier run's folder (its other steps' logs and loads stay); ``--from-logs DIR``
then prints the whole table.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASE_DEFAULT = "0699055"  # main when this session's Neo4j / scale work started
PY = sys.executable
NUM = r"([\d,]+(?:\.\d+)?)"


@dataclass
class Row:
    figure: str
    after: str
    before: str = "-"
    ratio: str = "-"  # after / before
    source: str = "-"  # where "before" comes from


@dataclass
class Step:
    key: str
    args: Callable[[argparse.Namespace], list[str]]
    parse: Callable[[str, str | None, argparse.Namespace], list[Row]]
    before_from_base: bool = False  # run the same script from a git archive of --base too
    timeout: int = 3600
    rows: list[Row] = field(default_factory=list)


def num(s: str) -> float:
    return float(s.replace(",", ""))


def ratio(a: str, b: str) -> str:
    try:
        return f"{num(a) / num(b):.2f}"
    except (ValueError, ZeroDivisionError):
        return "-"


# -- parsers: each returns the rows of one step -------------------------------------------------------
def p_startup(out: str, _: str | None, a: argparse.Namespace) -> list[Row]:
    rows = []
    m0 = re.search(r"^before = (\S+)", out, re.M)  # the script names its before side
    src = f"bench_startup.py's own: {m0.group(1) if m0 else '3cefff6'} worktree, alternating, byte-compiled"
    for m in re.finditer(rf"^((?:codegraph|python)[^\n]*?)\s{{2,}}{NUM}\s+{NUM}\s+{NUM}\s+{NUM}\s+{NUM}\s+{NUM}(.*)$",
                         out, re.M):
        failed = "non-zero exit" in m.group(8)
        rows.append(Row(f"start-up: {m.group(1).strip()} (CPU ms)", m.group(2), m.group(3), "-" if failed else m.group(4),
                        src + (" (before failed)" if failed else "")))
        rows.append(Row(f"start-up: {m.group(1).strip()} (wall ms)", m.group(5), m.group(6), "-" if failed else m.group(7),
                        src + (f" ({m.group(8).strip()}: not a valid figure)" if failed else "")))
    return rows


def p_index(out: str, _: str | None, a: argparse.Namespace) -> list[Row]:
    side = {m.group(1): m for m in re.finditer(rf"^(after|before)\s+{NUM}\s+{NUM}\s+{NUM}", out, re.M)}
    if "after" not in side or "before" not in side:
        return []
    rev = re.search(r"before = (\S+);", out)  # the revision the script compared with
    src = f"bench_index_ab.py's own: {rev.group(1) if rev else '325fe7d'}, alternating"
    return [Row("index stdlib until queryable (wall s)", side["after"].group(2), side["before"].group(2),
                ratio(side["after"].group(2), side["before"].group(2)), src),
            Row("index stdlib, CPU s of the process tree", side["after"].group(3), side["before"].group(3),
                ratio(side["after"].group(3), side["before"].group(3)), src),
            Row("index stdlib, max RSS of one process (MiB)", side["after"].group(4), side["before"].group(4),
                ratio(side["after"].group(4), side["before"].group(4)), src)] + p_index_trees(out, src)


def p_index_trees(out: str, src: str) -> list[Row]:
    """bench_index_ab's other trees (Django's django/ package): lines led by the tree's name."""
    rows = []
    found = {(m.group(1), m.group(2)): m for m in
             re.finditer(rf"^([a-z]\w*) (after|before)\s+{NUM}\s+{NUM}\s+{NUM}", out, re.M)}
    for tree in sorted({t for t, _ in found}):
        a, b = found.get((tree, "after")), found.get((tree, "before"))
        if a is None or b is None:
            continue
        rows += [Row(f"index {tree} until queryable (wall s)", a.group(3), b.group(3), ratio(a.group(3), b.group(3)), src),
                 Row(f"index {tree}, CPU s of the process tree", a.group(4), b.group(4), ratio(a.group(4), b.group(4)),
                     src)]
    return rows


_REFRESH = re.compile(r"^\| (embedded|Neo4j \+ Elasticsearch) \| [^|]*?: ([\d.]+) s \| ([\d.]+) s \| (\d+) ms "
                      r"\| (\d+) / (\d+) ms \| (\d+) / (\d+) ms \|", re.M)


def p_refresh(out: str, before: str | None, a: argparse.Namespace) -> list[Row]:
    if a.refresh_json and Path(a.refresh_json).is_file():  # u18fast's script: figures as JSON
        data = json.loads(Path(a.refresh_json).read_text())
        rows = []
        for k, v in data.items() if isinstance(data, dict) else []:
            if isinstance(v, dict) and isinstance(v.get("after"), int | float):
                aft, bef = f"{v['after']:,.0f}", f"{v.get('before', 0):,.0f}"
                unit = "" if k in ("resolved_files", "hashed_files") else " (ms)"
                label = data.get("before_label") or "whole-repo re-resolution"
                rows.append(Row(f"refresh one-file edit, stdlib, {k.replace('_', ' ')}{unit}", aft, bef, ratio(aft, bef),
                                f"bench_refresh_affected.py's own: {label}, alternating"))
        if rows:
            return rows
    b = {m.group(1): m for m in _REFRESH.finditer(before or "")}
    rows = []
    for m in _REFRESH.finditer(out):
        o = b.get(m.group(1))
        for i, name in ((2, "full index until queryable s"), (3, "no-op refresh s"),
                        (4, "one-file refresh incl. embeddings ms (p50)"), (5, "impact d5 p50 ms"),
                        (6, "impact d5 p95 ms"), (7, "search p50 ms"), (8, "search p95 ms")):
            rows.append(Row(f"refresh bench, {m.group(1)}: {name}", m.group(i), o.group(i) if o else "-",
                            ratio(m.group(i), o.group(i)) if o else "-",
                            f"bench_refresh.py of {a.base} (git archive)" if o else "no before"))
    return rows


def p_embed(out: str, _: str | None, a: argparse.Namespace) -> list[Row]:
    rows = []
    # Markdown table: | model | ceiling (wall / CPU, batch) | at batch 1 | embed() | phase | phase/ceiling | load s | kNN | hybrid |
    for m in re.finditer(r"^\| (fp32|int8) \| ([\d.]+) / [\d.]+ \(batch (\d+)\) \|[^|]*\|[^|]*\| ([\d.]+) / [\d.]+ \| "
                         r"([\d.]+), ([\d.]+) \| [\d.]+ \| ([\d.]+) \| ([\d.]+) \|", out, re.M):
        src = "same run: the bare model's best batch (goal ratio >= 0.90)"
        rows.append(Row(f"embeddings {m.group(1)}: phase texts/s (before column: bare-model ceiling, batch {m.group(3)})",
                        m.group(4), m.group(2), m.group(5), src + f"; per CPU-second ratio {m.group(6)}"))
        rows.append(Row(f"embeddings {m.group(1)}: recall@10 kNN / hybrid", f"{m.group(7)} / {m.group(8)}"))
    for m in re.finditer(rf"^(fp32|int8)\s+{NUM}\s+{NUM}\s+{NUM}\s+{NUM}\s+{NUM}\s+{NUM}", out, re.M):
        rows.append(Row(f"embeddings {m.group(1)}: phase chunks/s (raw texts/s in before column)", m.group(4),
                        m.group(3), m.group(5), "same run: the model's raw throughput (goal ratio >= 0.90)"))
        rows.append(Row(f"embeddings {m.group(1)}: recall@10 kNN / hybrid", f"{m.group(6)} / {m.group(7)}"))
    # bench_embed's per-round summary (rows:token_budget:streams configs, min and median ratio)
    for m in re.finditer(r"^(fp32|int8) phase / ceiling over (\d+) rounds: wall min ([\d.]+), median ([\d.]+); "
                         r"CPU min ([\d.]+), median ([\d.]+); phase ([\d.]+) texts/s, ceiling ([\d.]+) texts/s "
                         r"\(([\d:]+)\)", out, re.M):
        rows.append(Row(f"embeddings {m.group(1)}: phase texts/s (before column: bare-model ceiling, config "
                        f"{m.group(9)})", m.group(7), m.group(8), f"{m.group(4)} (min {m.group(3)})",
                        f"same run, {m.group(2)} rounds: ratio median (min); per CPU-second {m.group(6)} "
                        f"(min {m.group(5)}); goal >= 0.90"))
    for m in re.finditer(r"^\| (fp32|int8) \| [^|]*\([\d:]+\) \|(?:[^|]*\|){6} ([\d.]+) \| ([\d.]+) \|", out, re.M):
        rows.append(Row(f"embeddings {m.group(1)}: recall@10 kNN / hybrid", f"{m.group(2)} / {m.group(3)}"))
    m = re.search(r"int8 vs fp32 cosine per chunk: mean ([\d.]+), min ([\d.]+)", out)
    if m:
        rows.append(Row("embeddings: int8 vs fp32 cosine mean / min", f"{m.group(1)} / {m.group(2)}"))
    return rows


def p_es(out: str, _: str | None, a: argparse.Namespace) -> list[Row]:
    # One table per "before" revision (header "... (before = REF)"); older output: one table.
    tables = re.split(r"^figure .*\(before = (\w+)\)$", out, flags=re.M)
    if len(tables) == 1:
        m0 = re.search(r"before = (\w+)", out)
        tables = ["", m0.group(1) if m0 else "?", out]
    rows = []
    for ref, text in zip(tables[1::2], tables[2::2], strict=True):
        src = f"bench_es_bulk.py's own: elastic_search.py of {ref}, alternating"
        rows += [Row(f"Elasticsearch {m.group(1)} (vs {ref})", m.group(2), m.group(3), m.group(4), src)
                 for m in re.finditer(rf"^((?:upsert_chunks|set_vectors)[^\n]*?)\s{{2,}}{NUM}\s+{NUM}\s+{NUM}",
                                      text, re.M)]
    return rows


_NEO = ("import_files rows/s (File+Symbol)", "replace_edges rows/s (CALLS)", "all rows/s (nodes+rels)",
        "all rows per CPU-second", "bulk load seconds", "re-import 1 file p50 ms", "impact d5 p50 ms",
        # printed by bench_backends.py since 0327bd0 (a before side older than that shows "-")
        "all rows per client CPU-second", "all rows per server CPU-second",
        "server CPU s: Bolt workers / GC / JIT / other")


def _neo_cols(out: str) -> dict[str, str]:
    got = {}
    for name in _NEO:
        m = re.search(rf"^{re.escape(name)}\s+(.+)$", out, re.M)
        if m:
            cells = re.split(r"\s{2,}", m.group(1).strip())
            got[name] = cells[-1] if len(cells) >= 2 else "-"  # columns: embedded, neo4j
    return got


def p_neo4j(out: str, before: str | None, a: argparse.Namespace) -> list[Row]:
    aft, bef = _neo_cols(out), _neo_cols(before or "")
    src = f"bench_backends.py of {a.base} (git archive, its own code)" if bef else "no before (archive run failed)"
    rows = [Row(f"Neo4j {k}", v, bef.get(k, "-"), ratio(v, bef.get(k, "")) if "seconds" not in k else "-", src)
            for k, v in aft.items()]
    rows.append(Row("Neo4j all rows/s, stored figure from the issue text", "-", "8,700", "-", "issue 18 (stored)"))
    return rows


def p_scale(out: str, _: str | None, a: argparse.Namespace) -> list[Row]:
    path = Path(a.scale_json or Path(a.logs) / "scale.json")
    if not path.is_file():
        return []
    when = time.strftime("%H:%M UTC", time.gmtime(path.stat().st_mtime))
    src = f"not re-run: {path} written {when}" if a.scale_json else "new figure (no before)"
    rows = []
    for backend, figs in json.loads(path.read_text()).items():
        rows += [Row(f"scale, {backend}: {k}", v, source=src) for k, v in figs.items()]
    return rows


def neo4j_pid() -> str:
    """The local Neo4j server of CODEGRAPH_GRAPH (for client + server CPU figures)."""
    sys.path.insert(0, str(ROOT))
    from bench.bench_backends import server_pid_for
    from codegraph.core.settings import load_settings

    return server_pid_for(load_settings().graph) or "0"


OLD_EXTRA = ["pydantic-settings==2.16.3", "python-dotenv==1.2.4"]  # what 325fe7d imports that left the lock


def old_python(given: str) -> str:
    """An interpreter that can run 325fe7d (it imports pydantic_settings, which left the lock):
    ``given``, else main's venv next to this checkout, else one made here once
    (``.cache/venv-before``: this venv's packages through a ``.pth`` line plus ``OLD_EXTRA``
    from PyPI), else this one (its before side then fails and the table says so)."""
    made = ROOT / ".cache" / "venv-before" / "bin" / "python"
    for py in [given, str(ROOT.parent / "main" / ".venv" / "bin" / "python"), str(made)]:
        if py and Path(py).is_file() and subprocess.run([py, "-c", "import pydantic_settings, typer"],
                                                        capture_output=True).returncode == 0:
            return py
    return _make_old_venv(made.parents[1]) or PY


def _make_old_venv(venv: Path) -> str | None:
    """A venv that sees this interpreter's site-packages and adds ``OLD_EXTRA``; None
    (with one line saying why) when pip cannot get them."""
    import sysconfig

    try:
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True, capture_output=True)
        py = venv / "bin" / "python"
        own = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
        Path(own, "bench-before-shared.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
        subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", *OLD_EXTRA], check=True,
                       capture_output=True, text=True)
        return str(py)
    except subprocess.CalledProcessError as e:
        print(f"before-python: could not make {venv}: {(e.stderr or '').strip().splitlines()[-1:] or e}")
        return None


def steps(a: argparse.Namespace) -> list[Step]:
    q = a.quick
    refresh = ROOT / "bench" / "bench_refresh_affected.py"
    return [
        # Its base (3cefff6) runs on this venv: both sides on one interpreter, only the code differs.
        Step("startup", lambda a: ["bench/bench_startup.py", "--runs", "2" if q else "5"], p_startup),
        Step("index", lambda a: ["bench/bench_index_ab.py", "--runs", "1" if q else "2",
                                 "--before-python", a.before_python], p_index),
        Step("refresh", lambda a: (["bench/bench_refresh_affected.py", "--json", a.refresh_json,
                                    "--runs", "2" if q else "5",
                                    *(["--base", a.refresh_base] if a.refresh_base else [])] if refresh.is_file()
                                   else ["bench/bench_refresh.py"] + (["--only", "embedded"] if q else [])),
             p_refresh, before_from_base=not refresh.is_file()),
        Step("embeddings", lambda a: ["bench/bench_embed.py"], p_embed),
        Step("elasticsearch", lambda a: ["bench/bench_es_bulk.py", "--runs", "1" if q else "3",
                                         "--files", "100" if q else "300"], p_es),
        Step("neo4j", lambda a: ["bench/bench_backends.py", "--no-search", "--reimports", "10",
                                 "--server-pid", neo4j_pid(), *(["--files", "50"] if q else [])],
             p_neo4j, before_from_base=True),
        Step("scale", lambda a: (["-c", "pass"] if a.scale_json else
                                 ["bench/bench_scale.py", "--json", str(Path(a.logs) / "scale.json"),
                                  *(["--quick"] if q else [])]), p_scale, timeout=3 * 3600),
    ]


def run(cmd: list[str], cwd: Path, log: Path, timeout: int, pythonpath: Path | None = None) -> tuple[int, str]:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    t = time.perf_counter()
    try:
        r = subprocess.run([PY, *cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
        code, out = r.returncode, r.stdout + ("\n[stderr]\n" + r.stderr if r.stderr.strip() else "")
    except subprocess.TimeoutExpired as e:
        code, out = -1, (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        out += f"\n[timed out after {timeout} s]"
    log.write_text(out + f"\n[exit {code}, {time.perf_counter() - t:.0f} s]\n")
    return code, out


def base_tree(ref: str, into: Path) -> Path:
    """A plain copy (git archive) of ``ref`` with this checkout's services.env."""
    tree = into / f"base-{ref}"
    tree.mkdir(parents=True, exist_ok=True)
    arch = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=arch, check=True)
    env_file = ROOT / ".codegraph" / "services.env"
    if env_file.is_file():
        (tree / ".codegraph").mkdir(exist_ok=True)
        shutil.copy2(env_file, tree / ".codegraph" / "services.env")
    return tree


def table(rows: list[tuple[str, Row]]) -> str:
    head = ["figure", "after", "before", "after/before", "load avg (start-end)", "before from"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for load, r in rows:
        lines.append(f"| {r.figure} | {r.after} | {r.before} | {r.ratio} "
                     f"| {load} | {r.source} |")
    return "\n".join(lines)


def render_logs(a: argparse.Namespace, chosen: list[Step]) -> int:
    """The table of an earlier run from its logs (``--from-logs``), nothing re-run: loads from
    its loads.json, else from the "(load a-b)" lines of ``--run-output``."""
    logs = Path(a.from_logs)
    loads = json.loads((logs / "loads.json").read_text()) if (logs / "loads.json").is_file() else {}
    if not loads and a.run_output:
        loads = dict(re.findall(r"^  (\w+): \d+ figures in \d+ s \(load ([\d.-]+)\)", Path(a.run_output).read_text(),
                                re.M))
    rows: list[tuple[str, Row]] = []
    for s in chosen:
        log = logs / f"{s.key}.log"
        if not log.is_file():
            continue
        before = logs / f"{s.key}.before.log"
        got = s.parse(log.read_text(), before.read_text() if before.is_file() else None, a)
        rows += [(loads.get(s.key, "-"), r) for r in got]
    print(f"All figures of the run logged in {logs} (re-read, nothing re-run)\n")
    print(table(rows))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer runs, smaller inputs")
    ap.add_argument("--only", default="", help="comma list of steps: startup,index,refresh,embeddings,"
                                                "elasticsearch,neo4j,scale")
    ap.add_argument("--base", default=BASE_DEFAULT, help="revision of the 'before' side for archive steps")
    ap.add_argument("--refresh-base", default="", help="revision of the refresh step's 'before' code (default: "
                                                      "this code resolving the whole repo)")
    ap.add_argument("--logs", default="", help="folder for every step's whole output (default: a temp dir)")
    ap.add_argument("--before-python", default="", help="interpreter for the 325fe7d side of startup/index "
                                                        "(needs pydantic-settings; default: main's venv if it has it)")
    ap.add_argument("--from-logs", default="", help="print the table of an earlier run from its --logs folder")
    ap.add_argument("--run-output", default="", help="with --from-logs: that run's printed output (load averages)")
    ap.add_argument("--scale-json", default="", help="take the scale figures from this bench_scale.py --json "
                                                     "file instead of re-running it (the table says so)")
    a = ap.parse_args()
    a.logs = a.logs or a.from_logs or tempfile.mkdtemp(prefix="bench-all-")
    Path(a.logs).mkdir(parents=True, exist_ok=True)
    a.refresh_json = str(Path(a.logs) / "refresh.json")
    a.before_python = old_python(a.before_python)
    only = {s.strip() for s in a.only.split(",") if s.strip()}
    chosen = [s for s in steps(a) if not only or s.key in only]
    print(f"bench_all: {len(chosen)} steps{' (quick)' if a.quick else ''}; base for archive steps {a.base}; "
          f"before-python {a.before_python}; logs in {a.logs}; load average {os.getloadavg()[0]:.1f}", flush=True)
    tree: Path | None = None
    rows: list[tuple[str, Row]] = []
    # A step re-run into an earlier run's --logs keeps the other steps' loads (--from-logs reads them).
    loads_file = Path(a.logs) / "loads.json"
    loads: dict[str, str] = json.loads(loads_file.read_text()) if loads_file.is_file() and not a.from_logs else {}
    if a.from_logs:
        return render_logs(a, chosen)
    t_all = time.perf_counter()
    try:
        for s in chosen:
            l0 = os.getloadavg()[0]
            t = time.perf_counter()
            code, out = run(s.args(a), ROOT, Path(a.logs) / f"{s.key}.log", s.timeout)
            before = None
            if s.before_from_base and code == 0:
                if tree is None:
                    tree = base_tree(a.base, Path(a.logs))
                script = tree / s.args(a)[0]
                if script.is_file():
                    bcode, before = run([str(script), *s.args(a)[1:]], ROOT, Path(a.logs) / f"{s.key}.before.log",
                                        s.timeout, pythonpath=tree)
                    before = before if bcode == 0 else None
            load = f"{l0:.1f}-{os.getloadavg()[0]:.1f}"
            got = s.parse(out, before, a) if code == 0 else []
            if not got:
                last = next((x for x in reversed(out.strip().splitlines()) if x.strip()), "no output")
                got = [Row(f"{s.key}: no figures (exit {code})", last[:120])]
            rows += [(load, r) for r in got]
            loads[s.key] = load
            loads_file.write_text(json.dumps(loads))
            print(f"  {s.key}: {len(got)} figures in {time.perf_counter() - t:.0f} s (load {load})", flush=True)
    finally:
        if tree is not None:
            shutil.rmtree(tree, ignore_errors=True)
    print(f"\nAll figures ({time.perf_counter() - t_all:.0f} s; ratios are after/before: below 1 is faster for "
          "times, above 1 is faster for rates)\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

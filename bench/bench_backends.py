"""Side-by-side figures for the graph backends (embedded sqlite vs Neo4j) and, when
reachable, the search backends (embedded FTS5 vs Elasticsearch).

Usage: ``.venv/bin/python bench/bench_backends.py [--files 200 --symbols 100 --calls 3]``.
Backends come from ``codegraph.core.stores`` with the settings of ``make services``
(``.codegraph/services.env``); an unreachable server is reported and left out.

Figures (wall clock, one process, the machine's other load included):
- bulk load: ``import_files`` rows/s (File + Symbol nodes) and ``replace_edges`` rows/s
  (CALLS), plus all rows written (nodes + IN_REPO + DECLARES + CALLS) per second; for a
  local Neo4j also rows per client and per server CPU-second, the server's CPU split into
  Bolt workers (queries), GC, JIT and other threads, and the load average at start and end;
- single-file re-import: one file with one body edit, one symbol removed and one added,
  then its edges replaced; p50 / p95 in ms (goal on Neo4j: < 500 ms);
- impact (``codegraph.core.impact.impact``) at depth 5 over 20 targets, p50 / p95 in ms;
- ``find_nodes`` (picker search) p50 / p95 in ms over 20 words;
- search: ``upsert_chunks`` rows/s and BM25 p50 / p95 in ms over 30 queries.
The synthetic repo is deterministic (seeded): every symbol calls ``--calls`` others.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codegraph.core.errors import CodegraphError  # noqa: E402
from codegraph.core.graph_store import GraphStore  # noqa: E402
from codegraph.core.models import (  # noqa: E402
    CALLS,
    Chunk,
    Edge,
    FileImport,
    FileRecord,
    RepoRecord,
    SymbolRecord,
    stable_hash,
)
from codegraph.core.proc_cpu import process_cpu, thread_cpu  # noqa: E402
from codegraph.core.search_index import SearchIndex  # noqa: E402
from codegraph.core.settings import load_settings  # noqa: E402
from codegraph.core.stores import open_graph_store, open_search_index  # noqa: E402

REPO = "bench-backends"
WORDS = ("order", "invoice", "customer", "payment", "validate", "save", "load", "parse", "render", "cache",
         "retry", "token", "session", "account", "report", "export", "import", "queue", "event", "price")


def _sym(path: str, module: str, j: int, rng: random.Random, body: str = "") -> SymbolRecord:
    name = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}_{j}"
    qn = f"{module}.{name}"
    params = "(self, " + ", ".join(rng.sample(WORDS, 2)) + ")"
    return SymbolRecord(
        repo=REPO, qualified_name=qn, signature_hash=stable_hash("function", qn, params), name=name,
        kind="function", language="python", language_kind="function_definition", file=path, line=1 + 6 * j,
        end_line=5 + 6 * j, content_hash=stable_hash(qn, body), signature=f"def {name}{params}",
        docstring=f"{name.replace('_', ' ').capitalize()} for the {rng.choice(WORDS)} flow.",
        parent=module)


def synthetic(files: int, per_file: int, calls: int, seed: int = 7) -> tuple[list[FileImport], list[Edge]]:
    rng = random.Random(seed)
    imports: list[FileImport] = []
    for i in range(files):
        path = f"pkg/mod{i:04}.py"
        module = f"pkg.mod{i:04}"
        syms = [_sym(path, module, j, rng) for j in range(per_file)]
        imports.append(FileImport(FileRecord(REPO, path, "python", stable_hash(path)), syms))
    return imports, edges_for(imports, calls, rng)


def edges_for(imports: list[FileImport], calls: int, rng: random.Random) -> list[Edge]:
    every = [s for fi in imports for s in fi.symbols]
    edges: list[Edge] = []
    for fi in imports:
        for s in fi.symbols:
            for k in range(calls):
                t = every[rng.randrange(len(every))]
                edges.append(Edge(CALLS, s.uid, t.uid, s.file, s.line + 1 + k, "unique_name"))
    return edges


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


SERVER_PID_FILE = Path(__file__).resolve().parents[1] / ".services" / "neo4j" / "neo4j.pid"
SERVER_PID: list[str] = []  # set by --server-pid


def server_pid_for(uri: str) -> str:
    """pid of the local Neo4j launcher serving ``uri``'s port ('' when none): the launcher's
    arguments are its home, then the Bolt port (scripts/services/neo4j/neo4j.sh)."""
    port = uri.rsplit(":", 1)[-1].strip("/")
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                args = (d / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"codegraph.services.Neo4jLauncher" in args:
                i = args.index(b"codegraph.services.Neo4jLauncher")
                if len(args) > i + 2 and args[i + 2].decode() == port:
                    return d.name
    return ""


def _server_cpu() -> float:
    """CPU seconds used so far by the local Neo4j JVM (0 when not found). Together with
    this process's own CPU time it gives a figure that does not depend on how busy the
    shared machine is: rows per CPU-second."""
    try:
        pid = SERVER_PID[0] if SERVER_PID else SERVER_PID_FILE.read_text().strip()
    except (OSError, IndexError):
        return 0.0
    return process_cpu(pid)


def _server_threads() -> dict[str, float]:
    """CPU seconds so far of the local Neo4j JVM's threads by kind: ``Bolt workers`` (the
    Cypher and kernel work of the queries), ``GC``, ``JIT`` (C1/C2 compiler threads) and
    ``other`` (from /proc/<pid>/task/*/stat, where thread names are cut at 15 characters;
    empty when the server is not found)."""
    out: dict[str, float] = {}
    try:
        pid = SERVER_PID[0] if SERVER_PID else SERVER_PID_FILE.read_text().strip()
    except (OSError, IndexError):
        return out
    for name, cpu in thread_cpu(pid):
        kind = ("Bolt workers" if "BoltWork" in name else "GC" if name.startswith(("GC Thread", "G1 ", "VM Thread"))
                else "JIT" if "CompilerThre" in name else "other")
        out[kind] = out.get(kind, 0.0) + cpu
    return out


def cpu_timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """(wall seconds, client + server CPU seconds, result)."""
    wall, client, server, out = cpu_split(fn)
    return wall, client + server, out


def cpu_split(fn: Callable[[], Any]) -> tuple[float, float, float, Any]:
    """(wall seconds, client CPU seconds, server CPU seconds, result)."""
    c0, s0 = time.process_time(), _server_cpu()
    wall, out = timed(fn)
    return wall, time.process_time() - c0, _server_cpu() - s0, out


def bench_graph(store: GraphStore, args: argparse.Namespace) -> dict[str, str]:
    store.delete_repo(REPO)
    imports, edges = synthetic(args.files, args.symbols, args.calls)
    n_sym = sum(len(fi.symbols) for fi in imports)
    store.upsert_repo(RepoRecord(REPO, "/bench"))
    load0, threads0 = os.getloadavg()[0], _server_threads()
    t_nodes, cc_nodes, sc_nodes, _ = cpu_split(lambda: store.import_files(REPO, imports))
    bolt_nodes = _server_threads().get("Bolt workers", 0.0) - threads0.get("Bolt workers", 0.0)
    t_edges, cc_edges, sc_edges, created = cpu_split(
        lambda: store.replace_edges(REPO, [fi.file.path for fi in imports], edges))
    c_nodes, c_edges = cc_nodes + sc_nodes, cc_edges + sc_edges
    threads = {k: v - threads0.get(k, 0.0) for k, v in _server_threads().items()}
    # Rows written: File + Symbol nodes, IN_REPO + DECLARES, CALLS.
    rows = len(imports) + n_sym + len(imports) + n_sym + created
    out = {
        "symbols": f"{n_sym:,}", "CALLS edges": f"{created:,}",
        "import_files rows/s (File+Symbol)": f"{(len(imports) + n_sym) / t_nodes:,.0f}",
        "replace_edges rows/s (CALLS)": f"{created / t_edges:,.0f}",
        "all rows/s (nodes+rels)": f"{rows / (t_nodes + t_edges):,.0f}",
        "bulk load seconds": f"{t_nodes:.1f} + {t_edges:.1f}",
        "bulk load CPU s (client+server)": f"{c_nodes:.1f} + {c_edges:.1f}",
        "all rows per CPU-second": f"{rows / max(1e-9, c_nodes + c_edges):,.0f}",
        "load average (1 min)": f"{os.getloadavg()[0]:.1f}",
    }
    if sc_nodes + sc_edges > 0:  # a local server whose CPU we can read
        out |= {
            "bulk load client CPU s": f"{cc_nodes:.2f} + {cc_edges:.2f}",
            "bulk load server CPU s": f"{sc_nodes:.2f} + {sc_edges:.2f}",
            "all rows per client CPU-second": f"{rows / max(1e-9, cc_nodes + cc_edges):,.0f}",
            "all rows per server CPU-second": f"{rows / max(1e-9, sc_nodes + sc_edges):,.0f}",
            # The Bolt worker runs a transaction on one thread: with idle cores, a phase's wall
            # time cannot be shorter than its Bolt CPU plus the client's.
            "server Bolt-worker CPU s (nodes + edges)":
                f"{bolt_nodes:.2f} + {threads.get('Bolt workers', 0.0) - bolt_nodes:.2f}",
            "server CPU s: Bolt workers / GC / JIT / other": " / ".join(
                f"{threads.get(k, 0.0):.2f}" for k in ("Bolt workers", "GC", "JIT", "other")),
            "load average (1 min) start-end": f"{load0:.1f}-{os.getloadavg()[0]:.1f}",
        }

    rng = random.Random(11)
    flat = []
    for w in rng.sample(WORDS, 10) + [f"{a}_{b}" for a, b in zip(rng.sample(WORDS, 10), rng.sample(WORDS, 10), strict=True)]:
        dt, _ = timed(lambda w=w: store.find_nodes(w, repo=REPO))
        flat.append(dt * 1000)
    out["find_nodes p50 ms"] = f"{pct(flat, 50):.0f}"
    out["find_nodes p95 ms"] = f"{pct(flat, 95):.0f}"
    lat: list[float] = []
    by_file: dict[str, list[Edge]] = {}
    for e in edges:
        by_file.setdefault(e.file, []).append(e)
    for r in range(args.reimports):
        fi = imports[rng.randrange(len(imports))]
        syms = list(fi.symbols)
        syms[0] = _sym(fi.file.path, syms[0].qualified_name.rsplit(".", 1)[0], 0, random.Random(r), body=f"edit {r}")
        syms[0].qualified_name, syms[0].name = fi.symbols[0].qualified_name, fi.symbols[0].name
        syms[0].signature_hash = fi.symbols[0].signature_hash
        syms.pop()  # one deleted
        syms.append(_sym(fi.file.path, f"pkg.mod_new{r}", 9999, rng))  # one added
        new = FileImport(FileRecord(REPO, fi.file.path, "python", stable_hash(fi.file.path, str(r))), syms)
        live = {s.uid for s in syms}
        fedges = [e for e in by_file.get(fi.file.path, []) if e.source in live]
        t, _ = timed(lambda new=new, fedges=fedges: (store.import_files(REPO, [new]),
                                                     store.replace_edges(REPO, [new.file.path], fedges)))
        lat.append(t * 1000)
    out["re-import 1 file p50 ms"] = f"{pct(lat, 50):.0f}"
    out["re-import 1 file p95 ms"] = f"{pct(lat, 95):.0f}"

    from codegraph.core.impact import impact

    targets = [fi.symbols[1] for fi in rng.sample(imports, 20)]  # [0] was edited, [-1] removed
    ilat: list[float] = []
    callers: list[int] = []
    for s in targets:
        t, res = timed(lambda s=s: impact(store, s.qualified_name, repo=REPO, depth=5))
        ilat.append(t * 1000)
        callers.append(len(res.callers))
    out["impact d5 p50 ms"] = f"{pct(ilat, 50):.0f}"
    out["impact d5 p95 ms"] = f"{pct(ilat, 95):.0f}"
    out["impact d5 callers (median)"] = f"{statistics.median(callers):.0f}"
    if not args.keep:
        store.delete_repo(REPO)
    return out


def bench_search(index: SearchIndex, args: argparse.Namespace) -> dict[str, str]:
    index.delete_repo(REPO)
    imports, _ = synthetic(max(1, args.chunks // args.symbols), args.symbols, 0)
    chunks = []
    for fi in imports:
        for s in fi.symbols:
            text = f"{s.signature}:\n    \"\"\"{s.docstring}\"\"\"\n    return {s.name}_impl(self)\n"
            chunks.append(Chunk(chunk_id=s.uid, repo=REPO, file=s.file, kind="function", language="python",
                                line=s.line, end_line=s.end_line, text=text, embed_text=s.signature,
                                content_hash=s.content_hash, qualified_name=s.qualified_name, name=s.name,
                                symbol_uid=s.uid))
    t, _ = timed(lambda: [index.upsert_chunks(chunks[i:i + 1000]) for i in range(0, len(chunks), 1000)])
    rng = random.Random(5)
    lat = []
    for _ in range(30):
        q = " ".join(rng.sample(WORDS, 2))
        dt, _ = timed(lambda q=q: index.bm25(q, 20, REPO))
        lat.append(dt * 1000)
    if not args.keep:
        index.delete_repo(REPO)
    return {"chunks": f"{len(chunks):,}", "upsert_chunks rows/s": f"{len(chunks) / t:,.0f}",
            "bm25 p50 ms": f"{pct(lat, 50):.1f}", "bm25 p95 ms": f"{pct(lat, 95):.1f}"}


def table(title: str, cols: dict[str, dict[str, str]]) -> None:
    names = list(cols)
    keys = list(dict.fromkeys(k for c in cols.values() for k in c))
    w0 = max(len(k) for k in keys) + 2
    ws = [max(len(n), *(len(cols[n].get(k, "")) for k in keys)) + 2 for n in names]
    print(f"\n{title}")
    print("".ljust(w0) + "".join(n.rjust(w) for n, w in zip(names, ws, strict=True)))
    for k in keys:
        print(k.ljust(w0) + "".join(cols[n].get(k, "-").rjust(w) for n, w in zip(names, ws, strict=True)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--symbols", type=int, default=100, help="symbols per file")
    ap.add_argument("--calls", type=int, default=3, help="CALLS edges per symbol")
    ap.add_argument("--reimports", type=int, default=40)
    ap.add_argument("--chunks", type=int, default=5000)
    ap.add_argument("--keep", action="store_true", help="leave the bench repo in the stores")
    ap.add_argument("--server-pid", default="", help="Neo4j JVM pid for CPU figures (default: the local launcher on the Bolt port of CODEGRAPH_GRAPH)")
    ap.add_argument("--no-search", action="store_true", help="graph backends only")
    ap.add_argument("--graph", choices=("both", "embedded", "neo4j"), default="both",
                    help="which graph backends to measure (default both)")
    args = ap.parse_args()
    served = load_settings()
    if args.server_pid or server_pid_for(served.graph):  # the server this run talks to
        SERVER_PID.append(args.server_pid or server_pid_for(served.graph))
    with tempfile.TemporaryDirectory() as home:
        graph_cols: dict[str, dict[str, str]] = {}
        search_cols: dict[str, dict[str, str]] = {}
        embedded = load_settings(graph="embedded", search="embedded", home=Path(home))
        graph_targets = [("embedded", embedded)] if args.graph != "neo4j" else []
        if served.graph != "embedded" and args.graph != "embedded":
            graph_targets.append(("neo4j", served))
        for name, settings in graph_targets:
            try:
                store = open_graph_store(settings)
            except CodegraphError as e:
                print(f"{name}: skipped: {e}")
                continue
            try:
                graph_cols[name] = bench_graph(store, args)
            finally:
                store.close()
        table(f"Graph backends ({args.files} files x {args.symbols} symbols, {args.calls} calls each)", graph_cols)

        search_targets = [] if args.no_search else [("embedded", embedded)]
        if served.search != "embedded" and not args.no_search:
            search_targets.append(("elasticsearch", load_settings(elastic_prefix="cgbench")))
        for name, settings in search_targets:
            try:
                index = open_search_index(settings)
            except (CodegraphError, ImportError) as e:
                print(f"{name} search: skipped: {e}")
                continue
            try:
                search_cols[name] = bench_search(index, args)
            finally:
                index.close()
        if search_cols:
            table("Search backends", search_cols)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

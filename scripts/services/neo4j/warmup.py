"""Warm a freshly started local Neo4j up for bulk loads (run by neo4j.sh start, docs/DESIGN.md#scale).

A JVM that has just started runs Neo4j's Cypher runtime and storage engine interpreted until
its JIT compilers have compiled the hot methods: the first full load after a restart
(bench/bench_backends.py, 100,400 rows) ran at 6,205-6,846 rows/s with 10.5-12 CPU-seconds of
JIT, the second at 16,560-17,184 (machine load 10-14). This script pays that once, at start
(after two rounds the first load printed 20,051-22,149 rows/s at load 11-18, with 2.7-2.9 CPU-s of
JIT still in it; after five 1.29, after six 0.74): it writes a synthetic repository
through codegraph's own Neo4j store (the same queries and parameter shapes as a real first
load, an edges phase and a one-file re-import), ``--rounds`` times, deleting it after each
round. The repository is named ``__codegraph_warmup__``; nothing of it is left behind.

    python scripts/services/neo4j/warmup.py URI PASSWORD_FILE [--rounds 5] [--files 200] [--pid PID]

Prints one line per round: its seconds and, given ``--pid`` (the server JVM's pid), the CPU-seconds
its JIT compiler threads spent in it (what tells whether more rounds would pay). Exits 0 without
doing anything when codegraph is not importable (the project's virtualenv is not installed yet), 1 with one line on an error.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

REPO = "__codegraph_warmup__"


def synthetic(files: int, per_file: int, calls: int) -> tuple[list, list]:  # type: ignore[type-arg]
    """``files`` files of ``per_file`` functions, each calling ``calls`` others (deterministic)."""
    from codegraph.core.models import CALLS, Edge, FileImport, FileRecord, SymbolRecord, stable_hash

    imports = []
    for i in range(files):
        path = f"warm/mod{i:04}.py"
        syms = []
        for j in range(per_file):
            qn = f"warm.mod{i:04}.f{j}"
            syms.append(SymbolRecord(
                repo=REPO, qualified_name=qn, signature_hash=stable_hash("function", qn, "(a, b)"), name=f"f{j}",
                kind="function", language="python", language_kind="function_definition", file=path,
                line=1 + 6 * j, end_line=5 + 6 * j, content_hash=stable_hash(qn), signature=f"def f{j}(a, b)",
                docstring=f"Function {j} of module {i}.", parent=f"warm.mod{i:04}"))
        imports.append(FileImport(FileRecord(REPO, path, "python", stable_hash(path)), syms))
    every = [s for fi in imports for s in fi.symbols]
    edges = [Edge(CALLS, s.uid, every[(n * 7919 + k * 104729) % len(every)].uid, s.file, s.line + 1 + k, "unique_name")
             for n, s in enumerate(every) for k in range(calls)]
    return imports, edges


def jit_cpu(pid: str, proc: Path = Path("/proc")) -> float | None:
    """CPU seconds so far of the JIT compiler threads (C1/C2, named "C2 CompilerThre...") of
    JVM ``pid``, from <proc>/<pid>/task/*/stat (``codegraph.core.proc_cpu``); None when there
    is no pid, the process cannot be read, or it has no such thread."""
    from codegraph.core.proc_cpu import thread_cpu

    jit = [cpu for name, cpu in thread_cpu(pid, proc) if "CompilerThre" in name]
    return sum(jit) if jit else None


def one_round(store, files: int) -> None:  # type: ignore[no-untyped-def]
    from codegraph.core.models import FileImport, RepoRecord

    imports, edges = synthetic(files, 100, 3)
    store.delete_repo(REPO)
    store.upsert_repo(RepoRecord(REPO, "/__codegraph_warmup__"))
    store.import_files(REPO, imports)  # the first-load (CREATE) path
    paths = [fi.file.path for fi in imports]
    store.replace_edges(REPO, paths, edges)
    again = FileImport(imports[0].file, imports[0].symbols[1:])  # one file re-imported: the MERGE path
    store.import_files(REPO, [again])
    store.replace_edges(REPO, [again.file.path], [e for e in edges if e.file == again.file.path][3:])
    store.delete_repo(REPO)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("uri")
    ap.add_argument("password_file")
    # Five rounds: a round's JIT CPU was still 1-2 s in rounds 3-6 (load ~6.5, 13-23 s per round);
    # the first bench load's JIT was 2.7-2.9 CPU-s after 2 rounds, 1.29 after 5, 0.74 after 6.
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--files", type=int, default=200, help="files of 100 symbols per round")
    ap.add_argument("--pid", default="", help="the server JVM's pid: print each round's JIT CPU-seconds")
    args = ap.parse_args()
    try:
        from codegraph.core.neo4j_graph import Neo4jGraphStore
    except ImportError:
        print("neo4j: warm-up skipped (codegraph is not installed in this Python)")
        return 0
    try:
        store = Neo4jGraphStore(args.uri, "neo4j", Path(args.password_file).read_text().strip())
        try:
            for r in range(args.rounds):
                t, jit0 = time.perf_counter(), jit_cpu(args.pid)
                one_round(store, args.files)
                jit1 = jit_cpu(args.pid)
                jit = f" (JIT {jit1 - jit0:.1f} CPU-s)" if jit0 is not None and jit1 is not None else ""
                print(f"neo4j: warm-up round {r + 1}/{args.rounds}: {time.perf_counter() - t:.1f} s{jit}", flush=True)
        finally:
            store.close()
    except Exception as e:  # noqa: BLE001 - one line; the server itself is up
        print(f"neo4j: warm-up failed: {type(e).__name__}: {' '.join(str(e).split())[:300]}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

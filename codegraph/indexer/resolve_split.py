"""Resolution over two processes: the files' references split between the run and a
forked child, merged into exactly what one process gives (docs/DESIGN.md#resolution).

After the symbol table and the resolved bases exist, resolving one reference reads the
table and writes only into the results of its own file: its edges (an edge's key holds
its file, so the two halves never share one), its counts, its dependency keys
(``codegraph.indexer.affected``). What crosses files is order: the stub record kept for
a uid (the first one set, replaced only by the first ``ambiguous``), the order of the
files in ``Resolution.edges``, the values handed to parameters and the ``self.m()``
calls the later passes read, and the keys the tracing table's ``begin`` records when the
resolver moves from one reference to the next. So a child made by ``fork`` (it inherits
the table: nothing is pickled on the way in) resolves the files from the middle on, the
run the first ones; each half notes the position of every order-dependent event
((pass, file index, item index): the inheritance references of every file come before
the other references, as in ``resolve_repo``), and the run merges by position: edges per
file in first-edge order, stub records replayed in order through the same rule, the
``begin`` sequence replayed over the merged keys, the passes and dispatch candidates
sorted. The child's half comes back pickled (edges, stub records, counts, keys).

Off unless ``CODEGRAPH_RESOLVE_SPLIT=1``: measured on the standard library's CLI index (2 cores,
our processes given most of both), it moved ~0.65 CPU s off the main process but cost
the process tree ~0.4 CPU s more and gave no shorter wall (the search-writes child holds
the second core during resolution). Then only for many references (``SPLIT_AT_LEAST``: a
fork and the pickled half cost about 0.1 s) into an empty Resolution, on a platform with
``fork``. The child dies with the
run (``codegraph.indexer.workers``); an error it raised re-raises in the run, a child
that vanished raises ``ResolveChildLost``.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from codegraph.core.models import EXTENDS, IMPLEMENTS, Edge, StubRecord, SymbolRecord
from codegraph.indexer import fork_guard
from codegraph.indexer.dispatch import may_dispatch
from codegraph.indexer.hints import Pass, RefHints
from codegraph.indexer.records import FileExtraction, Reference
from codegraph.indexer.resolve import Decision, Resolution, SymbolTable, parsed_hints, resolve_refs

SPLIT_AT_LEAST = 15_000  # references resolved; fewer, and the run resolves them alone
_INHERITANCE = (EXTENDS, IMPLEMENTS)

Key = tuple[int, int, int]  # (pass: 0 inheritance / 1 others, file index, item index in its half)


class ResolveChildLost(RuntimeError):
    """The resolution child ended without sending its half (killed, out of memory)."""


@dataclass(slots=True)
class _Half:
    """One half's results, with the positions the merge orders by."""

    edges: dict[str, list[Edge]] = field(default_factory=dict)
    stubs: list[tuple[Key, StubRecord]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    per_file: dict[str, Any] | None = None  # path -> Counter, when the counts keep them per file
    passes: list[tuple[Key, int, int, Pass, list[SymbolRecord]]] = field(default_factory=list)  # (.., fi, ri, ..)
    dispatch: list[tuple[Key, int, int, RefHints]] = field(default_factory=list)
    deps: Any = None  # the tracing table's keys of these files (SymbolTable.split_keys)
    runs: dict[int, tuple[int, int]] = field(default_factory=dict)  # file index -> (inheritance, other) references


def worth_it(fxs: list[FileExtraction], res: Resolution) -> bool:
    """Split these files' references over two processes? (Module doc.)"""
    if os.environ.get("CODEGRAPH_RESOLVE_SPLIT") != "1" or res.edges or res.stubs or res.counts or len(fxs) < 2:
        return False
    if sum(len(fx.references) for fx in fxs) < SPLIT_AT_LEAST:
        return False
    return "fork" in multiprocessing.get_all_start_methods() and fork_guard.quiet()


def _middle(fxs: list[FileExtraction]) -> int:
    """Index of the first file of the child's half: about half the references each."""
    total = sum(len(fx.references) for fx in fxs)
    acc = 0
    for i, fx in enumerate(fxs):
        acc += len(fx.references)
        if acc * 2 >= total:
            return min(max(i + 1, 1), len(fxs) - 1)
    return len(fxs) - 1


def _resolve_half(table: SymbolTable, repo: str, fxs: list[FileExtraction], lo: int, hi: int,
                  decisions: dict[str, Decision], res: Resolution, seen: set[tuple[str, str, str, str, int]]) -> _Half:
    """Resolve the references of ``fxs[lo:hi]`` into ``res`` in ``resolve_repo``'s order,
    recording nothing at ``begin`` (the run replays that sequence), and return what the
    merge needs."""
    inh: list[tuple[Reference, RefHints]] = []
    oth: list[tuple[Reference, RefHints]] = []
    w_inh: list[tuple[int, int]] = []
    w_oth: list[tuple[int, int]] = []
    runs: dict[int, tuple[int, int]] = {}
    parsed = parsed_hints(r for fi in range(lo, hi) for r in fxs[fi].references)
    j = 0
    for fi in range(lo, hi):
        n = len(inh)
        for ri in range(len(fxs[fi].references)):
            item = parsed[j]
            j += 1
            if item[0].type in _INHERITANCE:
                inh.append(item)
                w_inh.append((fi, ri))
            else:
                oth.append(item)
                w_oth.append((fi, ri))
        if fxs[fi].references:
            runs[fi] = (len(inh) - n, len(fxs[fi].references) - len(inh) + n)
    items = inh + oth
    where = w_inh + w_oth
    n_inh = len(inh)

    def key(i: int) -> Key:
        return (0 if i < n_inh else 1, where[i][0], i)

    passes: list[tuple[int, Reference, Pass, list[SymbolRecord]]] = []
    stub_sets: list[tuple[int, StubRecord]] = []
    resolve_refs(table, repo, items, decisions, res, seen, passes, table.begin_quiet, stub_sets)
    half = _Half(edges=res.edges, stubs=[(key(i), st) for i, st in stub_sets], runs=runs)
    half.passes = [(key(i), *where[i], p, syms) for i, _, p, syms in passes]
    half.dispatch = [(key(i), *where[i], items[i][1]) for i in range(n_inh, len(items)) if may_dispatch(*items[i])]
    return half


def _child(conn: Connection, theirs: Connection, parent: int, main: bool, table: SymbolTable, repo: str,
           fxs: list[FileExtraction], lo: int, decisions: dict[str, Decision], res: Resolution) -> None:
    from codegraph.indexer.workers import die_with_parent

    theirs.close()  # the run's end, inherited: only the run may hold it, or its close is no EOF here
    die_with_parent(parent, main)
    try:
        half = _resolve_half(table, repo, fxs, lo, len(fxs), decisions, res, set())
        half.counts = dict(res.counts)
        per_file = getattr(res.counts, "per_file", None)
        half.per_file = dict(per_file) if per_file is not None else None
        half.deps = table.split_keys([fx.file.path for fx in fxs[lo:]])
        # Edges as tuples: a tenth of the pickling cost of the dataclass instances.
        half.edges = {p: [(e.type, e.source, e.target, e.file, e.line, e.resolution, e.extra) for e in es]
                      for p, es in half.edges.items()}  # type: ignore[misc]
        conn.send(("done", half))
    except BaseException as e:  # every failure goes back to the run
        try:
            conn.send(("error", e))
        except Exception:  # an exception that does not pickle
            with contextlib.suppress(Exception):
                conn.send(("error", RuntimeError(f"resolving failed: {type(e).__name__}: {e}")))
    finally:
        conn.close()


def _receive(conn: Connection, proc: Any) -> _Half:
    try:
        msg = conn.recv()
    except EOFError:
        msg = None
    conn.close()
    proc.join()
    if msg is None:
        raise ResolveChildLost(f"the resolution process ended without a result (exit code {proc.exitcode})")
    if msg[0] == "error":
        raise msg[1]
    half: _Half = msg[1]
    half.edges = {p: [Edge(*t) for t in es] for p, es in half.edges.items()}
    return half


def resolve_split(table: SymbolTable, repo: str, fxs: list[FileExtraction], decisions: dict[str, Decision],
                  res: Resolution, seen: set[tuple[str, str, str, str, int]],
                  ) -> tuple[list[tuple[int, Reference, Pass, list[SymbolRecord]]], list[tuple[Reference, RefHints]]]:
    """Resolve ``fxs``' references into ``res`` (empty) over two processes, as
    ``resolve_refs`` over all of them in one would; fill ``seen``. Returns the passes
    (in order) and the references ``link_overrides`` reads (a subset of the others, in
    order: ``dispatch.may_dispatch``)."""
    mid = _middle(fxs)
    cursor = table.cursor()  # where the run's begin sequence starts (replayed below)
    ctx = multiprocessing.get_context("fork")
    conn, child_end = ctx.Pipe(duplex=False)
    main = threading.current_thread() is threading.main_thread()
    proc = ctx.Process(target=_child, args=(child_end, conn, os.getpid(), main, table, repo, fxs, mid, decisions, res),
                       name="codegraph-resolve", daemon=True)
    proc.start()
    child_end.close()  # EOF on our end when the child ends
    try:
        mine = _resolve_half(table, repo, fxs, 0, mid, decisions, res, seen)
    except BaseException:
        proc.kill()
        conn.close()
        proc.join()
        raise
    theirs = _receive(conn, proc)
    index = {fx.file.path: i for i, fx in enumerate(fxs)}
    # Keys and counts: per file, each file in one half.
    table.merge_keys(theirs.deps)
    for k, v in theirs.counts.items():
        dict.__setitem__(res.counts, k, res.counts.get(k, 0) + v)  # not per file: theirs below
    per_file = getattr(res.counts, "per_file", None)
    if per_file is not None and theirs.per_file:
        per_file.update(theirs.per_file)
    # Edges: files in the order of their first edge, each file's list as resolved.
    by_file = [*mine.edges.items(), *theirs.edges.items()]
    by_file.sort(key=lambda kv: (0 if kv[1][0].type in _INHERITANCE else 1, index[kv[0]]))
    res.edges.clear()  # ours were written there: ``by_file`` holds them
    res.edges.update(by_file)
    seen.update(e.key() for es in theirs.edges.values() for e in es)  # ours are there
    # Stub records: every record a half set, replayed in position order through the rule.
    dict.clear(res.stubs)
    for (ps, fi, _), st in sorted([*mine.stubs, *theirs.stubs], key=lambda e: e[0]):
        table.begin_quiet(fxs[fi].file.path, ps == 0)
        prev = res.stubs.get(st.uid)
        if prev is None or (st.reason == "ambiguous" and prev.reason != "ambiguous"):
            res.stubs[st.uid] = st
    # The begin sequence of one process: per pass, per file, once per reference (two
    # calls record what any longer run of one file's references records).
    table.set_cursor(cursor)
    runs = sorted([*mine.runs.items(), *theirs.runs.items()])
    for ps in (0, 1):
        for fi, counts in runs:
            for _ in range(min(counts[ps], 2)):
                table.begin(fxs[fi].file.path, ps == 0)
    passes = [(0, fxs[fi].references[ri], p, syms)
              for _, fi, ri, p, syms in sorted([*mine.passes, *theirs.passes], key=lambda e: e[0])]
    dispatch = [(fxs[fi].references[ri], h)
                for _, fi, ri, h in sorted([*mine.dispatch, *theirs.dispatch], key=lambda e: e[0])]
    return passes, dispatch


__all__ = ["SPLIT_AT_LEAST", "ResolveChildLost", "resolve_split", "worth_it"]

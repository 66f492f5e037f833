"""The embedded graph skips the two node look-ups of an edge whose ends its open write
transaction upserted (codegraph.core.embedded_graph, ``_local.live``): an edge is still
written only when both ends exist, whichever way a node left in that transaction
(delete_nodes, the diff of import_files, remove_files, prune_unreferenced, delete_repo),
and the rows keep the order they were given in."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.models import CALLS, STUB, Edge, FileImport, FileRecord, StubRecord, SymbolRecord


def _sym(path: str, name: str, line: int) -> SymbolRecord:
    return SymbolRecord("r", f"{path[:-3]}.{name}", "s", name, "function", "python", "function_definition", path,
                        line, line)


def _file(path: str, *names: str) -> FileImport:
    return FileImport(FileRecord("r", path, "python", "h" + path), [_sym(path, n, i + 1) for i, n in enumerate(names)])


def _edges(path: Path) -> list[tuple]:
    c = sqlite3.connect(path)
    try:
        return c.execute("SELECT type, source, target, file, line FROM edges WHERE type=? ORDER BY id",
                         (CALLS,)).fetchall()
    finally:
        c.close()


A, B, STUB_UID = "sym|r|a.f|s", "sym|r|b.g|s", StubRecord("r", "os.gone", "missing").uid

# Each way a node leaves the graph inside the transaction that upserted it.
GONE: dict[str, Callable[[EmbeddedGraphStore], None]] = {
    "delete_nodes": lambda g: g.delete_nodes([B]),
    "import_files diff": lambda g: g.import_files("r", [_file("b.py")]),  # b.g no longer declared
    "remove_files": lambda g: g.remove_files("r", ["b.py"]),
    "prune_unreferenced": lambda g: g.prune_unreferenced("r", [STUB]),
}


@pytest.mark.parametrize("how", sorted(GONE))
def test_an_edge_to_a_node_deleted_in_the_run_is_not_written(tmp_path: Path, how: str) -> None:
    g = EmbeddedGraphStore(tmp_path / "graph.db")
    with g.atomic():
        g.import_files("r", [_file("a.py", "f"), _file("b.py", "g")])
        g.upsert_nodes([StubRecord("r", "os.gone", "missing").to_node()])
        GONE[how](g)
        gone = STUB_UID if how == "prune_unreferenced" else B
        n = g.replace_edges("r", ["a.py"], [Edge(CALLS, A, gone, "a.py", 1, "import"),
                                            Edge(CALLS, gone, A, "a.py", 2, "import")])
    assert n == 0
    assert _edges(tmp_path / "graph.db") == []
    assert g.verify("r")["dangling_edges"] == 0


def test_an_edge_after_delete_repo_in_the_run_is_not_written(tmp_path: Path) -> None:
    g = EmbeddedGraphStore(tmp_path / "graph.db")
    with g.atomic():
        g.import_files("r", [_file("a.py", "f", "g")])
        g.delete_repo("r")
        assert g.replace_edges("r", ["a.py"], [Edge(CALLS, A, "sym|r|a.g|s", "a.py", 1, "import")]) == 0
    assert _edges(tmp_path / "graph.db") == []


def test_ends_written_before_the_transaction_are_looked_up(tmp_path: Path) -> None:
    """An end from an earlier transaction is found by its look-up; a missing one leaves the
    edge out; the rows keep their order across the two kinds."""
    g = EmbeddedGraphStore(tmp_path / "graph.db")
    g.import_files("r", [_file("a.py", "f"), _file("b.py", "g")])  # committed
    with g.atomic():
        g.import_files("r", [_file("c.py", "h")])  # c.h is upserted in this run
        c_h = "sym|r|c.h|s"
        edges = [Edge(CALLS, c_h, c_h, "c.py", 1, "same_module"), Edge(CALLS, c_h, A, "c.py", 2, "import"),
                 Edge(CALLS, c_h, "sym|r|nowhere|s", "c.py", 3, "import"), Edge(CALLS, c_h, c_h, "c.py", 4, "x"),
                 Edge(CALLS, B, c_h, "c.py", 5, "import")]
        assert g.replace_edges("r", ["c.py"], edges) == 4
    assert _edges(tmp_path / "graph.db") == [(CALLS, e.source, e.target, e.file, e.line) for e in edges
                                             if "nowhere" not in e.target]


def test_a_rolled_back_run_forgets_its_nodes(tmp_path: Path) -> None:
    g = EmbeddedGraphStore(tmp_path / "graph.db")
    with pytest.raises(RuntimeError), g.atomic():
        g.import_files("r", [_file("a.py", "f"), _file("b.py", "g")])
        raise RuntimeError("killed")
    with g.atomic():
        g.import_files("r", [_file("a.py", "f")])  # b.g was rolled back with its run
        assert g.replace_edges("r", ["a.py"], [Edge(CALLS, A, B, "a.py", 1, "import")]) == 0
    assert _edges(tmp_path / "graph.db") == []


def _all_rows(path: Path) -> tuple[list[tuple], list[tuple]]:
    c = sqlite3.connect(path)
    try:
        return (c.execute("SELECT rowid, * FROM nodes ORDER BY rowid").fetchall(),
                c.execute("SELECT * FROM edges ORDER BY id").fetchall())
    finally:
        c.close()


def _many_rows(g: EmbeddedGraphStore) -> tuple[int, int]:
    """Writes of more rows than one statement takes, with repeats inside one statement: a
    node given twice (the last one wins), an edge key given twice (the first one stays), an
    edge to a missing node among them."""
    files = [_file(f"m{i}.py", *[f"f{j}" for j in range(7)]) for i in range(19)]  # 152 node rows
    files[3].symbols[2] = files[3].symbols[1]  # one uid twice in a file
    files[3].symbols[2].end_line = 9
    g.import_files("r", files)
    stubs = [StubRecord("r", f"x.n{i % 61}", "missing", i) for i in range(130)]  # 69 repeats
    g.upsert_nodes([s.to_node() for s in stubs])
    syms = [s.uid for fi in files for s in fi.symbols]
    edges = [Edge(CALLS, syms[i % 120], syms[(i * 7) % 133], f"m{i % 19}.py", i % 3, f"r{i}") for i in range(260)]
    for at, of in ((40, 30), (45, 44), (130, 101)):  # a key again, in the same statement of 50 rows
        e = edges[of]
        edges.insert(at, Edge(e.type, e.source, e.target, e.file, e.line, "again", {"n": at}))
    edges.insert(120, Edge(CALLS, syms[0], "sym|r|nowhere|s", "m0.py", 1, "import"))
    with g.atomic():
        n = g.replace_edges("r", [f"m{i}.py" for i in range(19)], edges)
    return n, len({e.key() for e in edges if "nowhere" not in e.target})


def test_rows_go_in_as_one_statement_per_row_would_write_them(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Several rows per statement (``ROWS_PER_STATEMENT``) leave the same rows, rowids and
    counts as one statement per row."""
    from codegraph.core import sqlite_rows

    per_statement = sqlite_rows.ROWS_PER_STATEMENT
    got = _many_rows(EmbeddedGraphStore(tmp_path / "many.db"))
    assert got == (260, 260) and per_statement > 1
    monkeypatch.setattr(sqlite_rows, "ROWS_PER_STATEMENT", 1)
    assert _many_rows(EmbeddedGraphStore(tmp_path / "one.db")) == got
    assert _all_rows(tmp_path / "many.db") == _all_rows(tmp_path / "one.db")

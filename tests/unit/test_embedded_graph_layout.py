"""The embedded graph's file layout (codegraph.core.embedded_graph, docs/DESIGN.md#backends):
a new file gets LAYOUT; a file of layout 1 (the edge key led by the type, five edge
indexes) is brought to it on open with every row and id as it was, and answers the same."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from codegraph.core.embedded_graph import LAYOUT, EmbeddedGraphStore
from codegraph.core.models import CALLS, Edge, FileImport, FileRecord, SymbolRecord

# What graph.db files of layout 1 were created with (the schema before LAYOUT existed).
LAYOUT1 = """
CREATE TABLE nodes (uid TEXT PRIMARY KEY, label TEXT NOT NULL, repo TEXT NOT NULL, name TEXT,
  qualified_name TEXT, path TEXT, props TEXT NOT NULL);
CREATE INDEX nodes_label_repo_lang ON nodes(label, repo, json_extract(props,'$.language'));
CREATE INDEX nodes_repo_path ON nodes(repo, path);
CREATE INDEX nodes_qn ON nodes(qualified_name);
CREATE INDEX nodes_name ON nodes(name);
CREATE TABLE edges (id INTEGER PRIMARY KEY, type TEXT NOT NULL, source TEXT NOT NULL, target TEXT NOT NULL,
  repo TEXT NOT NULL, file TEXT NOT NULL DEFAULT '', line INTEGER NOT NULL DEFAULT 0,
  resolution TEXT NOT NULL DEFAULT '', extra TEXT NOT NULL DEFAULT '{}', UNIQUE(type, source, target, file, line));
CREATE INDEX edges_target ON edges(target, type);
CREATE INDEX edges_source ON edges(source, type);
CREATE INDEX edges_repo_file ON edges(repo, file);
CREATE INDEX edges_repo_type ON edges(repo, type);
"""


def _fill(g: EmbeddedGraphStore) -> list[str]:
    """A small repo: two files, a call each way, an edge with extra; returns the symbol uids."""
    files = []
    for i, path in enumerate(["a.py", "b.py"]):
        syms = [SymbolRecord("r", f"m{i}.f{j}", f"s{i}{j}", f"f{j}", "function", "python", "function_definition",
                             path, j + 1, j + 1) for j in range(3)]
        files.append(FileImport(FileRecord("r", path, "python", f"h{i}"), syms))
    g.import_files("r", files)
    a, b = files[0].symbols, files[1].symbols
    g.replace_edges("r", ["a.py", "b.py"], [
        Edge(CALLS, a[0].uid, b[1].uid, "a.py", 3, "import"),
        Edge(CALLS, a[0].uid, b[1].uid, "a.py", 3, "other"),  # same key: the first one stays
        Edge(CALLS, b[2].uid, a[1].uid, "b.py", 2, "same_module", {"via": "x"}),
    ])
    return [s.uid for fi in files for s in fi.symbols]


def _rows(path: Path) -> tuple[list[tuple], list[tuple]]:
    c = sqlite3.connect(path)
    try:
        return (c.execute("SELECT * FROM nodes ORDER BY uid").fetchall(),
                c.execute("SELECT * FROM edges ORDER BY id").fetchall())
    finally:
        c.close()


def _indexes(path: Path) -> set[str]:
    c = sqlite3.connect(path)
    try:
        return {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='index' AND tbl_name='edges'")}
    finally:
        c.close()


def test_a_new_file_has_the_layout_and_three_edge_indexes(tmp_path: Path) -> None:
    g = EmbeddedGraphStore(tmp_path / "graph.db")
    g.close()
    c = sqlite3.connect(tmp_path / "graph.db")
    assert c.execute("PRAGMA user_version").fetchone()[0] == LAYOUT
    c.close()
    assert _indexes(tmp_path / "graph.db") == {"sqlite_autoindex_edges_1", "edges_target", "edges_repo_type_file"}


def test_a_layout1_file_is_migrated_with_every_row_and_id(tmp_path: Path) -> None:
    new = EmbeddedGraphStore(tmp_path / "new.db")
    uids = _fill(new)
    want_nodes, want_edges = _rows(tmp_path / "new.db")
    answers = new.neighbours(uids, "out"), new.neighbours(uids, "in"), new.counts("r")
    new.close()
    # The same rows in a file of layout 1 (ids included), as an older release left it.
    old = tmp_path / "graph.db"
    c = sqlite3.connect(old)
    c.executescript(LAYOUT1)
    c.executemany("INSERT INTO nodes VALUES (?,?,?,?,?,?,?)", want_nodes)
    c.executemany("INSERT INTO edges VALUES (?,?,?,?,?,?,?,?,?)", want_edges)
    c.commit()
    c.close()
    assert "edges_source" in _indexes(old)

    g = EmbeddedGraphStore(old)
    assert (g.neighbours(uids, "out"), g.neighbours(uids, "in"), g.counts("r")) == answers
    g.close()
    assert _rows(old) == (want_nodes, want_edges)
    assert _indexes(old) == {"sqlite_autoindex_edges_1", "edges_target", "edges_repo_type_file"}
    c = sqlite3.connect(old)
    assert c.execute("PRAGMA user_version").fetchone()[0] == LAYOUT
    assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    c.close()
    # Writes keep the key's rule after the migration: a duplicate key is not a second row.
    g = EmbeddedGraphStore(old)
    a0, b1 = uids[0], uids[4]
    assert g.replace_edges("r", [], [Edge(CALLS, a0, b1, "a.py", 3, "again")]) == 0
    g.close()
    assert _rows(old) == (want_nodes, want_edges)


def test_opening_a_migrated_file_again_changes_nothing(tmp_path: Path) -> None:
    g = EmbeddedGraphStore(tmp_path / "graph.db")
    _fill(g)
    g.close()
    before = _rows(tmp_path / "graph.db"), (tmp_path / "graph.db").stat().st_size
    g2 = EmbeddedGraphStore(tmp_path / "graph.db")
    g2.close()
    assert (_rows(tmp_path / "graph.db"), (tmp_path / "graph.db").stat().st_size) == before

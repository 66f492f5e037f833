"""The embedded search index fills its FTS5 field indexes itself for new rows (no AFTER
INSERT trigger, docs/DESIGN.md#search): every path that writes chunks must leave the four
FTS tables exactly what FTS5 would rebuild from ``chunks``, and a file written by the
trigger schema (version 1) must not get its new rows indexed twice."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from codegraph.core import embedded_search as es
from codegraph.core.embedded_search import FTS_FIELDS, EmbeddedSearchIndex
from tests.contract.test_search_contract import corpus, mk

QUERIES = ["parse config", "render invoice", "orders", "read file", "settings load", "ParseConfig"]


def _fts_state(path: Path) -> dict[str, object]:
    """BM25 answers, after FTS5's own integrity check of every field (it compares each
    index with the content table: a row indexed twice or not at all fails it)."""
    conn = sqlite3.connect(path)
    for table, _ in FTS_FIELDS:  # raises sqlite3.DatabaseError when an index disagrees with `chunks`
        conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)")
    conn.close()
    ix = EmbeddedSearchIndex(path)
    try:
        return {q: ix.bm25(q, 20) for q in QUERIES}
    finally:
        ix.close()


def _rebuilt(path: Path) -> dict[str, object]:
    """The same after FTS5 rebuilt every field index from ``chunks`` (the reference)."""
    conn = sqlite3.connect(path)
    with conn:
        for table, _ in FTS_FIELDS:
            conn.execute(f"INSERT INTO {table}({table}) VALUES ('rebuild')")
    conn.close()
    return _fts_state(path)


def test_inserts_updates_and_deletes_keep_the_fts_tables_equal_to_a_rebuild(tmp_path: Path) -> None:
    path = tmp_path / "search.db"
    ix = EmbeddedSearchIndex(path)
    cs = corpus("r1")
    ix.upsert_chunks(cs[:6])
    ix.upsert_chunks(cs)  # half new, half already there (the update path)
    changed = [mk("r1", c.file, c.qualified_name, c.text + "\n    parse_more_config()") for c in cs[:3]]
    ix.upsert_chunks(changed + corpus("r2"))  # changed text of existing rows, plus another repo
    ix.delete_chunks("r1", [cs[4].chunk_id])
    ix.delete_files("r2", ["app/cli.py"])
    ix.upsert_chunks([mk("r1", "app/new.py", "app.new.parse_config_again", "def parse_config_again(): ...")])
    ix.close()
    got = _fts_state(path)
    assert got == _rebuilt(path)
    assert {h[0].split("|")[2] for h in got["parse config"]} >= {"app.config.parse_config", "app.config.ParseConfig",
                                                                  "app.new.parse_config_again"}


def test_a_version_1_file_loses_its_insert_triggers_and_indexes_new_rows_once(tmp_path: Path) -> None:
    path = tmp_path / "search.db"
    v1 = es._SCHEMA.replace(f"PRAGMA user_version = {es.SCHEMA_VERSION};", "PRAGMA user_version = 1;")
    for table, col in FTS_FIELDS:  # the version 1 schema: new rows reached FTS by a trigger
        v1 = v1.replace(f"DROP TRIGGER IF EXISTS {table}_ai;", f"""CREATE TRIGGER IF NOT EXISTS {table}_ai
AFTER INSERT ON chunks BEGIN
    INSERT INTO {table}(rowid, {col}) VALUES (new.rowid, new.{col});
END;""")
    conn = sqlite3.connect(path)
    for stmt in es._split_sql(v1):
        conn.execute(stmt)
    conn.commit()
    old = corpus("old")
    es.insert_rows(conn, *es._UPSERT, [es.chunk_row(c) for c in old])  # written through the triggers
    conn.commit()
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%_ai'"
                        ).fetchone()[0] == len(FTS_FIELDS)
    conn.close()

    ix = EmbeddedSearchIndex(path)  # opens with this version's schema
    ix.upsert_chunks(corpus("new"))
    ix.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == es.SCHEMA_VERSION
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%_ai'"
                        ).fetchone()[0] == 0
    conn.close()
    got = _fts_state(path)
    assert got == _rebuilt(path)
    assert {h[0].split("|")[0] for h in got["parse config"]} == {"old", "new"}


def _writes_of_many_rows(path: Path) -> tuple[list[tuple], dict[str, object]]:
    """More chunks per call than one statement takes (sqlite_rows.ROWS_PER_STATEMENT), new
    and updated rows mixed, a vector dropped by a changed text: every column and rowid, and
    the BM25 answers."""
    import numpy as np

    ix = EmbeddedSearchIndex(path)
    base = corpus("r1")
    many = [mk("r1", f"app/m{i}.py", f"app.m{i}.parse_config_{i}", f"def parse_config_{i}(): return {i}")
            for i in range(130)]
    ix.upsert_chunks(many[:70] + base)
    ix.set_vectors({c.chunk_id: np.ones(es.DIM, dtype=np.float32) for c in many[:60]})
    edited = [mk("r1", c.file, c.qualified_name, c.text + " + 1") for c in many[:40:3]]
    ix.upsert_chunks(many[40:] + edited)  # updates (unchanged and changed) among new rows
    ix.close()
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT rowid, * FROM chunks ORDER BY rowid").fetchall()
    finally:
        conn.close()
    return rows, _fts_state(path)


def test_chunk_rows_go_in_as_one_statement_per_row_would_write_them(tmp_path: Path, monkeypatch) -> None:
    from codegraph.core import sqlite_rows

    got = _writes_of_many_rows(tmp_path / "many.db")
    assert len(got[0]) == 130 + len(corpus("r1")) and sum(r[13] for r in got[0]) == 60 - len(range(0, 40, 3))
    monkeypatch.setattr(sqlite_rows, "ROWS_PER_STATEMENT", 1)
    assert _writes_of_many_rows(tmp_path / "one.db") == got

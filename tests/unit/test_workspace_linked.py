"""The remembered link config (codegraph.core.workspace.save_linked / load_linked): reading
it never writes the state file. After a full index the state's WAL holds ~30 MB nobody has
synced; a write there (creating the table) committed with a sync of all of it, on the way
out of every first index."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from codegraph.core.workspace import Workspace, WorkspaceConfig, load_linked, save_linked


def _tables(db: Path) -> set[str]:
    c = sqlite3.connect(db)
    try:
        return {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        c.close()


def test_reading_a_state_that_never_linked_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    c = sqlite3.connect(db)
    c.execute("CREATE TABLE repo_state(repo TEXT)")
    c.commit()
    c.close()
    before = db.read_bytes()
    assert load_linked(db) is None
    assert _tables(db) == {"repo_state"} and db.read_bytes() == before
    assert load_linked(tmp_path / "absent.db") is None and not (tmp_path / "absent.db").exists()


def test_the_saved_config_reads_back(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    cfg = WorkspaceConfig([Workspace("shop", ["api", "web"])])
    save_linked(db, cfg)
    got = load_linked(db)
    assert got is not None and got.to_json() == cfg.to_json()
    assert [(w.name, w.repos) for w in got.workspaces] == [("shop", ["api", "web"])]

"""The end of a run whose state save is forked (docs/DESIGN.md#refresh): the graph commits
without its WAL checkpoint, the state commits, then the content phase runs while both
checkpoints (the graph's on a helper thread, the state's in the child) copy the WALs into
the files; the run returns after both, with every committed row in the database files."""

from __future__ import annotations

import shutil
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.embedded_search import EmbeddedSearchIndex
from codegraph.indexer import content, state_writes
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore

pytestmark = pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(),
                                reason="no fork on this platform")


def _tree(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    for i in range(6):
        (root / "pkg" / f"m{i}.py").write_text(f"from pkg.m{(i + 1) % 6} import f{(i + 1) % 6}\n\n\n"
                                               f"def f{i}(x):\n    return f{(i + 1) % 6}(x)\n")
    (root / "README.md").write_text("# Usage\n\ntext\n")
    return root


def _rows(db: Path, sql: str) -> int:
    """``sql``'s count on a copy of the database file alone (no WAL): what the checkpoints put there."""
    copy = db.with_name("copy-" + db.name)
    shutil.copyfile(db, copy)
    c = sqlite3.connect(copy)
    try:
        return int(c.execute(sql).fetchone()[0])
    finally:
        c.close()
        copy.unlink()


def _committed_state(home: Path) -> bool:
    c = sqlite3.connect(home / "state.db")
    try:
        return c.execute("SELECT count(*) FROM repo_state WHERE repo='r'").fetchone()[0] == 1
    finally:
        c.close()


def test_the_checkpoints_run_after_both_commits_beside_the_content_phase(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(state_writes, "FORK_AT_LEAST", 1)
    src, home = _tree(tmp_path / "src"), tmp_path / "home"
    seen: dict[str, Any] = {}
    content_ran = threading.Event()
    real_checkpoint, real_content = EmbeddedGraphStore.checkpoint, content.index_content

    def checkpoint(self: EmbeddedGraphStore) -> None:
        # Both only happen while this checkpoint is pending when the run does not wait for it first.
        seen["state commits beside it"] = any(_committed_state(home) or time.sleep(0.01) for _ in range(6000))
        seen["content beside it"] = content_ran.wait(60)
        seen["thread"] = threading.current_thread().name
        real_checkpoint(self)

    def index_content(*a: Any, **k: Any) -> Any:
        out = real_content(*a, **k)
        content_ran.set()
        return out

    monkeypatch.setattr(EmbeddedGraphStore, "checkpoint", checkpoint)
    monkeypatch.setattr(content, "index_content", index_content)
    g, s, st = EmbeddedGraphStore(home / "graph.db"), EmbeddedSearchIndex(home / "search.db"), StateStore(
        home / "state.db")
    try:
        out = index_repo(src, "r", g, s, st, workers=1)
        assert seen == {"state commits beside it": True, "content beside it": True, "thread": "graph-checkpoint"}
        assert out.content["chunks"]["docs"] == 1
        assert not [t for t in threading.enumerate() if t.name == "graph-checkpoint"]
        # Every row is in the files themselves (the connections are still open: no close checkpointed them).
        assert _rows(home / "graph.db", "SELECT count(*) FROM nodes WHERE repo='r'") == \
            g._conn().execute("SELECT count(*) FROM nodes WHERE repo='r'").fetchone()[0] > 6
        assert _rows(home / "state.db", "SELECT count(*) FROM file_state WHERE repo='r'") == 6
        assert _rows(home / "state.db", "SELECT count(*) FROM resolve_deps WHERE repo='r'") > 0
    finally:
        g.close()
        s.close()
        st.close()


def test_a_run_in_the_process_checkpoints_in_its_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A small run (the save in the process) commits as before: no helper thread."""
    monkeypatch.setattr(EmbeddedGraphStore, "checkpoint", lambda self: pytest.fail("no checkpoint thread wanted"))
    src, home = _tree(tmp_path / "src"), tmp_path / "home"
    g, s, st = EmbeddedGraphStore(home / "graph.db"), EmbeddedSearchIndex(home / "search.db"), StateStore(
        home / "state.db")
    try:
        assert index_repo(src, "r", g, s, st, workers=1).changed == 6
    finally:
        g.close()
        s.close()
        st.close()

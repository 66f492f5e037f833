"""The end of a run whose state save is forked (docs/DESIGN.md#refresh): the graph commits
without its WAL checkpoint, the state commits, then both checkpoints go to a process of
their own (codegraph.core.wal_checkpoint) and the content phase runs: the run does not wait
for the disk, and once that process ended every committed row is in the database files.
The main process's serial tail leaves the fresh files' edge hashes to the forked save, and
builds stub nodes without ``asdict``."""

from __future__ import annotations

import os
import shutil
import sqlite3
import threading
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codegraph.core import wal_checkpoint
from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.embedded_search import EmbeddedSearchIndex
from codegraph.core.models import StubRecord
from codegraph.indexer import apply, content, state_writes
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


def _fork_every_save(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every save forks: FORK_AT_LEAST 1, and the search writes go to their own forked child
    (batches of 1), so no helper thread writes in the process when the save forks
    (codegraph.indexer.fork_guard; else the save would run in the process at random)."""
    monkeypatch.setattr(state_writes, "FORK_AT_LEAST", 1)
    monkeypatch.setattr(apply, "SEARCH_BATCH", 1)  # a first index of _tree has more than one chunk


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


def test_the_checkpoints_go_to_a_process_of_their_own_once_both_committed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fork_every_save(monkeypatch)
    src, home = _tree(tmp_path / "src"), tmp_path / "home"
    seen: dict[str, Any] = {}
    content_ran = threading.Event()
    real_start, real_go, real_content = wal_checkpoint.start, wal_checkpoint.Checkpointer.go, content.index_content

    def start(paths: Any) -> Any:
        paths = list(paths)
        seen["paths"] = sorted(p.name for p in paths)
        seen["state committed at the start"] = _committed_state(home)
        return real_start(paths)

    def go(self: wal_checkpoint.Checkpointer) -> Any:
        seen["state committed"] = _committed_state(home)
        seen["content already ran"] = content_ran.is_set()
        seen["process"] = proc = real_go(self)
        return proc

    def index_content(*a: Any, **k: Any) -> Any:
        out = real_content(*a, **k)
        content_ran.set()
        return out

    monkeypatch.setattr(wal_checkpoint, "start", start)
    monkeypatch.setattr(wal_checkpoint.Checkpointer, "go", go)
    monkeypatch.setattr(content, "index_content", index_content)
    monkeypatch.setattr(EmbeddedGraphStore, "checkpoint", lambda self: pytest.fail("no checkpoint in the run"))
    g, s, st = EmbeddedGraphStore(home / "graph.db"), EmbeddedSearchIndex(home / "search.db"), StateStore(
        home / "state.db")
    try:
        out = index_repo(src, "r", g, s, st, workers=1)
        assert seen.pop("process") is not None  # started, not run here
        assert seen == {"paths": ["graph.db", "state.db"], "state committed at the start": False,
                        "state committed": True, "content already ran": False}
        assert out.content["chunks"]["docs"] == 1
        wal_checkpoint.wait_detached(60)
        # Every row is in the files themselves (the connections are still open: no close checkpointed them).
        assert _rows(home / "graph.db", "SELECT count(*) FROM nodes WHERE repo='r'") == \
            g._conn().execute("SELECT count(*) FROM nodes WHERE repo='r'").fetchone()[0] > 6
        assert _rows(home / "state.db", "SELECT count(*) FROM file_state WHERE repo='r'") == 6
        assert _rows(home / "state.db", "SELECT count(*) FROM resolve_index WHERE repo='r'") > 0
    finally:
        g.close()
        s.close()
        st.close()


def test_the_checkpoint_process_copies_the_wal_and_creates_nothing(tmp_path: Path) -> None:
    """What the detached process runs: the committed WAL into the file; a path that is
    not there stays absent (a home removed meanwhile gets no empty database)."""
    db = tmp_path / "g.db"
    c = _wal_db(db)
    c.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(500)])
    assert _rows(db, "SELECT count(*) FROM sqlite_master") == 0  # all of it still in the WAL
    proc = wal_checkpoint.detach([db, tmp_path / "gone" / "x.db", tmp_path / "absent.db"])
    assert proc is not None
    wal_checkpoint.wait_detached(60)
    assert proc.returncode == 0
    assert _rows(db, "SELECT count(*) FROM t") == 500
    assert not (tmp_path / "absent.db").exists() and not (tmp_path / "gone").exists()
    c.close()


def _wal_db(db: Path) -> sqlite3.Connection:
    c = sqlite3.connect(db, isolation_level=None)
    c.execute("PRAGMA journal_mode=WAL")
    c.execute("PRAGMA wal_autocheckpoint=0")
    c.execute("CREATE TABLE t(x)")
    return c


def test_a_checkpointer_started_ahead_copies_only_what_committed_before_go(tmp_path: Path) -> None:
    """``start`` before the commits, ``go`` after them: the rows committed in between are in
    the file; ``cancel`` instead ends the process without a copy."""
    db, other = tmp_path / "g.db", tmp_path / "h.db"
    c, d = _wal_db(db), _wal_db(other)
    ahead, cancelled = wal_checkpoint.start([db]), wal_checkpoint.start([other])
    assert ahead is not None and cancelled is not None
    c.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(300)])  # committed after the start
    d.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(300)])
    proc = ahead.go()
    cancelled.cancel()
    wal_checkpoint.wait_detached(60)
    assert proc.returncode == 0 and cancelled.proc.returncode == 0
    assert _rows(db, "SELECT count(*) FROM t") == 300
    assert _rows(other, "SELECT count(*) FROM sqlite_master") == 0  # nothing copied: all of it in the WAL
    ahead.go()  # once: later calls do nothing
    c.close()
    d.close()


def test_without_a_process_the_checkpoints_run_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "g.db"
    c = _wal_db(db)

    def no_process(*a: Any, **k: Any) -> Any:
        raise OSError("no more processes")

    monkeypatch.setattr(wal_checkpoint.subprocess, "Popen", no_process)
    assert wal_checkpoint.detach([db, tmp_path / "absent.db"]) is None
    assert _rows(db, "SELECT count(*) FROM sqlite_master") == 1
    assert not (tmp_path / "absent.db").exists()
    c.close()


def test_a_run_in_the_process_checkpoints_in_its_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A small run (the save in the process) checkpoints inside its commit, as SQLite does."""
    monkeypatch.setattr(EmbeddedGraphStore, "checkpoint", lambda self: pytest.fail("no checkpoint thread wanted"))
    monkeypatch.setattr(wal_checkpoint, "start", lambda paths: pytest.fail("no checkpoint process wanted"))
    src, home = _tree(tmp_path / "src"), tmp_path / "home"
    g, s, st = EmbeddedGraphStore(home / "graph.db"), EmbeddedSearchIndex(home / "search.db"), StateStore(
        home / "state.db")
    try:
        assert index_repo(src, "r", g, s, st, workers=1).changed == 6
    finally:
        g.close()
        s.close()
        st.close()


@given(st.text(max_size=8), st.text(max_size=12), st.sampled_from(["missing", "ambiguous"]), st.integers(0, 9),
       st.lists(st.text(max_size=6), max_size=4))
def test_a_stubs_node_props_are_asdicts(repo: str, target: str, reason: str, count: int, candidates: list[str]) -> None:
    """StubRecord.to_node writes asdict's props out (same keys in the same order, so the same
    props JSON), the candidates list a copy."""
    rec = StubRecord(repo, target, reason, count, candidates)
    props = rec.to_node().props
    assert list(props.items()) == list(asdict(rec).items())
    assert props["candidates"] is not rec.candidates


def test_a_forked_save_hashes_the_fresh_files_edges_in_its_child(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The run hashes the edges of the unchanged files it resolved again (it compares them
    with the state's); the fresh files' hashes only the state keeps: the child makes them,
    the same as a save in the process."""
    src = _tree(tmp_path / "src")
    calls = tmp_path / "calls"
    calls.mkdir()
    real = apply._edges_hash

    def counted(edges: list[Any]) -> str:
        with open(calls / str(os.getpid()), "a") as fh:
            fh.write("x")
        return real(edges)

    monkeypatch.setattr(apply, "_edges_hash", counted)

    def run(home: Path) -> tuple[dict[int, int], dict[str, tuple[str, str]]]:
        for f in calls.iterdir():
            f.unlink()
        g, st_ = EmbeddedGraphStore(home / "graph.db"), StateStore(home / "state.db")
        try:  # no search index: no search writes in the process, so every save here may fork
            index_repo(src, "r", g, None, st_, workers=1)
            return {int(f.name): len(f.read_text()) for f in calls.iterdir()}, st_.file_hashes("r")
        finally:
            g.close()
            st_.close()

    me = os.getpid()
    real_fork = apply.save_forked
    monkeypatch.setattr(apply, "save_forked", lambda *a: False)
    _, in_process = run(tmp_path / "in-process")
    edited = _tree(tmp_path / "edited")
    (edited / "pkg" / "m0.py").write_text("def f0(x):\n    return x\n")  # m5 calls f0: resolved again
    monkeypatch.setattr(apply, "save_forked", real_fork)
    monkeypatch.setattr(state_writes, "FORK_AT_LEAST", 1)
    first, forked = run(tmp_path / "forked")
    assert forked == in_process  # content and edge hashes
    assert me not in first and sum(first.values()) == 6  # the six fresh files, hashed in the child
    shutil.copytree(edited / "pkg", src / "pkg", dirs_exist_ok=True)
    second, _ = run(tmp_path / "forked")
    assert second.get(me, 0) >= 1 and sum(second.values()) > second[me]  # unchanged files here, m0 there


def test_the_search_writes_child_makes_the_content_kinds_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full load's forked search-writes child creates the content kinds' index files
    (LoadPlan.after_kinds) after its writes: the content phase at the run's end only opens
    them, and finds its chunks written as before."""
    _fork_every_save(monkeypatch)
    made = tmp_path / "made"
    made.mkdir()
    real = EmbeddedSearchIndex.ensure_schema

    def ensure_schema(self: EmbeddedSearchIndex) -> None:
        if not self.path.exists():  # this call creates the file
            (made / f"{self.path.name}.{os.getpid()}").touch()
        real(self)

    monkeypatch.setattr(EmbeddedSearchIndex, "ensure_schema", ensure_schema)
    src, home = _tree(tmp_path / "src"), tmp_path / "home"
    g, s, st_ = EmbeddedGraphStore(home / "graph.db"), EmbeddedSearchIndex(home / "search.db"), StateStore(
        home / "state.db")
    try:
        out = index_repo(src, "r", g, s, st_, workers=1)
        assert out.content["chunks"] == {"schema": 0, "config": 0, "docs": 1}
        assert sum(map(len, s.for_kind("docs").chunk_ids_by_file("r").values())) == 1
    finally:
        g.close()
        s.close()
        st_.close()
    by = {f.name.rsplit(".", 1)[0]: int(f.name.rsplit(".", 1)[1]) for f in made.iterdir()}
    kinds = {f"search-{k}.db" for k in ("schema", "config", "docs")}
    assert kinds <= set(by) and all(by[k] != os.getpid() for k in kinds)

"""A full run's state save in a forked child (``codegraph.indexer.state_writes``): the same
state rows as the save in the process; nothing committed when the run fails after the
fork, nor when the child fails (its error, or its vanishing, fails the run); no fork for
a small save or while another store of the process has the file open."""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.embedded_search import EmbeddedSearchIndex
from codegraph.core.errors import StoreUnavailable
from codegraph.indexer import apply, pipeline, state_writes
from codegraph.indexer.state import StateStore

pytestmark = pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(),
                                reason="no fork on this platform")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))


def _tree(root: Path, files: int = 12) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    for i in range(files):
        (root / "pkg" / f"m{i}.py").write_text(
            f"from pkg.m{(i + 1) % files} import f{(i + 1) % files}_0\n\n"
            + "".join(f"class C{i}_{j}:\n    def run(self, x):\n        return f{(i + 1) % files}_0(x) + missing{j}(x)\n\n"
                      f"def f{i}_{j}(x):\n    return C{i}_{j}().run(x)\n\n" for j in range(4)))
    return root


def _state(home: Path) -> dict[str, set[str]]:
    from index_same import dump_state

    return dump_state(home)


def _index(src: Path, home: Path) -> pipeline.IndexSummary:
    g, s, st = EmbeddedGraphStore(home / "graph.db"), EmbeddedSearchIndex(home / "search.db"), StateStore(
        home / "state.db")
    try:
        return pipeline.index_repo(src, "r", g, s, st, workers=1)
    finally:
        g.close()
        s.close()
        st.close()


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every save forks (FORK_AT_LEAST 1); the list counts the children started. The search
    writes go to their own forked child too (batches of 8), so the helper thread only waits
    while the save forks (codegraph.indexer.fork_guard)."""
    monkeypatch.setattr(state_writes, "FORK_AT_LEAST", 1)
    monkeypatch.setattr(apply, "SEARCH_BATCH", 8)
    started: list[int] = []
    real = state_writes.ForkedSave.__init__

    def init(self: Any, *a: Any, **k: Any) -> None:
        real(self, *a, **k)
        started.append(self.proc.pid)

    monkeypatch.setattr(state_writes.ForkedSave, "__init__", init)
    return started


def test_forked_save_stores_the_same_state(tmp_path: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    src = _tree(tmp_path / "src")
    (tmp_path / "forked").mkdir()
    (tmp_path / "plain").mkdir()
    a = _index(src, tmp_path / "forked")
    assert len(forks) == 1
    monkeypatch.setattr(apply, "save_forked", lambda *a: False)
    b = _index(src, tmp_path / "plain")
    assert len(forks) == 1
    assert a.edges == b.edges > 0 and a.stubs == b.stubs > 0
    fork_state, plain_state = _state(tmp_path / "forked"), _state(tmp_path / "plain")
    assert fork_state == plain_state
    assert all(fork_state[k] for k in ("state file_state", "state file_refs", "state resolve_deps",
                                       "state resolve_files", "state resolve_repo", "state snapshot names"))
    # The next run reads the forked save's state: nothing changed, nothing parsed again.
    again = _index(src, tmp_path / "forked")
    assert (again.changed, again.resolved_files) == (0, 0)


def test_a_run_failing_after_the_fork_commits_no_state(tmp_path: Path, forks: list[int],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    src = _tree(tmp_path / "src")
    home = tmp_path / "home"
    home.mkdir()

    def broken(self: Any, repo: str, files: list[str], edges: list[Any]) -> int:
        raise StoreUnavailable("the embedded graph is busy")

    monkeypatch.setattr(EmbeddedGraphStore, "replace_edges", broken)
    g, s, st = EmbeddedGraphStore(home / "graph.db"), EmbeddedSearchIndex(home / "search.db"), StateStore(
        home / "state.db")
    try:
        with pytest.raises(StoreUnavailable, match="graph is busy"):
            pipeline.index_repo(src, "r", g, s, st, workers=1)
        assert len(forks) == 1
        with pytest.raises(ProcessLookupError):  # the child has ended (and been reaped)
            os.kill(forks[0], 0)
        # The store was reopened and holds nothing of the run.
        assert st.repo("r") is None and st.file_hashes("r") == {}
    finally:
        g.close()
        s.close()
        st.close()
    c = sqlite3.connect(home / "state.db")
    assert c.execute("SELECT count(*) FROM resolve_index").fetchone() == (0,)
    c.close()


def test_a_failure_in_the_child_fails_the_run(tmp_path: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
                                              ) -> None:
    src = _tree(tmp_path / "src")
    real = StateStore.save

    def broken(self: Any, *a: Any, **k: Any) -> None:
        if os.getpid() != parent:
            raise sqlite3.OperationalError("database or disk is full")
        real(self, *a, **k)

    def vanished(self: Any, *a: Any, **k: Any) -> None:
        if os.getpid() != parent:
            os._exit(3)
        real(self, *a, **k)

    parent = os.getpid()
    for i, (fn, match) in enumerate([(broken, "disk is full"), (vanished, "without a result \\(exit code 3\\)")]):
        home = tmp_path / f"home{i}"
        home.mkdir()
        monkeypatch.setattr(StateStore, "save", fn)
        with pytest.raises((sqlite3.OperationalError, StoreUnavailable), match=match):
            _index(src, home)
        st = StateStore(home / "state.db")
        assert st.repo("r") is None
        st.close()
    assert len(forks) == 2


def test_no_fork_for_a_small_save_or_while_another_store_has_the_file_open(tmp_path: Path) -> None:
    st = StateStore(tmp_path / "state.db")
    other = StateStore(tmp_path / "state.db")
    try:
        assert not state_writes.save_forked(st, state_writes.FORK_AT_LEAST - 1)
        assert not state_writes.save_forked(st, 10_000)  # `other` has the file open
        assert st.repo("r") is None  # nothing was closed
        other.close()
        assert state_writes.save_forked(st, 10_000)
        with pytest.raises(sqlite3.ProgrammingError):  # closed until reopened
            st.repo("r")
        st.reopen()
        assert st.repo("r") is None
    finally:
        st.close()


def test_no_fork_while_the_helper_thread_writes_the_search_index(
        tmp_path: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """Why: a fork while the helper thread was inside SQLite (a run's search writes done in
    process) left the state child waiting forever on a mutex it inherited locked; ``index``
    hung (tests/cli/test_error_lines.py's disk-full test, 8 runs in 15). The save then runs
    in the process; the run completes and its state is whole."""
    import threading

    monkeypatch.setattr(apply, "SEARCH_BATCH", 10_000)  # in the helper thread
    writing = threading.Event()
    release = threading.Event()
    real_write = apply._write_search

    def slow_write(*a: Any, **k: Any) -> Any:
        writing.set()
        assert release.wait(30)
        return real_write(*a, **k)

    real_prune = EmbeddedGraphStore.prune_unreferenced

    def prune(self: Any, *a: Any, **k: Any) -> Any:  # after the save's fork would have been
        release.set()
        return real_prune(self, *a, **k)

    monkeypatch.setattr(apply, "_write_search", slow_write)
    monkeypatch.setattr(EmbeddedGraphStore, "prune_unreferenced", prune)
    src = _tree(tmp_path / "src")
    (tmp_path / "home").mkdir()
    s = _index(src, tmp_path / "home")
    assert writing.is_set() and forks == []
    assert s.files == 13 and s.edges > 0
    again = _index(src, tmp_path / "home")  # the state was saved in the process, and whole
    assert again.changed == 0 and forks == []

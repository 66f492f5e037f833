"""A full load's search writes in a forked child (``codegraph.indexer.search_writes``): the
same rows, FTS entries and progress ticks as on the helper thread; the child's failure
(raised or vanished) fails the run; the fork is not used when another thread has the
file open or for a single batch."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from codegraph.core.embedded_search import EmbeddedSearchIndex
from codegraph.core.errors import StoreUnavailable
from codegraph.indexer import search_writes
from codegraph.indexer.apply import _write_search
from tests.contract.test_search_bulk_load import chunks

pytestmark = pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(),
                                reason="no fork on this platform")


def _rows(path: Path) -> dict[str, Any]:
    c = sqlite3.connect(path)
    try:
        out = {"chunks": sorted(c.execute("SELECT * FROM chunks").fetchall(), key=repr)}
        for table in [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table' AND sql LIKE "
                                              "'%USING fts5%'")]:
            c.execute(f"INSERT INTO {table}({table}) VALUES('integrity-check')")  # raises when damaged
            out[table] = c.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        return out
    finally:
        c.close()


def test_forked_writes_equal_the_threads(tmp_path: Path) -> None:
    data = chunks("r", 4500)
    ticks: dict[str, list[tuple[str, int, int]]] = {"thread": [], "fork": []}

    def write(index: Any, tick: Any) -> tuple[int, float]:
        return _write_search(index, "r", {}, data, [], tick)

    plain = EmbeddedSearchIndex(tmp_path / "thread.db")
    forked = EmbeddedSearchIndex(tmp_path / "fork.db")
    try:
        n_thread, _ = write(plain, lambda *a: ticks["thread"].append(a))
        assert search_writes.fork_ok(forked, len(data), 2000)
        proc, recv = search_writes.start_forked(forked, write)
        n_fork, _ = search_writes.wait_forked(proc, recv, lambda *a: ticks["fork"].append(a))
        assert proc.exitcode == 0
        assert n_fork == n_thread == 4500
        assert ticks["fork"] == ticks["thread"] == [("search", 2000, 4500), ("search", 4000, 4500),
                                                    ("search", 4500, 4500)]
        assert _rows(tmp_path / "fork.db") == _rows(tmp_path / "thread.db")
        # The parent's index reopens its connection and reads what the child wrote.
        assert forked.stats("r")["chunks"] == 4500
        assert forked.bm25("func_17", k=3) == plain.bm25("func_17", k=3) != []
    finally:
        plain.close()
        forked.close()


def test_a_failure_in_the_child_fails_the_run(tmp_path: Path) -> None:
    ix = EmbeddedSearchIndex(tmp_path / "s.db")

    def broken(index: Any, tick: Any) -> tuple[int, float]:
        tick("search", 1, 2)
        raise StoreUnavailable("the embedded search index is busy")

    def vanished(index: Any, tick: Any) -> tuple[int, float]:
        os._exit(3)

    try:
        seen: list[Any] = []
        with pytest.raises(StoreUnavailable, match="is busy"):
            search_writes.wait_forked(*search_writes.start_forked(ix, broken), lambda *a: seen.append(a))
        assert seen == [("search", 1, 2)]
        with pytest.raises(StoreUnavailable, match="without a result \\(exit code 3\\)"):
            search_writes.wait_forked(*search_writes.start_forked(ix, vanished), lambda *a: None)
    finally:
        ix.close()


def test_no_fork_for_one_batch_or_while_another_thread_has_the_file_open(tmp_path: Path) -> None:
    ix = EmbeddedSearchIndex(tmp_path / "s.db")
    opened, done = threading.Event(), threading.Event()

    def reader() -> None:
        ix.stats("r")  # this thread's own connection
        opened.set()
        done.wait(10)

    t = threading.Thread(target=reader)
    t.start()
    try:
        assert not search_writes.fork_ok(ix, 2000, 2000)  # one batch: the thread writes it
        opened.wait(10)
        assert not search_writes.fork_ok(ix, 4001, 2000)  # another live thread's connection
        ix.stats("r")  # nothing was closed
        done.set()
        t.join()
        assert search_writes.fork_ok(ix, 4001, 2000)
        assert ix.stats("r")["chunks"] == 0  # reopened on use
    finally:
        done.set()
        t.join()
        ix.close()


def test_the_pipeline_forks_for_a_full_load_and_stores_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    from codegraph.core.embedded_graph import EmbeddedGraphStore
    from codegraph.indexer import apply, pipeline
    from codegraph.indexer.state import StateStore

    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    for i in range(40):
        (src / "pkg" / f"m{i}.py").write_text("".join(f"def f{i}_{j}(x):\n    return f{i}_{j - 1}(x)\n\n"
                                                      for j in range(6)))
    monkeypatch.setattr(apply, "SEARCH_BATCH", 50)  # 280 chunks: a load of several batches
    forks: list[int] = []
    real = apply.start_forked
    monkeypatch.setattr(apply, "start_forked", lambda *a: forks.append(1) or real(*a))

    def index(home: Path) -> None:
        g, s, st = EmbeddedGraphStore(home / "graph.db"), EmbeddedSearchIndex(home / "search.db"), StateStore(
            home / "state.db")
        try:
            assert pipeline.index_repo(src, "r", g, s, st, workers=1).chunks_written > 50
        finally:
            g.close()
            s.close()
            st.close()

    index(tmp_path / "forked")
    assert forks == [1]
    monkeypatch.setattr(apply, "fork_ok", lambda *a: False)
    index(tmp_path / "thread")
    assert forks == [1]
    assert _rows(tmp_path / "forked" / "search.db") == _rows(tmp_path / "thread" / "search.db")


def test_output_pending_at_the_fork_is_written_once(tmp_path: Path) -> None:
    import subprocess
    import sys

    script = f"""
import sys
from pathlib import Path
from codegraph.core.embedded_search import EmbeddedSearchIndex
from codegraph.indexer import search_writes
ix = EmbeddedSearchIndex(Path({str(tmp_path / 's.db')!r}))
print("pending line")  # block-buffered: stdout is a pipe
proc, recv = search_writes.start_forked(ix, lambda index, tick: (0, 0.0))
print(search_writes.wait_forked(proc, recv, lambda *a: None))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["pending line", "(0, 0.0)"]

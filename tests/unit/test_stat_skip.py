"""Unchanged files are not read again (docs/DESIGN.md#refresh): a file whose (size, mtime,
ctime, inode) is the one a run read it under, and that changed more than ``RACY_NS``
before that run started, keeps its stored content hash unread and is not sniffed for
binary content. Everything else is read: another stat, a stat within the racy window (an
edit in the same clock tick as the read keeps size and mtime), a changed file whose hash
came from elsewhere (a JSONL load)."""

from __future__ import annotations

import builtins
import os
import sqlite3
from pathlib import Path

import pytest

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.models import file_hash
from codegraph.indexer import state as state_mod
from codegraph.indexer.discover import discover, file_stat
from codegraph.indexer.extract import extract_source
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import RepoState, StateStore
from tests.property.graph_dump import assert_same_as_fresh_index

FILES = {"a.py": "def fa():\n    return 1\n", "b.py": "from a import fa\n\n\ndef fb():\n    return fa()\n",
         "c.py": "from b import fb\n\n\ndef fc():\n    return fb()\n"}


def _tree(root: Path) -> None:
    root.mkdir()
    for rel, text in FILES.items():
        (root / rel).write_text(text)


def _opened(monkeypatch: pytest.MonkeyPatch, root: Path) -> list[str]:
    """Repo-relative paths opened from now on, through Path.open (Path.read_bytes opens
    through it) or the builtin ``open`` (the extraction's read; Path.open itself calls
    ``io.open``, not the builtin name, so nothing is counted twice)."""
    seen: list[str] = []
    real_path_open, real_open = Path.open, builtins.open

    def note(path: object) -> None:
        if isinstance(path, str | Path) and Path(path).is_relative_to(root):
            seen.append(Path(path).relative_to(root).as_posix())

    def spy(self: Path, *a: object, **k: object):  # type: ignore[no-untyped-def]
        note(self)
        return real_path_open(self, *a, **k)  # type: ignore[arg-type]

    def spy_open(file: object, *a: object, **k: object):  # type: ignore[no-untyped-def]
        note(file)
        return real_open(file, *a, **k)  # type: ignore[call-overload]

    monkeypatch.setattr(Path, "open", spy)
    monkeypatch.setattr(builtins, "open", spy_open)
    return seen


def test_files_whose_stat_matches_are_not_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(state_mod, "RACY_NS", 0)  # every file here was written just before the run reading it
    root = tmp_path / "src"
    _tree(root)
    graph, state = EmbeddedGraphStore(tmp_path / "g.db"), StateStore(tmp_path / "state.db")
    try:
        first = index_repo(root, "r", graph, None, state, workers=1)
        assert first.hashed == 3 and set(state.trusted_stats("r")) == set(FILES)
        (root / "b.py").write_text(FILES["b.py"] + "\n\ndef fb2():\n    return fb()\n")
        opened = _opened(monkeypatch, root)
        s = index_repo(root, "r", graph, None, state, workers=1)
        assert (s.files, s.hashed, s.changed) == (3, 1, 1)
        # b.py: sniffed for binary content, hashed, extracted; a.py and c.py never opened
        assert sorted(set(opened)) == ["b.py"]
        opened.clear()
        again = index_repo(root, "r", graph, None, state, workers=1)
        assert (again.hashed, again.changed, opened) == (0, 0, [])
        # Same size, mtime put back: the ctime still tells.
        c = root / "c.py"
        st = c.stat()
        c.write_text(FILES["c.py"].replace("fc", "fz"))
        os.utime(c, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert (c.stat().st_size, c.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
        s = index_repo(root, "r", graph, None, state, workers=1)
        assert (s.hashed, s.changed) == (1, 1)
        assert_same_as_fresh_index(tmp_path, graph, "r", root)
    finally:
        state.close()
        graph.close()


def test_an_edit_within_the_racy_window_of_the_read_is_read_again(tmp_path: Path) -> None:
    root = tmp_path / "src"
    _tree(root)
    graph, state = EmbeddedGraphStore(tmp_path / "g.db"), StateStore(tmp_path / "state.db")
    try:
        index_repo(root, "r", graph, None, state, workers=1)
        assert state.trusted_stats("r") == {}  # the files changed less than RACY_NS before the run read them
        assert index_repo(root, "r", graph, None, state, workers=1).hashed == 3
        with state.conn:  # as if the run had read them 10 s after they were written
            state.conn.execute("UPDATE file_stat SET seen_ns = seen_ns + 10000000000")
        assert index_repo(root, "r", graph, None, state, workers=1).hashed == 0
        # An edit in the clock tick of the read: the stat is the stored one (size, mtime,
        # ctime, inode), the content is not; the read began 1 s after that mtime.
        a = root / "a.py"
        a.write_text(FILES["a.py"].replace("1", "2"))
        size, mtime, ctime, ino = file_stat(a.stat())
        with state.conn:
            state.conn.execute("UPDATE file_stat SET size=?, mtime_ns=?, ctime_ns=?, ino=?, seen_ns=? "
                               "WHERE repo='r' AND path='a.py'", (size, mtime, ctime, ino, max(mtime, ctime) + 10**9))
        assert "a.py" not in state.trusted_stats("r")
        s = index_repo(root, "r", graph, None, state, workers=1)
        assert (s.hashed, s.changed) == (1, 1)
        assert_same_as_fresh_index(tmp_path, graph, "r", root)
    finally:
        state.close()
        graph.close()


def test_a_changed_file_saved_without_a_stat_loses_the_stored_one(tmp_path: Path) -> None:
    state = StateStore(tmp_path / "state.db")
    try:
        fx = extract_source("r", "a.py", "python", FILES["a.py"].encode())
        rs = RepoState("r", "/src", "v", "f", None, "2026-01-01T00:00:00+00:00")
        state.save(rs, {"a.py": fx, "b.py": fx}, [], {}, stats={"a.py": (1, 2, 3, 4, 10**10), "b.py": (5, 6, 7, 8, 10**10)})
        assert state.trusted_stats("r") == {"a.py": (1, 2, 3, 4), "b.py": (5, 6, 7, 8)}
        state.save(rs, {"a.py": fx}, ["b.py"], {})  # a.py's hash from a JSONL load, b.py removed
        assert state.trusted_stats("r") == {}
        state.save(rs, {"a.py": fx}, [], {}, stats={"a.py": (1, 2, 3, 4, 10**10)})
        state.forget("r")
        assert sqlite3.connect(tmp_path / "state.db").execute("SELECT count(*) FROM file_stat").fetchone() == (0,)
    finally:
        state.close()


def test_discover_sniffs_only_files_whose_stat_is_not_the_known_one(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "src"
    _tree(root)
    known = {p: file_stat((root / p).stat()) for p in FILES}
    (root / "b.py").write_bytes(b"\0binary now")  # its known stat is stale
    opened = _opened(monkeypatch, root)
    d = discover(root, known=known)
    assert [f.path for f in d.files] == ["a.py", "c.py"] and d.skipped["binary"] == 1
    assert sorted(opened) == ["b.py"]
    assert [f.stat for f in d.files] == [known["a.py"], known["c.py"]]


def test_a_file_new_to_both_stores_is_not_read_to_hash_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A first index reads each file twice (discover's binary sniff, the extraction), not a
    third time to hash it: it is changed whatever its hash. Its stat is still kept."""
    monkeypatch.setattr(state_mod, "RACY_NS", 0)
    root = tmp_path / "src"
    _tree(root)
    graph, state = EmbeddedGraphStore(tmp_path / "g.db"), StateStore(tmp_path / "state.db")
    try:
        opened = _opened(monkeypatch, root)
        first = index_repo(root, "r", graph, None, state, workers=1)
        assert sorted(opened) == sorted([*FILES, *FILES])
        assert (first.changed, first.hashed) == (3, 3)
        hashes = {p: file_hash((root / p).read_bytes()) for p in FILES}
        assert {p: h for p, (h, _) in state.file_hashes("r").items()} == hashes == graph.file_hashes("r")
        assert state.trusted_stats("r") == {p: file_stat(os.stat(root / p)) for p in FILES}
        monkeypatch.undo()
        assert index_repo(root, "r", graph, None, state, workers=1).changed == 0
    finally:
        graph.close()
        state.close()

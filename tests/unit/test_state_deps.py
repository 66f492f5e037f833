"""The indexer state's dependency index in shards (codegraph.indexer.state_deps,
docs/DESIGN.md#refresh): the dependents of every key are exactly the files whose last
resolution looked it up, however the keys fall into shards (every key in one shard
included: a shared shard never adds a file); a refresh on such an index equals a fresh
index; the older layout's table is dropped by the rebuild it causes; a damaged shard is
one message and a full rebuild."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.indexer import state_deps
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore
from codegraph.indexer.state_deps import SEP, ResolveState
from tests.property import flow_tree as model
from tests.property.graph_dump import assert_same_as_fresh_index

LAYOUTS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    "sized": lambda mp: None,
    "a shard per key": lambda mp: mp.setattr(state_deps, "SHARD_KEYS", 1),
    "every key in one shard": lambda mp: mp.setattr(state_deps, "shard_of", lambda text, shards: 0),
}


def _index(tmp_path: Path, saved: list[ResolveState], monkeypatch: pytest.MonkeyPatch
           ) -> tuple[Path, EmbeddedGraphStore, StateStore]:
    """The flow tree indexed once; ``saved`` gets the ResolveState each save is handed."""
    real = StateStore.save

    def save(self: StateStore, *args: Any, **kwargs: Any) -> None:
        saved.append(args[4])
        real(self, *args, **kwargs)

    monkeypatch.setattr(StateStore, "save", save)
    root = tmp_path / "src"
    model.write(root, model.base_tree(), python_only=True)
    graph, state = EmbeddedGraphStore(tmp_path / "g.db"), StateStore(tmp_path / "state.db")
    index_repo(root, "r", graph, None, state, workers=1)
    return root, graph, state


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_the_dependents_of_every_key_are_exactly_the_files_that_looked_it_up(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str) -> None:
    LAYOUTS[layout](monkeypatch)
    saved: list[ResolveState] = []
    root, graph, state = _index(tmp_path, saved, monkeypatch)
    try:
        (rs,) = saved
        want_fwd = {p: rs.keys(p) for p in rs.files}  # the texts of what the resolution recorded
        want: dict[str, set[str]] = {}
        for p, keys in want_fwd.items():
            for k in keys:
                want.setdefault(k, set()).add(p)
        assert len(want) > 50 and any(len(ps) > 1 for ps in want.values())
        assert state.resolve_file_deps("r", sorted(rs.files)) == want_fwd
        for k, paths in want.items():
            assert state.resolve_dependents("r", [k]) == paths, k
        some = sorted(want)[::7]
        assert state.resolve_dependents("r", [*some, "by_qn" + SEP + "nowhere.at_all"]) == set().union(
            *(want[k] for k in some))
        assert state.resolve_dependents("r", ["by_qn" + SEP + "nowhere.at_all"]) == set()
        (n,) = state.conn.execute("SELECT shards FROM resolve_shards WHERE repo='r'").fetchone()
        rows = state.conn.execute("SELECT count(*) FROM resolve_index WHERE repo='r'").fetchone()[0]
        assert (n, rows) == ((1, 1) if layout != "a shard per key" else (state_deps.shard_count(len(want)), rows))
        assert layout != "a shard per key" or rows > len(want) // 2  # spread, empty shards left out
    finally:
        state.close()
        graph.close()


@pytest.mark.parametrize("layout", ["a shard per key", "every key in one shard"])
def test_a_refresh_on_either_extreme_of_sharding_equals_a_fresh_index(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str) -> None:
    LAYOUTS[layout](monkeypatch)
    root, graph, state = _index(tmp_path, [], monkeypatch)
    t = model.base_tree()
    try:
        for edit in [(0, 1, 2, 3), (1, 0, 1, 2), (2, 2, 0, 1), (3, 1, 1, 0), (4, 0, 2, 2)]:
            model.apply(t, edit)
            model.write(root, t, python_only=True)
            s = index_repo(root, "r", graph, None, state, workers=1)
            assert not s.messages
            assert_same_as_fresh_index(tmp_path, graph, "r", root)
    finally:
        state.close()
        graph.close()


def test_texts_give_each_key_of_a_file_once_and_each_file_of_a_key_once() -> None:
    # Two recorded keys with one text (a pair, and a string that holds the separator).
    rs = ResolveState(files={"a.py": ({("by_qn", ("m", "f")), ("by_qn", "m" + SEP + "f"), ("files", "b.py")}, {}),
                             "b.py": ({("by_qn", "m" + SEP + "f"), ("members", ("m.C", "run")), ("n", 3)}, {})})
    fwd, inv = rs.texts()
    qn, files, member, other = (SEP.join(x) for x in (("by_qn", "m", "f"), ("files", "b.py"),
                                                      ("members", "m.C", "run"), ("n", "3")))
    assert {p: sorted(ks) for p, ks in fwd.items()} == {"a.py": sorted([qn, files]),
                                                        "b.py": sorted([qn, member, other])}
    assert {k: sorted(ps) for k, ps in inv.items()} == {qn: ["a.py", "b.py"], files: ["a.py"], member: ["b.py"],
                                                        other: ["b.py"]}
    assert rs.keys("a.py") == sorted([qn, files])


def test_the_older_layout_s_index_table_goes_with_the_rebuild_it_causes(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    root, graph, state = _index(tmp_path, [], monkeypatch)
    try:
        with state.conn:  # what layout 2 left: its row table, and its format
            state.conn.execute("CREATE TABLE resolve_deps (repo TEXT, key TEXT, path TEXT, "
                               "PRIMARY KEY (repo, key, path)) WITHOUT ROWID")
            state.conn.execute("INSERT INTO resolve_deps VALUES ('r', 'by_qn\x1fx', 'app/c1.py')")
            state.conn.execute("UPDATE repo_format SET format=2")
        s = index_repo(root, "r", graph, None, state, workers=1)
        assert s.full_rebuild and s.messages == [
            "the indexer state of this repo is in an older layout: every file re-parsed and relinked"]
        tables = {r[0] for r in state.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert "resolve_deps" not in tables and "resolve_index" in tables
        assert state.resolve_dependents("r", ["files" + SEP + "pkg/m1.py"])
        assert_same_as_fresh_index(tmp_path, graph, "r", root)
    finally:
        state.close()
        graph.close()


def test_a_damaged_shard_is_one_message_and_a_full_rebuild(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, graph, state = _index(tmp_path, [], monkeypatch)
    try:
        with state.conn:
            state.conn.execute("UPDATE resolve_index SET keys=x'00ff00ff'")
        app = root / "app" / "c1.py"
        app.write_text(app.read_text() + "\n\ndef added():\n    return 0\n")
        s = index_repo(root, "r", graph, None, state, workers=1)
        assert s.messages == ["the indexer state of r:(dependency shard 0) cannot be read (ValueError): "
                              "every file re-parsed and relinked"]
        assert s.changed == s.files
        assert_same_as_fresh_index(tmp_path, graph, "r", root)
        assert sqlite3.connect(tmp_path / "state.db").execute(
            "SELECT count(*) FROM resolve_index WHERE keys=x'00ff00ff'").fetchone() == (0,)
    finally:
        state.close()
        graph.close()


def test_refreshes_that_double_the_keys_spread_the_index_over_more_shards(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from codegraph.indexer.state import RepoState

    monkeypatch.setattr(state_deps, "SHARD_KEYS", 1)
    state = StateStore(tmp_path / "state.db")

    def save(rs: ResolveState) -> None:
        state.save(RepoState("r", "/src", "v", "f", None, "2026-01-01T00:00:00+00:00"), {}, [], {}, rs)

    def layout() -> tuple[int, int, int]:
        (n, keys), = state.conn.execute("SELECT shards, keys FROM resolve_shards WHERE repo='r'").fetchall()
        return n, keys, state.conn.execute("SELECT max(shard) FROM resolve_index WHERE repo='r'").fetchone()[0]

    try:
        save(ResolveState(files={"a.py": (["k0", "k1"], {}), "b.py": (["k1"], {})}, full=True))
        assert layout()[:2] == (2, 2)
        save(ResolveState(files={"b.py": (["k1", "k2"], {})}))  # one key more: the same shards
        assert layout()[:2] == (2, 3)
        new = [f"n{i}" for i in range(9)]
        save(ResolveState(files={"c.py": (new, {})}))  # 12 keys: sized for 16 shards, more than twice 2
        n, keys, top = layout()
        assert (n, keys) == (16, 12) and 2 <= top < 16
        for k, want in [("k0", {"a.py"}), ("k1", {"a.py", "b.py"}), ("k2", {"b.py"}), *((k, {"c.py"}) for k in new)]:
            assert state.resolve_dependents("r", [k]) == want, k
        save(ResolveState(files={}, removed=["c.py"]))  # keys leave: counted down, the shards stay
        assert layout()[:2] == (16, 3) and state.resolve_dependents("r", new) == set()
    finally:
        state.close()

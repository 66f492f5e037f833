"""What the indexer state writes for the resolution of a refresh (codegraph.indexer.state,
docs/DESIGN.md#refresh): of the dependency index only the shards holding a key that a file
resolved again no longer or newly looks up are rewritten, and the repo-level blob is a
marshal form that older zlib JSON rows still decode to the same values; a blob that cannot
be decoded is one message and a full rebuild. A run's snapshot names are kept as a delta against the newest whole set."""

from __future__ import annotations

import json
import marshal
import zlib
from pathlib import Path

import pytest

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.indexer import state_deps
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import RepoState, StateStore, decode_blob, encode_blob
from codegraph.indexer.state_deps import ResolveState
from tests.property import flow_tree as model
from tests.property.graph_dump import assert_same_as_fresh_index

BLOB = {"version": 1, "decisions": "d", "bases": {"m.B": ["m.A"]}, "external_bases": ["m.X"],
        "stubs": {"stub|r|save": ["ambiguous", 2, ["m.A.save", "m.B.save"], 1, "a.py"]}, "totals": {"exact": 3}}


def _rows(state: StateStore) -> set[tuple[str, str]]:
    """The (key, path) pairs of the repo's dependency shards."""
    return {(k, p) for (b,) in state.conn.execute("SELECT keys FROM resolve_index WHERE repo='r'")
            for k, paths in state_deps.decode_shard(b).items() for p in paths}


def _save(state: StateStore, rs: ResolveState) -> list[str]:
    """Save ``rs`` alone; the SQL statements it ran."""
    seen: list[str] = []
    state.conn.set_trace_callback(seen.append)
    try:
        state.save(RepoState("r", "/src", "v", "f", None, "2026-01-01T00:00:00+00:00"), {}, [], {}, rs)
    finally:
        state.conn.set_trace_callback(None)
    return seen


def test_a_partial_save_rewrites_only_the_shards_of_the_keys_that_differ(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(state_deps, "SHARD_KEYS", 1)  # a shard per key, as far as the hash spreads them
    keys = ["k1", "k2", "k3", "k4", "k9"]
    n = state_deps.shard_count(4)
    shard = {k: state_deps.shard_of(k, n) for k in keys}
    assert n == 4 and len({shard["k2"], shard["k9"]} - {shard[k] for k in ("k1", "k3", "k4")}) >= 1
    state = StateStore(tmp_path / "state.db")
    try:
        _save(state, ResolveState(files={"a.py": (["k1", "k2", "k3"], {}), "b.py": (["k1"], {}), "c.py": (["k9"], {})},
                                  full=True, blob=BLOB))
        assert _rows(state) == {("k1", "a.py"), ("k2", "a.py"), ("k3", "a.py"), ("k1", "b.py"), ("k9", "c.py")}
        assert state.conn.execute("SELECT shards FROM resolve_shards WHERE repo='r'").fetchone() == (n,)
        # a.py resolved again: k3 no longer looked up, k4 now; b.py removed; c.py untouched.
        ran = _save(state, ResolveState(files={"a.py": (["k1", "k2", "k4"], {"exact": 1})}, removed=["b.py"],
                                        blob=BLOB))
        assert _rows(state) == {("k1", "a.py"), ("k2", "a.py"), ("k4", "a.py"), ("k9", "c.py")}
        written = sorted(int(s.split(",")[1]) for s in ran if s.startswith("INSERT OR REPLACE INTO resolve_index"))
        assert written == sorted({shard["k1"], shard["k3"], shard["k4"]})  # k1 lost b.py, k3 gone, k4 new
        assert all(k != "k3" for (b,) in state.conn.execute("SELECT keys FROM resolve_index")
                   for k in state_deps.decode_shard(b))  # a key no file looks up any more leaves its shard
        assert state.resolve_file_deps("r", ["a.py", "b.py", "c.py"]) == {"a.py": ["k1", "k2", "k4"], "c.py": ["k9"]}
        assert state.resolve_counts("r", ["a.py"]) == {"a.py": {"exact": 1}}
        assert state.resolve_dependents("r", ["k1", "k3"]) == {"a.py"}
        assert state.resolve_dependents("r", ["k9", "k4"]) == {"a.py", "c.py"}
        assert state.resolve_dependents("r", []) == set() and state.resolve_dependents("other", ["k1"]) == set()
        # Nothing differs: no shard is read or written.
        ran = _save(state, ResolveState(files={"a.py": (["k4", "k2", "k1"], {})}, blob=BLOB))
        assert not [s for s in ran if "resolve_index" in s]
    finally:
        state.close()


def test_the_resolution_blob_is_marshal_and_older_json_rows_still_decode(tmp_path: Path) -> None:
    assert encode_blob(BLOB).startswith(b"M1") and decode_blob(encode_blob(BLOB)) == BLOB
    state = StateStore(tmp_path / "state.db")
    try:
        _save(state, ResolveState(files={"a.py": (["k1"], {})}, full=True, blob=BLOB))
        (stored,) = state.conn.execute("SELECT blob FROM resolve_repo WHERE repo='r'").fetchone()
        assert stored.startswith(b"M1") and state.resolve_blob("r") == BLOB
        older = zlib.compress(json.dumps(BLOB, separators=(",", ":")).encode(), 1)  # what the last version wrote
        with state.conn:
            state.conn.execute("UPDATE resolve_repo SET blob=? WHERE repo='r'", (older,))
        assert state.resolve_blob("r") == BLOB
    finally:
        state.close()


def test_a_refresh_after_an_older_blob_stays_partial_and_a_damaged_one_rebuilds(tmp_path: Path) -> None:
    root = tmp_path / "src"
    model.write(root, model.base_tree(), python_only=True)
    graph, state = EmbeddedGraphStore(tmp_path / "g.db"), StateStore(tmp_path / "state.db")
    app = root / "app" / "c1.py"
    try:
        index_repo(root, "r", graph, None, state, workers=1)
        blob = state.resolve_blob("r")
        with state.conn:
            state.conn.execute("UPDATE resolve_repo SET blob=? WHERE repo='r'",
                               (zlib.compress(json.dumps(blob, separators=(",", ":")).encode(), 1),))
        app.write_text(app.read_text() + "\n\ndef added():\n    return 0\n")
        s = index_repo(root, "r", graph, None, state, workers=1)
        assert 0 < s.resolved_files < s.files and not s.messages
        first, last = state.conn.execute("SELECT symbols FROM snapshot_symbols ORDER BY taken_at").fetchall()
        assert first[0][:2] != b"D1" and last[0][:2] == b"D1"  # the refresh kept its names as a delta
        with state.conn:
            state.conn.execute("UPDATE resolve_repo SET blob=x'4d31ff00ff' WHERE repo='r'")
        app.write_text(app.read_text() + "\n\ndef added_again():\n    return 1\n")
        s = index_repo(root, "r", graph, None, state, workers=1)
        assert s.messages == ["the indexer state of r:(resolution) cannot be read (ValueError): "
                              "every file re-parsed and relinked"]
        assert s.changed == s.files
        assert_same_as_fresh_index(tmp_path, graph, "r", root)
    finally:
        state.close()
        graph.close()


def test_snapshot_names_are_kept_as_deltas_against_the_last_whole_set(tmp_path: Path) -> None:
    from codegraph.indexer import state_snapshots as state_mod

    names0 = [f"m.f{i}" for i in range(40)]
    names1 = [n for n in names0 if n != "m.f3"] + ["m.new"]
    names2 = [*names1, "m.new2", "m.new2"]
    names3 = [f"other.g{i}" for i in range(40)]  # all changed: a whole set again
    at = [f"2026-01-01T00:00:0{i}.000000+00:00" for i in range(6)]
    state = StateStore(tmp_path / "state.db")
    try:
        state.save_snapshot_symbols("r", at[0], names0, delta=True)
        state.save_snapshot_symbols("r", at[1], names1, delta=True)
        state.save_snapshot_symbols("r", at[2], names2, delta=True)
        state.save_snapshot_symbols("r", at[3], names3, delta=True)
        state.save_snapshot_symbols("r", at[4], [*names3, "x.y"])  # a backfill's: always the whole set
        state.save_snapshot_symbols("r", at[5], [*names3, "x.y", "x.z"], delta=True)
        rows = dict(state.conn.execute("SELECT taken_at, symbols FROM snapshot_symbols WHERE repo='r'").fetchall())
        kinds = [rows[a][:2] == b"D1" for a in at]
        assert kinds == [False, True, True, False, False, True]
        # each delta is taken against the newest whole set before it, not chained
        assert [marshal.loads(zlib.decompress(rows[a][2:])) for a in (at[1], at[2], at[5])] == [
            (at[0], ["m.new"], ["m.f3"]), (at[0], ["m.new", "m.new2"], ["m.f3"]), (at[4], ["x.z"], [])]
        state_mod._FULL_NAMES.clear()  # a new process: nothing cached
        want = [names0, names1, names2, names3, [*names3, "x.y"], [*names3, "x.y", "x.z"]]
        assert [state.snapshot_symbols("r", a) for a in at] == [set(w) for w in want]
        assert state.snapshot_symbols("r", "2026-02-01T00:00:00.000000+00:00") is None
        with state.conn:
            state.conn.execute("DELETE FROM snapshot_symbols WHERE taken_at=?", (at[0],))
        state_mod._FULL_NAMES.clear()
        assert state.snapshot_symbols("r", at[1]) is None  # its whole set is gone: unknown, not a wrong set
    finally:
        state.close()

"""The indexer state's split layout (codegraph.indexer.state, docs/DESIGN.md#refresh): a
head per file (records, exports, the references the table reads) and the whole reference
list apart, read only for the files a refresh resolves; and what happens to state the
code cannot use — rows in the older layout, a damaged row, a state file that is not a
database: one message, a full rebuild, the same graph as a fresh index, nothing deleted."""

from __future__ import annotations

import sqlite3
import sysconfig
from pathlib import Path

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.indexer.extract import extract_source
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import (
    _HEAD,
    STATE_FORMAT,
    StateStore,
    decode,
    decode_references,
    encode,
    encode_split,
    head_reference,
)
from tests.property import flow_tree as model
from tests.property.graph_dump import assert_same_as_fresh_index


def test_split_form_round_trips_and_the_head_keeps_only_table_references() -> None:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for rel in ["shutil.py", "asyncio/tasks.py", "json/decoder.py"]:
        fx = extract_source("std", rel, "python", (stdlib / rel).read_bytes())
        head, refs = encode_split(fx)
        assert head.startswith(_HEAD) and refs is not None
        h = decode(head)
        assert (h.file, h.symbols, h.exports, h.framework, h.errors) == (fx.file, fx.symbols, fx.exports,
                                                                         fx.framework, fx.errors)
        assert h.references == [r for r in fx.references if head_reference(r)]
        assert len(h.references) < len(fx.references)
        assert decode_references(refs) == fx.references  # every reference, in order


def _tree(root: Path) -> None:
    model.write(root, model.base_tree(), python_only=True)


def _add_a_function(root: Path) -> None:
    app = root / "app" / "c1.py"
    app.write_text(app.read_text() + "\n\ndef added():\n    return 0\n")


def test_refresh_reads_references_of_the_resolved_files_only(tmp_path: Path) -> None:
    root = tmp_path / "src"
    _tree(root)
    graph, state = EmbeddedGraphStore(tmp_path / "g.db"), StateStore(tmp_path / "state.db")
    try:
        index_repo(root, "r", graph, None, state, workers=1)
        assert not state.stale_format("r")
        paths = sorted(state.file_hashes("r"))
        heads = state.extractions("r", paths, heads=True)
        assert any(len(fx.references) < len(decode_references(
            state.conn.execute("SELECT refs FROM file_refs WHERE path=?", (p,)).fetchone()[0]))
            for p, fx in heads.items())
        whole = state.extractions("r", paths)  # the same objects, their references read now
        assert all(whole[p] is heads[p] for p in paths)
        assert state.fill_references("r", list(whole.values())) == []  # nothing left to read
        _add_a_function(root)
        s = index_repo(root, "r", graph, None, state, workers=1)
        assert 0 < s.resolved_files < s.files
        assert_same_as_fresh_index(tmp_path, graph, "r", root)
    finally:
        state.close()
        graph.close()


def test_rows_in_the_older_layout_rebuild_once_with_one_message(tmp_path: Path) -> None:
    root = tmp_path / "src"
    _tree(root)
    graph, state = EmbeddedGraphStore(tmp_path / "g.db"), StateStore(tmp_path / "state.db")
    try:
        index_repo(root, "r", graph, None, state, workers=1)
        # What the previous version wrote: the whole extraction in file_state, no file_refs, no layout row.
        whole = state.extractions("r")
        with state.conn:
            state.conn.executemany("UPDATE file_state SET extraction=? WHERE repo='r' AND path=?",
                                   [(encode(fx), p) for p, fx in whole.items()])
            state.conn.execute("DELETE FROM file_refs")
            state.conn.execute("DELETE FROM repo_format")
        assert state.stale_format("r")
        s = index_repo(root, "r", graph, None, state, workers=1)
        assert s.full_rebuild and s.changed == s.files
        assert [m for m in s.messages if "older layout" in m] == [
            "the indexer state of this repo is in an older layout: every file re-parsed and relinked"]
        assert not state.stale_format("r")
        assert state.conn.execute("SELECT format FROM repo_format WHERE repo='r'").fetchone() == (STATE_FORMAT,)
        again = index_repo(root, "r", graph, None, state, workers=1)
        assert not again.full_rebuild and again.changed == 0 and not again.messages
        assert_same_as_fresh_index(tmp_path, graph, "r", root)
    finally:
        state.close()
        graph.close()


def test_a_damaged_row_rebuilds_the_repo_with_one_message(tmp_path: Path) -> None:
    root = tmp_path / "src"
    _tree(root)
    graph, state = EmbeddedGraphStore(tmp_path / "g.db"), StateStore(tmp_path / "state.db")
    try:
        index_repo(root, "r", graph, None, state, workers=1)
        with state.conn:  # every reference row damaged: whichever file the refresh reads meets one
            state.conn.execute("UPDATE file_refs SET refs=x'00ff00ff'")
        state.close()
        state = StateStore(tmp_path / "state.db")  # a new process: nothing decoded yet
        _add_a_function(root)
        s = index_repo(root, "r", graph, None, state, workers=1)
        bad = [m for m in s.messages if "cannot be read" in m]
        assert len(bad) == 1 and bad[0].startswith("the indexer state of r:") and \
            bad[0].endswith("every file re-parsed and relinked")
        assert s.changed == s.files
        assert_same_as_fresh_index(tmp_path, graph, "r", root)
    finally:
        state.close()
        graph.close()


def test_a_state_file_that_is_not_a_database_is_kept_aside(tmp_path: Path) -> None:
    root = tmp_path / "src"
    _tree(root)
    graph = EmbeddedGraphStore(tmp_path / "g.db")
    state = StateStore(tmp_path / "state.db")
    index_repo(root, "r", graph, None, state, workers=1)
    state.close()
    junk = b"this is not a database" * 200
    (tmp_path / "state.db").write_bytes(junk)
    for side in ("state.db-wal", "state.db-shm"):
        (tmp_path / side).unlink(missing_ok=True)
    state = StateStore(tmp_path / "state.db")
    try:
        assert state.notice is not None and "\n" not in state.notice
        assert "could not be read" in state.notice and "every repository is parsed again" in state.notice
        aside = [p for p in tmp_path.iterdir() if p.name.startswith("state.db.unreadable-")]
        assert [p.read_bytes() for p in aside] == [junk]  # nothing deleted
        s = index_repo(root, "r", graph, None, state, workers=1)
        assert state.notice in s.messages and s.changed == s.files
        assert_same_as_fresh_index(tmp_path, graph, "r", root)
        (refs,) = sqlite3.connect(tmp_path / "state.db").execute("SELECT count(*) FROM file_refs").fetchone()
        assert refs > 0  # the new state file holds the rebuilt reference lists
    finally:
        state.close()
        graph.close()

"""A run commits the graph first and the indexer state after it (docs/DESIGN.md#refresh),
with the state save forked or in the process: a graph commit that fails leaves the state
as it was (and the forked child rolled back); a state save that fails after the graph
committed leaves a state the next run repairs: its graph is the full index's."""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.errors import StoreUnavailable
from codegraph.indexer import apply, state_writes
from codegraph.indexer.state import StateStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "property"))
from graph_dump import diff, dump  # noqa: E402
from test_state_writes import _index, _tree  # noqa: E402

FORK = "fork" in __import__("multiprocessing").get_all_start_methods()
MODES = ["forked", "in process"] if FORK else ["in process"]


def _graph(home: Path) -> Any:
    g = EmbeddedGraphStore(home / "graph.db")
    try:
        return dump(g, "r")
    finally:
        g.close()


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "forked":
        monkeypatch.setattr(state_writes, "FORK_AT_LEAST", 1)
    else:
        monkeypatch.setattr(apply, "save_forked", lambda *a: False)
    return str(request.param)


def test_a_graph_commit_that_fails_leaves_the_state_as_it_was(tmp_path: Path, mode: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    src = _tree(tmp_path / "src")
    home = tmp_path / "home"
    home.mkdir()
    saves: list[int] = []
    real_save = StateStore.save

    def counted(self: Any, *a: Any, **k: Any) -> None:
        saves.append(os.getpid())
        real_save(self, *a, **k)

    def broken(self: Any, *a: Any, **k: Any) -> None:
        raise StoreUnavailable("the embedded graph could not commit")

    monkeypatch.setattr(StateStore, "save", counted)
    monkeypatch.setattr(EmbeddedGraphStore, "commit_run", broken)
    with pytest.raises(StoreUnavailable, match="could not commit"):
        _index(src, home)
    st = StateStore(home / "state.db")
    assert st.repo("r") is None and st.file_hashes("r") == {}
    st.close()
    c = sqlite3.connect(home / "state.db")
    assert c.execute("SELECT count(*) FROM resolve_index").fetchone() == (0,)
    assert c.execute("SELECT count(*) FROM snapshot_symbols").fetchone() == (0,)
    c.close()
    g = EmbeddedGraphStore(home / "graph.db")
    assert g.file_hashes("r") == {}  # the run's transaction rolled back
    g.close()
    if mode == "in process":  # no save was made (forked: the child wrote its rows and rolled back)
        assert saves == []


def test_a_state_save_failing_after_the_graph_commit_is_repaired_by_the_next_run(
        tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    src = _tree(tmp_path / "src")
    home = tmp_path / "home"
    home.mkdir()
    first = _index(src, home)
    assert first.changed > 0
    (src / "pkg" / "m0.py").write_text((src / "pkg" / "m0.py").read_text() + "\ndef added(x):\n    return f0_0(x)\n")
    real = StateStore.save

    def full_disk(self: Any, *a: Any, **k: Any) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(StateStore, "save", full_disk)
    with pytest.raises(sqlite3.OperationalError, match="disk is full"):
        _index(src, home)
    monkeypatch.setattr(StateStore, "save", real)
    # The graph holds the failed run (it committed first); the state still the first run's.
    g = EmbeddedGraphStore(home / "graph.db")
    assert any(n.props.get("name") == "added" for n in g.nodes_in_files("r", ["pkg/m0.py"])["pkg/m0.py"])
    g.close()
    # The next run takes the files the state does not know at their hash as changed (a rebuild
    # when the runs' clocks differ: completeness.previous_run_unfinished), and ends with the
    # full index's graph and a state that the run after it finds nothing to do in.
    again = _index(src, home)
    assert again.changed >= 1
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    _index(src, fresh)
    assert diff(_graph(home), _graph(fresh)) == []
    last = _index(src, home)
    assert (last.changed, last.resolved_files, last.edges_rewritten_files) == (0, 0, 0)

"""Property: a refresh that re-resolves only the affected files (codegraph.indexer.affected,
docs/DESIGN.md#refresh) leaves the graph equal to a full index of the same tree — on a
tree built to reach across files: package and TypeScript barrels (``export *`` too), base
classes in other modules, calls on what a factory returns, values handed to functions that
call their parameter, method calls on unknown receivers (unique name / ambiguous stubs),
and edits that rename, move, delete and add functions, classes, re-exports and files.

The terminal summary prints how many steps took the partial path (fewer files resolved
than the repo has), so a change that silently falls back to full resolution shows. Files
are skipped by their stat (``StateStore.trusted_stats``) with no racy window (every edit
here comes after the run that read the file before): each step reads exactly the files
it changed. The
Python-only run (no TypeScript files: no link pass reads every reference) also checks
that a refresh read the references of no more files than it resolved (plus the last
version of the changed and removed files): the others come from the state as heads
(``StateStore.extractions(heads=True)``)."""

from __future__ import annotations

import shutil
import uuid
from collections import Counter
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore
from tests.property import flow_tree as model
from tests.property.graph_dump import diff, dump
from tests.property.test_incremental_equals_full import _scratch

PARTIAL: Counter[str] = Counter()  # sequences, steps, partial steps (printed by conftest)


class _CountingState(StateStore):
    """Counts the files whose whole reference list a run read from the state."""

    filled = 0

    def fill_references(self, repo, extractions):  # type: ignore[no-untyped-def]
        done = super().fill_references(repo, extractions)
        self.filled += len(done)
        return done

EDIT = st.tuples(st.integers(0, len(model.OPS) - 1), st.integers(0, 7), st.integers(0, 7), st.integers(0, 7))


@pytest.mark.timeout(1800)
@settings(max_examples=150, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(EDIT, min_size=1, max_size=5))
@pytest.mark.parametrize("python_only", [False, True], ids=["py+ts", "python-only"])
def test_partial_refresh_equals_full_index(python_only: bool, edits: list[tuple[int, int, int, int]]) -> None:
    base = _scratch()
    run = uuid.uuid4().hex[:8]
    root, repo = base / "src", f"flow-{run}"
    tree = model.base_tree()
    model.write(root, tree, python_only)
    graph = EmbeddedGraphStore(base / "incremental.db")
    state = _CountingState(base / "state.db")
    PARTIAL[("py_" if python_only else "") + "sequences"] += 1
    try:
        with mock.patch("codegraph.indexer.state.RACY_NS", 0):
            _steps(root, repo, graph, state, tree, edits, python_only, base, run)
    finally:
        state.close()
        graph.close()
        shutil.rmtree(base, ignore_errors=True)


def _steps(root: Path, repo: str, graph: EmbeddedGraphStore, state: _CountingState, tree: model.Tree,
           edits: list[tuple[int, int, int, int]], python_only: bool, base: Path, run: str) -> None:
    """The first index, then each edit: a refresh, checked against a full index of the tree."""
    tag = "py_" if python_only else ""
    index_repo(root, repo, graph, None, state, workers=1)
    done: list[str] = []
    for i, edit in enumerate(edits):
        done.append(model.apply(tree, edit))
        model.write(root, tree, python_only)
        state.filled = 0
        s = index_repo(root, repo, graph, None, state, workers=1)
        assert s.hashed == s.changed, f"read {s.hashed} files to hash them, {s.changed} changed"
        PARTIAL[tag + "steps"] += 1
        if s.resolved_files < s.files:
            PARTIAL[tag + "partial"] += 1
        if python_only:
            # the files resolved, and the last version of each changed or removed file (its table entries)
            assert state.filled <= s.resolved_files + s.changed + s.removed, \
                f"read {state.filled} files' references; resolved {s.resolved_files}, changed {s.changed}, " \
                f"removed {s.removed}"
        full_graph = EmbeddedGraphStore(base / f"full-{i}.db")
        full_state = StateStore(base / f"state-{i}.db")
        try:
            index_repo(root, f"flow-full-{run}-{i}", full_graph, None, full_state, workers=1)
            problems = diff(dump(graph, repo), dump(full_graph, f"flow-full-{run}-{i}"))
        finally:
            full_state.close()
            full_graph.close()
        assert not problems, "after edits:\n  " + "\n  ".join(done) + "\n" + "\n".join(problems[:20])

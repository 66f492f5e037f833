"""Property: a refresh that re-resolves only the affected files (codegraph.indexer.affected,
docs/DESIGN.md#refresh) leaves the graph equal to a full index of the same tree — on a
tree built to reach across files: package and TypeScript barrels (``export *`` too), base
classes in other modules, calls on what a factory returns, values handed to functions that
call their parameter, method calls on unknown receivers (unique name / ambiguous stubs),
and edits that rename, move, delete and add functions, classes, re-exports and files.

The terminal summary prints how many steps took the partial path (fewer files resolved
than the repo has), so a change that silently falls back to full resolution shows."""

from __future__ import annotations

import shutil
import uuid
from collections import Counter

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

EDIT = st.tuples(st.integers(0, len(model.OPS) - 1), st.integers(0, 7), st.integers(0, 7), st.integers(0, 7))


@pytest.mark.timeout(1800)
@settings(max_examples=150, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(EDIT, min_size=1, max_size=5))
def test_partial_refresh_equals_full_index(edits: list[tuple[int, int, int, int]]) -> None:
    base = _scratch()
    run = uuid.uuid4().hex[:8]
    root, repo = base / "src", f"flow-{run}"
    tree = model.base_tree()
    model.write(root, tree)
    graph = EmbeddedGraphStore(base / "incremental.db")
    state = StateStore(base / "state.db")
    PARTIAL["sequences"] += 1
    try:
        index_repo(root, repo, graph, None, state, workers=1)
        done: list[str] = []
        for i, edit in enumerate(edits):
            done.append(model.apply(tree, edit))
            model.write(root, tree)
            s = index_repo(root, repo, graph, None, state, workers=1)
            PARTIAL["steps"] += 1
            if s.resolved_files < s.files:
                PARTIAL["partial"] += 1
            full_graph = EmbeddedGraphStore(base / f"full-{i}.db")
            full_state = StateStore(base / f"state-{i}.db")
            try:
                index_repo(root, f"flow-full-{run}-{i}", full_graph, None, full_state, workers=1)
                problems = diff(dump(graph, repo), dump(full_graph, f"flow-full-{run}-{i}"))
            finally:
                full_state.close()
                full_graph.close()
            assert not problems, "after edits:\n  " + "\n  ".join(done) + "\n" + "\n".join(problems[:20])
    finally:
        state.close()
        graph.close()
        shutil.rmtree(base, ignore_errors=True)

"""Property: after any sequence of edits to a small multi-language tree (Python, Go, Java,
TypeScript: add / delete / rename / move functions, change signatures, move files, add
overloads, add and remove calls), each followed by an incremental index, the graph —
nodes, edges with their properties, stubs — equals a full index of the same tree into a
fresh home. Hypothesis draws the sequences (derandomised: the same ones on every run);
the number tried is printed in the terminal summary (tests/property/conftest.py)."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections import defaultdict
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.graph_store import GraphStore
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore
from tests.property import tree as model
from tests.property.graph_dump import diff, dump

TRIED: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # backend -> [sequences, steps]

EDIT = st.tuples(st.integers(0, len(model.OPS) - 1), st.integers(0, 7), st.integers(0, 7), st.integers(0, 7))
SEQUENCE = st.lists(EDIT, min_size=1, max_size=4)


def _scratch() -> Path:
    """A scratch folder, in memory where the machine has one: hundreds of small SQLite
    files are written and deleted per run."""
    shm = "/dev/shm"
    where = shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None
    return Path(tempfile.mkdtemp(prefix="codegraph-prop-", dir=where))


def _check_sequence(edits: list[tuple[int, int, int, int]], base: Path, graph: GraphStore,
                    fresh_graph, backend: str) -> None:  # type: ignore[no-untyped-def]
    """Index the base tree, then after every edit: incremental index vs full index."""
    run = uuid.uuid4().hex[:8]
    root = base / f"src-{run}"
    repo = f"prop-{run}"
    tree = model.base_tree()
    model.write(root, tree)
    state = StateStore(base / f"state-{run}.db")
    TRIED[backend][0] += 1
    cleanup: list[tuple[GraphStore, str]] = [(graph, repo)]
    try:
        index_repo(root, repo, graph, None, state, workers=1)
        done: list[str] = []
        for i, edit in enumerate(edits):
            done.append(model.apply(tree, edit))
            model.write(root, tree)
            # No racy window: every edit comes after the run that read the file before, so
            # the files this edit left alone are skipped by their stat, and only those read.
            with mock.patch("codegraph.indexer.state.RACY_NS", 0):
                s = index_repo(root, repo, graph, None, state, workers=1)
            assert s.hashed == s.changed, f"read {s.hashed} files to hash them, {s.changed} changed"
            TRIED[backend][1] += 1
            full_graph, full_repo = fresh_graph(f"{run}-{i}")
            cleanup.append((full_graph, full_repo))
            full_state = StateStore(base / f"state-{run}-{i}.db")
            try:
                index_repo(root, full_repo, full_graph, None, full_state, workers=1)
            finally:
                full_state.close()
            problems = diff(dump(graph, repo), dump(full_graph, full_repo))
            assert not problems, "after edits:\n  " + "\n  ".join(done) + "\n" + "\n".join(problems[:20])
    finally:
        state.close()
        for g, r in cleanup:
            g.delete_repo(r)
            if g is not graph and g.backend == "embedded":
                g.close()
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.timeout(1800)  # hundreds of index runs: more than the suite's per-test default
@settings(max_examples=200, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(edits=SEQUENCE)
def test_incremental_index_equals_full_index_embedded(edits: list[tuple[int, int, int, int]]) -> None:
    base = _scratch()
    graph = EmbeddedGraphStore(base / "incremental.db")

    def fresh(tag: str) -> tuple[GraphStore, str]:
        return EmbeddedGraphStore(base / f"full-{tag}.db"), f"prop-full-{tag}"

    try:
        _check_sequence(edits, base, graph, fresh, "embedded")
    finally:
        graph.close()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def neo4j_graph():  # type: ignore[no-untyped-def]
    from codegraph.core.errors import StoreUnavailable
    from codegraph.core.stores import open_graph_store
    from tests.services import service_settings, skip_or_fail

    s = service_settings()
    if not s.graph.startswith(("bolt://", "neo4j://", "bolt+s://", "neo4j+s://")):
        skip_or_fail("Neo4j not configured (CODEGRAPH_GRAPH is not bolt://; run `make services`)")
    try:
        g = open_graph_store(s)
    except StoreUnavailable as e:
        skip_or_fail(f"Neo4j unreachable: {e}")
        raise
    yield g
    g.close()


@pytest.mark.services
@pytest.mark.timeout(1800)
@settings(max_examples=25, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(edits=st.lists(EDIT, min_size=1, max_size=3))
def test_incremental_index_equals_full_index_neo4j(edits: list[tuple[int, int, int, int]], neo4j_graph) -> None:  # type: ignore[no-untyped-def]
    # The fresh home is a fresh repo on the same server (repo names are normalised away).
    base = _scratch()
    try:
        _check_sequence(edits, base, neo4j_graph, lambda tag: (neo4j_graph, f"prop-full-{tag}"), "neo4j")
    finally:
        shutil.rmtree(base, ignore_errors=True)

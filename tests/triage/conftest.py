"""Fixtures for the triage tests: the fixture tree indexed into a graph store, on the
embedded backend and, where ``make services`` runs one, on Neo4j (skipped otherwise, or
failed with CODEGRAPH_REQUIRE_SERVICES=1)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from codegraph.core.graph_store import GraphStore
from codegraph.indexer.state import StateStore
from tests.triage.fixture import Tree, write_tree


def _neo4j() -> GraphStore:
    from codegraph.core.errors import StoreUnavailable
    from codegraph.core.stores import open_graph_store
    from tests.services import service_settings, skip_or_fail

    s = service_settings()
    if not s.graph.startswith(("bolt://", "neo4j://", "bolt+s://", "neo4j+s://")):
        skip_or_fail("Neo4j not configured (CODEGRAPH_GRAPH is not bolt://; run `make services`)")
    try:
        return open_graph_store(s)
    except StoreUnavailable as e:
        skip_or_fail(f"Neo4j unreachable: {e}")
        raise


@pytest.fixture(params=["embedded", pytest.param("neo4j", marks=pytest.mark.services)])
def graph(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GraphStore]:
    """A graph store; on Neo4j every repo a test creates is deleted afterwards."""
    if request.param == "embedded":
        from codegraph.core.embedded_graph import EmbeddedGraphStore

        g: GraphStore = EmbeddedGraphStore(tmp_path / "graph.db")
        yield g
        g.close()
        return
    g = _neo4j()
    before = {str(r.props.get("name")) for r in g.repos()}
    try:
        yield g
    finally:
        for r in g.repos():
            name = str(r.props.get("name"))
            if name not in before and name.startswith("triage-"):
                g.delete_repo(name)
        g.close()


@pytest.fixture
def make_tree(graph: GraphStore, tmp_path: Path) -> Iterator[Callable[..., Tree]]:
    """``make_tree(files=None)``: a fresh repo (unique name) written and indexed once."""
    states: list[StateStore] = []

    def make(files: dict[str, str] | None = None) -> Tree:
        name = f"triage-{uuid.uuid4().hex[:8]}"
        root = tmp_path / name
        if files is None:
            write_tree(root)
        else:
            for rel, text in files.items():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text, encoding="utf-8")
        state = StateStore(tmp_path / f"{name}-state.db")
        states.append(state)
        tree = Tree(root, name, graph, state)
        tree.index()
        return tree

    yield make
    for s in states:
        s.close()


@pytest.fixture
def tree(make_tree: Callable[..., Tree]) -> Tree:
    return make_tree()

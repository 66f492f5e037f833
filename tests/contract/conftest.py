"""Fixtures for the GraphStore contract: one store per backend for the whole session,
and a fresh repo name per test that is deleted afterwards (the Neo4j server is shared)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from codegraph.core.errors import StoreUnavailable
from codegraph.core.graph_store import GraphStore
from tests.services import service_settings, skip_or_fail

BACKENDS = ("embedded", "neo4j")
_STORES: dict[str, GraphStore] = {}


def _open(backend: str, tmp_root: Path) -> GraphStore:
    if backend == "embedded":
        from codegraph.core.embedded_graph import EmbeddedGraphStore

        return EmbeddedGraphStore(tmp_root / "graph.db")
    settings = service_settings()
    if not settings.graph.startswith(("bolt://", "neo4j://", "bolt+s://", "neo4j+s://")):
        skip_or_fail("Neo4j not configured (CODEGRAPH_GRAPH is not bolt://; run `make services`)")
    from codegraph.core.neo4j_graph import Neo4jGraphStore

    try:
        return Neo4jGraphStore(settings.graph, settings.neo4j_user, settings.neo4j_password.get_secret_value(),
                               settings.neo4j_database)
    except StoreUnavailable as e:
        skip_or_fail(f"Neo4j unreachable: {e}")
        raise


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> GraphStore:
    backend: str = request.param
    if backend not in _STORES:
        _STORES[backend] = _open(backend, tmp_path_factory.mktemp(f"contract-{backend}"))
    return _STORES[backend]


@pytest.fixture
def repo(store: GraphStore) -> Iterator[str]:
    name = f"ct-{uuid.uuid4().hex[:10]}"
    yield name
    store.delete_repo(name)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    for s in _STORES.values():
        s.close()
    _STORES.clear()

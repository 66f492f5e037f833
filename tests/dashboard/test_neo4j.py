"""The dashboard on the Neo4j backend (`make services`): the Cypher console answers
read-only queries and refuses writes in one line; Impact gives the same callers as on
the embedded graph. Skipped (or failed with CODEGRAPH_REQUIRE_SERVICES=1) without Neo4j."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from codegraph.core.errors import StoreUnavailable
from tests.dashboard.conftest import open_app
from tests.dashboard.shop import SAVE_CALLERS, write_shop
from tests.services import service_settings, skip_or_fail

pytestmark = pytest.mark.services


@pytest.fixture(scope="module")
def neo4j_shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The shop indexed into the shared Neo4j under a fresh repo name (deleted after)."""
    settings = service_settings()
    if not settings.graph.startswith(("bolt://", "neo4j://", "bolt+s://", "neo4j+s://")):
        skip_or_fail("Neo4j not configured (CODEGRAPH_GRAPH is not bolt://; run `make services`)")
    from codegraph.core.embedded_search import EmbeddedSearchIndex
    from codegraph.core.stores import open_graph_store
    from codegraph.indexer.pipeline import index_repo
    from codegraph.indexer.state import StateStore

    try:
        graph = open_graph_store(settings)
    except StoreUnavailable as e:
        skip_or_fail(f"Neo4j unreachable: {e}")
        raise
    home = tmp_path_factory.mktemp("neo4j-dash-home")
    repo = f"dash-{uuid.uuid4().hex[:10]}"
    search, state = EmbeddedSearchIndex(home / "search.db"), StateStore(home / "state.db")
    try:
        index_repo(write_shop(tmp_path_factory.mktemp("neo4j-shop")), repo, graph, search, state, workers=1)
        yield repo, home
    finally:
        graph.delete_repo(repo)
        for s in (state, search, graph):
            s.close()


@pytest.fixture
def neo4j_app(neo4j_shop: tuple[str, Path], monkeypatch: pytest.MonkeyPatch) -> tuple[str, AppTest]:
    from codegraph.core import settings

    repo, home = neo4j_shop
    s = service_settings()
    monkeypatch.setenv("CODEGRAPH_HOME", str(home))
    monkeypatch.setenv("CODEGRAPH_GRAPH", s.graph)  # user / password come from services.env
    monkeypatch.setenv("CODEGRAPH_SEARCH", "embedded")
    monkeypatch.setenv("CODEGRAPH_EMBED_MODEL_PATH", "none")
    settings.get_settings.cache_clear()
    at = open_app()
    at.sidebar.selectbox[0].set_value(repo).run()
    return repo, at


def test_cypher_console_runs_read_only_queries(neo4j_app: tuple[str, AppTest]) -> None:
    repo, at = neo4j_app
    at.switch_page("../pages/cypher.py").run()
    assert not at.exception and not at.error
    assert not any("needs Neo4j" in w.value for w in at.warning)
    at.text_area(key="cypher_query").input(
        "MATCH (s:Symbol) WHERE s.repo = $repo AND s.name = 'save' RETURN s.qualified_name AS qn ORDER BY qn")
    at.button(key="FormSubmitter:cypher_form-Run").click().run()  # a form submits its widgets together
    assert not at.exception and not at.error, [e.value for e in at.error]
    rows = next(d.value for d in at.dataframe if "qn" in d.value.columns)
    assert list(rows["qn"]) == ["shop.audit.save", "shop.store.save"]
    assert any(c.value == "2 of 2 row(s)" for c in at.caption)

    at.text_area(key="cypher_query").input("MATCH (s:Symbol {repo: $repo}) DETACH DELETE s")
    at.button(key="FormSubmitter:cypher_form-Run").click().run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert errors == ["refused: raw queries are read-only and this one contains DETACH"], errors


def test_impact_on_neo4j_matches_embedded(neo4j_app: tuple[str, AppTest]) -> None:
    _, at = neo4j_app
    at.switch_page("../pages/impact.py").run()
    at.text_input(key="impact_target").input("shop.store.save").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    rows = next(d.value for d in at.dataframe if "caller" in d.value.columns)
    assert set(rows["caller"]) == SAVE_CALLERS

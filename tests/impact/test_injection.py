"""Dependency injection in the blast radius (docs/DESIGN.md#injection), on every backend:
tests/fixtures/java_di indexed by the real pipeline, then INJECTS walked by ``impact``.
Changing a provider (an injected class, an interface, a ``@Bean`` method) reaches the
classes it is injected into; an implementation behind an injected interface reaches
the callers of the interface's methods through dispatch."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codegraph.core.graph_store import GraphStore
from codegraph.core.impact import impact
from codegraph.core.models import CALLS, IMPLEMENTS, INJECTS
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore
from tests.impact.builder import callers

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "java_di"


@pytest.fixture
def shop(store: GraphStore, repo: str, tmp_path: Path) -> str:
    root = tmp_path / "shop"
    shutil.copytree(FIX, root)
    state = StateStore(tmp_path / "state.db")
    try:
        index_repo(root, repo, store, None, state, workers=1)
    finally:
        state.close()
    return repo


def test_injected_class_reaches_its_consumers(store: GraphStore, shop: str) -> None:
    res = impact(store, "com.shop.store.Clock", repo=shop)
    assert callers(res) == {
        (1, INJECTS, "com.shop.orders.OrderService"),  # @Autowired field
        (1, INJECTS, "com.shop.orders.Audit"),  # @Inject field
        (1, INJECTS, "com.shop.config.AppConfig.gateway"),  # a @Bean method's parameter
        (1, CALLS, "com.shop.config.AppConfig.notABean"),  # new Clock()
        (2, INJECTS, "com.shop.web.OrdersApi"),  # OrderService is injected into its constructor
    }
    by_qn = {c.node.qualified_name: c for c in res.callers}
    assert by_qn["com.shop.orders.OrderService"].resolution == "injection"
    assert by_qn["com.shop.web.OrdersApi"].path == [
        "com.shop.web.OrdersApi", "com.shop.orders.OrderService", "com.shop.store.Clock"]


def test_bean_method_reaches_what_it_is_injected_into(store: GraphStore, shop: str) -> None:
    res = impact(store, "com.shop.config.AppConfig.dataSource", repo=shop)
    assert callers(res) == {
        (1, INJECTS, "com.shop.orders.OrderService"),  # @Autowired setDataSource(DataSource)
        (1, INJECTS, "com.shop.config.AppConfig.gateway"),  # gateway(Clock, DataSource)
        (2, INJECTS, "com.shop.web.OrdersApi"),
    }


def test_interface_and_implementation(store: GraphStore, shop: str) -> None:
    res = impact(store, "com.shop.store.OrderRepo", repo=shop)
    assert callers(res) == {
        (1, INJECTS, "com.shop.orders.OrderService"), (1, INJECTS, "com.shop.orders.Audit"),
        (1, IMPLEMENTS, "com.shop.store.JpaOrderRepo"),
        (1, CALLS, "com.shop.orders.OrderService.place"),  # OrderRepo.save, a member of the target
        (2, INJECTS, "com.shop.web.OrdersApi"), (2, CALLS, "com.shop.web.OrdersApi.post"),
    }
    # a change to the implementation reaches the callers of the interface method (dispatch)
    res = impact(store, "com.shop.store.JpaOrderRepo.save", repo=shop)
    assert callers(res) == {(1, CALLS, "com.shop.orders.OrderService.place"), (2, CALLS, "com.shop.web.OrdersApi.post")}
    assert [w["node"].qualified_name for w in res.widened] == ["com.shop.store.OrderRepo.save"]


def test_injects_filtered_out_like_any_edge_type(store: GraphStore, shop: str) -> None:
    res = impact(store, "com.shop.store.Clock", repo=shop, edge_types=[CALLS])
    assert callers(res) == {(1, CALLS, "com.shop.config.AppConfig.notABean")}


def test_refresh_that_adds_or_removes_a_provider_moves_the_edges(store: GraphStore, repo: str,
                                                                 tmp_path: Path) -> None:
    """A new ``@Bean Clock`` re-points the consumers in unchanged files (the refresh
    resolves the whole repo then: docs/DESIGN.md#refresh); removing it points them back."""
    root = tmp_path / "shop"
    shutil.copytree(FIX, root)
    state = StateStore(tmp_path / "state.db")
    extra = root / "src/main/java/com/shop/config/ClockConfig.java"
    try:
        index_repo(root, repo, store, None, state, workers=1)
        extra.write_text("package com.shop.config;\nimport com.shop.store.Clock;\n"
                         "import org.springframework.context.annotation.Bean;\n"
                         "public class ClockConfig {\n  @Bean public Clock clock() { return null; }\n}\n")
        index_repo(root, repo, store, None, state, workers=1)
        assert callers(impact(store, "com.shop.config.ClockConfig.clock", repo=repo)) == {
            (1, INJECTS, "com.shop.orders.OrderService"), (1, INJECTS, "com.shop.orders.Audit"),
            (1, INJECTS, "com.shop.config.AppConfig.gateway"), (2, INJECTS, "com.shop.web.OrdersApi")}
        assert callers(impact(store, "com.shop.store.Clock", repo=repo)) == {
            (1, CALLS, "com.shop.config.AppConfig.notABean")}
        extra.unlink()
        index_repo(root, repo, store, None, state, workers=1)
        assert (1, INJECTS, "com.shop.orders.OrderService") in callers(impact(store, "com.shop.store.Clock", repo=repo))
    finally:
        state.close()

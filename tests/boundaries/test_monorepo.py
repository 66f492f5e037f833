"""The monorepo fixture end to end: index_repo on the embedded stores, then impact from a
table, a file, an endpoint and a topic. Pages are exact; the settings page (imports only
loadPreferences from the same module as loadOrders) and the reports page (imports only
formatMoney from the same barrel) are the negative, name-aware cases; the audit page
(a dynamic import of the module) is reached broadly."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.impact import ImpactResult, impact
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore
from tests.boundaries.util import FIXTURES


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, EmbeddedGraphStore, StateStore]]:
    base = tmp_path_factory.mktemp("mono")
    root = base / "src"
    shutil.copytree(FIXTURES / "monorepo", root)
    graph = EmbeddedGraphStore(base / "graph.db")
    state = StateStore(base / "state.db")
    summary = index_repo(root, "mono", graph, None, state, workers=1)
    assert summary.unplaced_urls == 2  # /api/reports/... and /api/payments/...: no such route
    assert {(u["file"], u["reason"]) for u in summary.unplaced} == {
        ("apps/web/src/lib/api.ts", "no_match"), ("packages/client/src/index.ts", "no_match")}
    assert summary.boundaries["http_placed"] == 3 and summary.boundaries["http_calls"] == 5
    yield root, graph, state
    state.close()
    graph.close()


def pages(res: ImpactResult) -> set[str]:
    return {p["route"] for p in res.pages}


def callers(res: ImpactResult) -> set[tuple[int, str, str]]:
    return {(c.depth, c.via, c.node.qualified_name) for c in res.callers}


def test_table_reaches_handlers_clients_and_pages(indexed) -> None:
    _, graph, _ = indexed
    res = impact(graph, "table:orders")
    assert callers(res) == {
        (1, "READS", "api.db.get_order"),
        (1, "READS", "api.db.list_orders"),
        (2, "CALLS", "api.routers.orders.get_order"),
        (2, "CALLS", "api.routers.orders.list_orders"),
        (3, "CALLS_HTTP", "apps/web/src/lib/api.loadOrder"),  # `/api/orders/${id}`
        (3, "CALLS_HTTP", "apps/web/src/lib/api.loadOrders"),  # `${API_BASE}/api/orders`: literal tail
        (4, "CALLS", "apps/web/src/app/orders/[id]/page.OrderPage"),
        (4, "CALLS", "apps/web/src/screens/OrdersScreen.OrdersScreen"),
        (4, "IMPORTS", "apps/web/src/app/audit/page.tsx"),  # a dynamic import counts broadly
        (4, "IMPORTS", "apps/web/src/lib/index.ts"),  # the barrel re-exports loadOrders/loadOrder
        (5, "CALLS", "apps/web/src/app/orders/page.OrdersPage"),
        (5, "IMPORTS", "apps/web/src/app/orders/[id]/page.tsx"),
        (5, "IMPORTS", "apps/web/src/app/orders/page.tsx"),
        (5, "IMPORTS", "apps/web/src/screens/OrdersScreen.tsx"),
    }
    assert pages(res) == {"/orders", "/orders/:id", "/audit"}  # not /settings, not /reports
    assert {(e.kind, e.node.qualified_name) for e in res.entry_points if e.kind != "page"} == {
        ("endpoint", "GET /api/orders"), ("endpoint", "GET /api/orders/:order_id")}
    assert {t["table"] for t in res.tables} == {"orders", "order_items"}
    ev = {(c.node.qualified_name, c.evidence_file, c.evidence_line) for c in res.callers}
    assert ("api.db.list_orders", "api/db.py", 7) in ev
    assert ("apps/web/src/lib/api.loadOrders", "apps/web/src/lib/api.ts", 4) in ev
    assert all(c.evidence_file and c.evidence_line > 0 for c in res.callers)
    assert [p["route"] for p in res.pages] == ["/audit", "/orders/:id", "/orders"]  # nearest first


def test_depth_cuts_the_walk(indexed) -> None:
    _, graph, _ = indexed
    res = impact(graph, "table:orders", depth=3)
    assert max(c.depth for c in res.callers) == 3 and pages(res) == set()


def test_file_reaches_name_aware_importers(indexed) -> None:
    _, graph, _ = indexed
    res = impact(graph, "file:apps/web/src/lib/api.ts")
    # Every export changes: /settings is affected now; /reports imports formatMoney from
    # the barrel, which `export *` of api.ts does not carry.
    assert pages(res) == {"/audit", "/orders", "/orders/:id", "/settings"}
    files = {c.node.qualified_name for c in res.callers if c.via == "IMPORTS"}
    assert files == {"apps/web/src/app/settings/page.tsx", "apps/web/src/lib/index.ts",
                     "apps/web/src/app/audit/page.tsx",
                     "apps/web/src/app/orders/[id]/page.tsx", "apps/web/src/app/orders/page.tsx",
                     "apps/web/src/screens/OrdersScreen.tsx"}


def test_symbol_target_keeps_callers_and_lists_importers_apart(indexed) -> None:
    _, graph, _ = indexed
    res = impact(graph, "apps/web/src/lib/api.loadPreferences")
    assert callers(res) == {(1, "CALLS", "apps/web/src/app/settings/page.SettingsPage")}
    # The barrel forwards loadPreferences too (export *), but nothing imports it from there.
    assert {c.node.qualified_name for c in res.importers} == {"apps/web/src/app/settings/page.tsx",
                                                                "apps/web/src/lib/index.ts",
                                                                "apps/web/src/app/audit/page.tsx"}
    assert pages(res) == {"/settings", "/audit"}  # importers count for pages too


def test_endpoint_reaches_handler_clients_and_callees(indexed) -> None:
    _, graph, _ = indexed
    res = impact(graph, 'endpoint:"GET /api/orders/:id"')  # :id typed, :order_id declared
    assert {(c.depth, c.via, c.node.qualified_name) for c in res.callers if c.via != "IMPORTS"} == {
        (1, "EXPOSES", "api.routers.orders.get_order"),
        (1, "CALLS_HTTP", "apps/web/src/lib/api.loadOrder"),
        (2, "CALLS", "apps/web/src/app/orders/[id]/page.OrderPage"),
    }
    assert [c.node.qualified_name for c in res.downstream] == ["api.db.get_order"]
    assert {t["table"] for t in res.tables} == {"orders", "order_items"}
    assert pages(res) == {"/orders/:id", "/audit"}


def test_topic_reaches_producers_and_consumers(indexed) -> None:
    _, graph, _ = indexed
    res = impact(graph, "topic:payments")
    assert {(c.depth, c.via, c.node.qualified_name) for c in res.callers if c.via != "IMPORTS"} == {
        (1, "PRODUCES", "api.events.publish_payment"),
        (1, "CONSUMES", "billing.consumer.run"),
        (2, "CALLS", "api.routers.orders.pay_order"),
    }
    assert {(e.kind, e.node.qualified_name) for e in res.entry_points} == {
        ("consumer", "billing.consumer.run"), ("endpoint", "POST /api/orders/:order_id/pay")}


def test_producer_change_reaches_consumers(indexed) -> None:
    _, graph, _ = indexed
    res = impact(graph, "api.events.publish_payment")
    assert {(c.depth, c.via, c.node.qualified_name) for c in res.callers} == {
        (1, "CALLS", "api.routers.orders.pay_order"),
        (1, "CONSUMES", "billing.consumer.run"),  # through the topic the function produces to
    }


def test_reindex_is_stable_and_routes_follow_new_pages(indexed) -> None:
    root, graph, state = indexed
    before = graph.counts("mono")
    s = index_repo(root, "mono", graph, None, state, workers=1)
    assert (s.changed, s.edges_rewritten_files) == (0, 0) and graph.counts("mono") == before
    form = root / "apps/web/src/app/settings/Form.tsx"
    form.write_text("export function Form() {\n  return null;\n}\n")
    index_repo(root, "mono", graph, None, state, workers=1)
    node = graph.get_nodes(["file|mono|apps/web/src/app/settings/Form.tsx"])
    assert node["file|mono|apps/web/src/app/settings/Form.tsx"].props["route"] == "/settings"
    (root / "apps/web/src/app/settings/page.tsx").unlink()
    index_repo(root, "mono", graph, None, state, workers=1)
    node = graph.get_nodes(["file|mono|apps/web/src/app/settings/Form.tsx"])
    assert node["file|mono|apps/web/src/app/settings/Form.tsx"].props["route"] is None  # unchanged file, re-imported
    assert graph.verify("mono") == {"orphan_files": 0, "orphan_symbols": 0, "dangling_edges": 0}
    # The endpoint /api/preferences lost its only client page but keeps its handler.
    assert graph.nodes_by_label("Endpoint", "mono")


def test_model_table_reaches_importers_of_the_model_only(tmp_path: Path) -> None:
    root = tmp_path / "src"
    files = {
        "shop/__init__.py": "",
        "shop/models.py": (
            "from django.db import models\n\n\n"
            "class Coupon(models.Model):\n    code = models.CharField(max_length=9)\n\n"
            "    class Meta:\n        db_table = 'coupons'\n\n\n"
            "class Product(models.Model):\n    name = models.CharField(max_length=9)\n"),
        "shop/checkout.py": (
            "from shop.models import Coupon\n\n\n"
            "def discount(code):\n    return Coupon.objects.filter(code=code).first()\n"),
        "shop/catalog.py": "from shop.models import Product\n\n\ndef names():\n    return [p.name for p in Product.objects.all()]\n",
        "shop/api.py": "from shop.checkout import discount\n\n\ndef apply(code):\n    return discount(code)\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    graph = EmbeddedGraphStore(tmp_path / "g.db")
    state = StateStore(tmp_path / "s.db")
    index_repo(root, "shop", graph, None, state, workers=1)
    res = impact(graph, "table:coupons")
    assert callers(res) == {
        (1, "TOUCHES", "shop.models.Coupon"),  # the model class the table maps to
        (1, "TOUCHES", "shop/models.py"),
        (1, "READS", "shop.checkout.discount"),  # Coupon.objects.filter(...).first()
        (2, "CALLS", "shop.api.apply"),
        (2, "IMPORTS", "shop/checkout.py"),  # imports Coupon; catalog.py imports only Product
        (2, "IMPORTS", "shop/api.py"),  # imports discount, which reads the table
    }
    state.close()
    graph.close()

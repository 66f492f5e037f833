"""Across boundaries: table orders -> db functions -> handlers -> Endpoint -> web client
-> page, plus a producer's Topic -> consumer and a test function in the radius."""

from __future__ import annotations

import pytest

from codegraph.core.graph_store import GraphStore
from codegraph.core.impact import impact
from codegraph.core.models import CALLS, CALLS_HTTP, CONSUMES, EXPOSES, PRODUCES, READS, WRITES
from tests.impact.builder import Graph, callers, entries


@pytest.fixture
def shop(store: GraphStore, repo: str) -> str:
    g = Graph(store, repo)
    orders = g.table("orders")
    get_ep, post_ep = g.endpoint("GET", "/orders/:id"), g.endpoint("POST", "/orders")
    created = g.topic("orders.created")
    db_get, db_save = g.sym("api/db.py", "api.db.get_order"), g.sym("api/db.py", "api.db.save_order")
    h_get, h_create = g.sym("api/routes.py", "api.routes.get_order"), g.sym("api/routes.py", "api.routes.create_order")
    load = g.sym("web/api.ts", "web/api.loadOrder")
    g.file("web/orders/page.tsx", route="/orders/:id")
    page = g.sym("web/orders/page.tsx", "web/orders/page.OrderPage")
    g.file("tests/test_db.py", is_test=True)
    test = g.sym("tests/test_db.py", "tests.test_db.test_get_order")
    worker = g.sym("worker.py", "worker.on_created")

    g.edge(READS, db_get, orders, "api/db.py", 3, "")
    g.edge(WRITES, db_save, orders, "api/db.py", 13, "")
    g.edge(CALLS, h_get, db_get, "api/routes.py", 4, "import")
    g.edge(EXPOSES, h_get, get_ep, "api/routes.py", 2, "")
    g.edge(CALLS, h_create, db_save, "api/routes.py", 14, "import")
    g.edge(EXPOSES, h_create, post_ep, "api/routes.py", 12, "")
    g.edge(PRODUCES, h_create, created, "api/routes.py", 15, "")
    g.edge(CONSUMES, worker, created, "worker.py", 1, "")
    g.edge(CALLS_HTTP, load, get_ep, "web/api.ts", 3, "exact", url="/orders/${id}")
    g.edge(CALLS, page, load, "web/orders/page.tsx", 5, "import")
    g.edge(CALLS, test, db_get, "tests/test_db.py", 2, "import")
    g.save()
    return repo


def test_table_reaches_handlers_clients_consumers_and_pages(store: GraphStore, shop: str) -> None:
    res = impact(store, "table:orders", repo=shop)
    assert callers(res) == {
        (1, READS, "api.db.get_order"),
        (1, WRITES, "api.db.save_order"),
        (2, CALLS, "api.routes.get_order"),
        (2, CALLS, "api.routes.create_order"),
        (2, CALLS, "tests.test_db.test_get_order"),
        (3, CALLS_HTTP, "web/api.loadOrder"),  # through GET /orders/:id, which get_order handles
        (3, CONSUMES, "worker.on_created"),  # through the topic create_order produces to
        (4, CALLS, "web/orders/page.OrderPage"),
    }
    assert entries(res) == {
        ("endpoint", "GET /orders/:id", 2),
        ("endpoint", "POST /orders", 2),
        ("consumer", "worker.on_created", 3),
        ("test", "tests.test_db.test_get_order", 2),
        ("page", "web/orders/page.tsx", 4),
    }
    assert [(p["route"], p["depth"], p["via"], p["evidence"]) for p in res.pages] == [
        ("/orders/:id", 4, "web/orders/page.OrderPage", "web/orders/page.tsx:5")]
    assert [(t["table"], sorted((a["by"], a["type"], a["file"], a["line"]) for a in t["access"]))
            for t in res.tables] == [
        ("orders", [("api.db.get_order", READS, "api/db.py", 3), ("api.db.save_order", WRITES, "api/db.py", 13)])]
    by_qn = {c.node.qualified_name: c for c in res.callers}
    assert by_qn["tests.test_db.test_get_order"].is_test and not by_qn["api.db.get_order"].is_test
    assert by_qn["api.routes.get_order"].path == ["api.routes.get_order", "api.db.get_order", "orders"]
    assert res.importers == [] and res.downstream == [] and res.unresolved == []


def test_include_tests_false_drops_test_callers(store: GraphStore, shop: str) -> None:
    res = impact(store, "table:orders", repo=shop, include_tests=False)
    assert "tests.test_db.test_get_order" not in {c.node.qualified_name for c in res.callers}
    assert len(res.callers) == 7
    assert "test" not in {e.kind for e in res.entry_points}


def test_endpoint_reaches_handler_clients_and_downstream_tables(store: GraphStore, shop: str) -> None:
    res = impact(store, 'endpoint:"GET /orders/:id"', repo=shop)
    assert callers(res) == {
        (1, EXPOSES, "api.routes.get_order"),
        (1, CALLS_HTTP, "web/api.loadOrder"),
        (2, CALLS, "web/orders/page.OrderPage"),
    }
    assert [(c.depth, c.node.qualified_name, c.path) for c in res.downstream] == [
        (1, "api.db.get_order", ["api.routes.get_order", "api.db.get_order"])]
    assert [(t["table"], [(a["by"], a["type"], a.get("downstream")) for a in t["access"]]) for t in res.tables] == [
        ("orders", [("api.db.get_order", READS, True)])]
    assert entries(res) == {("endpoint", "GET /orders/:id", 1), ("page", "web/orders/page.tsx", 2)}


def test_topic_reaches_producer_and_consumer(store: GraphStore, shop: str) -> None:
    res = impact(store, "topic:orders.created", repo=shop)
    assert callers(res) == {(1, PRODUCES, "api.routes.create_order"), (1, CONSUMES, "worker.on_created")}


def test_handler_reaches_clients_through_its_endpoint(store: GraphStore, shop: str) -> None:
    res = impact(store, "api.routes.get_order", repo=shop)
    assert callers(res) == {(1, CALLS_HTTP, "web/api.loadOrder"), (2, CALLS, "web/orders/page.OrderPage")}
    assert entries(res) == {("endpoint", "GET /orders/:id", 0), ("page", "web/orders/page.tsx", 2)}

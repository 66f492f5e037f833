"""The bundled full-stack sample of `make demo` (samples/fullstack): indexed, it shows
every boundary a newcomer should see first (endpoints, a table, pages, a CLI main), and
the Overview's "Start here" links each to its blast radius."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.impact import impact
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "fullstack"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    g, st = EmbeddedGraphStore(tmp_path / "graph.db"), StateStore(tmp_path / "state.db")
    try:
        index_repo(SAMPLE, "sample", g, None, st, workers=1)
    finally:
        st.close()
        g.close()
    return tmp_path


def test_table_orders_reaches_endpoints_pages_and_the_cli(home: Path) -> None:
    g = EmbeddedGraphStore(home / "graph.db")
    try:
        res = impact(g, "table:orders", repo="sample")
    finally:
        g.close()
    entries = {(e.kind, e.node.qualified_name) for e in res.entry_points}
    assert entries == {("endpoint", "GET /api/orders"), ("endpoint", "POST /api/orders"),
                       ("page", "web/app/orders/page.tsx"), ("page", "web/app/orders/new/page.tsx")}
    callers = {c.node.qualified_name for c in res.callers}
    assert {"api.repo.insert_order", "api.repo.list_orders", "api.cli.main", "web/lib/api.fetchOrders",
            "web/lib/api.createOrder"} <= callers
    assert sorted(p["route"] for p in res.pages) == ["/orders", "/orders/new"]


def test_overview_starts_with_endpoints_tables_and_pages(home: Path, point_at: Callable[..., None]) -> None:
    from tests.dashboard.conftest import open_app

    point_at(home)
    at = open_app()
    assert not at.exception, [e.value for e in at.exception]
    text = "\n".join(m.value for m in at.markdown)
    assert "[GET /api/orders](impact?target=endpoint%3AGET%20/api/orders)" in text
    assert "[orders](impact?target=table%3Aorders)" in text
    assert "[/orders/new (web/app/orders/new/page.tsx)](impact?target=file%3Aweb/app/orders/new/page.tsx)" in text

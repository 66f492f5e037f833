"""Name-aware imports through barrels: index.ts re-exports formatMoney from money.ts
and everything of dates.ts; all.ts is ``export * from './money'``. An importer counts
only when it imports a reached name (or ``*``: a side-effect import)."""

from __future__ import annotations

import pytest

from codegraph.core.graph_store import GraphStore
from codegraph.core.impact import impact
from codegraph.core.models import CALLS, IMPORTS
from tests.impact.builder import Graph, callers, entries, importers

FM, PM, FD = "src/money.formatMoney", "src/money.parseMoney", "src/dates.formatDate"


@pytest.fixture
def web(store: GraphStore, repo: str) -> str:
    g = Graph(store, repo)
    g.sym("src/money.ts", FM)
    parse_money = g.sym("src/money.ts", PM)
    g.sym("src/dates.ts", FD)
    money, dates = g.file("src/money.ts"), g.file("src/dates.ts")
    index, every = g.file("src/index.ts"), g.file("src/all.ts")
    invoice = g.file("pages/invoice.tsx", route="/invoice")
    calendar = g.file("pages/calendar.tsx", route="/calendar")
    parse, star, side = g.file("pages/parse.tsx"), g.file("pages/star.tsx", route="/star"), g.file("pages/side.tsx")

    g.edge(IMPORTS, index, money, "src/index.ts", 1, "import", names=["formatMoney"], forwarding=True,
           symbols={"formatMoney": [FM]})
    g.edge(IMPORTS, index, dates, "src/index.ts", 2, "import", names=["*"], forwarding=True)
    g.edge(IMPORTS, every, money, "src/all.ts", 1, "import", names=["*"], forwarding=True)
    g.edge(IMPORTS, invoice, index, "pages/invoice.tsx", 1, "import", names=["formatMoney"],
           symbols={"formatMoney": [FM]})
    g.edge(IMPORTS, calendar, index, "pages/calendar.tsx", 1, "import", names=["formatDate"],
           symbols={"formatDate": [FD]})
    g.edge(IMPORTS, parse, money, "pages/parse.tsx", 1, "import", names=["parseMoney"], symbols={"parseMoney": [PM]})
    g.edge(IMPORTS, star, every, "pages/star.tsx", 1, "import", names=["formatMoney"])
    g.edge(IMPORTS, side, money, "pages/side.tsx", 1, "import", names=["*"])  # import './money'
    page = g.sym("pages/invoice.tsx", "pages/invoice.Invoice")
    g.edge(CALLS, page, g.uid_of(FM), "pages/invoice.tsx", 4, "import")
    g.edge(CALLS, g.sym("pages/parse.tsx", "pages/parse.Parse"), parse_money, "pages/parse.tsx", 3, "import")
    g.save()
    return repo


def test_symbol_target_lists_importers_of_the_reached_name(store: GraphStore, web: str) -> None:
    res = impact(store, FM, repo=web)
    assert callers(res) == {(1, CALLS, "pages/invoice.Invoice")}
    assert importers(res) == {
        (1, "src/index.ts"),  # re-exports formatMoney
        (1, "src/all.ts"),  # export * from './money'
        (1, "pages/side.tsx"),  # a side-effect import runs the module
        (2, "pages/invoice.tsx"),  # formatMoney through the index barrel
        (2, "pages/star.tsx"),  # formatMoney through the export-* barrel
    }  # not calendar.tsx (formatDate from the same barrel) nor parse.tsx (parseMoney only)
    assert [(p["route"], p["depth"], p["via"], p["evidence"]) for p in res.pages] == [
        ("/invoice", 1, "pages/invoice.Invoice", "pages/invoice.tsx:4"),
        ("/star", 2, "pages/star.tsx", "pages/star.tsx:1")]
    assert entries(res) == {("page", "pages/invoice.tsx", 1), ("page", "pages/star.tsx", 2)}


def test_file_target_counts_every_importer_as_a_caller(store: GraphStore, web: str) -> None:
    res = impact(store, "file:src/money.ts", repo=web)
    assert callers(res) == {
        (1, CALLS, "pages/invoice.Invoice"),
        (1, CALLS, "pages/parse.Parse"),
        (1, IMPORTS, "src/index.ts"),
        (1, IMPORTS, "src/all.ts"),
        (1, IMPORTS, "pages/parse.tsx"),
        (1, IMPORTS, "pages/side.tsx"),
        (2, IMPORTS, "pages/invoice.tsx"),
        (2, IMPORTS, "pages/star.tsx"),
    }  # calendar.tsx imports formatDate only: still not reached
    assert res.importers == []


def test_depth_one_stops_before_the_barrels_importers(store: GraphStore, web: str) -> None:
    res = impact(store, FM, repo=web, depth=1)
    assert importers(res) == {(1, "src/index.ts"), (1, "src/all.ts"), (1, "pages/side.tsx")}


def test_without_imports_no_importers(store: GraphStore, web: str) -> None:
    res = impact(store, FM, repo=web, edge_types=[CALLS])
    assert callers(res) == {(1, CALLS, "pages/invoice.Invoice")}
    assert res.importers == []

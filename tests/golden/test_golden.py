"""Golden answers: the Markdown a user or an agent reads for impact, callers and search,
on the fixed fixture tests/fixtures/golden_shop, compared with the snapshots beside this
file. A change to them must be intentional: `pytest tests/golden --update-golden`
rewrites them, and the diff is reviewed with the change.

Only what differs between two runs is masked (milliseconds, import time, age, the temp
path); everything else is compared byte for byte. Search runs BM25-only (no model) so the
ranking does not depend on the CPU's int8 arithmetic.
"""

from __future__ import annotations

import asyncio
import difflib
import re
from pathlib import Path
from typing import Any

import pytest

from codegraph.core.impact import callers, impact
from codegraph.core.report import impact_markdown
from codegraph.core.settings import Settings
from codegraph.core.stores import open_graph_store
from tests.golden_shop import index_golden

GOLDEN = Path(__file__).parent
MASKS = [
    (re.compile(r"\d+(\.\d+)? ms"), "<ms> ms"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(\+00:00|Z)?"), "<time>"),
    (re.compile(r"\(\d+(\.\d+)? h old\)"), "(<age> h old)"),
]


def masked(text: str, tmp: Path) -> str:
    text = text.replace(str(tmp), "<tmp>")
    for rx, repl in MASKS:
        text = rx.sub(repl, text)
    return text


@pytest.fixture(scope="module")
def golden_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, Path]:
    tmp = tmp_path_factory.mktemp("golden")
    return index_golden(tmp), tmp


def check(request: pytest.FixtureRequest, name: str, text: str) -> None:
    path = GOLDEN / f"{name}.md"
    if request.config.getoption("--update-golden"):
        path.write_text(text, encoding="utf-8")
        return
    assert path.is_file(), f"no golden answer {path.name}: run `pytest tests/golden --update-golden`"
    want = path.read_text(encoding="utf-8")
    if text != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), text.splitlines(True), f"golden/{path.name}",
                                            "now"))
        pytest.fail(f"answer changed; if intended, run `pytest tests/golden --update-golden`\n{diff}",
                    pytrace=False)


def _mcp_text(settings: Settings, tool: str, args: dict[str, Any]) -> str:
    from codegraph.mcp_server import build_server

    res = asyncio.run(build_server(settings).call_tool(tool, args))
    assert not res.is_error, res.content
    return res.content[0].text + "\n"


@pytest.mark.parametrize(("name", "tool", "args"), [
    ("mcp_impact_save_order", "impact", {"target": "shop.repo.save_order", "depth": 3}),
    ("mcp_impact_free_text", "impact", {"target": "persist an order", "depth": 2}),
    ("mcp_callers_save_order", "callers", {"target": "save_order"}),
    ("mcp_impact_table_orders", "table", {"name": "orders", "depth": 2}),
    ("mcp_endpoint_get_order", "endpoint", {"path": "/api/orders/:order_id", "method": "GET"}),
    ("mcp_search_persist_order", "search", {"query": "persist an order in the database", "limit": 3}),
])
def test_mcp_markdown(request: pytest.FixtureRequest, golden_home: tuple[Settings, Path], name: str, tool: str,
                      args: dict[str, Any]) -> None:
    settings, tmp = golden_home
    check(request, name, masked(_mcp_text(settings, tool, args), tmp))


@pytest.mark.parametrize(("name", "target", "depth"), [
    ("recheck_impact_place", "OrderService.place", 5),
    ("recheck_impact_table_orders", "table:orders", 3),
])
def test_recheck_list_markdown(request: pytest.FixtureRequest, golden_home: tuple[Settings, Path], name: str,
                               target: str, depth: int) -> None:
    settings, tmp = golden_home
    graph = open_graph_store(settings)
    try:
        text = impact_markdown(impact(graph, target, depth=depth))
    finally:
        graph.close()
    check(request, name, masked(text, tmp))


def test_recheck_list_of_direct_callers(request: pytest.FixtureRequest, golden_home: tuple[Settings, Path]) -> None:
    settings, tmp = golden_home
    graph = open_graph_store(settings)
    try:
        text = impact_markdown(callers(graph, "validate"))
    finally:
        graph.close()
    check(request, "recheck_callers_validate", masked(text, tmp))

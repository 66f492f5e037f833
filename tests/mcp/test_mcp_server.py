"""The MCP server driven by the SDK's own client over stdio (``codegraph mcp`` as a
subprocess) on an indexed fixture in a temp CODEGRAPH_HOME.

One session makes every call (starting the server costs about a second); the tests then
check the recorded answers. Answers are compared with the core's own ``impact()`` so the
server is shown to be a faithful face, plus fixed anchors from the fixture.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from codegraph.core.figures import figures
from codegraph.core.impact import impact
from codegraph.core.models import CALLS_HTTP, ENDPOINT, EXPOSES, READS, TABLE, Edge, Node, endpoint_uid, table_uid
from codegraph.core.settings import load_settings
from codegraph.core.stores import open_graph_store, open_search_index
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore

FIXTURE = Path(__file__).parents[1] / "audit" / "fixture_repo"
TOOLS = {"search", "callers", "impact", "table", "endpoint", "stats", "freshness"}
ANSWER_KEYS = {"tool", "items", "total", "shown", "offset", "limit", "next_offset", "truncated", "freshness",
               "notice", "steps"}


def _git(root: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def _env(home: Path) -> dict[str, str]:
    return {"CODEGRAPH_HOME": str(home), "CODEGRAPH_GRAPH": "embedded", "CODEGRAPH_SEARCH": "embedded",
            "CODEGRAPH_EMBED_MODEL_PATH": "none"}


def _server(env: dict[str, str], cwd: Path) -> StdioServerParameters:
    # Same as the `codegraph mcp` console script, without depending on where it is installed.
    return StdioServerParameters(command=sys.executable, args=["-c", "from codegraph.cli import app; app()", "mcp"],
                                 env=env, cwd=str(cwd))


def _build(base: Path) -> tuple[Path, Path]:
    """Index the fixture (git checkout) into base/home; add one table and one endpoint
    through the GraphStore API (no framework extractor emits them yet)."""
    root, home = base / "src", base / "home"
    shutil.copytree(FIXTURE, root)
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "fixture")
    os.environ.update(_env(home))
    try:
        settings = load_settings()
        graph, search = open_graph_store(settings), open_search_index(settings)
        state = StateStore(settings.state_db)
        index_repo(root, "fx", graph, search, state, workers=1)
        state.close()
        direct = graph.symbols_by_qualified_name(["pkg.use.direct"], "fx")["pkg.use.direct"][0]
        external = graph.symbols_by_qualified_name(["pkg.use.external"], "fx")["pkg.use.external"][0]
        graph.upsert_nodes([
            Node(table_uid("fx", "orders"), TABLE, {"repo": "fx", "name": "orders"}),
            Node(endpoint_uid("fx", "GET", "/api/save/:id"), ENDPOINT,
                 {"repo": "fx", "method": "GET", "path_template": "/api/save/:id", "framework": "test"}),
        ])
        graph.replace_edges("fx", ["sql/evidence.sql"], [
            Edge(READS, direct.uid, table_uid("fx", "orders"), "sql/evidence.sql", 3, "exact"),
            Edge(EXPOSES, direct.uid, endpoint_uid("fx", "GET", "/api/save/:id"), "sql/evidence.sql", 5, "exact"),
            Edge(CALLS_HTTP, external.uid, endpoint_uid("fx", "GET", "/api/save/:id"), "sql/evidence.sql", 7, "exact",
                 {"url": "/api/save/1"}),
        ])
        graph.close()
        search.close()
    finally:
        for k in _env(home):
            os.environ.pop(k, None)
    return root, home


def _graph(home: Path) -> Any:
    from codegraph.core.embedded_graph import EmbeddedGraphStore

    return EmbeddedGraphStore(home / "graph.db")


CALLS_TO_MAKE: list[tuple[str, str, dict[str, Any]]] = [
    ("callers", "callers", {"target": "pkg.store.Store.save"}),
    ("impact_all", "impact", {"target": "helper", "depth": 3, "limit": 500}),
    ("impact_p1", "impact", {"target": "helper", "depth": 3, "limit": 2, "offset": 0}),
    ("impact_p2", "impact", {"target": "helper", "depth": 3, "limit": 2, "offset": 2}),
    ("impact_p3", "impact", {"target": "helper", "depth": 3, "limit": 2, "offset": 4}),
    ("impact_p4", "impact", {"target": "helper", "depth": 3, "limit": 2, "offset": 6}),
    ("impact_base", "impact", {"target": "pkg.store.Base.step", "depth": 2}),
    ("search", "search", {"query": "helper", "limit": 3}),
    ("search_p2", "search", {"query": "helper", "limit": 3, "offset": 3}),
    ("tables", "table", {}),
    ("table", "table", {"name": "orders"}),
    ("endpoints", "endpoint", {}),
    ("endpoint", "endpoint", {"path": "/api/save/{id}", "method": "get"}),
    ("stats", "stats", {"repo": "fx"}),
    ("freshness", "freshness", {}),
    ("err_target", "callers", {"target": "no_such_symbol"}),
    ("err_edge", "impact", {"target": "helper", "edge_types": ["NOPE"]}),
    ("err_repo", "stats", {"repo": "nope"}),
    ("err_table", "table", {"name": "customers"}),
]


@pytest.fixture(scope="module")
def session_log(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("mcpfx")
    root, home = _build(base)
    g = _graph(home)
    before = g.counts()
    core = {"helper": impact(g, "helper", depth=3, limit=500), "save": impact(g, "pkg.store.Store.save", depth=1,
                                                                              edge_types=["CALLS"]),
            "table": impact(g, "table:orders", depth=1), "endpoint": impact(g, "endpoint:GET /api/save/:id", depth=2)}
    g.close()
    log: dict[str, Any] = {"root": root, "home": home, "core": core, "before": before}

    async def run() -> None:
        with anyio.fail_after(120):
            # Started inside the checkout, as an agent's client would: freshness compares with it.
            async with stdio_client(_server(_env(home), root)) as (r, w), ClientSession(r, w) as s:
                init = await s.initialize()
                log["init"] = init
                log["tools"] = (await s.list_tools()).tools
                for label, tool, args in CALLS_TO_MAKE:
                    log[label] = await s.call_tool(tool, args)
                # A commit that changes a file the graph has: the checkout moved past the graph.
                moved = sorted(root.rglob("*.py"))[0]
                moved.write_text(moved.read_text() + "\n# moved on\n")
                _git(root, "commit", "-qam", "moved on")
                log["freshness_after_commit"] = await s.call_tool("freshness", {"repo": "fx"})

    anyio.run(run)
    g = _graph(home)
    log["after"] = g.counts()
    g.close()
    return log


def _ok(res: Any, tool: str) -> tuple[dict[str, Any], str]:
    """Common shape of every answer; returns (structured, markdown)."""
    assert not res.is_error, res.content[0].text
    data = res.structured_content
    assert set(data) >= ANSWER_KEYS, ANSWER_KEYS - set(data)
    assert data["tool"] == tool
    text = res.content[0].text
    lines = text.rstrip().splitlines()
    assert lines[-1].startswith("**Steps:**") and " ms" in lines[-1] and "total" in lines[-1]
    assert [s["name"] for s in data["steps"]] and all(isinstance(s["ms"], float | int) for s in data["steps"])
    assert "**Totals:**" in text and "**Freshness:**" in text and f"**Note:** {data['notice']}" in text
    assert data["notice"]
    return data, text


def test_tools_listed_with_descriptions_schemas_and_read_only_hints(session_log: dict[str, Any]) -> None:
    tools = {t.name: t for t in session_log["tools"]}
    assert set(tools) == TOOLS  # no raw query / write tool exists
    for t in tools.values():
        assert t.annotations.read_only_hint is True and t.annotations.destructive_hint is False
        assert len(t.description) > 150, t.name
        assert t.output_schema and set(t.output_schema["properties"]) >= ANSWER_KEYS
    for name in ("search", "callers", "impact", "table", "endpoint"):
        assert {"limit", "offset"} <= set(tools[name].input_schema["properties"]), name
    assert "grep" in tools["impact"].description and "unresolved" in tools["impact"].description
    assert "before changing" in tools["impact"].description
    # Both texts name the default edge set from its one definition (CONSUMES was missing from a copy).
    from codegraph.core.models import CALLER_EDGES

    assert ", ".join(CALLER_EDGES) in tools["impact"].description
    assert ", ".join(CALLER_EDGES) in tools["impact"].input_schema["properties"]["edge_types"]["description"]
    assert "impact" in session_log["init"].instructions


def test_callers_structure_and_content(session_log: dict[str, Any]) -> None:
    data, text = _ok(session_log["callers"], "callers")
    core = session_log["core"]["save"]
    assert [c["qualified_name"] for c in data["items"]] == [c.node.qualified_name for c in core.callers] \
        == ["pkg.use.direct"]
    assert data["items"][0]["evidence"] == "pkg/use.py:9" and data["items"][0]["resolution"] == "receiver_type"
    assert (data["total"], data["shown"], data["next_offset"], data["truncated"]) == (1, 1, None, False)
    assert data["unresolved"] == [{"target_identifier": "save", "reason": "ambiguous", "references": 1}]
    assert "| 1 | `pkg.use.direct` | pkg/use.py:9 | CALLS | receiver_type |" in text
    assert "grep for the name" in text and "callers 1-1 of 1; nothing more" in text
    assert data["freshness"][0]["repo"] == "fx" and data["freshness"][0]["commit"]


def test_impact_pages_through_the_whole_radius(session_log: dict[str, Any]) -> None:
    full, _ = _ok(session_log["impact_all"], "impact")
    core = session_log["core"]["helper"]
    names = [c["qualified_name"] for c in full["items"]]
    assert names == [c.node.qualified_name for c in core.callers]
    assert {"pkg.use.aliased", "pkg.use.fstring", "pkg.use", "pkg.gen_pb2.generated",
            "tests.checks.check_helper"} == set(names)
    assert full["total"] == len(names) == 5  # IMPORTS edges point at files, not at the function
    assert [c["is_test"] for c in full["items"]].count(True) == 1
    assert [e["qualified_name"] for e in full["entry_points"] if e["kind"] == "test"] == ["tests.checks.check_helper"]
    pages = [_ok(session_log[k], "impact")[0] for k in ("impact_p1", "impact_p2", "impact_p3", "impact_p4")]
    assert [p["shown"] for p in pages] == [2, 2, 1, 0]
    assert [p["next_offset"] for p in pages] == [2, 4, None, None]
    assert [p["truncated"] for p in pages] == [True, True, False, False]
    assert all(p["total"] == 5 for p in pages)
    assert [c["qualified_name"] for p in pages for c in p["items"]] == names
    assert "callers 5-5 of 5; nothing more" in session_log["impact_p3"].content[0].text
    assert "no callers on this page (offset 6; 5 in total)" in session_log["impact_p4"].content[0].text
    assert "more exist: call again with offset=2" in session_log["impact_p1"].content[0].text


def test_impact_depth_two_paths(session_log: dict[str, Any]) -> None:
    data, _ = _ok(session_log["impact_base"], "impact")
    # Base.step <- Base.run and Sibling.go (self calls; Sibling overrides nothing),
    # Child2.step (super()) and Child3.step (Base.step(self)); nobody calls those.
    assert [(c["qualified_name"], c["depth"], c["path"]) for c in data["items"]] == [
        ("pkg.more.Child2.step", 1, ["pkg.more.Child2.step", "pkg.store.Base.step"]),
        ("pkg.more.Child3.step", 1, ["pkg.more.Child3.step", "pkg.store.Base.step"]),
        ("pkg.more.Sibling.go", 1, ["pkg.more.Sibling.go", "pkg.store.Base.step"]),
        ("pkg.store.Base.run", 1, ["pkg.store.Base.run", "pkg.store.Base.step"])]


def test_search_is_paged_and_bm25_only_without_model(session_log: dict[str, Any]) -> None:
    p1, text = _ok(session_log["search"], "search")
    p2, _ = _ok(session_log["search_p2"], "search")
    assert p1["mode"] == "bm25-only" and "BM25-only" in p1["mode_reason"]
    assert p1["total"] is None and p1["shown"] == 3 and p1["next_offset"] == 3
    assert p1["items"][0]["qualified_name"] == "pkg.store.helper" and p1["items"][0]["line"] == 33
    assert [i["rank"] for i in p2["items"]] == [4, 5, 6]
    assert not {i["qualified_name"] for i in p1["items"]} & {i["qualified_name"] for i in p2["items"]}
    assert "`pkg.store.helper` (code: function) — pkg/store.py:33" in text and "open-ended" in text
    assert p1["items"][0]["content"] == "code" and "callers" in p1["items"][0]["context"]


def test_table_and_endpoint(session_log: dict[str, Any]) -> None:
    tables, _ = _ok(session_log["tables"], "table")
    assert tables["total"] == 1 and tables["items"][0]["name"] == "orders"
    data, text = _ok(session_log["table"], "table")
    assert [(c["qualified_name"], c["via"], c["evidence"]) for c in data["items"]] == [
        ("pkg.use.direct", "READS", "sql/evidence.sql:3")]
    assert [c["qualified_name"] for c in data["items"]] == [
        c.node.qualified_name for c in session_log["core"]["table"].callers]
    eps, _ = _ok(session_log["endpoints"], "endpoint")
    assert eps["total"] == 1 and eps["items"][0]["path_template"] == "/api/save/:id"
    ep, _ = _ok(session_log["endpoint"], "endpoint")  # {id} and lower-case method are accepted
    got = {(c["qualified_name"], c["via"]) for c in ep["items"]}
    assert got == {(c.node.qualified_name, c.via) for c in session_log["core"]["endpoint"].callers}
    assert {("pkg.use.direct", "EXPOSES"), ("pkg.use.external", "CALLS_HTTP")} <= got


def test_stats_and_freshness(session_log: dict[str, Any]) -> None:
    data, text = _ok(session_log["stats"], "stats")
    assert data["graph"]["languages"] == {"python": 6} and data["graph"]["nodes"]["Symbol"] == 50
    assert data["search"]["chunks"] > 0 and data["complete"] is True
    g = _graph(session_log["home"])
    try:  # one definition of each figure: the same numbers as the dashboard and `codegraph stats`
        assert data["figures"] == figures(g, "fx").to_dict()
    finally:
        g.close()
    assert f"unresolved stubs: {data['figures']['stubs']}" in text
    assert "complete answer" in text and "python 6" in text
    fr, text = _ok(session_log["freshness"], "freshness")
    head = _git(session_log["root"], "rev-parse", "HEAD~1")
    assert [(r["repo"], r["commit"], r["checkout_head"], r["stale"]) for r in fr["items"]] == [("fx", head, head, False)]
    assert "matches the checkout" in text
    after, text = _ok(session_log["freshness_after_commit"], "freshness")
    assert after["items"][0]["stale"] is True and after["items"][0]["checkout_head"] != head
    assert after["items"][0]["checkout"]["matches_graph"] is False
    assert "STALE" in text and "working checkout" in text


def test_errors_are_tool_errors_with_one_line(session_log: dict[str, Any]) -> None:
    for label, needle in [("err_target", "nothing in the graph matches 'no_such_symbol'"),
                          ("err_edge", "unknown edge type(s) NOPE"), ("err_repo", "no repository named 'nope'"),
                          ("err_table", "nothing in the graph matches 'table:customers'")]:
        res = session_log[label]
        assert res.is_error, label
        text = res.content[0].text
        assert text.startswith("error: ") and needle in text and "\n" not in text, text


def test_server_never_writes(session_log: dict[str, Any]) -> None:
    assert session_log["after"] == session_log["before"]


def test_store_down_is_a_tool_error_and_the_server_keeps_serving(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    env = _env(blocker / "home")  # the graph cannot be created under a regular file
    out: dict[str, Any] = {}

    async def run() -> None:
        with anyio.fail_after(60):
            async with stdio_client(_server(env, tmp_path)) as (r, w), ClientSession(r, w) as s:
                await s.initialize()
                out["first"] = await s.call_tool("impact", {"target": "helper"})
                out["second"] = await s.call_tool("stats", {})

    anyio.run(run)
    for res in out.values():
        assert res.is_error
        text = res.content[0].text
        assert text.startswith("error: store unavailable: cannot open the embedded graph") and "\n" not in text
        assert "CODEGRAPH_HOME" in text

"""The MCP server and the audit on the server backends (Neo4j + Elasticsearch started by
`make services`): same fixture, same answers as on the embedded stores. The servers are
shared, so the fixture goes in under a fresh repo name that is deleted afterwards."""

from __future__ import annotations

import shutil
import sys
import uuid
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from codegraph.audit import audit
from codegraph.core.errors import StoreUnavailable
from codegraph.core.stores import open_graph_store, open_search_index
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore
from tests.services import service_settings, skip_or_fail

FIXTURE = Path(__file__).parents[1] / "audit" / "fixture_repo"

pytestmark = pytest.mark.services


def test_mcp_and_audit_on_neo4j_and_elasticsearch(tmp_path: Path) -> None:
    settings = service_settings()
    if not settings.graph.startswith(("bolt://", "neo4j://")) or not settings.search.startswith("http"):
        skip_or_fail("Neo4j / Elasticsearch not configured (run `make services`)")
    try:
        graph, search = open_graph_store(settings), open_search_index(settings)
    except StoreUnavailable as e:
        skip_or_fail(f"service unreachable: {e}")
        raise
    repo = f"mcp-{uuid.uuid4().hex[:10]}"
    root = tmp_path / "src"
    shutil.copytree(FIXTURE, root)
    try:
        state = StateStore(tmp_path / "state.db")
        index_repo(root, repo, graph, search, state, workers=1)
        state.close()

        save = {c.target: c for c in audit(graph, ["pkg.store.Store.save"], repo=repo).callables}["pkg.store.Store.save"]
        assert (save.expected, save.actual, save.matched) == (5, 1, 1)
        assert {(d.caller, d.verdict, d.category) for d in save.missed} == {
            ("pkg.use.collision", "text_false_positive", "name collision"),
            ("pkg.use.untyped", "flagged", "ambiguous stub"),
            ("pkg.use.builtin_recv", "text_false_positive", "skipped by design (builtin value or builtin method name)"),
            ("pkg.more.qualified", "text_false_positive", "qualified call names another owner")}

        # The server reads the same services.env as this test; only its home differs.
        env = {"CODEGRAPH_HOME": str(tmp_path / "home"), "CODEGRAPH_EMBED_MODEL_PATH": "none"}
        params = StdioServerParameters(command=sys.executable, env=env, cwd=str(tmp_path),
                                       args=["-c", "from codegraph.cli import app; app()", "mcp"])
        out: dict[str, Any] = {}

        async def run() -> None:
            with anyio.fail_after(120):
                async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
                    await s.initialize()
                    out["callers"] = await s.call_tool("callers", {"target": "pkg.store.Store.save", "repo": repo})
                    out["search"] = await s.call_tool("search", {"query": "helper", "repo": repo})
                    out["stats"] = await s.call_tool("stats", {"repo": repo})

        anyio.run(run)
        for res in out.values():
            assert not res.is_error, res.content[0].text
        callers = out["callers"].structured_content
        assert [(c["qualified_name"], c["evidence"], c["resolution"]) for c in callers["items"]] == [
            ("pkg.use.direct", "pkg/use.py:9", "receiver_type")]
        assert callers["unresolved"] == [{"target_identifier": "save", "reason": "ambiguous", "references": 1}]
        assert "pkg.store.helper" in {h["qualified_name"] for h in out["search"].structured_content["items"]}
        stats = out["stats"].structured_content
        assert stats["graph_backend"] == "neo4j" and stats["graph"]["languages"] == {"python": 6}
    finally:
        graph.delete_repo(repo)
        search.delete_repo(repo)
        graph.close()
        search.close()

"""Workspace scope through the faces (docs/DESIGN.md#workspaces): `codegraph refresh`
links the fixture workspace from its codegraph.toml; `impact`, `callers`, `search` and
the MCP tools answer for the workspace's repositories and say each node's repo."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from typer.testing import CliRunner

from codegraph.cli import app

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "workspace"


@pytest.fixture(scope="module")
def estate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("wsscope")
    root, home = base / "estate", base / "home"
    shutil.copytree(FIXTURE, root)
    mp = _env(home)
    try:
        r = CliRunner().invoke(app, ["refresh", "--config", str(root / "codegraph.toml"), "--no-embed"])
        assert r.exit_code == 0, r.output
        assert "cross-repo links for 4 repo(s): http 3, kafka 4, library 4; 1 ambiguous" in " ".join(r.output.split())
    finally:
        mp.undo()
    return root, home


def _env(home: Path) -> pytest.MonkeyPatch:
    # Module-scoped: set before the suite's per-test isolation, so every variable is explicit.
    mp = pytest.MonkeyPatch()
    for k, v in {"CODEGRAPH_HOME": str(home), "CODEGRAPH_GRAPH": "embedded", "CODEGRAPH_SEARCH": "embedded",
                 "CODEGRAPH_EMBED_MODEL_PATH": "none"}.items():
        mp.setenv(k, v)
    return mp


def _cli(home: Path, *args: str) -> Any:
    mp = _env(home)
    try:
        return CliRunner().invoke(app, list(args))
    finally:
        mp.undo()


def test_impact_with_a_workspace_scope_lists_callers_per_repo(estate: tuple[Path, Path]) -> None:
    _, home = estate
    r = _cli(home, "impact", "moneylib.cents.to_cents", "--workspace", "payments", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    # charge calls it; the web client calls charge over HTTP; the ledger consumes what charge produces
    assert {(c["node"]["repo"], c["node"]["qualified_name"]) for c in data["callers"]} == {
        ("pay-api", "payapi.routes.charge"), ("web-client", "src/api.charge"),
        ("ledger", "com.acme.ledger.LedgerListener.onPayment")}
    assert data["by_repo"] == {"pay-api": 1, "web-client": 1, "ledger": 1}
    callers = json.loads(_cli(home, "callers", "moneylib.cents.to_cents", "-w", "payments", "--json").output)
    assert [(c["node"]["repo"], c["node"]["qualified_name"], c["resolution"]) for c in callers["callers"]] == [
        ("pay-api", "payapi.routes.charge", "cross_repo")]


def test_a_one_repo_scope_inside_the_workspace_leaves_other_repos_out(estate: tuple[Path, Path]) -> None:
    _, home = estate
    r = _cli(home, "impact", "moneylib.cents.to_cents", "--repo", "money-lib", "--json")
    assert r.exit_code == 0, r.output
    assert {c["node"]["repo"] for c in json.loads(r.output)["callers"]} >= {"pay-api"}  # the walk crosses repos


def test_unknown_workspace_is_one_line(estate: tuple[Path, Path]) -> None:
    _, home = estate
    r = _cli(home, "impact", "moneylib.cents.to_cents", "--workspace", "nope")
    assert r.exit_code == 2
    assert r.output.strip().splitlines() == ["error: no workspace named 'nope' (known: payments)"]


def test_search_with_a_workspace_scope(estate: tuple[Path, Path]) -> None:
    _, home = estate
    r = _cli(home, "search", "cents", "--workspace", "payments", "--json")
    assert r.exit_code == 0, r.output
    hits = json.loads(r.output)["hits"]
    assert {h["repo"] for h in hits} >= {"money-lib", "pay-api"}


def test_workspace_list(estate: tuple[Path, Path]) -> None:
    root, home = estate
    r = _cli(home, "workspace", "list", "--json")
    assert r.exit_code == 0, r.output
    (ws,) = json.loads(r.output)
    rows = {x["repo"]: x for x in ws["repos"]}
    assert rows["web-client"]["edges_out"] == {"http": 3, "kafka": 1}
    assert rows["web-client"]["unmatched_http"] == 1
    assert rows["money-lib"]["provides"] == ["moneylib"] and "pypi:money-lib" in rows["money-lib"]["identity"]
    assert rows["ledger"]["identity"] == ["maven:com.acme:ledger"]
    assert sorted((lk["from"], lk["to"], lk["kind"], lk["count"]) for lk in ws["links"]) == [
        ("ledger", "pay-api", "kafka", 1), ("ledger", "web-client", "kafka", 1),
        ("pay-api", "ledger", "kafka", 1), ("pay-api", "money-lib", "library", 4),
        ("web-client", "ledger", "kafka", 1), ("web-client", "pay-api", "http", 3)]


def test_mcp_tools_take_a_workspace(estate: tuple[Path, Path]) -> None:
    root, home = estate
    env = {"CODEGRAPH_HOME": str(home), "CODEGRAPH_GRAPH": "embedded", "CODEGRAPH_SEARCH": "embedded",
           "CODEGRAPH_EMBED_MODEL_PATH": "none"}
    params = StdioServerParameters(command=sys.executable, args=["-c", "from codegraph.cli import app; app()", "mcp"],
                                   env=env, cwd=str(root))
    out: dict[str, Any] = {}

    async def run() -> None:
        with anyio.fail_after(120):
            async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
                await s.initialize()
                out["impact"] = await s.call_tool("impact", {"target": "moneylib.cents.to_cents",
                                                             "workspace": "payments"})
                out["endpoints"] = await s.call_tool("endpoint", {"workspace": "payments"})
                out["stats"] = await s.call_tool("stats", {"workspace": "payments"})
                out["topic"] = await s.call_tool("impact", {"target": "topic:payments", "workspace": "payments",
                                                            "depth": 1})
                out["bad"] = await s.call_tool("callers", {"target": "x", "workspace": "nope"})

    anyio.run(run)
    imp = out["impact"].structured_content
    assert {c["repo"] for c in imp["items"]} == {"pay-api", "web-client", "ledger"}
    assert imp["by_repo"] == {"pay-api": 1, "web-client": 1, "ledger": 1}
    eps = out["endpoints"].structured_content
    assert sorted((e["repo"], e["method"], e["path_template"]) for e in eps["items"]) == [
        ("ledger", "GET", "/health"), ("pay-api", "GET", "/health"), ("pay-api", "GET", "/pay/list"),
        ("pay-api", "POST", "/pay/charge")]
    assert sorted(it["repo"] for it in out["stats"].structured_content["items"]) == sorted(
        ["money-lib", "pay-api", "web-client", "ledger"])
    topic = out["topic"].structured_content
    assert {(c["repo"], c["qualified_name"]) for c in topic["items"]} >= {
        ("pay-api", "payapi.routes.charge"), ("ledger", "com.acme.ledger.LedgerListener.onPayment")}
    assert out["bad"].is_error


def test_index_with_a_broken_config_keeps_the_index_and_says_why(tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(FIXTURE / "money-lib", src)
    cfg = tmp_path / "codegraph.toml"
    cfg.write_text('[[repos]]\nname = "lib"\npath = "src"\n\n[[workspaces]]\nname = "w"\n', encoding="utf-8")
    mp = _env(tmp_path / "home")
    mp.setenv("CODEGRAPH_CONFIG", str(cfg))
    try:
        r = CliRunner().invoke(app, ["index", str(src), "--repo", "lib", "--no-embed", "--json"])
    finally:
        mp.undo()
    assert r.exit_code == 0, r.output
    messages = json.loads(r.output)["summary"]["messages"]
    assert any(m.startswith("cross-repo links not updated: ") and "workspaces entry 1 needs a name and a non-empty"
               in m for m in messages), messages


def test_search_limit_is_the_same_option_as_k(estate: tuple[Path, Path]) -> None:
    # callers and impact page with --limit; search takes the same word beside -k
    _, home = estate
    wide = json.loads(_cli(home, "search", "cents", "--workspace", "payments", "--json").output)["hits"]
    assert len(wide) > 1
    for flag in ("--limit", "-k"):
        r = _cli(home, "search", "cents", "--workspace", "payments", flag, "1", "--json")
        assert r.exit_code == 0, r.output
        assert json.loads(r.output)["hits"] == wide[:1]

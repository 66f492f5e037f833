"""Naming one overload by its parameter types in every face: core ``callers``/``impact``,
the CLI, MCP and the dashboard's target strings; the bare name still means every overload."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import anyio
import pytest
from typer.testing import CliRunner

from codegraph.cli import app
from codegraph.core.errors import TargetNotFound
from codegraph.core.impact import callers, impact
from codegraph.core.settings import load_settings
from codegraph.core.stores import open_graph_store
from codegraph.dashboard.impact_view import candidates, targets_for
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore
from codegraph.mcp_server import build_server

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "overloads" / "java"
EVERY = ["app.Use.reals", "app.Use.three", "app.Use.two", "app.Use.typed", "app.Use.unknown", "app.Use.words"]


@pytest.fixture()
def indexed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = tmp_path / "calc"
    shutil.copytree(FIX, root)
    monkeypatch.setenv("CODEGRAPH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CODEGRAPH_EMBED_MODEL_PATH", "none")
    from codegraph.core import settings as settings_mod

    settings_mod.get_settings.cache_clear()
    settings = load_settings()
    graph, state = open_graph_store(settings), StateStore(settings.state_db)
    index_repo(root, "calc", graph, None, state, workers=1)
    state.close()
    yield settings, graph
    graph.close()


def _names(res) -> list[str]:
    return sorted(c.node.qualified_name for c in res.callers)


def test_core_callers_of_one_overload(indexed) -> None:
    _, g = indexed
    assert _names(callers(g, "app.Calc.add(int,int)")) == ["app.Use.two", "app.Use.unknown"]
    assert _names(callers(g, "Calc.add(int, int)")) == ["app.Use.two", "app.Use.unknown"]  # suffix, spaces
    assert _names(callers(g, "app.Calc.add(int,int,int)")) == ["app.Use.three"]
    assert _names(callers(g, "app.Calc.add")) == EVERY  # the bare name: every overload
    one = impact(g, "app.Calc.add(double,double)", depth=1)
    assert [(t.qualified_name, t.params) for t in one.targets] == [("app.Calc.add", "double,double")]
    assert _names(one) == ["app.Use.reals", "app.Use.unknown"]
    with pytest.raises(TargetNotFound, match=r"no overload of 'app.Calc.add' takes \(long\).*add\(int,int\)"):
        callers(g, "app.Calc.add(long)")


def test_cli_callers_of_one_overload(indexed) -> None:
    cli = CliRunner()
    out = cli.invoke(app, ["callers", "app.Calc.add(int,int)", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert sorted(c["node"]["qualified_name"] for c in data["callers"]) == ["app.Use.two", "app.Use.unknown"]
    bare = json.loads(cli.invoke(app, ["callers", "app.Calc.add", "--json"]).stdout)
    assert sorted(c["node"]["qualified_name"] for c in bare["callers"]) == EVERY


def test_mcp_callers_of_one_overload(indexed) -> None:
    settings, _ = indexed

    async def call(target: str) -> list[str]:
        res = await build_server(settings).call_tool("callers", {"target": target})
        assert not res.is_error, res.content[0].text
        return sorted(i["qualified_name"] for i in res.structured_content["items"])

    assert anyio.run(call, "app.Calc.add(int,int)") == ["app.Use.two", "app.Use.unknown"]
    assert anyio.run(call, "app.Calc.add") == EVERY


def test_dashboard_picker_names_a_picked_overload(indexed) -> None:
    _, g = indexed
    cands = [n for n in candidates(g, "app.Calc.add", None) if n.props.get("qualified_name") == "app.Calc.add"]
    assert sorted(n.props["params"] for n in cands) == ["String,String", "double,double", "int,int", "int,int,int"]
    one = [n for n in cands if n.props["params"] == "int,int"]
    assert targets_for(one, g) == [("app.Calc.add(int,int)", "calc")]
    assert targets_for(cands, g) == [("app.Calc.add", "calc")]  # every overload picked: the bare name
    [(text, _)] = targets_for(one, g)
    assert _names(callers(g, text)) == ["app.Use.two", "app.Use.unknown"]

"""The Workspaces page and the Impact graph's per-repo colouring, on the four-repo
fixture workspace (tests/fixtures/workspace) linked by `codegraph refresh`."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from typer.testing import CliRunner

from codegraph.cli import app as cli
from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.impact import impact
from codegraph.dashboard.graph_view import build_impact_graph, legend_html
from tests.dashboard.conftest import open_app
from tests.dashboard.shop import dashboard_env

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "workspace"


@pytest.fixture(scope="module")
def ws_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("wspage")
    root, home = base / "estate", base / "home"
    shutil.copytree(FIXTURE, root)
    mp = pytest.MonkeyPatch()
    for k, v in dashboard_env(home).items():
        mp.setenv(k, v)
    try:
        r = CliRunner().invoke(cli, ["refresh", "--config", str(root / "codegraph.toml"), "--no-embed"])
        assert r.exit_code == 0, r.output
        # A copy of the library outside the workspace: a workspace scope must leave it out.
        r = CliRunner().invoke(cli, ["index", str(root / "money-lib"), "--repo", "outsider", "--no-embed"])
        assert r.exit_code == 0, r.output
    finally:
        mp.undo()
    return home


def test_workspace_page_shows_repos_edges_and_unmatched_calls(ws_home: Path,
                                                              point_at: Callable[..., None]) -> None:
    point_at(ws_home)
    at = open_app("workspace.py")
    assert not at.exception, [e.value for e in at.exception]
    m = {x.label: x.value for x in at.metric}
    assert m == {"Repositories": "4", "Library edges": "4", "HTTP edges": "3", "Kafka edges": "4",
                 "Unmatched client calls": "1"}
    chart = at.get("graphviz_chart")[0].proto.spec
    for edge in ('"web-client" -> "pay-api" [label="http 3"', '"pay-api" -> "money-lib" [label="library 4"',
                 '"ledger" -> "pay-api" [label="kafka 1"', '"pay-api" -> "ledger" [label="kafka 1"'):
        assert edge in chart
    repos = {r["repo"]: r for r in at.dataframe[0].value.to_dict("records")}
    assert set(repos) == {"money-lib", "pay-api", "web-client", "ledger"}
    assert repos["web-client"]["unmatched client calls"] == 1 and repos["web-client"]["ambiguous"] == 1
    calls = at.dataframe[1].value.to_dict("records")
    assert {(c["url"], c["why"]) for c in calls} == {
        ("/nowhere/at/all", "no_match"), ("/health", "ambiguous: ledger: GET /health; pay-api: GET /health")}


def test_workspace_page_without_a_workspace_says_how_to_declare_one(
        app: Callable[..., AppTest]) -> None:
    at = app("workspace.py")
    assert not at.exception
    assert "[[workspaces]]" in at.info[0].value


def test_impact_graph_colours_each_repo(ws_home: Path) -> None:
    g = EmbeddedGraphStore(ws_home / "graph.db")
    try:
        res = impact(g, "moneylib.cents.to_cents", depth=4)
    finally:
        g.close()
    ig = build_impact_graph(res, colour_by="repo")
    by_repo: dict[str, set[str]] = {}
    for n in ig.nodes:
        if n.role in ("caller", "entry", "more"):  # callers past the draw limit fold into "+N" boxes
            by_repo.setdefault(n.repo, set()).add(n.color)
    assert set(by_repo) == {"pay-api", "web-client", "ledger"}
    assert all(len(c) == 1 for c in by_repo.values())
    assert len({next(iter(c)) for c in by_repo.values()}) == 3  # one colour per repo
    html = legend_html(ig)
    assert all(f"repo {r}" in html for r in ("money-lib", "pay-api", "web-client", "ledger"))
    assert res.by_repo == {"pay-api": 1, "web-client": 1, "ledger": 1}


def test_sidebar_workspace_scopes_impact_and_search(ws_home: Path, point_at: Callable[..., None]) -> None:
    point_at(ws_home)
    at = open_app("impact.py")
    sb = at.sidebar.selectbox[0]
    assert sb.options[:2] == ["All repositories", "workspace: payments"]
    at.text_input(key="impact_target").set_value("to_cents").run()
    assert [o for o in at.multiselect[0].options if "to_cents" in o and "outsider" in o]  # all repos: both copies
    sb.set_value("workspace: payments").run()
    at.text_input(key="impact_target").set_value("moneylib.cents.to_cents").run()
    opts = list(at.multiselect[0].options)
    assert opts and all("outsider" not in o for o in opts) and any("money-lib" in o for o in opts)
    at.switch_page("../pages/search.py").run()
    at.text_input(key="search_query").set_value("to_cents").run()
    assert not at.exception, [e.value for e in at.exception]
    text = " ".join(m.value for m in at.markdown)
    assert "money-lib" in text and "outsider" not in text


def test_sidebar_workspace_scopes_every_page_with_the_same_figures(ws_home: Path,
                                                                   point_at: Callable[..., None]) -> None:
    from codegraph.core.figures import combine, figures
    from codegraph.dashboard.figure_text import pct

    point_at(ws_home)
    members = ["ledger", "money-lib", "pay-api", "web-client"]
    g = EmbeddedGraphStore(ws_home / "graph.db")
    try:
        want = combine([figures(g, r) for r in members])
        everything = figures(g, None)
    finally:
        g.close()
    assert want.files < everything.files  # the outsider is left out
    at = open_app("overview.py")
    at.sidebar.selectbox[0].set_value("workspace: payments").run()
    assert not at.exception, [e.value for e in at.exception]
    m = {x.label: x.value for x in at.metric}
    assert (m["Repositories"], m["Files"], m["Symbols"], m["Edges"], m["Unresolved stubs"]) == (
        "4", str(want.files), str(want.symbols), str(want.edges), str(want.stubs))
    assert m["Unresolved references"] == pct(want.unresolved_pct)
    assert any("Workspace payments (4 repositories" in c.value for c in at.caption)

    at.switch_page("../pages/coverage.py").run()
    assert not at.exception, [e.value for e in at.exception]
    m = {x.label: x.value for x in at.metric}
    assert (m["Files"], m["Unresolved references"], m["Unsupported files"]) == (
        str(want.files), pct(want.unresolved_pct), str(want.unsupported_files))
    assert set(at.dataframe[0].value["repo"]) == set(members)

    at.switch_page("../pages/baselines.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert sorted(at.dataframe[1].value["repo"]) == members  # freshness, then the drops summary

    at.switch_page("../pages/triage.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert set(at.dataframe[0].value["repo"]) <= set(members)
    assert {x.label: x.value for x in at.metric}["Unresolved stubs"] == str(want.stubs)

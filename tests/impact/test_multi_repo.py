"""Impact over two repos: the same qualified name in both, a ``repo`` filter, an HTTP
client in one repo calling an endpoint of the other, and the stub boundary."""

from __future__ import annotations

import uuid

from codegraph.core.graph_store import GraphStore
from codegraph.core.impact import callers as direct_callers
from codegraph.core.impact import impact
from codegraph.core.models import CALLS, CALLS_HTTP, EXPOSES, StubRecord
from tests.impact.builder import Graph, entries


def build(store: GraphStore, a: str, b: str, mod: str) -> None:
    """Repo ``a``: {mod}.save called by app.main (called by app.cli) and by the handler
    api.get_order (GET /orders/:id); app.legacy calls an ambiguous stub ``save``.
    Repo ``b``: its own {mod}.save called by jobs.nightly; client.fetch_order calls a's
    endpoint over HTTP and ui.show calls client.fetch_order."""
    ga = Graph(store, a)
    save = ga.sym(f"{mod}.py", f"{mod}.save")
    main, cli = ga.sym("app.py", "app.main"), ga.sym("app.py", "app.cli")
    legacy = ga.sym("app.py", "app.legacy")
    handler = ga.sym("api.py", "api.get_order")
    ep = ga.endpoint("GET", "/orders/:id")
    stub = StubRecord(a, "save", "ambiguous", 2, [f"{mod}.save", "other.save"])
    ga.nodes.append(stub.to_node())
    ga.edge(CALLS, main, save, "app.py", 3, "import")
    ga.edge(CALLS, cli, main, "app.py", 13, "same_module")
    ga.edge(CALLS, legacy, stub.uid, "app.py", 23, "stub")
    ga.edge(CALLS, handler, save, "api.py", 4, "import")
    ga.edge(EXPOSES, handler, ep, "api.py", 2, "")
    ga.save()

    gb = Graph(store, b)
    bsave = gb.sym(f"{mod}.py", f"{mod}.save")
    nightly = gb.sym("jobs.py", "jobs.nightly")
    fetch, show = gb.sym("client.py", "client.fetch_order"), gb.sym("ui.py", "ui.show")
    gb.edge(CALLS, nightly, bsave, "jobs.py", 5, "import")
    gb.edge(CALLS_HTTP, fetch, ep, "client.py", 7, "exact", url="/orders/{id}")
    gb.edge(CALLS, show, fetch, "ui.py", 9, "import")
    gb.save()


def radius(res) -> set[tuple[int, str, str, str]]:
    return {(c.depth, c.via, c.node.repo, c.node.qualified_name) for c in res.callers}


def test_repo_filter_keeps_the_other_repos_namesake_out(store: GraphStore, repo: str, other_repo: str) -> None:
    mod = f"svc_{uuid.uuid4().hex[:6]}"
    build(store, repo, other_repo, mod)
    res = impact(store, f"{mod}.save", repo=repo)
    assert [(t.repo, t.qualified_name) for t in res.targets] == [(repo, f"{mod}.save")]
    assert radius(res) == {
        (1, CALLS, repo, "app.main"),
        (1, CALLS, repo, "api.get_order"),
        (2, CALLS, repo, "app.cli"),
        (2, CALLS_HTTP, other_repo, "client.fetch_order"),  # across repos through a's endpoint
        (3, CALLS, other_repo, "ui.show"),
    }
    by_qn = {c.node.qualified_name: c for c in res.callers}
    assert by_qn["app.cli"].path == ["app.cli", "app.main", f"{mod}.save"]
    assert by_qn["ui.show"].path == ["ui.show", "client.fetch_order", "GET /orders/:id"]
    assert (by_qn["client.fetch_order"].evidence_file, by_qn["client.fetch_order"].evidence_line) == ("client.py", 7)
    assert entries(res) == {("endpoint", "GET /orders/:id", 1)}
    assert res.importers == [] and res.tables == [] and res.pages == [] and res.widened == []
    assert [(u.target_identifier, u.reason, u.references) for u in res.unresolved] == [("save", "ambiguous", 1)]
    assert (res.total_callers, res.shown_callers, res.truncated) == (5, 5, False)
    assert [f["repo"] for f in res.freshness] == [repo]


def test_without_repo_both_namesakes_are_targets(store: GraphStore, repo: str, other_repo: str) -> None:
    mod = f"svc_{uuid.uuid4().hex[:6]}"
    build(store, repo, other_repo, mod)
    res = impact(store, f"{mod}.save")
    assert sorted(t.repo for t in res.targets) == sorted([repo, other_repo])
    assert radius(res) == {
        (1, CALLS, repo, "app.main"),
        (1, CALLS, repo, "api.get_order"),
        (1, CALLS, other_repo, "jobs.nightly"),
        (2, CALLS, repo, "app.cli"),
        (2, CALLS_HTTP, other_repo, "client.fetch_order"),
        (3, CALLS, other_repo, "ui.show"),
    }
    assert sorted(f["repo"] for f in res.freshness) == sorted([repo, other_repo])


def test_callers_is_depth_one_calls_only(store: GraphStore, repo: str, other_repo: str) -> None:
    mod = f"svc_{uuid.uuid4().hex[:6]}"
    build(store, repo, other_repo, mod)
    res = direct_callers(store, f"{mod}.save", repo=repo)
    assert radius(res) == {(1, CALLS, repo, "app.main"), (1, CALLS, repo, "api.get_order")}
    assert res.edge_types == [CALLS]


def test_paging_keeps_totals_for_the_whole_radius(store: GraphStore, repo: str, other_repo: str) -> None:
    mod = f"svc_{uuid.uuid4().hex[:6]}"
    build(store, repo, other_repo, mod)
    res = impact(store, f"{mod}.save", repo=repo, limit=2, offset=1)
    # Ordered by depth, then qualified name: api.get_order, app.main, app.cli, client.fetch_order, ui.show.
    assert [c.node.qualified_name for c in res.callers] == ["app.main", "app.cli"]
    assert (res.total_callers, res.shown_callers, res.truncated) == (5, 2, True)

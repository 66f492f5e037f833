"""The dashboard's Streamlit-free pieces on the indexed shop: the impact graph layout,
merging several targets, the picker, source snippets, error lines."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from codegraph.core.errors import ReadOnlyViolation, StoreUnavailable
from codegraph.core.graph_store import GraphStore
from codegraph.core.impact import impact
from codegraph.dashboard import graph_view
from codegraph.dashboard.common import age_text, merge_counts, one_line
from codegraph.dashboard.impact_view import candidates, default_pick, merge, target_string, targets_for
from codegraph.dashboard.source import read_snippet
from tests.dashboard.shop import SAVE_CALLERS, Indexed


@pytest.fixture
def graph(shop: Indexed) -> Iterator[GraphStore]:
    from codegraph.core.stores import open_graph_store

    g = open_graph_store(shop.settings)
    yield g
    g.close()


def _qn(uid: str) -> str:
    return uid.split("|")[2] if uid.startswith("sym|") else uid


# ---------------------------------------------------------------------------- graph view
def test_impact_graph_rings_and_tree(graph: GraphStore) -> None:
    res = impact(graph, "shop.store.save")
    g = graph_view.build_impact_graph(res, layout="radial")
    by = {_qn(n.id): n for n in g.nodes}
    assert set(by) == SAVE_CALLERS | {"shop.store.save"}
    centre = by["shop.store.save"]
    assert (centre.x, centre.y, centre.shape, centre.role) == (0.0, 0.0, "star", "target")
    assert {(_qn(e.source), _qn(e.target), e.via) for e in g.edges} == {
        ("shop.orders.OrderService.place", "shop.store.save", "CALLS"),
        ("shop.api.create_order", "shop.orders.OrderService.place", "CALLS"),
        ("shop.api.bulk_create", "shop.api.create_order", "CALLS"),
        ("tests.test_orders.test_create_order", "shop.api.create_order", "CALLS"),
    }
    # Ring d lies further out than ring d-1; nodes of one depth share a ring.
    dist = {q: math.hypot(n.x, n.y) for q, n in by.items()}
    assert 0 < dist["shop.orders.OrderService.place"] < dist["shop.api.create_order"] < dist["shop.api.bulk_create"]
    assert dist["shop.api.bulk_create"] == pytest.approx(dist["tests.test_orders.test_create_order"])
    # The test is an entry point and drawn as one; callers are coloured by kind.
    t = by["tests.test_orders.test_create_order"]
    assert (t.role, t.entry_kind, t.shape) == ("entry", "test", "triangle")
    assert by["shop.orders.OrderService.place"].color == graph_view.KIND_COLOURS["method"]
    assert by["shop.api.create_order"].color == graph_view.KIND_COLOURS["function"]
    legend = graph_view.legend_html(g)
    assert "★ target" in legend and "method" in legend and "function" in legend and "▲ test" in legend
    nodes, edges = graph_view.agraph_payload(g)
    assert len(nodes) == len(g.nodes) + 2 and len(edges) == 4  # two invisible frame nodes
    assert all("x" in n and "y" in n and n["physics"] is False for n in nodes)


def test_impact_graph_layered_by_depth_with_smart_labels(graph: GraphStore) -> None:
    g = graph_view.build_impact_graph(impact(graph, "shop.store.save"))  # layered is the default
    by = {_qn(n.id): n for n in g.nodes}
    xs = {q: n.x for q, n in by.items()}
    # The target on the left, one column per hop, siblings in one column.
    assert xs["shop.store.save"] == 0 < xs["shop.orders.OrderService.place"] < xs["shop.api.create_order"] \
        < xs["shop.api.bulk_create"] == xs["tests.test_orders.test_create_order"]
    assert by["shop.api.bulk_create"].y != by["tests.test_orders.test_create_order"].y
    assert {q: n.label for q, n in by.items()} == {
        "shop.store.save": "store.save", "shop.orders.OrderService.place": "OrderService.place",
        "shop.api.create_order": "api.create_order", "shop.api.bulk_create": "api.bulk_create",
        "tests.test_orders.test_create_order": "test_orders.test_create_order"}
    # Full name, kind and where on hover (vis-network shows a string title as text).
    nodes, _ = graph_view.agraph_payload(g)
    place = next(n for n in nodes if n["id"] == by["shop.orders.OrderService.place"].id)
    assert place["title"].startswith("shop.orders.OrderService.place\nmethod · shop/orders.py:12")


def test_smart_labels_and_distinct_depth_colours() -> None:
    labels = graph_view.smart_labels(["json.tool.main", "json.decoder.JSONDecoder.__init__", "a.b.main",
                                      "x.tool.main", "solo"])
    assert labels["json.decoder.JSONDecoder.__init__"] == "JSONDecoder.__init__"
    assert labels["a.b.main"] == "b.main" and labels["solo"] == "solo"
    assert labels["json.tool.main"] == "json.tool.main" and labels["x.tool.main"] == "x.tool.main"
    assert len({graph_view.depth_colour(d) for d in range(1, 9)}) == 8


def test_vis_options_are_only_valid_ones(graph: GraphStore) -> None:
    g = graph_view.build_impact_graph(impact(graph, "shop.store.save"))
    opts = graph_view.vis_options(g, 500)
    # The three that vis-network rejected on every draw.
    assert not {"groups", "highlightColor", "nodeHighlightBehavior"} & set(opts)
    assert set(opts) <= {"height", "width", "autoResize", "physics", "layout", "interaction", "edges", "nodes"}


def test_impact_graph_aggregates_past_the_draw_limit_and_clusters(graph: GraphStore) -> None:
    res = impact(graph, "shop.store.save")
    g = graph_view.build_impact_graph(res, max_callers=1)
    more = [n for n in g.nodes if n.role == "more"]
    assert g.aggregated == 3 and sum(len(n.members) for n in more) == 3
    # One "+N" node per package and depth: create_order (2), bulk_create (3), the test (3).
    assert sorted((n.depth, n.label) for n in more) == [(2, "+1 in shop/"), (3, "+1 in shop/"), (3, "+1 in tests/")]
    assert "+N more" in graph_view.legend_html(g)
    c = graph_view.build_impact_graph(res, cluster_by="package")
    [box] = [n for n in c.nodes if n.role == "cluster"]
    assert box.group == "shop/" and len(box.members) == 3 and box.label == "shop/ (3)"
    opened = graph_view.build_impact_graph(res, cluster_by="package", expanded={"shop/"})
    assert not [n for n in opened.nodes if n.role == "cluster"]


def test_callees_walk_out_from_the_target(graph: GraphStore) -> None:
    from codegraph.core.impact.callees import callees

    [place] = [n for n in graph.find_nodes("shop.orders.OrderService.place", ["Symbol"], None, 5)
               if n.props.get("qualified_name") == "shop.orders.OrderService.place"]
    res = callees(graph, [place], depth=2)
    assert {(c.node.qualified_name, c.depth) for c in res.callers} >= {("shop.store.save", 1),
                                                                       ("shop.orders.OrderService.validate", 1)}
    save = next(c for c in res.callers if c.node.qualified_name == "shop.store.save")
    assert save.path == ["shop.store.save", "shop.orders.OrderService.place"] and save.evidence_file == "shop/orders.py"
    g = graph_view.build_impact_graph(res, direction="callees")
    assert ("shop.orders.OrderService.place", "shop.store.save") in {(_qn(e.source), _qn(e.target)) for e in g.edges}


def test_impact_graph_colour_by_depth_and_draw_limit(graph: GraphStore) -> None:
    res = impact(graph, "shop.store.save")
    g = graph_view.build_impact_graph(res, colour_by="depth", max_callers=2)
    assert g.drawn_callers == 2 and g.listed_callers == 4
    callers = [n for n in g.nodes if n.role not in ("target", "more")]
    assert [(_qn(n.id), n.color) for n in callers] == [
        ("shop.orders.OrderService.place", graph_view.depth_colour(1)),
        ("shop.api.create_order", graph_view.depth_colour(2)),
    ]
    assert "depth 1" in graph_view.legend_html(g) and "depth 2" in graph_view.legend_html(g)


def test_impact_graph_widened_member_is_a_placeholder(graph: GraphStore) -> None:
    # A class target is widened to its members; a caller of a member hangs off a grey
    # placeholder for that member, linked to the class in the centre.
    res = impact(graph, "shop.orders.OrderService", edge_types=["CALLS"])
    g = graph_view.build_impact_graph(res)
    ph = g.node("hidden|shop.orders.OrderService.place")
    assert ph is not None and ph.role == "hidden" and ph.color == graph_view.HIDDEN_COLOUR
    edges = {(_qn(e.source), _qn(e.target), e.via) for e in g.edges}
    assert ("hidden|shop.orders.OrderService.place", "shop.orders.OrderService", "member") in edges
    assert ("shop.api.create_order", "hidden|shop.orders.OrderService.place", "CALLS") in edges
    caller = next(n for n in g.nodes if _qn(n.id) == "shop.api.create_order")
    assert 0 < math.hypot(ph.x, ph.y) < math.hypot(caller.x, caller.y)


# ---------------------------------------------------------------------------- picker and merge
def test_picker_candidates_and_target_strings(graph: GraphStore) -> None:
    cands = candidates(graph, "save", None)
    assert [_qn(n.uid) for n in cands[:2]] == ["shop.audit.save", "shop.store.save"]
    assert default_pick(cands) == [cands[0].uid]
    # A bare name preselects every symbol of that name (README: "a bare name (every match)").
    assert sorted(default_pick(cands, "save")) == sorted(n.uid for n in cands[:2])
    assert target_string(cands[1]) == "shop.store.save"
    files = candidates(graph, "file:shop/api.py", None)
    assert [n.label for n in files] == ["File"] and target_string(files[0]) == "file:shop/api.py"
    assert targets_for(cands[:2] + cands[:1]) == [("shop.audit.save", "shop"), ("shop.store.save", "shop")]
    assert candidates(graph, "   ", None) == []


def test_merge_keeps_shortest_path_and_drops_targets(graph: GraphStore) -> None:
    a = impact(graph, "shop.store.save")
    b = impact(graph, "shop.orders.OrderService.place")
    m = merge([a, b])
    assert {_qn(t.uid) for t in m.targets} == {"shop.store.save", "shop.orders.OrderService.place"}
    callers = {c.node.qualified_name: c.depth for c in m.callers}
    # place is a target now, so not a caller; create_order is 1 hop from place.
    assert callers == {"shop.api.create_order": 1, "shop.api.bulk_create": 2,
                       "tests.test_orders.test_create_order": 2}
    assert m.total_callers == m.shown_callers == 3 and not m.truncated
    assert m.query == "shop.store.save + shop.orders.OrderService.place"
    cut = merge([impact(graph, "shop.store.save", limit=1), impact(graph, "shop.audit.save")])
    # 1 listed of 4 for the first, 1 of 1 for the second: 3 more exist.
    assert (cut.shown_callers, cut.total_callers, cut.truncated) == (2, 5, True)


# ---------------------------------------------------------------------------- snippets and errors
def test_read_snippet(shop: Indexed, tmp_path: Path) -> None:
    s = read_snippet(shop.root, "shop/api.py", 5, 7)
    assert s.text.splitlines() == ["5  def create_order(payload):", "6      service = OrderService()",
                                   "7      return service.place(payload)"]
    ev = read_snippet(shop.root, "shop/api.py", 7, context=1, mark=7)
    assert ev.text.splitlines()[1].startswith("> 7  ") and ev.text.splitlines()[0].startswith("  6  ")
    assert read_snippet(shop.root, "../outside.py", 1).note.endswith(f"points outside the checkout {shop.root.resolve()}")
    assert "not on disk" in read_snippet(shop.root, "shop/gone.py", 1).note
    assert "re-index" in read_snippet(shop.root, "shop/api.py", 500).note
    assert read_snippet(None, "shop/api.py", 1).note == "no checkout path recorded for this repository"
    long = read_snippet(shop.root, "shop/orders.py", 1, 14, max_lines=3)
    assert (long.first, long.last, long.note) == (1, 3, "first 3 lines shown")


def test_error_lines_are_one_readable_line() -> None:
    e = StoreUnavailable("cannot reach Neo4j at bolt://x:7687 (check CODEGRAPH_GRAPH)\nsecond line")
    assert one_line(e, "CODEGRAPH_SEARCH") == "cannot reach Neo4j at bolt://x:7687 (check CODEGRAPH_GRAPH)"
    assert one_line(ValueError("bad\nworse"), "CODEGRAPH_HOME") == "ValueError: bad (check CODEGRAPH_HOME)"
    assert one_line(RuntimeError(""), None) == "RuntimeError: RuntimeError"
    # The person's input, not the configuration: no setting to check.
    assert one_line(ReadOnlyViolation("refused: contains DELETE"), "CODEGRAPH_GRAPH") == "refused: contains DELETE"
    assert one_line(StoreUnavailable("server down"), "CODEGRAPH_GRAPH") == "server down (check CODEGRAPH_GRAPH)"


def test_age_text_and_merge_counts() -> None:
    now = datetime.now(UTC)
    assert age_text(None) == "never"
    assert age_text((now - timedelta(hours=3)).isoformat()) == "3.0 h ago"
    assert age_text((now - timedelta(days=3)).isoformat()) == "3.0 d ago"
    assert age_text("yesterday") == "yesterday"
    assert merge_counts([{"nodes": {"File": 2}, "parse_errors": 1}, {"nodes": {"File": 3, "Symbol": 4},
                                                                     "parse_errors": 0}]) == {
        "nodes": {"File": 5, "Symbol": 4}, "parse_errors": 1}


def test_drift_note() -> None:
    from codegraph.dashboard.common import drift_note

    base = {"repo": "shop", "commit": "a" * 40, "path": "/src/shop"}
    assert drift_note(base | {"checkout": None}) is None
    assert drift_note(base | {"checkout": {"head": "a" * 40, "matches_graph": True}}) is None
    note = drift_note(base | {"checkout": {"checkout": "/src/shop", "head": "b" * 40, "matches_graph": False,
                                           "changed_since": ["x.py", "y.py"], "uncommitted": ["z.py"]}})
    assert note is not None
    assert "`bbbbbbbbbbbb`" in note and "`aaaaaaaaaaaa`" in note and "2 file(s) changed since" in note
    assert "1 file(s) have uncommitted changes" in note and "codegraph index /src/shop" in note

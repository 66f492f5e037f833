"""The impact graph drawn with streamlit-agraph (vis-network), positions computed here.

``build_impact_graph`` is pure (testable without a browser): it turns an ImpactResult
into nodes and edges with

- labels: the shortest qualified suffix of at least two parts that is unique among the
  drawn nodes (``tool.main``, ``JSONDecoder.__init__``); the full name, kind, file:line
  and why the node is there on hover;
- a layout (graph_layout): ``layered`` by depth (default) or ``radial``;
- entry points with their own shapes and a dark border (endpoint, page, topic consumer,
  test, ``main`` / ``__main__``);
- colours by depth (a categorical palette: neighbouring depths never look alike), kind or
  repository (where a workspace answer crosses repositories);
- clusters: with ``cluster_by`` set, the nodes of one file / package / repo fold into
  one box (``expanded`` lists the groups drawn open);
- aggregation: callers past ``max_callers`` are drawn as one "+N more" node per package
  and depth, so a 1,000-caller answer stays readable and says what it left out;
- ``extra``: neighbours the person expanded from one node (its callers or callees).

``render`` draws it with only valid vis-network options (no console errors) and returns
the uid of the node clicked last, if any.
"""

from __future__ import annotations

import html
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from types import SimpleNamespace
from typing import Any

from codegraph.core.impact import Caller, ImpactResult, NodeRef
from codegraph.core.models import CALLS
from codegraph.dashboard import graph_layout

TARGET_COLOUR = "#FFB000"
HIDDEN_COLOUR = "#C8C8C8"
MORE_COLOUR = "#E8E8E8"
CLUSTER_COLOUR = "#DDE6F3"
ENTRY_BORDER = "#1B1B1B"
KIND_COLOURS: dict[str, str] = {
    "function": "#4C78A8",
    "method": "#72B7B2",
    "type": "#F58518",
    "module / file": "#54A24B",
    "endpoint / page": "#E45756",
    "variable / field": "#9D755D",
    "other": "#B279A2",
}
_KIND_GROUP = {
    "function": "function", "method": "method", "constructor": "method",
    "class": "type", "interface": "type", "struct": "type", "enum": "type", "trait": "type", "record": "type",
    "object": "type", "union": "type",
    "module": "module / file", "file": "module / file",
    "endpoint": "endpoint / page", "page": "endpoint / page",
    "variable": "variable / field", "field": "variable / field", "constant": "variable / field",
}
# Categorical (Tableau 10 order): depth 1 blue, 2 orange, 3 green, 4 red, ... so two
# neighbouring depths never share a hue.
DEPTH_COLOURS = ["#4E79A7", "#F28E2B", "#59A14F", "#E15759", "#B07AA1", "#9C755F", "#FF9DA7", "#76B7B2",
                 "#EDC948", "#BAB0AC"]
# colour_by="repo": one colour per repository of a workspace answer.
REPO_COLOURS = ["#1F77B4", "#2CA02C", "#D62728", "#9467BD", "#8C564B", "#E377C2", "#17BECF", "#BCBD22"]
ENTRY_SHAPES = {"endpoint": "diamond", "page": "square", "consumer": "triangleDown", "test": "triangle",
                "main": "hexagon"}
ENTRY_GLYPHS = {"endpoint": "◆ endpoint", "page": "■ page", "consumer": "▼ topic consumer", "test": "▲ test",
                "main": "⬢ main / CLI"}
CLUSTER_OPTIONS = ("none", "file", "package", "repo")
LAYOUTS = ("layered", "radial")
MAX_MORE_PER_DEPTH = 5  # "+N more" nodes per depth; the rest share one "+N elsewhere"
PER_DEPTH = 12  # callers drawn one by one per depth: more and the labels become unreadable at 1400x900


def kind_group(kind: str) -> str:
    return _KIND_GROUP.get(kind, "other")


def depth_colour(depth: int) -> str:
    return DEPTH_COLOURS[(max(depth, 1) - 1) % len(DEPTH_COLOURS)]


@dataclass(slots=True)
class GNode:
    id: str
    label: str
    title: str  # plain text: full name, kind, where, why (lines)
    depth: float
    kind: str
    role: str  # target | caller | entry | hidden | more | cluster
    entry_kind: str = ""
    parent: str = ""
    qualified_name: str = ""
    group: str = ""  # file / package / repo key of the cluster it belongs to
    members: list[str] = field(default_factory=list)  # cluster: uids folded in; more: qualified names
    x: float = 0.0
    y: float = 0.0
    color: str = ""
    shape: str = "dot"
    size: int = 16
    repo: str = ""  # colour_by="repo": repository boundaries in a workspace answer


@dataclass(slots=True)
class GEdge:
    source: str  # the caller (arrows point from caller to callee)
    target: str
    via: str
    title: str
    count: int = 1


@dataclass(slots=True)
class Extra:
    """One neighbour the person expanded: ``node`` reached from drawn node ``anchor``
    (``direction`` "callers": node calls anchor; "callees": anchor calls node)."""

    node: NodeRef
    anchor: str
    direction: str
    via: str
    evidence: str


@dataclass(slots=True)
class ImpactGraph:
    nodes: list[GNode] = field(default_factory=list)
    edges: list[GEdge] = field(default_factory=list)
    drawn_callers: int = 0
    listed_callers: int = 0
    aggregated: int = 0  # callers folded into "+N more" nodes
    colour_by: str = "kind"
    layout: str = "layered"
    direction: str = "callers"
    repos: list[str] = field(default_factory=list)  # repositories drawn, sorted

    def node(self, uid: str) -> GNode | None:
        return next((n for n in self.nodes if n.id == uid), None)


# ---------------------------------------------------------------------------- labels, groups
def _parts(qn: str) -> list[str]:
    s = qn
    for sep in ("::", "#", "/", "\\"):
        s = s.replace(sep, ".")
    return [p for p in s.split(".") if p] or [qn]


def smart_labels(names: list[str], width: int = 40) -> dict[str, str]:
    """Qualified name -> the shortest suffix of at least two parts (one for a one-part
    name) that no other name in ``names`` shares: ``json.tool.main`` -> ``tool.main``."""
    parts = {q: _parts(q) for q in set(names)}
    k = {q: min(2, len(p)) for q, p in parts.items()}
    for _ in range(12):
        label = {q: ".".join(p[-k[q]:]) for q, p in parts.items()}
        seen = Counter(label.values())
        clash = [q for q, lab in label.items() if seen[lab] > 1 and k[q] < len(parts[q])]
        if not clash:
            break
        for q in clash:
            k[q] += 1
    out = {}
    for q, p in parts.items():
        text = ".".join(p[-k[q]:])
        out[q] = text if len(text) <= width else "…" + text[-(width - 1):]
    return out


def group_key(ref: NodeRef, cluster_by: str) -> str:
    """The cluster a node belongs to: its file, its package (folder) or its repo."""
    if cluster_by == "repo":
        return ref.repo
    if cluster_by == "file":
        return ref.file or ref.repo
    folder = str(PurePosixPath(ref.file).parent) if ref.file else ""
    return f"{folder}/" if folder and folder != "." else f"{ref.repo}/"


def is_main(ref: NodeRef) -> bool:
    """A command-line entry point: a ``main`` function or code in a ``__main__`` module."""
    return ref.label == "Symbol" and (ref.name == "main" or PurePosixPath(ref.file).name == "__main__.py"
                                      or ref.qualified_name.endswith(".__main__"))


def _title(ref: NodeRef, extra: str = "") -> str:
    where = f"{ref.file}:{ref.line}" if ref.file else ref.repo
    return f"{ref.qualified_name}\n{ref.kind} · {where}" + (f"\n{extra}" if extra else "")


# ---------------------------------------------------------------------------- build
def build_impact_graph(
    res: ImpactResult,
    colour_by: str = "kind",
    max_callers: int = 150,
    entry_anchors: dict[str, str] | None = None,
    layout: str = "layered",
    cluster_by: str = "none",
    expanded: frozenset[str] | set[str] = frozenset(),
    extra: list[Extra] | None = None,
    direction: str = "callers",
) -> ImpactGraph:
    """Nodes and edges for ``res`` with positions (see the module docstring).

    ``res.callers`` are callees when ``direction`` is "callees" (their ``path`` runs from
    the callee back to the target). ``entry_anchors`` maps an endpoint's uid to the uid
    of the symbol that exposes it (so the endpoint is drawn next to its handler).
    Callers whose next hop is not drawn (a hidden test, a widened class member) hang off
    a grey placeholder.
    """
    g = ImpactGraph(colour_by=colour_by, listed_callers=len(res.callers), layout=layout, direction=direction)
    by_id: dict[str, GNode] = {}
    by_name: dict[str, list[GNode]] = defaultdict(list)
    callees = direction == "callees"

    def add(n: GNode) -> GNode:
        if n.id in by_id:
            return by_id[n.id]
        by_id[n.id] = n
        by_name[n.qualified_name].append(n)
        g.nodes.append(n)
        return n

    def edge(node: str, anchor: str, via: str, title: str) -> None:
        g.edges.append(GEdge(anchor, node, via, title) if callees else GEdge(node, anchor, via, title))

    for t in res.targets:
        add(GNode(t.uid, "", _title(t, "target"), 0, t.kind, "target", qualified_name=t.qualified_name,
                  group=group_key(t, cluster_by), repo=t.repo))
    centre = res.targets[0].uid if res.targets else ""

    drawn, rest = pick_drawn(res.callers, max_callers)
    g.drawn_callers = len(drawn)
    word = "callee" if callees else "caller"
    for c in drawn:
        why = f"{word} at depth {c.depth} via {c.via} at {c.evidence_file}:{c.evidence_line} ({c.resolution or 'n/a'})"
        n = add(GNode(c.node.uid, "", _title(c.node, why), c.depth, c.node.kind, "caller",
                      qualified_name=c.node.qualified_name, group=group_key(c.node, cluster_by), repo=c.node.repo))
        if c.is_test:
            n.role, n.entry_kind = "entry", "test"
        elif is_main(c.node) and not callees:
            n.role, n.entry_kind = "entry", "main"

    def anchor_for(name: str, depth: float) -> GNode:
        cands = by_name.get(name, [])
        exact = [n for n in cands if n.depth == depth]
        if exact or cands:
            return (exact or cands)[0]
        # Not drawn: a grey placeholder one column inside, attached to the centre.
        ph = add(GNode(f"hidden|{name}", "", f"{name}\nnot drawn (a widened member of the target, a hidden "
                       "test, or past the draw limit)", max(depth, 0.5), "", "hidden", qualified_name=name))
        if centre and ph.id != centre:
            edge(ph.id, centre, "member" if depth <= 0.5 else "…", "reaches the target")
            ph.parent = centre
        return ph

    for c in drawn:
        if len(c.path) < 2:
            continue
        a = anchor_for(c.path[1], c.depth - 1)
        by_id[c.node.uid].parent = a.id
        edge(c.node.uid, a.id, c.via, f"{c.via} at {c.evidence_file}:{c.evidence_line} ({c.resolution or 'n/a'})")

    _aggregate(g, rest, by_name, centre, add, edge)

    entry_anchors = entry_anchors or {}
    for e in res.entry_points:
        n = by_id.get(e.node.uid)
        if e.kind in ("test", "consumer"):
            if n is not None:
                n.role, n.entry_kind = "entry", e.kind
            continue
        parent: GNode | None = None
        if e.kind == "endpoint":
            parent = by_id.get(entry_anchors.get(e.node.uid, ""))
        elif e.kind == "page":
            in_file = [by_id[c.node.uid] for c in drawn if c.node.file == e.node.file and c.node.repo == e.node.repo]
            parent = min(in_file, key=lambda n: n.depth) if in_file else None
        parent = parent or by_id.get(centre)
        depth = (parent.depth if parent else 0) + 1
        n = add(GNode(e.node.uid, "", _title(e.node, e.reason), depth, e.kind, "entry", e.kind,
                      parent.id if parent else "", qualified_name=e.node.qualified_name,
                      group=group_key(e.node, cluster_by), repo=e.node.repo))
        if parent is not None:
            g.edges.append(GEdge(n.id, parent.id, "EXPOSES" if e.kind == "endpoint" else "route", e.reason))

    for x in extra or []:
        a = by_id.get(x.anchor)
        if a is None or x.node.uid in by_id:
            continue
        why = f"expanded: {'calls' if x.direction == 'callers' else 'called by'} {a.qualified_name} at {x.evidence}"
        n = add(GNode(x.node.uid, "", _title(x.node, why), math.floor(a.depth) + 1, x.node.kind, "caller",
                      parent=a.id, qualified_name=x.node.qualified_name, group=group_key(x.node, cluster_by),
                      repo=x.node.repo))
        if is_main(x.node):
            n.role, n.entry_kind = "entry", "main"
        pair = (n.id, a.id) if x.direction == "callers" else (a.id, n.id)
        g.edges.append(GEdge(*pair, x.via, f"{x.via} at {x.evidence}"))

    if cluster_by != "none":
        _cluster(g, set(expanded))
    labels = smart_labels([n.qualified_name for n in g.nodes if n.role not in ("more", "cluster")])
    for n in g.nodes:
        if not n.label:
            n.label = labels.get(n.qualified_name, n.qualified_name)
    (graph_layout.radial if layout == "radial" else graph_layout.layered)(g.nodes)
    g.repos = sorted({n.repo for n in g.nodes if n.repo})
    for n in g.nodes:
        _style(n, colour_by, g.repos)
    return g


def pick_drawn(callers: list[Caller], max_callers: int, per_depth: int = PER_DEPTH) -> tuple[list[Caller],
                                                                                          list[Caller]]:
    """(drawn one by one, folded into "+N" nodes). Per depth at most ``per_depth``, at
    most ``max_callers`` in all; a caller is drawn only when the node it reaches is (so
    no branch floats), the ones that lead to the most other callers first."""
    weight: Counter[str] = Counter(q for c in callers for q in c.path[1:-1])
    every = {c.node.qualified_name for c in callers}
    drawn: list[Caller] = []
    names: set[str] = set()
    by_depth: dict[int, list[Caller]] = defaultdict(list)
    for c in callers:
        by_depth[c.depth].append(c)
    for d in sorted(by_depth):
        room = min(per_depth, max_callers - len(drawn))
        # The next hop is drawn, or is no caller at all (an endpoint, a topic, a widened member).
        ok = [c for c in by_depth[d] if d == 1 or len(c.path) < 2 or c.path[1] in names or c.path[1] not in every]
        ok.sort(key=lambda c: (-weight[c.node.qualified_name], c.node.qualified_name, c.node.uid))
        for c in ok[:max(0, room)]:
            drawn.append(c)
            names.add(c.node.qualified_name)
    chosen = {id(c) for c in drawn}
    return drawn, [c for c in callers if id(c) not in chosen]


def _aggregate(g: ImpactGraph, rest: list[Caller], by_name: dict[str, list[GNode]], centre: str,
               add: Any, edge: Any) -> None:
    """Callers past the draw limit: one "+N more" node per (package, depth), attached to
    the drawn node they reach when there is one, else to the centre."""
    if not rest:
        return
    g.aggregated = len(rest)
    buckets: dict[tuple[int, str], list[Caller]] = defaultdict(list)
    for c in rest:
        buckets[(c.depth, group_key(c.node, "package"))].append(c)
    per_depth: dict[int, list[tuple[str, list[Caller]]]] = defaultdict(list)
    for (d, pkg), lst in buckets.items():
        per_depth[d].append((pkg, lst))
    for d, groups in sorted(per_depth.items()):
        groups.sort(key=lambda kv: (-len(kv[1]), kv[0]))
        keep, spill = groups[:MAX_MORE_PER_DEPTH], groups[MAX_MORE_PER_DEPTH:]
        if spill:
            keep.append(("elsewhere", [c for _, lst in spill for c in lst]))
        for pkg, lst in keep:
            anchors = Counter(c.path[1] for c in lst if len(c.path) > 1 and by_name.get(c.path[1]))
            anchor = by_name[anchors.most_common(1)[0][0]][0].id if anchors else centre
            names = sorted(c.node.qualified_name for c in lst)
            text = f"+{len(lst)} elsewhere" if pkg == "elsewhere" else f"+{len(lst)} in {pkg}"
            n = add(GNode(f"more|{d}|{pkg}", text, f"{len(lst)} more at depth {d} in {pkg} "
                          "(not drawn one by one; listed in the evidence table)\n" + "\n".join(names[:12])
                          + ("\n…" if len(names) > 12 else ""), d, "", "more", parent=anchor,
                          qualified_name=f"more|{d}|{pkg}", group=pkg, members=names,
                          repo=next(iter(rs)) if len(rs := {c.node.repo for c in lst}) == 1 else ""))
            if anchor:
                edge(n.id, anchor, "…", f"{len(lst)} callers")


def _cluster(g: ImpactGraph, expanded: set[str]) -> None:
    """Fold the nodes of each group (except targets and ``expanded`` groups) into one box."""
    members: dict[str, list[GNode]] = defaultdict(list)
    for n in g.nodes:
        if n.role in ("caller", "entry", "hidden") and n.group and n.group not in expanded:
            members[n.group].append(n)
    fold = {k: lst for k, lst in members.items() if len(lst) > 1}
    if not fold:
        return
    owner: dict[str, str] = {}
    boxes: list[GNode] = []
    for key, lst in fold.items():
        first = min(lst, key=lambda n: (n.depth, n.id))
        cid = f"cluster|{key}"
        boxes.append(GNode(cid, f"{key} ({len(lst)})", f"{key}: {len(lst)} nodes folded (click to open)\n"
                           + "\n".join(sorted(n.qualified_name for n in lst)[:15]), first.depth, "", "cluster",
                           parent=first.parent, qualified_name=cid, group=key, members=[n.id for n in lst]))
        for n in lst:
            owner[n.id] = cid
    g.nodes = [n for n in g.nodes if n.id not in owner] + boxes
    for b in boxes:
        b.parent = owner.get(b.parent, b.parent)
        if b.parent == b.id:
            b.parent = ""
    for n in g.nodes:
        n.parent = owner.get(n.parent, n.parent)
    merged: dict[tuple[str, str], GEdge] = {}
    for e in g.edges:
        s, t = owner.get(e.source, e.source), owner.get(e.target, e.target)
        if s == t:
            continue
        if (s, t) in merged:
            merged[(s, t)].count += 1
        else:
            merged[(s, t)] = GEdge(s, t, e.via, e.title, e.count)
    g.edges = list(merged.values())


def repo_colour(repo: str, repos: list[str]) -> str:
    """One colour per repository of the answer (sorted names, so stable across reruns)."""
    return REPO_COLOURS[repos.index(repo) % len(REPO_COLOURS)] if repo in repos else HIDDEN_COLOUR


def _style(n: GNode, colour_by: str, repos: list[str] | None = None) -> None:
    if n.role == "target":
        n.color, n.shape, n.size = TARGET_COLOUR, "star", 30
        return
    if n.role == "hidden":
        n.color, n.shape, n.size = HIDDEN_COLOUR, "dot", 10
        return
    if n.role == "more":
        # colour_by="repo": a folded group of one repository keeps that repository's colour
        n.color = repo_colour(n.repo, repos or []) if colour_by == "repo" and n.repo else MORE_COLOUR
        n.shape, n.size = "box", 14
        return
    if n.role == "cluster":
        n.color, n.shape, n.size = CLUSTER_COLOUR, "box", 18
        return
    if colour_by == "depth":
        n.color = depth_colour(int(math.ceil(n.depth)))
    elif colour_by == "repo":
        n.color = repo_colour(n.repo, repos or [])
    else:
        n.color = KIND_COLOURS[kind_group(n.kind)]
    if n.role == "entry":
        n.shape, n.size = ENTRY_SHAPES.get(n.entry_kind, "diamond"), 20


# ---------------------------------------------------------------------------- legend and drawing
def legend_html(g: ImpactGraph) -> str:
    """A compact legend of the colours and shapes used in ``g``."""
    items: list[tuple[str, str]] = [(TARGET_COLOUR, "★ target")]
    if g.colour_by == "depth":
        depths = sorted({int(math.ceil(n.depth)) for n in g.nodes if n.role in ("caller", "entry")})
        items += [(depth_colour(d), f"depth {d}") for d in depths]
    elif g.colour_by == "repo":
        items += [(repo_colour(r, g.repos), f"repo {r}") for r in g.repos]
    else:
        groups = sorted({kind_group(n.kind) for n in g.nodes if n.role in ("caller", "entry")})
        items += [(KIND_COLOURS[k], k) for k in groups]
    if any(n.role == "hidden" for n in g.nodes):
        items.append((HIDDEN_COLOUR, "not drawn"))
    if any(n.role == "more" for n in g.nodes):
        items.append((MORE_COLOUR, "+N more (aggregated)"))
    if any(n.role == "cluster" for n in g.nodes):
        items.append((CLUSTER_COLOUR, "cluster (click to open)"))
    swatches = "".join(
        f'<span style="display:inline-flex;align-items:center;margin-right:12px">'
        f'<span style="width:11px;height:11px;border-radius:50%;background:{c};display:inline-block;'
        f'margin-right:4px;border:1px solid #666"></span>{html.escape(t)}</span>' for c, t in items)
    kinds = sorted({n.entry_kind for n in g.nodes if n.role == "entry"})
    shapes = " &nbsp; ".join(ENTRY_GLYPHS[k] for k in kinds if k in ENTRY_GLYPHS)
    arrow = "arrows point from caller to callee; dashed = not a direct call"
    return (f'<div style="font-size:0.8rem;line-height:1.6" data-testid="impact-legend">{swatches}'
            f'<span style="color:#555">{("entry points (dark border): " + shapes + " · ") if shapes else ""}'
            f'{arrow}</span></div>')


def _html_title(text: str) -> str:
    # vis-network shows a string title as text (never as HTML), line breaks kept.
    return text


def agraph_payload(g: ImpactGraph) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """vis-network node and edge dicts (fixed positions, physics off)."""
    nodes = []
    for n in g.nodes:
        border = ENTRY_BORDER if n.role == "entry" else "#7A7A7A" if n.role in ("more", "cluster") else n.color
        nodes.append({
            "id": n.id, "label": n.label, "title": _html_title(n.title), "shape": n.shape, "size": n.size,
            "color": {"background": n.color, "border": border,
                      "highlight": {"background": n.color, "border": "#D62728"},
                      "hover": {"background": n.color, "border": "#D62728"}},
            "x": n.x, "y": n.y, "physics": False, "borderWidth": 3 if n.role == "entry" else 1,
            "font": {"size": 18 if n.role == "target" else 14, "strokeWidth": 3, "strokeColor": "#FFFFFF",
                     "color": "#1B1B1B"},
        })
    if g.nodes:
        # vis-network fits node centres, not labels: two invisible corner nodes keep the
        # outermost labels inside the frame.
        xs, ys = [n.x for n in g.nodes], [n.y for n in g.nodes]
        pad = 110.0
        for i, (x, y) in enumerate(((min(xs) - pad, min(ys) - pad / 3), (max(xs) + pad, max(ys) + pad / 3))):
            nodes.append({"id": f"pad|{i}", "label": " ", "title": " ", "shape": "dot", "size": 1, "x": x, "y": y,
                          "physics": False, "color": "rgba(0,0,0,0)", "chosen": False})
    edges = [{
        "source": e.source, "target": e.target, "title": _html_title(e.title + (f" ({e.count} edges)" if e.count > 1
                                                                                 else "")),
        "color": "#9A9A9A", "dashes": e.via != CALLS, "arrows": "to", "width": min(1 + math.log2(e.count), 5),
    } for e in g.edges]
    return nodes, edges


def vis_options(g: ImpactGraph, height: int) -> dict[str, Any]:
    """Only documented vis-network options (an unknown one logs a console error per draw)."""
    smooth = ({"enabled": True, "type": "cubicBezier", "forceDirection": "horizontal", "roundness": 0.45}
              if g.layout == "layered" else {"enabled": True, "type": "continuous", "roundness": 0.3})
    return {
        "height": f"{height}px", "width": "100%", "autoResize": True,
        "physics": {"enabled": False},
        "layout": {"hierarchical": {"enabled": False}},
        "interaction": {"hover": True, "zoomView": True, "dragView": True, "navigationButtons": False,
                        "tooltipDelay": 150, "hideEdgesOnDrag": True},
        "edges": {"smooth": smooth, "selectionWidth": 2},
        "nodes": {"borderWidthSelected": 3},
    }


def render(g: ImpactGraph, height: int = 560) -> str | None:
    """Draw ``g``; returns the uid of the node clicked last, or None."""
    from streamlit_agraph import Edge, Node, agraph

    nodes, edges = agraph_payload(g)
    # agraph() serialises config.__dict__ as the vis options: pass exactly ours.
    cfg = SimpleNamespace(**vis_options(g, height))
    value = agraph([Node(**n) for n in nodes],
                   [Edge(e.pop("source"), e.pop("target"), **e) for e in edges], cfg)
    return str(value) if value else None

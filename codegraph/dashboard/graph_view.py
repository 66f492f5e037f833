"""The impact graph drawn with streamlit-agraph (vis-network).

Layout is computed here, not by physics: the target sits in the centre and callers lie
on rings by depth (ring d = callers d hops away), each ring ordered by the angle of
the node it reaches so branches stay together. Nodes are coloured by kind or by depth;
entry points have their own shapes (diamond: endpoint / page / topic consumer,
triangle: test). ``build_impact_graph`` is pure (testable without a browser);
``render`` draws it and returns the uid of the clicked node, if any.
"""

from __future__ import annotations

import html
import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from codegraph.core.impact import Caller, ImpactResult, NodeRef
from codegraph.core.models import CALLS

TARGET_COLOUR = "#FFB000"
HIDDEN_COLOUR = "#C8C8C8"
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
# Depth 1 (direct callers) dark to depth 8+ light: distance reads as fading.
REPO_COLOURS = ["#1F77B4", "#2CA02C", "#D62728", "#9467BD", "#8C564B", "#E377C2", "#17BECF", "#BCBD22"]
DEPTH_COLOURS = ["#0D0887", "#5302A3", "#8B0AA5", "#B83289", "#DB5C68", "#F48849", "#FEBD2A", "#F0F921"]
ENTRY_SHAPES = {"endpoint": "diamond", "page": "diamond", "consumer": "diamond", "test": "triangle"}
RING_GAP = 130.0
FIRST_RING = 160.0
NODE_SPACING = 48.0  # px of arc per node: rings widen when crowded
LEAF_ANGLE = 0.5  # radians of fan per leaf of a branch, at most
MAX_RING_STEP = 900.0  # px a crowded ring may add beyond the previous one


def kind_group(kind: str) -> str:
    return _KIND_GROUP.get(kind, "other")


def depth_colour(depth: int) -> str:
    return DEPTH_COLOURS[min(max(depth, 1), len(DEPTH_COLOURS)) - 1]


@dataclass(slots=True)
class GNode:
    id: str
    label: str
    title: str
    depth: float
    kind: str
    role: str  # target | caller | entry | hidden
    entry_kind: str = ""
    parent: str = ""
    x: float = 0.0
    y: float = 0.0
    color: str = ""
    shape: str = "dot"
    size: int = 16
    repo: str = ""  # colour_by="repo": repository boundaries in a workspace answer


@dataclass(slots=True)
class GEdge:
    source: str
    target: str
    via: str
    title: str


@dataclass(slots=True)
class ImpactGraph:
    nodes: list[GNode] = field(default_factory=list)
    edges: list[GEdge] = field(default_factory=list)
    drawn_callers: int = 0
    listed_callers: int = 0
    colour_by: str = "kind"
    repos: list[str] = field(default_factory=list)  # repositories drawn, sorted

    def node(self, uid: str) -> GNode | None:
        return next((n for n in self.nodes if n.id == uid), None)


def _short(name: str) -> str:
    for sep in ("::", "#", ".", "/"):
        if sep in name:
            name = name.rsplit(sep, 1)[-1]
    return name[:40]


def _title(ref: NodeRef, extra: str = "") -> str:
    where = f"{ref.file}:{ref.line}" if ref.file else ref.repo
    return f"{ref.qualified_name}\n{ref.kind} · {where}" + (f"\n{extra}" if extra else "")


def build_impact_graph(
    res: ImpactResult,
    colour_by: str = "kind",
    max_callers: int = 150,
    entry_anchors: dict[str, str] | None = None,
) -> ImpactGraph:
    """Nodes and edges for ``res`` with ring positions.

    ``max_callers`` caps the callers drawn (closest first); ``entry_anchors`` maps an
    endpoint's uid to the uid of the symbol that exposes it (so the endpoint is drawn
    next to its handler). Callers whose next hop is not drawn (a hidden test, a
    widened class member, a caller past the list limit) hang off a grey placeholder.
    """
    g = ImpactGraph(colour_by=colour_by, listed_callers=len(res.callers))
    by_id: dict[str, GNode] = {}
    by_name: dict[str, list[GNode]] = defaultdict(list)

    def add(n: GNode, name: str) -> GNode:
        if n.id in by_id:
            return by_id[n.id]
        by_id[n.id] = n
        by_name[name].append(n)
        g.nodes.append(n)
        return n

    for t in res.targets:
        add(GNode(t.uid, _short(t.name or t.qualified_name), _title(t, "target"), 0, t.kind, "target",
                  repo=t.repo), t.qualified_name)
    centre = res.targets[0].uid if res.targets else ""

    drawn: list[Caller] = res.callers[:max_callers]
    g.drawn_callers = len(drawn)
    for c in drawn:
        why = f"depth {c.depth} via {c.via} at {c.evidence_file}:{c.evidence_line} ({c.resolution or 'n/a'})"
        add(GNode(c.node.uid, _short(c.node.name or c.node.qualified_name), _title(c.node, why), c.depth,
                  c.node.kind, "caller", repo=c.node.repo), c.node.qualified_name)

    def anchor_for(name: str, depth: float) -> GNode:
        cands = by_name.get(name, [])
        exact = [n for n in cands if n.depth == depth]
        if exact or cands:
            return (exact or cands)[0]
        # Not drawn: make a grey placeholder one ring inside, attached to the centre.
        ph = add(GNode(f"hidden|{name}", _short(name), f"{name}\nnot drawn (a widened member of the target, a hidden "
                       "test, or past the list limit)", max(depth, 0.5), "", "hidden"), name)
        if centre and ph.id != centre:
            g.edges.append(GEdge(ph.id, centre, "member" if depth <= 0.5 else "…", "reaches the target"))
            ph.parent = centre
        return ph

    for c in drawn:
        if len(c.path) < 2:
            continue
        a = anchor_for(c.path[1], c.depth - 1)
        by_id[c.node.uid].parent = a.id
        g.edges.append(GEdge(c.node.uid, a.id, c.via,
                             f"{c.via} at {c.evidence_file}:{c.evidence_line} ({c.resolution or 'n/a'})"))

    entry_anchors = entry_anchors or {}
    for e in res.entry_points:
        if e.kind in ("test", "consumer"):
            n = by_id.get(e.node.uid)
            if n is not None:
                n.role, n.entry_kind = "entry", e.kind
            continue
        parent: GNode | None = None
        if e.kind == "endpoint":
            parent = by_id.get(entry_anchors.get(e.node.uid, ""))
        elif e.kind == "page":
            in_file = [n for c in drawn if c.node.file == e.node.file and c.node.repo == e.node.repo
                       for n in [by_id[c.node.uid]]]
            parent = min(in_file, key=lambda n: n.depth) if in_file else None
        parent = parent or by_id.get(centre)
        depth = (parent.depth if parent else 0) + 1
        n = add(GNode(e.node.uid, _short(e.node.name or e.node.qualified_name), _title(e.node, e.reason), depth,
                      e.kind, "entry", e.kind, parent.id if parent else "", repo=e.node.repo), e.node.qualified_name)
        if parent is not None:
            g.edges.append(GEdge(n.id, parent.id, "EXPOSES" if e.kind == "endpoint" else "route", e.reason))

    _layout(g)
    g.repos = sorted({n.repo for n in g.nodes if n.repo})
    for n in g.nodes:
        _style(n, colour_by, g.repos)
    return g


def _layout(g: ImpactGraph) -> None:
    """Radial tree: targets in the middle, depth d on ring d, and every node inside the
    angular sector of the node it reaches, sized by the leaves below it (a thin branch
    gets a narrow fan, at most LEAF_ANGLE per leaf), so branches never cross. Several
    targets sit on a small inner circle, each facing its own callers."""
    ids = {n.id for n in g.nodes}
    targets = [n for n in g.nodes if n.role == "target"]
    children: dict[str, list[GNode]] = defaultdict(list)
    orphans: list[GNode] = []
    for n in g.nodes:
        if n.role == "target":
            continue
        if n.parent in ids and n.parent != n.id:
            children[n.parent].append(n)
        else:
            orphans.append(n)
    for lst in children.values():
        lst.sort(key=lambda n: (n.depth, n.label, n.id))
    leaves: dict[str, int] = {}

    def count(n: GNode, path: frozenset[str] = frozenset()) -> int:
        if n.id not in leaves:
            kids = [k for k in children.get(n.id, []) if k.id not in path]
            leaves[n.id] = sum(count(k, path | {n.id}) for k in kids) or 1
        return leaves[n.id]

    angle: dict[str, float] = {}
    placed: set[str] = set()

    def fan(kids: list[GNode], lo: float, hi: float) -> None:
        kids = [k for k in kids if k.id not in placed]
        weight = sum(count(k) for k in kids)
        if not kids:
            return
        width = min(hi - lo, weight * LEAF_ANGLE)
        at = (lo + hi - width) / 2
        for k in kids:
            w = width * count(k) / weight
            place(k, at, at + w)
            at += w

    def place(n: GNode, lo: float, hi: float) -> None:
        placed.add(n.id)
        angle[n.id] = (lo + hi) / 2 - math.pi / 2
        fan(children.get(n.id, []), lo, hi)

    groups: list[tuple[GNode | None, list[GNode]]] = [(t, children.get(t.id, [])) for t in targets]
    if orphans:
        groups.append((None, orphans))
    weights = [sum(count(k) for k in kids) or 1 for _, kids in groups]
    total = sum(weights)
    inner = 0.0 if len(targets) <= 1 else max(60.0, len(targets) * NODE_SPACING / (2 * math.pi))
    at = 0.0
    for (t, kids), w in zip(groups, weights, strict=True):
        lo, hi = at, at + 2 * math.pi * w / total
        at = hi
        if t is not None:
            a = (lo + hi) / 2 - math.pi / 2
            t.x, t.y = round(inner * math.cos(a), 1), round(inner * math.sin(a), 1)
            placed.add(t.id)
        fan(kids, lo, hi)

    # Ring radii from the angles: wide enough that the two closest nodes of a ring sit
    # NODE_SPACING apart (capped, so one huge fan cannot push everything off-screen).
    rings: dict[float, list[float]] = defaultdict(list)
    for n in g.nodes:
        if n.id in angle:
            rings[n.depth].append(angle[n.id] % (2 * math.pi))
    radius: dict[float, float] = {}
    r = 0.0
    for d in sorted(rings):
        a = sorted(rings[d])
        gaps = [b - x for x, b in zip(a, a[1:], strict=False)] + [a[0] + 2 * math.pi - a[-1]]
        need = NODE_SPACING / max(min(gaps), 1e-3) if len(a) > 1 else 0.0
        r = max(r + (RING_GAP if r else FIRST_RING * min(d, 1.0)), min(need, r + MAX_RING_STEP))
        radius[d] = r
    for n in g.nodes:
        if n.id in angle:
            n.x = round(radius[n.depth] * math.cos(angle[n.id]), 1)
            n.y = round(radius[n.depth] * math.sin(angle[n.id]), 1)


def repo_colour(repo: str, repos: list[str]) -> str:
    """One colour per repository of the answer (sorted names, so stable across reruns)."""
    return REPO_COLOURS[repos.index(repo) % len(REPO_COLOURS)] if repo in repos else HIDDEN_COLOUR


def _style(n: GNode, colour_by: str, repos: list[str] | None = None) -> None:
    if n.role == "target":
        n.color, n.shape, n.size = TARGET_COLOUR, "star", 34
        return
    if n.role == "hidden":
        n.color, n.shape, n.size = HIDDEN_COLOUR, "dot", 10
        return
    if colour_by == "depth":
        n.color = depth_colour(int(math.ceil(n.depth)))
    elif colour_by == "repo":
        n.color = repo_colour(n.repo, repos or [])
    else:
        n.color = KIND_COLOURS[kind_group(n.kind)]
    if n.role == "entry":
        n.shape, n.size = ENTRY_SHAPES.get(n.entry_kind, "diamond"), 20


def legend_html(g: ImpactGraph) -> str:
    """A one-row legend of the colours and shapes used in ``g``."""
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
    swatches = "".join(
        f'<span style="display:inline-flex;align-items:center;margin-right:14px">'
        f'<span style="width:12px;height:12px;border-radius:50%;background:{c};display:inline-block;'
        f'margin-right:5px;border:1px solid #666"></span>{html.escape(t)}</span>' for c, t in items)
    shapes = "◆ endpoint / page / topic consumer &nbsp; ▲ test &nbsp; ● caller"
    return (f'<div style="font-size:0.85rem;line-height:1.8" data-testid="impact-legend">{swatches}'
            f'<br><span style="color:#555">{shapes} · arrows point from caller to callee; '
            f'dashed = not a direct call</span></div>')


def agraph_payload(g: ImpactGraph) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """vis-network node and edge dicts (fixed positions, physics off)."""
    nodes = [{
        "id": n.id, "label": n.label, "title": n.title, "color": n.color, "shape": n.shape, "size": n.size,
        "x": n.x, "y": n.y, "physics": False, "font": {"size": 16 if n.role != "target" else 19, "strokeWidth": 3, "strokeColor": "#FFFFFF"},
        "borderWidth": 3 if n.role == "entry" else 1,
    } for n in g.nodes]
    if g.nodes:
        # vis-network fits node centres, not labels: two invisible corner nodes keep the
        # outermost labels inside the frame.
        xs, ys = [n.x for n in g.nodes], [n.y for n in g.nodes]
        pad = 90.0
        for i, (x, y) in enumerate(((min(xs) - pad, min(ys) - pad / 2), (max(xs) + pad, max(ys) + pad / 2))):
            nodes.append({"id": f"pad|{i}", "label": " ", "title": " ", "shape": "dot", "size": 1, "x": x, "y": y,
                          "physics": False, "color": "rgba(0,0,0,0)", "chosen": False})
    edges = [{
        "source": e.source, "target": e.target, "title": e.title, "color": "#9A9A9A",
        "dashes": e.via != CALLS, "arrows": "to", "width": 1,
    } for e in g.edges]
    return nodes, edges


def render(g: ImpactGraph, height: int = 620) -> str | None:
    """Draw ``g``; returns the uid of the node clicked last, or None."""
    from streamlit_agraph import Config, Edge, Node, agraph

    nodes, edges = agraph_payload(g)
    cfg = Config(height=height, width=800, directed=True, physics=False, hierarchical=False,
                 interaction={"hover": True, "navigationButtons": False, "zoomView": True, "dragView": True},
                 nodeHighlightBehavior=True, highlightColor="#F7A7A6")
    cfg.width = "100%"  # Config formats width as px; the graph should fill its column
    value = agraph([Node(**n) for n in nodes],
                   [Edge(e.pop("source"), e.pop("target"), **e) for e in edges], cfg)
    return str(value) if value else None

"""Node positions for the impact graph (pure functions over graph_view.GNode lists).

- ``layered`` (the default): the target(s) in column 0 on the left, depth d in column d
  to the right; each column is ordered by the position of the node it reaches
  (barycentre), so a branch stays together and edges barely cross. A crowded column
  wraps into sub-columns of at most MAX_ROWS nodes instead of growing into a tower
  that would shrink every label when the view is fitted.
- ``radial``: the target in the centre, depth d on ring d, every node inside the
  angular sector of the node it reaches (sized by the leaves below it).

Both read ``GNode.depth`` and ``GNode.parent`` and write ``x`` / ``y`` (px).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Protocol


class _Node(Protocol):
    id: str
    label: str
    depth: float
    role: str
    parent: str
    group: str
    x: float
    y: float


LAYER_GAP = 240.0  # px between the first sub-columns of two depths
SUB_GAP = 230.0  # px between the sub-columns of one crowded depth
ROW_GAP = 56.0  # px between two nodes of one column
MAX_ROWS = 18  # nodes per sub-column before a depth wraps into another one

RING_GAP = 130.0
FIRST_RING = 160.0
NODE_SPACING = 48.0  # px of arc per node: rings widen when crowded
LEAF_ANGLE = 0.5  # radians of fan per leaf of a branch, at most
MAX_RING_STEP = 900.0  # px a crowded ring may add beyond the previous one


def layered(nodes: Sequence[_Node]) -> None:
    """Columns by depth, left to right (see the module docstring)."""
    # A column per distinct depth: a placeholder at 0.5 (a widened member) gets its own.
    by_depth: dict[float, list[_Node]] = defaultdict(list)
    for n in nodes:
        by_depth[0.0 if n.role == "target" else max(0.5, n.depth)].append(n)
    pos: dict[str, float] = {}
    x = 0.0
    for d in sorted(by_depth):
        col = by_depth[d]
        # Barycentre of the node each one reaches (already placed: a smaller depth),
        # then its group (module / file) and label, so siblings and groups stay together.
        col.sort(key=lambda n: (pos.get(n.parent, 0.0), n.group, n.label, n.id))
        subs = max(1, math.ceil(len(col) / MAX_ROWS))
        rows = math.ceil(len(col) / subs)
        for i, n in enumerate(col):
            sub, row = divmod(i, rows)
            n.x = round(x + sub * SUB_GAP, 1)
            # Sub-columns shift by half a row so labels of neighbours do not touch.
            n.y = round((row - (rows - 1) / 2) * ROW_GAP + (sub % 2) * ROW_GAP / 2, 1)
            pos[n.id] = n.y
        x += (subs - 1) * SUB_GAP + LAYER_GAP


def radial(nodes: Sequence[_Node]) -> None:
    """Radial tree: targets in the middle, depth d on ring d (see the module docstring).
    Several targets sit on a small inner circle, each facing its own callers."""
    ids = {n.id for n in nodes}
    targets = [n for n in nodes if n.role == "target"]
    children: dict[str, list[_Node]] = defaultdict(list)
    orphans: list[_Node] = []
    for n in nodes:
        if n.role == "target":
            continue
        if n.parent in ids and n.parent != n.id:
            children[n.parent].append(n)
        else:
            orphans.append(n)
    for lst in children.values():
        lst.sort(key=lambda n: (n.depth, n.group, n.label, n.id))
    leaves: dict[str, int] = {}

    def count(n: _Node, path: frozenset[str] = frozenset()) -> int:
        if n.id not in leaves:
            kids = [k for k in children.get(n.id, []) if k.id not in path]
            leaves[n.id] = sum(count(k, path | {n.id}) for k in kids) or 1
        return leaves[n.id]

    angle: dict[str, float] = {}
    placed: set[str] = set()

    def fan(kids: list[_Node], lo: float, hi: float) -> None:
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

    def place(n: _Node, lo: float, hi: float) -> None:
        placed.add(n.id)
        angle[n.id] = (lo + hi) / 2 - math.pi / 2
        fan(children.get(n.id, []), lo, hi)

    groups: list[tuple[_Node | None, list[_Node]]] = [(t, children.get(t.id, [])) for t in targets]
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
    for n in nodes:
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
    for n in nodes:
        if n.id in angle:
            n.x = round(radius[n.depth] * math.cos(angle[n.id]), 1)
            n.y = round(radius[n.depth] * math.sin(angle[n.id]), 1)

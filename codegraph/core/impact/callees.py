"""Callees: what the targets call, hop by hop (the other direction of impact,
docs/DESIGN.md#impact).

Same answer shape as ``impact()`` (an ImpactResult) so every face draws and lists it
the same way: each callee is a Caller whose ``path`` runs from the callee back to the
target, ``depth`` is the number of hops from the target, the evidence is the call
site in the calling code. Calls that end at an UnresolvedSymbol stub are not callees;
they are counted per stub in ``unresolved`` (the honest boundary: "these calls from
the radius could not be linked"). A File target starts from the symbols it declares.
"""

from __future__ import annotations

from codegraph.core.graph_store import GraphStore
from codegraph.core.impact.results import EMPTY_NOTICE, Caller, ImpactResult, NodeRef, Unresolved
from codegraph.core.impact.surroundings import freshness
from codegraph.core.models import CALLS, CALLS_HTTP, DECLARES, FILE, INJECTS, STUB, SYMBOL, Node
from codegraph.core.steps import StepTimer

CALLEE_EDGES = (CALLS, CALLS_HTTP, INJECTS)


def callees(store: GraphStore, targets: list[Node], depth: int = 3, edge_types: list[str] | None = None,
            limit: int = 500) -> ImpactResult:
    """Callees of ``targets`` up to ``depth`` hops over ``edge_types`` (default
    CALLEE_EDGES), nearest first, at most ``limit`` listed (``total_callers`` counts all)."""
    types = list(edge_types or CALLEE_EDGES)
    timer = StepTimer()
    starts = [n for n in targets if n.label == SYMBOL]
    files = [n.uid for n in targets if n.label == FILE]
    if files:
        for lst in store.neighbours(files, "out", [DECLARES]).values():
            starts += [h.node for h in lst if h.node.label == SYMBOL]
    seen = {n.uid for n in targets} | {n.uid for n in starts}
    qn = {n.uid: NodeRef.of(n).qualified_name for n in starts}
    path_of: dict[str, list[str]] = {n.uid: [qn[n.uid]] for n in starts}
    found: list[Caller] = []
    stubs: dict[str, tuple[Node, int]] = {}
    frontier = [n.uid for n in starts]
    for d in range(1, depth + 1):
        if not frontier:
            break
        hits = store.neighbours(frontier, "out", types)
        nxt: list[str] = []
        for src in frontier:
            for h in sorted(hits.get(src, []), key=lambda h: (h.edge.file, h.edge.line, h.node.uid)):
                if h.node.label == STUB:
                    node, n = stubs.get(h.node.uid, (h.node, 0))
                    stubs[h.node.uid] = (node, n + 1)
                    continue
                if h.node.uid in seen:
                    continue
                seen.add(h.node.uid)
                ref = NodeRef.of(h.node)
                path_of[h.node.uid] = [ref.qualified_name, *path_of[src]]
                found.append(Caller(ref, d, path_of[h.node.uid], h.edge.type, h.edge.file, h.edge.line,
                                    h.edge.resolution))
                nxt.append(h.node.uid)
        frontier = nxt
    timer.mark("walk callees", f"{len(found)} callee(s)")
    unresolved = [Unresolved(str(n.props.get("target_identifier", "")), str(n.props.get("reason", "")), k)
                  for n, k in sorted(stubs.values(), key=lambda t: -t[1])]
    found.sort(key=lambda c: (c.depth, c.node.qualified_name, c.node.uid))
    shown = found[:limit]
    return ImpactResult(
        query=" + ".join(qn[n.uid] for n in starts[:3]) or "callees", depth=depth,
        targets=[NodeRef.of(n) for n in targets], callers=shown, entry_points=[], tables=[], unresolved=unresolved,
        total_callers=len(found), shown_callers=len(shown), truncated=len(found) > len(shown), steps=timer.steps,
        freshness=freshness(store, {n.repo for n in targets}), notice=EMPTY_NOTICE, edge_types=types)

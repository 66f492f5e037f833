"""``impact`` and ``callers``: the blast radius of a target, put together from the
widening, the walk and the surroundings (docs/DESIGN.md#impact)."""

from __future__ import annotations

from collections import Counter

from codegraph.core.errors import BadInput
from codegraph.core.graph_store import GraphStore
from codegraph.core.impact.results import ImpactResult, NodeRef
from codegraph.core.impact.surroundings import (
    entries_for_tests,
    entry_points_and_tables,
    freshness,
    mark_tests,
    pages,
    unresolved,
)
from codegraph.core.impact.walk import Walk, callees
from codegraph.core.impact.widening import dispatch as dispatch_of
from codegraph.core.impact.widening import widen
from codegraph.core.models import CALLER_EDGES, CALLS, DERIVED_EDGES, EDGE_TYPES, ENDPOINT, EXPOSES, SYMBOL, Node
from codegraph.core.steps import StepTimer
from codegraph.core.targets import parse_target, resolve_target, resolve_target_in
from codegraph.core.targets import shown as _shown


def callers(store: GraphStore, target: str, repo: str | None = None, limit: int = 200,
            repos: list[str] | None = None) -> ImpactResult:
    """Direct callers (depth 1, CALLS only) of every node ``target`` names: exactly the
    edges the graph has, without widening through dynamic dispatch."""
    return impact(store, target, repo=repo, depth=1, edge_types=[CALLS], limit=limit, dispatch=False, repos=repos)


def impact(
    store: GraphStore,
    target: str,
    repo: str | None = None,
    depth: int = 5,
    edge_types: list[str] | None = None,
    include_tests: bool = True,
    limit: int = 500,
    offset: int = 0,
    dispatch: bool = True,
    repos: list[str] | None = None,
    min_confidence: float = 0.0,
    nodes: list[Node] | None = None,
) -> ImpactResult:
    """Blast radius of ``target`` (see codegraph.core.targets for the forms).

    ``dispatch``: for a method, also walk the callers of the same-named methods on its
    base types (they may run it through dynamic dispatch) and list its overrides.
    ``min_confidence`` (0..1): leave out edges below it (``models.edge_confidence``;
    1.0 = only certain edges, no ``unique_name`` or ambiguous ``overload`` matches).

    Returns an ImpactResult with callers ordered by depth then name, ``offset``/``limit``
    paging through them (totals always for the whole radius), per-step milliseconds and
    freshness. Raises TargetNotFound when the target matches nothing, StoreUnavailable
    when the store does not answer.

    ``repos`` scopes the answer to a workspace (docs/DESIGN.md#workspaces): the target
    is looked up in those repositories and only callers in them are listed; the walk
    crosses repositories over cross-repo edges.

    ``nodes``: start from these graph nodes instead of resolving ``target`` (which then only
    names the answer), e.g. the symbols a free-text search picked (api/answers.py).
    """
    step = StepTimer()
    if nodes is not None:
        resolved = list(nodes)
    else:
        resolved = resolve_target(store, target, repo) if repos is None else resolve_target_in(store, target, repos)
    step("resolve target", f"{len(resolved)} match(es)")
    types = list(edge_types or CALLER_EDGES)
    unknown = [t for t in types if t not in EDGE_TYPES]
    if unknown:  # a typo such as CALL would otherwise answer "0 callers"
        raise BadInput(f"unknown edge type(s) {', '.join(_shown(t, 40) for t in unknown[:5])}; "
                       f"known: {', '.join(DERIVED_EDGES)}")
    start = widen(store, resolved, overloads=parse_target(target).params is None)
    bases, overrides = dispatch_of(store, resolved) if dispatch else ([], [])
    start.extend(n for n in bases if n.uid not in {s.uid for s in start})
    widened = ([{"node": NodeRef.of(n), "reason": "base declaration: its callers may dispatch to the target"}
                for n in bases]
               + [{"node": NodeRef.of(n), "reason": "override: review it when the target's contract changes"}
                  for n in overrides])
    step("widen", f"{len(start)} start node(s), {len(bases)} base declaration(s), {len(overrides)} override(s)")

    # Starting from a table / endpoint / topic: the symbols that touch it are depth 1.
    # Symbol targets keep their answer to callers; importers are listed apart (``importers``).
    symbol_target = bool(resolved) and all(n.label == SYMBOL for n in resolved)
    walk = Walk(store, types, start, min_confidence)
    found, imp_found = walk.run(start, depth, symbol_target, step)
    nodes = walk.nodes

    downstream = []
    if any(n.label == ENDPOINT for n in resolved):
        handlers = [c.node.uid for c in found if c.via == EXPOSES]
        downstream = callees(store, handlers, nodes, max(1, depth))
        step("handler callees", f"{len(downstream)} callee(s)")

    if repos is not None:
        keep = set(repos)
        found = [c for c in found if c.node.repo in keep]
        imp_found = [c for c in imp_found if c.node.repo in keep]
    files = mark_tests(store, found + imp_found, nodes)
    if not include_tests:
        found = [c for c in found if not c.is_test]
        imp_found = [c for c in imp_found if not c.is_test]

    # Entry points and tables around the radius (out-edges of every reached symbol).
    entry, tables = entry_points_and_tables(store, nodes, found + imp_found, downstream)
    entry.extend(entries_for_tests(found))
    page_entries, page_list = pages(files, found + imp_found)
    entry.extend(page_entries)
    step("entry points and tables", f"{len(entry)} entry point(s), {len(tables)} table(s)")

    # The honest boundary: stubs named like a target that might hide more callers.
    stubs = unresolved(store, start)
    step("unresolved boundary", f"{len(stubs)} stub(s) share the name")

    found.sort(key=lambda c: (c.depth, c.node.qualified_name, c.node.uid))
    imp_found.sort(key=lambda c: (c.depth, c.node.qualified_name, c.node.uid))
    total = len(found)
    shown = found[offset:offset + limit]
    return ImpactResult(
        query=target, depth=depth, targets=[NodeRef.of(n) for n in resolved], callers=shown,
        entry_points=sorted(entry, key=lambda e: (e.kind, e.depth, e.node.qualified_name)),
        tables=list(tables.values()), unresolved=stubs, total_callers=total, shown_callers=len(shown),
        truncated=total > offset + len(shown), steps=step.steps,
        freshness=freshness(store, {n.repo for n in resolved}), edge_types=types, importers=imp_found,
        downstream=downstream, pages=page_list, widened=widened, by_repo=dict(Counter(c.node.repo for c in found)),
        min_confidence=min_confidence)

"""Data behind the Impact page, free of Streamlit: the target picker, one impact()
run per picked target merged into one answer, and the rows of every table.

``impact()`` takes one target string, so picked nodes become target strings
(qualified name, ``file:``, ``table:``, ``endpoint:``, ``topic:``) grouped by repo;
a pick of some overloads of a name becomes ``qn(params)`` per picked overload.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from codegraph.core.errors import TargetNotFound
from codegraph.core.graph_store import GraphStore
from codegraph.core.impact import Caller, EntryPoint, ImpactResult, NodeRef, Unresolved, impact
from codegraph.core.models import (
    CALLS,
    DERIVED_EDGES,
    ENDPOINT,
    EXPOSES,
    FILE,
    STUB,
    SYMBOL,
    TABLE,
    TOPIC,
    Node,
    stub_uid,
)
from codegraph.core.targets import parse_target, resolve_target
from codegraph.dashboard.graph_view import Extra

PICKER_LABELS = [SYMBOL, FILE, TABLE, ENDPOINT, TOPIC]


# ---------------------------------------------------------------------------- picker
def candidates(store: GraphStore, text: str, repo: str | None, limit: int = 40) -> list[Node]:
    """Nodes the picker offers for ``text``: what the resolver would take first (exact
    qualified name, else name / suffix matches), then name / path matches.

    Prefixed targets (``file:``, ``table:``...) go through the resolver only.
    Raises TargetNotFound (with suggestions) when nothing matches a prefixed target.
    """
    if not text.strip():
        return []
    if parse_target(text).kind != "symbol":
        return resolve_target(store, text, repo, limit)
    try:
        first = resolve_target(store, text, repo, limit)
    except TargetNotFound:
        first = []
    seen = {n.uid for n in first}
    more = [n for n in store.find_nodes(text.strip(), PICKER_LABELS, repo, limit) if n.uid not in seen]
    return (first + more)[:limit]


def is_bare_name(text: str) -> bool:
    """A name with no qualifier and no prefix (``save``, not ``store.save`` or ``file:x``)."""
    t = text.strip()
    return bool(t) and not any(sep in t for sep in (".", "::", "#", "/", ":", " "))


def default_pick(cands: list[Node], text: str = "") -> list[str]:
    """What the picker preselects: for a bare name, every symbol of exactly that name
    (README: "a bare name (every match, labelled)"); else the best match and its
    overloads (same repo and qualified name)."""
    if not cands:
        return []
    if is_bare_name(text):
        same = [n.uid for n in cands if n.label == SYMBOL and str(n.props.get("name", "")) == text.strip()]
        if same:
            return same
    top = cands[0]
    qn = top.props.get("qualified_name")
    if top.label != SYMBOL or not qn:
        return [top.uid]
    return [n.uid for n in cands if n.label == SYMBOL and n.repo == top.repo and n.props.get("qualified_name") == qn]


def stub_matches(store: GraphStore, text: str, repo: str | None) -> list[tuple[Node, int]]:
    """Unresolved stubs whose target identifier is exactly ``text`` (in ``repo`` or in
    every repo), with the number of call sites that point at each: what a name that
    matches no symbol may still be (``os.path.join`` in a graph without the os module's
    source). Most call sites first."""
    t = text.strip()
    if not t or parse_target(t).kind != "symbol":
        return []
    repos = [repo] if repo else [str(r.props.get("name")) for r in store.repos()]
    stubs = [n for n in store.get_nodes([stub_uid(r, t) for r in repos]).values() if n.label == STUB]
    if not stubs:
        return []
    refs = store.neighbours([n.uid for n in stubs], "in", None)
    return sorted(((n, len(refs.get(n.uid, []))) for n in stubs), key=lambda p: -p[1])


def describe(n: Node) -> str:
    """One picker line: name, kind, file:line, repo."""
    p = n.props
    kind = p.get("kind") or n.label.lower()
    where = p.get("file") or p.get("path") or ""
    if where and p.get("line"):
        where += f":{p['line']}"
    sig = p.get("signature") or ""
    sig = f" {sig[:60]}" if sig and n.label == SYMBOL and sig != p.get("qualified_name") else ""
    return f"{n.display()}{sig} · {kind} · {where or '-'} · {n.repo}"


def target_string(n: Node) -> str:
    """The target text impact() resolves back to ``n`` (and its overloads)."""
    p = n.props
    if n.label == FILE:
        return f"file:{p.get('path', '')}"
    if n.label == TABLE:
        return f"table:{p.get('name', '')}"
    if n.label == TOPIC:
        return f"topic:{p.get('name', '')}"
    if n.label == ENDPOINT:
        return f"endpoint:{p.get('method', '')} {p.get('path_template', '')}".strip()
    return str(p.get("qualified_name") or n.display())


def targets_for(nodes: list[Node], store: GraphStore | None = None) -> list[tuple[str, str]]:
    """Distinct (target string, repo) pairs, in pick order. With ``store``, a pick of
    some but not all overloads of a qualified name names each picked one by its
    parameter types (``qn(int,int)``), so impact() walks only those."""
    picked: dict[tuple[str, str], set[str]] = {}
    for n in nodes:
        if n.label == SYMBOL and n.props.get("params") is not None:
            picked.setdefault((str(n.props.get("qualified_name")), n.repo), set()).add(n.uid)
    partial: set[tuple[str, str]] = set()
    if store is not None:
        for qn, repo in picked:
            every = {m.uid for m in store.symbols_by_qualified_name([qn], repo).get(qn, [])}
            if picked[(qn, repo)] != every:
                partial.add((qn, repo))

    def text(n: Node) -> str:
        key = (str(n.props.get("qualified_name")), n.repo)
        return f"{key[0]}({n.props.get('params')})" if key in partial else target_string(n)

    return list(dict.fromkeys((text(n), n.repo) for n in nodes))


# ---------------------------------------------------------------------------- running
def run_impact(
    store: GraphStore,
    targets: list[tuple[str, str]],
    depth: int,
    edge_types: list[str] | None,
    include_tests: bool,
    limit: int,
    min_confidence: float = 0.0,
) -> ImpactResult:
    """impact() per (target, repo), merged; ``min_confidence`` 1.0 = only certain edges.
    Raises TargetNotFound / StoreUnavailable."""
    results = [impact(store, t, repo=r or None, depth=depth, edge_types=edge_types, include_tests=include_tests,
                      limit=limit, min_confidence=min_confidence) for t, r in targets]
    return merge(results)


def merge(results: list[ImpactResult]) -> ImpactResult:
    """One answer from several: a caller reached from two targets keeps its shortest
    path; totals add the callers each run did not list (an upper bound when both
    runs were cut off, exact otherwise)."""
    if len(results) == 1:
        return results[0]
    if not results:
        raise TargetNotFound("pick at least one target")
    targets = list({t.uid: t for r in results for t in r.targets}.values())
    best: dict[str, Caller] = {}
    for r in results:
        for c in r.callers:
            old = best.get(c.node.uid)
            if old is None or c.depth < old.depth:
                best[c.node.uid] = c
    target_uids = {t.uid for t in targets}
    callers = sorted((c for u, c in best.items() if u not in target_uids),
                     key=lambda c: (c.depth, c.node.qualified_name, c.node.uid))
    entries: dict[tuple[str, str], EntryPoint] = {}
    for r in results:
        for e in r.entry_points:
            k = (e.kind, e.node.uid)
            if k not in entries or e.depth < entries[k].depth:
                entries[k] = e
    tables: dict[tuple[str, str], dict[str, Any]] = {}
    for r in results:
        for t in r.tables:
            row = tables.setdefault((t["repo"], t["table"]), {"table": t["table"], "repo": t["repo"], "access": []})
            row["access"].extend(a for a in t["access"] if a not in row["access"])
    unresolved: dict[str, Unresolved] = {}
    for r in results:
        for u in r.unresolved:
            unresolved.setdefault(u.target_identifier, u)
    hidden = sum(max(0, r.total_callers - r.shown_callers) for r in results)
    steps = [replace(s, name=f"{r.query}: {s.name}") for r in results for s in r.steps]
    freshness = list({f["repo"]: f for r in results for f in r.freshness}.values())
    first = results[0]
    return ImpactResult(
        query=" + ".join(r.query for r in results), depth=first.depth, targets=targets, callers=callers,
        entry_points=sorted(entries.values(), key=lambda e: (e.kind, e.depth, e.node.qualified_name)),
        tables=list(tables.values()), unresolved=list(unresolved.values()), total_callers=len(callers) + hidden,
        shown_callers=len(callers), truncated=any(r.truncated for r in results), steps=steps, freshness=freshness,
        notice=first.notice, edge_types=first.edge_types, min_confidence=first.min_confidence)


def endpoint_handlers(store: GraphStore, res: ImpactResult) -> dict[str, str]:
    """Endpoint uid -> uid of a symbol that exposes it (to draw it next to its handler)."""
    uids = [e.node.uid for e in res.entry_points if e.kind == "endpoint"]
    if not uids:
        return {}
    hits = store.neighbours(uids, "in", [EXPOSES], limit_per_node=1)
    return {u: lst[0].node.uid for u, lst in hits.items() if lst}


def expansions(store: GraphStore, asks: list[tuple[str, str]], per_node: int = 25) -> list[Extra]:
    """The neighbours the person asked to see: ``asks`` holds (uid, "callers" |
    "callees"); at most ``per_node`` CALLS neighbours each, stubs left out."""
    out: list[Extra] = []
    for direction in ("callers", "callees"):
        uids = [u for u, d in asks if d == direction]
        if not uids:
            continue
        hits = store.neighbours(uids, "in" if direction == "callers" else "out", [CALLS], limit_per_node=per_node)
        for uid in uids:
            for h in hits.get(uid, []):
                if h.node.label != STUB:
                    out.append(Extra(NodeRef.of(h.node), uid, direction, h.edge.type, f"{h.edge.file}:{h.edge.line}"))
    return out


def boundary_sites(res: ImpactResult) -> int:
    """Unresolved call sites that may reach the targets (the answer's stub boundary)."""
    return sum(u.references for u in res.unresolved)


# ---------------------------------------------------------------------------- tables
def caller_rows(res: ImpactResult) -> list[dict[str, Any]]:
    return [{
        "caller": c.node.qualified_name, "kind": c.node.kind, "depth": c.depth, "via": c.via,
        "evidence": f"{c.evidence_file}:{c.evidence_line}" if c.evidence_file else "",
        "resolution": c.resolution or "", "confidence": c.confidence, "test": c.is_test, "repo": c.node.repo,
        "path": " → ".join(c.path),
    } for c in res.callers]


def entry_rows(res: ImpactResult) -> list[dict[str, Any]]:
    return [{
        "kind": e.kind, "entry point": e.node.qualified_name,
        "where": f"{e.node.file}:{e.node.line}" if e.node.file else e.node.repo, "depth": e.depth, "reason": e.reason,
    } for e in res.entry_points]


def table_rows(res: ImpactResult) -> list[dict[str, Any]]:
    return [{
        "table": t["table"], "repo": t["repo"],
        "access": "; ".join(f"{a['type']} by {a['by']} ({a['file']}:{a['line']})" for a in t["access"][:8])
        + (f"; … {len(t['access']) - 8} more" if len(t["access"]) > 8 else ""),
    } for t in res.tables]


def unresolved_rows(res: ImpactResult) -> list[dict[str, Any]]:
    return [{"unresolved name": u.target_identifier, "reason": u.reason, "call sites": u.references}
            for u in res.unresolved]


def step_rows(res: ImpactResult) -> list[dict[str, Any]]:
    return [{"step": s.name, "ms": s.ms, "detail": s.detail} for s in res.steps]


REFERENCE_EDGES = [t for t in DERIVED_EDGES]


def edge_rows(store: GraphStore, uid: str, direction: str, limit: int = 200) -> list[dict[str, Any]]:
    """The node's derived edges in ``direction`` ("in": who points at it)."""
    hits = store.neighbours([uid], direction, REFERENCE_EDGES, limit_per_node=limit).get(uid, [])
    return [{
        "edge": h.edge.type, ("from" if direction == "in" else "to"): h.node.display(),
        "label": h.node.props.get("kind") or h.node.label, "evidence": f"{h.edge.file}:{h.edge.line}",
        "resolution": h.edge.resolution, "repo": h.node.repo,
    } for h in hits]

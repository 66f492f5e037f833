"""Callers and impact ("blast radius"): the product's main question.

Semantics from DESIGN.md 'Impact': start from resolved targets, widen by name
(overloads, a class's members, a file's symbols), then walk incoming CALLS / EXTENDS /
IMPLEMENTS / USES_TYPE / INJECTS (and name-aware IMPORTS as leaves) batch by batch up to
``depth``; entry points are tests, endpoints, pages and topic consumers; tables come
from READS/WRITES/TOUCHES. Every caller carries depth, the path that reaches it and the
evidence file:line of the edge. Truncation is explicit (totals vs shown). An empty
answer means "no supported relationship found", never "nothing can break".
"""

from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from codegraph.core.freshness import checkout_drift
from codegraph.core.graph_store import GraphStore
from codegraph.core.models import (
    CALLS,
    CALLS_HTTP,
    CONSUMES,
    ENDPOINT,
    EXPOSES,
    EXTENDS,
    FILE,
    IMPLEMENTS,
    IMPORTS,
    INJECTS,
    READS,
    STUB,
    SYMBOL,
    TABLE,
    TOPIC,
    TOUCHES,
    USES_TYPE,
    WRITES,
    Node,
    file_uid,
)
from codegraph.core.targets import resolve_target

EMPTY_NOTICE = (
    "An empty or short answer means no supported relationship was found, not that nothing "
    "can break: dynamic dispatch, reflection, string-built calls and unsupported languages are invisible."
)
CALLER_EDGES = (CALLS, EXTENDS, IMPLEMENTS, USES_TYPE, INJECTS, IMPORTS, CALLS_HTTP)
TYPE_KINDS = {"class", "interface", "struct", "enum", "trait", "record", "object", "union"}
_TEST_NAME = re.compile(r"^(test_|Test)|(_test|Test|Tests|Spec)$")


@dataclass(slots=True)
class Step:
    name: str
    ms: float
    detail: str = ""


@dataclass(slots=True)
class NodeRef:
    """A node as answers show it."""

    uid: str
    label: str
    name: str
    qualified_name: str
    kind: str
    repo: str
    file: str
    line: int

    @staticmethod
    def of(n: Node) -> NodeRef:
        p = n.props
        return NodeRef(
            uid=n.uid, label=n.label, name=p.get("name") or n.display(),
            qualified_name=p.get("qualified_name") or n.display(), kind=p.get("kind") or n.label.lower(),
            repo=p.get("repo", ""), file=p.get("file") or p.get("path") or "", line=int(p.get("line") or 0))


@dataclass(slots=True)
class Caller:
    """One node in the blast radius. ``path`` runs from this caller to the target
    (qualified names); ``via`` is the edge type; ``evidence_file``/``evidence_line``
    where the code shows it; ``resolution`` how that edge was resolved."""

    node: NodeRef
    depth: int
    path: list[str]
    via: str
    evidence_file: str
    evidence_line: int
    resolution: str
    is_test: bool = False
    sites: list[str] = field(default_factory=list)  # every "file:line" where it reaches the radius


@dataclass(slots=True)
class EntryPoint:
    kind: str  # test | endpoint | page | consumer
    node: NodeRef
    depth: int
    reason: str


@dataclass(slots=True)
class Unresolved:
    """Stubs that share the target's name: call sites that might reach it but could
    not be linked (ambiguous or missing). The honest boundary of the answer."""

    target_identifier: str
    reason: str
    references: int


@dataclass(slots=True)
class ImpactResult:
    query: str
    depth: int
    targets: list[NodeRef]
    callers: list[Caller]
    entry_points: list[EntryPoint]
    tables: list[dict[str, Any]]
    unresolved: list[Unresolved]
    total_callers: int
    shown_callers: int
    truncated: bool
    steps: list[Step]
    freshness: list[dict[str, Any]]
    notice: str = EMPTY_NOTICE
    edge_types: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def freshness(store: GraphStore, repos: set[str] | None = None) -> list[dict[str, Any]]:
    """Per repo: last_imported_at, last_checked_at, commit, and age in hours."""
    out = []
    now = datetime.now(UTC)
    for r in store.repos():
        p = r.props
        if repos and p.get("name") not in repos:
            continue
        age = None
        if p.get("last_imported_at"):
            try:
                age = round((now - datetime.fromisoformat(p["last_imported_at"])).total_seconds() / 3600, 2)
            except ValueError:
                age = None
        out.append({"repo": p.get("name"), "commit": p.get("last_commit_sha"), "path": p.get("path"),
                    "last_imported_at": p.get("last_imported_at"), "last_checked_at": p.get("last_checked_at"),
                    "age_hours": age, "checkout": checkout_drift(p.get("path"), p.get("last_commit_sha"))})
    return out


def _is_test(n: Node, file_is_test: dict[str, bool]) -> bool:
    p = n.props
    if n.label == SYMBOL:
        return bool(file_is_test.get(p.get("file", ""))) or bool(_TEST_NAME.search(p.get("name", "")))
    if n.label == FILE:
        return bool(p.get("is_test"))
    return False


def _widen(store: GraphStore, targets: list[Node]) -> list[Node]:
    """Overloads of the same qualified name, a type's members, a file's symbols."""
    out = {n.uid: n for n in targets}
    qns = [n.props["qualified_name"] for n in targets if n.label == SYMBOL]
    for nodes in store.symbols_by_qualified_name(qns).values():
        for n in nodes:
            if n.repo in {t.repo for t in targets}:
                out.setdefault(n.uid, n)
    types = [n for n in targets if n.label == SYMBOL and n.props.get("kind") in TYPE_KINDS]
    if types:
        by_file = store.nodes_in_files(types[0].repo, list({t.props["file"] for t in types}))
        for t in types:
            for n in by_file.get(t.props["file"], []):
                if n.props.get("parent") == t.props["qualified_name"]:
                    out.setdefault(n.uid, n)
    for f in (n for n in targets if n.label == FILE):
        for nodes in store.nodes_in_files(f.repo, [f.props["path"]]).values():
            for n in nodes:
                out.setdefault(n.uid, n)
    return list(out.values())


def callers(store: GraphStore, target: str, repo: str | None = None, limit: int = 200) -> ImpactResult:
    """Direct callers (depth 1, CALLS only) of every node ``target`` names."""
    return impact(store, target, repo=repo, depth=1, edge_types=[CALLS], limit=limit)


def impact(
    store: GraphStore,
    target: str,
    repo: str | None = None,
    depth: int = 5,
    edge_types: list[str] | None = None,
    include_tests: bool = True,
    limit: int = 500,
    offset: int = 0,
) -> ImpactResult:
    """Blast radius of ``target`` (see codegraph.core.targets for the forms).

    Returns an ImpactResult with callers ordered by depth then name, ``offset``/``limit``
    paging through them (totals always for the whole radius), per-step milliseconds and
    freshness. Raises TargetNotFound when the target matches nothing, StoreUnavailable
    when the store does not answer.
    """
    steps: list[Step] = []
    t = time.perf_counter()

    def step(name: str, detail: str = "") -> None:
        nonlocal t
        now = time.perf_counter()
        steps.append(Step(name, round((now - t) * 1000, 2), detail))
        t = now

    resolved = resolve_target(store, target, repo)
    step("resolve target", f"{len(resolved)} match(es)")
    types = list(edge_types or CALLER_EDGES)
    start = _widen(store, resolved)
    step("widen", f"{len(start)} start node(s)")

    # Starting from a table / endpoint / topic: the symbols that touch it are depth 1.
    visited: dict[str, Caller | None] = {n.uid: None for n in start}
    nodes: dict[str, Node] = {n.uid: n for n in start}
    found: list[Caller] = []
    frontier = [n.uid for n in start]
    target_names = {n.props.get("name") for n in start if n.label == SYMBOL}
    for d in range(1, max(1, depth) + 1):
        if not frontier:
            break
        hits = store.neighbours(frontier, "in", types + [READS, WRITES, TOUCHES, EXPOSES, CONSUMES])
        nxt: list[str] = []
        for anchor, lst in hits.items():
            for h in lst:
                e, src = h.edge, h.node
                if src.label not in (SYMBOL, FILE):
                    continue
                if src.uid in visited:
                    known = visited[src.uid]
                    site = f"{e.file}:{e.line}"
                    if known is not None and site not in known.sites:
                        known.sites.append(site)
                    continue
                if e.type == IMPORTS:
                    names = set(e.extra.get("names") or [])
                    anchor_node = nodes.get(anchor)
                    # Name-aware: an importer that names none of the reached symbols is not affected.
                    if names and not names & ({"*", "default"} | target_names) and anchor_node is not None \
                            and anchor_node.label == FILE and d > 1:
                        continue
                prev = visited.get(anchor)
                anchor_name = nodes[anchor].display() if anchor in nodes else anchor
                path = [src.display()] + (prev.path if prev else [anchor_name])
                c = Caller(NodeRef.of(src), d, path, e.type, e.file, e.line, e.resolution, sites=[f"{e.file}:{e.line}"])
                visited[src.uid] = c
                nodes[src.uid] = src
                found.append(c)
                if e.type != IMPORTS:  # importers are leaves: their real uses are CALLS edges
                    nxt.append(src.uid)
        frontier = nxt
        step(f"depth {d}", f"{len(nxt)} new")

    file_paths = {(c.node.repo, c.node.file) for c in found}
    files = store.get_nodes([file_uid(r, p) for r, p in file_paths])
    file_is_test = {f.props["path"]: bool(f.props.get("is_test")) for f in files.values()}
    for c in found:
        c.is_test = _is_test(nodes[c.node.uid], file_is_test)
    if not include_tests:
        found = [c for c in found if not c.is_test]

    # Entry points and tables around the radius (out-edges of every reached symbol).
    reached = [u for u in nodes]
    outs = store.neighbours(reached, "out", [EXPOSES, CONSUMES, READS, WRITES, TOUCHES])
    entry: list[EntryPoint] = []
    tables: dict[str, dict[str, Any]] = {}
    depth_of = {c.node.uid: c.depth for c in found}
    for uid, lst in outs.items():
        for h in lst:
            if h.node.label == ENDPOINT:
                entry.append(EntryPoint("endpoint", NodeRef.of(h.node), depth_of.get(uid, 0),
                                        f"handled by {nodes[uid].display()} ({h.edge.file}:{h.edge.line})"))
            elif h.node.label == TOPIC:
                entry.append(EntryPoint("consumer", NodeRef.of(nodes[uid]), depth_of.get(uid, 0),
                                        f"consumes topic {h.node.display()}"))
            elif h.node.label == TABLE:
                tables.setdefault(h.node.uid, {"table": h.node.display(), "repo": h.node.repo, "access": []})[
                    "access"].append({"by": nodes[uid].display(), "type": h.edge.type,
                                      "file": h.edge.file, "line": h.edge.line})
    for c in found:
        if c.is_test and c.node.label == SYMBOL and c.node.kind in ("function", "method"):
            entry.append(EntryPoint("test", c.node, c.depth, "test function in the blast radius"))
    for f in files.values():
        if f.props.get("route"):
            entry.append(EntryPoint("page", NodeRef.of(f), min(c.depth for c in found if c.node.file == f.props["path"]),
                                    f"page route {f.props['route']}"))
    step("entry points and tables", f"{len(entry)} entry point(s), {len(tables)} table(s)")

    # The honest boundary: stubs named like a target that might hide more callers.
    names = sorted(n for n in target_names if n)
    unresolved: list[Unresolved] = []
    if names:
        stub_uids = [f"stub|{r}|{name}" for r in {n.repo for n in start} for name in names]
        stub_nodes = store.get_nodes(stub_uids)
        counts = store.neighbours(list(stub_nodes), "in", [CALLS]) if stub_nodes else {}
        for uid, sn in stub_nodes.items():
            unresolved.append(Unresolved(sn.props.get("target_identifier", ""), sn.props.get("reason", ""),
                                         len(counts.get(uid, []))))
    step("unresolved boundary", f"{len(unresolved)} stub(s) share the name")

    found.sort(key=lambda c: (c.depth, c.node.qualified_name, c.node.uid))
    total = len(found)
    shown = found[offset:offset + limit]
    return ImpactResult(
        query=target, depth=depth, targets=[NodeRef.of(n) for n in resolved], callers=shown,
        entry_points=sorted(entry, key=lambda e: (e.kind, e.depth, e.node.qualified_name)),
        tables=list(tables.values()), unresolved=unresolved, total_callers=total, shown_callers=len(shown),
        truncated=total > offset + len(shown), steps=steps,
        freshness=freshness(store, {n.repo for n in resolved}), edge_types=types)


__all__ = ["Caller", "EntryPoint", "ImpactResult", "NodeRef", "Step", "callers", "freshness", "impact", "STUB"]

"""Callers and impact ("blast radius"): the product's main question.

Semantics from DESIGN.md 'Impact': start from resolved targets, widen by name
(overloads, a class's members, a file's symbols), then walk incoming CALLS / EXTENDS /
IMPLEMENTS / USES_TYPE / INJECTS batch by batch up to ``depth``, across boundaries (a
table to its readers and writers, a handler through its Endpoint to the clients that
call it, a producer through its Topic to the consumers) and through name-aware IMPORTS
(an importer counts only when it imports a reached name; barrels forward names; see
``_Walk`` and docs/boundaries.md); entry points are tests, endpoints, pages and topic
consumers; tables come from READS/WRITES/TOUCHES. Every caller carries depth, the path that reaches it and the
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
    PRODUCES,
    READS,
    STUB,
    SYMBOL,
    TABLE,
    TOPIC,
    TOUCHES,
    USES_TYPE,
    WRITES,
    Node,
    Step,
    file_uid,
)
from codegraph.core.targets import resolve_target

EMPTY_NOTICE = (
    "An empty or short answer means no supported relationship was found, not that nothing "
    "can break: dynamic dispatch, reflection, string-built calls and unsupported languages are invisible."
)
CALLER_EDGES = (CALLS, EXTENDS, IMPLEMENTS, USES_TYPE, INJECTS, IMPORTS, CALLS_HTTP, CONSUMES)
_BOUNDARY_IN = (READS, WRITES, TOUCHES, EXPOSES, PRODUCES, CONSUMES, CALLS_HTTP)
TYPE_KINDS = {"class", "interface", "struct", "enum", "trait", "record", "object", "union"}
_TEST_NAME = re.compile(r"^(test_|Test)|(_test|Test|Tests|Spec)$")


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
    # Files that import a reached symbol by name (symbol targets only; for file, table,
    # endpoint and topic targets importers are callers with via IMPORTS).
    importers: list[Caller] = field(default_factory=list)
    # Dispatch: base declarations whose callers were walked too, overrides to review.
    widened: list[dict[str, Any]] = field(default_factory=list)
    # Endpoint targets: what the handler calls (out CALLS, up to the depth).
    downstream: list[Caller] = field(default_factory=list)
    # Pages to re-check: {route, app, file, repo, depth, via, evidence}, nearest first.
    pages: list[dict[str, Any]] = field(default_factory=list)

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


def _hierarchy(store: GraphStore, classes: list[Node], direction: str, levels: int = 6) -> list[Node]:
    """Ancestors ("out" over EXTENDS/IMPLEMENTS) or descendants ("in") of ``classes``."""
    seen = {c.uid for c in classes}
    frontier, out = [c.uid for c in classes], []
    for _ in range(levels):
        hits = store.neighbours(frontier, direction, [EXTENDS, IMPLEMENTS]) if frontier else {}
        frontier = []
        for lst in hits.values():
            for h in lst:
                if h.node.label == SYMBOL and h.node.uid not in seen:
                    seen.add(h.node.uid)
                    out.append(h.node)
                    frontier.append(h.node.uid)
    return out


def _dispatch(store: GraphStore, targets: list[Node]) -> tuple[list[Node], list[Node]]:
    """For method targets: same-named methods on ancestor types (their callers may run
    the target through dynamic dispatch) and on descendant types (overrides to review)."""
    methods = [n for n in targets if n.label == SYMBOL and n.props.get("kind") == "method" and n.props.get("parent")]
    if not methods:
        return [], []
    parents = store.symbols_by_qualified_name(list({m.props["parent"] for m in methods}))
    result: list[list[Node]] = []
    for direction in ("out", "in"):
        found: dict[str, Node] = {}
        for m in methods:
            owners = [c for c in parents.get(m.props["parent"], []) if c.repo == m.repo]
            related = _hierarchy(store, owners, direction)
            by_file = store.nodes_in_files(m.repo, list({c.props["file"] for c in related})) if related else {}
            qns = {c.props["qualified_name"] for c in related}
            for lst in by_file.values():
                for n in lst:
                    if n.props.get("name") == m.props["name"] and n.props.get("parent") in qns:
                        found.setdefault(n.uid, n)
        result.append(list(found.values()))
    return result[0], result[1]


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


class _Walk:
    """Book-keeping of one impact walk across boundaries and name-aware imports.

    ``names[file]``: the names through which the change reached a file (None = all of
    it: a file target, a file-level table access, ``export *`` of a fully reached file);
    ``qns[file]``: the qualified names reached there. An importer is affected when it
    imports one of them (or ``*``, a side-effect or dynamic import); a re-exporting
    importer (barrel) passes the names it forwards on to its own importers.
    Endpoints and topics reached forward (from a handler / a producer) spread only to
    their consumer side: clients (CALLS_HTTP) and consumers (CONSUMES).
    """

    def __init__(self, store: GraphStore, types: list[str], nodes: dict[str, Node],
                 visited: dict[str, Caller | None]) -> None:
        self.store = store
        self.types = set(types)
        self.nodes = nodes
        self.visited = visited
        self.names: dict[str, set[str] | None] = {}
        self.qns: dict[str, set[str]] = {}
        self.pending: dict[str, int] = {}
        self.forward_only: set[str] = set()
        self.in_types = sorted((self.types - {IMPORTS}) | set(_BOUNDARY_IN))

    def allowed(self, anchor: str, etype: str) -> bool:
        n = self.nodes.get(anchor)
        if n is None:
            return False
        if n.label == SYMBOL:
            return etype in self.types and etype not in _BOUNDARY_IN and etype != IMPORTS
        if n.label == TABLE:
            return etype in (READS, WRITES, TOUCHES)
        if n.label == ENDPOINT:
            http = etype == CALLS_HTTP and CALLS_HTTP in self.types
            return http if anchor in self.forward_only else http or etype == EXPOSES
        if n.label == TOPIC:
            return etype == CONSUMES if anchor in self.forward_only else etype in (PRODUCES, CONSUMES)
        return False

    def add(self, src: Node, anchor: str, e: Any, d: int) -> Caller | None:
        if src.uid in self.visited:
            known = self.visited[src.uid]
            site = f"{e.file}:{e.line}"
            if known is not None and site not in known.sites:
                known.sites.append(site)
            return None
        prev = self.visited.get(anchor)
        anchor_name = self.nodes[anchor].display() if anchor in self.nodes else anchor
        path = [src.display()] + (prev.path if prev else [anchor_name])
        c = Caller(NodeRef.of(src), d, path, e.type, e.file, e.line, e.resolution, sites=[f"{e.file}:{e.line}"])
        self.visited[src.uid] = c
        self.nodes[src.uid] = src
        return c

    def reach_file(self, fuid: str, names: set[str] | None, qns: set[str], d: int) -> None:
        had = fuid in self.names
        cur = self.names.get(fuid, set())
        grew = not had
        if cur is not None:
            if names is None:
                self.names[fuid], grew = None, True
            elif not names <= cur:
                self.names[fuid], grew = cur | names, True
            else:
                self.names[fuid] = cur
        q = self.qns.setdefault(fuid, set())
        if not qns <= q:
            q |= qns
            grew = True
        if grew:
            self.pending[fuid] = d

    def reach_symbol(self, n: Node, d: int) -> None:
        p = n.props
        if not p.get("file") or p.get("kind") == "module":
            return
        names, qns = {p.get("name", "")}, {p.get("qualified_name", "")}
        parent = p.get("parent") or ""
        last = parent.rsplit(".", 1)[-1]
        if last[:1].isupper():  # a member reached: importers of its class are affected too
            names.add(last)
            qns.add(parent)
        self.reach_file(file_uid(n.repo, p["file"]), names, qns, d)

    def file_symbols(self, f: Node, names: set[str] | None) -> list[Node]:
        """The symbols of a file a file-level edge points into: those ``names``, or its module symbol."""
        syms = self.store.nodes_in_files(f.repo, [f.props.get("path", "")]).get(f.props.get("path", ""), [])
        if names is None:
            return [n for n in syms if n.props.get("kind") == "module"]
        return [n for n in syms if n.props.get("name") in names and n.props.get("kind") != "module"]

    def importers(self, d: int) -> list[Caller]:
        """Importers of the files whose reached names grew before depth ``d``."""
        if IMPORTS not in self.types:
            self.pending.clear()
            return []
        ready = [f for f, fd in self.pending.items() if fd < d]
        for f in ready:
            del self.pending[f]
        if not ready:
            return []
        out: list[Caller] = []
        hits = self.store.neighbours(ready, "in", [IMPORTS])
        for anchor, lst in hits.items():
            reached = self.names.get(anchor)
            qns = self.qns.get(anchor, set())
            for h in lst:
                e, src = h.edge, h.node
                if src.label != FILE:
                    continue
                names = [str(x) for x in (e.extra.get("names") or [])]
                resolved = e.extra.get("symbols") or {}
                broad = reached is None or not names or "*" in names
                matched = set(names) if broad else {
                    n for n in names if n in reached or set(resolved.get(n, ())) & qns}
                if not matched:
                    continue  # imports only names the change does not reach
                c = self.add(src, anchor, e, d)
                if c is not None:
                    out.append(c)
                if e.extra.get("forwarding"):
                    if "*" in names:
                        # `export *` passes on what reached the module - for a fully reached
                        # module, its own names (not the barrel's other re-exports).
                        fwd: set[str] | None = set(reached) if reached is not None else self.own_names(anchor)
                    else:
                        fwd = matched - {"*"}
                    fq = set(qns) | {q for n in matched for q in resolved.get(n, ())}
                    self.reach_file(src.uid, fwd, fq, d)
        return out

    def own_names(self, fuid: str) -> set[str] | None:
        """Names a file declares (from the graph); None when it is not a known file."""
        _, _, rest = fuid.partition("|")
        repo, _, path = rest.partition("|")
        syms = self.store.nodes_in_files(repo, [path]).get(path)
        if syms is None:
            return None
        return {n.props.get("name", "") for n in syms if n.props.get("kind") != "module"}

    def forward(self, syms: list[str]) -> list[str]:
        """Endpoints exposed and topics produced by newly reached symbols."""
        want = ([EXPOSES] if CALLS_HTTP in self.types else []) + ([PRODUCES] if CONSUMES in self.types else [])
        if not syms or not want:
            return []
        out: list[str] = []
        for lst in self.store.neighbours(syms, "out", want).values():
            for h in lst:
                n = h.node
                if n.label in (ENDPOINT, TOPIC) and n.uid not in self.visited:
                    self.visited[n.uid] = None
                    self.nodes[n.uid] = n
                    self.forward_only.add(n.uid)
                    out.append(n.uid)
        return out


def _callees(store: GraphStore, handlers: list[str], nodes: dict[str, Node], depth: int) -> list[Caller]:
    """What the handlers call, breadth-first up to ``depth`` (stubs left out)."""
    out: list[Caller] = []
    seen: dict[str, Caller | None] = {u: None for u in handlers}
    frontier = list(handlers)
    for d in range(1, depth + 1):
        if not frontier:
            break
        nxt: list[str] = []
        for anchor, lst in store.neighbours(frontier, "out", [CALLS]).items():
            for h in lst:
                n = h.node
                if n.label != SYMBOL or n.uid in seen:
                    continue
                prev = seen.get(anchor)
                start = nodes[anchor].display() if anchor in nodes else anchor
                c = Caller(NodeRef.of(n), d, (prev.path if prev else [start]) + [n.display()], CALLS, h.edge.file,
                           h.edge.line, h.edge.resolution, sites=[f"{h.edge.file}:{h.edge.line}"])
                seen[n.uid] = c
                out.append(c)
                nxt.append(n.uid)
        frontier = nxt
    out.sort(key=lambda c: (c.depth, c.node.qualified_name))
    return out


def callers(store: GraphStore, target: str, repo: str | None = None, limit: int = 200) -> ImpactResult:
    """Direct callers (depth 1, CALLS only) of every node ``target`` names: exactly the
    edges the graph has, without widening through dynamic dispatch."""
    return impact(store, target, repo=repo, depth=1, edge_types=[CALLS], limit=limit, dispatch=False)


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
) -> ImpactResult:
    """Blast radius of ``target`` (see codegraph.core.targets for the forms).

    ``dispatch``: for a method, also walk the callers of the same-named methods on its
    base types (they may run it through dynamic dispatch) and list its overrides.

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
    bases, overrides = _dispatch(store, resolved) if dispatch else ([], [])
    start.extend(n for n in bases if n.uid not in {s.uid for s in start})
    widened = ([{"node": NodeRef.of(n), "reason": "base declaration: its callers may dispatch to the target"}
                for n in bases]
               + [{"node": NodeRef.of(n), "reason": "override: review it when the target's contract changes"}
                  for n in overrides])
    step("widen", f"{len(start)} start node(s), {len(bases)} base declaration(s), {len(overrides)} override(s)")

    # Starting from a table / endpoint / topic: the symbols that touch it are depth 1.
    visited: dict[str, Caller | None] = {n.uid: None for n in start}
    nodes: dict[str, Node] = {n.uid: n for n in start}
    found: list[Caller] = []
    frontier = [n.uid for n in start]
    target_names = {n.props.get("name") for n in start if n.label == SYMBOL}
    # Symbol targets keep their answer to callers; importers are listed apart (``importers``).
    symbol_target = bool(resolved) and all(n.label == SYMBOL for n in resolved)
    imp_found: list[Caller] = []
    walk = _Walk(store, types, nodes, visited)
    for n in start:
        if n.label == SYMBOL:
            walk.reach_symbol(n, 0)
        elif n.label == FILE:
            walk.reach_file(n.uid, None, set(), 0)
    # A target that handles an endpoint or produces to a topic reaches clients / consumers.
    frontier.extend(walk.forward([n.uid for n in start if n.label == SYMBOL]))
    for d in range(1, max(1, depth) + 1):
        if not frontier and not walk.pending:
            break
        new: list[Caller] = []
        nxt: list[str] = []
        if frontier:
            hits = store.neighbours(frontier, "in", walk.in_types)
            for anchor, lst in hits.items():
                for h in lst:
                    e, src = h.edge, h.node
                    if src.label not in (SYMBOL, FILE) or not walk.allowed(anchor, e.type):
                        continue
                    c = walk.add(src, anchor, e, d)
                    if c is None:
                        continue
                    new.append(c)
                    if src.label == SYMBOL:
                        walk.reach_symbol(src, d)
                        nxt.append(src.uid)
                    elif e.type == TOUCHES:  # a file-level table access: the file, or the model it names
                        names = set(e.extra.get("names") or []) or None
                        walk.reach_file(src.uid, names, set(), d)
                        for sym in walk.file_symbols(src, names):
                            sc = walk.add(sym, src.uid, e, d)
                            if sc is not None:
                                new.append(sc)
                                walk.reach_symbol(sym, d)
                                nxt.append(sym.uid)
        new_imp = walk.importers(d)
        for c in new_imp:
            (imp_found if symbol_target else new).append(c)
        found.extend(new)
        # Forward through the boundary: a handler's endpoint reaches its clients, a
        # producer's topic its consumers (next depth).
        nxt.extend(walk.forward(nxt))
        frontier = nxt
        step(f"depth {d}", f"{len(new) + len(new_imp)} new")

    downstream: list[Caller] = []
    if any(n.label == ENDPOINT for n in resolved):
        handlers = [c.node.uid for c in found if c.via == EXPOSES]
        downstream = _callees(store, handlers, nodes, max(1, depth))
        step("handler callees", f"{len(downstream)} callee(s)")

    file_paths = {(c.node.repo, c.node.file) for c in found + imp_found}
    files = store.get_nodes([file_uid(r, p) for r, p in file_paths])
    file_is_test = {f.props["path"]: bool(f.props.get("is_test")) for f in files.values()}
    for c in found + imp_found:
        c.is_test = _is_test(nodes[c.node.uid], file_is_test)
    if not include_tests:
        found = [c for c in found if not c.is_test]
        imp_found = [c for c in imp_found if not c.is_test]

    # Entry points and tables around the radius (out-edges of every reached symbol).
    reached = [u for u in nodes if nodes[u].label in (SYMBOL, FILE)]
    outs = store.neighbours(reached, "out", [EXPOSES, CONSUMES, READS, WRITES, TOUCHES])
    entry: list[EntryPoint] = []
    tables: dict[str, dict[str, Any]] = {}
    depth_of = {c.node.uid: c.depth for c in found + imp_found}
    seen_entry: set[tuple[str, str]] = set()
    for uid, lst in outs.items():
        for h in lst:
            src_node = nodes.get(uid)
            if src_node is None:
                continue
            if h.node.label == ENDPOINT and ("endpoint", h.node.uid) not in seen_entry:
                seen_entry.add(("endpoint", h.node.uid))
                entry.append(EntryPoint("endpoint", NodeRef.of(h.node), depth_of.get(uid, 0),
                                        f"handled by {src_node.display()} ({h.edge.file}:{h.edge.line})"))
            elif h.node.label == TOPIC and h.edge.type == CONSUMES and ("consumer", uid) not in seen_entry:
                seen_entry.add(("consumer", uid))
                entry.append(EntryPoint("consumer", NodeRef.of(src_node), depth_of.get(uid, 0),
                                        f"consumes topic {h.node.display()} ({h.edge.file}:{h.edge.line})"))
            elif h.node.label == TABLE:
                tables.setdefault(h.node.uid, {"table": h.node.display(), "repo": h.node.repo, "access": []})[
                    "access"].append({"by": src_node.display(), "type": h.edge.type,
                                      "file": h.edge.file, "line": h.edge.line})
    if downstream:  # tables the handler reaches through its callees
        by_uid = {c.node.uid: c for c in downstream}
        for uid, lst in store.neighbours(list(by_uid), "out", [READS, WRITES, TOUCHES]).items():
            for h in lst:
                if h.node.label == TABLE:
                    tables.setdefault(h.node.uid, {"table": h.node.display(), "repo": h.node.repo, "access": []})[
                        "access"].append({"by": by_uid[uid].node.qualified_name, "type": h.edge.type,
                                          "file": h.edge.file, "line": h.edge.line, "downstream": True})
    for c in found:
        if c.is_test and c.node.label == SYMBOL and c.node.kind in ("function", "method"):
            entry.append(EntryPoint("test", c.node, c.depth, "test function in the blast radius"))
    pages: list[dict[str, Any]] = []
    everyone = found + imp_found
    for f in sorted(files.values(), key=lambda n: n.props.get("path", "")):
        if f.props.get("route"):
            reach = [c for c in everyone if c.node.file == f.props["path"]]
            if not reach:
                continue
            first = min(reach, key=lambda c: c.depth)
            entry.append(EntryPoint("page", NodeRef.of(f), first.depth, f"page route {f.props['route']}"))
            pages.append({"route": f.props["route"], "app": f.props.get("app"), "file": f.props["path"],
                          "repo": f.repo, "depth": first.depth, "via": first.node.qualified_name,
                          "evidence": f"{first.evidence_file}:{first.evidence_line}"})
    pages.sort(key=lambda p: (p["depth"], p["route"], p["file"]))
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
    imp_found.sort(key=lambda c: (c.depth, c.node.qualified_name, c.node.uid))
    total = len(found)
    shown = found[offset:offset + limit]
    return ImpactResult(
        query=target, depth=depth, targets=[NodeRef.of(n) for n in resolved], callers=shown,
        entry_points=sorted(entry, key=lambda e: (e.kind, e.depth, e.node.qualified_name)),
        tables=list(tables.values()), unresolved=unresolved, total_callers=total, shown_callers=len(shown),
        truncated=total > offset + len(shown), steps=steps,
        freshness=freshness(store, {n.repo for n in resolved}), edge_types=types, importers=imp_found,
        downstream=downstream, pages=pages, widened=widened)


__all__ = ["Caller", "EntryPoint", "ImpactResult", "NodeRef", "Step", "callers", "freshness", "impact", "STUB"]

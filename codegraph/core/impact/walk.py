"""The impact walk: incoming edges batch by batch up to a depth, across boundaries and
through name-aware imports (docs/DESIGN.md#impact, docs/boundaries.md).

Per depth one ``neighbours`` call for the frontier (CALLS / EXTENDS / IMPLEMENTS /
USES_TYPE / INJECTS and the boundary edges) and one for the importers of the files
whose reached names grew. A table reaches its readers and writers, a handler through
its Endpoint the clients that call it, a producer through its Topic the consumers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from codegraph.core.graph_store import GraphStore
from codegraph.core.impact.results import Caller, NodeRef
from codegraph.core.models import (
    CALLS,
    CALLS_HTTP,
    CONSUMES,
    ENDPOINT,
    EXPOSES,
    FILE,
    IMPORTS,
    PRODUCES,
    READS,
    SYMBOL,
    TABLE,
    TOPIC,
    TOUCHES,
    WRITES,
    Node,
    edge_confidence,
    file_uid,
    parse_uid,
)

BOUNDARY_IN = (READS, WRITES, TOUCHES, EXPOSES, PRODUCES, CONSUMES, CALLS_HTTP)

StepFn = Callable[[str, str], None]


class Walk:
    """Book-keeping of one impact walk across boundaries and name-aware imports.

    ``names[file]``: the names through which the change reached a file (None = all of
    it: a file target, a file-level table access, ``export *`` of a fully reached file);
    ``qns[file]``: the qualified names reached there. An importer is affected when it
    imports one of them (or ``*``, a side-effect or dynamic import); a re-exporting
    importer (barrel) passes the names it forwards on to its own importers.
    Endpoints and topics reached forward (from a handler / a producer) spread only to
    their consumer side: clients (CALLS_HTTP) and consumers (CONSUMES).

    ``visited`` maps every node uid in the radius to its Caller (None for the start
    nodes and for endpoints/topics reached forward); ``nodes`` holds their Node.
    """

    def __init__(self, store: GraphStore, types: list[str], start: list[Node], min_confidence: float = 0.0) -> None:
        self.store = store
        self.min_confidence = min_confidence
        self.types = set(types)
        self.nodes: dict[str, Node] = {n.uid: n for n in start}
        self.visited: dict[str, Caller | None] = {n.uid: None for n in start}
        self.names: dict[str, set[str] | None] = {}
        self.qns: dict[str, set[str]] = {}
        self.pending: dict[str, int] = {}
        self.forward_only: set[str] = set()
        self.in_types = sorted((self.types - {IMPORTS}) | set(BOUNDARY_IN))

    def run(self, start: list[Node], depth: int, symbol_target: bool, step: StepFn) -> tuple[list[Caller], list[Caller]]:
        """Walk from ``start`` up to ``depth`` (at least 1). Returns (callers, importers):
        for a symbol target importers are kept apart, otherwise they are callers too.
        ``step(name, detail)`` is called once per depth walked."""
        found: list[Caller] = []
        imp_found: list[Caller] = []
        frontier = [n.uid for n in start]
        for n in start:
            if n.label == SYMBOL:
                self.reach_symbol(n, 0)
            elif n.label == FILE:
                self.reach_file(n.uid, None, set(), 0)
        # A target that handles an endpoint or produces to a topic reaches clients / consumers.
        frontier.extend(self.forward([n.uid for n in start if n.label == SYMBOL]))
        for d in range(1, max(1, depth) + 1):
            if not frontier and not self.pending:
                break
            new, nxt = self.incoming(frontier, d) if frontier else ([], [])
            new_imp = self.importers(d)
            for c in new_imp:
                (imp_found if symbol_target else new).append(c)
            found.extend(new)
            # Forward through the boundary: a handler's endpoint reaches its clients, a
            # producer's topic its consumers (next depth).
            nxt.extend(self.forward(nxt))
            frontier = nxt
            step(f"depth {d}", f"{len(new) + len(new_imp)} new")
        return found, imp_found

    def incoming(self, frontier: list[str], d: int) -> tuple[list[Caller], list[str]]:
        """The new callers at depth ``d`` over incoming edges of ``frontier``, and the
        symbol uids to walk on from."""
        new: list[Caller] = []
        nxt: list[str] = []
        hits = self.store.neighbours(frontier, "in", self.in_types)
        for anchor, lst in hits.items():
            for h in lst:
                e, src = h.edge, h.node
                if src.label not in (SYMBOL, FILE) or not self.allowed(anchor, e.type):
                    continue
                if self.min_confidence and edge_confidence(e) < self.min_confidence:
                    continue  # a name match the caller asked to leave out
                c = self.add(src, anchor, e, d)
                if c is None:
                    continue
                new.append(c)
                if src.label == SYMBOL:
                    self.reach_symbol(src, d)
                    nxt.append(src.uid)
                elif e.type == TOUCHES:  # a file-level table access: the file, or the model it names
                    names = set(e.extra.get("names") or []) or None
                    self.reach_file(src.uid, names, set(), d)
                    for sym in self.file_symbols(src, names):
                        sc = self.add(sym, src.uid, e, d)
                        if sc is not None:
                            new.append(sc)
                            self.reach_symbol(sym, d)
                            nxt.append(sym.uid)
        return new, nxt

    def allowed(self, anchor: str, etype: str) -> bool:
        n = self.nodes.get(anchor)
        if n is None:
            return False
        if n.label == SYMBOL:
            return etype in self.types and etype not in BOUNDARY_IN and etype != IMPORTS
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
        c = Caller(NodeRef.of(src), d, path, e.type, e.file, e.line, e.resolution, sites=[f"{e.file}:{e.line}"],
                   confidence=edge_confidence(e))
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
        _, repo, path = parse_uid(fuid)
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


def callees(store: GraphStore, handlers: list[str], nodes: dict[str, Node], depth: int) -> list[Caller]:
    """What the handlers call, breadth-first up to ``depth`` (stubs left out), ordered
    by depth then qualified name; ``path`` runs from the handler to the callee."""
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

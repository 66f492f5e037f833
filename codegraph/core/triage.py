"""Unresolved-symbol triage (docs/DESIGN.md#users): a person decides what an ``UnresolvedSymbol`` stub
is, the decision changes the graph at once, every later index run re-applies it, and it
can be undone.

Actions (docs/DESIGN.md#users: Triager):
- ``resolve``: the target is this symbol (any repo). The stub's incoming edges move to
  the symbol, evidence file/line kept, resolution ``exact``, ``extra["decision"] =
  "resolve"``; the stub is deleted.
- ``external``: the target lives in a library (``library``, e.g. ``requests``); the
  stub and its edges leave the graph.
- ``ignore``: not worth an edge (a test double, generated code); same as external.

A decision names one target identifier, or a *pattern* (``fnmatch``, case-sensitive:
``requests.*``, ``*.mock_*``; ``X.*`` also covers ``X`` itself, the module). Patterns
only take ``external`` / ``ignore``. Where a single decision and a pattern both cover a
target, the single one wins; among patterns the longest (most specific) wins.

Decisions live IN THE GRAPH, one node each (label ``models.DECISION``, uid
``decision|<repo>|<key>|<decided_at>``), with props: ``repo``, ``key`` (target or
pattern), ``target_identifier`` ("" for a pattern), ``pattern`` ("" for one target),
``action``, ``symbol_uid``, ``symbol_qualified_name``, ``symbol_repo``, ``library``,
``decided_by``, ``decided_at``, ``note``, ``targets`` (identifiers it has been applied
to), ``evidence`` (JSON: target -> {"stub": stub props, "edges": [{type, source, file,
line, resolution, extra}], "files": {evidence path: content hash then}}: what the
decision removed, so that undo can put it back), ``undone_at``, ``undone_by`` ("" while
active). Undone decisions stay as history (the decision log).

Re-applied after every re-index: ``load_decisions(graph, repo)`` gives the resolver
(``codegraph.indexer.resolve.resolve_repo``) one entry per covered target identifier,
patterns expanded over the repo's current stubs and the targets they already cover.

Undo restores the stub and the edges the decision took away. Call sites whose file
changed since the decision are not restored from the record (their lines may have
moved): the next index run re-links them, because ``load_decisions`` keeps returning a
no-op entry (action ``none``) for a decision undone after the repo's last run, which
makes that run re-resolve the repo even when no file changed.

Writes are a few store calls, not one transaction: the decision node is written first,
so an interrupted apply is finished by the next index run (or ``apply_pending``); an
interrupted undo of a resolve leaves the decision active and is finished by undoing again.
``_recover`` finishes undo journals that older versions wrote into decision nodes.
"""

from __future__ import annotations

import fnmatch
import getpass
import json
import os
import re
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

from codegraph.core.errors import BadInput, TargetNotFound
from codegraph.core.graph_store import GraphStore
from codegraph.core.models import (
    DECISION,
    STUB,
    SYMBOL,
    Edge,
    Node,
    file_uid,
    repo_uid,
    stub_uid,
)
from codegraph.core.triage_lookup import (
    CallSite,
    Candidate,
    Candidates,
    LibraryGuess,
    StubRow,
    call_sites,
    candidates,
    find_symbol,
    last_segment,
    repos_with_stub,
    stub_rows,
)

ACTIONS = ("resolve", "external", "ignore")
PAGE = 5000
_WILDCARDS = re.compile(r"[*?\[]")


@dataclass(slots=True)
class ResolverDecision:
    """What ``resolve_repo`` reads for one target identifier: the same attributes as
    ``codegraph.indexer.resolve.Decision`` (kept equal by a test), defined here so that
    core does not import the indexer. ``action`` is resolve | external | ignore, or
    ``none`` (no effect; forces a re-resolution after an undo)."""

    target_identifier: str
    action: str
    symbol_uid: str = ""
    library: str = ""


@dataclass(slots=True)
class TriageDecision:
    """One stored decision (see the module docstring for its node properties)."""

    repo: str
    key: str
    action: str
    decided_at: str
    target_identifier: str = ""
    pattern: str = ""
    symbol_uid: str = ""
    symbol_qualified_name: str = ""
    symbol_repo: str = ""
    library: str = ""
    decided_by: str = ""
    note: str = ""
    targets: list[str] = field(default_factory=list)
    evidence: dict[str, dict[str, Any]] = field(default_factory=dict)
    undone_at: str = ""
    undone_by: str = ""
    journal: str = ""  # JSON; only older versions wrote it, during an undo of a resolve (see _recover)
    status: str = ""  # active | undone | stale (resolve target gone); computed, not stored

    @property
    def uid(self) -> str:
        return decision_uid(self.repo, self.key, self.decided_at)

    @property
    def active(self) -> bool:
        return not self.undone_at

    @property
    def call_sites(self) -> int:
        """Edges the decision took away from stubs (as recorded)."""
        return sum(len(ev.get("edges", ())) for ev in self.evidence.values())

    def to_node(self) -> Node:
        p = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("evidence", "status")}
        # Key order kept: restored edges must equal what the resolver writes, byte for byte.
        p["evidence"] = json.dumps(self.evidence, ensure_ascii=False)
        return Node(self.uid, DECISION, p)

    @staticmethod
    def from_node(n: Node) -> TriageDecision:
        p = dict(n.props)
        ev = p.pop("evidence", "") or "{}"
        names = {f.name for f in fields(TriageDecision)} - {"status"}
        d = TriageDecision(**{k: v for k, v in p.items() if k in names})
        d.evidence = json.loads(ev) if isinstance(ev, str) else dict(ev)
        d.targets = list(d.targets or [])
        return d

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (no evidence edges, their count instead)."""
        return {"uid": self.uid, "repo": self.repo, "key": self.key, "action": self.action,
                "target_identifier": self.target_identifier, "pattern": self.pattern,
                "symbol_uid": self.symbol_uid, "symbol_qualified_name": self.symbol_qualified_name,
                "symbol_repo": self.symbol_repo, "library": self.library, "decided_by": self.decided_by,
                "decided_at": self.decided_at, "note": self.note, "targets": list(self.targets),
                "call_sites": self.call_sites, "undone_at": self.undone_at, "undone_by": self.undone_by,
                "status": self.status or ("active" if self.active else "undone")}


# ---------------------------------------------------------------------------- helpers
def decision_uid(repo: str, key: str, decided_at: str) -> str:
    return f"decision|{repo}|{key}|{decided_at}"


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def default_user() -> str:
    """Who decides, when nobody says: CODEGRAPH_USER, else the login name."""
    try:
        return os.environ.get("CODEGRAPH_USER") or getpass.getuser()
    except Exception:  # no login name in some containers
        return "unknown"


def is_pattern(text: str) -> bool:
    """True when ``text`` holds an fnmatch wildcard (``*``, ``?``, ``[``)."""
    return bool(_WILDCARDS.search(text))


def matches(pattern: str, target: str) -> bool:
    """fnmatch (case-sensitive); ``X.*`` also matches ``X`` (the module itself)."""
    if fnmatch.fnmatchcase(target, pattern):
        return True
    return pattern.endswith(".*") and not is_pattern(pattern[:-2]) and target == pattern[:-2]


def _parse_time(iso: str | None) -> datetime | None:
    if not iso:
        return None
    try:
        t = datetime.fromisoformat(iso)
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def _all_stubs(graph: GraphStore, repo: str) -> list[Node]:
    out: list[Node] = []
    offset = 0
    while True:
        part = graph.nodes_by_label(STUB, repo, limit=PAGE, offset=offset)
        out.extend(part)
        if len(part) < PAGE:
            return out
        offset += PAGE


def _edge_dict(e: Edge) -> dict[str, Any]:
    return {"type": e.type, "source": e.source, "file": e.file, "line": e.line, "resolution": e.resolution,
            "extra": e.extra}


def _stub_edge(d: dict[str, Any], target_uid: str) -> Edge:
    return Edge(d["type"], d["source"], target_uid, d.get("file", ""), int(d.get("line") or 0),
                d.get("resolution") or "stub", dict(d.get("extra") or {}))


# ---------------------------------------------------------------------------- reads
def decision_list(graph: GraphStore, repo: str | None = None, include_undone: bool = True) -> list[TriageDecision]:
    """Decisions, newest first, each with ``status`` (active | undone | stale: a resolve
    decision whose symbol is no longer in the graph; the resolver then leaves the stub)."""
    out: list[TriageDecision] = []
    offset = 0
    while True:
        part = graph.nodes_by_label(DECISION, repo, limit=PAGE, offset=offset)
        out.extend(TriageDecision.from_node(n) for n in part)
        if len(part) < PAGE:
            break
        offset += PAGE
    if not include_undone:
        out = [d for d in out if d.active]
    live = _live_symbols(graph, [d for d in out if d.active and d.action == "resolve"])
    for d in out:
        if not d.active:
            d.status = "undone"
        else:
            d.status = "stale" if d.action == "resolve" and live.get(d.uid) is None else "active"
    out.sort(key=lambda d: (d.undone_at or d.decided_at, d.decided_at), reverse=True)
    return out


def _live_symbols(graph: GraphStore, ds: list[TriageDecision]) -> dict[str, str | None]:
    """decision uid -> the uid of its symbol now: the stored uid when it exists, else the
    only symbol with the stored qualified name in the symbol's repo (a changed parameter
    list changes the uid), else None."""
    if not ds:
        return {}
    present = graph.get_nodes([d.symbol_uid for d in ds])
    missing = [d for d in ds if d.symbol_uid not in present and d.symbol_qualified_name]
    by_qn: dict[tuple[str, str], list[Node]] = {}
    for r in {d.symbol_repo or d.repo for d in missing}:
        found = graph.symbols_by_qualified_name([d.symbol_qualified_name for d in missing
                                                 if (d.symbol_repo or d.repo) == r], r)
        for qn, nodes in found.items():
            by_qn[(r, qn)] = nodes
    out: dict[str, str | None] = {}
    for d in ds:
        if d.symbol_uid in present:
            out[d.uid] = d.symbol_uid
            continue
        nodes = by_qn.get((d.symbol_repo or d.repo, d.symbol_qualified_name), [])
        out[d.uid] = nodes[0].uid if len(nodes) == 1 else None
    return out


def _covering(active: list[TriageDecision], target: str) -> TriageDecision | None:
    """The active decision that covers ``target``: a single one first, then a pattern
    already applied to it, then the most specific matching pattern (newest on a tie)."""
    singles = [d for d in active if d.target_identifier == target]
    if singles:
        return max(singles, key=lambda d: d.decided_at)
    applied = [d for d in active if d.pattern and target in d.targets]
    if applied:
        return max(applied, key=lambda d: d.decided_at)
    pats = [d for d in active if d.pattern and matches(d.pattern, target)]
    return max(pats, key=lambda d: (len(d.pattern), d.decided_at)) if pats else None


def load_decisions(graph: GraphStore, repo: str) -> dict[str, ResolverDecision]:
    """target_identifier -> decision for ``resolve_repo`` (re-applied on every run).

    Patterns expand over the repo's stubs now in the graph and the targets they already
    cover (a target first seen in this run is a stub until the next run or until
    ``apply_pending``). A stale resolve decision gives a ``none`` entry, so its call
    sites become a stub again instead of edges to a missing node. Decisions undone after
    the repo's last run add a ``none`` entry too (see the module docstring). ``none``
    entries change nothing but make the run re-resolve. Raises StoreUnavailable.
    """
    _recover(graph, repo)
    ds = decision_list(graph, repo)
    active = [d for d in ds if d.active]
    out: dict[str, ResolverDecision] = {}
    repo_node = graph.get_nodes([repo_uid(repo)]).get(repo_uid(repo))
    last_run = _parse_time(repo_node.props.get("last_checked_at") if repo_node else None)
    for d in ds:
        if d.active:
            continue
        undone = _parse_time(d.undone_at)
        if last_run is None or (undone is not None and undone >= last_run):
            for t in d.targets or ([d.target_identifier] if d.target_identifier else []):
                out[t] = ResolverDecision(t, "none")
    targets: set[str] = set()
    if any(d.pattern for d in active):
        targets = {str(n.props.get("target_identifier", "")) for n in _all_stubs(graph, repo)}
    for d in active:
        targets.update(d.targets)
        if d.target_identifier:
            targets.add(d.target_identifier)
    live = _live_symbols(graph, [d for d in active if d.action == "resolve"])
    for t in targets:
        d = _covering(active, t)
        if d is None:
            continue
        if d.action == "resolve":
            uid = live.get(d.uid)
            # Stale: no edge to a missing node; "none" still makes the run re-resolve,
            # so the call sites become a stub again even when no file changed.
            out[t] = ResolverDecision(t, "resolve", uid, "") if uid else ResolverDecision(t, "none")
        else:
            out[t] = ResolverDecision(t, d.action, "", d.library)
    return out


# ---------------------------------------------------------------------------- writes
def _new(repo: str, key: str, action: str, by: str | None, note: str) -> TriageDecision:
    if action not in ACTIONS:
        raise BadInput(f"unknown triage action {action!r}; use one of {', '.join(ACTIONS)}")
    key = key.strip()
    if not key:
        raise BadInput("a decision needs a target identifier or a pattern")
    d = TriageDecision(repo=repo, key=key, action=action, decided_at=now_iso(), decided_by=by or default_user(),
                       note=note)
    if is_pattern(key):
        d.pattern = key
    else:
        d.target_identifier = key
    return d


def _check_free(graph: GraphStore, d: TriageDecision) -> None:
    _recover(graph, d.repo)
    for other in decision_list(graph, d.repo, include_undone=False):
        if other.key == d.key:
            raise BadInput(f"{d.key!r} in {d.repo} already has a decision ({other.action}, by {other.decided_by} at "
                           f"{other.decided_at}); undo it first")


def _stub_or_fail(graph: GraphStore, repo: str, target: str) -> Node:
    n = graph.get_nodes([stub_uid(repo, target)]).get(stub_uid(repo, target))
    if n is None:
        raise TargetNotFound(f"no unresolved symbol {target!r} in repo {repo} (already decided? see "
                             "`codegraph triage log`)")
    return n


def resolve(graph: GraphStore, repo: str, target: str, symbol: str, *, by: str | None = None,
            note: str = "") -> TriageDecision:
    """Decide that stub ``target`` of ``repo`` is ``symbol`` (a uid); apply it now.
    Raises TargetNotFound (no such stub or symbol), BadInput (a pattern, or already decided)."""
    d = _new(repo, target, "resolve", by, note)
    if d.pattern:
        raise BadInput("resolve takes one target identifier, not a pattern")
    stub = _stub_or_fail(graph, repo, target)
    sym = graph.get_nodes([symbol]).get(symbol)
    if sym is None or sym.label != SYMBOL:
        raise TargetNotFound(f"no symbol with uid {symbol!r}")
    _check_free(graph, d)
    d.symbol_uid, d.symbol_qualified_name, d.symbol_repo = sym.uid, str(sym.props.get("qualified_name", "")), sym.repo
    _apply(graph, d, [stub])
    d.status = "active"
    return d


def mark_external(graph: GraphStore, repo: str, target_or_pattern: str, library: str, *, by: str | None = None,
                  note: str = "") -> TriageDecision:
    """Decide that the target (or every target matching the pattern) lives in
    ``library``; apply it now. Raises TargetNotFound for a single target without a stub,
    BadInput when the key already has an active decision or ``library`` is empty."""
    if not library.strip():
        raise BadInput("an external decision needs the library's name (e.g. requests)")
    d = _new(repo, target_or_pattern, "external", by, note)
    d.library = library.strip()
    return _decide_many(graph, d)


def ignore(graph: GraphStore, repo: str, target_or_pattern: str, *, by: str | None = None,
           note: str = "") -> TriageDecision:
    """Decide that the target (or every target matching the pattern) needs no edge."""
    return _decide_many(graph, _new(repo, target_or_pattern, "ignore", by, note))


def preview(graph: GraphStore, repo: str, pattern: str) -> list[Node]:
    """Stubs of ``repo`` a pattern (or one target) would cover now, not counting those an
    active single decision keeps (a stale resolve)."""
    active = decision_list(graph, repo, include_undone=False)
    singles = {d.target_identifier for d in active if d.target_identifier}
    return [n for n in _all_stubs(graph, repo)
            if matches(pattern, str(n.props.get("target_identifier", "")))
            and n.props.get("target_identifier") not in singles]


def _decide_many(graph: GraphStore, d: TriageDecision) -> TriageDecision:
    _check_free(graph, d)
    stubs = preview(graph, d.repo, d.pattern) if d.pattern else [_stub_or_fail(graph, d.repo, d.target_identifier)]
    _apply(graph, d, stubs)
    d.status = "active"
    return d


def _apply(graph: GraphStore, d: TriageDecision, stubs: list[Node]) -> None:
    """Record what the stubs hold in ``d``, write ``d``, then change the graph."""
    hits = graph.neighbours([s.uid for s in stubs], "in") if stubs else {}
    # A stub's edges come from its own repo: the content hashes let undo tell stale lines.
    paths = {h.edge.file for lst in hits.values() for h in lst if h.edge.file}
    files = graph.get_nodes([file_uid(d.repo, p) for p in paths]) if paths else {}
    for s in stubs:
        t = str(s.props.get("target_identifier", ""))
        edges = [h.edge for h in hits.get(s.uid, [])]
        if t not in d.targets:
            d.targets.append(t)
        d.evidence[t] = {
            "stub": dict(s.props),
            "edges": [_edge_dict(e) for e in edges],
            "files": {e.file: str(files[file_uid(d.repo, e.file)].props.get("content_hash", ""))
                      for e in edges if file_uid(d.repo, e.file) in files},
        }
    graph.upsert_nodes([d.to_node()])
    if not stubs:
        return
    if d.action == "resolve":
        # Exactly the edge the resolver writes for a resolve decision, so that the next
        # index run finds nothing to change.
        moved = [Edge(h.edge.type, h.edge.source, d.symbol_uid, h.edge.file, h.edge.line, "exact",
                      {**{k: v for k, v in h.edge.extra.items() if k != "target_identifier"}, "decision": "resolve"})
                 for lst in hits.values() for h in lst if h.edge.source != d.symbol_uid]
        graph.replace_edges(d.repo, [], moved)
    graph.delete_nodes([s.uid for s in stubs])


def apply_pending(graph: GraphStore, repo: str) -> list[str]:
    """Apply active decisions to stubs they cover that are in the graph now: targets a
    pattern matches that first appeared after it was made, or a stub an index run without
    decisions brought back. Stale resolve decisions are left alone. Returns the targets."""
    _recover(graph, repo)
    active = decision_list(graph, repo, include_undone=False)
    if not active:
        return []
    todo: dict[str, tuple[TriageDecision, list[Node]]] = {}
    for n in _all_stubs(graph, repo):
        d = _covering(active, str(n.props.get("target_identifier", "")))
        if d is None or d.status == "stale":
            continue
        todo.setdefault(d.uid, (d, []))[1].append(n)
    done: list[str] = []
    for d, stubs in todo.values():
        if d.action == "resolve":
            live = _live_symbols(graph, [d]).get(d.uid)
            if not live:
                continue
            d.symbol_uid = live
        _apply(graph, d, stubs)
        done.extend(str(s.props.get("target_identifier", "")) for s in stubs)
    return sorted(done)


def undo(graph: GraphStore, repo: str, key: str, *, by: str | None = None) -> TriageDecision:
    """Undo the active decision on ``key`` (target identifier or pattern): restore its
    stubs and the edges it took away, and keep it in the log as undone. Call sites in
    files changed since the decision come back at the next index run. Raises
    TargetNotFound when ``key`` has no active decision in ``repo``."""
    _recover(graph, repo)
    found = [d for d in decision_list(graph, repo, include_undone=False) if d.key == key.strip()]
    if not found:
        raise TargetNotFound(f"no active triage decision on {key!r} in repo {repo} (see `codegraph triage log`)")
    d = found[0]
    stubs = [Node(stub_uid(repo, t), STUB, dict(ev.get("stub") or {"repo": repo, "target_identifier": t,
                                                                   "reason": "missing"}))
             for t, ev in d.evidence.items()]
    if stubs:
        graph.upsert_nodes(stubs)
    if d.action == "resolve":
        _unmove(graph, d)
    else:
        paths = sorted({e["file"] for ev in d.evidence.values() for e in ev.get("edges", []) if e.get("file")})
        now = graph.get_nodes([file_uid(repo, p) for p in paths])
        current = {p: str(now[file_uid(repo, p)].props.get("content_hash", "")) for p in paths
                   if file_uid(repo, p) in now}
        restore = [_stub_edge(e, stub_uid(repo, t)) for t, ev in d.evidence.items() for e in ev.get("edges", [])
                   if not e.get("file") or ev.get("files", {}).get(e["file"]) == current.get(e["file"])]
        graph.replace_edges(repo, [], restore)
    d.undone_at, d.undone_by = now_iso(), by or default_user()
    graph.upsert_nodes([d.to_node()])
    graph.prune_unreferenced(repo, [STUB])
    d.status = "undone"
    return d


def _unmove(graph: GraphStore, d: TriageDecision) -> None:
    """Undo a resolve: the edges the decision (or an index run applying it) made into the
    symbol go back to the stub. The stub edges are written first, then exactly the
    decision's edges are deleted by key (``GraphStore.delete_edges``); the symbol and its
    other edges are never touched. A process dying in between leaves both edges and the
    decision active, and the next undo finishes the job."""
    target = d.target_identifier
    sym = _live_symbols(graph, [d]).get(d.uid) or d.symbol_uid
    shared = any(o.action == "resolve" and o.uid != d.uid and o.symbol_uid == d.symbol_uid
                 for o in decision_list(graph, d.repo, include_undone=False))
    recorded = {(e["type"], e["source"], e.get("file", ""), int(e.get("line") or 0))
                for ev in d.evidence.values() for e in ev.get("edges", [])}

    def ours(h: Any) -> bool:
        e = h.edge
        if e.extra.get("decision") != "resolve" or h.node.repo != d.repo:
            return False
        if "target_identifier" in e.extra:
            return e.extra["target_identifier"] == target
        # Written by an index run (no target identifier): ours unless another decision
        # sends call sites to the same symbol; then only the ones recorded here.
        return not shared or (e.type, e.source, e.file, e.line) in recorded

    made = [h.edge for h in graph.neighbours([sym], "in").get(sym, []) if ours(h)]
    if not made:
        return
    back = [Edge(e.type, e.source, stub_uid(d.repo, target), e.file, e.line, "stub",
                 {**{k: v for k, v in e.extra.items() if k != "decision"}, "target_identifier": target})
            for e in made]
    graph.replace_edges(d.repo, [], back)
    graph.delete_edges([e.key() for e in made])


def _journal_edge(e: Edge, repo: str) -> dict[str, Any]:
    return {**_edge_dict(e), "target": e.target, "repo": repo}


def _finish(graph: GraphStore, d: TriageDecision) -> None:
    """Re-create the symbol and edges a journal holds, then clear it."""
    j = json.loads(d.journal)
    n = j["node"]
    graph.upsert_nodes([Node(n["uid"], n["label"], n["props"])])
    by_repo: dict[str, list[Edge]] = {}
    for e in j["edges"]:
        by_repo.setdefault(e["repo"], []).append(
            Edge(e["type"], e["source"], e["target"], e.get("file", ""), int(e.get("line") or 0),
                 e.get("resolution", ""), dict(e.get("extra") or {})))
    for repo, edges in by_repo.items():
        graph.replace_edges(repo, [], edges)
    d.journal = ""
    graph.upsert_nodes([d.to_node()])


def _recover(graph: GraphStore, repo: str | None) -> None:
    """Finish an undo that a dead process left half done (see ``_unmove``)."""
    for d in decision_list(graph, repo, include_undone=False):
        if d.journal:
            _finish(graph, d)


__all__ = [
    "ACTIONS", "CallSite", "Candidate", "Candidates", "LibraryGuess", "ResolverDecision", "StubRow", "TriageDecision",
    "apply_pending", "call_sites", "candidates", "decision_list", "find_symbol", "ignore", "is_pattern",
    "last_segment", "load_decisions", "mark_external", "matches", "preview", "repos_with_stub", "resolve",
    "stub_rows", "undo",
]

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

import json
from typing import Any

from codegraph.core.errors import BadInput, TargetNotFound
from codegraph.core.graph_store import GraphStore
from codegraph.core.models import (
    DECISION,
    STUB,
    SYMBOL,
    Edge,
    EdgeHit,
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
from codegraph.core.triage_model import (
    ResolverDecision,
    TriageDecision,
    _edge_dict,
    _parse_time,
    _stub_edge,
    decision_uid,
    default_user,
    is_pattern,
    matches,
    now_iso,
)
from codegraph.core.triage_scope import Scope

ACTIONS = ("resolve", "external", "ignore")
PAGE = 5000


def _all_stubs(graph: GraphStore, repo: str) -> list[Node]:
    out: list[Node] = []
    offset = 0
    while True:
        part = graph.nodes_by_label(STUB, repo, limit=PAGE, offset=offset)
        out.extend(part)
        if len(part) < PAGE:
            return out
        offset += PAGE


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
    singles = [d for d in active if d.target_identifier == target and d.scope.everything]
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

    def entry(t: str, d: TriageDecision) -> ResolverDecision:
        if d.action == "resolve":
            uid = live.get(d.uid)
            # Stale: no edge to a missing node; "none" still makes the run re-resolve,
            # so the call sites become a stub again even when no file changed.
            return ResolverDecision(t, "resolve", uid, "") if uid else ResolverDecision(t, "none")
        return ResolverDecision(t, d.action, "", d.library)

    for t in targets:
        d = _covering(active, t)
        if d is not None:
            out[t] = entry(t, d)
    # Decisions on some call sites only: checked per call site before the target's own
    # decision (oldest first: the one that took the call site when it was made).
    for d in sorted((d for d in active if not d.scope.everything), key=lambda d: d.decided_at):
        t = d.target_identifier
        base = out.setdefault(t, ResolverDecision(t, "none"))
        base.scoped.append((d.scope, entry(t, d)))
    return out


# ---------------------------------------------------------------------------- writes
def _new(repo: str, key: str, action: str, by: str | None, note: str, scope: Scope | None = None) -> TriageDecision:
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
    if scope is not None and not scope.everything:
        if d.pattern:
            raise BadInput("a decision on some call sites names one target identifier, not a pattern")
        d.scope = scope
    return d


def _check_free(graph: GraphStore, d: TriageDecision) -> None:
    _recover(graph, d.repo)
    # Several decisions on one target may stand when all but one are scoped: a scoped one
    # takes the call sites in its scope still unresolved, the target's own the rest.
    for other in decision_list(graph, d.repo, include_undone=False):
        if other.key == d.key and other.scope == d.scope:
            where = "" if d.scope.everything else f" on {d.scope.label()}"
            raise BadInput(f"{d.key!r} in {d.repo} already has a decision{where} ({other.action}, by "
                           f"{other.decided_by} at {other.decided_at}); undo it first")


def _stub_or_fail(graph: GraphStore, repo: str, target: str) -> Node:
    n = graph.get_nodes([stub_uid(repo, target)]).get(stub_uid(repo, target))
    if n is None:
        raise TargetNotFound(f"no unresolved symbol {target!r} in repo {repo} (already decided? see "
                             "`codegraph triage log`)")
    return n


def resolve(graph: GraphStore, repo: str, target: str, symbol: str, *, by: str | None = None,
            note: str = "", scope: Scope | None = None) -> TriageDecision:
    """Decide that stub ``target`` of ``repo`` is ``symbol`` (a uid) at the call sites of
    ``scope`` (default: every one); apply it now. Raises TargetNotFound (no such stub or
    symbol), BadInput (a pattern, already decided, no unresolved call site in scope)."""
    d = _new(repo, target, "resolve", by, note, scope)
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
                  note: str = "", scope: Scope | None = None) -> TriageDecision:
    """Decide that the target (or every target matching the pattern) lives in
    ``library``; apply it now. Raises TargetNotFound for a single target without a stub,
    BadInput when the key already has an active decision or ``library`` is empty.
    ``scope``: only those call sites of one target (``codegraph.core.triage_scope``)."""
    if not library.strip():
        raise BadInput("an external decision needs the library's name (e.g. requests)")
    d = _new(repo, target_or_pattern, "external", by, note, scope)
    d.library = library.strip()
    return _decide_many(graph, d)


def ignore(graph: GraphStore, repo: str, target_or_pattern: str, *, by: str | None = None,
           note: str = "", scope: Scope | None = None) -> TriageDecision:
    """Decide that the target (or every target matching the pattern; or the call sites
    of ``scope`` of one target) needs no edge."""
    return _decide_many(graph, _new(repo, target_or_pattern, "ignore", by, note, scope))


def preview(graph: GraphStore, repo: str, pattern: str) -> list[Node]:
    """Stubs of ``repo`` a pattern (or one target) would cover now, not counting those an
    active single decision keeps (a stale resolve)."""
    active = decision_list(graph, repo, include_undone=False)
    singles = {d.target_identifier for d in active if d.target_identifier}
    return [n for n in _all_stubs(graph, repo)
            if matches(pattern, str(n.props.get("target_identifier", "")))
            and n.props.get("target_identifier") not in singles]


def scoped_sites(graph: GraphStore, repo: str, target: str, scope: Scope | None = None) -> list[CallSite]:
    """The unresolved call sites of stub ``target`` a decision with ``scope`` would take
    now (every call site without a scope), by file and line: what the faces count for
    the confirmation and the preview. Raises TargetNotFound when there is no such stub."""
    stub = _stub_or_fail(graph, repo, target)
    sites = call_sites(graph, [stub.uid]).get(stub.uid, [])
    sites = sites if scope is None else scope.select(sites)
    return sorted(sites, key=lambda s: (s.file, s.line, s.source))


def _decide_many(graph: GraphStore, d: TriageDecision) -> TriageDecision:
    stubs = preview(graph, d.repo, d.pattern) if d.pattern else [_stub_or_fail(graph, d.repo, d.target_identifier)]
    _check_free(graph, d)
    _apply(graph, d, stubs)
    d.status = "active"
    return d


def _apply(graph: GraphStore, d: TriageDecision, stubs: list[Node], *, fresh: bool = True) -> None:
    """Record what the stubs hold (the call sites in ``d.scope``) in ``d``, write ``d``,
    then change the graph. A scoped decision takes only its call sites: the stub stays
    while other call sites point at it. ``fresh``: a new decision, which must take at
    least one call site when scoped (BadInput otherwise, nothing written)."""
    hits: dict[str, list[EdgeHit]] = graph.neighbours([s.uid for s in stubs], "in") if stubs else {}
    scoped = not d.scope.everything
    if scoped:
        if fresh:
            d.scope = d.scope.bind(_hit_sites(hits))
        every = {u: len(lst) for u, lst in hits.items()}
        hits = {u: [h for h in lst if d.scope.covers(h.edge.file, h.edge.line, h.edge.source)]
                for u, lst in hits.items()}
        if fresh and not any(hits.values()):
            raise BadInput(f"no unresolved call site of {d.key!r} in {d.scope.label()} (already decided?)")
    # A stub's edges come from its own repo: the content hashes let undo tell stale lines.
    paths = {h.edge.file for lst in hits.values() for h in lst if h.edge.file}
    files = graph.get_nodes([file_uid(d.repo, p) for p in paths]) if paths else {}
    for s in stubs:
        t = str(s.props.get("target_identifier", ""))
        edges = [h.edge for h in hits.get(s.uid, [])]
        if t not in d.targets:
            d.targets.append(t)
        ev = d.evidence.setdefault(t, {"stub": dict(s.props), "edges": [], "files": {}})
        ev["stub"] = dict(s.props)
        # Applied again (a stub an index run brought back): the call sites add up.
        known = {(e["type"], e["source"], e.get("file", ""), int(e.get("line") or 0)) for e in ev["edges"]}
        ev["edges"] += [_edge_dict(e) for e in edges if (e.type, e.source, e.file, e.line) not in known]
        ev["files"].update({e.file: str(files[file_uid(d.repo, e.file)].props.get("content_hash", ""))
                            for e in edges if file_uid(d.repo, e.file) in files})
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
    if not scoped:
        graph.delete_nodes([s.uid for s in stubs])
        return
    graph.delete_edges([h.edge.key() for lst in hits.values() for h in lst])
    emptied = [u for u, lst in hits.items() if lst and len(lst) == every.get(u)]
    if emptied:
        graph.delete_nodes(emptied)


def _hit_sites(hits: dict[str, list[EdgeHit]]) -> list[CallSite]:
    return [CallSite(h.edge.source, h.node.display(), "", h.node.repo, h.edge.file, h.edge.line, h.edge.type)
            for lst in hits.values() for h in lst]


def apply_pending(graph: GraphStore, repo: str) -> list[str]:
    """Apply active decisions to stubs they cover that are in the graph now: targets a
    pattern matches that first appeared after it was made, or a stub an index run without
    decisions brought back. Stale resolve decisions are left alone. Returns the targets."""
    _recover(graph, repo)
    active = decision_list(graph, repo, include_undone=False)
    if not active:
        return []
    done: list[str] = _apply_scoped_pending(graph, repo, active)
    todo: dict[str, tuple[TriageDecision, list[Node]]] = {}
    for n in _all_stubs(graph, repo):
        d = _covering(active, str(n.props.get("target_identifier", "")))
        if d is None or d.status == "stale":
            continue
        todo.setdefault(d.uid, (d, []))[1].append(n)
    for d, stubs in todo.values():
        if d.action == "resolve":
            live = _live_symbols(graph, [d]).get(d.uid)
            if not live:
                continue
            d.symbol_uid = live
        _apply(graph, d, stubs, fresh=False)
        done.extend(str(s.props.get("target_identifier", "")) for s in stubs)
    return sorted(set(done))


def _apply_scoped_pending(graph: GraphStore, repo: str, active: list[TriageDecision]) -> list[str]:
    """Scoped decisions first (oldest first), each on the call sites of its scope that a
    stub in the graph holds now; the target's own decision then takes the rest."""
    scoped = sorted((d for d in active if not d.scope.everything and d.status != "stale"),
                    key=lambda d: d.decided_at)
    if not scoped:
        return []
    present = graph.get_nodes(sorted({stub_uid(repo, d.target_identifier) for d in scoped}))
    done: list[str] = []
    for d in scoped:
        stub = present.get(stub_uid(repo, d.target_identifier))
        if stub is None:
            continue
        hits = graph.neighbours([stub.uid], "in").get(stub.uid, [])
        if not any(d.scope.covers(h.edge.file, h.edge.line, h.edge.source) for h in hits):
            continue
        if d.action == "resolve":
            live = _live_symbols(graph, [d]).get(d.uid)
            if not live:
                continue
            d.symbol_uid = live
        _apply(graph, d, [stub], fresh=False)
        done.append(d.target_identifier)
    return done


def undo(graph: GraphStore, repo: str, key: str, *, by: str | None = None, scope: Scope | None = None,
         uid: str | None = None) -> TriageDecision:
    """Undo an active decision on ``key`` (target identifier or pattern): the one with
    uid ``uid``, else the one on exactly ``scope`` (files, folders and file:line of its
    call sites), else the latest. Restores its stubs and the edges it took away, and keeps
    it in the log as undone; where another decision on the target still stands (the
    target's own under a scoped one), the restored call sites go to it. Call sites in files
    changed since the decision come back at the next index run. Raises TargetNotFound when
    ``key`` has no such active decision in ``repo``."""
    _recover(graph, repo)
    active = decision_list(graph, repo, include_undone=False)
    found = [d for d in active if d.key == key.strip()]
    if uid:
        found = [d for d in found if d.uid == uid]
    elif scope is not None:
        found = [d for d in found if _same_scope(d.scope, scope)]
    if not found:
        where = "" if scope is None or scope.everything else f" on {scope.label()}"
        raise TargetNotFound(f"no active triage decision on {key!r}{where} in repo {repo} (see `codegraph triage log`)")
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
    if not d.scope.everything and any(o.uid != d.uid and o.target_identifier == d.target_identifier for o in active):
        apply_pending(graph, repo)
    return d


def _same_scope(a: Scope, b: Scope) -> bool:
    """Equal files and folders, and the same file:line call sites (the calling symbol aside)."""
    return (a.files, a.folders) == (b.files, b.folders) and {s[:2] for s in a.sites} == {s[:2] for s in b.sites}


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
        if not d.scope.covers(e.file, e.line, e.source):
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
    "Scope", "apply_pending", "call_sites", "candidates", "decision_list", "decision_uid", "default_user",
    "find_symbol", "ignore", "is_pattern", "last_segment", "load_decisions", "mark_external", "matches", "now_iso",
    "preview", "repos_with_stub", "resolve", "scoped_sites", "stub_rows", "undo",
]

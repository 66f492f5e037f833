"""One definition of each JSON answer: ``codegraph <command> --json`` and the REST API
(``codegraph serve``) both return these dicts, so their shapes cannot drift apart.

Every function takes ``stores``: any object with ``graph`` (GraphStore), ``search``
(SearchIndex), ``embedder`` (query embedder) and ``settings`` attributes, opened lazily
by the caller (the CLI's per-command context, the REST app's session). Errors are the
core's: BadInput / TargetNotFound (bad or unknown input, one line), StoreUnavailable
(a server did not answer).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codegraph.core.errors import BadInput, TargetNotFound
from codegraph.core.git import git_head
from codegraph.core.models import ENDPOINT, TABLE
from codegraph.core.targets import known_repo

TRIAGE_ACTIONS = ("resolve", "external", "ignore", "undo")


def _edge_types(edge_types: list[str] | None) -> list[str] | None:
    """Upper-cased; the core's ``impact`` refuses unknown types with one line."""
    return [e.upper() for e in edge_types] if edge_types else None


# -- questions -------------------------------------------------------------------------------

def search_answer(stores: Any, text: str, k: int = 10, repo: str | None = None,
                  repos: list[str] | None = None, kinds: list[str] | None = None,
                  context: bool = True) -> dict[str, Any]:
    """Hybrid search over the content kinds ``kinds`` (default all: code, schema, config,
    docs): ``SearchResult.to_dict()`` ({"query", "mode", "reason", "hits", "steps", ...});
    with ``context`` every hit carries ``context`` (core/search_context.py: callers and
    callees counts, top callers, endpoints and tables; readers of a table or config key)."""
    import time

    from codegraph.core.retrieval import hybrid_search
    from codegraph.core.search_context import search_context

    if not text.strip():
        raise BadInput("search needs some words, e.g. \"parse a config file\"")
    out = hybrid_search(stores.search, stores.embedder, text, k=k, repo=repo, graph=stores.graph,
                        repos=repos, kinds=kinds).to_dict()
    if context:
        t = time.perf_counter()
        for hit, ctx in zip(out["hits"], search_context(stores.graph, stores.search, out["hits"]), strict=True):
            hit["context"] = ctx
        out["steps"].append({"name": "graph context", "ms": round((time.perf_counter() - t) * 1000, 2),
                             "detail": f"{len(out['hits'])} hit(s), batched"})
    return out


def context_line(hit: dict[str, Any]) -> str:
    """A hit's context in one short line for tables and Markdown ("" when it has none)."""
    c = hit.get("context") or {}
    if "callers" in c:
        parts = [f"{c['callers']} caller(s)", f"{c['callees']} callee(s)"]
        if c.get("top_callers"):
            parts.append("top: " + ", ".join(c["top_callers"]))
        if c.get("endpoints"):
            parts.append("endpoints: " + ", ".join(f"{e['endpoint']} ({e['relation']})" for e in c["endpoints"][:3]))
        if c.get("tables"):
            parts.append("tables: " + ", ".join(sorted({t["table"] for t in c["tables"]})))
        return "; ".join(parts)
    if "table_node" in c:
        return (("in the graph" if c["table_node"] else "no code uses it") +
                (f"; read by {', '.join(c['readers'][:3])}" if c["readers"] else "") +
                (f"; written by {', '.join(c['writers'][:3])}" if c["writers"] else ""))
    if "read_by" in c:
        return ("read by " + ", ".join(f"{r['qualified_name']} ({r['file']}:{r['line']})" for r in c["read_by"][:3])
                if c["read_by"] else "no literal reader found in code")
    return ""


SEARCH_TARGETS = 5  # symbols a free-text impact question starts from


def impact_result(stores: Any, target: str, repo: str | None = None, depth: int = 5,
                  edge_types: list[str] | None = None, include_tests: bool = True, limit: int = 200,
                  offset: int = 0, repos: list[str] | None = None, min_confidence: float = 0.0,
                  search_targets: int = SEARCH_TARGETS) -> tuple[Any, list[dict[str, Any]]]:
    """(ImpactResult, picks). When ``target`` is free text (it has a space, no prefix) and
    names no symbol, hybrid search over code picks up to ``search_targets`` symbols and the
    answer is their joint blast radius; ``picks`` lists them with their scores
    ([{"qualified_name", "file", "line", "repo", "score", "bm25_rank", "knn_rank"}], empty
    when the target resolved by name). TargetNotFound when neither finds anything."""
    from codegraph.core.impact import impact
    from codegraph.core.targets import parse_target

    kwargs = {"repo": repo, "depth": depth, "edge_types": _edge_types(edge_types), "include_tests": include_tests,
              "limit": limit, "offset": offset, "repos": repos, "min_confidence": min_confidence}
    try:
        return impact(stores.graph, target, **kwargs), []
    except TargetNotFound:
        if parse_target(target).kind != "symbol" or " " not in target.strip() or search_targets < 1:
            raise
    picks = _search_targets(stores, target, repo, repos, search_targets)
    if not picks:
        raise TargetNotFound(f"nothing in the graph matches {target!r}, by name or by hybrid search")
    nodes = stores.graph.get_nodes([p.pop("uid") for p in picks])
    return impact(stores.graph, target, nodes=list(nodes.values()), **kwargs), picks


def _search_targets(stores: Any, text: str, repo: str | None, repos: list[str] | None,
                    n: int) -> list[dict[str, Any]]:
    from codegraph.core.content import CODE
    from codegraph.core.retrieval import hybrid_search

    res = hybrid_search(stores.search, stores.embedder, text, k=max(3 * n, 10), repo=repo, graph=stores.graph,
                        repos=repos, kinds=[CODE])
    picks: list[dict[str, Any]] = []
    for h in res.hits:
        uid = h.chunk.symbol_uid
        if uid.startswith("sym|") and h.chunk.kind != "section" and uid not in {p["uid"] for p in picks}:
            picks.append({"uid": uid, "qualified_name": h.chunk.qualified_name, "file": h.chunk.file,
                          "line": h.chunk.line, "repo": h.chunk.repo, "score": round(h.score, 5),
                          "bm25_rank": h.bm25_rank, "knn_rank": h.knn_rank, "mode": res.mode})
        if len(picks) >= n:
            break
    return picks


def impact_answer(stores: Any, target: str, repo: str | None = None, depth: int = 5,
                  edge_types: list[str] | None = None, include_tests: bool = True, limit: int = 200,
                  offset: int = 0, repos: list[str] | None = None, min_confidence: float = 0.0) -> dict[str, Any]:
    """Blast radius of ``target``: ``ImpactResult.to_dict()``; ``repos`` scopes it to a workspace.
    A free-text target that names no symbol answers for the symbols hybrid search picked,
    listed under ``search_targets`` with their scores (see ``impact_result``)."""
    res, picks = impact_result(stores, target, repo, depth, edge_types, include_tests, limit, offset, repos,
                               min_confidence)
    out = res.to_dict()
    if picks:
        out["search_targets"] = picks
    return out


def callers_answer(stores: Any, target: str, repo: str | None = None, limit: int = 100,
                   repos: list[str] | None = None) -> dict[str, Any]:
    """Direct callers (depth 1, CALLS): ``ImpactResult.to_dict()``."""
    from codegraph.core.impact import callers

    return callers(stores.graph, target, repo=repo, limit=limit, repos=repos).to_dict()


def _listing(stores: Any, label: str, repo: str | None, limit: int, offset: int) -> dict[str, Any]:
    graph = stores.graph
    known_repo(graph, repo)
    total = int(graph.counts(repo)["nodes"].get(label, 0))
    nodes = graph.nodes_by_label(label, repo, limit=limit, offset=offset)
    items = [{"uid": n.uid, "repo": n.repo, "name": n.display(), **n.props} for n in nodes]
    return {"items": items, "total": total, "shown": len(items), "offset": offset, "limit": limit,
            "next_offset": offset + len(items) if offset + len(items) < total and items else None}


def table_answer(stores: Any, name: str | None = None, repo: str | None = None, depth: int = 1,
                 limit: int = 50, offset: int = 0) -> dict[str, Any]:
    """Code that reads/writes table ``name`` (``impact table:NAME``), or the known tables
    ({"items", "total", "shown", "offset", "limit", "next_offset"}) without a name."""
    if not name:
        return _listing(stores, TABLE, repo, limit, offset)
    return impact_answer(stores, f"table:{name}", repo=repo, depth=depth, limit=limit, offset=offset)


def endpoint_answer(stores: Any, path: str | None = None, method: str | None = None, repo: str | None = None,
                    depth: int = 2, limit: int = 50, offset: int = 0) -> dict[str, Any]:
    """Handler and clients of an HTTP endpoint (``impact endpoint:METHOD PATH``), or the
    known endpoints without a path (same listing shape as ``table_answer``)."""
    if not path:
        return _listing(stores, ENDPOINT, repo, limit, offset)
    spec = f"{method.upper()} {path}" if method else path
    return impact_answer(stores, f"endpoint:{spec}", repo=repo, depth=depth, limit=limit, offset=offset)


def stats_answer(stores: Any, repo: str | None = None) -> dict[str, Any]:
    """Counts and figures per scope ({"graph_backend", "search_backend", "graph", "figures",
    "search", "unsupported_by_extension", "freshness"})."""
    from codegraph.core.figures import figures
    from codegraph.core.impact import freshness

    graph = stores.graph
    known_repo(graph, repo)
    counts = graph.counts(repo)
    return {"graph_backend": graph.backend, "search_backend": stores.search.backend,
            "graph": counts, "figures": figures(graph, repo, counts).to_dict(), "search": stores.search.stats(repo),
            "unsupported_by_extension": {r.props.get("name"): r.props.get("unsupported") or {}
                                         for r in graph.repos() if not repo or r.props.get("name") == repo},
            "freshness": freshness(graph, {repo} if repo else None)}


def freshness_answer(stores: Any, repo: str | None = None) -> dict[str, Any]:
    """Per repo: commit indexed, import/check times, age, and whether the checkout on disk
    moved on ({"repos": [{..., "checkout_head", "path_exists", "stale"}]})."""
    from codegraph.core.impact import freshness

    graph = stores.graph
    known_repo(graph, repo)
    rows = freshness(graph, {repo} if repo else None)
    for r in rows:
        head = git_head(r.get("path"))
        r["checkout_head"] = head
        r["path_exists"] = bool(r.get("path")) and Path(str(r["path"])).is_dir()
        r["stale"] = bool(head and r.get("commit") and head != r["commit"])
    return {"repos": rows}


# -- triage ----------------------------------------------------------------------------------

def triage_repo(graph: Any, key: str, repo: str | None, *, decided: bool = False) -> str:
    """The repo a triage action acts on: ``repo`` when given (must be indexed), else the one
    repo that has the stub (or matching stubs / the active decision); BadInput when several."""
    from codegraph.core import triage

    if repo:
        if graph.get_nodes([f"repo|{repo}"]) == {}:
            raise TargetNotFound(f"repository {repo!r} is not indexed (see `codegraph stats`)")
        return repo
    names = sorted(str(r.props.get("name")) for r in graph.repos())
    if decided:
        found = sorted({d.repo for d in triage.decision_list(graph, include_undone=False) if d.key == key})
    elif triage.is_pattern(key):
        found = [r for r in names if triage.preview(graph, r, key)]
    else:
        found = triage.repos_with_stub(graph, key)
    if len(found) == 1:
        return found[0]
    if not found and len(names) == 1:
        return names[0]
    if not found:
        what = "an active decision on" if decided else "an unresolved symbol matching"
        raise TargetNotFound(f"no repository has {what} {key!r}; pass --repo")
    raise BadInput(f"{key!r} is in several repositories ({', '.join(found)}); pass --repo")


def triage_list_answer(stores: Any, repo: str | None = None, limit: int = 50, offset: int = 0) -> dict[str, Any]:
    """Stubs most referenced first, after applying active decisions to new stubs
    ({"stubs": [StubRow.to_dict()], "applied_now": {repo: [targets]}})."""
    from codegraph.core import triage

    graph = stores.graph
    names = [repo] if repo else [str(r.props.get("name")) for r in graph.repos()]
    applied = {r: triage.apply_pending(graph, r) for r in names}
    rows = triage.stub_rows(graph, repo, limit=limit, offset=offset)
    return {"stubs": [r.to_dict() for r in rows], "applied_now": applied}


def triage_decide_answer(stores: Any, action: str, target: str, repo: str | None = None, to: str | None = None,
                         library: str | None = None, note: str = "", by: str | None = None,
                         files: list[str] | None = None, folders: list[str] | None = None,
                         sites: list[str] | None = None, uid: str | None = None) -> dict[str, Any]:
    """Record one triage decision (``TriageDecision.to_dict()``). ``action``: resolve (needs
    ``to``, a qualified name or uid), external (needs ``library``), ignore, undo. ``files`` /
    ``folders`` / ``sites`` (``PATH:LINE``) limit it to those call sites of one target
    (``codegraph.core.triage_scope``); for undo they pick the decision on exactly that
    scope, as ``uid`` does (default: the latest on the target)."""
    from codegraph.core import triage
    from codegraph.core.triage_scope import Scope

    graph = stores.graph
    scope = Scope.of(files or (), folders or (), sites or ()) if (files or folders or sites) else None
    if action not in TRIAGE_ACTIONS:
        raise BadInput(f"unknown triage action {action!r}; use one of {', '.join(TRIAGE_ACTIONS)}")
    if action == "resolve":
        if not to:
            raise BadInput("resolve needs `to`: the qualified name (or uid) of the symbol it really is")
        name = triage_repo(graph, target, repo)
        sym = triage.find_symbol(graph, to, name)
        return triage.resolve(graph, name, target, sym.uid, by=by, note=note, scope=scope).to_dict()
    if action == "external":
        if not library:
            raise BadInput("external needs `library`: the library the target comes from, e.g. requests")
        name = triage_repo(graph, target, repo)
        return triage.mark_external(graph, name, target, library, by=by, note=note, scope=scope).to_dict()
    if action == "ignore":
        return triage.ignore(graph, triage_repo(graph, target, repo), target, by=by, note=note, scope=scope).to_dict()
    return triage.undo(graph, triage_repo(graph, target, repo, decided=True), target, by=by, scope=scope,
                       uid=uid).to_dict()


__all__ = [
    "TRIAGE_ACTIONS", "callers_answer", "endpoint_answer", "freshness_answer", "impact_answer",
    "context_line", "known_repo", "search_answer", "stats_answer", "table_answer", "triage_decide_answer", "triage_list_answer",
    "triage_repo",
]

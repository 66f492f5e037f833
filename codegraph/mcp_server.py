"""MCP server: the core's questions as read-only tools for coding agents (stdio).

Tools: ``search``, ``callers``, ``impact``, ``table``, ``endpoint``, ``stats``,
``freshness``. Each answer carries structured content (the ``Answer`` shape below,
plus tool-specific keys) and a compact Markdown rendering of the same data that ends
with: totals versus shown and the offset for the next page, the graph's freshness, the
caveat that an empty answer means no supported relationship was found, and the steps
executed with their milliseconds.

Read-only by construction: tools only call read methods of GraphStore / SearchIndex
(no raw Cypher tool is offered). Errors (target not found, a store that does not
answer, bad input) come back as tool errors whose text is one readable line.

Run with ``codegraph mcp`` (stdio). Stores come from the usual settings
(``CODEGRAPH_GRAPH``, ``CODEGRAPH_SEARCH``, ``CODEGRAPH_HOME``); they open on first use,
so a server started while a store is down answers with an error and recovers once the
store is back.
"""

# No `from __future__ import annotations`: the SDK reads the tools' annotations at runtime.

import contextlib
import functools
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from codegraph import __version__
from codegraph.core.errors import BadInput, CodegraphError, StoreUnavailable
from codegraph.core.figures import figures
from codegraph.core.git import git_head
from codegraph.core.impact import EMPTY_NOTICE, ImpactResult, freshness, impact
from codegraph.core.models import CALLER_EDGES, CALLS, EDGE_TYPES, ENDPOINT, TABLE, location
from codegraph.core.settings import Settings, load_settings
from codegraph.core.steps import StepTimer
from codegraph.core.stores import Stores

SEARCH_NOTICE = ("Search ranks code by words and meaning; it is not a dependency list. An empty or short "
                 "answer means nothing matched well, not that the code does not exist: try other words or a "
                 "direct text search (grep).")
LIST_NOTICE = "Only what the indexer extracted is listed: frameworks it does not support leave no node."
TEXT_LIMIT = 1200  # characters of source per search hit
INSTRUCTIONS = """CodeGraph answers "what breaks if I change this?" from a code graph built by parsers.
Use `impact` before changing a symbol (callers up to N hops, entry points, tables), `callers` for the
direct call sites only, `search` to find code when you do not know its name, `table` / `endpoint` for
data and HTTP dependencies, `freshness` to check the graph matches the checkout, `stats` for coverage.
Read resolution labels as confidence: exact/import/self/receiver_type/same_module are strong,
unique_name weaker, overload weakest; stubs are call sites that could not be linked. An empty answer
means no supported relationship was found, not that nothing can break: when `unresolved` is non-empty,
or for dynamic code, also grep for the name. Page with offset/limit; totals say what was cut off."""


class StepOut(BaseModel):
    name: str
    ms: float
    detail: str = ""


class Answer(BaseModel):
    """Every tool's structured content; tools add their own keys (``items`` hold the page)."""

    model_config = ConfigDict(extra="allow")

    tool: str = Field(description="Which tool answered.")
    items: list[dict[str, Any]] = Field(default_factory=list, description="The page of results.")
    total: int | None = Field(None, description="Results in total (None when open-ended, e.g. search).")
    shown: int = Field(0, description="Results on this page.")
    offset: int = Field(0, description="Offset of this page.")
    limit: int = Field(0, description="Page size asked for.")
    next_offset: int | None = Field(None, description="Pass as offset to get the next page; None when complete.")
    truncated: bool = Field(False, description="True when results exist beyond this page.")
    freshness: list[dict[str, Any]] = Field(default_factory=list, description="Per repo: commit and import time.")
    notice: str = Field("", description="How to read an empty or short answer.")
    steps: list[StepOut] = Field(default_factory=list, description="Steps executed, with milliseconds.")


Result = Annotated[CallToolResult, Answer]
Limit = Annotated[int, Field(ge=1, le=500, description="Results per page.")]
Offset = Annotated[int, Field(ge=0, description="Skip this many results (paging); see next_offset.")]
Repo = Annotated[str | None, Field(description="Limit to one indexed repository (by name); default all.")]
Workspace = Annotated[str | None, Field(description=(
    "Limit to the repositories of one workspace (codegraph.toml [[workspaces]]); not together with repo."))]
Target = Annotated[str, Field(description=(
    "A qualified name (pkg.mod.Class.method), a suffix (Class.method), a bare name (save), or a prefixed "
    "target: file:path/in/repo.py, table:orders, endpoint:\"GET /api/orders/:id\", topic:payments."))]
_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                             open_world_hint=False)


_Steps = StepTimer  # per-call step timer (codegraph.core.steps)


# -- rendering ------------------------------------------------------------------------------

def _page(total: int | None, shown: int, offset: int, limit: int, has_more: bool | None = None) -> dict[str, Any]:
    more = has_more if has_more is not None else (total is not None and offset + shown < total)
    return {"total": total, "shown": shown, "offset": offset, "limit": limit,
            "next_offset": offset + shown if more and shown else None, "truncated": bool(more)}


def _footer(what: str, data: dict[str, Any]) -> list[str]:
    """The closing lines every answer has: totals, freshness, caveat, steps."""
    lines = ["", "---"]
    total, shown, offset = data.get("total"), data.get("shown", 0), data.get("offset", 0)
    if data.get("complete"):
        lines.append("**Totals:** complete answer (no paging).")
    elif not shown:
        of = f"{total} in total" if total is not None else "open-ended ranked list"
        lines.append(f"**Totals:** no {what} on this page (offset {offset}; {of}).")
    else:
        of = f"of {total}" if total is not None else "(open-ended ranked list)"
        nxt = (f"; more exist: call again with offset={data['next_offset']}" if data.get("next_offset") is not None
               else "; nothing more")
        lines.append(f"**Totals:** {what} {offset + 1}-{offset + shown} {of}{nxt}.")
    for f in data.get("freshness") or []:
        age = f"{f['age_hours']} h old" if f.get("age_hours") is not None else "age unknown"
        lines.append(f"**Freshness:** graph of `{f.get('repo')}` at commit `{(f.get('commit') or 'n/a')[:12]}`, "
                     f"imported {f.get('last_imported_at')} ({age}).")
    if not data.get("freshness"):
        lines.append("**Freshness:** no indexed repository in scope.")
    lines.append(f"**Note:** {data.get('notice', '')}")
    steps = data.get("steps") or []
    total_ms = sum(s["ms"] for s in steps)
    lines.append("**Steps:** " + " · ".join(f"{s['name']} {s['ms']:.1f} ms" for s in steps)
                 + f" (total {total_ms:.1f} ms)")
    return lines


def _result(data: dict[str, Any], markdown: list[str], what: str) -> CallToolResult:
    text = "\n".join(markdown + _footer(what, data))
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def _error(e: Exception) -> CallToolResult:
    msg = " ".join(str(e).split()) or type(e).__name__
    if isinstance(e, StoreUnavailable):
        msg = f"store unavailable: {msg}"
    return CallToolResult(content=[TextContent(type="text", text=f"error: {msg}")], is_error=True)


def _impact_items(res: ImpactResult) -> list[dict[str, Any]]:
    return [{"depth": c.depth, "qualified_name": c.node.qualified_name, "kind": c.node.kind, "repo": c.node.repo,
             "file": c.node.file, "line": c.node.line, "via": c.via,
             "evidence": f"{c.evidence_file}:{c.evidence_line}", "resolution": c.resolution,
             "confidence": c.confidence, "is_test": c.is_test, "path": c.path} for c in res.callers]


def _impact_data(tool: str, res: ImpactResult, steps: _Steps, offset: int, limit: int,
                 query: dict[str, Any]) -> dict[str, Any]:
    d = res.to_dict()
    return {
        "tool": tool, "query": query,
        "targets": d["targets"], "items": _impact_items(res),
        **_page(res.total_callers, res.shown_callers, offset, limit),
        "by_repo": res.by_repo,
        "entry_points": [{"kind": e["kind"], "qualified_name": e["node"]["qualified_name"], "file": e["node"]["file"],
                          "line": e["node"]["line"], "repo": e["node"]["repo"], "depth": e["depth"],
                          "reason": e["reason"]}
                         for e in d["entry_points"]],
        "tables": d["tables"], "unresolved": d["unresolved"], "depth": res.depth, "edge_types": res.edge_types,
        "freshness": res.freshness, "notice": res.notice, "steps": steps.items,
    }


def _impact_markdown(title: str, data: dict[str, Any]) -> list[str]:
    lines = [f"## {title}"]
    for t in data["targets"][:10]:
        where = location(t["file"], t["line"])
        lines.append(f"- target `{t['qualified_name']}` ({t['kind']}, {where + ', ' if where else ''}repo {t['repo']})")
    if len(data["targets"]) > 10:
        lines.append(f"- ... {len(data['targets']) - 10} more targets (name more precisely)")
    lines.append("")
    if data["items"]:
        lines.append("| depth | caller | evidence | via | resolution |")
        lines.append("|---|---|---|---|---|")
        for c in data["items"]:
            test = " (test)" if c["is_test"] else ""
            conf = f" ({c['confidence']:g})" if c.get("confidence", 1.0) < 1.0 else ""
            lines.append(f"| {c['depth']} | `{c['qualified_name']}`{test} | {c['evidence']} | {c['via']} | "
                         f"{c['resolution']}{conf} |")
    else:
        lines.append("No callers found on this page (no supported relationship was found).")
    if data["entry_points"]:
        lines.append("")
        lines.append("**Entry points:** " + "; ".join(
            f"{e['kind']} `{e['qualified_name']}` {location(e['file'], e['line'])}".rstrip()
            for e in data["entry_points"][:20])
            + (f" (+{len(data['entry_points']) - 20} more)" if len(data["entry_points"]) > 20 else ""))
    if data["tables"]:
        lines.append("**Tables:** " + ", ".join(f"`{t['table']}`" for t in data["tables"]))
    if data["unresolved"]:
        lines.append("")
        lines.append("**Unresolved call sites that may also reach the target** (grep for the name too): " + "; ".join(
            f"`{u['target_identifier']}` ({u['reason']}, {u['references']} site(s))" for u in data["unresolved"]))
    return lines


def _ensure_repo(graph: Any, repo: str | None) -> None:
    if repo and repo not in {r.props.get("name") for r in graph.repos()}:
        names = ", ".join(sorted(r.props.get("name", "") for r in graph.repos())) or "none indexed yet"
        raise BadInput(f"no repository named {repo!r} in the graph (known: {names})")


def _scope(graph: Any, settings: Settings, repo: str | None, workspace: str | None) -> list[str] | None:
    """The workspace's repos (None when no workspace is given); BadInput when unknown."""
    if not workspace:
        return None
    from codegraph.core.workspace import scope_repos

    return scope_repos(settings.state_db, repo, workspace, [r.props.get("name", "") for r in graph.repos()])


# -- the tools ------------------------------------------------------------------------------
# Module-level functions registered by build_server; each gets the server's Stores session
# from its Context (docs/DESIGN.md#faces) and turns errors into tool errors.

_TOOLS: list[tuple[Callable[..., CallToolResult], dict[str, Any]]] = []


def _tool(**options: Any) -> Callable[[Callable[..., CallToolResult]], Callable[..., CallToolResult]]:
    """Record a tool (``options`` go to ``MCPServer.tool``); its CodegraphError, OSError and
    ValueError come back as a tool error whose text is one line."""

    def register(fn: Callable[..., CallToolResult]) -> Callable[..., CallToolResult]:
        @functools.wraps(fn)
        def guarded(*args: Any, **kwargs: Any) -> CallToolResult:
            try:
                return fn(*args, **kwargs)
            except (CodegraphError, OSError, ValueError) as e:
                return _error(e)

        _TOOLS.append((guarded, {"annotations": _READ_ONLY, **options}))
        return guarded

    return register


def _stores(ctx: Context) -> Stores:
    """The Stores session of the server that ``ctx`` belongs to (inside a request or not)."""
    server = ctx.mcp_server
    if not isinstance(server, _Server):
        raise TypeError("codegraph tools run only on the server build_server makes")
    return server.stores


def _open_scope(stores: Stores, repo: str | None, workspace: str | None) -> tuple[_Steps, Any, list[str] | None]:
    """Open the graph (a known ``repo`` or BadInput), timed as the step "open graph", and
    the workspace's repos (None without one)."""
    steps = _Steps()
    graph = stores.graph
    _ensure_repo(graph, repo)
    steps.mark("open graph")
    return steps, graph, _scope(graph, stores.settings, repo, workspace)


def _listing(stores: Stores, tool: str, label: str, repo: str | None, limit: int, offset: int,
             row: Callable[[Any], dict[str, Any]], title: str, workspace: str | None = None) -> CallToolResult:
    steps, graph, scope = _open_scope(stores, repo, workspace)
    if scope is None:
        total = int(graph.counts(repo)["nodes"].get(label, 0))
        nodes = graph.nodes_by_label(label, repo, limit=limit, offset=offset)
    else:  # a workspace: every repo's nodes, ordered by uid like one repo's
        total = sum(int(graph.counts(r)["nodes"].get(label, 0)) for r in scope)
        every = sorted((n for r in scope for n in graph.nodes_by_label(label, r, limit=offset + limit)),
                       key=lambda n: n.uid)
        nodes = every[offset:offset + limit]
    steps.mark(f"list {label} nodes", f"{len(nodes)} of {total}")
    items = [row(n) for n in nodes]
    fresh = freshness(graph, set(scope) if scope is not None else {repo} if repo else None)
    steps.mark("freshness")
    data = {"tool": tool, "query": {"repo": repo, "workspace": workspace}, "items": items, **_page(total, len(items), offset, limit),
            "freshness": fresh, "notice": LIST_NOTICE, "steps": steps.items}
    md = [f"## {title}"] + [f"- {it['label']} (repo {it['repo']})" for it in items]
    if not items:
        md.append("None found (no supported relationship was found).")
    return _result(data, md, title.lower())


def _impact_answer(stores: Stores, tool: str, target: str, title: str, query: dict[str, Any], offset: int,
                   limit: int, repo: str | None, workspace: str | None, free_text: bool = False,
                   **options: Any) -> CallToolResult:
    """Run ``impact`` on ``target`` in ``repo`` / ``workspace`` (``options`` go to it) and
    render one tool answer. ``free_text``: a target that names no symbol is answered for the
    symbols hybrid search picks (``api.answers.impact_result``), listed in ``search_targets``."""
    steps = _Steps()
    graph = stores.graph
    steps.mark("open graph")
    repos = _scope(graph, stores.settings, repo, workspace)
    picks: list[dict[str, Any]] = []
    if free_text:
        from codegraph.api.answers import impact_result

        res, picks = impact_result(stores, target, repo=repo, limit=limit, offset=offset, repos=repos, **options)
    else:
        res = impact(graph, target, repo=repo, limit=limit, offset=offset, repos=repos, **options)
    steps.extend(res.steps)
    data = _impact_data(tool, res, steps, offset, limit, query)
    md = _impact_markdown(title, data)
    if picks:
        data["search_targets"] = picks
        md[1:1] = [f"_No symbol is named `{target}`: targets picked by hybrid search ({picks[0]['mode']})._"] + [
            f"- picked `{p['qualified_name']}` ({p['file']}:{p['line']}, score {p['score']})" for p in picks]
    steps.mark("render")
    data["steps"] = steps.items
    return _result(data, md, "callers")


@_tool(description=(
    "Find code by words or meaning when you do not know its name (hybrid BM25 + embeddings; BM25 only "
    "when no model is configured, as `mode` says). Returns functions, classes and file sections with "
    "file:line and a source excerpt. Not a dependency list: to learn what depends on a hit, call "
    "`impact` or `callers` with its qualified_name. Page with offset/limit (open-ended ranking)."))
def search(ctx: Context, query: Annotated[str, Field(description="Words or a description, e.g. 'validate an order before saving'.")],
           repo: Repo = None, limit: Annotated[int, Field(ge=1, le=100, description="Hits per page.")] = 10,
           offset: Annotated[int, Field(ge=0, le=400, description="Skip this many hits (paging).")] = 0,
           workspace: Workspace = None,
           kinds: Annotated[list[str] | None, Field(description=(
               "Content kinds: code, schema (SQL tables), config (properties), docs (Markdown sections); "
               "default all."))] = None) -> Result:
    from codegraph.api.answers import context_line
    from codegraph.core.retrieval import hybrid_search
    from codegraph.core.search_context import search_context

    stores = _stores(ctx)
    steps = _Steps()
    graph, index, emb = stores.graph, stores.search, stores.embedder
    _ensure_repo(graph, repo)
    steps.mark("open stores")
    res = hybrid_search(index, emb, query, k=offset + limit, repo=repo, graph=graph,
                        repos=_scope(graph, stores.settings, repo, workspace), kinds=kinds)
    steps.extend(res.steps)
    page = res.hits[offset:offset + limit]
    items = [{"rank": offset + i + 1, "qualified_name": h.chunk.qualified_name or h.chunk.file,
              "content": h.content, "kind": h.chunk.kind, "repo": h.chunk.repo, "file": h.chunk.file,
              "line": h.chunk.line, "end_line": h.chunk.end_line, "score": round(h.score, 5),
              "bm25_rank": h.bm25_rank, "knn_rank": h.knn_rank, "text": h.chunk.text[:TEXT_LIMIT],
              "text_truncated": len(h.chunk.text) > TEXT_LIMIT, "symbol_uid": h.chunk.symbol_uid}
             for i, h in enumerate(page)]
    for it, hit_context in zip(items, search_context(graph, index, items), strict=True):
        it["context"] = hit_context
    steps.mark("graph context", f"{len(items)} hit(s), batched")
    fresh = freshness(graph, {repo} if repo else {h.chunk.repo for h in page} or None)
    steps.mark("freshness")
    data = {"tool": "search", "query": {"query": query, "repo": repo, "workspace": workspace}, "mode": res.mode,
            "mode_reason": res.reason, "dropped_without_graph_node": res.dropped, "items": items,
            **_page(None, len(items), offset, limit, has_more=len(res.hits) >= offset + limit),
            "freshness": fresh, "notice": SEARCH_NOTICE, "steps": steps.items}
    md = [f"## Search: {query}", f"_mode: {res.mode}{' (' + res.reason + ')' if res.reason else ''}_", ""]
    for it in items:
        first = "\n".join(it["text"].splitlines()[:6])
        md.append(f"{it['rank']}. `{it['qualified_name']}` ({it['content']}: {it['kind']}) — {it['file']}:{it['line']}"
                  f" (repo {it['repo']}) [score {it['score']}]")
        if context_line(it):
            md.append(f"   _{context_line(it)}_")
        md.append("```\n" + first + "\n```")
    if not items:
        md.append("No hits on this page.")
    return _result(data, md, "hits")


@_tool(description=(
    "Direct callers of a symbol (one hop, CALLS edges only), each with its call site file:line and how the "
    "call was resolved (exact/import/self/receiver_type/same_module = strong, unique_name = weaker, "
    "overload = one of several). Use for a quick 'who calls this'; use `impact` before changing it. "
    "If `unresolved` is non-empty, some call sites could not be linked: also grep for the name."))
def callers(ctx: Context, target: Target, repo: Repo = None, limit: Limit = 50, offset: Offset = 0,
            workspace: Workspace = None) -> Result:
    return _impact_answer(_stores(ctx), "callers", target, f"Callers of `{target}`",
                          {"target": target, "repo": repo, "workspace": workspace}, offset, limit, repo, workspace,
                          depth=1, edge_types=[CALLS])


@_tool(name="impact", description=(
    "Blast radius: use before changing a symbol, file (file:path), table (table:name) or endpoint "
    "(endpoint:\"GET /path\"). Walks incoming " + ", ".join(CALLER_EDGES) + " edges up to `depth` hops and lists every caller with depth, the path to the target and the "
    "evidence file:line, plus entry points (tests, endpoints, pages, topic consumers) and tables touched. "
    "An empty answer means no supported relationship was found, not that nothing can break. If "
    "`unresolved` is non-empty, also grep for the name: those call sites could not be linked. Totals count "
    "the whole radius; page with offset/limit. Free text that names no symbol (\"send the receipt\") starts "
    "from the symbols hybrid search picks, listed in `search_targets` with their scores."))
def impact_tool(ctx: Context, target: Target, repo: Repo = None,
                depth: Annotated[int, Field(ge=1, le=20, description="Hops to walk from the target.")] = 5,
                edge_types: Annotated[list[str] | None, Field(description=(
                    f"Only these edge types (default: {', '.join(CALLER_EDGES)})."))] = None,
                include_tests: Annotated[bool, Field(description="Include test callers.")] = True,
                limit: Limit = 50, offset: Offset = 0, workspace: Workspace = None,
                min_confidence: Annotated[float, Field(ge=0.0, le=1.0, description=(
                    "Leave out edges below this confidence (each caller's `confidence`); 1 = only certain "
                    "edges, without unique-name or several-overload matches."))] = 0.0) -> Result:
    stores = _stores(ctx)
    types = [e.upper() for e in edge_types] if edge_types else None
    bad = [e for e in types or [] if e not in EDGE_TYPES]
    if bad:
        raise BadInput(f"unknown edge type(s) {', '.join(bad)}; known: {', '.join(EDGE_TYPES)}")
    query = {"target": target, "repo": repo, "workspace": workspace, "depth": depth, "edge_types": types,
             "include_tests": include_tests, "min_confidence": min_confidence}
    return _impact_answer(stores, "impact", target, f"Impact of `{target}` (depth {depth})", query, offset, limit,
                          repo, workspace, free_text=True, depth=depth, edge_types=types,
                          include_tests=include_tests, min_confidence=min_confidence)


@_tool(description=(
    "Which code reads or writes a database table (READS/WRITES edges from SQL and ORM usage, TOUCHES for "
    "file-level evidence), and with depth > 1 who calls that code. Without `name`, lists the known tables "
    "(paged). Table access built from dynamic SQL strings is not visible: an empty answer means no "
    "supported relationship was found; grep for the table name too."))
def table(ctx: Context, name: Annotated[str | None, Field(description="Table name, e.g. orders; omit to list tables.")] = None,
          repo: Repo = None, depth: Annotated[int, Field(ge=1, le=20, description="Hops from the table.")] = 1,
          limit: Limit = 50, offset: Offset = 0, workspace: Workspace = None) -> Result:
    stores = _stores(ctx)
    if not name:
        return _listing(stores, "table", TABLE, repo, limit, offset,
                        lambda n: {"label": f"`{n.display()}`", "name": n.props.get("name"), "repo": n.repo},
                        "Tables", workspace)
    return _impact_answer(stores, "table", f"table:{name}", f"Code touching table `{name}` (depth {depth})",
                          {"name": name, "repo": repo, "depth": depth}, offset, limit, repo, workspace, depth=depth)


@_tool(description=(
    "What handles and what calls an HTTP endpoint: its handler (EXPOSES), client code whose URL literal "
    "matches it (CALLS_HTTP) and, with depth > 1, their callers. Path templates use :param (also accepts "
    "{param}, <param>, [param]). Without `path`, lists the known endpoints (paged). URLs built at run "
    "time are invisible: an empty answer means no supported relationship was found."))
def endpoint(ctx: Context, path: Annotated[str | None, Field(description="Path template, e.g. /api/orders/:id; omit to list.")] = None,
             method: Annotated[str | None, Field(description="HTTP method, e.g. GET; default any.")] = None,
             repo: Repo = None, depth: Annotated[int, Field(ge=1, le=20, description="Hops from the endpoint.")] = 2,
             limit: Limit = 50, offset: Offset = 0, workspace: Workspace = None) -> Result:
    stores = _stores(ctx)
    if not path:
        return _listing(stores, "endpoint", ENDPOINT, repo, limit, offset,
                        lambda n: {"label": f"`{n.display()}` ({n.props.get('framework', '')})",
                                   "method": n.props.get("method"), "path_template": n.props.get("path_template"),
                                   "framework": n.props.get("framework"), "repo": n.repo},
                        "Endpoints", workspace)
    spec = f"{method.upper()} {path}" if method else path
    return _impact_answer(stores, "endpoint", f"endpoint:{spec}", f"Endpoint `{spec}` (depth {depth})",
                          {"path": path, "method": method, "repo": repo, "depth": depth}, offset, limit, repo,
                          workspace, depth=depth)


@_tool(description=(
    "Index coverage and size: files per language, parse errors and partial files, symbols, edges by "
    "type, unresolved stubs, search chunks (with vectors). Use to judge how much to trust an answer for a "
    "repo (many stubs or partial files mean more invisible call sites)."))
def stats(ctx: Context, repo: Repo = None, workspace: Workspace = None) -> Result:
    stores = _stores(ctx)
    steps, graph, scope = _open_scope(stores, repo, workspace)
    if scope is not None:
        return _workspace_stats(graph, workspace or "", scope, steps)
    counts = graph.counts(repo)
    fig = figures(graph, repo, counts)
    steps.mark("graph counts")
    try:
        search_stats: dict[str, Any] = stores.search.stats(repo)
    except CodegraphError as e:  # the graph still answers: say what is missing
        search_stats = {"error": " ".join(str(e).split())}
    steps.mark("search stats")
    fresh = freshness(graph, {repo} if repo else None)
    steps.mark("freshness")
    edges = counts.get("edges", {})
    calls = edges.get(CALLS, 0)
    data = {"tool": "stats", "query": {"repo": repo}, "graph_backend": graph.backend,
            "graph": counts, "figures": fig.to_dict(), "search": search_stats, "items": [], "complete": True,
            **_page(None, 0, 0, 0), "freshness": fresh, "notice": EMPTY_NOTICE, "steps": steps.items}
    md = [f"## Index stats{' of ' + repo if repo else ''} ({graph.backend} graph)",
          "- files by language: " + (", ".join(f"{k} {v}" for k, v in sorted(
              counts.get("languages", {}).items(), key=lambda kv: -kv[1])) or "none"),
          f"- parse errors: {counts.get('parse_errors', 0)}, partial files: {counts.get('partial_files', 0)}",
          f"- symbols: {fig.symbols}, unresolved stubs: {fig.stubs}, edges: {fig.edges}, "
          f"CALLS edges: {calls}",
          f"- unresolved references: {fig.stub_references} of {fig.reference_edges} "
          f"({'n/a' if fig.unresolved_pct is None else f'{fig.unresolved_pct} %'}), "
          f"unsupported files: {fig.unsupported_files}",
          "- edges by type: " + (", ".join(f"{k} {v}" for k, v in sorted(edges.items())) or "none"),
          f"- search chunks: {search_stats.get('chunks', 'n/a')} "
          f"(with vectors: {search_stats.get('with_vectors', 'n/a')})"
          + (f" — {search_stats['error']}" if "error" in search_stats else "")]
    return _result(data, md, "stats")


@_tool(name="freshness", description=(
    "When each repository's graph was built: the commit indexed, import and check times, age in hours, and "
    "whether the checkout on disk has moved on (HEAD differs). Call first when answers matter: a stale "
    "graph misses new callers; re-run `codegraph index PATH --repo NAME` (outside this server) to refresh."))
def freshness_tool(ctx: Context, repo: Repo = None, workspace: Workspace = None) -> Result:
    stores = _stores(ctx)
    steps, graph, scope = _open_scope(stores, repo, workspace)
    rows = freshness(graph, set(scope) if scope is not None else {repo} if repo else None)
    steps.mark("read repo nodes", f"{len(rows)} repo(s)")
    for r in rows:
        head = git_head(r.get("path"))
        r["checkout_head"] = head
        r["path_exists"] = bool(r.get("path")) and Path(r["path"]).is_dir()
        r["stale"] = bool(head and r.get("commit") and head != r["commit"])
    steps.mark("check checkouts", "git rev-parse HEAD")
    data = {"tool": "freshness", "query": {"repo": repo}, "items": rows, "complete": True,
            **_page(len(rows), len(rows), 0, len(rows)), "freshness": rows, "notice": EMPTY_NOTICE,
            "steps": steps.items}
    md = ["## Freshness"]
    for r in rows:
        state = ("STALE: the checkout is at " + (r["checkout_head"] or "")[:12] if r["stale"]
                 else "matches the checkout" if r["checkout_head"] else "not a git checkout (cannot compare)")
        md.append(f"- `{r['repo']}`: commit `{(r.get('commit') or 'n/a')[:12]}`, imported "
                  f"{r.get('last_imported_at')}, checked {r.get('last_checked_at')}, "
                  f"{r.get('age_hours')} h old — {state}")
        here = r.get("checkout")  # the server's working directory, when it is a checkout of this repo
        if isinstance(here, dict) and not here.get("matches_graph"):
            md.append(f"  - working checkout {here.get('checkout')}: {len(here.get('changed_since') or [])} "
                      f"file(s) changed since the indexed commit, {len(here.get('uncommitted') or [])} "
                      "uncommitted: answers may miss those edits")
    if not rows:
        md.append("No repository indexed yet: run `codegraph index PATH`.")
    return _result(data, md, "repos")


def _workspace_stats(graph: Any, workspace: str, scope: list[str], steps: _Steps) -> CallToolResult:
    """``stats`` for a workspace: each repo's figures, and the workspace's totals."""
    items = []
    for r in scope:
        fig = figures(graph, r, graph.counts(r))
        items.append({"repo": r, **fig.to_dict()})
    steps.mark("graph counts", f"{len(scope)} repo(s)")
    fresh = freshness(graph, set(scope))
    data = {"tool": "stats", "query": {"workspace": workspace}, "graph_backend": graph.backend, "items": items,
            "complete": True, **_page(len(items), len(items), 0, len(items)), "freshness": fresh,
            "notice": EMPTY_NOTICE, "steps": steps.items}
    md = [f"## Index stats of workspace {workspace} ({graph.backend} graph)"]
    md += [f"- `{it['repo']}`: symbols {it.get('symbols')}, edges {it.get('edges')}, stubs {it.get('stubs')}"
           for it in items]
    return _result(data, md, "repos")


class _Server(MCPServer):
    """The MCP server and the one Stores session its tools share (``ctx.mcp_server.stores``)."""

    def __init__(self, stores: Stores, **options: Any) -> None:
        super().__init__(lifespan=_lifespan, **options)
        self.stores = stores


@contextlib.asynccontextmanager
async def _lifespan(server: MCPServer) -> AsyncIterator[None]:
    """Warm the query model at start; close the stores when a run of the server ends
    (the client went away)."""
    if isinstance(server, _Server):
        server.stores.warm_embedder()
    try:
        yield None
    finally:
        if isinstance(server, _Server):
            server.stores.close()


def build_server(settings: Settings | None = None) -> MCPServer:
    """The MCP server with its seven read-only tools (not started). Stores open on
    first use, so a server started while a store is down recovers once it is back."""
    mcp = _Server(Stores(settings or load_settings()), name="codegraph", title="CodeGraph Explorer",
                  version=__version__, instructions=INSTRUCTIONS)
    for fn, options in _TOOLS:
        mcp.tool(**options)(fn)
    return mcp


def serve(settings: Settings | None = None) -> None:
    """Run the server on stdio until the client closes it (Ctrl+C ends it quietly)."""
    with contextlib.suppress(KeyboardInterrupt):
        build_server(settings).run("stdio")


__all__ = ["Answer", "build_server", "serve"]

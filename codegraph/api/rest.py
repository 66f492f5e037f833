"""REST API over the core: ``codegraph serve`` (FastAPI + uvicorn; docs/DESIGN.md#faces).

The same operations as the MCP tools, answered with the same JSON as ``codegraph ...
--json`` (``codegraph.api.answers`` defines both):

    GET  /api/search?q=...&k=10&repo=&kind=    hybrid search (kind: code|schema|config|docs, repeat)
    GET  /api/callers?target=...&repo=&limit=  direct callers
    GET  /api/impact?target=...&depth=5&edge_type=CALLS&include_tests=true&limit=&offset=
    GET  /api/table?name=orders&depth=1        code touching a table (no name: the tables)
    GET  /api/endpoint?path=/api/x&method=GET  handler and clients (no path: the endpoints)
    GET  /api/stats?repo=                      counts, figures, search chunks
    GET  /api/freshness?repo=                  commit indexed, age, checkout moved on
    GET  /api/triage/stubs?repo=&limit=&offset= unresolved symbols, most referenced first
    POST /api/triage/decisions                 {"action": resolve|external|ignore|undo, "target": ...}
    GET  /health                               liveness (no store touched, no token needed)

OpenAPI at ``/openapi.json``, interactive docs at ``/docs``. Binds 127.0.0.1 unless told
otherwise. With ``CODEGRAPH_API_TOKEN`` set every ``/api`` call needs
``Authorization: Bearer <token>`` (401 otherwise); the token is compared in constant time
and never logged or echoed. Errors are ``{"error": "<one line>"}`` with 400 (bad input),
404 (not found), 403 (refused), 503 (a store did not answer) or 422 (a parameter out of range).
"""

# No `from __future__ import annotations`: FastAPI reads the endpoints' annotations at runtime
# (closure-local dependencies included).

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Query, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field

from codegraph import __version__
from codegraph.api import answers
from codegraph.core.errors import BadInput, CodegraphError, ReadOnlyViolation, StoreUnavailable, TargetNotFound
from codegraph.core.models import CALLER_EDGES
from codegraph.core.settings import Settings, load_settings

Repo = Annotated[str | None, Query(description="Limit to one indexed repository (by name).")]
Target = Annotated[str, Query(description=(
    "Qualified name, suffix (Class.method), bare name, or file:path / table:name / endpoint:\"GET /p\" / topic:t."))]
Limit = Annotated[int, Query(ge=1, le=500, description="Results per page.")]
Offset = Annotated[int, Query(ge=0, description="Skip this many results (paging).")]
Depth = Annotated[int, Query(ge=1, le=20, description="Hops to walk from the target.")]


class Answer(BaseModel):
    """A JSON answer: the same object ``codegraph <command> --json`` prints."""

    model_config = {"extra": "allow"}


class ErrorOut(BaseModel):
    error: str = Field(description="One readable line.")


class Decision(BaseModel):
    """One triage decision (same as ``codegraph triage resolve|external|ignore|undo``)."""

    action: Literal["resolve", "external", "ignore", "undo"]
    target: str = Field(description="Target identifier of the stub, or an fnmatch pattern (external/ignore).")
    repo: str | None = Field(None, description="Repository; default: the one that has the target.")
    to: str | None = Field(None, description="resolve: qualified name or uid of the symbol it really is.")
    library: str | None = Field(None, description="external: the library the target comes from.")
    note: str = Field("", description="Why (kept in the decision log).")
    by: str | None = Field(None, description="Who decides (default: CODEGRAPH_USER or the login name).")
    files: list[str] = Field([], description="Only call sites in these calling files (one target only).")
    folders: list[str] = Field([], description="Only call sites in files under these folders.")
    sites: list[str] = Field([], description="Only these call sites, PATH:LINE.")
    uid: str | None = Field(None, description="undo: the decision's uid (default: the one on exactly this scope, "
                                              "else the latest on the target).")


_STATUS: list[tuple[type[CodegraphError], int]] = [
    (StoreUnavailable, 503), (TargetNotFound, 404), (ReadOnlyViolation, 403), (BadInput, 400)]
_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut, "description": why}
    for code, why in ((400, "Bad input"), (401, "Missing or wrong bearer token"), (404, "Target not found"),
                      (503, "A store did not answer"))}


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


def create_app(settings: Settings | None = None, stores: Any = None,
               announce_at: tuple[str, int] | None = None) -> FastAPI:
    """The app for ``settings`` (default: the environment). ``stores``: an object with
    ``graph``/``search``/``embedder``/``settings`` (default: a core.stores.Stores session,
    opened lazily, closed when the app stops). ``announce_at`` (host, port): while the app
    runs, CODEGRAPH_HOME/serve.json tells the CLI where it is (codegraph.core.serve_link)."""
    settings = settings or load_settings()
    if stores is None:
        from codegraph.core.stores import Stores

        stores = Stores(settings)
    token = settings.api_token.get_secret_value()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        warm = getattr(stores, "warm_embedder", None)
        if warm:  # the first search does not pay the model load
            warm()
        from codegraph.core.serve_link import announce, withdraw

        note = announce(settings, *announce_at) if announce_at else None
        try:
            yield
        finally:
            if note is not None:
                withdraw(note)
        close = getattr(stores, "close", None)
        if close:
            close()

    app = FastAPI(title="CodeGraph Explorer", version=__version__, lifespan=lifespan, description=(
        "What breaks if I change this? Callers, blast radius, search, tables, endpoints and triage "
        "over the indexed code graph. Every answer is the JSON of the matching `codegraph ... --json` "
        "command. An empty answer means no supported relationship was found, not that nothing can break."))
    bearer = HTTPBearer(auto_error=False, description="CODEGRAPH_API_TOKEN, when the server has one.")

    def authorised(creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]) -> None:
        if not token:
            return
        given = creds.credentials if creds is not None else ""
        if not secrets.compare_digest(given.encode(), token.encode()):
            raise HTTPException(401, "missing or wrong bearer token", headers={"WWW-Authenticate": "Bearer"})

    @app.exception_handler(CodegraphError)
    async def _codegraph_error(_: Request, e: CodegraphError) -> JSONResponse:
        status = next((code for cls, code in _STATUS if isinstance(e, cls)), 400)
        msg = _one_line(e)
        return JSONResponse({"error": f"store unavailable: {msg}" if status == 503 else msg}, status_code=status)

    @app.exception_handler(HTTPException)
    async def _http_error(_: Request, e: HTTPException) -> JSONResponse:
        return JSONResponse({"error": str(e.detail)}, status_code=e.status_code, headers=e.headers)

    @app.get("/health", tags=["server"])
    def health() -> dict[str, Any]:
        """Liveness: the server runs (no store is touched, no token needed)."""
        return {"ok": True, "version": __version__}

    api = APIRouter(prefix="/api", dependencies=[Depends(authorised)], responses=_ERRORS)

    @api.get("/search", tags=["questions"], response_model=Answer)
    def search(q: Annotated[str, Query(min_length=1, description="Words or a description.")],
               k: Annotated[int, Query(ge=1, le=100, description="Hits to return.")] = 10,
               repo: Repo = None,
               kind: Annotated[list[str] | None, Query(description=(
                   "Content kinds (repeat): code, schema, config, docs; default all."))] = None) -> dict[str, Any]:
        """Hybrid search (BM25 + kNN fused by RRF; BM25 only without a model, as `mode` says) over code,
        SQL schema, config properties and Markdown docs; each hit says its `content` kind and carries its
        graph `context` (callers/callees, top callers, endpoints, tables; readers of a table or key)."""
        return answers.search_answer(stores, q, k=k, repo=repo, kinds=kind)

    @api.get("/callers", tags=["questions"], response_model=Answer)
    def callers(target: Target, repo: Repo = None, limit: Limit = 100) -> dict[str, Any]:
        """Direct callers (depth 1, CALLS edges) with call sites and resolution."""
        return answers.callers_answer(stores, target, repo=repo, limit=limit)

    @api.get("/impact", tags=["questions"], response_model=Answer)
    def impact(target: Target, repo: Repo = None, depth: Depth = 5,
               edge_type: Annotated[list[str] | None, Query(description=f"Only these edge types (repeat). Default: {', '.join(CALLER_EDGES)}.")] = None,
               include_tests: bool = True, limit: Limit = 200, offset: Offset = 0) -> dict[str, Any]:
        """Blast radius: callers up to `depth` hops with paths and evidence, entry points, tables."""
        return answers.impact_answer(stores, target, repo=repo, depth=depth, edge_types=edge_type,
                                     include_tests=include_tests, limit=limit, offset=offset)

    @api.get("/table", tags=["questions"], response_model=Answer)
    def table(name: Annotated[str | None, Query(description="Table name; omit to list the tables.")] = None,
              repo: Repo = None, depth: Depth = 1, limit: Limit = 50, offset: Offset = 0) -> dict[str, Any]:
        """Code that reads or writes a table (and, with depth > 1, who calls it)."""
        return answers.table_answer(stores, name, repo=repo, depth=depth, limit=limit, offset=offset)

    @api.get("/endpoint", tags=["questions"], response_model=Answer)
    def endpoint(path: Annotated[str | None, Query(description="Path template; omit to list the endpoints.")] = None,
                 method: Annotated[str | None, Query(description="HTTP method, e.g. GET; default any.")] = None,
                 repo: Repo = None, depth: Depth = 2, limit: Limit = 50, offset: Offset = 0) -> dict[str, Any]:
        """What handles and what calls an HTTP endpoint."""
        return answers.endpoint_answer(stores, path, method, repo=repo, depth=depth, limit=limit, offset=offset)

    @api.get("/stats", tags=["index"], response_model=Answer)
    def stats(repo: Repo = None) -> dict[str, Any]:
        """Counts per scope: files per language, symbols, edges by type, stubs, search chunks."""
        return answers.stats_answer(stores, repo)

    @api.get("/freshness", tags=["index"], response_model=Answer)
    def freshness(repo: Repo = None) -> dict[str, Any]:
        """When each repository's graph was built and whether its checkout moved on."""
        return answers.freshness_answer(stores, repo)

    @api.get("/triage/stubs", tags=["triage"], response_model=Answer)
    def triage_stubs(repo: Repo = None, limit: Limit = 50, offset: Offset = 0) -> dict[str, Any]:
        """Unresolved symbols, most referenced first (active decisions applied to new stubs first)."""
        return answers.triage_list_answer(stores, repo, limit=limit, offset=offset)

    @api.post("/triage/decisions", tags=["triage"], response_model=Answer)
    def triage_decide(decision: Decision) -> dict[str, Any]:
        """Record a triage decision; it survives re-index (undo brings the stub back)."""
        d = decision
        return answers.triage_decide_answer(stores, d.action, d.target, repo=d.repo, to=d.to, library=d.library,
                                            note=d.note, by=d.by, files=d.files, folders=d.folders, sites=d.sites,
                                            uid=d.uid)

    app.include_router(api)
    return app


LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def serve(settings: Settings, host: str = "127.0.0.1", port: int = 8765, log_level: str = "info") -> None:
    """Run the API with uvicorn until Ctrl+C. Refuses a non-loopback ``host`` without a token."""
    import uvicorn

    if host not in LOOPBACK and not settings.api_token.get_secret_value():
        raise BadInput(f"--host {host} exposes the API beyond this machine: set CODEGRAPH_API_TOKEN first")
    uvicorn.run(create_app(settings, announce_at=(host, port)), host=host, port=port, log_level=log_level)

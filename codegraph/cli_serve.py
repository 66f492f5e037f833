"""``codegraph serve`` (the REST API) and ``codegraph freshness``. Registered by
``codegraph.cli`` through ``register(app, run)``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer

from codegraph.cli import JsonOpt, RepoOpt, console, emit_json, err


def register(app: typer.Typer, run: Callable[[Callable[[Any], None]], None]) -> None:
    @app.command()
    def serve(
        host: Annotated[str, typer.Option(help="Address to bind (localhost by default; others need CODEGRAPH_API_TOKEN).")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="Port to listen on.")] = 8765,
        log_level: Annotated[str, typer.Option(help="uvicorn log level (info logs one line per request).")] = "info",
    ) -> None:
        """Serve the REST API (FastAPI): search, callers, impact, table, endpoint, stats, freshness, triage.

        Answers are the JSON of the matching `codegraph ... --json` command; OpenAPI docs at /docs. Set CODEGRAPH_API_TOKEN to require `Authorization: Bearer <token>` (never logged).
        """

        def body(ctx: Any) -> None:
            from codegraph.api.rest import serve as run_server

            auth = "bearer token required" if ctx.settings.api_token.get_secret_value() else "no token (local use)"
            err.print(f"REST API on http://{host}:{port}  docs: http://{host}:{port}/docs  ({auth}; Ctrl+C to stop)",
                      highlight=False)
            run_server(ctx.settings, host=host, port=port, log_level=log_level)

        run(body)

    @app.command()
    def freshness(repo: RepoOpt = None, as_json: JsonOpt = False) -> None:
        """When each repository's graph was built (commit, age) and whether its checkout moved on."""

        def body(ctx: Any) -> None:
            from codegraph.api.answers import freshness_answer

            out = freshness_answer(ctx, repo)
            if as_json:
                emit_json(out)
                return
            for r in out["repos"]:
                state = ("STALE: checkout at " + str(r["checkout_head"])[:12] if r["stale"]
                         else "matches the checkout" if r["checkout_head"] else "not a git checkout")
                console.print(f"{r['repo']}: commit {(r.get('commit') or 'n/a')[:12]}, imported "
                              f"{r.get('last_imported_at')}, {r.get('age_hours')} h old, {state}", highlight=False)
            if not out["repos"]:
                console.print("no repository indexed yet: run `codegraph index PATH`")

        run(body)

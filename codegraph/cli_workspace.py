"""``codegraph workspace``: list workspaces, run the cross-repo link pass, remove a repo
without leaving dangling edges (docs/DESIGN.md#workspaces)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from codegraph.cli import JsonOpt, console, emit_json, path_value
from codegraph.cli_console import rich_table

ConfigOpt = Annotated[Path | None, typer.Option("--config", "-c", help="Project config (default ./codegraph.toml or $CODEGRAPH_CONFIG).", parser=path_value)]


def register(app: typer.Typer, run: Any) -> None:
    ws = typer.Typer(help="Workspaces: repositories linked across (libraries, HTTP, Kafka).", no_args_is_help=True)
    app.add_typer(ws, name="workspace")

    def _config(ctx: Any, config: Path | None) -> Any:
        from codegraph.core.errors import BadInput
        from codegraph.core.workspace import config_path, current_config, load_config_file

        if config is not None and not config.is_file():  # named on purpose: not "no workspace declared"
            raise BadInput(f"no project config at {config}")
        cfg = load_config_file(config_path(config))
        return cfg if cfg.workspaces else current_config(ctx.settings.state_db)

    @ws.command("link")
    def link(
        name: Annotated[str | None, typer.Argument(help="Workspace to link (default: every declared one).")] = None,
        config: ConfigOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Relink cross-repo edges from the stored graph (no repository is re-parsed)."""

        def body(ctx: Any) -> None:
            from codegraph.indexer.cross_repo import describe, link_workspace
            from codegraph.indexer.state import StateStore

            cfg = _config(ctx, config)
            repos = cfg.repos_of(name) if name else None
            state = StateStore(ctx.settings.state_db)
            try:
                s = link_workspace(ctx.graph, state, cfg, repos, state_db=ctx.settings.state_db)
            finally:
                state.close()
            if as_json:
                emit_json(s.to_dict())
            else:
                console.print(describe(s))

        run(body)

    @ws.command("list")
    def list_(config: ConfigOpt = None, as_json: JsonOpt = False) -> None:
        """Workspaces with their repos, what each provides, cross-repo edges by kind and
        client calls that matched no endpoint in the workspace."""

        def body(ctx: Any) -> None:
            from codegraph.indexer.workspace_view import workspace_overview

            cfg = _config(ctx, config)
            rows = [workspace_overview(ctx.graph, ctx.settings.state_db, cfg, w.name) for w in cfg.workspaces]
            if as_json:
                emit_json(rows)
                return
            if not rows:
                console.print("no workspace declared: add [[workspaces]] name, repos to codegraph.toml")
            for w in rows:
                t = rich_table(title=f"workspace {w['name']}")
                for c in ("repo", "provides", "library", "http", "kafka", "unmatched http", "ambiguous"):
                    t.add_column(c)
                for r in w["repos"]:
                    t.add_row(r["repo"], ", ".join(r["provides"][:4]) + (" ..." if len(r["provides"]) > 4 else ""),
                              *(str(r["edges_out"].get(k, 0)) for k in ("library", "http", "kafka")),
                              str(r["unmatched_http"]), str(r["ambiguous"]))
                console.print(t)

        run(body)

    @ws.command("forget")
    def forget(repo: Annotated[str, typer.Argument(help="Repository to remove from the graph.")],
               config: ConfigOpt = None) -> None:
        """Remove a repository: its peers' references into it become stubs again, then
        its nodes, its edges and every edge into it leave the graph."""

        def body(ctx: Any) -> None:
            from codegraph.indexer.cross_repo import unlink_repo
            from codegraph.indexer.state import StateStore

            state = StateStore(ctx.settings.state_db)
            try:
                unlink_repo(ctx.graph, state, _config(ctx, config), repo)
                ctx.graph.delete_repo(repo)
                state.forget(repo)
            finally:
                state.close()
            console.print(f"removed {repo}")

        run(body)

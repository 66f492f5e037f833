"""``codegraph stats``, ``verify``, ``stubs`` and ``query``: looking into what is stored
(counts, integrity and completeness, the stub list, raw read-only Cypher). Registered by
``codegraph.cli`` through ``register(app, run)``."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from codegraph.cli import JsonOpt, RepoOpt, console, emit_json, err
from codegraph.cli_console import esc, rich_table

if TYPE_CHECKING:
    from codegraph.core.stores import Stores


def register(app: typer.Typer, run: Callable[[Callable[[Any], None]], None]) -> None:
    """Add the inspection commands to ``app`` (``run`` opens the stores and maps errors)."""

    @app.command()
    def stats(repo: RepoOpt = None, as_json: JsonOpt = False) -> None:
        """Counts per repo: files, symbols, edges by type, stubs, coverage, search chunks."""

        def body(ctx: Stores) -> None:
            from codegraph.api.answers import stats_answer
            from codegraph.core.models import STRUCTURAL_EDGES

            out = stats_answer(ctx, repo)
            if as_json:
                emit_json(out)
                return
            g = out["graph"]
            t = rich_table(title=f"codegraph stats ({out['graph_backend']} graph, {out['search_backend']} search)", show_header=False)
            for label, n in sorted(g["nodes"].items()):
                t.add_row(f"nodes: {label}", str(n))
            for et, n in sorted(g["edges"].items()):  # structural ones are not in the figures' edges
                t.add_row(f"edges: {et}" + (" (structural)" if et in STRUCTURAL_EDGES else ""), str(n))
            fig = out["figures"]
            t.add_row("figures", f"files {fig['files']}, symbols {fig['symbols']}, "
                      f"edges {fig['edges']} (every type but the structural {' / '.join(STRUCTURAL_EDGES)}), "
                      f"stubs {fig['stubs']}, unresolved references {fig['stub_references']}/{fig['reference_edges']} "
                      f"({'n/a' if fig['unresolved_pct'] is None else str(fig['unresolved_pct']) + ' %'}), "
                      f"unsupported files {fig['unsupported_files']}")
            t.add_row("files by language", ", ".join(f"{k} {v}" for k, v in sorted(g["languages"].items(), key=lambda kv: -kv[1])))
            t.add_row("parse errors / partial", f"{g['parse_errors']} / {g['partial_files']}")
            t.add_row("search chunks (with vectors)", f"{out['search'].get('chunks')} ({out['search'].get('with_vectors')})")
            for r in ctx.graph.repos():
                uns = r.props.get("unsupported") or {}
                if uns and (not repo or r.props.get("name") == repo):
                    top = sorted(uns.items(), key=lambda kv: -kv[1])
                    t.add_row(f"unsupported files ({r.props.get('name')})",
                              ", ".join(f"{v} {k}" for k, v in top[:10]) + (" ..." if len(top) > 10 else ""))
            for f in out["freshness"]:
                t.add_row(f"repo {f['repo']}", f"imported {f['last_imported_at']}, checked {f['last_checked_at']}, commit {f['commit'] or 'n/a'}")
            console.print(t)

        run(body)


    @app.command()
    def verify(repo: RepoOpt = None, as_json: JsonOpt = False) -> None:
        """Check graph integrity: zero orphan files and symbols, and every repo's last run
        complete (exit 1 otherwise)."""

        def body(ctx: Stores) -> None:
            from codegraph.core.completeness import incomplete_reason

            res = ctx.graph.verify(repo)
            # Completeness too: a run that did not finish leaves a graph that looks whole.
            unfinished = {r.props.get("name"): incomplete_reason(r.props) for r in ctx.graph.repos()
                          if (repo is None or r.props.get("name") == repo) and incomplete_reason(r.props)}
            res["incomplete_runs"] = len(unfinished)
            ok = all(v == 0 for v in res.values())
            for name, why in unfinished.items():
                err.print(f"[red]incomplete[/red] {esc(str(name))}: {esc(str(why))}", highlight=False, soft_wrap=True)
            if as_json:
                emit_json({"ok": ok, **res})
            else:
                for k, v in res.items():
                    console.print(f"{'[green]ok[/green]' if v == 0 else '[red]FAIL[/red]'} {k}: {v}")
            if not ok:
                raise typer.Exit(1)

        run(body)


    @app.command()
    def stubs(repo: RepoOpt = None, limit: Annotated[int, typer.Option(help="Rows to show.")] = 30, as_json: JsonOpt = False) -> None:
        """UnresolvedSymbol stubs ranked by how many call sites reference them (triage list)."""

        def body(ctx: Stores) -> None:
            rows = ctx.graph.stubs_ranked(repo, limit=limit)
            if as_json:
                emit_json([{"target_identifier": n.props.get("target_identifier"), "reason": n.props.get("reason"),
                            "references": c, "candidates": n.props.get("candidates", []), "repo": n.repo} for n, c in rows])
                return
            t = rich_table(title="unresolved symbols")
            for col in ("references", "target", "reason", "candidates"):
                t.add_column(col, overflow="fold")
            for n, c in rows:
                t.add_row(str(c), n.props.get("target_identifier", ""), n.props.get("reason", ""),
                          ", ".join(n.props.get("candidates", [])[:4]))
            console.print(t)

        run(body)


    @app.command()
    def query(
        cypher: Annotated[str, typer.Argument(help="Read-only Cypher; $repo is bound from --repo.")],
        repo: RepoOpt = None,
        limit: Annotated[int, typer.Option(help="Rows to return at most.")] = 200,
        as_json: JsonOpt = False,
    ) -> None:
        """Raw read-only Cypher on Neo4j. Write clauses are refused before sending."""

        def body(ctx: Stores) -> None:
            rows, total = ctx.graph.run_cypher(cypher, {"repo": repo}, limit)
            if as_json:
                emit_json({"rows": rows, "total": total, "shown": len(rows)})
                return
            if rows:
                t = rich_table()
                for col in rows[0]:
                    t.add_column(str(col), overflow="fold")
                for r in rows:
                    t.add_row(*(json.dumps(v, default=str) if not isinstance(v, str) else v for v in r.values()))
                console.print(t)
            console.print(f"{len(rows)} of {total} rows")

        run(body)

"""CLI commands for coding agents and for checking answers: ``codegraph mcp`` and
``codegraph audit``. Registered by ``codegraph.cli`` through ``register(app, run)``."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer

from codegraph.cli_console import LazyConsole, rich_table

console = LazyConsole()


def register(app: typer.Typer, run: Callable[[Callable[[Any], None]], None]) -> None:
    """Add ``mcp`` and ``audit`` to ``app``; ``run(body)`` runs body(ctx) with the
    stores and turns CodegraphError into one readable line."""

    @app.command()
    def mcp() -> None:
        """Serve the MCP tools (search, callers, impact, table, endpoint, stats, freshness) on stdio.

        Read-only. Configure it in an MCP client as the command `codegraph mcp`, with the same CODEGRAPH_* environment as the CLI (e.g. CODEGRAPH_HOME). See docs/AGENT-GUIDE.md.
        """

        def body(ctx: Any) -> None:
            from codegraph.mcp_server import serve

            serve(ctx.settings)

        run(body)

    @app.command()
    def audit(
        targets: Annotated[list[str] | None, typer.Argument(
            help="Functions or methods to audit (qualified name, suffix or bare name).")] = None,
        sample: Annotated[int, typer.Option("--sample", "-n", min=0, help="Also audit N random callables.")] = 0,
        seed: Annotated[int, typer.Option(help="Seed of the random sample (same graph + seed = same sample).")] = 0,
        repo: Annotated[str | None, typer.Option("--repo", "-r", help="Limit to one indexed repository.")] = None,
        language: Annotated[str | None, typer.Option(help="Sample only callables of this language.")] = None,
        tests: Annotated[bool, typer.Option("--tests/--no-tests", help="Sample callables in test files too.")] = True,
        show: Annotated[int, typer.Option(help="Disagreements printed per callable.")] = 10,
        as_json: Annotated[bool, typer.Option("--json", help="Print the full report as JSON.")] = False,
    ) -> None:
        """Accuracy audit: the graph's direct callers against plain text search of `name(`.

        For each callable: callers found by text (comments, strings, generated files left out), callers in the graph, and each disagreement with file:line and a class (name collision, ambiguous stub, import alias...).

        Ends with precision and recall per language, raw (text as truth) and judged (after classification). The repository's files must be on this disk.
        """

        def body(ctx: Any) -> None:
            from codegraph.audit import audit as run_audit

            rep = run_audit(ctx.graph, targets or None, repo=repo, sample=sample, seed=seed, language=language,
                            include_tests=tests)
            if as_json:
                sys.stdout.write(json.dumps(rep.to_dict(), ensure_ascii=False, indent=2, default=str) + "\n")
                return
            _print_report(rep, show)

        run(body)


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _print_report(rep: Any, show: int) -> None:
    for c in rep.callables:
        console.print(f"[bold]{c.target}[/bold] [dim]{c.kind} {c.file}:{c.line} ({c.repo})[/dim]  "
                      f"text {c.expected}, graph {c.actual}, both {c.matched}", highlight=False)
        for k, v in c.skipped.items():
            console.print(f"  [dim]skipped {v}: {k}[/dim]", highlight=False)
        rows = c.missed + c.extra
        for d in rows[:show]:
            s = d.sites[0]
            side = "text only " if d.side == "missed" else "graph only"
            console.print(f"  {side} {d.caller}  {s.file}:{s.line}  [cyan]{d.verdict}[/cyan]: {d.category} "
                          f"[dim]({d.detail})[/dim]", highlight=False)
            if s.snippet:
                console.print(f"      [dim]{s.snippet[:120]}[/dim]", highlight=False)
        if len(rows) > show:
            console.print(f"  ... {len(rows) - show} more (use --show or --json)")
    t = rich_table(title="precision / recall per language (callers)")
    for col in ("language", "callables", "text", "graph", "both", "raw precision", "raw recall", "precision",
                "recall"):
        t.add_column(col)
    for lang, fig in sorted(rep.languages.items()):
        s = fig.summary()
        t.add_row(lang, str(s["callables"]), str(s["expected"]), str(s["actual"]), str(s["matched"]),
                  _pct(s["raw_precision"]), _pct(s["raw_recall"]), _pct(s["precision"]), _pct(s["recall"]))
    console.print(t)
    if rep.categories:
        console.print("[bold]disagreements by class[/bold]")
        for k, v in rep.categories.items():
            console.print(f"  {v:5d}  {k}", highlight=False)
    console.print("[dim]files: " + ", ".join(f"{k} {v}" for k, v in sorted(rep.files.items())) + "[/dim]")
    console.print("[dim]steps: " + ", ".join(f"{s.name} {s.ms:.1f} ms" for s in rep.steps) + "[/dim]")
    console.print("[dim]raw = text taken as truth; judged = text false positives dropped, text misses and "
                  "attribution counted as hits, unclear counted against the graph.[/dim]")
    console.print(f"[dim]{rep.notice}[/dim]")

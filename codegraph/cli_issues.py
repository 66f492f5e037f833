"""``codegraph issues ...``: GitHub issues linked to the code they mention (docs/DESIGN.md#users; the
core is ``codegraph.core.issues``). Registered by ``codegraph.cli_triage.register``.

    codegraph issues import FILE --repo NAME [--comments FILE]   a REST API JSON export
    codegraph issues fetch OWNER/NAME --repo NAME                 live, token from GITHUB_TOKEN
    codegraph issues mentions TARGET [--state open]               issues that mention a symbol / file
    codegraph issues top [--state open]                           the most discussed symbols
    codegraph issues radius TARGET [--depth 3]                    open issues in the blast radius
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from codegraph.cli import JsonOpt, RepoOpt, console, emit_json, path_value
from codegraph.cli_console import esc, print_rows

StateOpt = Annotated[str, typer.Option("--state", help="open | closed | all")]
NameOpt = Annotated[str, typer.Option("--repo", "-r", help="The indexed repository the issues belong to.")]


def _state(value: str) -> str | None:
    from codegraph.core.errors import BadInput

    v = value.lower().strip()
    if v not in ("open", "closed", "all"):
        raise BadInput(f"--state must be open, closed or all, not {value!r}")
    return None if v == "all" else v


def _print_summary(s: Any) -> None:
    console.print(f"imported {s.issues} issue(s) into {s.repo} ({s.open} open, {s.comments} comment(s)): "
                  f"{s.mentions} mention(s), {s.resolved} resolved, {s.ambiguous} ambiguous, "
                  f"{s.unresolved} not found in the code; {s.edges} MENTIONS edge(s)", highlight=False)


def _print_refs(refs: list[Any], title: str, with_depth: bool = False) -> None:
    cols = ["#", "state", "title", "mentions"] + (["depth"] if with_depth else []) + ["where", "url"]
    rows = [[str(r.number), r.state, esc(r.title), esc(r.mentioned + (" (ambiguous)" if r.ambiguous else "")),
             *([str(r.depth)] if with_depth else []), esc(", ".join(r.where)), esc(r.url)] for r in refs]
    print_rows(console, cols, rows, title=title, whole=("#", "where", "url"), own_lines=("where", "url"))
    if not refs:
        console.print("no issue found (import them with `codegraph issues import`)")


def register(app: typer.Typer, run: Callable[[Callable[[Any], None]], None]) -> None:
    """Add the ``issues`` command group to ``app``."""
    iss = typer.Typer(help="GitHub issues linked to the symbols and files they mention.", no_args_is_help=True)
    app.add_typer(iss, name="issues")

    @iss.command("import")
    def import_(
        file: Annotated[Path, typer.Argument(help="JSON export of GET /repos/OWNER/NAME/issues (see docs).", parser=path_value)],
        repo: NameOpt,
        comments: Annotated[Path | None, typer.Option("--comments", help="Separate comments: keyed by issue number, "
                                                      "or the list of GET /repos/OWNER/NAME/issues/comments.", parser=path_value)] = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Import issues from a GitHub REST API export file; re-importing replaces them.

        Comments may be inline (a list under each issue's `comments`) or separate
        (`{"issues": [...], "comments": {...}}` or --comments FILE)."""

        def body(ctx: Any) -> None:
            from codegraph.core.issues import import_issues, load_export

            issues = load_export(file, comments)
            s = import_issues(ctx.graph, repo, issues, source=f"export:{file.name}")
            emit_json(s) if as_json else _print_summary(s)

        run(body)

    @iss.command()
    def fetch(
        owner_name: Annotated[str, typer.Argument(help="GitHub repository as OWNER/NAME.")],
        repo: NameOpt,
        state: StateOpt = "all",
        max_pages: Annotated[int, typer.Option(help="Pages of 100 issues (and of comments) to read at most.")] = 50,
        as_json: JsonOpt = False,
    ) -> None:
        """Import issues live from api.github.com (token: GITHUB_TOKEN or .streamlit/secrets.toml)."""

        def body(ctx: Any) -> None:
            from codegraph.core.issues import fetch_issues, github_token, import_issues

            issues = fetch_issues(owner_name, github_token(), state=state.lower(), max_pages=max_pages)
            s = import_issues(ctx.graph, repo, issues, source=f"api:{owner_name}")
            emit_json(s) if as_json else _print_summary(s)

        run(body)

    @iss.command()
    def mentions(
        target: Annotated[str, typer.Argument(help="Qualified name, bare name or file:path.")],
        repo: RepoOpt = None,
        state: StateOpt = "all",
        as_json: JsonOpt = False,
    ) -> None:
        """Issues that mention a symbol or file (ambiguous links flagged)."""

        def body(ctx: Any) -> None:
            from codegraph.core.issues import issues_mentioning

            refs = issues_mentioning(ctx.graph, target, repo, _state(state))
            emit_json(refs) if as_json else _print_refs(refs, f"issues mentioning {target}")

        run(body)

    @iss.command()
    def top(
        repo: RepoOpt = None,
        state: StateOpt = "all",
        limit: Annotated[int, typer.Option(help="Rows to show.")] = 20,
        ambiguous: Annotated[bool, typer.Option("--ambiguous", help="Count ambiguous links too.")] = False,
        as_json: JsonOpt = False,
    ) -> None:
        """The symbols and files mentioned by the most issues."""

        def body(ctx: Any) -> None:
            from codegraph.core.issues import most_discussed

            rows = most_discussed(ctx.graph, repo, _state(state), limit, include_ambiguous=ambiguous)
            if as_json:
                emit_json(rows)
                return
            print_rows(console, ["issues", "open", "symbol / file", "kind", "repo", "where", "issue numbers"],
                       [[str(r.issues), str(r.open_issues), esc(r.name), r.kind, esc(r.repo), esc(f"{r.file}:{r.line}"),
                         ", ".join(f"#{n}" for n in r.numbers[:10])] for r in rows],
                       title="most discussed", whole=("where",), own_lines=("where",))

        run(body)

    @iss.command()
    def radius(
        target: Annotated[str, typer.Argument(help="Qualified name, bare name or file:path.")],
        depth: Annotated[int, typer.Option("--depth", "-d", min=1, max=20, help="Caller hops.")] = 3,
        repo: RepoOpt = None,
        state: StateOpt = "open",
        as_json: JsonOpt = False,
    ) -> None:
        """Issues (open by default) that mention the target or anything in its blast radius."""

        def body(ctx: Any) -> None:
            from codegraph.core.issues import issues_in_radius

            res = issues_in_radius(ctx.graph, target, repo, depth, _state(state))
            if as_json:
                emit_json(res)
                return
            _print_refs(res.issues, f"issues in the blast radius of {target} (depth {depth}, {res.radius} nodes)",
                        with_depth=True)

        run(body)

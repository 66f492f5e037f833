"""``codegraph triage ...``: work down the unresolved-symbol stubs from the command line
(docs/DESIGN.md#users; the core is ``codegraph.core.triage``). Also registers ``codegraph issues``
(``codegraph.cli_issues``). Registered by ``codegraph.cli`` through ``register(app, run)``.

    codegraph triage list [--repo R] [--json]
    codegraph triage show TARGET [--repo R] [SCOPE]  call sites (those in SCOPE) and candidates
    codegraph triage resolve TARGET --to QUALIFIED_NAME_OR_UID [SCOPE]
    codegraph triage external PATTERN --library NAME [SCOPE]  (PATTERN: one target or fnmatch, 'requests.*')
    codegraph triage ignore PATTERN [SCOPE]
    codegraph triage undo TARGET_OR_PATTERN [SCOPE | --uid UID]   (default: the latest decision on it)
    codegraph triage log [--all]

SCOPE limits a decision on one target to some of its call sites (docs/DESIGN.md#users,
``codegraph.core.triage_scope``): ``--file PATH``, ``--folder PATH`` (and below),
``--site PATH:LINE``, each repeatable; without them a decision covers every call site.

Every command takes ``--json``. Without ``--repo`` the repo is the one that has the
target (or, for a pattern, the only one with matching stubs); when that is not one
repo, the command says so and asks for ``--repo``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer

from codegraph.cli import JsonOpt, RepoOpt, console, emit_json
from codegraph.cli_console import rich_table
from codegraph.core.errors import TargetNotFound

NoteOpt = Annotated[str, typer.Option("--note", help="Why (shown in the decision log).")]
ByOpt = Annotated[str | None, typer.Option("--by", help="Who decides (default: CODEGRAPH_USER or the login name).")]
FileOpt = Annotated[list[str] | None, typer.Option("--file", help="Only call sites in this calling file (repeatable).")]
FolderOpt = Annotated[list[str] | None, typer.Option(
    "--folder", help="Only call sites in files under this folder (repeatable).")]
SiteOpt = Annotated[list[str] | None, typer.Option("--site", help="Only this call site, PATH:LINE (repeatable).")]


def _scope(files: list[str] | None, folders: list[str] | None, sites: list[str] | None) -> Any:
    """The Scope of --file/--folder/--site, or None when none was given (every call site)."""
    if not (files or folders or sites):
        return None
    from codegraph.core.triage_scope import Scope

    return Scope.of(files or (), folders or (), sites or ())


def _repo_for(graph: Any, key: str, repo: str | None, *, decided: bool = False) -> str:
    """The repo a command acts on (see the module docstring; one definition in api.answers)."""
    from codegraph.api.answers import triage_repo

    return triage_repo(graph, key, repo, decided=decided)


def _decision_line(d: Any) -> str:
    what = {"resolve": f"-> {d.symbol_qualified_name} ({d.symbol_repo})", "external": f"library {d.library}",
            "ignore": "ignored"}[d.action]
    where = "" if d.scope.everything else f" on {d.scope.label()}"
    return (f"{d.action} {d.key!r}{where} in {d.repo}: {what}; {len(d.targets)} target(s), {d.call_sites} call "
            f"site(s) (by {d.decided_by} at {d.decided_at})")


def register(app: typer.Typer, run: Callable[[Callable[[Any], None]], None]) -> None:
    """Add the ``triage`` and ``issues`` command groups to ``app``."""
    tri = typer.Typer(help="Unresolved symbols: resolve, mark external, ignore; decisions survive re-index.",
                      no_args_is_help=True)
    app.add_typer(tri, name="triage")

    def decide(key: str, repo: str | None, as_json: bool, act: Callable[[Any, Any, str], Any]) -> None:
        """One decision command: ``act(triage, graph, repo name)`` stores the decision and
        returns it; printed as one line, or as JSON."""

        def body(ctx: Any) -> None:
            from codegraph.core import triage

            d = act(triage, ctx.graph, _repo_for(ctx.graph, key, repo))
            emit_json(d.to_dict()) if as_json else console.print(_decision_line(d), highlight=False)

        run(body)

    @tri.command("list")
    def list_(
        repo: RepoOpt = None,
        limit: Annotated[int, typer.Option(help="Stubs to show, most referenced first.")] = 50,
        offset: Annotated[int, typer.Option(help="Skip this many (paging).")] = 0,
        as_json: JsonOpt = False,
    ) -> None:
        """Stubs ranked by how many call sites reference them, with reason and candidates.

        Active decisions are first applied to stubs they cover that appeared since (a new
        `requests.patch` under a `requests.*` decision)."""

        def body(ctx: Any) -> None:
            from codegraph.api.answers import triage_list_answer

            out = triage_list_answer(ctx, repo, limit=limit, offset=offset)
            if as_json:
                emit_json(out)
                return
            applied, rows = out["applied_now"], out["stubs"]
            for r, ts in applied.items():
                if ts:
                    console.print(f"[dim]applied existing decisions in {r} to {len(ts)} new stub(s): "
                                  f"{', '.join(ts[:8])}[/dim]", highlight=False)
            t = rich_table(title="unresolved symbols (most referenced first)")
            for col in ("references", "target", "reason", "repo", "candidates"):
                t.add_column(col, overflow="fold")
            for r in rows:
                cands = r.get("candidates") or []
                t.add_row(str(r["references"]), r["target_identifier"], r["reason"], r["repo"],
                          ", ".join(cands[:4]) + (" ..." if len(cands) > 4 else ""))
            console.print(t)
            if not rows:
                console.print("no unresolved symbols")

        run(body)

    @tri.command()
    def show(
        target: Annotated[str, typer.Argument(help="Target identifier of the stub, e.g. requests.get or save.")],
        repo: RepoOpt = None,
        limit: Annotated[int, typer.Option(help="Call sites to list.")] = 20,
        file: FileOpt = None,
        folder: FolderOpt = None,
        site: SiteOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """One stub: its call sites (file:line) and the candidates to resolve it to. With a
        scope: the call sites a decision on that scope would take, and what it changes."""

        def body(ctx: Any) -> None:
            from codegraph.core import triage
            from codegraph.core.models import stub_uid

            name = _repo_for(ctx.graph, target, repo)
            uid = stub_uid(name, target)
            stub = ctx.graph.get_nodes([uid]).get(uid)
            if stub is None:
                raise TargetNotFound(f"no unresolved symbol {target!r} in repo {name}")
            scope = _scope(file, folder, site)
            every = triage.scoped_sites(ctx.graph, name, target)
            chosen = every if scope is None else scope.bind(every).select(every)
            sites = chosen[:limit]
            cands = triage.candidates(ctx.graph, stub)
            change = {"scope": "every call site" if scope is None else scope.label(), "call_sites": len(chosen),
                      "of": len(every), "calling_symbols": len({s.source_uid for s in chosen}),
                      "files": len({s.file for s in chosen})}
            if as_json:
                emit_json({"stub": {"uid": uid, **stub.props}, "call_sites": sites, "candidates": cands.symbols,
                           "libraries": cands.libraries, "decision_would_take": change})
                return
            console.print(f"[bold]{target}[/bold] in {name}: {stub.props.get('reason')}", highlight=False)
            console.print(f"  a decision on {change['scope']} takes {change['call_sites']} of {change['of']} call "
                          f"site(s) from {change['calling_symbols']} calling symbol(s) in {change['files']} file(s)",
                          highlight=False)
            for s in sites:
                console.print(f"  {s.file}:{s.line}  {s.edge_type} from {s.source}", highlight=False)
            for c in cands.symbols:
                console.print(f"  candidate {c.qualified_name} [{c.kind}] {c.repo} {c.file}:{c.line} ({c.why})",
                              highlight=False)
            for lib in cands.libraries:
                console.print(f"  library {lib.name} ({lib.why})", highlight=False)

        run(body)

    @tri.command("resolve")
    def resolve_(
        target: Annotated[str, typer.Argument(help="Target identifier of the stub.")],
        to: Annotated[str, typer.Option("--to", help="Qualified name (or uid) of the symbol it really is.")],
        repo: RepoOpt = None,
        note: NoteOpt = "",
        by: ByOpt = None,
        file: FileOpt = None,
        folder: FolderOpt = None,
        site: SiteOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Resolve a stub to a symbol: its call sites (or those of the scope) become CALLS (etc.) edges to it now
        and after every re-index."""

        def act(triage: Any, graph: Any, name: str) -> Any:
            sym = triage.find_symbol(graph, to, name)
            return triage.resolve(graph, name, target, sym.uid, by=by, note=note, scope=_scope(file, folder, site))

        decide(target, repo, as_json, act)

    @tri.command()
    def external(
        pattern: Annotated[str, typer.Argument(help="A target identifier, or an fnmatch pattern ('requests.*').")],
        library: Annotated[str, typer.Option("--library", "-l", help="The library it comes from, e.g. requests.")],
        repo: RepoOpt = None,
        note: NoteOpt = "",
        by: ByOpt = None,
        file: FileOpt = None,
        folder: FolderOpt = None,
        site: SiteOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Mark a target (or every target matching PATTERN) as external: its stub and edges (those of the scope)
        leave the graph."""

        decide(pattern, repo, as_json, lambda triage, graph, name: triage.mark_external(
            graph, name, pattern, library, by=by, note=note, scope=_scope(file, folder, site)))

    @tri.command("ignore")
    def ignore_(
        pattern: Annotated[str, typer.Argument(help="A target identifier, or an fnmatch pattern ('*.mock_*').")],
        repo: RepoOpt = None,
        note: NoteOpt = "",
        by: ByOpt = None,
        file: FileOpt = None,
        folder: FolderOpt = None,
        site: SiteOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Ignore a target (or every target matching PATTERN; or the call sites of the scope): no edge, no stub,
        now and after re-index."""

        decide(pattern, repo, as_json, lambda triage, graph, name: triage.ignore(
            graph, name, pattern, by=by, note=note, scope=_scope(file, folder, site)))

    @tri.command()
    def undo(
        key: Annotated[str, typer.Argument(help="The target or pattern of an active decision.")],
        repo: RepoOpt = None,
        by: ByOpt = None,
        file: FileOpt = None,
        folder: FolderOpt = None,
        site: SiteOpt = None,
        uid: Annotated[str | None, typer.Option("--uid", help="The decision's uid (triage log --json).")] = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Undo a decision (the latest on KEY, or the one on exactly the scope, or --uid): the stub and its call
        sites come back (lines changed since: at the next index run)."""

        def body(ctx: Any) -> None:
            from codegraph.core import triage

            name = _repo_for(ctx.graph, key, repo, decided=True)
            d = triage.undo(ctx.graph, name, key, by=by, scope=_scope(file, folder, site), uid=uid)
            if as_json:
                emit_json(d.to_dict())
            else:
                console.print(f"undone: {_decision_line(d)}", highlight=False)

        run(body)

    @tri.command()
    def log(
        repo: RepoOpt = None,
        active: Annotated[bool, typer.Option("--active", help="Only decisions in force.")] = False,
        as_json: JsonOpt = False,
    ) -> None:
        """Every decision, newest first: who, when, what, how many call sites, and whether it was undone."""

        def body(ctx: Any) -> None:
            from codegraph.core import triage

            ds = triage.decision_list(ctx.graph, repo, include_undone=not active)
            if as_json:
                emit_json([d.to_dict() for d in ds])
                return
            t = rich_table(title="triage decisions (newest first)")
            for col in ("decided", "by", "repo", "target / pattern", "scope", "action", "to / library", "call sites",
                        "status", "note"):
                t.add_column(col, overflow="fold")
            for d in ds:
                status = d.status if d.active else f"undone {d.undone_at[:19]} by {d.undone_by}"
                t.add_row(d.decided_at[:19], d.decided_by, d.repo, d.key, d.scope.label(), d.action,
                          d.symbol_qualified_name or d.library, str(d.call_sites), status, d.note)
            console.print(t)
            if not ds:
                console.print("no decisions yet")

        run(body)

    from codegraph import cli_issues

    cli_issues.register(app, run)

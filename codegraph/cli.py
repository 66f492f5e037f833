"""``codegraph``: the command line face over the core (typer + rich).

Every query command takes ``--json`` (machine-readable, stable keys) for coding agents
and scripts. Errors are one readable line on stderr with exit code 2 (bad input,
not found) or 3 (a store did not answer), never a traceback.
"""

from __future__ import annotations

import contextlib
import gc
import json
import sys
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from codegraph.cli_console import LazyConsole, esc
from codegraph.cli_errors import REPO_HELP, OneLineTyper
from codegraph.cli_errors import err as err  # the other cli_* modules take it from here
from codegraph.cli_errors import run as _run
from codegraph.core.errors import BadInput

if TYPE_CHECKING:
    from codegraph.core.stores import Stores


app = OneLineTyper(
    name="codegraph",
    help=(
        "CodeGraph Explorer: what breaks if I change this?\n\n"
        "Index a repository, then ask who calls a symbol and what its blast radius is.\n\n"
        "  codegraph index ./my-repo\n\n"
        "  codegraph impact OrderService.place --depth 3\n\n"
        "  codegraph search \"validate an order before saving\"\n\n"
        "Stores: embedded (default, under CODEGRAPH_HOME) or Neo4j + Elasticsearch "
        "(CODEGRAPH_GRAPH=bolt://..., CODEGRAPH_SEARCH=http://..., or `make services`)."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain click help and usage errors, on a terminal too: off a terminal an 80-column box
    # would split them, and typer's rich help imports rich.markdown and markdown-it
    # (~75 ms of every `--help`).
    rich_markup_mode=None,
)
# Built (and rich imported) at the first print: --help and --json answers never need rich.
console = LazyConsole()


@app.callback()
def _root() -> None:
    # A callback keeps `app` a command group even when main() registers a single command.
    # It also routes log records: CODEGRAPH_LOG=debug|info|warning sends the core's and the
    # indexer's to stderr (docs/DESIGN.md#logging). Only ours: the drivers' lines would bury
    # them, and unset nothing is configured, so an error stays one line.
    import os

    level = os.environ.get("CODEGRAPH_LOG", "").strip().upper()
    if level:
        import logging

        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        ours = logging.getLogger("codegraph")
        ours.addHandler(handler)
        ours.setLevel(getattr(logging, level, logging.WARNING))

def path_value(value: str) -> Path:
    """Parser of every path argument and option: an empty one is refused (exit 2, one line).
    ``Path("")`` is ``Path(".")``, so ``codegraph index ""`` (an unset shell variable) would
    index the current folder instead of saying the path is missing."""
    if value == "":
        raise typer.BadParameter("the path is empty (give a path; '.' is the current folder)")
    return Path(value)


JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON instead of tables.")]
# Every command with this option has the name checked before its body runs (cli_errors.run).
RepoOpt = Annotated[str | None, typer.Option("--repo", "-r", help=REPO_HELP)]
WorkspaceOpt = Annotated[str | None, typer.Option("--workspace", "-w", help="Limit to the repositories of one workspace (codegraph.toml [[workspaces]]).")]


def _scope(ctx: Any, repo: str | None, workspace: str | None) -> list[str] | None:
    """Repos of ``workspace`` (None without one); BadInput for both or an unknown name
    (repository or workspace)."""
    if not workspace:  # an unknown --repo was refused before the command ran (cli_errors._known_scope)
        return None
    from codegraph.core.workspace import scope_repos

    return scope_repos(ctx.settings.state_db, repo, workspace, [r.props.get("name", "") for r in ctx.graph.repos()])


def _jsonable(obj: Any) -> Any:
    if is_dataclass(obj) and not isinstance(obj, type):
        return asdict(obj)
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, set):
        return sorted(obj)
    return str(obj)


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, default=_jsonable, ensure_ascii=False, indent=2) + "\n")


# ---------------------------------------------------------------------------- index
@app.command()
def index(
    path: Annotated[Path, typer.Argument(help="Folder to index (a git checkout or any source tree).", parser=path_value)],
    repo: Annotated[str | None, typer.Option("--repo", "-r", help="Name in the graph (default: the folder name, refused when a repository of that name was indexed from another folder).")] = None,
    embed: Annotated[bool, typer.Option("--embed/--no-embed", help="Run the embedding phase after the graph and BM25 are ready.")] = True,
    force: Annotated[bool, typer.Option("--force", help="Re-parse every file (full rebuild of this repo).")] = False,
    workers: Annotated[int, typer.Option(help="Extraction processes (0 = one per core).")] = 0,
    exclude: Annotated[list[str] | None, typer.Option("--exclude", "-x", help="Gitignore-style glob to leave out (repeat), e.g. 'test/'.")] = None,
    include: Annotated[list[str] | None, typer.Option("--include", "-i", help="Only paths matching these globs (repeat).")] = None,
    wait: Annotated[float, typer.Option(help="Seconds to wait when another run of this repo holds its lock (then refuse).")] = 0.0,
    as_json: JsonOpt = False,
) -> None:
    """Index a source tree: parse changed files, load the graph, link references, fill search.

    Re-running on an unchanged tree changes nothing and takes seconds. The graph and BM25
    search answer as soon as the 'link' phase ends; embedding (vector search) runs last,
    with its own progress, and resumes where it stopped if interrupted.

    \b
    Examples:
      codegraph index ~/src/shop --repo shop      # then: codegraph impact NAME --repo shop
      codegraph index . --exclude 'tests/' --no-embed
      codegraph index ~/src/shop --json           # the summary as JSON (counts, skips, timings)
    """

    def body(ctx: Stores) -> None:
        from codegraph.cli_phases import embed_phase, progress_display, triage_decisions
        from codegraph.indexer.pipeline import default_repo_name, index_repo
        from codegraph.indexer.state import StateStore

        name = repo or default_repo_name(path)
        if repo is None:
            _refuse_other_folder(ctx.graph, name, path)
        state = StateStore(ctx.settings.state_db)
        with progress_display(as_json) as prog:
            tasks: dict[str, Any] = {}

            def tick(phase: str, done: int, total: int) -> None:
                if prog is None:
                    return
                if phase not in tasks:
                    tasks[phase] = prog.add_task(phase, total=total)
                prog.update(tasks[phase], completed=done, total=total)

            from codegraph.indexer.runlock import repo_lock

            # index_repo keeps the cyclic GC off while it runs; the first collection after it
            # would walk every object of the run (~40 ms after a one-file refresh of the
            # stdlib). They live until this process ends: frozen, no collection walks them.
            gc.disable()
            try:
                with repo_lock(ctx.graph, name, wait):  # one run per repo (docs/hardening.md)
                    summary = index_repo(path, name, ctx.graph, ctx.search, state,
                                         workers=workers or ctx.settings.workers,
                                         max_file_bytes=ctx.settings.max_file_bytes, force=force,
                                         include=include, exclude=exclude,
                                         decisions=lambda: triage_decisions(ctx, name), progress=tick)
            finally:
                gc.freeze()
                gc.enable()
            from codegraph.indexer.cross_repo import describe, relink_after_index

            try:
                linked = relink_after_index(ctx.graph, state, ctx.settings.state_db, [name])
            except BadInput as e:  # the index stands; a broken codegraph.toml only stops the relink
                linked = None
                summary.messages.append(f"cross-repo links not updated: {e}")
            if linked is not None:
                summary.messages.append(describe(linked))
            embed_report: dict[str, Any] | None = None
            if embed:
                embed_report = embed_phase(ctx, name, prog)
        state.close()
        if as_json:
            emit_json({"summary": summary, "embedding": embed_report})
            return
        from codegraph.cli_render import print_summary

        print_summary(console, summary, embed_report)

    _run(body)


def _refuse_other_folder(graph: Any, name: str, path: Path) -> None:
    """BadInput when the default name (the folder's) is a repository indexed from another
    folder: indexing two ``src`` folders one after the other would otherwise replace the
    first one's graph without a word. An explicit ``--repo`` re-points the name on purpose."""
    from codegraph.core.models import repo_uid

    node = graph.get_nodes([repo_uid(name)]).get(repo_uid(name))
    old = str(node.props.get("path") or "") if node is not None else ""
    here = path.resolve()
    if old and Path(old).resolve() != here:
        raise BadInput(f"a repository named {name!r} is already indexed from {old}; this folder is {here}. "
                       f"Give this one its own name with --repo NAME, or pass --repo {name} to index that name "
                       f"from here instead (its graph is replaced)")


@app.command()
def embed(repo: RepoOpt = None, as_json: JsonOpt = False) -> None:
    """Run (or resume) the embedding phase: vectors for chunks that have none yet."""

    def body(ctx: Stores) -> None:
        from codegraph.cli_phases import embed_phase, progress_display

        with progress_display(as_json) as prog:
            rep = embed_phase(ctx, repo, prog)
        emit_json(rep) if as_json else console.print(rep)

    _run(body)


# ---------------------------------------------------------------------------- queries
@app.command()
def callers(
    target: Annotated[str, typer.Argument(help="Qualified name, bare name, or file:/table:/endpoint:/topic: target.")],
    repo: RepoOpt = None,
    limit: Annotated[int, typer.Option(help="Callers to show.")] = 100,
    workspace: WorkspaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Direct callers of a symbol (depth 1, CALLS edges), with call sites and resolution.

    \b
    Examples:
      codegraph callers json.decoder.JSONDecoder.decode   # a qualified name
      codegraph callers JSONDecoder.decode                # a suffix of one
      codegraph callers decode                            # a bare name: every match, labelled
      codegraph callers 'app.Calc.add(int,int)'           # one overload by its parameter types
      codegraph callers save --repo shop --json
    """

    def body(ctx: Stores) -> None:
        from codegraph.core.impact import callers as run

        res = run(ctx.graph, target, repo=repo, limit=limit, repos=_scope(ctx, repo, workspace))
        if as_json:
            emit_json(res.to_dict())
        else:
            from codegraph.cli_render import print_impact

            print_impact(console, res, title="callers")

    _run(body)


def _impact_diff(ctx: Stores, spec: str, repo: str | None, depth: int, include_tests: bool, limit: int,
                 markdown: bool, as_json: bool) -> None:
    """``codegraph impact --diff``: changed lines -> symbols -> the union blast radius."""
    from codegraph.core.impact.diff import diff_impact, diff_markdown

    repos = [r for r in ctx.graph.repos() if not repo or r.props.get("name") == repo]
    if len(repos) != 1:
        raise BadInput(f"no repository named {repo!r}" if repo else
                       "--diff needs --repo NAME when several repositories are indexed" if repos else
                       "no repository is indexed yet")
    name, path = str(repos[0].props.get("name")), Path(str(repos[0].props.get("path")))
    d = diff_impact(ctx.graph, name, path, spec, depth=depth, include_tests=include_tests, limit=limit)
    if as_json:
        emit_json({"spec": d.spec, "repo": d.repo, "files": d.files, "unindexed": d.unindexed,
                   "union": {"callers": d.union_callers, "entry_points": d.union_entry_points,
                             "tables": d.union_tables},
                   "changes": [{"target": asdict(c.target), "lines": c.lines, "impact": c.result.to_dict()}
                               for c in d.changes]})
        return
    if markdown:
        sys.stdout.write(diff_markdown(d))
        return
    console.print(f"{esc(d.spec)} on {esc(d.repo)}: {len(d.changes)} changed symbol(s) in {len(d.files)} file(s); "
                  f"union: {len(d.union_callers)} caller(s), {len(d.union_entry_points)} entry point(s), "
                  f"{len(d.union_tables)} table(s)", highlight=False)
    for c in d.changes:
        console.print(f"  {esc(c.target.qualified_name)}  {esc(c.target.file)}:{c.lines[0]}  "
                      f"{c.result.total_callers} caller(s)", highlight=False)
    if d.unindexed:
        console.print(f"  not in the graph: {esc(', '.join(d.unindexed[:10]))}", highlight=False)


def _edge_type_help() -> str:
    """The --edge-type help, naming the default set from its one definition
    (``CALLER_EDGES``). Called when typer builds the ``impact`` command (the annotations are
    strings, evaluated then), so other commands never import the models for it."""
    from codegraph.core.models import CALLER_EDGES

    return f"Only these edge types (repeat). Default: {', '.join(CALLER_EDGES)}."


@app.command()
def impact(
    target: Annotated[str | None, typer.Argument(help="Qualified name, bare name, or file:/table:/endpoint:/topic: target.")] = None,
    depth: Annotated[int, typer.Option("--depth", "-d", min=1, max=20, help="Hops to walk from the target.")] = 5,
    diff: Annotated[str | None, typer.Option("--diff", help="Impact of a change set instead of a target: BASE...HEAD (what HEAD changed since BASE), a commit, or nothing for the working tree; needs --repo when several repos are indexed.")] = None,
    edge_type: Annotated[list[str] | None, typer.Option("--edge-type", "-e", help=_edge_type_help())] = None,
    no_tests: Annotated[bool, typer.Option("--no-tests", help="Hide callers that are tests.")] = False,
    limit: Annotated[int, typer.Option(help="Callers to show (totals always count all).")] = 200,
    offset: Annotated[int, typer.Option(help="Skip this many callers (paging).")] = 0,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print the re-check list as Markdown for a pull request.")] = False,
    min_confidence: Annotated[float, typer.Option("--min-confidence", min=0.0, max=1.0, help="Leave out edges below this confidence (1 = only certain edges: no unique-name or several-overload matches).")] = 0.0,
    repo: RepoOpt = None,
    workspace: WorkspaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Blast radius: callers up to DEPTH hops with paths and evidence, entry points, tables.

    Free text that names no symbol ("send the receipt e-mail") picks its targets by hybrid search, lists them with their scores and answers their joint blast radius.

    An empty answer means no supported relationship was found, not that nothing can break.

    \b
    Examples:
      codegraph impact OrderService.place --depth 3
      codegraph impact table:orders            # readers/writers -> handlers -> endpoints -> pages
      codegraph impact 'endpoint:GET /orders' --no-tests
      codegraph impact --diff main...HEAD --markdown   # what a branch's change set reaches
      codegraph impact save -e CALLS --min-confidence 1 --json
    """

    if diff is not None:
        _run(lambda ctx: _impact_diff(ctx, diff, repo, depth, not no_tests, limit, markdown, as_json))
        return
    if not target:
        def missing(ctx: Stores) -> None:
            raise BadInput("give a TARGET, or --diff for a change set")

        _run(missing)
        return

    def body(ctx: Stores) -> None:
        from codegraph.api.answers import impact_result

        res, picks = impact_result(ctx, target, repo=repo, depth=depth, edge_types=edge_type,
                                   include_tests=not no_tests, limit=limit, offset=offset,
                                   repos=_scope(ctx, repo, workspace), min_confidence=min_confidence)
        if as_json:
            emit_json({**res.to_dict(), **({"search_targets": picks} if picks else {})})
        elif markdown:
            from codegraph.core.report import impact_markdown

            head = "".join(f"- picked by search: `{p['qualified_name']}` ({p['file']}:{p['line']}, score {p['score']})\n"
                           for p in picks)
            sys.stdout.write((f"No symbol is named `{target}`; targets picked by hybrid search:\n{head}\n" if picks
                              else "") + impact_markdown(res))
        else:
            if picks:
                console.print(f"no symbol is named {esc(target)!r}; targets picked by hybrid search "
                              f"({picks[0]['mode']}):", highlight=False)
                for p in picks:
                    console.print(f"  {p['score']:.4f}  {esc(p['qualified_name'])}  {esc(p['file'])}:{p['line']} "
                                  f"(bm25 {p['bm25_rank'] or '-'}, knn {p['knn_rank'] or '-'})", highlight=False)
            from codegraph.cli_render import print_impact

            print_impact(console, res, title="impact")

    _run(body)


@app.command()
def search(
    text: Annotated[str, typer.Argument(help="Words or a description, e.g. \"parse config file\".")],
    k: Annotated[int, typer.Option("-k", "--limit", help="Hits to return (as --limit of callers and impact).")] = 10,
    repo: RepoOpt = None,
    workspace: WorkspaceOpt = None,
    kind: Annotated[list[str] | None, typer.Option("--kind", help="Content kinds to search (repeat): code, schema, config, docs. Default: all.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Hybrid search: BM25 over code and split identifiers plus kNN over embeddings,
    fused by reciprocal rank fusion, over code, SQL schema, config properties and Markdown
    docs (each its own index). Code hits without a graph node are dropped; each hit
    carries its graph context (callers, callees, endpoints, tables; readers of a table or key).

    \b
    Examples:
      codegraph search "validate an order before saving"
      codegraph search "retry policy" --kind config --kind docs -k 5
    """

    def body(ctx: Stores) -> None:
        from codegraph.api.answers import search_answer

        res = None if workspace else _search_on_server(ctx.settings, text, k, repo, kind)
        if res is None:  # no server running (or it did not answer): in this process
            res = search_answer(ctx, text, k=k, repo=repo, repos=_scope(ctx, repo, workspace), kinds=kind or None)
        if as_json:
            emit_json(res)
            return
        from codegraph.cli_render import print_search

        print_search(console, res, text)

    _run(body)


def _search_on_server(settings: Any, text: str, k: int, repo: str | None, kind: list[str] | None) -> Any:
    """The answer of a running ``codegraph serve`` over the same stores (its model is warm),
    or None (codegraph.core.serve_link). Its round trip is listed as a step."""
    import time

    from codegraph.core.serve_link import get_json

    t = time.perf_counter()
    res = get_json(settings, "/api/search", [("q", text), ("k", k), ("repo", repo), *[("kind", x) for x in kind or ()]])
    if isinstance(res, dict) and isinstance(res.get("hits"), list):
        res.setdefault("steps", []).append({"name": "asked the running codegraph serve",
                                            "ms": round((time.perf_counter() - t) * 1000, 1)})
        return res
    return None


@app.command()
def dashboard(
    port: Annotated[int, typer.Option(help="Port to serve on.")] = 8501,
    host: Annotated[str, typer.Option(help="Address to bind (localhost by default; 0.0.0.0 exposes it).")] = "127.0.0.1",
) -> None:
    """Start the Streamlit dashboard (Overview, Search, Impact, ...). SIGTERM / SIGINT stop
    the Streamlit server too (passed on, then killed after a second)."""
    from codegraph.dashboard.launch import run as run_child

    entry = Path(__file__).parent / "dashboard" / "app.py"
    cmd = [sys.executable, "-m", "streamlit", "run", str(entry), "--server.address", host, "--server.port", str(port),
           "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    console.print(f"dashboard on http://{host}:{port}  (Ctrl+C to stop)")
    raise typer.Exit(run_child(cmd))


# Commands of other faces live in their own modules, each exposing register(app, run).
for _mod in ("codegraph.cli_inspect", "codegraph.cli_agent", "codegraph.cli_triage", "codegraph.cli_pipeline", "codegraph.cli_workspace",
             "codegraph.cli_serve"):
    try:
        __import__(_mod, fromlist=["register"]).register(app, _run)
    except ModuleNotFoundError as _e:  # a face not built yet
        if _e.name != _mod:
            raise


def _command_name(info: Any) -> str | None:
    """The name a registered command (CommandInfo) or group (TyperInfo) answers to."""
    name = getattr(info, "name", None)
    if isinstance(name, str):  # typer keeps unset values as DefaultPlaceholder objects
        return name
    callback = getattr(info, "callback", None)
    if callable(callback) and hasattr(callback, "__name__"):
        from typer.main import get_command_name

        return get_command_name(callback.__name__)
    return None


def _listed_only(info: Any) -> Any:
    """A copy of a CommandInfo whose callback takes no parameters but keeps the name and
    docstring: what a group's help lists of it (name, short help, hidden, deprecated)."""
    import copy

    callback = info.callback

    def listed() -> None:  # never run: only help is printed with it
        raise RuntimeError(f"{callback.__name__}: built for help only")

    listed.__name__, listed.__qualname__, listed.__doc__ = callback.__name__, callback.__qualname__, callback.__doc__
    out = copy.copy(info)
    out.callback = listed
    return out


@contextlib.contextmanager
def _commands_of(typer_app: Any, commands: list[Any], groups: list[Any]) -> Any:
    """``typer_app`` with these registered commands and groups while the block runs."""
    saved = typer_app.registered_commands, typer_app.registered_groups
    typer_app.registered_commands, typer_app.registered_groups = commands, groups
    try:
        yield typer_app
    finally:
        typer_app.registered_commands, typer_app.registered_groups = saved


@contextlib.contextmanager
def _help_listing(typer_app: Any) -> Any:
    """While open: ``typer_app``'s commands (and those of its groups, recursively) without
    their parameters. A group's help lists each command's name and first docstring line only,
    and building every command's options is most of what ``codegraph --help`` would cost;
    the text printed is the same (tests/cli/test_help_listing.py compares it)."""
    with contextlib.ExitStack() as stack:
        for g in typer_app.registered_groups:
            if g.typer_instance is not None:
                stack.enter_context(_help_listing(g.typer_instance))
        stack.enter_context(_commands_of(typer_app, [_listed_only(c) for c in typer_app.registered_commands],
                                         typer_app.registered_groups))
        yield typer_app


def main(argv: list[str] | None = None) -> Any:
    """Console entry point (``codegraph``, ``python -m codegraph``): runs ``sys.argv[1:]``
    and ends the process (``_exit_fast``). With ``argv`` (a test, an embedding program) it
    runs those arguments in this process and raises SystemExit as click does."""
    if argv is not None:
        return _main(list(argv))
    try:
        _main(sys.argv[1:])
        code: Any = 0
    except SystemExit as e:
        code = e.code
    _exit_fast(code)


def _exit_fast(code: Any) -> None:
    """End the process once a command is done: run the atexit handlers (logging,
    multiprocessing and tempfile clean-up run as usual), flush stdout/stderr, then ``os._exit`` instead
    of the interpreter's teardown. The teardown only frees memory the OS takes back anyway,
    object by object: after a refresh of the standard library that was ~0.2 s of CPU, more
    than the query of a ``callers`` run. A non-daemon thread still running (a server's)
    gets the normal exit, which waits for it. SystemExit's codes: None -> 0, an
    int as is, anything else printed to stderr and 1."""
    import atexit
    import os
    import threading

    if any(t.is_alive() and not t.daemon and t is not threading.main_thread() for t in threading.enumerate()):
        sys.exit(code)
    if code is None:
        code = 0
    elif not isinstance(code, int):
        with contextlib.suppress(Exception):
            sys.stderr.write(f"{code}\n")
        code = 1
    atexit._run_exitfuncs()  # CPython's own exit runs exactly these, then flushes stdio
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`codegraph ... | head`)
            if stream is sys.stdout and code == 0:
                code = 120  # what the interpreter's own exit gives when stdout cannot be flushed
    os._exit(code)


def _main(args: list[str]) -> Any:
    """``app`` on ``args`` with only the command being run built.

    Typer turns every registered command's signature into click parameters before it
    parses anything (~1-4 ms per command); a query such as ``codegraph callers X`` needs
    one. When the first argument names a command or group, only that one is built;
    ``codegraph``, ``codegraph --help`` and ``codegraph GROUP --help`` list commands, which
    needs their names and docstrings but not their options (``_help_listing``); anything
    else (a typo, an unknown option) gets the whole ``app`` as before."""
    # `impact --diff` with no value: the working tree (click options always take a value).
    for i, a in enumerate(args):
        if a == "--diff" and (i + 1 == len(args) or args[i + 1].startswith("-")):
            args.insert(i + 1, "")
            break
    first = args[0] if args else None
    if args in ([], ["--help"]):
        with _help_listing(app):
            return app(args=args, prog_name="codegraph")
    commands = [c for c in app.registered_commands if _command_name(c) == first]
    groups = [g for g in app.registered_groups if isinstance(g.name, str) and g.name == first]
    if first is None or first.startswith("-") or not (commands or groups):
        return app(args=args, prog_name="codegraph")
    with contextlib.ExitStack() as stack:
        stack.enter_context(_commands_of(app, commands, groups))
        if groups and args[1:] == ["--help"] and groups[0].typer_instance is not None:
            stack.enter_context(_help_listing(groups[0].typer_instance))
        return app(args=args, prog_name="codegraph")

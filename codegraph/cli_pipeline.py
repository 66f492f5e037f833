"""Pipeline commands: extract, load, refresh (registry), watch, baseline."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from codegraph.cli import JsonOpt, RepoOpt, console, emit_json, err, path_value
from codegraph.cli_console import rich_table
from codegraph.cli_phases import embed_phase, progress_display, triage_decisions
from codegraph.core.errors import BadInput


def register(app: typer.Typer, run: Any) -> None:
    @app.command()
    def extract(
        path: Annotated[Path, typer.Argument(help="Folder to extract.", parser=path_value)],
        output: Annotated[Path, typer.Option("--output", "-o", help="JSONL file to write ('-' for stdout).", parser=path_value)],
        repo: Annotated[str | None, typer.Option("--repo", "-r", help="Repo name (default: folder name).")] = None,
        exclude: Annotated[list[str] | None, typer.Option("--exclude", "-x", help="Glob to leave out (repeat).")] = None,
        workers: Annotated[int, typer.Option(help="Processes (0 = one per core).")] = 0,
    ) -> None:
        """Extract records to JSONL without touching any store (the dry run of `index`).

        Format: docs/extraction-format.md (one record per line, header first)."""

        def body(ctx: Any) -> None:
            from codegraph.indexer.pipeline import default_repo_name, extract_tree
            from codegraph.indexer.records import write_jsonl

            name = repo or default_repo_name(path)
            with progress_display(str(output) == "-") as prog:
                task = None

                def tick(phase: str, done: int, total: int) -> None:
                    nonlocal task
                    if prog is not None:
                        task = task if task is not None else prog.add_task(phase, total=total)
                        prog.update(task, completed=done, total=total)

                header, files, report = extract_tree(path, name, workers=workers, exclude=exclude, progress=tick)
            out = sys.stdout if str(output) == "-" else output.open("w", encoding="utf-8")
            try:
                n = write_jsonl(out, {**header, **report}, files)
            finally:
                if out is not sys.stdout:
                    out.close()
            err.print(f"wrote {n} records for {len(files)} files to {output}")

        run(body)

    @app.command()
    def load(
        file: Annotated[Path, typer.Argument(help="JSONL written by `codegraph extract`.", parser=path_value)],
        repo: Annotated[str | None, typer.Option("--repo", "-r", help="Load under this repo name instead of the header's.")] = None,
        embed: Annotated[bool, typer.Option("--embed/--no-embed", help="Embed new chunks afterwards.")] = False,
        partial: Annotated[bool, typer.Option("--partial", help="Load a file without its closing record (truncated): import what it holds, delete nothing.")] = False,
        yes: Annotated[bool, typer.Option("--yes", "-y", help="Delete the files the run no longer describes even above --max-delete.")] = False,
        max_delete: Annotated[float, typer.Option(help="Refuse (without --yes) to delete more than this percent of the repo's files.")] = 20.0,
        wait: Annotated[float, typer.Option(help="Seconds to wait when another run of this repo holds its lock (then refuse).")] = 0.0,
        as_json: JsonOpt = False,
    ) -> None:
        """Load a JSONL extraction into the stores (the skip-extract half of `index`).

        Transactional per run: a file without its closing record changes nothing unless
        --partial; malformed lines and paths outside the repo root are counted skips with
        their line numbers; files the run no longer describes are listed before they are
        deleted, and more than --max-delete percent of them only with --yes."""

        def body(ctx: Any) -> None:
            from codegraph.core.errors import BadInput
            from codegraph.indexer.load import load_run, planned_deletions
            from codegraph.indexer.records import read_jsonl_run
            from codegraph.indexer.state import StateStore

            if not file.is_file():
                raise BadInput(f"no such file: {file}")
            with file.open(encoding="utf-8", errors="replace") as fh:
                jrun = read_jsonl_run(fh)
            for p in jrun.problems[:20]:
                err.print(f"[yellow]skipped line {p.line}[/yellow]: {p.reason}", highlight=False, soft_wrap=True)
            if len(jrun.problems) > 20:
                err.print(f"... and {len(jrun.problems) - 20} more malformed line(s)", highlight=False)
            state = StateStore(ctx.settings.state_db)
            try:
                name = repo or jrun.header.get("repo")
                name = name if isinstance(name, str) and name else "repo"
                gone = planned_deletions(jrun, set(ctx.graph.file_hashes(name)), set(state.file_hashes(name)),
                                         partial=partial)
                if gone:
                    shown = ", ".join(gone[:20]) + (f" (+{len(gone) - 20} more)" if len(gone) > 20 else "")
                    err.print(f"{len(gone)} file(s) of {name} are not in {file.name} and would be deleted: {shown}",
                              highlight=False, soft_wrap=True)
                from codegraph.indexer.runlock import repo_lock

                with repo_lock(ctx.graph, name, wait):
                    s = load_run(jrun, ctx.graph, ctx.search, state, repo=repo, decisions=triage_decisions(ctx, name),
                                 partial=partial, yes=yes, max_delete_percent=max_delete, source=str(file))
            finally:
                state.close()
            rep = embed_phase(ctx, s.repo, None) if embed else None
            problems = jrun.problems
            skipped = {"malformed_lines": len(problems), "outside_root": len(jrun.outside), "complete": jrun.complete,
                       "first": [{"line": p.line, "reason": p.reason} for p in problems[:20]]}
            if as_json:
                emit_json({"summary": s, "skipped_records": skipped, "embedding": rep})
            else:
                from codegraph.cli_render import print_summary

                print_summary(console, s, rep)
                console.print(f"skipped records: {len(problems)} malformed line(s)"
                              + (f", {len(jrun.outside)} outside the repo root" if jrun.outside else ""))

        run(body)

    @app.command()
    def refresh(
        repo: Annotated[str | None, typer.Option("--repo", "-r", help="Only this registered repo.")] = None,
        config: Annotated[Path | None, typer.Option("--config", "-c", help="Project config (default ./codegraph.toml or $CODEGRAPH_CONFIG).", parser=path_value)] = None,
        embed: Annotated[bool, typer.Option("--embed/--no-embed", help="Embed new chunks after each repo.")] = True,
        as_json: JsonOpt = False,
    ) -> None:
        """Bring every registered repository up to date (only changed files re-parse).

        The unit of work for schedulers: `codegraph refresh --repo NAME` per job. A repo
        that fails is reported and the others still refresh; exit 1 if any failed."""

        def body(ctx: Any) -> None:
            from codegraph.core.errors import CodegraphError
            from codegraph.indexer.pipeline import index_repo
            from codegraph.indexer.registry import config_path, load_registry, sync_mirror
            from codegraph.indexer.state import StateStore

            entries = load_registry(config_path(config))
            if repo:
                entries = [e for e in entries if e.name == repo]
                if not entries:
                    raise CodegraphError(f"repo {repo!r} is not in {config_path(config)}")
            state = StateStore(ctx.settings.state_db)
            results: list[dict[str, Any]] = []
            failed = 0
            for e in entries:
                t = time.perf_counter()
                try:
                    note = sync_mirror(e)
                    from codegraph.indexer.runlock import repo_lock

                    with repo_lock(ctx.graph, e.name):
                        s = index_repo(e.path, e.name, ctx.graph, ctx.search, state, workers=ctx.settings.workers,
                                       max_file_bytes=ctx.settings.max_file_bytes, include=e.include or None,
                                       exclude=e.exclude or None, decisions=triage_decisions(ctx, e.name), pages=e.pages)
                    rep = embed_phase(ctx, e.name, None) if embed else None
                    results.append({"repo": e.name, "ok": True, "note": note, "summary": s, "embedding": rep})
                except (CodegraphError, OSError) as ex:
                    failed += 1
                    results.append({"repo": e.name, "ok": False, "error": str(ex),
                                    "seconds": round(time.perf_counter() - t, 2)})
            from codegraph.indexer.cross_repo import describe, relink_after_index

            done = [r["repo"] for r in results if r["ok"]]
            linked = relink_after_index(ctx.graph, state, ctx.settings.state_db, done, config) if done else None
            state.close()
            if as_json:
                emit_json(results)
            else:
                for r in results:
                    if r["ok"]:
                        s = r["summary"]
                        console.print(f"[green]ok[/green] {r['repo']}: {s.changed} parsed, {s.removed} removed, "
                                      f"{s.unchanged} unchanged in {s.timings.get('total', 0):.2f}s ({r['note']})")
                    else:
                        console.print(f"[red]failed[/red] {r['repo']}: {r['error']}", highlight=False)
                if linked is not None:
                    console.print(describe(linked))
            if failed:
                raise typer.Exit(1)

        run(body)

    @app.command()
    def watch(
        path: Annotated[Path, typer.Argument(help="Folder to keep indexed.", parser=path_value)],
        repo: Annotated[str | None, typer.Option("--repo", "-r", help="Repo name (default: folder name).")] = None,
        debounce_ms: Annotated[int, typer.Option(help="Wait this long after the last save.")] = 150,
    ) -> None:
        """Live sync: re-index saved files (and relink their dependants) until Ctrl+C."""

        def body(ctx: Any) -> None:
            import watchfiles

            from codegraph.indexer.pipeline import default_repo_name, index_repo
            from codegraph.indexer.state import StateStore

            name = repo or default_repo_name(path)
            state = StateStore(ctx.settings.state_db)
            from codegraph.indexer.runlock import repo_lock

            with repo_lock(ctx.graph, name, wait=30):
                s = index_repo(path, name, ctx.graph, ctx.search, state)
            console.print(f"watching {path} as {name}: {s.files} files indexed; Ctrl+C to stop")
            try:
                for changes in watchfiles.watch(path, debounce=debounce_ms, step=50):
                    t = time.perf_counter()
                    with repo_lock(ctx.graph, name, wait=30):  # a concurrent `index` finishes first
                        s = index_repo(path, name, ctx.graph, ctx.search, state, workers=1)
                    console.print(f"{len(changes)} change(s): {s.changed} parsed, {s.removed} removed, "
                                  f"{s.edges_rewritten_files} relinked in {(time.perf_counter() - t) * 1000:.0f} ms")
            except KeyboardInterrupt:
                pass
            finally:
                state.close()

        run(body)

    def _backfill(repo: str | None, since: str, every: str, max_commits: int, as_json: bool) -> None:
        def body(ctx: Any) -> None:
            from codegraph.indexer.backfill import Filters, backfill, parse_span
            from codegraph.indexer.registry import config_path, load_registry
            from codegraph.indexer.state import StateStore

            span, step = parse_span(since), parse_span(every)
            repos = [r for r in ctx.graph.repos() if not repo or r.props.get("name") == repo]
            if not repos:
                raise BadInput(f"no repository named {repo!r}" if repo else "no repository is indexed yet")
            # The repos' codegraph.toml filters, so past commits count what the live runs count.
            cfg = config_path(None)
            entries = {e.name: e for e in load_registry(cfg)} if cfg.is_file() else {}
            report = []
            state = StateStore(ctx.settings.state_db)  # keeps each point's symbol names
            try:
                for r in repos:
                    name, path = str(r.props.get("name")), r.props.get("path")
                    e = entries.get(name)
                    filters = Filters(e.include, e.exclude, e.pages) if e else Filters()

                    def tick(p: Any, name: str = name) -> None:
                        if not as_json:
                            err.print(f"{name} {p.commit[:10]} {p.committed_at[:10]}: {p.status}"
                                      + (f" ({p.files} files, {p.symbols} symbols)" if p.status == "recorded"
                                         else ""), highlight=False)

                    pts = backfill(Path(str(path)), name, ctx.graph, span, step, tick, max_commits, state=state,
                                   filters=filters)
                    report.append({"repo": name, "config": str(cfg) if e else None,
                                   "include": filters.include or [], "exclude": filters.exclude or [],
                                   "points": [{"commit": p.commit, "committed_at": p.committed_at, "status": p.status,
                                               "files": p.files, "symbols": p.symbols} for p in pts]})
            finally:
                state.close()
            if as_json:
                emit_json(report)
            else:
                for x in report:
                    done = sum(p["status"] == "recorded" for p in x["points"])
                    console.print(f"{x['repo']}: {done} of {len(x['points'])} commit(s) recorded "
                                  "(see `codegraph baseline` and the Baselines page)")

        run(body)

    @app.command()
    def baseline(
        action: Annotated[str | None, typer.Argument(help="'backfill': record counts of past commits.")] = None,
        repo: RepoOpt = None,
        threshold: Annotated[float, typer.Option(help="Flag counts that dropped by more than this percent.")] = 5.0,
        against: Annotated[str | None, typer.Option(help="Baseline snapshot time (taken_at); default the previous one.")] = None,
        since: Annotated[str, typer.Option(help="backfill: how far back (90d, 12w, 6m).")] = "90d",
        every: Annotated[str, typer.Option(help="backfill: one commit per period (1w, 1d).")] = "1w",
        max_commits: Annotated[int, typer.Option(help="backfill: at most this many commits per repo.")] = 60,
        as_json: JsonOpt = False,
    ) -> None:
        """Count trend per repo (files, symbols, stubs, edges by type) with drops flagged.

        Exit 1 when a count that should not fall (files, symbols, edges) dropped by more than
        the threshold; a fall of stubs, parse errors or unsupported files is progress and
        is listed under "improved". Lists vanished symbols.

        `codegraph baseline backfill --since 90d --every 1w` indexes past commits of each repo
        in a temporary git worktree (the checkout is never touched) into a temporary graph
        and records their counts, so the trend starts with history."""
        if action not in (None, "backfill"):
            def refuse(ctx: Any) -> None:
                raise BadInput(f"unknown baseline action {action!r} (only 'backfill')")

            run(refuse)
            return
        if action == "backfill":
            _backfill(repo, since, every, max_commits, as_json)
            return

        def body(ctx: Any) -> None:
            from codegraph.core.baselines import snapshots
            from codegraph.core.figures import compare, lower_is_better
            from codegraph.indexer.state import StateStore

            names = [repo] if repo else [r.props["name"] for r in ctx.graph.repos()]
            state = StateStore(ctx.settings.state_db)
            report = []
            flagged = False
            for name in names:
                snaps = snapshots(ctx.graph, name)
                if not snaps:
                    report.append({"repo": name, "snapshots": 0, "drops": []})
                    continue
                cur = snaps[-1]
                base = next((s for s in snaps if s["taken_at"] == against), None) if against else (
                    snaps[-2] if len(snaps) > 1 else None)
                fell = compare(base["counts"], cur["counts"], threshold) if base else []
                drops = [d for d in fell if not lower_is_better(d.key)]
                improved = [d for d in fell if lower_is_better(d.key)]
                if base and drops:
                    before = state.snapshot_symbols(name, base["taken_at"]) or set()
                    after = state.snapshot_symbols(name, cur["taken_at"]) or set()
                    gone = sorted(before - after)
                    for d in drops:
                        if d.key == "symbols":
                            d.disappeared = gone[:200]
                flagged = flagged or bool(drops)
                report.append({"repo": name, "snapshots": len(snaps), "baseline": base, "current": cur,
                               "trend": snaps[-20:], "drops": drops, "improved": improved})
            state.close()
            if as_json:
                emit_json(report)
            else:
                for r in report:
                    if not r["snapshots"]:
                        console.print(f"{r['repo']}: no snapshots yet (index it first)")
                        continue
                    t = rich_table(title=f"{r['repo']}: {r['snapshots']} snapshot(s)")
                    t.add_column("count")
                    trend = r["trend"]
                    for s in trend[-6:]:
                        t.add_column(s["taken_at"][5:16])
                    keys = sorted({k for s in trend for k in s["counts"]})
                    dropped = {d.key for d in r["drops"]}
                    for k in keys:
                        t.add_row(f"[red]{k}[/red]" if k in dropped else k,
                                  *(str(s["counts"].get(k, 0)) for s in trend[-6:]))
                    console.print(t)
                    for d in r["drops"]:
                        console.print(f"[red]drop[/red] {d.key}: {d.baseline} -> {d.current} (-{d.percent}%)")
                        for q in d.disappeared[:20]:
                            console.print(f"   gone: {q}", highlight=False)
                    for d in r.get("improved", []):
                        console.print(f"[green]improved[/green] {d.key}: {d.baseline} -> {d.current} (-{d.percent}%)")
            if flagged:
                raise typer.Exit(1)

        run(body)

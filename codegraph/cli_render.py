"""Human renderings of the CLI's longer answers (an index summary, an impact result);
``--json`` output comes from ``codegraph.api.answers`` / the dataclasses instead."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.markup import escape as esc
from rich.table import Table

from codegraph.cli_console import print_rows
from codegraph.core.models import location

if TYPE_CHECKING:
    from rich.console import Console

    from codegraph.core.impact import ImpactResult
    from codegraph.indexer.pipeline import IndexSummary


def named(items: list[str], first: int = 5) -> str:
    """The first few ``items`` comma-separated, then "and N more": ``a/, b/ and 3 more``."""
    head = ", ".join(items[:first])
    return head + (f" and {len(items) - first} more" if len(items) > first else "")


def print_summary(console: Console, s: IndexSummary, embed_report: dict[str, Any] | None) -> None:
    """The closing table of an index / refresh run (an IndexSummary) and its notes."""
    t = Table(title=f"indexed {s.repo}", show_header=False, box=None)
    t.add_row("root", s.root)
    t.add_row("commit", s.commit or "(not a git checkout)")
    t.add_row("files", f"{s.files} ({s.changed} parsed, {s.unchanged} unchanged, {s.removed} removed)")
    t.add_row("symbols", str(s.symbols))
    # The same figure as `codegraph stats` ("edges" there, core/figures.py); the structural
    # IN_REPO / DECLARES edges stats lists per type are named apart (docs/DESIGN.md#faces).
    t.add_row("edges", f"{s.edges} (every type but the {s.structural_edges} structural IN_REPO / DECLARES; "
                       f"{s.edges_rewritten_files} files relinked)")
    t.add_row("stubs", f"{s.stubs} unresolved targets")
    t.add_row("coverage", f"{s.parse_errors} files with parse errors, {s.partial_files} partial")
    if s.skipped:
        t.add_row("skipped", ", ".join(f"{v} {k}" + (f" ({named(s.skipped_folders)})"
                                                      if k == "vendored or build folder" and s.skipped_folders else "")
                                       for k, v in sorted(s.skipped.items())))
    if s.unsupported:
        top = sorted(s.unsupported.items(), key=lambda kv: -kv[1])[:8]
        t.add_row("unsupported", ", ".join(f"{v} {k}" for k, v in top) + (" ..." if len(s.unsupported) > 8 else ""))
    if s.resolutions:
        t.add_row("resolution", ", ".join(f"{k} {v}" for k, v in sorted(s.resolutions.items(), key=lambda kv: -kv[1])))
    if s.boundaries:
        t.add_row("boundaries", ", ".join(f"{k} {v}" for k, v in sorted(s.boundaries.items())))
    if s.unplaced_urls:
        t.add_row("HTTP calls", f"{s.unplaced_urls} client URL(s) could not be placed (see --json: unplaced)")
    if s.extract_failures:
        t.add_row("failures", f"{s.extract_failures} file(s) the extractor failed on (tracebacks: CODEGRAPH_LOG=debug)")
    t.add_row("chunks", str(s.chunks_written))
    if s.content:
        t.add_row("other content", ", ".join(f"{k} {v}" for k, v in s.content["chunks"].items())
                  + (f" ({', '.join(f'{v} {k} file(s) unparsed' for k, v in s.content['unparsed'].items())})"
                     if s.content.get("unparsed") else ""))
    t.add_row("time", ", ".join(f"{k} {v:.2f}s" for k, v in s.timings.items()))
    if embed_report:
        if embed_report.get("mode") == "bm25-only":
            t.add_row("embedding", f"skipped: {embed_report.get('reason')}")
        else:
            t.add_row("embedding", ", ".join(f"{k} {v}" for k, v in embed_report.items()))
    console.print(t)
    for m in s.messages[:10]:
        console.print(f"[yellow]note[/yellow] {m}", highlight=False)


def print_impact(console: Console, res: ImpactResult, title: str) -> None:
    """Human rendering of an ImpactResult. Everything that comes from code is escaped:
    a page path such as ``orders/[id]/page.tsx`` is not rich markup."""
    console.print(f"[bold]{title}[/bold] of [cyan]{esc(res.query)}[/cyan] (depth {res.depth})", highlight=False)
    if getattr(res, "incomplete_reason", None):  # docs/hardening.md, "Completeness"
        console.print(f"[bold red]INCOMPLETE[/bold red]: {esc(res.incomplete_reason)}", highlight=False,
                      soft_wrap=True)
    for tg in res.targets:
        console.print(f"  target: {esc(tg.qualified_name)} \\[{tg.kind}] {esc(location(tg.file, tg.line))} ({esc(tg.repo)})",
                      highlight=False)
    for w in res.widened:
        n = w["node"]
        console.print(f"  widened: {esc(n.qualified_name)} {esc(location(n.file, n.line))} ({esc(w['reason'])})", highlight=False)
    if res.callers:
        # Answers spanning repositories (workspaces) say each caller's repo.
        many = len({c.node.repo for c in res.callers} | {tg.repo for tg in res.targets}) > 1
        rows = []
        for c in res.callers:
            more = f" (+{len(c.sites) - 1} more sites)" if len(c.sites) > 1 else ""
            rows.append([str(c.depth), esc(c.node.qualified_name + (" [test]" if c.is_test else "")),
                         *((esc(c.node.repo),) if many else ()), c.node.kind, c.via,
                         esc(f"{c.evidence_file}:{c.evidence_line}{more}"), c.resolution, esc(" -> ".join(c.path))])
        print_rows(console, ["depth", "caller", *(("repo",) if many else ()), "kind", "via", "evidence", "resolution",
                             "path"], rows, whole=("depth", "evidence"), own_lines=("evidence", "path"))
        if many and res.by_repo:
            console.print("callers per repo: " + esc(", ".join(f"{r} {n}" for r, n in sorted(res.by_repo.items()))),
                          highlight=False)
    console.print(f"callers: showing {res.shown_callers} of {res.total_callers}"
                  + (" (more exist: use --offset/--limit)" if res.truncated else ""))
    if res.importers:
        console.print(f"[bold]importers[/bold] ({len(res.importers)}): "
                      + esc(", ".join(c.node.qualified_name for c in res.importers[:20]))
                      + (" ..." if len(res.importers) > 20 else ""), highlight=False)
    if res.entry_points:
        console.print("[bold]entry points[/bold]")
        for e in res.entry_points:
            where = location(e.node.file, e.node.line)
            console.print(f"  {e.kind}: {esc(e.node.qualified_name)} {esc(where) + ' ' if where else ''}"
                          f"(depth {e.depth}) {esc(e.reason)}", highlight=False)
    if res.tables:
        console.print("[bold]tables[/bold]: " + esc(", ".join(t["table"] for t in res.tables)), highlight=False)
    if res.pages:
        console.print("[bold]pages to re-check[/bold]")
        for p in res.pages:
            console.print(f"  {esc(str(p.get('route')))} ({esc(str(p.get('file')))}, depth {p.get('depth')})",
                          highlight=False)
    for u in res.unresolved:
        console.print(f"[yellow]unresolved[/yellow] {esc(u.target_identifier)} ({u.reason}, {u.references} call sites "
                      "could not be linked: they may reach this target)", highlight=False)
    for f in res.freshness:
        console.print(f"[dim]graph of {esc(str(f['repo']))}: imported {f['last_imported_at']}, "
                      f"commit {f['commit'] or 'n/a'}[/dim]")
        co = f.get("checkout")
        if co and not co["matches_graph"]:
            stale = co["changed_since"] + co["uncommitted"]
            console.print(f"[yellow]this checkout is at {str(co['head'])[:12]}; {len(stale)} changed file(s) are not "
                          f"in the graph: {esc(', '.join(stale[:8]))}{' ...' if len(stale) > 8 else ''} "
                          f"(run codegraph index)[/yellow]", highlight=False)
    console.print(f"[dim]steps: {', '.join(f'{s.name} {s.ms:.1f} ms' for s in res.steps)}[/dim]")
    console.print(f"[dim]{res.notice}[/dim]")


def print_search(console: Console, res: dict[str, Any], text: str) -> None:
    """Human rendering of a search answer (``codegraph.api.answers.search_answer``)."""
    from codegraph.api.answers import context_line

    rows = [[str(i), f"{h['content']}/{h['kind']}", esc(h["qualified_name"] or h["file"]), esc(h["repo"]),
             esc(f"{h['file']}:{h['line']}"), f"{h['score']:.4f}", str(h["bm25_rank"] or "-"),
             str(h["knn_rank"] or "-"), esc(context_line(h))] for i, h in enumerate(res["hits"], 1)]
    print_rows(console, ["#", "kind", "name", "repo", "file:line", "score", "bm25", "knn", "context"], rows,
               title=f"search: {esc(text)} ({res['mode']})", whole=("#", "file:line", "score"),
               own_lines=("file:line", "context"))
    if res.get("reason"):
        console.print(f"[yellow]{esc(res['reason'])}[/yellow]")
    steps = ", ".join(f"{s['name']} {s['ms']:.1f} ms" for s in res["steps"])
    console.print(f"[dim]steps: {steps}[/dim]")

"""Steps the index-like commands share (``index``, ``embed``, ``refresh``, ``load``): the
progress display, the embedding phase and the triage decisions handed to the resolver."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codegraph.core.stores import Stores


def triage_decisions(ctx: Stores, repo: str) -> dict[str, Any] | None:
    """The repo's triage decisions, for the resolver."""
    from codegraph.core.triage import load_decisions

    return load_decisions(ctx.graph, repo)


def progress_display(quiet: bool) -> Any:
    """A rich progress display on stderr, or a no-op context off a terminal / when quiet."""
    from codegraph.cli import err

    if quiet or not sys.stderr.isatty():
        from contextlib import nullcontext

        return nullcontext(None)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("{task.description:>8}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=err.real, transient=False)


def _eta(p: dict[str, Any]) -> int | None:
    rate = float(p.get("chunks_per_s") or 0)
    return round((int(p["total"]) - int(p["done"])) / rate) if rate > 0 else None


def embed_phase(ctx: Stores, repo: str | None, prog: Any) -> dict[str, Any]:
    """The embedding phase with progress (``prog``: a rich Progress, or None for one line every
    10 s); its state file feeds the dashboard. Returns run_embedding's report (+ other kinds)."""
    from codegraph.cli import err
    from codegraph.indexer.embed_phase import run_embedding
    from codegraph.indexer.embed_state import EmbedStateWriter, describe

    emb = ctx.embedder
    if not emb.available:
        return {"mode": "bm25-only", "reason": emb.reason}
    task = None
    state = EmbedStateWriter(ctx.settings.home, repo)  # read by the dashboard's Health and Overview
    last_line = [0.0]

    def tick(p: dict[str, Any]) -> None:
        nonlocal task
        state.update(p)
        if prog is None:
            # No terminal (a background run, a log file): one line every 10 s instead of a bar.
            if time.monotonic() - last_line[0] >= 10:
                last_line[0] = time.monotonic()
                err.print(describe(state.state | {"eta_s": _eta(p)}), highlight=False)
            return
        if task is None:
            task = prog.add_task("embed", total=p["total"])
        prog.update(task, completed=p["done"], total=p["total"])

    try:
        rep = run_embedding(ctx.search, emb, repo=repo, progress=tick)
    except BaseException:
        state.finish("failed")
        raise
    state.update({"done": rep["embedded"], "total": state.state["total"] or rep["embedded"],
                  "chunks_per_s": rep["chunks_per_s"]}, force=True)
    state.finish()
    out = {k: round(v, 2) if isinstance(v, float) else v for k, v in rep.items()}
    if hasattr(ctx.search, "for_kind"):  # schema / config / docs chunks have their own indexes
        from codegraph.core.content import CODE, CONTENT_KINDS

        kinds = {kind: run_embedding(ctx.search.for_kind(kind), emb, repo=repo)["embedded"]
                 for kind in CONTENT_KINDS if kind != CODE}
        out["other_kinds"] = kinds
    return out

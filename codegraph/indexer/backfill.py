"""Baseline backfill: count past commits so the trend starts on day one
(docs/DESIGN.md#faces, Baselines).

For one indexed repository: the commits of its git history within ``since`` (newest
first-parent history), one per ``every`` period; each is checked out in a temporary
``git worktree add --detach`` outside the repository (the person's checkout, index
and branches are never touched; the worktree is removed afterwards), indexed into a
temporary embedded graph, and its counts recorded as a CountSnapshot of the real graph
at the commit's time (``source: backfill``). Commits that already have a snapshot are
skipped, so a backfill can be re-run. The past commit is indexed with the repo's
``codegraph.toml`` filters (include / exclude / pages) when it has an entry there, so its
counts mean what the live runs' counts mean. The qualified names of each past commit's
symbols go into the indexer state beside the live runs' (``StateStore.save_snapshot_symbols``),
so Baselines and ``codegraph baseline`` list what disappeared between backfilled points too.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from codegraph.core.baselines import record_snapshot, snapshot_counts, snapshots
from codegraph.core.errors import BadInput
from codegraph.core.graph_store import GraphStore
from codegraph.core.models import SYMBOL

if TYPE_CHECKING:
    from codegraph.indexer.state import StateStore

_SPAN = re.compile(r"^\s*(\d+)\s*([hdwmy])\s*$")
_UNIT = {"h": timedelta(hours=1), "d": timedelta(days=1), "w": timedelta(weeks=1), "m": timedelta(days=30),
         "y": timedelta(days=365)}


def parse_span(text: str) -> timedelta:
    """'90d', '1w', '12h', '6m' (30 days), '1y'. Raises BadInput."""
    m = _SPAN.match(text or "")
    if not m or int(m.group(1)) <= 0:
        raise BadInput(f"not a time span: {text!r} (use a number and h, d, w, m or y: 90d, 1w)")
    return int(m.group(1)) * _UNIT[m.group(2)]


@dataclass(slots=True)
class Point:
    commit: str
    committed_at: str  # ISO-8601 with offset
    status: str = "pending"  # recorded | skipped (already there) | failed: <why>
    files: int = 0
    symbols: int = 0


def _git(root: Path, *args: str) -> str:
    r = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise BadInput(f"git {' '.join(args[:2])} failed in {root}: {r.stderr.strip().splitlines()[-1:] or ['?']}")
    return r.stdout


def pick_commits(root: Path, since: timedelta, every: timedelta) -> list[Point]:
    """Oldest first: the first-parent commits of HEAD younger than ``since``, at most one
    per ``every`` (the newest of each period), always including HEAD."""
    out = _git(root, "log", "--first-parent", f"--since={int(since.total_seconds())} seconds ago",
               "--format=%H %cI", "HEAD")
    commits = [Point(*line.split(" ", 1)) for line in out.splitlines() if line.strip()]
    picked: list[Point] = []
    last: datetime | None = None
    for c in commits:  # newest first
        at = datetime.fromisoformat(c.committed_at)
        if last is None or last - at >= every:
            picked.append(c)
            last = at
    return picked[::-1]


@dataclass(slots=True)
class Filters:
    """What a past commit is indexed with: the repo's codegraph.toml include / exclude
    globs and page routes (empty: the defaults ``codegraph index`` uses)."""

    include: list[str] | None = None
    exclude: list[str] | None = None
    pages: dict[str, str] | None = None


def symbol_names(graph: GraphStore, repo: str, page: int = 5000) -> list[str]:
    """Qualified names of every symbol of ``repo`` (paged through ``nodes_by_label``)."""
    out: list[str] = []
    offset = 0
    while True:
        part = graph.nodes_by_label(SYMBOL, repo, limit=page, offset=offset)
        out.extend(str(n.props.get("qualified_name") or "") for n in part)
        if len(part) < page:
            return out
        offset += page


def backfill(root: Path, repo: str, graph: GraphStore, since: timedelta, every: timedelta,
             progress: Callable[[Point], None] | None = None, max_commits: int = 60, *,
             state: StateStore | None = None, filters: Filters | None = None) -> list[Point]:
    """Record a snapshot of ``repo`` for each picked commit (module docstring). ``root``
    is the indexed folder (it may lie below the git top level); ``state``: the indexer
    state that keeps each snapshot's symbol names (none: not kept); ``filters``: the
    repo's codegraph.toml entry. Raises BadInput when ``root`` is not in a git checkout."""
    from codegraph.core.embedded_graph import EmbeddedGraphStore
    from codegraph.indexer.pipeline import index_repo
    from codegraph.indexer.state import StateStore

    f = filters or Filters()
    root = Path(root).resolve()
    top = Path(_git(root, "rev-parse", "--show-toplevel").strip())
    sub = root.relative_to(top) if root != top else Path()
    points = pick_commits(root, since, every)[-max_commits:]
    have = {s.get("commit") for s in snapshots(graph, repo)}
    for p in points:
        if p.commit in have:
            p.status = "skipped (a snapshot of this commit exists)"
            if progress:
                progress(p)
            continue
        tmp = Path(tempfile.mkdtemp(prefix="codegraph-backfill-"))
        wt = tmp / "tree"
        try:
            _git(top, "worktree", "add", "--detach", "--quiet", str(wt), p.commit)
            g, tmp_state = EmbeddedGraphStore(tmp / "graph.db"), StateStore(tmp / "state.db")
            try:
                index_repo(wt / sub, repo, g, None, tmp_state, workers=1, include=f.include or None,
                           exclude=f.exclude or None, pages=f.pages or None)
                counts = snapshot_counts(g, repo)
                names = symbol_names(g, repo) if state is not None else []
            finally:
                tmp_state.close()
                g.close()
            # UTC like every other snapshot, so that taken_at strings sort in time order.
            at = datetime.fromisoformat(p.committed_at).astimezone(UTC).isoformat(timespec="microseconds")
            if state is not None:  # first: a snapshot is never listed without its symbol names
                state.save_snapshot_symbols(repo, at, names)
            record_snapshot(graph, repo, p.commit, counts, at, source="backfill")
            p.status, p.files, p.symbols = "recorded", int(counts.get("files", 0)), int(counts.get("symbols", 0))
        except (BadInput, OSError, subprocess.SubprocessError) as e:
            p.status = f"failed: {' '.join(str(e).split())}"
        finally:
            subprocess.run(["git", "-C", str(top), "worktree", "remove", "--force", str(wt)], capture_output=True,
                           timeout=120)
            subprocess.run(["git", "-C", str(top), "worktree", "prune"], capture_output=True, timeout=120)
            shutil.rmtree(tmp, ignore_errors=True)
        if progress:
            progress(p)
    return points

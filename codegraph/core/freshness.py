"""How current is the graph? Compares the commit a repo's graph reflects with the HEAD
of the checkout the query runs from (worktrees resolve to their repository) and lists
files changed since then that the graph does not reflect. Read-only: runs ``git``
queries, never modifies a checkout."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from codegraph.core.git import run_git

_git = run_git


def _common_dir(path: Path) -> Path | None:
    d = _git(path, "rev-parse", "--path-format=absolute", "--git-common-dir")
    return Path(d).resolve() if d else None


def _no_repository_around(path: Path) -> bool:
    """True when git could not find a repository for ``path``: no ``.git`` in it or a
    parent, none of them a bare repository (``HEAD`` and ``objects/``), and no ``GIT_DIR``
    pointing elsewhere. Most queries run outside any checkout; this spares them a git process."""
    if os.environ.get("GIT_DIR"):
        return False
    return not any((p / ".git").exists() or ((p / "HEAD").is_file() and (p / "objects").is_dir())
                   for p in (path, *path.parents))


def checkout_drift(repo_path: str | None, graph_commit: str | None, cwd: Path | None = None,
                   max_files: int = 50) -> dict[str, Any] | None:
    """None when ``cwd`` is not a checkout of the repo at ``repo_path``; else
    {"checkout": path, "head": sha, "matches_graph": bool, "changed_since": [paths],
    "uncommitted": [paths]} (lists capped at ``max_files``)."""
    if not repo_path:
        return None
    cwd = (cwd or Path.cwd()).resolve()
    if _no_repository_around(cwd):
        return None
    # Two rev-parse runs ask what five did (a git process each is most of a query's time).
    asked = _git(cwd, "rev-parse", "--path-format=absolute", "--git-common-dir", "--show-toplevel", "HEAD")
    lines = asked.split("\n") if asked else []
    if len(lines) == 3:
        here: Path | None = Path(lines[0]).resolve()
        top, head = lines[1], lines[2]
    else:  # no commit yet (HEAD unborn), a bare repository: one question at a time
        here = _common_dir(cwd)
        top = _git(cwd, "rev-parse", "--show-toplevel") if here is not None else None
        head = _git(cwd, "rev-parse", "HEAD") if here is not None else None
    if here is None:
        return None
    # The indexed repo may be a folder inside the checkout: only its files count, and
    # they are reported relative to it, as the graph names them (--show-prefix, "" at the top).
    there = _git(Path(repo_path), "rev-parse", "--show-prefix", "--path-format=absolute", "--git-common-dir")
    prefix_and_dir = there.split("\n") if there else []
    if len(prefix_and_dir) != 2 or Path(prefix_and_dir[1]).resolve() != here:
        return None
    repo_top = prefix_and_dir[0]

    def mine(paths: list[str]) -> list[str]:
        return [p[len(repo_top):] for p in paths if p.startswith(repo_top)][:max_files]

    changed: list[str] = []
    if head and graph_commit and head != graph_commit:
        diff = _git(cwd, "diff", "--name-only", graph_commit, head)
        changed = mine(diff.splitlines()) if diff else []
    status = _git(Path(top or cwd), "status", "--porcelain", "--untracked-files=no", "--", repo_top or ".") or ""
    uncommitted = mine([line[3:] for line in status.splitlines()])
    return {"checkout": top, "head": head, "matches_graph": (head == graph_commit or not changed) and not uncommitted,
            "changed_since": changed, "uncommitted": uncommitted}

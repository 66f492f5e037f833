"""The one place that asks ``git`` about a checkout (read-only: ``rev-parse``,
``check-ignore``, ``diff``, ``status``; never a command that modifies anything).

``git_head`` is what every face means by "the commit of this folder": the indexer stores
it on the Repo node, MCP ``freshness`` and the CLI compare it with the graph's.
"""

from __future__ import annotations

import subprocess
from pathlib import Path


def run_git(cwd: Path | str, *args: str, timeout: float = 10) -> str | None:
    """stdout of ``git -C cwd ARGS`` without the trailing newline, or None when git is
    missing, times out or exits non-zero."""
    try:
        out = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.rstrip() if out.returncode == 0 else None


def ignored_by_enclosing_repo(root: Path | str, timeout: float = 10) -> bool:
    """True when the repository that contains ``root`` ignores it (an installed Python
    inside a pyenv clone): such a folder is not that repository's content or commit."""
    try:
        out = subprocess.run(["git", "-C", str(root), "check-ignore", "-q", "."], capture_output=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0


def git_head(root: Path | str | None) -> str | None:
    """The commit checked out at ``root`` (worktrees resolve to their repository), or None
    for a missing folder, a folder outside git, or one its enclosing repository ignores."""
    if not root or not Path(root).is_dir():
        return None
    head = run_git(root, "rev-parse", "HEAD")
    return head if head and not ignored_by_enclosing_repo(root) else None

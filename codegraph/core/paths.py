"""Containment: every path read from JSONL, config or the graph stays inside its repo root.

docs/hardening.md, "Containment". Two checks, both needed: :func:`safe_relpath` is
lexical (no absolute path, no ``..`` part, no NUL, text only) and runs where a path is
read; :func:`contained` resolves the path on disk (symlinks included) and refuses one
that lands outside the resolved root.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath, PureWindowsPath


def safe_relpath(rel: object) -> str | None:
    """Why ``rel`` is not a safe repo-relative path, or None when it is."""
    if not isinstance(rel, str) or not rel:
        return "path is not a non-empty string"
    if "\x00" in rel:
        return "path contains a NUL byte"
    if PurePosixPath(rel).is_absolute() or PureWindowsPath(rel).is_absolute() or PureWindowsPath(rel).drive:
        return f"path {rel[:200]!r} is absolute, outside the repo root"
    if ".." in PurePosixPath(rel.replace("\\", "/")).parts:
        return f"path {rel[:200]!r} climbs out of the repo root"
    return None


def contained(root: Path, rel: str) -> Path | None:
    """``root / rel`` resolved (symlinks followed) when it stays inside the resolved
    ``root``; None when it escapes, is lexically unsafe, or cannot be resolved (a loop)."""
    if safe_relpath(rel) is not None:
        return None
    try:
        base = root.resolve()
        path = (base / rel).resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    return path if path == base or path.is_relative_to(base) else None

"""The project config file (TOML): which repositories ``codegraph refresh`` keeps current.

Example ``codegraph.toml``::

    [[repos]]
    name = "shop"
    path = "../shop"                 # a working checkout: read, never modified
    exclude = ["test/", "*.min.js"]

    [[repos]]
    name = "payments"
    path = "~/.codegraph/mirrors/payments"
    mirror = "https://git.example.com/payments.git"   # only mirrors are fetched / reset
    branch = "main"
    pages = { "web/src/screens/Orders.tsx" = "/orders" }

Found at ``--config``, else ``$CODEGRAPH_CONFIG``, else ``./codegraph.toml``.
"""

from __future__ import annotations

import os
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from codegraph.core.errors import BadInput
from codegraph.core.paths import safe_relpath
from codegraph.core.workspace import config_path  # noqa: F401  (defined there: no pydantic import)


@dataclass(slots=True)
class RepoConfig:
    name: str
    path: Path
    mirror: str | None = None
    branch: str | None = None
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    pages: dict[str, str] = field(default_factory=dict)
    base_urls: list[str] = field(default_factory=list)  # how peers reach its HTTP server (core.workspace)


class RepoEntry(BaseModel):
    """One ``[[repos]]`` table, validated strictly: every field has its exact TOML type
    (``exclude = "test/"`` is an error, not a pattern list of characters) and an unknown
    key is an error (a typo would otherwise be ignored). Same fields as RepoConfig."""

    model_config = ConfigDict(strict=True, extra="forbid")

    name: str = Field(min_length=1)
    path: str = Field(min_length=1)
    mirror: str | None = None
    branch: str | None = None
    include: list[str] = []
    exclude: list[str] = []
    pages: dict[str, str] = {}
    base_urls: list[str] = []

    @field_validator("pages")
    @classmethod
    def _pages_inside_repo(cls, v: dict[str, str]) -> dict[str, str]:
        for rel in v:
            bad = safe_relpath(rel)
            if bad is not None:
                raise ValueError(f"page file {bad}")
        return v


class ProjectConfig(BaseModel):
    """The whole file: ``repos`` validated here; other tables (``[[workspaces]]``) are
    validated by their own readers."""

    model_config = ConfigDict(extra="allow")

    repos: list[RepoEntry] = []


def config_errors(e: ValidationError, path: Path) -> list[str]:
    """One readable line per error: ``<file>: repos[1].exclude: <message> (got <value>)``."""
    out = []
    for er in e.errors():
        loc = "".join(f"[{x + 1}]" if isinstance(x, int) else f".{x}" for x in er.get("loc", ())).lstrip(".")
        got = er.get("input")
        shown = repr(got)[:80] if not isinstance(got, dict | list) or len(repr(got)) <= 80 else type(got).__name__
        out.append(f"{path}: {loc or 'file'}: {er.get('msg', 'invalid')} (got {shown})")
    return out


def load_registry(path: Path) -> list[RepoConfig]:
    """Parse and validate the config. Raises BadInput naming the file and every problem,
    one line each."""
    if not path.is_file():
        raise BadInput(f"no project config at {path}: create it with [[repos]] entries (name, path)")
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise BadInput(f"{path}: not valid TOML: {e}") from None
    except OSError as e:
        raise BadInput(f"{path}: cannot read it: {e.strerror or e}") from None
    try:
        cfg = ProjectConfig.model_validate(data)
    except ValidationError as e:
        raise BadInput("\n".join(config_errors(e, path))) from None
    out: list[RepoConfig] = []
    seen: set[str] = set()
    for r in cfg.repos:
        if r.name in seen:
            raise BadInput(f"{path}: repo name {r.name!r} is listed twice")
        seen.add(r.name)
        p = Path(os.path.expanduser(r.path))
        if not p.is_absolute():
            p = (path.parent / p).resolve()
        out.append(RepoConfig(
            name=r.name, path=p, mirror=r.mirror, branch=r.branch, include=list(r.include),
            exclude=list(r.exclude), pages=dict(r.pages), base_urls=list(r.base_urls)))
    return out


def sync_mirror(cfg: RepoConfig) -> str:
    """Clone or fetch+reset a configured mirror; returns a one-line report. Only called
    for entries with ``mirror`` set: a working checkout is never fetched or reset."""
    if not cfg.mirror:
        return "working checkout: left as it is"
    branch = cfg.branch or "main"
    if not (cfg.path / ".git").exists():
        cfg.path.parent.mkdir(parents=True, exist_ok=True)
        r = subprocess.run(["git", "clone", "--branch", branch, cfg.mirror, str(cfg.path)],
                           capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            raise BadInput(f"mirror {cfg.name}: clone failed: {r.stderr.strip().splitlines()[-1:]}")
        return f"cloned {cfg.mirror} ({branch})"
    for cmd in (["git", "-C", str(cfg.path), "fetch", "origin", branch],
                ["git", "-C", str(cfg.path), "reset", "--hard", f"origin/{branch}"]):
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            raise BadInput(f"mirror {cfg.name}: {' '.join(cmd[3:])} failed: {r.stderr.strip()[:200]}")
    return f"fetched and reset to origin/{branch}"

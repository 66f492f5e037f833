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

from codegraph.core.errors import BadInput


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


def config_path(explicit: Path | None = None) -> Path:
    if explicit is not None:
        return explicit
    env = os.environ.get("CODEGRAPH_CONFIG")
    return Path(env) if env else Path.cwd() / "codegraph.toml"


def load_registry(path: Path) -> list[RepoConfig]:
    """Parse the config. Raises BadInput naming the file and the problem."""
    if not path.is_file():
        raise BadInput(f"no project config at {path}: create it with [[repos]] entries (name, path)")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise BadInput(f"{path}: not valid TOML: {e}") from None
    out: list[RepoConfig] = []
    seen: set[str] = set()
    for i, r in enumerate(data.get("repos", []), 1):
        if not isinstance(r, dict) or not r.get("name") or not r.get("path"):
            raise BadInput(f"{path}: repos entry {i} needs at least name and path")
        if r["name"] in seen:
            raise BadInput(f"{path}: repo name {r['name']!r} is listed twice")
        seen.add(r["name"])
        p = Path(os.path.expanduser(str(r["path"])))
        if not p.is_absolute():
            p = (path.parent / p).resolve()
        out.append(RepoConfig(
            name=str(r["name"]), path=p, mirror=r.get("mirror"), branch=r.get("branch"),
            include=list(r.get("include", [])), exclude=list(r.get("exclude", [])), pages=dict(r.get("pages", {})),
            base_urls=list(r.get("base_urls", []))))
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

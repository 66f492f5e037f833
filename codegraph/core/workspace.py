"""Workspaces: groups of repositories whose code calls each other (docs/DESIGN.md#workspaces).

A workspace is declared in ``codegraph.toml``::

    [[repos]]
    name = "pay"
    path = "../pay"
    base_urls = ["https://pay.internal", "${PAY_URL}"]   # how other repos reach its HTTP server

    [[workspaces]]
    name = "shop-estate"
    repos = ["shop", "billing", "pay"]

A repository listed in no workspace is its own workspace (named like the repo), so
nothing is ever matched across repositories unless the config says they belong
together. A repository may sit in several workspaces; its peers are the union.

The cross-repo link pass (``codegraph.indexer.cross_repo``) saves the config it linked
with in the indexer state, so faces (CLI, MCP, dashboard) scope answers by the same
workspaces the graph was linked with even when run from another folder.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from codegraph.core.errors import BadInput

_TABLE = "CREATE TABLE IF NOT EXISTS workspace_config (key TEXT PRIMARY KEY, config TEXT NOT NULL)"


@dataclass(slots=True)
class Workspace:
    """``name`` and the repository names it groups (order as configured)."""

    name: str
    repos: list[str]


@dataclass(slots=True)
class WorkspaceConfig:
    """Every declared workspace plus each repo's ``base_urls`` (repo -> list of URLs or
    ``${VAR}`` names by which other repos reach its HTTP server)."""

    workspaces: list[Workspace] = field(default_factory=list)
    base_urls: dict[str, list[str]] = field(default_factory=dict)

    # -- queries ---------------------------------------------------------------
    def names(self) -> list[str]:
        return [w.name for w in self.workspaces]

    def get(self, name: str) -> Workspace | None:
        return next((w for w in self.workspaces if w.name == name), None)

    def of_repo(self, repo: str) -> list[Workspace]:
        """The workspaces ``repo`` belongs to; its own one-repo workspace when none."""
        found = [w for w in self.workspaces if repo in w.repos]
        return found or [Workspace(repo, [repo])]

    def peers(self, repo: str) -> list[str]:
        """Other repositories sharing a workspace with ``repo`` (sorted)."""
        return sorted({r for w in self.of_repo(repo) for r in w.repos} - {repo})

    def repos_of(self, name: str, known: list[str] | None = None) -> list[str]:
        """Repos of the workspace ``name``; a repo name in ``known`` that is in no
        workspace stands for itself. Raises BadInput naming the known workspaces."""
        ws = self.get(name)
        if ws is not None:
            return list(ws.repos)
        if known is not None and name in known and not [w for w in self.workspaces if name in w.repos]:
            return [name]
        have = ", ".join(self.names()) or "none declared (add [[workspaces]] to codegraph.toml)"
        raise BadInput(f"no workspace named {name!r} (known: {have})")

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @staticmethod
    def from_json(text: str) -> WorkspaceConfig:
        d = json.loads(text)
        return WorkspaceConfig([Workspace(w["name"], list(w["repos"])) for w in d.get("workspaces", [])],
                               {k: list(v) for k, v in d.get("base_urls", {}).items()})


def parse_workspaces(data: dict[str, Any], where: str) -> WorkspaceConfig:
    """Workspaces and base URLs from a parsed codegraph.toml. Raises BadInput (one line)
    for a malformed entry: a workspace without name or repos, a name given twice, a
    workspace naming a repo that is not under [[repos]], base_urls that are not strings."""
    repos = {str(r.get("name")): r for r in data.get("repos", []) if isinstance(r, dict) and r.get("name")}
    cfg = WorkspaceConfig()
    for name, r in repos.items():
        urls = r.get("base_urls", [])
        if isinstance(urls, str):
            urls = [urls]
        if not isinstance(urls, list) or not all(isinstance(u, str) and u.strip() for u in urls):
            raise BadInput(f"{where}: repo {name!r}: base_urls must be a list of URLs or ${{VAR}} names")
        if urls:
            cfg.base_urls[name] = [u.strip() for u in urls]
    seen: set[str] = set()
    for i, w in enumerate(data.get("workspaces", []), 1):
        if not isinstance(w, dict) or not w.get("name") or not isinstance(w.get("repos"), list) or not w["repos"]:
            raise BadInput(f"{where}: workspaces entry {i} needs a name and a non-empty repos list")
        name = str(w["name"])
        if name in seen:
            raise BadInput(f"{where}: workspace {name!r} is declared twice")
        seen.add(name)
        members = [str(r) for r in w["repos"]]
        unknown = [r for r in members if r not in repos]
        if unknown and repos:
            raise BadInput(f"{where}: workspace {name!r} names repos not listed under [[repos]]: {', '.join(unknown)}")
        cfg.workspaces.append(Workspace(name, list(dict.fromkeys(members))))
    return cfg


def config_path(explicit: Path | None = None) -> Path:
    """The project config: ``explicit``, else ``$CODEGRAPH_CONFIG``, else ./codegraph.toml."""
    if explicit is not None:
        return explicit
    env = os.environ.get("CODEGRAPH_CONFIG")
    return Path(env) if env else Path.cwd() / "codegraph.toml"


def load_config_file(path: Path) -> WorkspaceConfig:
    """Workspaces of a codegraph.toml; an empty config when the file does not exist."""
    if not path.is_file():
        return WorkspaceConfig()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise BadInput(f"{path}: not valid TOML: {e}") from None
    return parse_workspaces(data, str(path))


def save_linked(state_db: Path, cfg: WorkspaceConfig) -> None:
    """Remember the config the cross-repo link pass used (see module doc)."""
    state_db.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(state_db, timeout=60) as c:
        c.execute(_TABLE)
        c.execute("INSERT OR REPLACE INTO workspace_config VALUES ('linked', ?)", (cfg.to_json(),))


def load_linked(state_db: Path) -> WorkspaceConfig | None:
    """The config the last cross-repo link pass used (``save_linked``), None when none did.
    Read-only: after a full index the state's WAL holds ~30 MB nobody synced yet, and any
    write here (even creating the empty table) would commit with a sync of all of it
    (~0.5 s on Django), on the way out of every first index."""
    if not state_db.is_file():
        return None
    c = sqlite3.connect(f"{state_db.resolve().as_uri()}?mode=ro", uri=True, timeout=60)
    try:
        row = c.execute("SELECT config FROM workspace_config WHERE key='linked'").fetchone()
    except sqlite3.OperationalError as e:
        if "no such table" in str(e):
            return None  # nothing was ever linked
        raise
    finally:
        c.close()
    return WorkspaceConfig.from_json(row[0]) if row else None


def current_config(state_db: Path, config_file: Path | None = None) -> WorkspaceConfig:
    """The workspaces faces scope by: the ones the graph was last linked with, else the
    project config file (``config_file`` or ./codegraph.toml / $CODEGRAPH_CONFIG)."""
    linked = load_linked(state_db)
    if linked is not None and linked.workspaces:
        return linked
    return load_config_file(config_path(config_file))  # this module's: the registry's import costs pydantic


def scope_repos(state_db: Path, repo: str | None, workspace: str | None, known: list[str]) -> list[str] | None:
    """The repositories a query covers: ``[repo]``, the workspace's repos, or None (all).
    Raises BadInput when both are given or the workspace is unknown."""
    if repo and workspace:
        raise BadInput("give either a repo or a workspace, not both")
    if repo:
        return [repo]
    if workspace:
        return current_config(state_db).repos_of(workspace, known)
    return None


__all__ = ["Workspace", "WorkspaceConfig", "config_path", "current_config", "load_config_file", "load_linked", "parse_workspaces",
           "save_linked", "scope_repos"]

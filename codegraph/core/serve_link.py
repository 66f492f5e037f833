"""The CLI asking a running ``codegraph serve`` (docs/DESIGN.md#search).

A server announces itself in ``CODEGRAPH_HOME/serve.json`` (``{"url", "pid", "stores"}``,
mode 0600) while it runs; ``stores`` names the graph and search backends and the home it
serves, so a CLI with other stores never asks it. ``Settings.serve_url``
(``CODEGRAPH_SERVE_URL``) names a server explicitly, or ``off`` turns this off.

``get_json`` answers None on anything short of a 200 JSON answer (no server, a dead pid,
refused connection, timeout, another store, an error status): the caller then answers
in-process, silently. Plain ``urllib`` (no HTTP client import on the CLI's start-up path);
the bearer token goes in the header when the settings have one, and is never logged.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from codegraph.core.models import stable_hash
from codegraph.core.settings import Settings

ANNOUNCE = "serve.json"


def stores_key(settings: Settings) -> str:
    """Which stores a process works on (home, graph and search backends)."""
    return stable_hash(str(Path(settings.home).expanduser().resolve()), settings.graph, settings.search)


def announce(settings: Settings, host: str, port: int) -> Path:
    """Write the announcement file for a server on ``host:port``; returns its path."""
    path = Path(settings.home) / ANNOUNCE
    path.parent.mkdir(parents=True, exist_ok=True)
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    if ":" in shown:
        shown = f"[{shown}]"
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump({"url": f"http://{shown}:{port}", "pid": os.getpid(), "stores": stores_key(settings)}, f)
    tmp.replace(path)
    return path


def withdraw(path: Path) -> None:
    """Remove the announcement if this process wrote it."""
    try:
        if json.loads(path.read_text()).get("pid") == os.getpid():
            path.unlink()
    except (OSError, ValueError):
        pass


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def server_url(settings: Settings) -> str | None:
    """The server to ask, or None."""
    if settings.serve_url:
        return None if settings.serve_url.lower() == "off" else settings.serve_url.rstrip("/")
    try:
        info = json.loads((Path(settings.home) / ANNOUNCE).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(info, dict) or info.get("stores") != stores_key(settings) or not _alive(info.get("pid")):
        return None
    url = info.get("url")
    return url if isinstance(url, str) and url.startswith("http://") else None


def get_json(settings: Settings, path: str, params: list[tuple[str, Any]], timeout: float = 30.0) -> Any | None:
    """GET ``path`` (e.g. ``/api/search``) on the running server with ``params``; the JSON
    answer, or None (see module doc)."""
    base = server_url(settings)
    if base is None:
        return None
    query = urllib.parse.urlencode([(k, v) for k, v in params if v is not None])
    req = urllib.request.Request(f"{base}{path}?{query}", headers={"Accept": "application/json"})
    token = settings.api_token.get_secret_value()
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:  # noqa: S310 (http URL checked above)
            if r.status != 200:
                return None
            return json.loads(r.read())
    except (urllib.error.URLError, OSError, ValueError):
        return None


__all__ = ["announce", "get_json", "server_url", "stores_key", "withdraw"]

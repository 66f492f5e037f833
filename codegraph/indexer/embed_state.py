"""The embedding phase's own progress, kept in ``CODEGRAPH_HOME/embed-state.json`` so that
another process (the dashboard's Health and Overview pages) can show it while a
background ``codegraph embed`` runs.

The file holds one JSON object: ``repo`` (None: all), ``pid``, ``status`` (running |
finished | failed), ``done`` / ``total`` chunks (total = missing at the start),
``chunks_per_s``, ``started_at`` / ``updated_at`` (ISO-8601 UTC). It is replaced
atomically (write to a temporary file, rename), at most once a second while running.
``read`` adds ``eta_s`` and turns a "running" state whose process is gone into
"interrupted" (a killed run; the next ``codegraph embed`` resumes it).
"""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

FILE = "embed-state.json"
EVERY_S = 1.0  # at most one write a second while running


def state_path(home: Path) -> Path:
    return Path(home) / FILE


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class EmbedStateWriter:
    """Writes the state of one embedding run: ``start``, ``update`` per window, ``finish``."""

    def __init__(self, home: Path, repo: str | None) -> None:
        self.path = state_path(home)
        self.state: dict[str, Any] = {"repo": repo, "pid": os.getpid(), "status": "running", "done": 0, "total": 0,
                                      "chunks_per_s": 0.0, "started_at": _now(), "updated_at": _now()}
        self._last = 0.0

    def _write(self) -> None:
        self.state["updated_at"] = _now()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(f".{FILE}.{os.getpid()}")
            tmp.write_text(json.dumps(self.state), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError:  # progress is a courtesy: never fail the embedding for it
            pass

    def update(self, p: dict[str, Any], force: bool = False) -> None:
        self.state.update(done=int(p.get("done", 0)), total=int(p.get("total", 0)),
                          chunks_per_s=round(float(p.get("chunks_per_s", 0.0)), 2))
        if force or time.monotonic() - self._last >= EVERY_S:
            self._last = time.monotonic()
            self._write()

    def finish(self, status: str = "finished") -> None:
        self.state["status"] = status
        self._write()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read(home: Path) -> dict[str, Any] | None:
    """The last embedding run's state with ``eta_s`` (None when unknown), or None when
    no run wrote one (or the file is unreadable)."""
    try:
        s = json.loads(state_path(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(s, dict):
        return None
    if s.get("status") == "running" and not _alive(int(s.get("pid") or 0)):
        s["status"] = "interrupted"
    rate, left = float(s.get("chunks_per_s") or 0), max(0, int(s.get("total") or 0) - int(s.get("done") or 0))
    s["eta_s"] = round(left / rate) if rate > 0 and s["status"] == "running" else None
    return s


def describe(s: dict[str, Any]) -> str:
    """One line: 'embedding: 1,234 / 21,780 chunks (5.7 %), 45.2 chunks/s, about 8 min left'."""
    done, total = int(s.get("done") or 0), int(s.get("total") or 0)
    pct = f" ({100 * done / total:.1f} %)" if total else ""
    eta = s.get("eta_s")
    left = "" if eta is None else f", about {eta // 60} min {eta % 60} s left" if eta >= 60 else f", about {eta} s left"
    return (f"embedding {s.get('status')}: {done:,} / {total:,} chunks{pct}, "
            f"{float(s.get('chunks_per_s') or 0):.1f} chunks/s{left}")

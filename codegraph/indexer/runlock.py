"""One run per repo at a time (docs/hardening.md, "Completeness"): two ``index`` runs of
one repo name from two checkouts at once would leave a graph matching neither.

Embedded stores: a ``filelock`` file next to the graph database. Neo4j: a lock node
(``CodegraphRunLock``, unique per repo name, see ``Neo4jGraphStore.acquire_run_lock``),
so runs on other machines see it too; a lock left by a dead process on this host, or
older than ``STALE_HOURS``, is taken over. A second run waits up to ``wait`` seconds,
then refuses with :class:`RepoBusy` (one line naming the holder).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from codegraph.core.completeness import run_owner
from codegraph.core.errors import BadInput

STALE_HOURS = 12.0
POLL_SECONDS = 1.0


class RepoBusy(BadInput):
    """Another run of the same repo holds its lock."""


def _lock_file(graph: Any, repo: str) -> Path:
    digest = hashlib.sha1(repo.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return Path(graph.path).parent / "locks" / f"{digest}.lock"


def _busy(repo: str, holder: str | None, waited: float) -> RepoBusy:
    who = f" by {holder}" if holder else ""
    return RepoBusy(f"repo {repo} is being indexed or loaded{who}; waited {waited:.0f}s; retry when it ends "
                    "(or pass --wait SECONDS)")


@contextmanager
def repo_lock(graph: Any, repo: str, wait: float = 0.0) -> Iterator[None]:
    """Hold ``repo``'s run lock for the block. Raises RepoBusy after ``wait`` seconds."""
    if getattr(graph, "backend", "") == "neo4j":
        owner = f"{run_owner()}:{os.urandom(4).hex()}"
        deadline = time.monotonic() + max(wait, 0.0)
        while True:
            holder = graph.acquire_run_lock(repo, owner, STALE_HOURS)
            if holder is None:
                break
            if time.monotonic() >= deadline:
                raise _busy(repo, holder, wait)
            time.sleep(POLL_SECONDS)
        try:
            yield
        finally:
            graph.release_run_lock(repo, owner)
        return
    path = _lock_file(graph, repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(path))
    try:
        lock.acquire(timeout=max(wait, 0.0))
    except Timeout:
        holder = path.with_suffix(".owner").read_text(encoding="utf-8", errors="replace").strip() \
            if path.with_suffix(".owner").is_file() else None
        raise _busy(repo, holder, wait) from None
    try:
        path.with_suffix(".owner").write_text(f"{run_owner()} since {datetime.now(UTC).isoformat(timespec='seconds')}",
                                              encoding="utf-8")
        yield
    finally:
        lock.release()

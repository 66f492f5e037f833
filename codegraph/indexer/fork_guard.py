"""May the run fork now? A child made by ``fork`` copies every mutex of the process as it
is at that instant, and SQLite's own process-wide mutexes are not reset in the child: a
fork while another thread is inside SQLite (the search writes of a run the helper thread
does in process) can leave the child waiting forever on its first ``sqlite3.connect``.
The checks that decide whether a run forks (``search_writes.fork_ok``,
``state_writes.save_forked``, ``resolve_split.worth_it``) ask ``quiet()`` first; the helper thread's
in-process store writes run inside ``store_thread`` (marked busy before the thread starts,
so there is no window between the check and the fork)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_busy = 0


def quiet() -> bool:
    """True when no helper thread of this process is writing a store (a fork is safe)."""
    with _lock:
        return _busy == 0


def store_thread(fn: Callable[..., T]) -> Callable[..., T]:
    """``fn`` for a helper thread's store writes, marked busy from now (the caller's thread,
    before the thread is started) until ``fn`` returns or raises in the helper thread."""
    global _busy
    with _lock:
        _busy += 1

    def run(*args: Any, **kwargs: Any) -> T:
        global _busy
        try:
            return fn(*args, **kwargs)
        finally:
            with _lock:
                _busy -= 1

    return run


__all__ = ["quiet", "store_thread"]

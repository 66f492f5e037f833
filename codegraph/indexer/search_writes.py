"""A full load's search writes in a forked child process (docs/DESIGN.md#search).

The pipeline writes a run's chunks beside the graph load and resolution. On a helper
thread those writes share the GIL with the main thread: each row the search thread binds
waits for the resolver's Python to let go, and the resolver loses the core as often (on
the standard library the graph load took about twice as long with the thread beside it).
A child made by ``fork`` inherits the chunks without pickling them, writes through its
own SQLite connection and sends back progress ticks and its result through a pipe.

Used only for an embedded search index, on a platform with ``fork``, for a load of more
than one batch (a one-file refresh stays on the thread: a fork costs more than its
writes), and only when no other thread of this process has the file open (SQLite's rule:
a connection must not cross a fork, and the child must not find the file open in its
process). The child dies with the parent (``codegraph.indexer.workers``); a child that
raised re-raises its exception here, one that vanished raises StoreUnavailable.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from codegraph.core.errors import StoreUnavailable
from codegraph.indexer import fork_guard

Progress = Callable[[str, int, int], None]
WriteFn = Callable[[Any, Progress], tuple[int, float]]  # (search index, tick) -> (chunks written, seconds)


def fork_ok(search: Any, chunks: int, batch: int) -> bool:
    """May ``search``'s writes of ``chunks`` chunks run in a forked child? (Module doc;
    closes this thread's connection to the file when yes: it reopens on next use.)"""
    if chunks <= batch or "fork" not in multiprocessing.get_all_start_methods() or not fork_guard.quiet():
        return False
    release = getattr(search, "release_for_fork", None)
    return bool(release is not None and release())


def _child(search_cls: type, path: str, kind: str, write: WriteFn, conn: Connection, parent: int,
           main: bool) -> None:
    from codegraph.indexer.workers import die_with_parent

    die_with_parent(parent, main)
    try:
        index = search_cls(path, kind)  # its own connection (none was open across the fork)
        n, seconds = write(index, lambda phase, done, total: conn.send(("tick", phase, done, total)))
        conn.send(("done", n, seconds))
    except BaseException as e:  # every failure goes back to the run
        try:
            conn.send(("error", e))
        except Exception:  # an exception that does not pickle
            conn.send(("error", StoreUnavailable(f"search writes failed: {type(e).__name__}: {e}")))
    finally:
        conn.close()


def start_forked(search: Any, write: WriteFn) -> tuple[Any, Connection]:
    """Fork the child now (from the thread that owns the run); (process, receiving end)."""
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    main = threading.current_thread() is threading.main_thread()
    proc = ctx.Process(target=_child, args=(type(search), str(search.path), search.kind, write, send, os.getpid(),
                                            main), name="codegraph-search-writes", daemon=True)
    proc.start()
    send.close()  # the child holds the sending end: EOF here when it ends
    return proc, recv


def wait_forked(proc: Any, recv: Connection, tick: Progress) -> tuple[int, float]:
    """Forward the child's ticks to ``tick`` until its result; raise what it raised."""
    result: tuple[int, float] | None = None
    error: BaseException | None = None
    try:
        while True:
            try:
                msg = recv.recv()
            except EOFError:
                break
            if msg[0] == "tick":
                tick(msg[1], msg[2], msg[3])
            elif msg[0] == "done":
                result = (msg[1], msg[2])
            else:
                error = msg[1]
    finally:
        recv.close()
        proc.join()
    if error is not None:
        raise error
    if result is None:
        raise StoreUnavailable(f"the search writes process ended without a result (exit code {proc.exitcode})")
    return result

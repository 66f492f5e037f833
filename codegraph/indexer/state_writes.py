"""A full run's state save in a forked child, beside the edge writes (docs/DESIGN.md#refresh).

After resolution the main process writes the resolved edges into the graph, waits for
the search writes, then saves the indexer state (``StateStore.save``: every changed
file's extraction encoded, the resolution's dependency keys per file and in shards;
~0.45 CPU s on Django's 901 files, about as long as the edge writes beside it). The save depends on nothing the edge writes do, only on when it may
commit: state is committed after the graph and search writes succeeded. So a child made
by ``fork`` right after resolution inherits what the save needs (no pickling), opens its
own connection to the state file, writes every row inside one transaction, and then
waits: the run sends ``commit`` after the graph's commit; a run that raises, or dies, ends
the pipe and the child rolls back. The second core does the save while the first writes
the edges. The child's commit leaves the WAL checkpoint out (the run hands it to
``codegraph.core.wal_checkpoint`` with the graph's); it answers ``done`` at the commit and
ends (the run waits for the child's end last, ``ForkedSave.close``).

Used only for a save of many files (a refresh of a few files stays in the process: a
fork costs more than its rows), on a platform with ``fork``, and only when no other
``StateStore`` of this process has the file open (SQLite: a connection must not cross a
fork; ``StateStore.release_for_fork``). The child dies with the parent
(``codegraph.indexer.workers``); an error it raised re-raises in the run, a child that
vanished raises StoreUnavailable.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from codegraph.core.errors import StoreUnavailable
from codegraph.indexer import fork_guard
from codegraph.indexer.state import StateStore

FORK_AT_LEAST = 200  # files saved (changed + resolved); fewer, and the save stays in the process


_KEPT_OPEN: list[StateStore] = []  # in the child: the store whose connection is never closed (_child)


class _Abort(Exception):
    """The run ended without asking for the commit: the child's transaction rolls back."""


def _child(path: str, args: tuple[Any, ...], kwargs: dict[str, Any], conn: Connection, theirs: Connection,
           parent: int, main: bool, prepare: Callable[[], None] | None) -> None:
    from codegraph.indexer.workers import die_with_parent

    theirs.close()  # the run's end, inherited: only the run may hold it, or its close is no EOF here
    die_with_parent(parent, main)

    def ready() -> None:  # inside the save's transaction, every row written
        conn.send(("ready",))
        try:
            msg = conn.recv()
        except EOFError:
            msg = None
        if msg != "commit":
            raise _Abort

    try:
        if prepare is not None:
            prepare()
        store = StateStore(Path(path))  # its own connection (none was open across the fork)
        # The commit only appends to the WAL (~30 MB on the stdlib): the run hands copying it
        # into the file to codegraph.core.wal_checkpoint, with the graph's. The connection is
        # left open when this process ends: closing the file's last connection would copy it
        # here, and the run waits for this process's end (ForkedSave.close).
        store.conn.execute("PRAGMA wal_autocheckpoint=0")
        store.save(*args, before_commit=ready, **kwargs)
        _KEPT_OPEN.append(store)  # not freed (and so closed) when this function returns
        conn.send(("done",))
    except _Abort:
        pass
    except BaseException as e:  # every other failure goes back to the run
        try:
            conn.send(("error", e))
        except Exception:  # an exception that does not pickle, or the run is gone
            with contextlib.suppress(Exception):
                conn.send(("error", StoreUnavailable(f"saving the indexer state failed: {type(e).__name__}: {e}")))
    finally:
        conn.close()


class ForkedSave:
    """``StateStore.save(*args, **kwargs)`` running in a child; ``commit()`` where the run
    would have called it, ``close()`` always (rolls back when not committed). ``prepare``:
    called in the child first, work on the save's arguments the run leaves to it (the
    child has copies of them as they were at the fork)."""

    def __init__(self, state: StateStore, *args: Any, prepare: Callable[[], None] | None = None,
                 **kwargs: Any) -> None:
        self.state = state
        ctx = multiprocessing.get_context("fork")
        self.conn, child_end = ctx.Pipe(duplex=True)
        main = threading.current_thread() is threading.main_thread()
        self.proc = ctx.Process(target=_child,
                                args=(state.path, args, kwargs, child_end, self.conn, os.getpid(), main, prepare),
                                name="codegraph-state-save", daemon=True)
        self.proc.start()
        child_end.close()  # EOF on our end when the child ends
        self.done = False

    def _recv(self) -> tuple[Any, ...]:
        try:
            msg = self.conn.recv()
        except EOFError:
            raise StoreUnavailable(
                f"the state save process ended without a result (exit code {self._join()})") from None
        if msg[0] == "error":
            self._join()
            raise msg[1]
        return msg  # type: ignore[no-any-return]

    def _join(self) -> int | None:
        self.conn.close()
        self.proc.join()
        self.state.reopen()
        return self.proc.exitcode

    def commit(self) -> None:
        """Wait until every row is written, commit them; the store's connection is open
        again on return (the child may not have ended yet)."""
        self._recv()  # ("ready",)
        self.conn.send("commit")
        self._recv()  # ("done",)
        self.done = True
        self.state.reopen()

    def close(self) -> None:
        """Wait for the child's end (before ``commit``, it rolls back). Once; later calls do
        nothing."""
        if not self.conn.closed:
            self._join()


def save_forked(state: StateStore, files: int) -> bool:
    """May a save of ``files`` files run in a forked child? (Module doc; closes the store's
    connection when yes: ``ForkedSave`` reopens it when the child has ended.) Not while a
    helper thread writes a store (``codegraph.indexer.fork_guard``)."""
    if files < FORK_AT_LEAST or "fork" not in multiprocessing.get_all_start_methods() or not fork_guard.quiet():
        return False
    return state.release_for_fork()


__all__ = ["FORK_AT_LEAST", "ForkedSave", "save_forked"]

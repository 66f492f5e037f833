"""SQLite WAL checkpoints: copying committed WAL frames into the database file.

A full index commits ~40-60 MB into the graph's WAL and ~30 MB into the state's (Django,
the standard library); copying them into the files is mostly fsync waits (about 0.5 s on a
disk that syncs ~90 MB/s), long after every row is committed and readable. ``start`` (before
the commits) and ``Checkpointer.go`` (after them), or ``detach`` at once, hand that copy to a
process of its own, so the run that committed returns without waiting for the disk;
``checkpoint`` is the copy itself, in whatever process calls it.

A checkpoint that fails or never runs loses nothing: the rows are committed in the WAL,
every reader sees them, and the next checkpoint (SQLite's autocheckpoint, the last
connection's close, or another run's) copies them. What it changes is durability against a
power cut: as with SQLite's ``synchronous=NORMAL`` commits, a cut before the copy reached the
disk can roll the last run back, which the next run detects and repeats
(docs/DESIGN.md#refresh).

This file only imports the standard library: ``start`` runs it as a script
(``python -I -S wal_checkpoint.py DB...``), which starts in ~20-50 ms, beside the commits.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger(__name__)
_detached: list[subprocess.Popen[bytes]] = []  # started by this process and maybe still running


def checkpoint(path: Path, *, create: bool = True) -> None:
    """Copy the committed WAL of the database at ``path`` into its file (a PASSIVE
    checkpoint: readers and writers go on) on a connection of its own; then, if nobody
    reads or writes (busy_timeout 0, no wait), truncate the WAL (TRUNCATE), so the last
    close does not delete tens of MB of file. ``create=False``: a file that is not there
    is left alone (sqlite3.OperationalError) instead of created empty. Raises
    sqlite3.Error as the PASSIVE checkpoint does."""
    c = _connect(path, create)
    try:
        _copy(c)
    finally:
        c.close()


def _connect(path: Path, create: bool) -> sqlite3.Connection:
    target = str(path) if create else f"{path.resolve().as_uri()}?mode=rw"
    return sqlite3.connect(target, uri=not create, timeout=60, isolation_level=None, check_same_thread=False)


def _copy(c: sqlite3.Connection) -> None:
    c.execute("PRAGMA wal_checkpoint(PASSIVE)")
    c.execute("PRAGMA busy_timeout=0")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()  # busy: (1, ..), the WAL as it was


class Checkpointer:
    """A checkpoint process started ahead (``start``): it opens its connections, says it
    is ready, and waits; ``go`` (once the runs that wrote the files committed) lets it copy
    the WALs, ``cancel`` ends it without a copy. Either is called once; later calls do
    nothing."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc

    def go(self) -> subprocess.Popen[bytes]:
        """Let the process copy the WALs; returns once it has every connection open, so a
        close in this process is never a file's last one (SQLite's last close checkpoints
        the whole WAL itself: ~0.5 s of fsync on Django's state file)."""
        self._send(b"go\n")
        return self.proc

    def cancel(self) -> None:
        self._send(b"")

    def _send(self, msg: bytes) -> None:
        stdin, stdout = self.proc.stdin, self.proc.stdout
        if stdin is None or stdin.closed or stdout is None:
            return
        with contextlib.suppress(OSError), stdin:  # it ended already: nothing to tell
            stdin.write(msg)
        with stdout:
            stdout.read(1)  # b"1": ready; b"": it ended before (nothing to open, or a failure)


def start(paths: Iterable[Path]) -> Checkpointer | None:
    """Start the checkpoint process of the databases at ``paths``: its own session, no
    terminal, stderr on /dev/null, stdin and stdout pipes to this process only until
    ``go``, so a caller reading this process's output sees its end at once. None when it
    could not start: the caller checkpoints as it would without it (``detach`` here; a
    run's graph in its commit, its state at a later checkpoint, which loses nothing)."""
    _detached[:] = [p for p in _detached if p.poll() is None]
    try:
        proc = subprocess.Popen([sys.executable, "-I", "-S", __file__, *map(str, paths)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True,
                                start_new_session=True)
    except OSError as e:
        log.debug("could not start the WAL checkpoint process: %s", e)
        return None
    _detached.append(proc)
    return Checkpointer(proc)


def detach(paths: Iterable[Path]) -> subprocess.Popen[bytes] | None:
    """Checkpoint each database of ``paths`` in a process of its own (``start``, then
    ``go``) that outlives this one if it must. Returns the process, or None when it could
    not start; the checkpoints then ran here, before the return."""
    todo = list(paths)
    ahead = start(todo)
    if ahead is not None:
        return ahead.go()
    for p in todo:
        try:
            checkpoint(p, create=False)
        except sqlite3.Error as err:
            log.debug("WAL checkpoint of %s failed: %s", p, err)
    return None


def wait_detached(timeout: float | None = None) -> None:
    """Wait for the checkpoint processes this process started (tests; a caller about to
    copy or remove the files). Raises subprocess.TimeoutExpired past ``timeout`` seconds."""
    for proc in list(_detached):
        proc.wait(timeout)
        _detached.remove(proc)


def _main(argv: list[str]) -> None:
    kept = []
    for p in argv:
        with contextlib.suppress(sqlite3.Error):  # loses nothing (module doc); nobody reads this output
            c = _connect(Path(p), create=False)
            c.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()  # opens the WAL and its shared memory
            kept.append(c)
    go = sys.stdin.buffer.readline() == b"go\n"  # EOF: the run did not commit (cancel, or it died)
    os.write(1, b"1")  # every connection open (Checkpointer.go)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)  # the pipes' ends closed: the caller's read is over
    for c in kept if go else ():
        with contextlib.suppress(sqlite3.Error):
            _copy(c)
    # Ended without closing: the close of a file's last connection deletes its WAL and shared
    # memory files, which a caller removing the folder meanwhile (rm -r) would see vanish.
    os._exit(0)


if __name__ == "__main__":
    _main(sys.argv[1:])


__all__ = ["Checkpointer", "checkpoint", "detach", "start", "wait_detached"]

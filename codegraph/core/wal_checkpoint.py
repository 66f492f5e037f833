"""SQLite WAL checkpoints: copying committed WAL frames into the database file.

A full index commits ~40-60 MB into the graph's WAL and ~30 MB into the state's (Django,
the standard library); copying them into the files is mostly fsync waits (about 0.5 s on a
disk that syncs ~90 MB/s), long after every row is committed and readable. ``detach`` hands
that copy to a process of its own, so the run that committed returns without waiting for
the disk; ``checkpoint`` is the copy itself, in whatever process calls it.

A checkpoint that fails or never runs loses nothing: the rows are committed in the WAL,
every reader sees them, and the next checkpoint (SQLite's autocheckpoint, the last
connection's close, or another run's) copies them. What it changes is durability against a
power cut: as with SQLite's ``synchronous=NORMAL`` commits, a cut before the copy reached the
disk can roll the last run back, which the next run detects and repeats
(docs/DESIGN.md#refresh).

This file only imports the standard library: ``detach`` runs it as a script
(``python -I -S wal_checkpoint.py DB...``), which starts in ~20 ms.
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


def detach(paths: Iterable[Path]) -> subprocess.Popen[bytes] | None:
    """Checkpoint each database of ``paths`` in a new process that outlives this one if it
    must (its own session, no terminal, stdin/stdout/stderr on /dev/null, so a caller
    reading this process's output sees its end at once). Returns the process, or None when
    it could not start; the checkpoints then run here, before the return."""
    todo = [str(p) for p in paths]
    _detached[:] = [p for p in _detached if p.poll() is None]
    try:
        proc = subprocess.Popen([sys.executable, "-I", "-S", __file__, *todo], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True,
                                start_new_session=True)
    except OSError as e:
        log.debug("could not start the WAL checkpoint process (%s): checkpointing here", e)
        for p in todo:
            try:
                checkpoint(Path(p), create=False)
            except sqlite3.Error as err:
                log.debug("WAL checkpoint of %s failed: %s", p, err)
        return None
    _detached.append(proc)
    return proc


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
            kept.append(c := _connect(Path(p), create=False))
            _copy(c)
    # Ended without closing: the close of a file's last connection deletes its WAL and shared
    # memory files, which a caller removing the folder meanwhile (rm -r) would see vanish.
    os._exit(0)


if __name__ == "__main__":
    _main(sys.argv[1:])


__all__ = ["checkpoint", "detach", "wait_detached"]

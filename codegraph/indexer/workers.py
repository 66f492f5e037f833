"""Extraction worker processes that die with their parent (docs/hardening.md,
"Completeness"): a ``kill -9`` of ``codegraph index`` must not leave workers parsing
for half an hour.

On Linux each worker asks the kernel for SIGKILL when its parent dies
(``prctl(PR_SET_PDEATHSIG)``, through ctypes); everywhere a daemon thread in the worker
also watches the parent pid and exits when it changes (the fallback, and the guard for a
parent that died before prctl ran).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

PR_SET_PDEATHSIG = 1
WATCH_SECONDS = 1.0


def _watch_parent(parent: int) -> None:
    while True:
        if os.getppid() != parent:
            os._exit(1)
        time.sleep(WATCH_SECONDS)


def die_with_parent(parent: int, use_prctl: bool = True) -> None:
    """Pool initializer: this worker ends when process ``parent`` ends. ``use_prctl`` only
    when the pool is made on the parent's main thread: the kernel signals on the death of
    the creating *thread*, and a server's request thread ends long before the process."""
    if use_prctl and sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the watch thread below still ends us
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="parent-watch").start()


# What warm_up extracts: a class, a method, calls, an import and an SQL literal, so the
# extractor, the adapters (sqlglot included), chunks and BM25 terms are all loaded.
_WARM_SOURCE = b'''"""Warm-up."""
import os


class Warm:
    """A class."""

    def run(self, path):
        return os.path.join(path, "x").cursor().execute("SELECT id FROM warm_up")
'''


def warm_up() -> None:
    """Import and build what a worker's first extraction needs (the Python extractor and
    its queries, the framework adapters and sqlglot, chunks and their terms: about 0.2 CPU
    seconds a worker) by extracting a small file in memory, nothing stored."""
    from codegraph.indexer.pipeline import extract_bytes

    extract_bytes("warm-up", "warm_up.py", "python", _WARM_SOURCE, True)


def _start(parent: int, use_prctl: bool, warm: bool) -> None:
    die_with_parent(parent, use_prctl)
    if warm:
        warm_up()


def worker_pool(n: int, warm: bool = False) -> ProcessPoolExecutor:
    """A process pool of ``n`` workers tied to this process's life. ``warm``: its workers
    start now and run ``warm_up`` (a pool started before the files to extract are known:
    the workers warm up while the main process walks the tree)."""
    main = threading.current_thread() is threading.main_thread()
    from concurrent.futures import ProcessPoolExecutor  # multiprocessing: only when files are extracted in workers

    pool = ProcessPoolExecutor(max_workers=n, initializer=_start, initargs=(os.getpid(), main, warm))
    if warm:
        pool.submit(int)  # with fork every worker starts on the first submit
    return pool

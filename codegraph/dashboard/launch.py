"""Run the Streamlit server as a child and pass stop signals on to it.

``codegraph dashboard`` used to wait on ``subprocess.call``: a SIGTERM stopped the CLI
but left its Streamlit child serving the port. ``run`` forwards SIGTERM / SIGINT to
the child, waits up to ``grace`` seconds for it to exit, then kills it, so the command
and the server are gone within about a second of the signal.
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Sequence
from types import FrameType

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def run(cmd: Sequence[str], grace: float = 1.0) -> int:
    """Run ``cmd``; returns its exit code, or 128 + the signal number when it was
    stopped by a forwarded signal (the shell convention)."""
    child = subprocess.Popen(list(cmd))
    got: list[int] = []

    def forward(signum: int, _frame: FrameType | None) -> None:
        got.append(signum)
        if child.poll() is None:
            child.send_signal(signum)

    previous = {s: signal.signal(s, forward) for s in STOP_SIGNALS}
    deadline: float | None = None
    try:
        while True:
            try:
                code = child.wait(timeout=0.1)
                break
            except subprocess.TimeoutExpired:
                if not got:
                    continue
                deadline = deadline or time.monotonic() + grace
                if time.monotonic() >= deadline:  # signalled and still running after the grace time
                    child.kill()
                    code = child.wait()
                    break
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
    return 128 + got[0] if got else code

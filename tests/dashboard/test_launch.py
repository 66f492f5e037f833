"""`codegraph dashboard` passes SIGTERM / SIGINT to its Streamlit child: the command
exits and the port is free again within 2 s of the signal (docs/DESIGN.md#faces)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.dashboard.shop import Indexed, dashboard_env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serving(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as r:
            return r.status == 200
    except OSError:
        return False


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_dashboard_stops_its_streamlit_child(shop: Indexed, tmp_path: Path, sig: signal.Signals) -> None:
    exe = shutil.which("codegraph", path=str(Path(sys.executable).parent))
    assert exe, "the codegraph console script is not installed (make install)"
    port = _free_port()
    env = {**os.environ, **dashboard_env(shop.home)}
    log = (tmp_path / "dash.log").open("wb")
    proc = subprocess.Popen([exe, "dashboard", "--port", str(port)], env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while not _serving(port):
            assert proc.poll() is None, (tmp_path / "dash.log").read_text(errors="replace")[-2000:]
            assert time.monotonic() < deadline, "the dashboard did not start"
            time.sleep(0.3)
        [child] = _children(proc.pid)
        proc.send_signal(sig)  # to the command only, as a service manager or a terminal does
        code = proc.wait(timeout=2)
        assert code == 128 + sig
        with pytest.raises(ProcessLookupError):
            os.kill(child, 0)
        assert not _serving(port)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()

"""The CLI's search asks a running ``codegraph serve`` over the same stores
(codegraph.core.serve_link): found through ``CODEGRAPH_HOME/serve.json``, same answer as
in-process, the server's access log shows the request; after the server stops, or with a
stale or foreign announcement, the CLI answers in-process without a word."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from codegraph.cli import app as cli_app
from codegraph.core.serve_link import ANNOUNCE, server_url, stores_key
from codegraph.core.settings import Settings, load_settings
from tests.api.test_rest import _env, _free_port, stable
from tests.golden_shop import index_golden

SERVED = "asked the running codegraph serve"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return index_golden(tmp_path_factory.mktemp("serve-link"))


def _search(s: Settings, *extra_env: tuple[str, str]) -> dict:
    r = CliRunner().invoke(cli_app, ["search", "save an order", "-k", "5", "--json"], env={**_env(s), **dict(extra_env)})
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _hits(res: dict) -> list:
    return stable(res["hits"])


def test_cli_search_uses_the_running_server_then_falls_back(indexed: Settings, tmp_path: Path) -> None:
    alone = _search(indexed, ("CODEGRAPH_SERVE_URL", "off"))
    assert alone["hits"] and all(st["name"] != SERVED for st in alone["steps"])
    port = _free_port()
    log = tmp_path / "serve.log"
    note = Path(indexed.home) / ANNOUNCE
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "codegraph", "serve", "--port", str(port)],
                                env={**os.environ, **_env(indexed)}, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.3)
        info = json.loads(note.read_text())
        assert info == {"url": f"http://127.0.0.1:{port}", "pid": proc.pid, "stores": stores_key(indexed)}
        assert stat.S_IMODE(note.stat().st_mode) == 0o600
        served = _search(indexed)
        assert [st["name"] for st in served["steps"]][-1] == SERVED
        assert _hits(served) == _hits(alone)
        assert "GET /api/search?q=save+an+order&k=5" in log.read_text()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert not note.exists()  # withdrawn when the server stopped
    after = _search(indexed)
    assert all(st["name"] != SERVED for st in after["steps"]) and _hits(after) == _hits(alone)


def test_stale_or_foreign_announcements_are_ignored(tmp_path: Path) -> None:
    s = load_settings(home=tmp_path, graph="embedded", search="embedded")
    note = tmp_path / ANNOUNCE
    assert server_url(s) is None  # no file
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    note.write_text(json.dumps({"url": "http://127.0.0.1:9", "pid": dead.pid, "stores": stores_key(s)}))
    assert server_url(s) is None  # the server's process is gone
    note.write_text(json.dumps({"url": "http://127.0.0.1:9", "pid": os.getpid(), "stores": "another home"}))
    assert server_url(s) is None  # it serves other stores
    note.write_text("{not json")
    assert server_url(s) is None
    note.write_text(json.dumps({"url": "http://127.0.0.1:9", "pid": os.getpid(), "stores": stores_key(s)}))
    assert server_url(s) == "http://127.0.0.1:9"
    # announced but nothing listens there: the CLI answers in-process, one JSON answer, no error
    r = CliRunner().invoke(cli_app, ["search", "anything", "--json"],
                           env={"CODEGRAPH_HOME": str(tmp_path), "CODEGRAPH_GRAPH": "embedded",
                                "CODEGRAPH_SEARCH": "embedded", "CODEGRAPH_EMBED_MODEL_PATH": "none"})
    assert r.exit_code == 0, r.output
    assert all(st["name"] != "asked the running codegraph serve" for st in json.loads(r.stdout)["steps"])
    off = load_settings(home=tmp_path, graph="embedded", search="embedded", serve_url="off")
    assert server_url(off) is None

"""Embedding progress from the embed phase's own state file (indexer.embed_state), shown
on Health and Overview while a background `codegraph embed` runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from streamlit.testing.v1 import AppTest

from codegraph.indexer import embed_state
from tests.dashboard.shop import Indexed


def test_state_file_round_trip_eta_and_interrupted(tmp_path: Path) -> None:
    w = embed_state.EmbedStateWriter(tmp_path, "shop")
    w.update({"done": 100, "total": 400, "chunks_per_s": 50.0}, force=True)
    s = embed_state.read(tmp_path)
    assert s is not None and (s["status"], s["done"], s["total"], s["eta_s"]) == ("running", 100, 400, 6)
    assert embed_state.describe(s) == "embedding running: 100 / 400 chunks (25.0 %), 50.0 chunks/s, about 6 s left"
    w.finish()
    assert embed_state.read(tmp_path)["status"] == "finished"
    # A running state whose process is gone was killed: the next `codegraph embed` resumes.
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    data = json.loads(embed_state.state_path(tmp_path).read_text()) | {"status": "running",
                                                                     "pid": int(dead.stdout)}
    embed_state.state_path(tmp_path).write_text(json.dumps(data))
    s = embed_state.read(tmp_path)
    assert s["status"] == "interrupted" and s["eta_s"] is None
    assert embed_state.read(tmp_path / "nowhere") is None


def test_health_and_overview_show_a_running_embedding(app: Callable[..., AppTest], shop: Indexed) -> None:
    w = embed_state.EmbedStateWriter(shop.home, None)
    w.state["pid"] = os.getpid()  # alive: this test process stands in for the background run
    w.update({"done": 1200, "total": 4800, "chunks_per_s": 40.0}, force=True)
    try:
        at = app("health.py")
        assert not at.exception, [e.value for e in at.exception]
        bars = [str(p.proto.text) for p in at.get("progress")]
        assert any(b.startswith("Embedding running: 1,200 / 4,800 chunks (25.0 %), 40.0 chunks/s, about 1 min 30 s")
                   for b in bars), bars
        assert not any("run `codegraph embed`" in c.value for c in at.caption)  # it is already running
        at = app()
        assert any("Embedding running: 1,200 / 4,800" in str(p.proto.text) for p in at.get("progress"))
    finally:
        embed_state.state_path(shop.home).unlink()

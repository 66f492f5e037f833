"""Metric direction (core.figures): a triager resolving stubs makes `codegraph baseline`
report progress and exit 0, the same reading the Baselines page gives; a real drop of
symbols still exits 1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from codegraph.core import triage
from codegraph.core.figures import direction, lower_is_better, regressions
from tests.triage.fixture import home_tree

CLI = [sys.executable, "-m", "codegraph"]


def _baseline(home: Path) -> tuple[int, dict]:
    env = {**os.environ, "CODEGRAPH_HOME": str(home), "CODEGRAPH_GRAPH": "embedded", "CODEGRAPH_SEARCH": "embedded",
           "CODEGRAPH_EMBED_MODEL_PATH": "none"}
    r = subprocess.run([*CLI, "baseline", "--repo", "app", "--threshold", "5", "--json"], env=env,
                       capture_output=True, text=True, timeout=120)
    assert "Traceback" not in r.stderr, r.stderr
    return r.returncode, json.loads(r.stdout)[0]


def test_direction_is_defined_once() -> None:
    assert lower_is_better("stubs") and lower_is_better("parse_errors") and direction("stubs") == "lower"
    assert not lower_is_better("symbols") and direction("edges.CALLS") == "higher"
    assert [d.key for d in regressions({"stubs": 10, "symbols": 10}, {"stubs": 1, "symbols": 1}, 5)] == ["symbols"]


def test_stubs_falling_is_progress_and_exits_0(tmp_path: Path) -> None:
    with home_tree(tmp_path) as (home, tree):
        graph = tree.graph
        tree.index()
        [sym] = [n for n in graph.find_nodes("app.store.save", ["Symbol"], "app", 5)
                 if n.props.get("qualified_name") == "app.store.save"]
        triage.resolve(graph, "app", "save", sym.uid, by="ana")
        tree.write("app/client.py", (tree.root / "app/client.py").read_text() + "\n# touched\n")
        tree.index()  # a run that changes the graph takes a snapshot
        code, rep = _baseline(home)
        assert code == 0, rep
        assert rep["drops"] == []
        improved = {d["key"]: d for d in rep["improved"]}
        assert improved["stubs"]["current"] < improved["stubs"]["baseline"]

        (tree.root / "app" / "audit.py").unlink()  # a real loss of symbols still fails
        tree.index()
        code, rep = _baseline(home)
        assert code == 1 and "symbols" in {d["key"] for d in rep["drops"]}

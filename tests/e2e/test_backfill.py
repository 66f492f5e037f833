"""`codegraph baseline backfill`: past commits indexed in a temporary worktree with the repo's
codegraph.toml filters, their counts recorded as snapshots at the commit time and their symbol
names kept so drops list what disappeared; the person's checkout is never touched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from codegraph.core.baselines import snapshots
from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.dashboard.baseline_data import timeline_drops
from codegraph.indexer.backfill import parse_span

CLI = [sys.executable, "-m", "codegraph"]


def _git(root: Path, *args: str, when: datetime | None = None) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    if when:
        env |= {"GIT_AUTHOR_DATE": when.isoformat(), "GIT_COMMITTER_DATE": when.isoformat()}
    return subprocess.run(["git", "-C", str(root), *args], env=env, capture_output=True, text=True,
                          check=True).stdout


def test_backfill_records_past_commits_without_touching_the_checkout(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    (root / "lib").mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    now = datetime.now(UTC)
    bodies = ["def a():\n    pass\n\ndef b():\n    a()\n\ndef c():\n    b()\n",  # 60 days ago: 3 functions
              "def a():\n    pass\n",  # 30 days ago: a drop to 1
              "def a():\n    pass\n\ndef b():\n    a()\n\ndef c():\n    b()\n\ndef d():\n    c()\n"]  # today: 4
    for days, body in zip((60, 30, 0), bodies, strict=True):
        (root / "lib" / "m.py").write_text(body)
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"{days} days ago", when=now - timedelta(days=days, minutes=5))
    head = _git(root, "rev-parse", "HEAD").strip()
    (root / "lib" / "wip.py").write_text("def wip():\n    pass\n")  # uncommitted work stays as it is
    env = {**os.environ, "CODEGRAPH_HOME": str(tmp_path / "home"), "CODEGRAPH_GRAPH": "embedded",
           "CODEGRAPH_SEARCH": "embedded", "CODEGRAPH_EMBED_MODEL_PATH": "none"}
    r = subprocess.run([*CLI, "index", str(root), "--repo", "lib", "--no-embed"], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([*CLI, "baseline", "backfill", "--repo", "lib", "--since", "90d", "--every", "1w", "--json"],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    [rep] = json.loads(r.stdout)
    pts = rep["points"]
    # One commit per week at most, oldest first; HEAD was counted by the index run itself (skipped).
    assert [p["status"] for p in pts][:2] == ["recorded", "recorded"] and pts[2]["status"].startswith("skipped")
    assert [(p["files"], p["symbols"]) for p in pts[:2]] == [(1, 4), (1, 2)]  # module + functions
    # The checkout: same HEAD, same branch, the uncommitted file still there, no worktree left behind.
    assert _git(root, "rev-parse", "HEAD").strip() == head
    assert _git(root, "status", "--porcelain").strip() == "?? lib/wip.py"
    assert len(_git(root, "worktree", "list").strip().splitlines()) == 1
    # Recorded at the commit times, before the index run's own snapshot; the drop 30 days ago is flagged.
    g = EmbeddedGraphStore(tmp_path / "home" / "graph.db")
    try:
        snaps = snapshots(g, "lib")
    finally:
        g.close()
    assert [s["source"] for s in snaps][:2] == ["backfill", "backfill"] and snaps[-1]["source"] == "index"
    drops = timeline_drops(snaps, 0, 5.0)
    assert any(d.run == 1 and d.key == "symbols" and d.kind == "previous" for d in drops)
    # A re-run records nothing twice.
    r = subprocess.run([*CLI, "baseline", "backfill", "--repo", "lib", "--json"], env=env, capture_output=True,
                       text=True, timeout=300)
    assert all(p["status"].startswith("skipped") for p in json.loads(r.stdout)[0]["points"])


def test_bad_spans_are_one_line() -> None:
    assert parse_span("90d") == timedelta(days=90) and parse_span("1w") == timedelta(weeks=1)
    import pytest

    from codegraph.core.errors import BadInput

    with pytest.raises(BadInput, match="not a time span: '9x'"):
        parse_span("9x")


def test_backfill_applies_the_config_filters_and_lists_what_disappeared(tmp_path: Path) -> None:
    root = tmp_path / "svc"
    (root / "lib").mkdir(parents=True)
    (root / "gen").mkdir()
    _git(root, "init", "-q", "-b", "main")
    now = datetime.now(UTC)
    (root / "gen" / "big.py").write_text("".join(f"def g{i}():\n    pass\n\n" for i in range(5)))
    (root / "lib" / "m.py").write_text("def a():\n    pass\n\ndef b():\n    a()\n\ndef c():\n    b()\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "then", when=now - timedelta(days=30))
    (root / "lib" / "m.py").write_text("def a():\n    pass\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "now", when=now - timedelta(minutes=5))
    cfg = tmp_path / "codegraph.toml"
    cfg.write_text(f'[[repos]]\nname = "svc"\npath = "{root}"\nexclude = ["gen/"]\n')
    env = {**os.environ, "CODEGRAPH_HOME": str(tmp_path / "home"), "CODEGRAPH_GRAPH": "embedded",
           "CODEGRAPH_SEARCH": "embedded", "CODEGRAPH_EMBED_MODEL_PATH": "none", "CODEGRAPH_CONFIG": str(cfg)}
    r = subprocess.run([*CLI, "refresh", "--no-embed"], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([*CLI, "baseline", "backfill", "--repo", "svc", "--since", "90d", "--json"], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    [rep] = json.loads(r.stdout)
    assert (rep["config"], rep["exclude"]) == (str(cfg), ["gen/"])
    # gen/ is left out of the past commit as it is of the live run: 1 file, the module and 3 functions.
    assert [(p["status"], p["files"], p["symbols"]) for p in rep["points"][:1]] == [("recorded", 1, 4)]
    # The index run's snapshot against the backfilled one: symbols fell 4 -> 2, and which ones is known.
    r = subprocess.run([*CLI, "baseline", "--repo", "svc", "--json"], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 1, r.stderr
    [report] = json.loads(r.stdout)
    [sym] = [d for d in report["drops"] if d["key"] == "symbols"]
    assert (sym["baseline"], sym["current"], sym["disappeared"]) == (4, 2, ["lib.m.b", "lib.m.c"])

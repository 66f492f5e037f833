"""`codegraph impact --diff`: changed lines -> the innermost symbols -> their blast radius
and the union, for a commit range and for the working tree, as JSON and Markdown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "codegraph"]
STORE = "def save(x):\n    return x\n\n\ndef load(k):\n    return k\n"
API = "from app.store import save, load\n\n\ndef create(p):\n    return save(p)\n\n\ndef read(k):\n    return load(k)\n"
TESTS = "from app.api import create\n\n\ndef test_create():\n    assert create(1)\n"


def _git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    return subprocess.run(["git", "-C", str(root), *args], env=env, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def indexed(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    root = tmp_path / "repo"
    for rel, text in {"app/__init__.py": "", "app/store.py": STORE, "app/api.py": API,
                      "tests/test_api.py": TESTS}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    env = {**os.environ, "CODEGRAPH_HOME": str(tmp_path / "home"), "CODEGRAPH_GRAPH": "embedded",
           "CODEGRAPH_SEARCH": "embedded", "CODEGRAPH_EMBED_MODEL_PATH": "none"}
    r = subprocess.run([*CLI, "index", str(root), "--repo", "app", "--no-embed"], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return root, env


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, "impact", *args], env=env, capture_output=True, text=True, timeout=300)


def test_a_commit_range_maps_lines_to_symbols_and_unions_their_radius(indexed: tuple[Path, dict[str, str]]) -> None:
    root, env = indexed
    _git(root, "checkout", "-qb", "feature")
    (root / "app" / "store.py").write_text(STORE.replace("return x", "return dict(x)"))  # line 2: save
    _git(root, "commit", "-qam", "change save")
    r = _run(env, "--diff", "main...feature", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["files"] == ["app/store.py"] and d["unindexed"] == []
    assert [(c["target"]["qualified_name"], c["lines"]) for c in d["changes"]] == [("app.store.save", [2])]
    assert d["union"]["callers"] == ["app.api.create", "tests.test_api.test_create"]
    assert ["test", "tests.test_api.test_create"] in d["union"]["entry_points"]
    md = _run(env, "--diff", "main...feature", "--markdown").stdout
    assert md.startswith("## Impact of `main...feature` on `app`")
    assert "### `app.store.save` (app/store.py:2): 2 caller(s)" in md and "- [ ] test `tests.test_api.test_create`" in md


def test_bare_diff_is_the_working_tree(indexed: tuple[Path, dict[str, str]]) -> None:
    root, env = indexed
    (root / "app" / "store.py").write_text(STORE.replace("return k", "return {'k': k}"))  # line 6: load
    (root / "app" / "new.py").write_text("def fresh():\n    pass\n")  # untracked, not in the graph yet
    r = _run(env, "--diff", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["spec"] == "working tree"
    assert [c["target"]["qualified_name"] for c in d["changes"]] == ["app.store.load"]
    assert d["union"]["callers"] == ["app.api.read"] and d["unindexed"] == ["app/new.py"]
    bad = _run(env, "--diff", "nope...main")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "git diff" in bad.stderr


def test_impact_page_takes_a_change_set(indexed: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    from codegraph.core import settings
    from tests.dashboard.conftest import open_app

    root, env = indexed
    _git(root, "checkout", "-qb", "feature")
    (root / "app" / "store.py").write_text(STORE.replace("return x", "return dict(x)"))
    _git(root, "commit", "-qam", "change save")
    for k in ("CODEGRAPH_HOME", "CODEGRAPH_GRAPH", "CODEGRAPH_SEARCH", "CODEGRAPH_EMBED_MODEL_PATH"):
        monkeypatch.setenv(k, env[k])
    settings.get_settings.cache_clear()
    at = open_app("impact.py")
    at.text_input(key="impact_target").input("diff:main...feature").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    changed = next(d.value for d in at.dataframe if "changed" in d.value.columns).to_dict("records")
    assert [(c["changed"], c["lines"], c["callers"]) for c in changed] == [("app.store.save", "2", 2)]
    callers = next(d.value for d in at.dataframe if "caller" in d.value.columns)
    assert set(callers["caller"]) == {"app.api.create", "tests.test_api.test_create"}

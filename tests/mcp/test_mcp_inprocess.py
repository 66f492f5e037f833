"""MCP tools called in-process (no stdio): ``freshness`` uses the one git-HEAD lookup (codegraph.core.git.git_head): a root that
its enclosing repository ignores (an installed Python inside a pyenv clone) is not at that
repository's commit, so the answer must not claim it "matches the checkout"; ``impact``
takes ``min_confidence`` and reports each caller's confidence."""

from __future__ import annotations

import subprocess
from pathlib import Path

import anyio

from codegraph.core.git import git_head
from codegraph.core.settings import load_settings
from codegraph.core.stores import open_graph_store
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore
from codegraph.mcp_server import build_server


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
                   check=True, capture_output=True)


def test_freshness_of_a_git_ignored_root_is_not_a_checkout(tmp_path: Path, monkeypatch) -> None:
    outer = tmp_path / "pyenv"
    root = outer / "versions" / "lib"
    root.mkdir(parents=True)
    (root / "m.py").write_text("def f():\n    return 1\n")
    (outer / ".gitignore").write_text("versions/\n")
    (outer / "README").write_text("a clone\n")
    _git(outer, "init", "-q")
    _git(outer, "add", "-A")
    _git(outer, "commit", "-q", "-m", "clone")
    assert git_head(outer) and git_head(root) is None

    monkeypatch.setenv("CODEGRAPH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CODEGRAPH_EMBED_MODEL_PATH", "none")
    settings = load_settings()
    graph, state = open_graph_store(settings), StateStore(settings.state_db)
    assert index_repo(root, "lib", graph, None, state, workers=1).commit is None
    state.close()
    graph.close()

    async def call() -> tuple[dict, str]:
        res = await build_server(settings).call_tool("freshness", {"repo": "lib"})
        assert not res.is_error, res.content[0].text
        return res.structured_content, res.content[0].text

    data, text = anyio.run(call)
    [row] = data["freshness"]
    assert (row["repo"], row["checkout_head"], row["stale"]) == ("lib", None, False)
    assert "not a git checkout (cannot compare)" in text and "matches the checkout" not in text


def test_impact_min_confidence(tmp_path: Path, monkeypatch) -> None:
    root = tmp_path / "src" / "shop"
    root.mkdir(parents=True)
    (root / "box.py").write_text("class Box:\n    def frobnicate(self):\n        return 1\n")
    (root / "use.py").write_text("def guess(thing):\n    return thing.frobnicate()\n")
    monkeypatch.setenv("CODEGRAPH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CODEGRAPH_EMBED_MODEL_PATH", "none")
    settings = load_settings()
    graph, state = open_graph_store(settings), StateStore(settings.state_db)
    index_repo(tmp_path / "src", "shop", graph, None, state, workers=1)
    state.close()
    graph.close()

    async def call(args: dict) -> dict:
        res = await build_server(settings).call_tool("impact", {"target": "Box.frobnicate", "depth": 1, **args})
        assert not res.is_error, res.content[0].text
        return res.structured_content

    loose, strict = anyio.run(call, {}), anyio.run(call, {"min_confidence": 1.0})
    assert [(i["qualified_name"], i["resolution"], i["confidence"]) for i in loose["items"]] == [
        ("shop.use.guess", "unique_name", 0.5)]
    assert strict["items"] == [] and strict["query"]["min_confidence"] == 1.0

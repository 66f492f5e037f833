"""Freshness: the graph's commit against the HEAD of the checkout a query runs from."""

from __future__ import annotations

import subprocess
from pathlib import Path

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.freshness import checkout_drift
from codegraph.core.impact import freshness
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True).stdout.strip()


def test_drift_lists_files_changed_since_the_indexed_commit(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    (repo / "a.py").write_text("def f():\n    pass\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "one")
    graph = EmbeddedGraphStore(tmp_path / "g.db")
    state = StateStore(tmp_path / "s.db")
    index_repo(repo, "r", graph, None, state, workers=1)
    indexed = git(repo, "rev-parse", "HEAD")
    fr = freshness(graph, {"r"})[0]
    assert fr["commit"] == indexed
    (repo / "b.py").write_text("def g():\n    pass\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "two")
    (repo / "a.py").write_text("def f():\n    return 1\n")
    drift = checkout_drift(str(repo), indexed, cwd=repo)
    assert drift is not None and not drift["matches_graph"]
    assert drift["changed_since"] == ["b.py"] and drift["uncommitted"] == ["a.py"]
    # A worktree of the same repository resolves to it; an unrelated folder does not.
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(wt), "HEAD")
    assert checkout_drift(str(repo), indexed, cwd=wt)["changed_since"] == ["b.py"]
    assert checkout_drift(str(repo), indexed, cwd=tmp_path) is None
    # The working checkout was never modified by indexing or by the check.
    assert (repo / "a.py").read_text() == "def f():\n    return 1\n"
    state.close()


def test_no_git_process_outside_any_repository(tmp_path: Path, monkeypatch) -> None:
    """Outside every checkout the drift check answers None without asking git; inside a
    checkout's subfolder, a bare repository or with GIT_DIR set, git is asked as before."""
    from codegraph.core import freshness as fr

    asked: list[tuple[str, ...]] = []
    real = fr._git
    monkeypatch.setattr(fr, "_git", lambda cwd, *a: asked.append(a) or real(cwd, *a))
    plain = tmp_path / "plain" / "deep"
    plain.mkdir(parents=True)
    assert fr._no_repository_around(plain)
    assert checkout_drift(str(plain), None, cwd=plain) is None and asked == []
    repo = tmp_path / "r"
    (repo / "sub").mkdir(parents=True)
    git(repo, "init", "-q")
    bare = tmp_path / "b.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    assert not fr._no_repository_around(repo / "sub") and not fr._no_repository_around(bare)
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    assert not fr._no_repository_around(plain)
    monkeypatch.delenv("GIT_DIR")
    checkout_drift(str(repo), None, cwd=repo / "sub")
    assert asked  # inside a checkout git answers (HEAD unborn: one question at a time)
    # With a commit: two rev-parse runs and a status (the indexed folder may be a sub-folder).
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    (repo / "sub" / "a.py").write_text("x = 1\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "one")
    head = git(repo, "rev-parse", "HEAD")
    (repo / "sub" / "a.py").write_text("x = 2\n")
    asked.clear()
    drift = checkout_drift(str(repo / "sub"), head, cwd=repo)
    assert (drift["head"], drift["uncommitted"], drift["changed_since"]) == (head, ["a.py"], [])
    assert [a[0] for a in asked] == ["rev-parse", "rev-parse", "status"]
    assert checkout_drift(str(repo), head, cwd=repo / "sub")["uncommitted"] == ["sub/a.py"]

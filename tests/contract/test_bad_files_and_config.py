"""Bad files are counted skips, never an abort; codegraph.toml is validated with one line
per error (docs/hardening.md, "Bad files" and "Config")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from codegraph.core.graph_store import GraphStore
from codegraph.core.models import FILE, SYMBOL
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore

CLI = [sys.executable, "-m", "codegraph"]


def bad_tree(root: Path, git: bool) -> Path:
    root.mkdir()
    (root / "a.py").write_text("def a():\n    return 1\n")
    (root / "use.py").write_text("from a import a\n\n\ndef use():\n    return a()\n")
    os.symlink("c.py", root / "b.py")  # b.py -> c.py -> b.py
    os.symlink("b.py", root / "c.py")
    os.symlink("missing.py", root / "dangling.py")
    with open(os.path.join(os.fsencode(root), b"caf\xe9.py"), "wb") as fh:  # Latin-1 name: not UTF-8
        fh.write(b"def latin():\n    return 2\n")
    (root / "huge.py").write_text("x = 1\n" * 400)
    if not git:
        os.mkfifo(root / "pipe.py")  # opening it to sniff would block forever
    locked = root / "locked.py"
    locked.write_text("def locked():\n    pass\n")
    locked.chmod(0)
    if git:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


@pytest.mark.parametrize("git", [False, True], ids=["walk", "git"])
def test_bad_files_are_counted_skips_and_the_rest_is_indexed(store: GraphStore, repo: str, tmp_path: Path,
                                                            git: bool) -> None:
    """Why: a symlink loop raised RuntimeError from discover.py; a non-UTF-8 file name raised
    UnicodeEncodeError and left a half-applied import (files and symbols without edges)."""
    root = bad_tree(tmp_path / "t", git)
    state = StateStore(tmp_path / "s.db")
    s = index_repo(root, repo, store, None, state, workers=1, max_file_bytes=1000)
    expected = {"symlink loop": 2, "dangling symlink": 1, "undecodable file name": 1, "too large": 1}
    if not git:
        expected["not a regular file"] = 1
    if os.geteuid() != 0:  # root reads a mode-000 file anyway
        expected["unreadable"] = 1
    assert {k: s.skipped.get(k) for k in expected} == expected
    indexed = {"a.py", "use.py"} | ({"locked.py"} if os.geteuid() == 0 else set())
    assert set(store.file_hashes(repo)) == indexed
    counts = store.counts(repo)
    assert counts["nodes"][FILE] == len(indexed) and counts["nodes"][SYMBOL] >= 3
    assert counts["edges"].get("CALLS") == 1  # use -> a: linked, not half-applied
    state.close()


BAD_CONFIGS = {
    'exclude = 5': ["repos[1].exclude: Input should be a valid list (got 5)"],
    'include = [1, 2]': ["repos[1].include[1]: Input should be a valid string (got 1)",
                         "repos[1].include[2]: Input should be a valid string (got 2)"],
    'mirror = 1': ["repos[1].mirror: Input should be a valid string (got 1)"],
    'pages = ["a"]': ["repos[1].pages: Input should be a valid dictionary (got ['a'])"],
    'exclude = "test/"': ["repos[1].exclude: Input should be a valid list (got 'test/')"],
    'exlude = ["x"]': ["repos[1].exlude: Extra inputs are not permitted (got ['x'])"],
    'pages = { "../../etc/passwd" = "/x" }': [
        "repos[1].pages: Value error, page file path '../../etc/passwd' climbs out of the repo root "
        "(got {'../../etc/passwd': '/x'})"],
}


@pytest.mark.parametrize("line", list(BAD_CONFIGS))
def test_bad_config_values_are_one_line_per_error(tmp_path: Path, line: str) -> None:
    """Why: exclude = 5, include = [1, 2], mirror = 1, pages = ["a"] gave tracebacks and
    exclude = "test/" (a string) was accepted and excluded nothing."""
    (tmp_path / "r").mkdir()
    cfg = tmp_path / "codegraph.toml"
    cfg.write_text(f'[[repos]]\nname = "r"\npath = "r"\n{line}\n')
    env = {**os.environ, "CODEGRAPH_HOME": str(tmp_path / "home"), "CODEGRAPH_EMBED_MODEL_PATH": "none",
           "COLUMNS": "60"}
    r = subprocess.run([*CLI, "refresh", "--config", str(cfg), "--no-embed"], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.splitlines() == [f"error: {cfg}: {m}" for m in BAD_CONFIGS[line]]


def test_repo_entry_model_has_the_fields_of_repo_config() -> None:
    from dataclasses import fields

    from codegraph.indexer.registry import RepoConfig, RepoEntry

    assert set(RepoEntry.model_fields) == {f.name for f in fields(RepoConfig)}

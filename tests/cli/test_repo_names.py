"""Repository names on the CLI: a default name (the folder's) never re-points a repository
indexed from another folder, and an unknown ``--repo`` is named as such, not answered as
"nothing matches" (docs/hardening.md, "CLI errors"). Embedded backend: the rule is the CLI's."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.cli.test_error_lines import CLI, _env, _one_line, _tree


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=300)


def _callers(env: dict[str, str], target: str, repo: str) -> list[str]:
    import json

    r = _run(env, "callers", target, "--repo", repo, "--json")
    assert r.returncode == 0, r.stderr
    return sorted(c["node"]["qualified_name"] for c in json.loads(r.stdout)["callers"])


def test_a_second_folder_of_the_same_name_is_refused_and_the_first_graph_kept(tmp_path: Path) -> None:
    # Why: indexing /a/src, then /b/src (both named "src" by default) printed "18 removed"
    # with exit 0: the first repository's graph was replaced without a word.
    env = _env(tmp_path, "embedded")
    first, second = _tree(tmp_path / "a" / "src"), _tree(tmp_path / "b" / "src", n=1)
    assert _run(env, "index", str(first), "--no-embed").returncode == 0
    line = _one_line(_run(env, "index", str(second), "--no-embed"), 2, "a repository named 'src' is already indexed",
                     str(first.resolve()), "--repo NAME")
    assert str(second.resolve()) in line
    assert _callers(env, "f2", "src") == ["m2.g2"]  # the first folder's graph is untouched
    assert _run(env, "index", str(first), "--no-embed").returncode == 0  # the same folder again: fine
    # Its own name, or the same name on purpose, both index the second folder.
    assert _run(env, "index", str(second), "--repo", "src-b", "--no-embed").returncode == 0
    assert _callers(env, "f0", "src-b") == ["m0.g0"]
    assert _run(env, "index", str(second), "--repo", "src", "--no-embed").returncode == 0
    r = _run(env, "callers", "f2", "--repo", "src")
    assert r.returncode != 0 and "f2" in r.stderr  # the name now holds the second folder (no f2 there)


def test_an_unknown_repo_is_named_as_such(tmp_path: Path) -> None:
    # Why: `callers X --repo nosuchrepo` said "nothing in the graph matches 'X'" and
    # `stubs --repo nosuchrepo` printed an empty table with exit 0.
    env = _env(tmp_path, "embedded")
    assert _run(env, "index", str(_tree(tmp_path / "src")), "--no-embed").returncode == 0
    for args in (("callers", "f1"), ("impact", "f1"), ("stubs",), ("search", "doc")):
        _one_line(_run(env, *args, "--repo", "nosuchrepo"), 2, "no repository named 'nosuchrepo'", "known: src")


def test_every_command_limited_to_a_repo_refuses_an_unknown_one(tmp_path: Path) -> None:
    # Why: `verify --repo nosuchrepo` said "ok" (exit 0), `triage list` / `triage log` / `issues top`
    # printed empty tables and `embed` embedded nothing, without a word about the name. Every
    # command whose --repo limits the answer to an indexed repository (RepoOpt) checks it first.
    env = _env(tmp_path, "embedded")
    assert _run(env, "index", str(_tree(tmp_path / "src")), "--no-embed").returncode == 0
    for args in (("verify",), ("embed",), ("stats",), ("freshness",), ("baseline",), ("triage", "list"),
                 ("triage", "log"), ("triage", "show", "x"), ("issues", "top"), ("issues", "mentions", "f1"),
                 ("issues", "radius", "f1")):
        _one_line(_run(env, *args, "--repo", "nosuchrepo"), 2, "no repository named 'nosuchrepo'", "known: src")
    assert _run(env, "verify", "--repo", "src").returncode == 0  # a known name still answers

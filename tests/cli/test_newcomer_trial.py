"""What a newcomer's trial of the CLI reported (docs/hardening.md, "CLI errors"): an empty
path, skipped folders nobody named, two edge counts that disagreed, a help text that
left out a default edge type. Embedded backend: these are the CLI's rules."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from codegraph.core.models import CALLER_EDGES, STRUCTURAL_EDGES
from codegraph.indexer.discover import discover
from tests.cli.test_error_lines import CLI, _env, _one_line, _tree


def _run(env: dict[str, str], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=300, cwd=cwd)


def test_an_empty_path_is_one_line_and_indexes_nothing(tmp_path: Path) -> None:
    # Why: `codegraph index ""` indexed the current folder (Path("") is Path(".")).
    env = _env(tmp_path, "embedded")
    here = _tree(tmp_path / "cwd")
    for args in (("index", ""), ("extract", "", "-o", "out.jsonl"), ("extract", ".", "-o", ""), ("load", ""),
                 ("watch", ""), ("refresh", "--config", ""), ("issues", "import", "", "--repo", "x")):
        _one_line(_run(env, *args, cwd=here), 2, "the path is empty", f"codegraph {args[0]}")
    r = _run(env, "stats", "--json", cwd=here)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["graph"]["nodes"].get("Repo", 0) == 0  # nothing was indexed
    assert not (here / "out.jsonl").exists()


def test_impact_help_names_every_default_edge_type(tmp_path: Path) -> None:
    # Why: `impact --help` listed the default edge types from a copy that lacked CONSUMES.
    r = _run(_env(tmp_path, "embedded"), "impact", "--help")
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.split())
    assert f"Default: {', '.join(CALLER_EDGES)}." in text, text


def test_skipped_vendored_folders_are_named(tmp_path: Path) -> None:
    # Why: the summary said "skipped 1 vendored or build folder" without saying which.
    env = _env(tmp_path, "embedded")
    root = _tree(tmp_path / "shop")
    for d in ("node_modules/left-pad", "build", "pkg/dist", "pkg/vendor/x", "a/target", "b/out", "c/.venv"):
        (root / d).mkdir(parents=True)
        (root / d / "v.py").write_text("def vendored():\n    pass\n")
    r = _run(env, "index", str(root), "--no-embed")
    assert r.returncode == 0, r.stderr
    row = next(ln for ln in r.stdout.splitlines() if "vendored or build folder" in ln)
    assert "7 vendored or build folder (a/target/, b/out/, build/, c/.venv/, node_modules/ and 2 more)" in row, row
    r = _run(env, "index", str(root), "--no-embed", "--force", "--json")
    s = json.loads(r.stdout)["summary"]
    assert s["skipped_folders"] == ["a/target/", "b/out/", "build/", "c/.venv/", "node_modules/", "pkg/dist/",
                                    "pkg/vendor/"]
    assert s["skipped"]["vendored or build folder"] == 7


def test_a_git_checkout_counts_and_names_vendored_folders_as_the_walk_does(tmp_path: Path) -> None:
    # Inside git the count was one per file of a vendored folder, outside one per folder.
    root = _tree(tmp_path / "repo")
    for f in ("node_modules/a/x.js", "node_modules/b/y.js", "pkg/build/z.py", "pkg/build/w.py"):
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("x = 1\n")
    walked = discover(root, use_git=False)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A", "-f"], check=True)
    in_git = discover(root)
    assert in_git.in_git and not walked.in_git
    for d in (walked, in_git):
        assert d.skipped_folders == ["node_modules/", "pkg/build/"]
        assert d.skipped["vendored or build folder"] == 2
    assert [f.path for f in in_git.files] == [f.path for f in walked.files]


def test_the_index_summary_counts_edges_as_stats_does(tmp_path: Path) -> None:
    # Why: the summary's edge count left out DECLARES and IN_REPO while `stats` listed them:
    # the two looked like different numbers for the same graph.
    env = _env(tmp_path, "embedded")
    root = _tree(tmp_path / "src")
    r = _run(env, "index", str(root), "--no-embed", "--json")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)["summary"]
    stats = json.loads(_run(env, "stats", "--json").stdout)
    by_type = stats["graph"]["edges"]
    structural = sum(by_type.get(t, 0) for t in STRUCTURAL_EDGES)
    assert summary["edges"] == stats["figures"]["edges"] == sum(by_type.values()) - structural > 0
    assert summary["structural_edges"] == structural > 0
    human = _run(env, "index", str(root), "--no-embed", "--force").stdout
    row = next(ln for ln in human.splitlines() if ln.strip().startswith("edges"))
    assert f"{summary['edges']} (every type but the {structural} structural IN_REPO / DECLARES" in row, row
    table = _run(env, "stats").stdout
    assert f"edges {summary['edges']} (every type but the structural IN_REPO / DECLARES)" in table
    assert all(f"edges: {t} (structural)" in table for t in STRUCTURAL_EDGES), table


def test_the_examples_in_the_help_are_valid_commands() -> None:
    # The query commands' help teaches by example; each example must parse (options and
    # arguments that exist), or it teaches a mistake.
    import shlex

    import typer.main

    from codegraph.cli import app

    group = typer.main.get_command(app)
    seen = 0
    for name in ("index", "callers", "impact", "search"):
        cmd = group.commands[name]  # type: ignore[attr-defined]
        examples = (cmd.help or "").split("Examples:", 1)[1].splitlines()
        for line in (ln.split("  #")[0].strip() for ln in examples):
            if not line:
                continue
            words = shlex.split(line)
            assert words[:2] == ["codegraph", name], line
            cmd.make_context(name, words[2:])  # raises UsageError for an unknown option or a bad value
            seen += 1
    assert seen >= 12

"""CLI output off a terminal (pipes, logs, CI): every message and table row is one line,
full paths included, however long they are."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CLI = [sys.executable, "-m", "codegraph"]


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_error_line_with_a_long_path_is_not_wrapped(tmp_path: Path) -> None:
    deep = tmp_path / ("a-folder-with-a-long-name-" * 4) / ("and-another-one-" * 4)
    deep.mkdir(parents=True)
    missing = deep / "no-such-source-tree"
    r = _run(["index", str(missing), "--no-embed"], tmp_path)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and str(missing) in lines[0], r.stderr


def test_table_rows_keep_full_paths(tmp_path: Path) -> None:
    root = tmp_path / ("deeply-nested-package-folder-" * 3) / "src"
    pkg = root / ("a_module_with_a_rather_long_name_" * 3).rstrip("_")
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "service.py").write_text("def helper_with_a_long_name():\n    return 1\n\n\n"
                                    "def caller_with_a_long_name():\n    return helper_with_a_long_name()\n")
    assert _run(["index", str(root), "--repo", "wide", "--no-embed"], tmp_path).returncode == 0
    r = _run(["callers", "helper_with_a_long_name", "--repo", "wide"], tmp_path)
    assert r.returncode == 0, r.stderr
    rel = f"{pkg.name}/service.py"
    row = [ln for ln in r.stdout.splitlines() if "caller_with_a_long_name" in ln and rel in ln]
    assert row, r.stdout  # the caller, its evidence file:line and its path on one row
    assert f"{rel}:6" in row[0]
    assert all(len(ln) > 80 for ln in row)  # wider than the old 80-column wrap


def test_usage_error_is_plain_lines(tmp_path: Path) -> None:
    r = _run(["refresh", "--no-such-option"], tmp_path)
    assert r.returncode == 2
    # One line (docs/hardening.md, "CLI errors"), naming where the help is.
    assert r.stderr.splitlines() == ["error: No such option: --no-such-option (see `codegraph refresh --help`)"]
    assert "╭" not in r.stderr and "│" not in r.stderr  # no box drawn around it

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


def _in_terminal(args: list[str], env: dict[str, str], cols: int) -> tuple[int, str]:
    """(exit code, text) of the CLI run in a pseudo-terminal ``cols`` columns wide, escape
    codes removed: what a person sees in a narrow terminal window."""
    import fcntl
    import os
    import pty
    import re
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, cols, 0, 0))
    p = subprocess.Popen([*CLI, *args], env={**env, "COLUMNS": str(cols), "TERM": "xterm"},
                         stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed its side
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    code = p.wait(timeout=300)
    return code, re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.decode("utf-8", "replace")).replace("\r", "")


def test_file_line_stays_one_piece_in_a_narrow_terminal(tmp_path: Path) -> None:
    # Why: in an 80-column terminal the impact and search tables folded `file:line` over
    # several lines, so it could not be clicked or copied. A table that does not fit with
    # every word whole is printed one record per row instead, file:line on a line of its own.
    from tests.cli.test_error_lines import _env

    env = _env(tmp_path, "embedded")
    root = tmp_path / "src"
    (root / "orders").mkdir(parents=True)
    rel = "orders/a_module_with_a_long_name_for_narrow_terminals.py"
    (root / rel).write_text("def helper():\n    return 1\n\n\n"
                            "def caller_of_the_helper_function():\n    return helper()\n")
    assert subprocess.run([*CLI, "index", str(root), "--no-embed"], env=env, capture_output=True,
                          timeout=300).returncode == 0
    for args, where in ((["impact", "helper"], f"evidence: {rel}:6"), (["search", "helper"], f"file:line: {rel}:1")):
        code, text = _in_terminal(args, env, cols=80)
        assert code == 0, text
        assert f"    {where}" in text.splitlines(), text  # one piece, on a line of its own
        assert "┃" not in text, text  # no table squeezed into 80 columns
    for args, where in ((["impact", "helper"], f"{rel}:6"), (["search", "helper"], f"{rel}:1")):
        code, text = _in_terminal(args, env, cols=220)  # wide enough: the table, location in its cell
        assert code == 0, text
        lines = text.splitlines()
        assert "┃" in text and any(where in ln and "│" in ln for ln in lines), text
        assert max(len(ln) for ln in lines) <= 220, text

"""``codegraph``, ``codegraph --help`` and ``codegraph GROUP --help`` are built from the
commands' names and docstrings only (``codegraph.cli._help_listing``, for start-up): the
text must be exactly what typer prints from the fully built app, list every registered
command and group, and leave the app as it was."""

from __future__ import annotations

import re

import pytest

from codegraph import cli


def _printed(fn, args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[str, str, int]:
    try:
        fn(args)
        code = 0
    except SystemExit as e:
        code = int(e.code or 0)
    out = capsys.readouterr()
    return out.out, out.err, code


def _full_app(args: list[str]) -> None:
    cli.app(args=args, prog_name="codegraph")  # every command built with its options


@pytest.mark.parametrize("args", [[], ["--help"], ["triage", "--help"], ["issues", "--help"],
                                  ["workspace", "--help"], ["callers", "--help"], ["index", "--help"]])
def test_listing_equals_the_fully_built_help(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    before = [(c.name, c.callback) for c in cli.app.registered_commands]
    fast = _printed(cli.main, list(args), capsys)
    assert [(c.name, c.callback) for c in cli.app.registered_commands] == before  # restored
    full = _printed(_full_app, list(args), capsys)
    assert fast == full
    assert "Usage: codegraph" in fast[0] + fast[1]


def test_listing_names_every_command_and_group(capsys: pytest.CaptureFixture[str]) -> None:
    out, _, code = _printed(cli.main, ["--help"], capsys)
    assert code == 0
    listed = re.findall(r"^  (\S+)\s", out.split("Commands:", 1)[1], flags=re.M)
    registered = [cli._command_name(c) for c in cli.app.registered_commands if not c.hidden]
    registered += [g.name for g in cli.app.registered_groups]
    assert sorted(listed) == sorted(registered)
    assert {"index", "callers", "impact", "search", "triage", "workspace"} <= set(listed)


def test_listed_only_command_keeps_name_and_doc_but_never_runs() -> None:
    info = next(c for c in cli.app.registered_commands if cli._command_name(c) == "callers")
    bare = cli._listed_only(info)
    assert (cli._command_name(bare), bare.callback.__doc__) == ("callers", info.callback.__doc__)
    assert info.callback.__code__.co_argcount > 0 and bare.callback.__code__.co_argcount == 0
    with pytest.raises(RuntimeError, match="help only"):
        bare.callback()

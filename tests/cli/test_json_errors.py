"""With ``--json`` an error is a JSON object on stdout too, with the exit code of the plain
line on stderr (docs/hardening.md, "CLI errors"). Why: a script reading stdout got nothing
at all and had to parse stderr's text.

Every command that has ``--json`` is listed with a failing call; the list is checked against
the app's commands, so a new ``--json`` command without a case fails here."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import typer.main

from codegraph.cli import app
from tests.cli.test_error_lines import CLI, _env

# A failing call of each --json command (the body runs and fails: nothing in the graph,
# a missing file, no codegraph.toml, an argument the command refuses).
FAILING = {
    "index": ["index", "no-such-folder"],
    "embed": ["embed", "--repo", "nosuchrepo"],
    "callers": ["callers", "nosuch"],
    "impact": ["impact", "nosuch"],
    "search": ["search", "words", "--repo", "nosuchrepo"],
    "stats": ["stats", "--repo", "nosuchrepo"],
    "verify": ["verify", "--repo", "nosuchrepo"],
    "stubs": ["stubs", "--repo", "nosuchrepo"],
    "query": ["query", "MATCH (n) RETURN n"],  # the embedded graph runs no Cypher
    "audit": ["audit", "nosuch"],
    "load": ["load", "no-such.jsonl"],
    "refresh": ["refresh"],  # no codegraph.toml here
    "baseline": ["baseline", "no-such-action"],
    "freshness": ["freshness", "--repo", "nosuchrepo"],
    "triage list": ["triage", "list", "--repo", "nosuchrepo"],
    "triage show": ["triage", "show", "nosuch"],
    "triage resolve": ["triage", "resolve", "nosuch", "--to", "x.y"],
    "triage external": ["triage", "external", "nosuch", "--library", "x", "--repo", "nosuchrepo"],
    "triage ignore": ["triage", "ignore", "nosuch", "--repo", "nosuchrepo"],
    "triage undo": ["triage", "undo", "nosuch"],
    "triage log": ["triage", "log", "--repo", "nosuchrepo"],
    "issues import": ["issues", "import", "no-such.json", "--repo", "x"],
    "issues fetch": ["issues", "fetch", "not a repository", "--repo", "x"],  # refused before any request
    "issues mentions": ["issues", "mentions", "nosuch"],
    "issues top": ["issues", "top", "--repo", "nosuchrepo"],
    "issues radius": ["issues", "radius", "nosuch"],
    "workspace link": ["workspace", "link", "nosuchworkspace"],
    "workspace list": ["workspace", "list", "--config", "no-such.toml"],
}


def _json_commands() -> set[str]:
    def walk(cmd: object, path: list[str]) -> list[tuple[str, object]]:
        subs = getattr(cmd, "commands", None)
        if not subs:
            return [(" ".join(path), cmd)]
        return [x for name, sub in subs.items() for x in walk(sub, [*path, name])]

    return {name for name, c in walk(typer.main.get_command(app), [])
            if any("--json" in p.opts for p in getattr(c, "params", []))}


def _error_object(r: subprocess.CompletedProcess[str]) -> dict[str, object]:
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode in (2, 3), (r.returncode, r.stdout[-1000:], r.stderr[-1000:])
    assert lines and all(ln.startswith("error: ") for ln in lines) and "Traceback" not in r.stderr, r.stderr
    out = json.loads(r.stdout)  # stdout holds exactly one JSON document
    assert set(out) == {"error"}, out
    e = out["error"]
    assert e["exit_code"] == r.returncode and e["kind"] and isinstance(e["kind"], str)
    assert e["message"] == "; ".join(ln[len("error: "):] for ln in lines)
    return e


def test_every_json_command_has_a_failing_case() -> None:
    assert _json_commands() == set(FAILING)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], Path]:
    tmp = tmp_path_factory.mktemp("jsonerr")
    return _env(tmp, "embedded"), tmp


@pytest.mark.parametrize("name", sorted(FAILING))
def test_an_error_with_json_is_a_json_object_on_stdout(env: tuple[dict[str, str], Path], name: str) -> None:
    e, cwd = env

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*CLI, *args], env=e, cwd=cwd, capture_output=True, text=True, timeout=300)

    plain = run(*FAILING[name])
    assert plain.returncode in (2, 3) and plain.stdout == "", (plain.returncode, plain.stdout, plain.stderr)
    with_json = run(*FAILING[name], "--json")
    err = _error_object(with_json)
    assert with_json.returncode == plain.returncode and with_json.stderr == plain.stderr  # same line, same code
    assert err["kind"] != "usage", err  # the command ran and failed, not its parsing
    usage = _error_object(run(*FAILING[name], "--no-such-option", "--json"))
    assert usage["kind"] == "usage" and usage["exit_code"] == 2


def test_a_store_that_does_not_answer_is_kind_store_unavailable_exit_3(tmp_path: Path) -> None:
    env = {**_env(tmp_path, "embedded"), "CODEGRAPH_GRAPH": "bolt://127.0.0.1:1"}
    r = subprocess.run([*CLI, "stats", "--json"], env=env, capture_output=True, text=True, timeout=300)
    assert _error_object(r) | {"message": ""} == {"message": "", "kind": "store_unavailable", "exit_code": 3}


def test_several_problems_are_each_a_line_and_listed(tmp_path: Path) -> None:
    (tmp_path / "codegraph.toml").write_text('[[repos]]\nname = 1\npath = 2\n')
    r = subprocess.run([*CLI, "refresh", "--json"], env=_env(tmp_path, "embedded"), cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    e = _error_object(r)
    assert e["kind"] == "bad_input" and len(e["lines"]) == len(r.stderr.splitlines()) >= 2, (e, r.stderr)

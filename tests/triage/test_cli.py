"""`codegraph triage ...` and `codegraph issues ...` through the real CLI (typer app,
in-process), with `codegraph index` doing the indexing so that the decisions hook
(cli._decisions -> core.triage.load_decisions) is exercised too. Embedded stores under
the test's CODEGRAPH_HOME."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from codegraph.cli import app
from tests.triage.fixture import FILES, write_tree
from tests.triage.issues_fixture import EXPORT

runner = CliRunner()


def cg(*args: str, code: int = 0) -> Any:
    res = runner.invoke(app, list(args))
    assert res.exit_code == code, (args, res.exit_code, res.output)
    return json.loads(res.stdout) if "--json" in args and code == 0 else res.output


@pytest.fixture
def src(tmp_path: Path) -> Path:
    root = write_tree(tmp_path / "src")
    cg("index", str(root), "--repo", "app", "--no-embed", "--json")
    return root


def test_triage_commands_end_to_end(src: Path) -> None:
    listed = cg("triage", "list", "--json")
    assert [(s["target_identifier"], s["references"]) for s in listed["stubs"]] == [
        ("requests", 2), ("requests.get", 2), ("save", 2), ("helper_missing", 1), ("requests.post", 1)]
    shown = cg("triage", "show", "save", "--json")
    assert [(c["file"], c["line"]) for c in shown["call_sites"]] == [("app/service.py", 7), ("app/service.py", 13)]
    assert [c["qualified_name"] for c in shown["candidates"]] == ["app.audit.save", "app.store.save"]

    d = cg("triage", "resolve", "save", "--to", "app.store.save", "--by", "ana", "--note", "n1", "--json")
    assert (d["action"], d["symbol_qualified_name"], d["call_sites"], d["decided_by"], d["repo"]) == (
        "resolve", "app.store.save", 2, "ana", "app")
    d = cg("triage", "external", "requests.*", "--library", "requests", "--json")
    assert (sorted(d["targets"]), d["call_sites"]) == (["requests", "requests.get", "requests.post"], 5)
    d = cg("triage", "ignore", "helper_missing", "--json")
    assert d["targets"] == ["helper_missing"]
    assert cg("triage", "list", "--json")["stubs"] == []

    # Re-index through the CLI after an unrelated edit: every decision still applies.
    (src / "app" / "audit.py").write_text(FILES["app/audit.py"] + "\n\ndef purge(e):\n    return e\n", "utf-8")
    summary = cg("index", str(src), "--repo", "app", "--no-embed", "--json")["summary"]
    assert summary["stubs"] == 0 and summary["resolutions"]["exact"] == 2
    callers = cg("callers", "app.store.save", "--json")
    assert sorted((c["node"]["qualified_name"], c["evidence_line"]) for c in callers["callers"]) == [
        ("app.service.cancel", 13), ("app.service.place", 7)]

    log = cg("triage", "log", "--json")
    assert [(x["key"], x["action"], x["status"]) for x in log] == [
        ("helper_missing", "ignore", "active"), ("requests.*", "external", "active"), ("save", "resolve", "active")]
    undone = cg("triage", "undo", "requests.*", "--by", "bo", "--json")
    assert (undone["status"], undone["undone_by"]) == ("undone", "bo")
    assert [s["target_identifier"] for s in cg("triage", "list", "--json")["stubs"]] == [
        "requests", "requests.get", "requests.post"]
    assert [x["key"] for x in cg("triage", "log", "--active", "--json")] == ["helper_missing", "save"]


def test_triage_decisions_on_a_file_a_folder_and_a_call_site(src: Path) -> None:
    shown = cg("triage", "show", "requests.get", "--file", "app/client.py", "--json")
    assert shown["decision_would_take"] == {"scope": "file app/client.py", "call_sites": 1, "of": 2,
                                            "calling_symbols": 1, "files": 1}
    assert [(c["file"], c["line"]) for c in shown["call_sites"]] == [("app/client.py", 6)]
    d = cg("triage", "external", "requests.get", "--library", "requests", "--file", "app/client.py", "--json")
    assert (d["call_sites"], d["scope"]["files"], d["scope_label"]) == (1, ["app/client.py"], "file app/client.py")
    d = cg("triage", "resolve", "save", "--to", "app.store.save", "--site", "app/service.py:13", "--json")
    assert (d["call_sites"], [(x["file"], x["line"]) for x in d["scope"]["sites"]]) == (1, [("app/service.py", 13)])
    d = cg("triage", "ignore", "save", "--folder", "app", "--json")  # the call site left in app/
    assert (d["call_sites"], d["scope"]["folders"]) == (1, ["app"])
    stubs = {s["target_identifier"]: s["references"] for s in cg("triage", "list", "--json")["stubs"]}
    assert "save" not in stubs and stubs["requests.get"] == 1

    # Re-index: the scoped decisions are re-applied per call site.
    (src / "app" / "audit.py").write_text(FILES["app/audit.py"] + "\n\ndef purge(e):\n    return e\n", "utf-8")
    cg("index", str(src), "--repo", "app", "--no-embed", "--json")
    stubs = {s["target_identifier"]: s["references"] for s in cg("triage", "list", "--json")["stubs"]}
    assert "save" not in stubs and stubs["requests.get"] == 1
    callers = cg("callers", "app.store.save", "--json")["callers"]
    assert sorted((c["node"]["qualified_name"], c["evidence_line"]) for c in callers) == [
        ("app.service.cancel", 13), ("app.service.place", 9)]

    out = cg("triage", "undo", "save", "--site", "app/service.py:7", code=2)
    assert "no active triage decision on 'save' on call site app/service.py:7" in out
    undone = cg("triage", "undo", "save", "--site", "app/service.py:13", "--json")
    assert undone["status"] == "undone" and undone["action"] == "resolve"
    # The folder decision still standing covers that call site now, as the next index run would.
    assert "save" not in {s["target_identifier"] for s in cg("triage", "list", "--json")["stubs"]}
    assert "folder app/" in [x["scope_label"] for x in cg("triage", "log", "--active", "--json")]
    assert cg("triage", "undo", "save", "--json")["scope_label"] == "folder app/"  # the latest on save
    assert cg("triage", "show", "save", "--json")["decision_would_take"]["call_sites"] == 2


def test_triage_errors_are_one_line_with_exit_2(src: Path) -> None:
    out = cg("triage", "resolve", "save", "--to", "no.such.symbol", code=2)
    assert "error: no symbol with qualified name 'no.such.symbol'" in out
    out = cg("triage", "undo", "save", code=2)
    assert "no active triage decision on 'save'" in out
    out = cg("triage", "ignore", "x", "--repo", "nope", code=2)
    assert "no repository named 'nope' in the graph (known: app)" in out  # checked before the command (cli_errors._known_scope)
    cg("triage", "ignore", "save")
    out = cg("triage", "show", "save", code=2)
    assert "no unresolved symbol 'save' in repo app" in out


def test_issues_commands(src: Path, tmp_path: Path) -> None:
    export = tmp_path / "issues.json"
    export.write_text(json.dumps(EXPORT), encoding="utf-8")
    s = cg("issues", "import", str(export), "--repo", "app", "--json")
    assert (s["issues"], s["resolved"], s["ambiguous"], s["unresolved"], s["edges"]) == (4, 7, 1, 1, 9)
    refs = cg("issues", "mentions", "app.store.save", "--json")
    assert [(r["number"], r["ambiguous"]) for r in refs] == [(4, False), (1, False), (2, True)]
    refs = cg("issues", "mentions", "app.store.save", "--state", "open", "--json")
    assert [r["number"] for r in refs] == [4, 1]
    top = cg("issues", "top", "--json")
    assert (top[0]["name"], top[0]["issues"]) == ("app.store.save", 2)
    radius = cg("issues", "radius", "app.store.save", "--json")
    assert [(r["number"], r["mentioned"], r["depth"]) for r in radius["issues"]] == [
        (4, "app.store.save", 0), (1, "app.store.save", 0), (1, "app/store.py", 0), (1, "app.service.place", 1)]
    assert "issue(s) into app" in cg("issues", "import", str(export), "--repo", "app")
    out = cg("issues", "import", str(export), "--repo", "missing", code=2)
    assert "repository 'missing' is not indexed" in out
    out = cg("issues", "top", "--state", "maybe", code=2)
    assert "--state must be open, closed or all" in out

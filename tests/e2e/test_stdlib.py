"""End to end on real code nobody here wrote: copies of standard-library modules of this
machine's Python (shlex, textwrap, json), indexed through the real `codegraph` command.
Expected facts were checked by reading those modules' source."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

STDLIB = Path(sysconfig.get_paths()["stdlib"])
CLI = [sys.executable, "-m", "codegraph"]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    src = tmp_path_factory.mktemp("stdlib_copy")
    shutil.copy(STDLIB / "shlex.py", src / "shlex.py")
    shutil.copy(STDLIB / "textwrap.py", src / "textwrap.py")
    shutil.copytree(STDLIB / "json", src / "json", ignore=shutil.ignore_patterns("__pycache__"))
    home = tmp_path_factory.mktemp("home")
    env = {**os.environ, "CODEGRAPH_HOME": str(home), "CODEGRAPH_EMBED_MODEL_PATH": "none",
           "CODEGRAPH_GRAPH": "embedded", "CODEGRAPH_SEARCH": "embedded"}
    out = subprocess.run([*CLI, "index", str(src), "--repo", "std", "--json"], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)["summary"]
    assert summary["files"] == 2 + len(list((src / "json").glob("*.py")))
    assert summary["symbols"] > 60 and summary["parse_errors"] == 0
    return src, env


def cli(env: dict[str, str], *args: str) -> dict:
    out = subprocess.run([*CLI, *args, "--json"], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_callers_follow_constructor_receiver_and_self(indexed) -> None:
    _, env = indexed
    # textwrap.wrap: `w = TextWrapper(...); return w.wrap(text)` (textwrap.py:383-384)
    res = cli(env, "callers", "textwrap.TextWrapper.wrap")
    got = {(c["node"]["qualified_name"], c["evidence_line"], c["resolution"]) for c in res["callers"]}
    assert ("textwrap.wrap", 384, "receiver_type") in got
    # TextWrapper._split_chunks calls self._split (textwrap.py:343)
    res = cli(env, "callers", "TextWrapper._split")
    assert {(c["node"]["qualified_name"], c["resolution"]) for c in res["callers"]} == {
        ("textwrap.TextWrapper._split_chunks", "self")}
    # shlex.split constructs shlex (shlex.py:311), and so does the module's __main__ block
    # (shlex.py:346, 350), which belongs to the module symbol `shlex`.
    res = cli(env, "callers", "shlex.shlex.__init__")
    assert {(c["node"]["qualified_name"], tuple(c["sites"])) for c in res["callers"]} == {
        ("shlex.split", ("shlex.py:311",)), ("shlex", ("shlex.py:346", "shlex.py:350"))}


def test_impact_reaches_public_api_through_module_objects(indexed) -> None:
    _, env = indexed
    # json.loads uses the module-level _default_decoder = JSONDecoder(...) (json/__init__.py:346),
    # and json.load calls loads (json/__init__.py:293).
    res = cli(env, "impact", "json.decoder.JSONDecoder.decode", "--depth", "2")
    by = {c["node"]["qualified_name"]: c for c in res["callers"]}
    assert by["json.loads"]["depth"] == 1 and by["json.loads"]["evidence_file"] == "json/__init__.py"
    assert by["json.load"]["depth"] == 2
    assert by["json.load"]["path"] == ["json.load", "json.loads", "json.decoder.JSONDecoder.decode"]
    assert res["total_callers"] >= res["shown_callers"] >= 2
    assert [s["name"] for s in res["steps"]][:2] == ["resolve target", "widen"]
    assert res["freshness"][0]["repo"] == "std" and res["freshness"][0]["last_imported_at"]
    assert "no supported relationship" in res["notice"]


def test_bare_name_lists_every_match_and_file_target(indexed) -> None:
    _, env = indexed
    res = cli(env, "impact", "__init__", "--depth", "1")
    names = {t["qualified_name"] for t in res["targets"]}  # every symbol of that name, labelled
    assert {"shlex.shlex.__init__", "textwrap.TextWrapper.__init__", "json.decoder.JSONDecoder.__init__",
            "json.encoder.JSONEncoder.__init__"} <= names
    assert all(n.endswith(".__init__") and t["kind"] == "method" for n, t in zip(names, res["targets"], strict=False))
    res = cli(env, "impact", "file:json/decoder.py", "--depth", "1")
    assert res["targets"][0]["file"] == "json/decoder.py"
    importers = {c["node"]["qualified_name"] for c in res["callers"] if c["via"] == "IMPORTS"}
    assert "json/__init__.py" in importers  # `from .decoder import JSONDecoder, JSONDecodeError`


def test_unknown_target_and_dead_server_are_one_line(indexed) -> None:
    _, env = indexed
    out = subprocess.run([*CLI, "impact", "no_such_symbol_anywhere"], env=env, capture_output=True, text=True)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "nothing in the graph matches" in out.stderr
    dead = {**env, "CODEGRAPH_GRAPH": "bolt://127.0.0.1:1", "CODEGRAPH_NEO4J_PASSWORD": "x"}
    out = subprocess.run([*CLI, "stats"], env=dead, capture_output=True, text=True, timeout=60)
    assert out.returncode == 3 and "Traceback" not in out.stderr and "CODEGRAPH_GRAPH" in out.stderr


def test_verify_and_reindex_noop(indexed) -> None:
    src, env = indexed
    assert cli(env, "verify")["ok"] is True
    res = cli(env, "index", str(src), "--repo", "std")["summary"]
    assert res["changed"] == 0 and res["edges_rewritten_files"] == 0

"""The CLI's start-up stays light: importing it (and running a graph query) pulls in no
heavy module, and settings keep their documented precedence without pydantic-settings.
Speed itself is measured by bench/bench_startup.py, never asserted here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from codegraph.core.errors import BadInput
from codegraph.core.settings import SecretStr, load_settings

HEAVY = ("tree_sitter", "tree_sitter_language_pack", "numpy", "streamlit", "fastembed", "onnxruntime",
         "neo4j", "elasticsearch", "pydantic", "pydantic_settings", "mcp", "plotly", "sqlglot")

_PROBE = """
import json, sys
sys.argv = ["codegraph", *sys.argv[1:]]
from codegraph.cli import main
try:
    main(sys.argv[1:])  # in process: main() without arguments would end the process
except SystemExit:
    pass
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
"""
# Not heavy, but not needed to list commands or print JSON: rich (the human tables and
# consoles, about a third of the CLI's start-up) and the stores (sqlite3, the domain model).
NOT_FOR_HELP = ("rich", "sqlite3", "codegraph.core.stores", "codegraph.core.models", "codegraph.core.settings",
                "codegraph.cli_render")


def _modules_after(*args: str, full: bool = False) -> set[str]:
    out = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, check=True)
    line = next(ln for ln in out.stderr.splitlines() if ln.startswith("MODULES "))
    names = set(json.loads(line[len("MODULES "):]))
    return names if full else {m.split(".")[0] for m in names}


def _loaded(names: set[str], wanted: tuple[str, ...]) -> list[str]:
    """The modules of ``wanted`` (a package counts with its submodules) present in ``names``."""
    return sorted(w for w in wanted if any(n == w or n.startswith(w + ".") for n in names))


def test_import_cli_pulls_no_heavy_module() -> None:
    code = "import sys, json, codegraph.cli; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = {m.split(".")[0] for m in json.loads(out.stdout)}
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


@pytest.mark.parametrize("args", [("--help",), ("callers", "nothing.here", "--json"), ("stats", "--json")])
def test_graph_commands_pull_no_heavy_module(args: tuple[str, ...]) -> None:
    # An empty embedded store (CODEGRAPH_HOME is per test): the command runs end to end.
    loaded = _modules_after(*args)
    assert "codegraph" in loaded
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


@pytest.mark.parametrize("args", [("--help",), (), ("triage", "--help")])
def test_help_imports_neither_rich_nor_the_stores(args: tuple[str, ...]) -> None:
    loaded = _modules_after(*args, full=True)
    assert "codegraph.cli_pipeline" in loaded  # the command modules are there (their docstrings are listed)
    assert not _loaded(loaded, NOT_FOR_HELP), _loaded(loaded, NOT_FOR_HELP)


def test_json_answers_import_no_rich(tmp_path: Path) -> None:
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "db.py").write_text("def save(row):\n    return row\n\n\ndef place(o):\n    return save(o)\n")
    subprocess.run([sys.executable, "-m", "codegraph", "index", str(tmp_path / "shop"), "--no-embed", "--json"],
                   check=True, capture_output=True)
    for args in (("callers", "db.save", "--json"), ("stats", "--json")):
        loaded = _modules_after(*args, full=True)
        assert "codegraph.core.stores" in loaded  # the query ran
        assert not _loaded(loaded, ("rich",)), (args, _loaded(loaded, ("rich",)))


def test_settings_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".codegraph").mkdir()
    (tmp_path / ".codegraph" / "services.env").write_text(
        "# written by make services\nCODEGRAPH_NEO4J_DATABASE=fromfile\nexport CODEGRAPH_ELASTIC_PREFIX='quoted'\n"
        "CODEGRAPH_WORKERS=7 # trailing comment\nOTHER=ignored\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("codegraph_impact_depth", "9")  # names are case-insensitive
    monkeypatch.setenv("CODEGRAPH_NEO4J_PASSWORD", "s3cret")
    s = load_settings()
    assert (s.neo4j_database, s.elastic_prefix, s.workers, s.impact_depth) == ("fromfile", "quoted", 7, 9)
    monkeypatch.setenv("CODEGRAPH_NEO4J_DATABASE", "fromenv")
    assert load_settings().neo4j_database == "fromenv"  # env wins over the file
    assert load_settings(neo4j_database="kw").neo4j_database == "kw"  # overrides win over both
    assert isinstance(s.neo4j_password, SecretStr) and s.neo4j_password.get_secret_value() == "s3cret"
    assert "s3cret" not in repr(s) and "s3cret" not in str(s.neo4j_password)
    monkeypatch.setenv("CODEGRAPH_HOME", "~/cg-x")
    assert load_settings().home == Path.home() / "cg-x"


def test_bad_setting_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEGRAPH_WORKERS", "many")
    with pytest.raises(BadInput, match="CODEGRAPH_WORKERS must be a whole number"):
        load_settings()
    out = subprocess.run([sys.executable, "-m", "codegraph", "stats"], capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == ["error: CODEGRAPH_WORKERS must be a whole number, got 'many'"]


_EXIT_PROBE = """
import atexit, sys
atexit.register(lambda: sys.stderr.write("atexit handler ran\\n"))
sys.argv = ["codegraph", *sys.argv[1:]]
from codegraph.cli import main
main()
sys.stderr.write("main returned\\n")
"""


def test_console_entry_ends_the_process_after_flushing_and_atexit(tmp_path: Path) -> None:
    """main() without arguments (the console script) ends the process itself (no interpreter
    teardown): the whole answer is written, atexit handlers run, exit codes are kept."""
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "db.py").write_text("def save(row):\n    return row\n\n\ndef place(o):\n    return save(o)\n")
    subprocess.run([sys.executable, "-m", "codegraph", "index", str(tmp_path / "shop"), "--no-embed", "--json"],
                   check=True, capture_output=True)
    ok = subprocess.run([sys.executable, "-c", _EXIT_PROBE, "callers", "db.save", "--json"], capture_output=True,
                        text=True)
    assert ok.returncode == 0, ok.stderr
    assert [c["node"]["qualified_name"] for c in json.loads(ok.stdout)["callers"]] == ["db.place"]
    assert ok.stderr.splitlines() == ["atexit handler ran"]  # and main() did not return
    bad = subprocess.run([sys.executable, "-c", _EXIT_PROBE, "callers", "no.such.symbol"], capture_output=True,
                         text=True)
    assert bad.returncode == 2
    assert bad.stderr.splitlines()[-1] == "atexit handler ran"
    assert bad.stderr.splitlines()[0].startswith("error: ")
    usage = subprocess.run([sys.executable, "-c", _EXIT_PROBE, "--no-such-option"], capture_output=True, text=True)
    assert usage.returncode == 2 and usage.stderr.splitlines()[-1] == "atexit handler ran"

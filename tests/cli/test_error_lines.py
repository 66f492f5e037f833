"""Every error the CLI can meet is one readable line with exit code 2 or 3, on both
backends (docs/hardening.md, "CLI errors"). Each case names the "Why" it guards."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.services import service_settings, skip_or_fail

CLI = [sys.executable, "-m", "codegraph"]
BIG_TARGET = "%_" * 30_000  # 60 KB of LIKE wildcards ("LIKE pattern too complex")


def _tree(root: Path, n: int = 3) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (root / f"m{i}.py").write_text(f"def f{i}(x):\n    '''doc {i}'''\n    return x + {i}\n\n\n"
                                       f"def g{i}():\n    return f{i}(1)\n")
    return root


def _env(tmp_path: Path, backend: str) -> dict[str, str]:
    env = {**os.environ, "CODEGRAPH_HOME": str(tmp_path / "home"), "CODEGRAPH_EMBED_MODEL_PATH": "none",
           "CODEGRAPH_GRAPH": "embedded", "CODEGRAPH_SEARCH": "embedded", "COLUMNS": "80"}
    if backend == "neo4j":
        s = service_settings()
        if not s.graph.startswith("bolt://"):
            skip_or_fail("Neo4j not configured (run `make services`)")
        env.update(CODEGRAPH_GRAPH=s.graph, CODEGRAPH_NEO4J_USER=s.neo4j_user,
                   CODEGRAPH_NEO4J_PASSWORD=s.neo4j_password.get_secret_value())
    return env


def _one_line(r: subprocess.CompletedProcess[str], code: int, *needles: str) -> str:
    lines = r.stderr.splitlines()
    assert r.returncode == code, (r.returncode, r.stderr[-2000:])
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert len(lines[0]) < 600, lines[0][:600]
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


@pytest.fixture(params=["embedded", "neo4j"])
def indexed(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[dict[str, str], str]:
    env = _env(tmp_path, request.param)
    repo = f"errs-{os.getpid()}-{abs(hash(str(tmp_path))) % 10**8}"
    r = subprocess.run([*CLI, "index", str(_tree(tmp_path / "src")), "--repo", repo, "--no-embed"], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    yield env, request.param
    if request.param == "neo4j":
        from codegraph.core.settings import load_settings
        from codegraph.core.stores import open_graph_store

        g = open_graph_store(load_settings(graph=env["CODEGRAPH_GRAPH"],
                                           neo4j_password=env["CODEGRAPH_NEO4J_PASSWORD"]))
        g.delete_repo(repo)
        g.close()


def test_each_cli_error_is_one_line(indexed: tuple[dict[str, str], str]) -> None:
    env, backend = indexed

    def run(*args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*CLI, *args], env={**env, **extra}, capture_output=True, text=True, timeout=300)

    # Why: `impact -e CALL` (a typo) answered 0 callers with exit 0; `-e 'BAD]'` was a traceback on Neo4j.
    _one_line(run("impact", "f1", "-e", "CALL"), 2, "unknown edge type(s) 'CALL'", "known: CALLS")
    _one_line(run("impact", "f1", "-e", "BAD]"), 2, "unknown edge type(s) 'BAD]'")
    # Why: a 60 KB target with % and _ raised "LIKE pattern too complex".
    _one_line(run("impact", BIG_TARGET), 2, "at most 2000 characters")
    _one_line(run("callers", BIG_TARGET), 2, "at most 2000 characters")
    # A bad option value is one line too, not click's three-line box.
    _one_line(run("impact", "f1", "--depth", "0"), 2, "--depth", "--help")
    _one_line(run("nosuchcommand"), 2, "No such command")
    # Why: a Cypher syntax error was an 83-line traceback.
    if backend == "neo4j":
        _one_line(run("query", "MATCH (n RETURN n"), 2, "the server refused the query", "Invalid input")
        _one_line(run("query", "// x\rLOAD CSV FROM 'file:///etc/passwd' AS l RETURN l[0] LIMIT 3"), 2,
                  "refused", "LOAD")
    else:
        _one_line(run("query", "MATCH (n) RETURN n"), 2, "Neo4j")
    # Why: a store that is down.
    _one_line(run("impact", "f1", CODEGRAPH_GRAPH="bolt://127.0.0.1:9"), 3, "CODEGRAPH_GRAPH")
    _one_line(run("search", "f1", CODEGRAPH_SEARCH="http://127.0.0.1:9"), 3, "CODEGRAPH_SEARCH")
    # Why: disk full while writing output.
    _one_line(run("extract", env["CODEGRAPH_HOME"] + "/../src", "-o", "/dev/full"), 2, "disk full")


def test_disk_full_in_the_embedded_store_is_one_line_and_loses_nothing(tmp_path: Path) -> None:
    """Why: disk full was a traceback. A file-size limit makes the embedded store's writes
    fail the way a full disk does (Python ignores SIGXFSZ, so the write returns EFBIG)."""
    env = _env(tmp_path, "embedded")
    small = _tree(tmp_path / "small", 2)
    assert subprocess.run([*CLI, "index", str(small), "--no-embed"], env=env, capture_output=True,
                          timeout=300).returncode == 0
    big = _tree(tmp_path / "big", 200)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))

    r = subprocess.run([*CLI, "index", str(big), "--no-embed", "--workers", "1"], env=env, capture_output=True,
                       text=True, timeout=300, preexec_fn=limit)
    _one_line(r, 3, "the embedded store", "free space")
    # What was stored before is still there and a run with room completes.
    r = subprocess.run([*CLI, "stats", "--json"], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and '"small"' in r.stdout, r.stderr
    r = subprocess.run([*CLI, "index", str(big), "--no-embed"], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([*CLI, "verify"], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_end_of_input_outside_a_command_body_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Why: typer turns an EOFError outside a command body (``codegraph dashboard`` runs its
    child without the stores) into Abort, and the handler named ``Abort`` where typer's copy
    of click has none: an AttributeError traceback instead of one line. (Ctrl+C there is
    typer's silent exit 130.)"""
    import codegraph.dashboard.launch
    from codegraph.cli import main

    def end_of_input(cmd: list[str]) -> int:
        raise EOFError

    monkeypatch.setattr(codegraph.dashboard.launch, "run", end_of_input)
    with pytest.raises(SystemExit) as e:
        main(["dashboard"])
    assert e.value.code == 2
    assert [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()] == ["error: interrupted (end of input)"]

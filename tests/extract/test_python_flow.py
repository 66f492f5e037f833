"""Python value flow and module aliases: per-construct fixtures with the exact resolved
edge set (a missing and an extra edge both fail), facts read from the standard library of
the running interpreter, and the query side (a name as written finds its symbol)."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.targets import resolve_target
from codegraph.indexer.languages import python as py
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.resolve import resolve_repo
from codegraph.indexer.state import StateStore
from tests.helpers import edge_set_with_resolution

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "python_flow"
STDLIB = Path(sysconfig.get_paths()["stdlib"])


def edges(name: str) -> set[tuple[str, str, str, str]]:
    return edge_set_with_resolution(FIX / name)


# -- module aliases ----------------------------------------------------------------------------
def test_module_aliases() -> None:
    assert edges("module_alias") == {
        # myos.py binds ``path`` to one of two modules (import ... as path in both branches)
        ("CALLS", "app.main", "posixpathx.join", "module_alias"),
        ("CALLS", "app.main", "ntpathx.join", "module_alias"),
        ("CALLS", "app.main", "pkg.impl.join", "module_alias"),    # from . import impl as path
        ("CALLS", "app.main", "pkg.tools.run", "import"),           # from . import tools
        ("CALLS", "app.main", "stub:myos.path.split", "stub"),      # neither module has split
        ("IMPORTS", "app.py", "myos.py", "import"),                  # from myos import path
        ("IMPORTS", "app.py", "posixpathx.py", "module_alias"),      # import myos.path
        ("IMPORTS", "app.py", "ntpathx.py", "module_alias"),
        ("IMPORTS", "app.py", "pkg/__init__.py", "import"),
        ("IMPORTS", "myos.py", "posixpathx.py", "import"),
        ("IMPORTS", "myos.py", "ntpathx.py", "import"),
        ("IMPORTS", "myos.py", "stub:sys", "stub"),
        ("IMPORTS", "pkg/__init__.py", "pkg/impl.py", "import"),
        ("IMPORTS", "pkg/__init__.py", "pkg/tools.py", "import"),
        # backend/ is no package: a script there imports its neighbours by bare name
        ("CALLS", "backend.server.main", "backend.auth_utils.check", "import"),
        ("IMPORTS", "backend/server.py", "backend/auth_utils.py", "import"),
    }


def test_module_alias_exports() -> None:
    fx = py.extract("r", "myos.py", (FIX / "module_alias" / "myos.py").read_bytes())
    assert fx.exports == {"path": {"modules": [
        ["ntpathx.py", "ntpathx/__init__.py", "src/ntpathx.py", "src/ntpathx/__init__.py"],
        ["posixpathx.py", "posixpathx/__init__.py", "src/posixpathx.py", "src/posixpathx/__init__.py"]]}}


STD_OS = ["os.py", "posixpath.py", "ntpath.py", "genericpath.py", "shutil.py"]


def test_stdlib_os_path_join_reaches_posixpath() -> None:
    if not all((STDLIB / f).is_file() for f in STD_OS):
        pytest.skip(f"standard library sources not found under {STDLIB}")
    fxs = [py.extract("std", f, (STDLIB / f).read_bytes()) for f in STD_OS]
    res = resolve_repo("std", fxs)
    got = {(e.source.split("|")[2], e.target.split("|")[2], e.resolution, e.line)
           for es in res.edges.values() for e in es if e.type == "CALLS"}
    # shutil.copy(): dst = os.path.join(dst, os.path.basename(src)) at line 418 of 3.11
    copy = {(t, r) for s, t, r, _ in got if s == "shutil.copy"}
    assert ("posixpath.join", "module_alias") in copy and ("ntpath.join", "module_alias") in copy
    assert ("posixpath.basename", "module_alias") in copy
    assert not any(t == "os.path.join" for s, t, _, _ in got if s == "shutil.copy")  # no stub left


def test_impact_target_written_as_the_code_writes_it(tmp_path: Path) -> None:
    graph = EmbeddedGraphStore(tmp_path / "graph.db")
    state = StateStore(tmp_path / "state.db")
    index_repo(FIX / "module_alias", "ma", graph, None, state, workers=1)
    state.close()
    found = resolve_target(graph, "myos.path.join", "ma")
    assert sorted(n.props["qualified_name"] for n in found) == ["ntpathx.join", "posixpathx.join"]

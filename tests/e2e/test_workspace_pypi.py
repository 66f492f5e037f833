"""Cross-repo links on real code: Flask and the five packages it is built on (PyPI
sdists fetched at test time, see tests/pypi_sdists.py), each indexed as its own
repository in one workspace, on the embedded store and on the running Neo4j.

The expected facts are read from the sources with Python's own ``ast``: every call in a
Flask function (or method) to a name it imported ``from werkzeug.<module> import <name>``,
where ``<name>`` is a function that module defines, must appear in the graph as a
cross-repo CALLS edge into that Werkzeug function - and so as its caller in ``callers``.
"""

from __future__ import annotations

import ast
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.errors import StoreUnavailable
from codegraph.core.graph_store import GraphStore
from codegraph.core.impact import callers
from codegraph.core.workspace import Workspace, WorkspaceConfig
from codegraph.indexer.cross_repo import link_workspace
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore
from tests.pypi_sdists import fetch_sdists
from tests.services import service_settings, skip_or_fail

PINS = {"flask": "3.0.3", "werkzeug": "3.0.3", "click": "8.1.7", "itsdangerous": "2.2.0", "jinja2": "3.1.4",
        "markupsafe": "2.1.5"}
SKIP = ["tests/", "docs/", "examples/", "artwork/"]


def _module_qn(src: Path, path: Path) -> str:
    rel = path.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _top_level_functions(src: Path, module: str) -> set[str]:
    base = src / Path(*module.split("."))
    f = base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
    if not f.is_file():
        return set()
    tree = ast.parse(f.read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}


def _calls(body: list[ast.stmt]) -> list[ast.Call]:
    """Calls in a function body, not descending into nested functions or classes."""
    out: list[ast.Call] = []
    todo: list[ast.AST] = list(body)
    while todo:
        n = todo.pop()
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(n, ast.Call):
            out.append(n)
        todo.extend(ast.iter_child_nodes(n))
    return out


def expected_flask_to_werkzeug(flask_src: Path, werkzeug_src: Path) -> set[tuple[str, str]]:
    """(Flask caller qualified name, Werkzeug function qualified name) read from the sources."""
    out: set[tuple[str, str]] = set()
    for path in sorted((flask_src / "flask").rglob("*.py")):
        module = _module_qn(flask_src, path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported: dict[str, str] = {}
        for n in tree.body:
            if isinstance(n, ast.ImportFrom) and n.module and n.module.startswith("werkzeug") and n.level == 0:
                defined = _top_level_functions(werkzeug_src, n.module)
                for a in n.names:
                    if a.name in defined:
                        imported[a.asname or a.name] = f"{n.module}.{a.name}"
        if not imported:
            continue
        funcs: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
        for n in tree.body:
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef):
                funcs.append((f"{module}.{n.name}", n))
            elif isinstance(n, ast.ClassDef):
                funcs += [(f"{module}.{n.name}.{m.name}", m) for m in n.body
                          if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)]
        for qn, fn in funcs:
            for call in _calls(fn.body):
                if isinstance(call.func, ast.Name) and call.func.id in imported:
                    out.add((qn, imported[call.func.id]))
    return out


def _declared(root: Path) -> set[str]:
    """Distribution names in [project].dependencies, lower-cased."""
    import re
    import tomllib

    reqs: list[str] = []
    if (root / "pyproject.toml").is_file():
        data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
        reqs = list(data.get("project", {}).get("dependencies", []))
    if not reqs and (root / "setup.cfg").is_file():  # older sdists: [options] install_requires
        m = re.search(r"(?ms)^install_requires\s*=\s*\n((?:[ \t]+\S.*\n)+)", (root / "setup.cfg").read_text())
        reqs = m.group(1).split() if m else []
    return {re.split(r"[<>=!~;\[ ]", d, maxsplit=1)[0].strip().lower() for d in reqs if d.strip()}


@dataclass
class Pallets:
    graph: GraphStore
    roots: dict[str, Path]
    name: dict[str, str]  # package -> repo name in the graph (prefixed on the shared Neo4j)

    def package(self, repo: str) -> str:
        return {v: k for k, v in self.name.items()}.get(repo, repo)


def _open(backend: str, home: Path) -> GraphStore:
    if backend == "embedded":
        return EmbeddedGraphStore(home / "graph.db")
    settings = service_settings()
    if not settings.graph.startswith(("bolt://", "neo4j://")):
        skip_or_fail("Neo4j not configured (CODEGRAPH_GRAPH is not bolt://; run `make services`)")
    from codegraph.core.neo4j_graph import Neo4jGraphStore

    try:
        return Neo4jGraphStore(settings.graph, settings.neo4j_user, settings.neo4j_password.get_secret_value(),
                               settings.neo4j_database)
    except StoreUnavailable as e:
        skip_or_fail(f"Neo4j unreachable: {e}")
        raise


@pytest.fixture(scope="module", params=("embedded", "neo4j"))
def flask_estate(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pallets]:
    roots, problem = fetch_sdists(PINS)
    if problem:
        pytest.skip(f"!!! real-input test skipped: PyPI sdists could not be fetched ({problem})")
    home = tmp_path_factory.mktemp(f"flaskws-{request.param}")
    graph = _open(request.param, home)
    prefix = "" if request.param == "embedded" else f"pl{uuid.uuid4().hex[:8]}-"
    name = {p: prefix + p for p in PINS}
    state = StateStore(home / "state.db")
    try:
        for p, root in roots.items():
            index_repo(root, name[p], graph, None, state, exclude=SKIP)
        cfg = WorkspaceConfig([Workspace(prefix + "pallets", list(name.values()))])
        summary = link_workspace(graph, state, cfg, state_db=home / "state.db")
        assert summary.edges["library"] > 100
        yield Pallets(graph, roots, name)
    finally:
        state.close()
        if request.param != "embedded":
            for r in name.values():
                graph.delete_repo(r)
        graph.close()


def test_flask_calls_into_werkzeug_exactly_as_the_sources_say(flask_estate: Pallets) -> None:
    e = flask_estate
    want = expected_flask_to_werkzeug(e.roots["flask"] / "src", e.roots["werkzeug"] / "src")
    assert ("flask.helpers.redirect", "werkzeug.utils.redirect") in want  # the anchor read from helpers.py
    assert len(want) >= 5
    got: set[tuple[str, str]] = set()
    for _, target in want:
        res = callers(e.graph, target, repo=e.name["werkzeug"], limit=500)
        got |= {(c.node.qualified_name, target) for c in res.callers
                if c.node.repo == e.name["flask"] and c.resolution == "cross_repo"}
    assert want - got == set()


def test_cross_repo_links_follow_what_each_package_imports(flask_estate: Pallets) -> None:
    e = flask_estate
    pairs: dict[tuple[str, str], int] = {}
    for p in PINS:
        uids = [n.uid for n in e.graph.nodes_by_label("Symbol", e.name[p], limit=100000)]
        uids += [n.uid for n in e.graph.nodes_by_label("File", e.name[p], limit=100000)]
        for hits in e.graph.neighbours(uids, "out").values():
            for h in hits:
                if h.edge.resolution == "cross_repo":
                    key = (p, e.package(h.node.repo))
                    pairs[key] = pairs.get(key, 0) + 1
    # Every pair is a dependency the dependant declares in its own metadata, directly or
    # through one it declares (Flask imports MarkupSafe, which Jinja2 and Werkzeug declare).
    deps = {p: _declared(e.roots[p]) for p in PINS}
    for _ in PINS:
        deps = {r: d | {x for y in d if y in deps for x in deps[y]} for r, d in deps.items()}
    assert {(a, b) for a, b in pairs if b not in deps[a]} == set()
    assert {b for a, b in pairs if a == "flask"} >= {"werkzeug", "jinja2", "click", "itsdangerous"}
    assert ("jinja2", "markupsafe") in pairs
    assert e.graph.verify()["dangling_edges"] == 0


def test_a_re_exported_markupsafe_function_has_its_jinja2_callers(flask_estate: Pallets) -> None:
    """jinja2.utils calls ``markupsafe.escape``; markupsafe re-exports ``escape`` from
    ``_native`` (its C twin ``_speedups`` has no Python source): the call lands there."""
    e = flask_estate
    init = (e.roots["markupsafe"] / "src" / "markupsafe" / "__init__.py").read_text(encoding="utf-8")
    assert "from ._native import escape as escape" in init
    tree = ast.parse((e.roots["jinja2"] / "src" / "jinja2" / "utils.py").read_text(encoding="utf-8"))
    want = {f"jinja2.utils.{n.name}" for n in tree.body if isinstance(n, ast.FunctionDef)
            and any(isinstance(c.func, ast.Attribute) and c.func.attr == "escape" and isinstance(c.func.value, ast.Name)
                    and c.func.value.id == "markupsafe" for c in _calls(n.body))}
    assert want
    res = callers(e.graph, "markupsafe._native.escape", repo=e.name["markupsafe"], limit=500)
    assert want <= {c.node.qualified_name for c in res.callers if c.node.repo == e.name["jinja2"]}

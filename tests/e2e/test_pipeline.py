"""The indexing pipeline on the embedded stores: incremental runs, the file-scoped diff,
relinking across files, bad input. Each test builds its own small tree."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.impact import impact
from codegraph.core.models import CALLS, STUB
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


@pytest.fixture()
def env(tmp_path: Path):
    graph = EmbeddedGraphStore(tmp_path / "home" / "graph.db")
    state = StateStore(tmp_path / "home" / "state.db")
    root = tmp_path / "src"
    root.mkdir()

    def run(**kw):
        return index_repo(root, "demo", graph, None, state, workers=1, **kw)

    yield root, graph, run
    state.close()
    graph.close()


def call_edges(graph: EmbeddedGraphStore) -> set[tuple[str, str]]:
    syms = graph.nodes_by_label("Symbol", "demo", limit=10000)
    hits = graph.neighbours([s.uid for s in syms], "out", [CALLS])
    out = set()
    for uid, lst in hits.items():
        src = next(s for s in syms if s.uid == uid).props["qualified_name"]
        for h in lst:
            out.add((src, h.node.display() if h.node.label != STUB else "stub:" + h.node.props["target_identifier"]))
    return out


BASE = {
    "shop/orders.py": "def validate(o):\n    return bool(o)\n\n\ndef total(o):\n    return sum(o)\n",
    "shop/service.py": (
        "from shop.orders import validate, total\n\n\n"
        "def place(o):\n    if validate(o):\n        return total(o)\n"
    ),
}


def test_reindex_unchanged_changes_nothing(env) -> None:
    root, graph, run = env
    write(root, BASE)
    first = run()
    assert first.changed == 2 and first.symbols > 0
    before = (graph.counts("demo"), call_edges(graph))
    second = run()
    assert (second.changed, second.removed, second.edges_rewritten_files) == (0, 0, 0)
    assert (graph.counts("demo"), call_edges(graph)) == before
    assert graph.verify("demo") == {"orphan_files": 0, "orphan_symbols": 0, "dangling_edges": 0}


def test_deleting_a_function_keeps_other_edges(env) -> None:
    root, graph, run = env
    write(root, BASE)
    run()
    assert ("shop.service.place", "shop.orders.validate") in call_edges(graph)
    assert ("shop.service.place", "shop.orders.total") in call_edges(graph)
    # total() goes away; validate() changes its body only.
    write(root, {"shop/orders.py": "def validate(o):\n    return o is not None\n"})
    s = run()
    assert s.changed == 1
    edges = call_edges(graph)
    assert ("shop.service.place", "shop.orders.validate") in edges  # inbound edge from an unchanged file survives
    assert not any(t == "shop.orders.total" for _, t in edges)
    assert any(src == "shop.service.place" and t.startswith("stub:") for src, t in edges)  # now unresolved
    assert graph.symbols_by_qualified_name(["shop.orders.total"]) == {}
    assert graph.verify("demo")["orphan_symbols"] == 0


def test_stub_resolves_when_definition_appears_and_removed_file_leaves(env) -> None:
    root, graph, run = env
    write(root, {"a.py": "def caller():\n    helper_xyz()\n"})
    run()
    assert call_edges(graph) == {("a.caller", "stub:helper_xyz")}
    write(root, {"b.py": "def helper_xyz():\n    pass\n"})
    s = run()
    assert s.changed == 1
    assert call_edges(graph) == {("a.caller", "b.helper_xyz")}  # caller in an unchanged file relinked
    assert graph.counts("demo")["nodes"].get(STUB, 0) == 0
    (root / "b.py").unlink()
    s = run()
    assert s.removed == 1
    assert call_edges(graph) == {("a.caller", "stub:helper_xyz")}
    assert graph.verify("demo") == {"orphan_files": 0, "orphan_symbols": 0, "dangling_edges": 0}


def test_bad_input_is_counted_not_fatal(env) -> None:
    root, graph, run = env
    write(root, {"ok.py": "def fine():\n    pass\n", "broken.py": "def broken(:\n    pass\n\ndef after():\n    pass\n"})
    (root / "blob.py").write_bytes(b"\x00\x01\x02binary")
    (root / "latin.py").write_bytes("def caf\xe9():\n    pass\n".encode("latin-1"))
    (root / "huge.py").write_text("x = 1\n" * 300_000)
    os.symlink(root, root / "loop")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "dep.js").write_text("module.exports = 1\n")
    (root / "notes.xyz").write_text("unsupported\n")
    s = run(max_file_bytes=1_000_000)
    assert s.skipped.get("binary") == 1
    assert s.skipped.get("too large") == 1
    assert s.skipped.get("vendored or build folder") == 1
    assert s.skipped.get("symlinked folder") == 1
    assert s.unsupported.get(".xyz") == 1
    assert graph.repos()[0].props["unsupported"] == {".xyz": 1}  # kept for stats and the Coverage page
    files = {n.props["path"]: n.props for n in graph.nodes_by_label("File", "demo")}
    assert set(files) == {"ok.py", "broken.py", "latin.py"}
    assert files["broken.py"]["had_error"] and files["broken.py"]["coverage_status"] in ("partial", "error")
    assert graph.symbols_by_qualified_name(["broken.after"])  # what parsed is kept


def test_impact_walks_callers_with_paths(env) -> None:
    root, graph, run = env
    write(root, {
        "core.py": "def low():\n    pass\n\ndef mid():\n    low()\n",
        "api.py": "from core import mid\n\ndef top():\n    mid()\n",
        "tests/test_api.py": "from api import top\n\ndef test_top():\n    top()\n",
    })
    run()
    res = impact(graph, "core.low", depth=5)
    got = {(c.node.qualified_name, c.depth) for c in res.callers if c.via == CALLS}
    assert got == {("core.mid", 1), ("api.top", 2), ("tests.test_api.test_top", 3)}
    deepest = next(c for c in res.callers if c.node.qualified_name == "tests.test_api.test_top")
    assert deepest.path == ["tests.test_api.test_top", "api.top", "core.mid", "core.low"]
    assert deepest.is_test and deepest.evidence_file == "tests/test_api.py" and deepest.evidence_line == 4
    assert [e.node.qualified_name for e in res.entry_points if e.kind == "test"] == ["tests.test_api.test_top"]
    shallow = impact(graph, "core.low", depth=1)
    assert {c.node.qualified_name for c in shallow.callers if c.via == CALLS} == {"core.mid"}
    assert res.freshness and res.freshness[0]["repo"] == "demo"
    assert "not that nothing can break" in res.notice


def test_impact_widens_through_dynamic_dispatch(env) -> None:
    root, graph, run = env
    write(root, {
        "shapes.py": (
            "class Shape:\n    def area(self):\n        return 0\n\n\n"
            "class Square(Shape):\n    def area(self):\n        return 4\n\n\n"
            "class Cube(Square):\n    def area(self):\n        return 6\n"
        ),
        "use.py": "from shapes import Shape, Square\n\n\ndef total(s: Shape):\n    return s.area()\n\n\n"
                  "def direct():\n    return Square().area()\n",
    })
    run()
    res = impact(graph, "shapes.Square.area", depth=2)
    callers = {c.node.qualified_name: c.path for c in res.callers if c.via == CALLS}
    # direct() calls Square.area; total() calls Shape.area, which may run Square.area.
    assert callers == {"use.direct": ["use.direct", "shapes.Square.area"],
                       "use.total": ["use.total", "shapes.Shape.area"]}
    assert {(w["node"].qualified_name, w["reason"].split(":")[0]) for w in res.widened} == {
        ("shapes.Shape.area", "base declaration"), ("shapes.Cube.area", "override")}


GO_MOD = "module example.com/app\n\ngo 1.21\n"


def _callers(graph: EmbeddedGraphStore, qn: str) -> list[str]:
    [target] = graph.symbols_by_qualified_name([qn], "demo")[qn]
    return sorted(h.node.props["qualified_name"] for h in graph.neighbours([target.uid], "in", [CALLS]).get(target.uid, []))


@pytest.mark.parametrize("how", ["to_existing_file", "file_renamed"])
def test_go_function_moving_between_files_keeps_its_callers(env, how: str) -> None:
    # Issue: Helper moved a.go -> b.go lost main.main as caller on the embedded store
    # (the outcome depended on the order files were written).
    root, graph, run = env
    write(root, {"go.mod": GO_MOD,
                 "main.go": "package main\n\nfunc main() {\n\tHelper()\n}\n",
                 "a.go": "package main\n\nfunc Helper() int {\n\treturn 1\n}\n\nfunc other() {}\n",
                 "b.go": "package main\n\nfunc more() {}\n"})
    run()
    assert _callers(graph, "main.Helper") == ["main.main"]
    if how == "to_existing_file":
        write(root, {"a.go": "package main\n\nfunc other() {}\n",
                     "b.go": "package main\n\nfunc more() {}\n\nfunc Helper() int {\n\treturn 1\n}\n"})
    else:
        (root / "a.go").rename(root / "c.go")
    s = run()
    assert s.changed >= 1
    assert _callers(graph, "main.Helper") == ["main.main"]
    # main.go did not change, but the symbol it calls moved: its edges are rewritten too.
    assert s.edges_rewritten_files == s.changed + 1
    forced = run(force=True)
    assert forced.full_rebuild and _callers(graph, "main.Helper") == ["main.main"]
    assert graph.verify("demo") == {"orphan_files": 0, "orphan_symbols": 0, "dangling_edges": 0}


def test_gc_is_enabled_again_after_an_extraction_error(env, monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    import codegraph.indexer.pipeline as pipeline

    root, graph, run = env
    write(root, BASE)

    def boom(*_a, **_k):
        raise RuntimeError("parser crashed")

    monkeypatch.setattr(pipeline, "extract_source", boom)
    assert gc.isenabled()
    with pytest.raises(RuntimeError, match="parser crashed"):
        run()
    assert gc.isenabled()


def test_min_confidence_leaves_out_name_matches(env) -> None:
    root, graph, run = env
    write(root, {"shop/box.py": "class Box:\n    def frobnicate(self):\n        return 1\n\n\ndef direct():\n    return Box().frobnicate()\n",
                 "shop/use.py": "def guess(thing):\n    return thing.frobnicate()\n"})
    run()
    res = impact(graph, "shop.box.Box.frobnicate", depth=1)
    got = {(c.node.qualified_name, c.resolution, c.confidence) for c in res.callers}
    assert got == {("shop.box.direct", "receiver_type", 1.0), ("shop.use.guess", "unique_name", 0.5)}
    certain = impact(graph, "shop.box.Box.frobnicate", depth=1, min_confidence=1.0)
    assert [c.node.qualified_name for c in certain.callers] == ["shop.box.direct"]
    assert certain.min_confidence == 1.0


def test_cli_impact_min_confidence(env, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from codegraph.cli import app

    root, graph, run = env
    write(root, {"shop/box.py": "class Box:\n    def frobnicate(self):\n        return 1\n",
                 "shop/use.py": "def guess(thing):\n    return thing.frobnicate()\n"})
    home = tmp_path / "clihome"
    monkeypatch.setenv("CODEGRAPH_HOME", str(home))
    from codegraph.core import settings

    settings.get_settings.cache_clear()
    cli = CliRunner()
    assert cli.invoke(app, ["index", str(root), "--repo", "demo"]).exit_code == 0
    loose = json.loads(cli.invoke(app, ["impact", "Box.frobnicate", "--json", "--depth", "1"]).stdout)
    strict = json.loads(cli.invoke(app, ["impact", "Box.frobnicate", "--json", "--depth", "1",
                                         "--min-confidence", "1"]).stdout)
    assert [(c["node"]["qualified_name"], c["confidence"]) for c in loose["callers"]] == [("shop.use.guess", 0.5)]
    assert strict["callers"] == [] and strict["min_confidence"] == 1.0

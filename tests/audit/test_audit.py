"""Accuracy audit on a fixture whose answer is known (tests/audit/fixture_repo).

The fixture is written so that every disagreement class the Python rules produce appears:
a name collision, an ambiguous stub (flagged), a builtin-typed receiver, a parameter that
shadows the target, an external call, a qualified call naming another class, dispatch
through a base class and a super() call that is not dispatch, an attribute call of a
nested function, an import alias, a bare decorator, an inherited constructor, a call in
a default value (attribution), a recursive call, calls in a comment / a string (ignored)
and inside an f-string (kept), and a generated file.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from codegraph.audit import audit, content_hash, sample_callables
from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.errors import BadInput, TargetNotFound
from codegraph.indexer.pipeline import file_hash, index_repo
from codegraph.indexer.state import StateStore

FIXTURE = Path(__file__).parent / "fixture_repo"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[EmbeddedGraphStore, Path, Path]:
    base = tmp_path_factory.mktemp("auditfx")
    root = base / "src"
    shutil.copytree(FIXTURE, root)
    graph = EmbeddedGraphStore(base / "home" / "graph.db")
    state = StateStore(base / "home" / "state.db")
    index_repo(root, "afx", graph, None, state, workers=1)
    state.close()
    return graph, root, base / "home"


def _by_target(rep):  # noqa: ANN001, ANN202 - test helper
    return {c.target: c for c in rep.callables}


def _rows(c):  # noqa: ANN001, ANN202
    return {(d.side, d.caller, d.verdict, d.category, d.sites[0].file, d.sites[0].line) for d in c.missed + c.extra}


def test_method_with_collision_ambiguous_stub_and_builtin_receiver(indexed) -> None:  # noqa: ANN001
    graph, _, _ = indexed
    c = _by_target(audit(graph, ["pkg.store.Store.save"]))["pkg.store.Store.save"]
    assert (c.expected, c.actual, c.matched) == (5, 1, 1)
    assert c.matched_callers == ["pkg.use.direct"]
    assert c.resolutions == {"receiver_type": 1}
    assert _rows(c) == {
        ("missed", "pkg.use.collision", "text_false_positive", "name collision", "pkg/use.py", 14),
        ("missed", "pkg.use.untyped", "flagged", "ambiguous stub", "pkg/use.py", 18),
        ("missed", "pkg.use.builtin_recv", "text_false_positive", "skipped by design (builtin value or builtin method name)", "pkg/use.py", 23),
        ("missed", "pkg.more.qualified", "text_false_positive", "qualified call names another owner",
         "pkg/more.py", 19),
    }
    collision = next(d for d in c.missed if d.caller == "pkg.use.collision")
    assert "pkg.store.Cache.save" in collision.detail
    assert collision.sites[0].snippet == "c.save(2)" and collision.sites[0].receiver == "c"


def test_function_alias_fstring_default_value_and_generated_file(indexed) -> None:  # noqa: ANN001
    graph, _, _ = indexed
    c = _by_target(audit(graph, ["pkg.store.helper"]))["pkg.store.helper"]
    # Text: fstring (the f-string expression is code), local_param, with_default and a
    # test; the comment and the string in `commented` are not calls; gen_pb2.py is generated.
    assert (c.expected, c.actual, c.matched) == (4, 4, 2)
    assert c.matched_callers == ["pkg.use.fstring", "tests.checks.check_helper"]
    assert c.skipped == {"graph caller in an excluded file": 1}
    assert _rows(c) == {
        ("missed", "pkg.use.local_param", "text_false_positive", "local or builtin name", "pkg/use.py", 41),
        ("missed", "pkg.use.with_default", "attribution", "graph attributes the call to another symbol",
         "pkg/use.py", 44),
        ("extra", "pkg.use.aliased", "text_miss", "import alias", "pkg/use.py", 27),
        ("extra", "pkg.use", "attribution", "text attributes the call to another symbol", "pkg/use.py", 44),
    }
    assert next(d for d in c.extra if d.caller == "pkg.use.aliased").detail == "called as h2"


def test_dispatch_constructor_decorator_external_recursion_nested(indexed) -> None:  # noqa: ANN001
    graph, _, _ = indexed
    rep = audit(graph, ["Child.step", "Store.__init__", "deco", "dumps", "countdown", "Plain.__init__", "inner"])
    by = _by_target(rep)
    assert set(by) == {"pkg.store.Child.step", "pkg.store.Store.__init__", "pkg.store.deco", "pkg.store.dumps",
                       "pkg.store.countdown", "pkg.store.Plain.__init__", "pkg.store.outer.inner"}
    # self.step() in Base.run runs Child.step on a Child: a ``dispatch`` edge; super().step()
    # in Child2 and Base.step(self) in Child3 never do.
    assert by["pkg.store.Child.step"].matched_callers == ["pkg.store.Base.run"]
    assert by["pkg.store.Child.step"].resolutions == {"dispatch": 1}
    assert _rows(by["pkg.store.Child.step"]) == {
        ("missed", "pkg.more.Child2.step", "text_false_positive", "name collision", "pkg/more.py", 15),
        ("missed", "pkg.more.Child3.step", "text_false_positive", "name collision", "pkg/more.py", 24),
        # self.step() in Sibling(Base): self is a Sibling, never a Child
        ("missed", "pkg.more.Sibling.go", "text_false_positive", "self call from a class the target's class is not below",
         "pkg/more.py", 35)}
    init = by["pkg.store.Store.__init__"]  # found as `Store(` by text, as the optional __init__ edge by the graph
    assert (init.expected, init.actual, init.matched, init.extra) == (2, 1, 1, [])
    assert init.matched_callers == ["pkg.use.direct"]
    assert _rows(init) == {("missed", "pkg.more.Err.__init__", "text_false_positive",
                            "super() into a base outside the repo", "pkg/more.py", 29)}
    assert [(x.line, x.receiver) for x in init.missed[0].sites] == [(29, "super()"), (30, "Exception")]
    assert _rows(by["pkg.store.Plain.__init__"]) == {
        ("extra", "pkg.more.make_derived", "text_miss", "constructor of a subclass (inherited)", "pkg/more.py", 6),
        ("missed", "pkg.more.Err.__init__", "text_false_positive", "super() into a base outside the repo",
         "pkg/more.py", 29)}
    assert _rows(by["pkg.store.deco"]) == {("extra", "pkg.use", "text_miss", "bare decorator", "pkg/use.py", 48)}
    assert _rows(by["pkg.store.dumps"]) == {
        ("missed", "pkg.use.external", "text_false_positive", "external call", "pkg/use.py", 54)}
    inner = by["pkg.store.outer.inner"]
    assert inner.matched_callers == ["pkg.store.outer"]
    assert _rows(inner) == {("missed", "pkg.more.nested_attr", "text_false_positive",
                             "attribute call cannot reach a nested function", "pkg/more.py", 10)}
    rec = by["pkg.store.countdown"]
    assert (rec.expected, rec.actual) == (0, 0)
    assert rec.skipped == {"recursive call (the graph keeps no self-edges)": 1}


def test_figures_per_language(indexed) -> None:  # noqa: ANN001
    graph, _, _ = indexed
    rep = audit(graph, ["pkg.store.Store.save", "pkg.store.helper", "pkg.store.Child.step", "pkg.store.deco",
                        "pkg.store.dumps"])
    s = rep.languages["python"].summary()
    # text 5+4+4+0+1 = 14 callers, graph 1+4+1+1+0 = 7, both 1+2+1 = 4
    assert (s["expected"], s["actual"], s["matched"]) == (14, 7, 4)
    assert s["raw_precision"] == round(4 / 7, 4) and s["raw_recall"] == round(4 / 14, 4)
    # judged: TP = 4 matched (the base-class dispatch included) + alias + decorator +
    # attribution extra = 7; FP 0; FN 0; flagged = the ambiguous stub (text false
    # positives and the attribution miss drop out).
    assert s["judged"] == {"true_positive": 7, "false_positive": 0, "false_negative": 0, "flagged": 1}
    assert s["precision"] == 1.0 and s["recall"] == 1.0
    assert s["recall_flagged_as_missed"] == round(7 / 8, 4) and s["flagged_share"] == round(1 / 8, 4)
    # the ambiguous `obj.save(3)` has 2 candidates: worth half a caller
    assert s["flagged_expected"] == 0.5 and s["recall_flagged_expected"] == round(7 / 7.5, 4)
    # per callable: save 1/1 & 1/2, helper 3/3 & 3/3, Child.step 1/1 & 1/1, deco 1/1 & 1/1, dumps -/-
    assert s["macro_precision"] == 1.0 and s["macro_recall"] == round((1 + 1 + 1 + 1) / 4, 4)
    assert rep.files == {"scanned": 5, "excluded: generated": 1, "stripped by tokenize": 4}
    assert [st.name for st in rep.steps] == ["pick callables", "read files (afx)", "text search (afx)",
                                             "graph callers and compare (afx)"]
    assert "HTTP" in rep.notice


def test_sample_is_seeded_and_bounded(indexed) -> None:  # noqa: ANN001
    graph, _, _ = indexed
    a = [n.props["qualified_name"] for n in sample_callables(graph, 5, seed=3, repo="afx")]
    b = [n.props["qualified_name"] for n in sample_callables(graph, 5, seed=3, repo="afx")]
    c = [n.props["qualified_name"] for n in sample_callables(graph, 5, seed=4, repo="afx")]
    assert a == b and len(a) == 5 and a != c
    every = sample_callables(graph, 1000, seed=0, repo="afx")
    names = {n.props["qualified_name"] for n in every}
    assert "pkg.gen_pb2.generated" not in names  # generated files are not sampled
    assert {"pkg.store.helper", "pkg.use.direct", "pkg.store.Store.save", "tests.checks.check_helper"} <= names
    no_tests = {n.props["qualified_name"] for n in sample_callables(graph, 1000, seed=0, repo="afx",
                                                                    include_tests=False)}
    assert no_tests == names - {"tests.checks.check_helper"}
    assert all(n.props["kind"] in ("function", "method") for n in every)
    rep = audit(graph, sample=4, seed=9, repo="afx")
    assert rep.sample == {"n": 4, "seed": 9, "repo": "afx", "language": None, "include_tests": True, "drawn": 4}
    assert len(rep.callables) == 4 and rep.languages["python"].callables == 4


def test_changed_file_is_left_out_of_both_sides(tmp_path: Path) -> None:
    root = tmp_path / "src"
    shutil.copytree(FIXTURE, root)
    graph = EmbeddedGraphStore(tmp_path / "home" / "graph.db")
    state = StateStore(tmp_path / "home" / "state.db")
    index_repo(root, "afx", graph, None, state, workers=1)
    state.close()
    use = root / "pkg" / "use.py"
    use.write_text(use.read_text() + "\n\ndef later():\n    return helper(7)\n")
    rep = audit(graph, ["pkg.store.helper"])
    c = _by_target(rep)["pkg.store.helper"]
    assert (c.expected, c.actual, c.matched) == (1, 1, 1)  # the others live in the changed or the generated file
    assert c.matched_callers == ["tests.checks.check_helper"]
    assert c.skipped == {"graph caller in an excluded file": 4}
    assert rep.files["excluded: changed since indexing"] == 1


def test_errors_are_one_line(indexed) -> None:  # noqa: ANN001
    graph, _, _ = indexed
    with pytest.raises(TargetNotFound, match="names no function or method"):
        audit(graph, ["pkg.store.Store"])
    with pytest.raises(TargetNotFound, match="nothing in the graph matches"):
        audit(graph, ["no_such_thing"])
    with pytest.raises(BadInput, match="nothing to audit"):
        audit(graph, [])


def test_hash_matches_the_indexer() -> None:
    data = (FIXTURE / "pkg" / "use.py").read_bytes()
    assert content_hash(data) == file_hash(data) == hashlib.sha1(data).hexdigest()[:16]


def test_cli_audit_json_and_text(indexed, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    import json

    from codegraph.cli import app

    _, _, home = indexed
    monkeypatch.setenv("CODEGRAPH_HOME", str(home))
    monkeypatch.setenv("CODEGRAPH_GRAPH", "embedded")
    monkeypatch.setenv("CODEGRAPH_SEARCH", "embedded")
    runner = CliRunner()
    out = runner.invoke(app, ["audit", "pkg.store.Store.save", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["languages"]["python"]["matched"] == 1
    assert {d["caller"] for d in data["callables"][0]["missed"]} == {
        "pkg.use.collision", "pkg.use.untyped", "pkg.use.builtin_recv", "pkg.more.qualified"}
    assert data["callables"][0]["judged"] == {"true_positive": 1, "false_positive": 0, "false_negative": 0,
                                              "flagged": 1}
    text = runner.invoke(app, ["audit", "helper", "--show", "1"])
    assert text.exit_code == 0, text.output
    assert "text only" in text.stdout and "more (use --show or --json)" in text.stdout
    bad = runner.invoke(app, ["audit", "no_such_thing"])
    assert bad.exit_code == 2


def test_java_declarations_comments_strings_and_constructor(tmp_path: Path) -> None:
    """C-like files: declarations (`public int save(`, `public Store(`) are not calls;
    `// save(0)` and `"save(3)"` are not either; `new Store(` calls `<init>`."""
    root = tmp_path / "src"
    shutil.copytree(Path(__file__).parent / "fixture_java", root)
    graph = EmbeddedGraphStore(tmp_path / "home" / "graph.db")
    state = StateStore(tmp_path / "home" / "state.db")
    index_repo(root, "jfx", graph, None, state, workers=1)
    state.close()
    rep = audit(graph, ["com.acme.Store.save", "com.acme.Store.<init>"])
    by = _by_target(rep)
    save = by["com.acme.Store.save"]
    assert (save.expected, save.actual, save.matched) == (3, 2, 2)
    assert save.matched_callers == ["com.acme.Use.direct", "com.acme.Use.untyped"]
    assert _rows(save) == {("missed", "com.acme.Use.collision", "text_false_positive", "name collision",
                            "com/acme/Use.java", 11)}
    init = by["com.acme.Store.<init>"]
    assert (init.expected, init.actual, init.matched, init.missed, init.extra) == (1, 1, 1, [], [])
    assert rep.files == {"scanned": 3, "stripped by regex": 3}
    s = rep.languages["java"].summary()
    assert (s["precision"], s["recall"], s["raw_recall"]) == (1.0, 1.0, 0.75)

"""Java extractor: exact edge set of tests/fixtures/java plus per-construct records."""

from __future__ import annotations

from pathlib import Path

from codegraph.indexer.languages import java
from tests.helpers import edge_set

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "java"
M = "src/main/java/com/acme"

EXPECTED = {
    # interface dispatch, typed locals, constructor calls (class + its constructor)
    ("CALLS", "com.acme.app.Main.main", "com.acme.store.Repo"),
    ("CALLS", "com.acme.app.Main.main", "com.acme.store.Repo.<init>"),
    ("CALLS", "com.acme.app.Main.main", "com.acme.model.Item"),
    ("CALLS", "com.acme.app.Main.main", "com.acme.model.Item.<init>"),
    ("CALLS", "com.acme.app.Main.main", "com.acme.store.Saver.save"),
    ("CALLS", "com.acme.app.Main.main", "com.acme.store.Repo.save"),
    ("CALLS", "com.acme.app.Main.main", "com.acme.model.Item.name"),
    ("CALLS", "com.acme.app.Main.main", "com.acme.app.Main.unknownReceiver"),
    # unknown receiver: three methods are named save -> ambiguous, never a guess
    ("CALLS", "com.acme.app.Main.main", "stub:…save"),
    ("CALLS", "com.acme.app.Main.main", "stub:System.out.println"),
    # this(...) between overloaded constructors
    ("CALLS", "com.acme.model.Item.<init>", "com.acme.model.Item.<init>"),
    # implicit this, inherited member; super(...); super.m(); field-typed receiver; static import; static call
    ("CALLS", "com.acme.store.BaseRepo.save", "com.acme.model.Item.name"),
    ("CALLS", "com.acme.store.BaseRepo.save", "com.acme.store.BaseRepo.log"),
    ("CALLS", "com.acme.store.Repo", "com.acme.store.Repo.Index"),
    ("CALLS", "com.acme.store.Repo.<init>", "com.acme.store.BaseRepo.<init>"),
    ("CALLS", "com.acme.store.Repo.save", "com.acme.model.Item.name"),
    ("CALLS", "com.acme.store.Repo.save", "com.acme.store.BaseRepo.log"),
    ("CALLS", "com.acme.store.Repo.save", "com.acme.store.BaseRepo.save"),
    ("CALLS", "com.acme.store.Repo.save", "com.acme.store.Repo.Index.add"),
    ("CALLS", "com.acme.store.Repo.save", "com.acme.util.Strings.flush"),
    ("CALLS", "com.acme.store.Repo.save", "com.acme.util.Strings.trim"),
    ("CALLS", "com.acme.store.RepoTest.savesItems", "com.acme.model.Item"),
    ("CALLS", "com.acme.store.RepoTest.savesItems", "com.acme.model.Item.<init>"),
    ("CALLS", "com.acme.store.RepoTest.savesItems", "com.acme.store.Repo"),
    ("CALLS", "com.acme.store.RepoTest.savesItems", "com.acme.store.Repo.<init>"),
    ("CALLS", "com.acme.store.RepoTest.savesItems", "com.acme.store.Repo.save"),
    ("CALLS", "com.acme.util.Strings.trim", "stub:String.strip"),
    ("EXTENDS", "com.acme.store.Repo", "com.acme.store.BaseRepo"),
    ("IMPLEMENTS", "com.acme.store.BaseRepo", "com.acme.store.Saver"),
}

EXPECTED_IMPORTS = {
    ("IMPORTS", f"{M}/store/Saver.java", f"{M}/model/Item.java"),
    ("IMPORTS", f"{M}/store/BaseRepo.java", f"{M}/model/Item.java"),
    ("IMPORTS", f"{M}/store/Repo.java", f"{M}/model/Item.java"),
    ("IMPORTS", f"{M}/store/Repo.java", f"{M}/util/Strings.java"),
    ("IMPORTS", f"{M}/app/Main.java", f"{M}/model/Item.java"),
    ("IMPORTS", "src/test/java/com/acme/store/RepoTest.java", f"{M}/model/Item.java"),
}


def test_fixture_edge_set_is_exact() -> None:
    assert edge_set(FIX, types=("CALLS", "EXTENDS", "IMPLEMENTS")) == EXPECTED


def test_fixture_imports_are_file_edges() -> None:
    assert edge_set(FIX, types=("IMPORTS",)) == EXPECTED_IMPORTS


def _fx(src: str, path: str = "src/main/java/p/A.java"):
    return java.extract("fx", path, src.encode())


def test_overloads_are_distinct_symbols_and_calls_carry_arity() -> None:
    fx = _fx("package p; class A { void f(int a) {} void f(String s, int b) {} void g() { f(1); f(\"x\", 2); } }")
    fs = [s for s in fx.symbols if s.qualified_name == "p.A.f"]
    assert len(fs) == 2 and len({s.signature_hash for s in fs}) == 2
    calls = [r for r in fx.references if r.type == "CALLS" and r.target_identifier == "f"]
    assert sorted(r.extra["arity"] for r in calls) == [1, 2]
    assert calls[0].extra["candidates"][0] == {"owner": "p.A", "member": "f", "how": "self"}


def test_signature_hash_ignores_parameter_names_and_bodies() -> None:
    a = _fx("package p; class A { void f(int a) { x(); } }")
    b = _fx("package p; class A { void f(int renamed) { y(); z(); } }")
    sig = {s.qualified_name: s.signature_hash for s in a.symbols}
    assert sig == {s.qualified_name: s.signature_hash for s in b.symbols}


def test_visibility_kinds_nesting_and_module_symbol() -> None:
    fx = _fx(
        "package p; public class A { private int x; protected void m() {} void pkg() {}"
        " interface I { void i(); } enum E { ONE } record R(int v) {} }"
    )
    got = {s.qualified_name: (s.kind, s.visibility) for s in fx.symbols}
    assert got == {
        "src/main/java/p/A.java": ("module", "public"),
        "p.A": ("class", "public"),
        "p.A.x": ("field", "private"),
        "p.A.m": ("method", "protected"),
        "p.A.pkg": ("method", "internal"),
        "p.A.I": ("interface", "internal"),
        "p.A.I.i": ("method", "public"),
        "p.A.E": ("enum", "internal"),
        "p.A.E.ONE": ("field", "public"),
        "p.A.R": ("class", "internal"),
        "p.A.R.v": ("field", "private"),
    }


def test_receiver_kinds() -> None:
    fx = _fx(
        "package p; import q.Repo; class A extends B { Repo r; void f(Repo p) {"
        " var v = new Repo(); v.a(); p.b(); r.c(); this.r.d(); super.e(); x.y(); Repo.s(); } }"
    )
    cands = {r.target_identifier: r.extra["candidates"] for r in fx.references if r.type == "CALLS"}
    for t, m in (("Repo.a", "a"), ("Repo.b", "b"), ("Repo.c", "c"), ("Repo.d", "d")):
        assert cands[t] == [{"owner": "q.Repo", "member": m, "how": "receiver_type"}]
    assert cands["Repo.s"] == [{"owner": "q.Repo", "member": "s", "how": "import"}]
    assert cands["B.e"] == [{"super_of": "p.A", "member": "e", "how": "self"}]
    unknown = next(r for r in fx.references if r.target_identifier == "x.y")
    assert unknown.extra["candidates"] == [] and unknown.extra["name"] == "y"
    assert unknown.extra["name_kinds"] == ["method"]


def test_anonymous_class_members_belong_to_the_enclosing_method() -> None:
    fx = _fx("package p; class A { void f() { new Runnable() { public void run() { g(); } }; } }")
    assert {s.qualified_name for s in fx.symbols if s.kind == "method"} == {"p.A.f"}
    g = next(r for r in fx.references if r.target_identifier == "g")
    assert g.source_qualified_name == "p.A.f"


def test_test_files_and_broken_syntax() -> None:
    assert _fx("class T {}", "src/test/java/p/T.java").file.is_test
    assert _fx("class FooTest {}", "p/FooTest.java").file.is_test
    assert not _fx("class Foo {}", "src/main/java/p/Foo.java").file.is_test
    bad = _fx("package p; class A { void f( { }")
    assert bad.file.had_error and bad.file.coverage_status in ("partial", "error")

"""Kotlin extractor: exact edge set of tests/fixtures/kotlin plus per-construct records."""

from __future__ import annotations

from pathlib import Path

from codegraph.indexer.languages import kotlin
from tests.helpers import edge_set

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "kotlin"
M = "src/main/kotlin/com/acme"

# Interface dispatch (saver.save), companion calls (Repo.create), constructor calls
# (class + primary/secondary <init>), import aliases (clean -> trim), an imported
# extension function (shout), super calls, ctor-property receivers (index.add), and
# top-level property initialisers owned by the file's module symbol.
EXPECTED = {
    ('CALLS', 'com.acme.app.main', 'com.acme.model.Item'),
    ('CALLS', 'com.acme.app.main', 'com.acme.model.Item.<init>'),
    ('CALLS', 'com.acme.app.main', 'com.acme.model.Item.label'),
    ('CALLS', 'com.acme.app.main', 'com.acme.store.Index'),
    ('CALLS', 'com.acme.app.main', 'com.acme.store.Repo'),
    ('CALLS', 'com.acme.app.main', 'com.acme.store.Repo.<init>'),
    ('CALLS', 'com.acme.app.main', 'com.acme.store.Repo.create'),
    ('CALLS', 'com.acme.app.main', 'com.acme.store.Repo.save'),
    ('CALLS', 'com.acme.app.main', 'com.acme.store.Saver.save'),
    ('CALLS', 'com.acme.app.main', 'com.acme.util.shout'),
    ('CALLS', 'com.acme.app.main', 'stub:listOf'),
    ('CALLS', 'com.acme.app.main', 'stub:println'),
    ('CALLS', 'com.acme.app.main', 'stub:…forEach'),
    ('CALLS', 'com.acme.model.Item.<init>', 'com.acme.model.Item.<init>'),
    ('CALLS', 'com.acme.model.Item.label', 'stub:String.uppercase'),
    ('CALLS', 'com.acme.store.BaseRepo.save', 'com.acme.model.Item.label'),
    ('CALLS', 'com.acme.store.BaseRepo.save', 'com.acme.store.BaseRepo.log'),
    ('CALLS', 'com.acme.store.Repo.create', 'com.acme.store.Index'),
    ('CALLS', 'com.acme.store.Repo.create', 'com.acme.store.Repo'),
    ('CALLS', 'com.acme.store.Repo.create', 'com.acme.store.Repo.<init>'),
    ('CALLS', 'com.acme.store.Repo.save', 'com.acme.store.BaseRepo.log'),
    ('CALLS', 'com.acme.store.Repo.save', 'com.acme.store.BaseRepo.save'),
    ('CALLS', 'com.acme.store.Repo.save', 'com.acme.store.Index.add'),
    ('CALLS', 'com.acme.store.Repo.save', 'com.acme.util.Strings.flush'),
    ('CALLS', 'com.acme.store.Repo.save', 'com.acme.util.trim'),
    ('CALLS', 'com.acme.store.RepoTest.savesItems', 'com.acme.model.Item'),
    ('CALLS', 'com.acme.store.RepoTest.savesItems', 'com.acme.model.Item.<init>'),
    ('CALLS', 'com.acme.store.RepoTest.savesItems', 'com.acme.store.Repo.create'),
    ('CALLS', 'com.acme.store.RepoTest.savesItems', 'stub:…save'),
    ('CALLS', 'com.acme.util.shout', 'stub:uppercase'),
    ('CALLS', 'com.acme.util.trim', 'stub:String.trim'),
    ('CALLS', 'src/main/kotlin/com/acme/app/Main.kt', 'com.acme.store.Repo.create'),
    ('EXTENDS', 'com.acme.store.Repo', 'com.acme.store.BaseRepo'),
    ('IMPLEMENTS', 'com.acme.store.BaseRepo', 'com.acme.store.Saver'),
}

EXPECTED_IMPORTS = {
    ("IMPORTS", f"{M}/store/Saver.kt", f"{M}/model/Item.kt"),
    ("IMPORTS", f"{M}/store/BaseRepo.kt", f"{M}/model/Item.kt"),
    ("IMPORTS", f"{M}/store/Repo.kt", f"{M}/model/Item.kt"),
    ("IMPORTS", f"{M}/store/Repo.kt", f"{M}/util/Strings.kt"),
    ("IMPORTS", f"{M}/app/Main.kt", f"{M}/model/Item.kt"),
    ("IMPORTS", f"{M}/app/Main.kt", f"{M}/util/Strings.kt"),
    ("IMPORTS", "src/test/kotlin/com/acme/store/RepoTest.kt", f"{M}/model/Item.kt"),
}


def test_fixture_edge_set_is_exact() -> None:
    assert edge_set(FIX, types=("CALLS", "EXTENDS", "IMPLEMENTS")) == EXPECTED


def test_fixture_imports_are_file_edges() -> None:
    assert edge_set(FIX, types=("IMPORTS",)) == EXPECTED_IMPORTS


def _fx(src: str, path: str = "src/main/kotlin/p/A.kt"):
    return kotlin.extract("fx", path, src.encode())


def test_symbols_kinds_visibility_and_names() -> None:
    fx = _fx(
        "package p\n"
        "internal class A(val x: Int, y: Int) : B(y), I {\n"
        "  private fun f(a: Int) {}\n  fun f(a: String) {}\n"
        "  companion object { fun make(): A = A(1, 2) }\n"
        "  object Single\n  enum class E { ONE }\n}\n"
        "interface I { fun i() }\n"
        "fun String.ext(): Int = length\n"
        "val top = 1\n"
    )
    got = {(s.qualified_name, s.kind, s.visibility) for s in fx.symbols}
    assert got == {
        ("src/main/kotlin/p/A.kt", "module", "public"),
        ("p.A", "class", "internal"),
        ("p.A.x", "field", "public"),
        ("p.A.<init>", "method", "public"),
        ("p.A.f", "method", "private"),
        ("p.A.f", "method", "public"),
        ("p.A.make", "method", "public"),
        ("p.A.Single", "class", "public"),
        ("p.A.E", "enum", "public"),
        ("p.A.E.ONE", "field", "public"),
        ("p.I", "interface", "public"),
        ("p.I.i", "method", "public"),
        ("p.ext", "function", "public"),
        ("p.top", "variable", "public"),
    }
    assert len({s.signature_hash for s in fx.symbols if s.qualified_name == "p.A.f"}) == 2


def test_supertypes_constructor_call_is_extends_bare_type_implements() -> None:
    fx = _fx("package p\nclass A : B(), I, J by d\ninterface K : I\n")
    got = {(r.type, r.source_qualified_name, r.target_identifier) for r in fx.references
           if r.type in ("EXTENDS", "IMPLEMENTS")}
    assert got == {("EXTENDS", "p.A", "B"), ("IMPLEMENTS", "p.A", "I"), ("IMPLEMENTS", "p.A", "J"),
                   ("EXTENDS", "p.K", "I")}
    ctor = next(r for r in fx.references if r.target_identifier == "B.<init>")
    assert ctor.extra["optional"] and ctor.extra["candidates"] == [{"super_of": "p.A", "member": "<init>", "how": "self"}]


def test_expect_actual_copies_are_distinct_nodes() -> None:
    a = _fx("package p\nexpect fun now(): Long\n", "src/commonMain/kotlin/p/T.kt")
    b = _fx("package p\nactual fun now(): Long = 0\n", "src/jvmMain/kotlin/p/T.kt")
    sa = next(s for s in a.symbols if s.qualified_name == "p.now")
    sb = next(s for s in b.symbols if s.qualified_name == "p.now")
    assert sa.signature_hash != sb.signature_hash


def test_lambdas_and_local_functions_are_not_references() -> None:
    fx = _fx("package p\nfun f(cb: () -> Unit) { val g = { 1 }; fun h() {}; cb(); g(); h(); k() }\n")
    assert [r.target_identifier for r in fx.references if r.type == "CALLS"] == ["k"]


def test_test_files() -> None:
    assert _fx("class T", "src/test/kotlin/p/T.kt").file.is_test
    assert _fx("class T", "src/jvmTest/kotlin/p/T.kt").file.is_test
    assert not _fx("class T", "src/main/kotlin/p/T.kt").file.is_test

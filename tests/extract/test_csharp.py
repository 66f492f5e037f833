"""C# extractor: exact edge set of tests/fixtures/csharp plus per-construct records."""

from __future__ import annotations

from pathlib import Path

from codegraph.indexer.languages import csharp
from tests.helpers import edge_set

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "csharp"

# Interface dispatch (saver.Save), constructor calls incl. target-typed ``new()``,
# ``: base()`` / ``: this()`` chains, ``base.Save``, a field-typed receiver (_index.Add),
# ``using static`` (Trim), a namespace alias (M.Item), a block and a file-scoped
# namespace, a partial class, an external interface (stub), an unknown receiver
# (ambiguous stub, never a guess).
EXPECTED = {
    ('CALLS', 'Acme.App.Program.Main', 'Acme.App.Program.Unknown'),
    ('CALLS', 'Acme.App.Program.Main', 'Acme.Model.Item'),
    ('CALLS', 'Acme.App.Program.Main', 'Acme.Model.Item..ctor'),
    ('CALLS', 'Acme.App.Program.Main', 'Acme.Model.Item.Label'),
    ('CALLS', 'Acme.App.Program.Main', 'Acme.Store.ISaver.Save'),
    ('CALLS', 'Acme.App.Program.Main', 'Acme.Store.Repo'),
    ('CALLS', 'Acme.App.Program.Main', 'Acme.Store.Repo..ctor'),
    ('CALLS', 'Acme.App.Program.Main', 'Acme.Store.Repo.Save'),
    ('CALLS', 'Acme.App.Program.Main', 'stub:System.Console.WriteLine'),
    ('CALLS', 'Acme.App.Program.Main', 'stub:…Save'),
    ('CALLS', 'Acme.Model.Item..ctor', 'Acme.Model.Item..ctor'),
    ('CALLS', 'Acme.Model.Item.Label', 'stub:string.ToUpper'),
    ('CALLS', 'Acme.Store.BaseRepo.Save', 'Acme.Model.Item.Label'),
    ('CALLS', 'Acme.Store.BaseRepo.Save', 'Acme.Store.BaseRepo.Log'),
    ('CALLS', 'Acme.Store.Repo', 'Acme.Store.Repo.Index'),
    ('CALLS', 'Acme.Store.Repo..ctor', 'Acme.Store.BaseRepo..ctor'),
    ('CALLS', 'Acme.Store.Repo.Save', 'Acme.Store.BaseRepo.Log'),
    ('CALLS', 'Acme.Store.Repo.Save', 'Acme.Store.BaseRepo.Save'),
    ('CALLS', 'Acme.Store.Repo.Save', 'Acme.Store.Repo.Index.Add'),
    ('CALLS', 'Acme.Store.Repo.Save', 'Acme.Util.Strings.Flush'),
    ('CALLS', 'Acme.Store.Repo.Save', 'Acme.Util.Strings.Trim'),
    ('CALLS', 'Acme.Store.Tests.RepoTests.SavesItems', 'Acme.Model.Item'),
    ('CALLS', 'Acme.Store.Tests.RepoTests.SavesItems', 'Acme.Model.Item..ctor'),
    ('CALLS', 'Acme.Store.Tests.RepoTests.SavesItems', 'Acme.Store.Repo'),
    ('CALLS', 'Acme.Store.Tests.RepoTests.SavesItems', 'Acme.Store.Repo..ctor'),
    ('CALLS', 'Acme.Store.Tests.RepoTests.SavesItems', 'Acme.Store.Repo.Save'),
    ('CALLS', 'Acme.Util.Strings.Trim', 'stub:string.Trim'),
    ('EXTENDS', 'Acme.Store.Repo', 'Acme.Store.BaseRepo'),
    ('IMPLEMENTS', 'Acme.Store.BaseRepo', 'Acme.Store.ISaver'),
    ('IMPLEMENTS', 'Acme.Store.Repo', 'stub:IDisposable'),
}

EXPECTED_IMPORTS = {
    ("IMPORTS", "src/Acme.Store/Repo.cs", "src/Acme.Store/Strings.cs"),
}


def test_fixture_edge_set_is_exact() -> None:
    assert edge_set(FIX, types=("CALLS", "EXTENDS", "IMPLEMENTS")) == EXPECTED


def test_fixture_imports_are_file_edges() -> None:
    assert edge_set(FIX, types=("IMPORTS",)) == EXPECTED_IMPORTS


def _fx(src: str, path: str = "src/P/A.cs"):
    return csharp.extract("fx", path, src.encode())


def test_symbols_kinds_visibility_and_overloads() -> None:
    fx = _fx(
        "namespace P { public class A { int x; public int Y { get; set; } protected internal void F(int a) {}"
        " private protected void F(string s) {} public A() {} static A() {} ~A() {}"
        " public static A operator +(A a, A b) => a; public int this[int i] => i;"
        " public event System.EventHandler E; struct S {} enum K { One } interface I { void M(); } } }"
        " class G {}"
    )
    got = {(s.qualified_name, s.kind, s.visibility) for s in fx.symbols}
    assert got == {
        ("src/P/A.cs", "module", "public"),
        ("P.A", "class", "public"),
        ("P.A.x", "field", "private"),
        ("P.A.Y", "field", "public"),
        ("P.A.F", "method", "protected"),
        ("P.A.F", "method", "private"),
        ("P.A..ctor", "method", "public"),
        ("P.A..cctor", "method", "private"),
        ("P.A.Finalize", "method", "private"),
        ("P.A.operator +", "method", "public"),
        ("P.A.this[]", "method", "public"),
        ("P.A.E", "field", "public"),
        ("P.A.S", "struct", "private"),
        ("P.A.K", "enum", "private"),
        ("P.A.K.One", "field", "public"),
        ("P.A.I", "interface", "private"),
        ("P.A.I.M", "method", "public"),
        ("G", "class", "internal"),
    }
    assert len({s.signature_hash for s in fx.symbols if s.qualified_name == "P.A.F"}) == 2


def test_base_list_convention() -> None:
    fx = _fx("namespace P; class A : B, IFoo, Bar {} class C : IFoo {} struct S : Eq {} interface I : IA, IB {}")
    got = {(r.type, r.source_qualified_name, r.target_identifier) for r in fx.references
           if r.type in ("EXTENDS", "IMPLEMENTS")}
    assert got == {
        ("EXTENDS", "P.A", "B"), ("IMPLEMENTS", "P.A", "IFoo"), ("IMPLEMENTS", "P.A", "Bar"),
        ("IMPLEMENTS", "P.C", "IFoo"), ("IMPLEMENTS", "P.S", "Eq"),
        ("EXTENDS", "P.I", "IA"), ("EXTENDS", "P.I", "IB"),
    }


def test_partial_types_are_one_node_per_file() -> None:
    a = _fx("namespace P { partial class A { void F() {} } }", "a/A.cs")
    b = _fx("namespace P { partial class A { void G() {} } }", "a/A.Part.cs")
    ha = next(s.signature_hash for s in a.symbols if s.qualified_name == "P.A")
    hb = next(s.signature_hash for s in b.symbols if s.qualified_name == "P.A")
    assert ha != hb


def test_local_functions_lambdas_and_namespaces() -> None:
    fx = _fx(
        "namespace Outer { namespace Inner { class A { void F() { L(); var f = () => 1; f(); X(); void L() {} } } } }"
    )
    calls = [r for r in fx.references if r.type == "CALLS"]
    assert [r.target_identifier for r in calls] == ["X"]
    assert calls[0].source_qualified_name == "Outer.Inner.A.F"
    assert calls[0].extra["candidates"] == [{"owner": "Outer.Inner.A", "member": "X", "how": "self"}]


def test_test_projects_are_tests() -> None:
    assert _fx("class T {}", "src/Acme.Store.Tests/RepoTests.cs").file.is_test
    assert _fx("class T {}", "src/App/FooTests.cs").file.is_test
    assert not _fx("class T {}", "src/App/Foo.cs").file.is_test

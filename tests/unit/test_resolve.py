"""Resolver rules on hand-built records (no parser): candidates in order, base-class
walk, re-exports, unique-name fallback, ambiguous/missing stubs, optional refs."""

from __future__ import annotations

from codegraph.core.models import FileRecord, SymbolRecord
from codegraph.indexer.records import FileExtraction, Reference
from codegraph.indexer.resolve import Decision, resolve_repo

R = "r"


def sym(qn: str, file: str, kind: str = "function", parent: str | None = None, sig: str = "s") -> SymbolRecord:
    name = qn.rsplit(".", 1)[-1]
    return SymbolRecord(R, qn, sig, name, kind, "python", "x", file, 1, 2, parent=parent)


def fx(path: str, symbols: list[SymbolRecord], refs: list[Reference] | None = None,
       exports: dict | None = None) -> FileExtraction:
    return FileExtraction(FileRecord(R, path, "python", "h"), symbols, refs or [], exports=exports or {})


def call(src: str, file: str, target: str, cands: list[dict] | None = None, **extra: object) -> Reference:
    return Reference("CALLS", src, target, file, 3, extra={"candidates": cands or [], **extra})


def edges(res) -> set[tuple[str, str, str, str]]:
    def end(uid: str) -> str:
        kind, _, rest = uid.partition("|")
        rest = rest.partition("|")[2]
        return rest.rsplit("|", 1)[0] if kind == "sym" else (f"stub:{rest}" if kind == "stub" else rest)

    return {(e.type, end(e.source), end(e.target), e.resolution) for es in res.edges.values() for e in es}


def test_candidates_in_order_and_member_walk_through_bases() -> None:
    a = fx("a.py", [sym("a", "a.py", "module"), sym("a.Base", "a.py", "class", "a"),
                    sym("a.Base.run", "a.py", "method", "a.Base"), sym("a.Child", "a.py", "class", "a"),
                    sym("a.main", "a.py", parent="a")],
           [Reference("EXTENDS", "a.Child", "Base", "a.py", 5, extra={"candidates": [{"qn": "a.Base", "how": "same_module"}]}),
            call("a.main", "a.py", "c.run", [{"owner": "a.Child", "member": "run", "how": "receiver_type"}]),
            call("a.main", "a.py", "Child", [{"qn": "nope"}, {"qn": "a.Child", "how": "same_module"}]),
            call("a.main", "a.py", "Child.__init__", [{"owner": "a.Child", "member": "__init__"}], optional=True)])
    res = resolve_repo(R, [a])
    assert edges(res) == {
        ("EXTENDS", "a.Child", "a.Base", "same_module"),
        ("CALLS", "a.main", "a.Base.run", "receiver_type"),
        ("CALLS", "a.main", "a.Child", "same_module"),
    }
    assert res.stubs == {}


def test_reexport_chain_and_star_export() -> None:
    impl = fx("pkg/impl.py", [sym("pkg.impl", "pkg/impl.py", "module"), sym("pkg.impl.f", "pkg/impl.py", parent="pkg.impl")],
              exports={"f": {"qn": "pkg.impl.f"}})
    init = fx("pkg/__init__.py", [sym("pkg", "pkg/__init__.py", "module")],
              exports={"g": {"from": ["pkg/impl.py"], "name": "f"}, "*": {"from_all": [["pkg/impl.py"]]}})
    user = fx("u.py", [sym("u", "u.py", "module")],
              [call("u", "u.py", "g", [{"file": ["pkg.py", "pkg/__init__.py"], "export": "g", "how": "import"}]),
               call("u", "u.py", "f", [{"file": ["pkg/__init__.py"], "export": "f", "how": "import"}])])
    assert edges(resolve_repo(R, [impl, init, user])) == {
        ("CALLS", "u", "pkg.impl.f", "import"),
    }  # both calls reach the same target at the same line: one edge


def test_unique_name_fallback_ambiguous_and_missing_stubs() -> None:
    a = fx("a.py", [sym("a", "a.py", "module"), sym("a.A", "a.py", "class", "a"),
                    sym("a.A.save", "a.py", "method", "a.A"), sym("a.A.load", "a.py", "method", "a.A")])
    b = fx("b.py", [sym("b", "b.py", "module"), sym("b.B", "b.py", "class", "b"),
                    sym("b.B.save", "b.py", "method", "b.B"), sym("b.save", "b.py", "function", "b"),
                    sym("b.go", "b.py", parent="b")],
           [call("b.go", "b.py", "x.save", name="save", name_kinds=["method"]),
            call("b.go", "b.py", "x.load", name="load", name_kinds=["method"]),
            call("b.go", "b.py", "os.path.join", [{"qn": "os.path.join", "how": "import"}]),
            call("b.go", "b.py", "x.gone", name="gone")])
    res = resolve_repo(R, [a, b])
    assert edges(res) == {
        ("CALLS", "b.go", "stub:x.save", "stub"),
        ("CALLS", "b.go", "a.A.load", "unique_name"),
        ("CALLS", "b.go", "stub:os.path.join", "stub"),
        ("CALLS", "b.go", "stub:x.gone", "stub"),
    }
    st = {s.target_identifier: s for s in res.stubs.values()}
    assert st["x.save"].reason == "ambiguous" and st["x.save"].candidates == ["a.A.save", "b.B.save"]
    assert st["os.path.join"].reason == "missing" and st["x.gone"].reason == "missing"


def test_overloads_all_linked_and_labelled() -> None:
    a = fx("A.java", [sym("p.A", "A.java", "class"), sym("p.A.f", "A.java", "method", "p.A", sig="1"),
                      sym("p.A.f", "A.java", "method", "p.A", sig="2"), sym("p.A.g", "A.java", "method", "p.A")],
           [call("p.A.g", "A.java", "f", [{"owner": "p.A", "member": "f", "how": "self"}])])
    res = resolve_repo(R, [a])
    assert {(e.target.rsplit("|", 1)[1], e.resolution) for es in res.edges.values() for e in es} == {
        ("1", "overload"), ("2", "overload")}


def test_decisions_override_stub() -> None:
    a = fx("a.py", [sym("a", "a.py", "module"), sym("a.f", "a.py", parent="a"), sym("a.g", "a.py", parent="a")],
           [call("a.g", "a.py", "thing.save", name="save"), call("a.g", "a.py", "requests.get", [{"qn": "requests.get"}])])
    f_uid = a.symbols[1].uid
    res = resolve_repo(R, [a], {"thing.save": Decision("thing.save", "resolve", symbol_uid=f_uid),
                                "requests.get": Decision("requests.get", "external", library="requests")})
    assert edges(res) == {("CALLS", "a.g", "a.f", "exact")}
    assert res.stubs == {}

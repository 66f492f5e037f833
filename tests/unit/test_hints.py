"""Typed resolution hints (codegraph.indexer.hints): every dict shape parses to its kind,
``to_dict`` round-trips, precedence where several keys are present, malformed hints are
refused with the field named, unknown shapes are kept and counted, never dropped."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codegraph.core.models import FileRecord, SymbolRecord
from codegraph.indexer.hints import (
    Directory,
    ExportMember,
    ExportRef,
    FileExport,
    FilePath,
    GoImport,
    HintError,
    Member,
    ModuleArg,
    ModuleChain,
    ModuleOfCall,
    ParamCall,
    Pass,
    QualifiedName,
    RefHints,
    ReturnMember,
    SuperMember,
    UnknownHint,
    owner_to_dict,
    parse_hint,
    parse_owner,
    reference_hints,
    to_dicts,
)
from codegraph.indexer.records import FileExtraction, Reference, read_jsonl_run, write_jsonl
from codegraph.indexer.resolve import resolve_repo

OE = {"file": ["a/b.py", "a/b/__init__.py"], "export": "C"}

SHAPES = [
    ({"qn": "pkg.f", "how": "import"}, QualifiedName("pkg.f", "import")),
    ({"path": "src/a.ts", "how": "import"}, FilePath("src/a.ts", "import")),
    ({"dir": "pkg/", "how": "import"}, Directory("pkg/", "import")),
    ({"file": ["a.ts", "a/index.ts"], "export": "default", "how": "import"},
     FileExport(("a.ts", "a/index.ts"), "default", "import")),
    ({"module_chain": {"file": ["os.py"], "attrs": ["path", "join"]}, "how": "module_alias"},
     ModuleChain(("os.py",), ("path", "join"), False, "module_alias")),
    ({"module_chain": {"file": ["os.py"], "attrs": ["path"], "to_file": True}, "how": "module_alias"},
     ModuleChain(("os.py",), ("path",), True, "module_alias")),
    ({"owner": "a.C", "member": "run", "how": "receiver_type"}, Member("a.C", "run", "receiver_type")),
    ({"super_of": "a.C", "member": "run", "how": "self"}, SuperMember("a.C", "run", "self")),
    ({"owner_export": OE, "member": "run", "how": "import"},
     ExportMember(ExportRef(("a/b.py", "a/b/__init__.py"), "C"), "run", "import")),
    ({"returns_of": OE, "member": "run", "how": "return_type"},
     ReturnMember(ExportRef(("a/b.py", "a/b/__init__.py"), "C"), "run", "return_type")),
    ({"module_of_call": {**OE, "args": [{"index": 0, "file": ["p/m.py"], "top": ["p.py"]}, {"kw": "name", "file": ["q.py"]}]},
      "attrs": ["sub", "f"], "how": "dynamic_import"},
     ModuleOfCall(ExportRef(("a/b.py", "a/b/__init__.py"), "C"),
                  (ModuleArg(0, None, ("p/m.py",), ("p.py",)), ModuleArg(None, "name", ("q.py",), ("q.py",))),
                  ("sub", "f"), None, "dynamic_import")),
    ({"module_of_call": {**OE, "args": []}, "attrs": ["C"], "member": "__init__", "how": "dynamic_import"},
     ModuleOfCall(ExportRef(("a/b.py", "a/b/__init__.py"), "C"), (), ("C",), "__init__", "dynamic_import")),
    ({"go_import": "example.com/x", "go_qn": "T", "how": "import"}, GoImport("example.com/x", "T", how="import")),
    ({"go_import": "example.com/x", "go_owner": "T", "member": "M", "how": "receiver_type"},
     GoImport("example.com/x", owner="T", member="M", how="receiver_type")),
]


@pytest.mark.parametrize(("raw", "hint"), SHAPES, ids=[type(h).__name__ for _, h in SHAPES])
def test_each_shape_parses_to_its_kind_and_back(raw: dict, hint: object) -> None:
    assert parse_hint(raw) == hint
    assert hint.to_dict() == raw  # type: ignore[attr-defined]


def test_how_defaults_to_exact_and_first_fitting_kind_wins() -> None:
    assert parse_hint({"qn": "x"}) == QualifiedName("x", "exact")
    # The order the resolver always applied: qn before owner/member, file+export before a member.
    assert parse_hint({"qn": "x", "owner": "C", "member": "m"}) == QualifiedName("x")
    assert parse_hint({"file": ["a.py"], "export": "e", "owner": "C", "member": "m"}) == FileExport(("a.py",), "e")
    assert parse_hint({"owner": "C", "super_of": "D", "member": "m"}) == Member("C", "m")


@pytest.mark.parametrize(("raw", "says"), [
    ({"qn": 5}, "'qn' must be a string"),
    ({"qn": "x", "how": 1}, "'how' must be a string"),
    ({"owner": "C"}, "'member' must be a string"),
    ({"file": "a.py", "export": "e"}, "'file' must be a list of strings"),
    ({"owner_export": ["a.py"], "member": "m"}, "owner_export hint: must be an object"),
    ({"module_chain": {"file": ["a.py"], "attrs": [1]}}, "'attrs' must be a list of strings"),
    (["qn", "x"], "a candidate must be an object"),
    ({"module_of_call": {**OE}, "attrs": ["f"]}, "module_of_call hint: must be an object with"),
    ({"module_of_call": {**OE, "args": [{"index": "0", "file": ["m.py"]}]}, "attrs": ["f"]},
     "'index' must be an integer or null"),
])
def test_malformed_hint_names_the_field(raw: object, says: str) -> None:
    with pytest.raises(HintError, match=says):
        parse_hint(raw)  # type: ignore[arg-type]


def test_unknown_shape_is_kept_as_it_came() -> None:
    raw = {"future_kind": {"x": 1}, "how": "import"}
    h = parse_hint(raw)
    assert isinstance(h, UnknownHint) and h.how == "import"
    assert h.to_dict() == raw


def test_reference_hints_pass_and_param_call() -> None:
    extra = {"candidates": [{"qn": "m.work"}], "pass": {"callee": [{"qn": "m.run", "how": "import"}], "index": 0, "kw": None},
             "param_call": {"owner": "m.run", "index": 0, "name": "fn"}, "name": "work"}
    hints = reference_hints(extra)
    assert hints == RefHints((QualifiedName("m.work"),), Pass((QualifiedName("m.run", "import"),), 0, None),
                             ParamCall("m.run", "fn", 0))
    assert hints.pass_ is not None and hints.pass_.to_dict() == extra["pass"]
    assert hints.param_call is not None and hints.param_call.to_dict() == extra["param_call"]
    assert reference_hints({"name": "x"}) == RefHints()
    with pytest.raises(HintError, match=r"candidates\[1\]: qn hint"):
        reference_hints({"candidates": [{"qn": "a"}, {"qn": None}]})
    with pytest.raises(HintError, match="pass: pass hint: 'index' must be an integer"):
        reference_hints({"pass": {"callee": [], "index": "0"}})


def test_returns_owners() -> None:
    assert parse_owner({"owner": "a.C"}) == "a.C"
    assert parse_owner({"owner_export": OE}) == ExportRef(("a/b.py", "a/b/__init__.py"), "C")
    assert owner_to_dict(parse_owner({"owner_export": OE})) == {"owner_export": OE}
    with pytest.raises(HintError):
        parse_owner({"qn": "a.C"})


_names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)
_files = st.lists(_names, max_size=3).map(tuple)
_export = st.builds(ExportRef, _files, _names)
_hint = st.one_of(
    st.builds(QualifiedName, _names, _names), st.builds(FilePath, _names, _names),
    st.builds(Directory, _names, _names), st.builds(FileExport, _files, _names, _names),
    st.builds(ModuleChain, _files, _files, st.booleans(), _names), st.builds(Member, _names, _names, _names),
    st.builds(SuperMember, _names, _names, _names), st.builds(ExportMember, _export, _names, _names),
    st.builds(ReturnMember, _export, _names, _names),
    st.builds(GoImport, _names, st.none() | _names, st.none() | _names, st.none() | _names, _names),
)


@given(st.lists(_hint, max_size=4))
def test_to_dict_then_parse_is_the_same_hint(hints: list) -> None:
    # Through JSON too: what the JSONL file holds parses back to the same hints.
    raw = json.loads(json.dumps(to_dicts(hints)))
    assert [parse_hint(d) for d in raw] == hints


def _sym(qn: str, path: str, kind: str = "function", parent: str | None = None) -> SymbolRecord:
    return SymbolRecord("r", qn, "s", qn.rsplit(".", 1)[-1], kind, "python", "x", path, 1, 2, parent=parent)


def _files(cands: list) -> list[FileExtraction]:
    return [FileExtraction(FileRecord("r", "a.py", "python", "h"),
                           [_sym("a", "a.py", "module"), _sym("a.main", "a.py", parent="a"), _sym("a.f", "a.py", parent="a")],
                           [Reference("CALLS", "a.main", "f", "a.py", 3, extra={"candidates": cands})])]


def test_resolver_counts_unknown_and_bad_hints_and_keeps_the_reference() -> None:
    res = resolve_repo("r", _files([{"future_kind": 1}, {"qn": "a.f"}]))
    assert res.counts["unknown_hint"] == 1
    assert [(e.target.split("|")[2], e.resolution) for es in res.edges.values() for e in es] == [("a.f", "exact")]
    # A malformed hint from an extractor: counted, and the reference becomes a stub (not lost).
    res = resolve_repo("r", _files([{"qn": 7}]))
    assert res.counts["bad_hint"] == 1 and res.counts["missing"] == 1
    assert [e.target for es in res.edges.values() for e in es] == ["stub|r|f"]


def test_jsonl_reader_refuses_a_malformed_hint_line_and_keeps_unknown_shapes() -> None:
    out = io.StringIO()
    write_jsonl(out, {"repo": "r"}, _files([{"future_kind": 1}]))
    lines = out.getvalue().splitlines()
    bad = json.loads(next(x for x in lines if '"relationship"' in x))
    bad["extra"]["candidates"] = [{"owner": "a.C"}]
    text = "\n".join([*lines[:-1], json.dumps(bad), lines[-1]]) + "\n"
    run = read_jsonl_run(io.StringIO(text))
    assert [p.reason for p in run.problems] == [
        "resolution hint: candidates[0]: owner hint: 'member' must be a string, not NoneType"]
    kept = run.files[0].references
    assert len(kept) == 1 and kept[0].extra["candidates"] == [{"future_kind": 1}]

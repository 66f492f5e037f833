"""The adapters' Python views read the Python extractor's captures instead of running
queries of their own: the call view (``_syntax.calls`` with a name regex) must give the
calls the query with ``#match?`` gives, in document order (the query's own order
differed only between calls that start at one byte); the string constants and import
bindings what their queries gave; and the capture memo must hand out a tree's captures
only for that tree."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from codegraph.indexer import treesitter as ts
from codegraph.indexer.adapters import call_name_re
from codegraph.indexer.adapters._syntax import base, constants, import_bindings
from codegraph.indexer.adapters._syntax.calls import _NAMED_CALL_QUERY, as_call, calls
from codegraph.indexer.adapters._syntax.imports import ImportBinding
from codegraph.indexer.adapters._syntax.strings import string_parts
from codegraph.indexer.adapters._syntax.values import _CONST_QUERY

SOURCE = b'''
import db
x = db.objects.filter(a).get(b)   # nested chain: outer and inner start at one byte
f(g)(h)                           # a call whose function is a call: never matched
m[0](1); get(); get
obj.get_or_create(x=1).save()
def k(session):
    session.query(User).filter(User.id == get(2)).first()
    return [create(i) for i in items], lambda: delete(z)
@route.get("/x")
def view(): Model.objects.all().update(y=2)
'''


def query_view(source: bytes, name_re: str) -> list[tuple[int, int, str]]:
    """What the view gave before: the named-call query's captures (base.captures order)."""
    root = ts.parse("python", source).root_node
    quoted = name_re.replace("\\", "\\\\").replace('"', '\\"')
    seen: set[int] = set()
    out = []
    for n in base.captures("python", _NAMED_CALL_QUERY["python"].replace("{re}", quoted), root):
        if n.type == "identifier" or n.id in seen:
            continue
        seen.add(n.id)
        c = as_call("python", n)
        if c is not None:
            out.append((c.node.start_byte, -c.node.end_byte, c.callee))
    return sorted(out)  # document order: by start, the outer call first


def capture_view(source: bytes, name_re: str) -> list[tuple[int, int, str]]:
    root = ts.parse("python", source).root_node
    return [(c.node.start_byte, -c.node.end_byte, c.callee) for c in calls("python", root, name_re)]


def test_the_view_gives_the_named_calls_in_document_order() -> None:
    got = capture_view(SOURCE, call_name_re())
    assert [callee for _, _, callee in got] == [
        "db.objects.filter().get", "db.objects.filter", "get", "obj.get_or_create().save", "obj.get_or_create",
        "session.query().filter().first", "session.query().filter", "session.query", "get", "create", "delete",
        "route.get", "Model.objects.all().update", "Model.objects.all"]
    for name_re in (call_name_re(), "^(?:get|save)$", "ue", "."):
        assert capture_view(SOURCE, name_re) == query_view(SOURCE, name_re)


NAMES = st.sampled_from(["get", "filter", "f", "objects", "save", "x", "query", "all"])
CALL = st.builds(lambda r, n, a: f"{r}{n}({a})", st.sampled_from(["", "a.", "a.b().", "(a).", "a[0].", "a[0]", "f()"]), NAMES,
                 st.sampled_from(["", "1", "k=get()", "f(x)", "lambda: save()"]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.builds(lambda c, t: c + t, CALL, st.sampled_from(["", ".get()", "()", ".x"])), min_size=1,
                max_size=6))
def test_the_view_matches_the_query_on_any_calls(lines: list[str]) -> None:
    src = "\n".join(lines).encode()
    for name_re in (call_name_re(), "^(?:get|save)$", "ue", "."):
        assert capture_view(src, name_re) == query_view(src, name_re)


def test_document_captures_is_kept_for_one_node_only() -> None:
    a = ts.parse("python", b"f(1)\n").root_node
    first = ts.document_captures("python", "tags", a)
    assert ts.document_captures("python", "tags", a) is first
    b = ts.parse("python", b"g(2)\nh(3)\n").root_node
    other = ts.document_captures("python", "tags", b)
    assert [ts.text(n) for n in other["call"]] == ["g(2)", "h(3)"]
    assert [ts.text(n) for n in ts.document_captures("python", "tags", a)["call"]] == ["f(1)"]


CONSTANTS = b'''
API = "/api"
BASE: str = f"{API}/v1"
TWICE = "a"
TWICE = "a"
CLASH = "x"
CLASH = "y"
A = B = "chained"
E = F = G = "deeper"
H: str = I = "typed"
x.y = "attr"
N = 3
P, Q = "p", "q"
def f():
    LOCAL = "no"
class C:
    URL = "/c"
    J = K = "/k"
    class D:
        INNER = '/d'
    def m(self):
        NOPE = "no"
if True:
    GUARDED = L = "no"
from m import (a as b, c)
import os.path, json as j
def g():
    import inner
'''


def query_constants(source: bytes) -> dict[str, list[tuple[str, str]]]:
    """What ``constants`` gave from its own query (the names' order aside)."""
    from tree_sitter import QueryCursor

    root = ts.parse("python", source).root_node
    out: dict[str, list[tuple[str, str]]] = {}
    clash = set()
    for _, caps in QueryCursor(base._query("python", _CONST_QUERY["python"])).matches(root):
        val = string_parts("python", caps["v"][0])
        if val is None:
            continue
        name = ts.text(caps["n"][0])
        if name in out and out[name] != val:
            clash.add(name)
        out[name] = val
    return {k: v for k, v in out.items() if k not in clash}


def test_constants_are_what_the_query_matched() -> None:
    root = ts.parse("python", CONSTANTS).root_node
    got = constants("python", root)
    assert sorted(got) == ["API", "B", "BASE", "I", "INNER", "K", "TWICE", "URL"]
    assert got == query_constants(CONSTANTS)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(CONSTANTS.decode().splitlines()), max_size=14))
def test_constants_match_the_query_on_any_lines(lines: list[str]) -> None:
    src = "\n".join(lines).encode()
    assert constants("python", ts.parse("python", src).root_node) == query_constants(src)


def test_import_bindings_come_from_every_import_statement() -> None:
    root = ts.parse("python", CONSTANTS).root_node
    assert import_bindings("python", root) == {
        "b": ImportBinding(25, "a", "m"), "c": ImportBinding(25, "c", "m"), "os": ImportBinding(26, "*", "os.path"),
        "j": ImportBinding(26, "*", "json"), "inner": ImportBinding(28, "*", "inner")}

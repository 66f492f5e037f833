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


def walked_defs(node, parent, out) -> None:  # type: ignore[no-untyped-def]
    """What ``_syntax.annotations._py_defs`` was: a walk down the tree."""
    from codegraph.indexer.adapters._syntax.annotations import Annotated, _add, _ann_of_call, _field

    stack = [(c, parent) for c in reversed(node.named_children)]
    while stack:
        n, par = stack.pop()
        anns = []
        d = n
        if n.type == "decorated_definition":
            for c in n.named_children:
                if c.type == "decorator" and c.named_children:
                    a = _ann_of_call("python", c.named_children[0])
                    if a is not None:
                        anns.append(a)
            d = _field(n, "definition") or n.named_children[-1]
        if d.type in ("function_definition", "class_definition"):
            name = _field(d, "name")
            a = Annotated("class" if d.type == "class_definition" else "function", ts.text(name), d,
                          ts.line(name) if name is not None else ts.line(d), anns, par)
            _add(out, par, a)
            body = _field(d, "body")
            if body is not None:
                stack.extend((c, a) for c in reversed(body.named_children))
        elif n.type in ("if_statement", "try_statement", "with_statement", "block", "else_clause", "elif_clause"):
            stack.extend((c, par) for c in reversed(n.named_children))


def flat(items) -> list[tuple]:  # type: ignore[no-untyped-def,type-arg]
    from codegraph.indexer.adapters._syntax import walk_annotated

    return [(a.kind, a.name, a.node.start_byte, a.line, a.parent.name if a.parent else None,
             [(x.name, [ts.text(n) for n in x.args], sorted(x.kwargs), x.line) for x in a.annotations])
            for a in walk_annotated(items)]


DEFS = """@app.get("/a", tags=["x"])
def a(): pass
class K(Base):
    @property
    def p(self): pass
    class Inner:
        def i(self): pass
    if X:
        def guarded(self): pass
    else:
        def other(self): pass
    for y in z:
        def looped(self): pass
def outer():
    def inner(): pass
    try:
        def tried(): pass
    except E:
        def caught(): pass
    else:
        def no_error(): pass
    finally:
        def last(): pass
    with m:
        @dec
        class W: pass
    while 1:
        def never(): pass
if a:
    pass
elif b:
    def elif_def(): pass
match v:
    case 1:
        def matched(): pass
def broken(:
    def after(): pass
"""


def test_defs_are_what_the_walk_found() -> None:
    from codegraph.indexer.adapters._syntax import annotated

    root = ts.parse("python", DEFS.encode()).root_node
    want: list = []  # type: ignore[type-arg]
    walked_defs(root, None, want)
    got = flat(annotated("python", root))
    assert [(g[1], g[4]) for g in got] == [
        ("a", None), ("K", None), ("p", "K"), ("Inner", "K"), ("i", "Inner"), ("guarded", "K"), ("other", "K"),
        ("outer", None), ("inner", "outer"), ("tried", "outer"), ("no_error", "outer"), ("W", "outer"),
        ("elif_def", None), ("broken", None), ("after", "broken")]
    assert got == flat(want)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(DEFS.splitlines()), max_size=14))
def test_defs_match_the_walk_on_any_lines(lines: list[str]) -> None:
    from codegraph.indexer.adapters._syntax import annotated

    root = ts.parse("python", "\n".join(lines).encode()).root_node
    want: list = []  # type: ignore[type-arg]
    walked_defs(root, None, want)
    assert flat(annotated("python", root)) == flat(want)

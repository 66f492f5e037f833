"""Syntax views: annotations / decorators on definitions (``Annotated`` trees) and the
call enclosing a node.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from tree_sitter import Node as TSNode

from codegraph.indexer.adapters._syntax.base import (
    JS_LANGS,
    _field,
    line,
    text,
)
from codegraph.indexer.adapters._syntax.calls import Call, as_call, chain
from codegraph.indexer.treesitter import document_captures

# --- annotations / decorators ----------------------------------------------------------------


@dataclass(slots=True)
class Annotation:
    """``@Name(args)``: ``name`` without ``@`` as written (``app.get``, ``GetMapping``)."""

    name: str
    args: list[TSNode]
    kwargs: dict[str, TSNode]
    line: int


@dataclass(slots=True)
class Annotated:
    """A class or function/method definition with its annotations. ``line`` is the
    definition's name line (inside the symbol's range even where decorators are not);
    ``parent`` the enclosing annotated class, if any."""

    kind: str  # class | function
    name: str
    node: TSNode
    line: int
    annotations: list[Annotation]
    parent: Annotated | None = None
    children: list[Annotated] = field(default_factory=list)


def _ann_of_call(language: str, node: TSNode) -> Annotation | None:
    t = node.type
    if t in ("identifier", "attribute", "member_expression"):
        return Annotation(chain(language, node), [], {}, line(node))
    c = as_call(language, node)
    if c is None:
        return None
    return Annotation(c.callee, c.args, c.kwargs, line(node))


def _java_ann(language: str, node: TSNode) -> Annotation | None:
    if node.type == "marker_annotation":
        return Annotation(text(_field(node, "name")), [], {}, line(node))
    if node.type != "annotation":
        return None
    if language == "kotlin":  # annotation -> constructor_invocation(user_type, value_arguments) | user_type
        inner = node.named_children[0] if node.named_children else None
        if inner is None:
            return None
        if inner.type == "user_type":
            return Annotation(text(inner), [], {}, line(node))
        if inner.type == "constructor_invocation":
            typ = next((c for c in inner.named_children if c.type == "user_type"), None)
            va = next((c for c in inner.named_children if c.type == "value_arguments"), None)
            args: list[TSNode] = []
            kwargs: dict[str, TSNode] = {}
            for a in va.named_children if va is not None else ():
                kids = a.named_children
                if len(kids) == 2 and kids[0].type == "simple_identifier":
                    kwargs[text(kids[0])] = kids[1]
                elif kids:
                    args.append(kids[-1])
            return Annotation(text(typ), args, kwargs, line(node))
        return None
    name = text(_field(node, "name"))
    args, kwargs = [], {}
    al = _field(node, "arguments")
    for a in al.named_children if al is not None else ():
        if a.type == "element_value_pair":
            k, v = _field(a, "key"), _field(a, "value")
            if k is not None and v is not None:
                kwargs[text(k)] = v
        elif a.type != "comment":
            args.append(a)
    return Annotation(name, args, kwargs, line(node))


def annotated(language: str, root: TSNode) -> list[Annotated]:
    """Top-level view of every class and function/method with its annotations
    (classes carry their members in ``children``). Definitions without annotations are
    included too so class-level annotations reach undecorated methods."""
    out: list[Annotated] = []
    if language == "python":
        _py_defs(root, out)
    elif language in JS_LANGS:
        _js_defs(root, None, out)
    elif language in ("java", "kotlin"):
        _jvm_defs(language, root, None, out)
    return out


def _add(out: list[Annotated], parent: Annotated | None, a: Annotated) -> None:
    (parent.children if parent is not None else out).append(a)


# Statements _py_defs looks through for definitions (besides the bodies of definitions).
_PY_THROUGH = frozenset(("if_statement", "try_statement", "with_statement", "block", "else_clause", "elif_clause"))


def _py_defs(root: TSNode, out: list[Annotated]) -> None:
    """The classes and functions of a Python module, each under the nearest enclosing
    one, reached through definitions' bodies, ``if`` / ``elif`` / ``else``, ``try`` and
    its ``else`` (not ``except`` or ``finally``) and ``with``; none elsewhere (loops,
    ``match``, error nodes). The definitions are the Python extractor's captures of this
    tree (``treesitter.document_captures``, document order: each after its enclosing
    one), each placed by a walk up its few ancestors, where a walk down the tree in
    Python visited every statement."""
    placed: dict[int, Annotated] = {}  # definition node id -> its view
    for d in document_captures("python", "tags", root).get("def", ()):
        anns: list[Annotation] = []
        p = d.parent
        if p is not None and p.type == "decorated_definition":
            for c in p.named_children:
                if c.type == "decorator" and c.named_children:
                    a = _ann_of_call("python", c.named_children[0])
                    if a is not None:
                        anns.append(a)
            p = p.parent
        par: Annotated | None = None
        while p is not None and p != root:
            q = p.parent
            if p.type == "block" and q is not None and q.type in ("function_definition", "class_definition"):
                par = placed.get(q.id)  # the body of a definition: None when that one is out of reach
                break
            p = q if p.type in _PY_THROUGH else None
        if p is None or (par is None and p != root):
            continue
        name = _field(d, "name")
        a = Annotated("class" if d.type == "class_definition" else "function", text(name), d,
                      line(name) if name is not None else line(d), anns, par)
        _add(out, par, a)
        placed[d.id] = a


def _js_defs(node: TSNode, parent: Annotated | None, out: list[Annotated]) -> None:
    pending: list[Annotation] = []
    for n in node.named_children:
        t = n.type
        if t == "decorator":
            if n.named_children:
                a = _ann_of_call("typescript", n.named_children[0])
                if a is not None:
                    pending.append(a)
            continue
        if t == "export_statement":
            inner = _field(n, "declaration")
            decos = [c for c in n.named_children if c.type == "decorator"]
            for c in decos:
                a = _ann_of_call("typescript", c.named_children[0]) if c.named_children else None
                if a is not None:
                    pending.append(a)
            if inner is not None:
                n, t = inner, inner.type
            else:
                pending = []
                continue
        if t in ("class_declaration", "abstract_class_declaration", "class"):
            anns = pending + [a for c in n.named_children if c.type == "decorator" and c.named_children
                              for a in [_ann_of_call("typescript", c.named_children[0])] if a is not None]
            name = _field(n, "name")
            a = Annotated("class", text(name), n, line(name) if name is not None else line(n), anns, parent)
            _add(out, parent, a)
            body = _field(n, "body")
            if body is not None:
                _js_defs(body, a, out)
        elif t in ("method_definition", "function_declaration", "abstract_method_signature"):
            name = _field(n, "name")
            _add(out, parent, Annotated("function", text(name), n, line(name) if name is not None else line(n),
                                        pending, parent))
        pending = [] if t != "decorator" else pending


def _jvm_defs(language: str, node: TSNode, parent: Annotated | None, out: list[Annotated]) -> None:
    for n in node.named_children:
        t = n.type
        if t in ("class_declaration", "interface_declaration", "object_declaration", "record_declaration",
                 "function_declaration", "method_declaration"):
            anns: list[Annotation] = []
            mods = next((c for c in n.named_children if c.type == "modifiers"), None)
            for m in mods.named_children if mods is not None else ():
                a = _java_ann(language, m)
                if a is not None:
                    anns.append(a)
            name = _field(n, "name") or next((c for c in n.named_children if c.type in (
                "identifier", "simple_identifier", "type_identifier")), None)
            kind = "function" if t in ("function_declaration", "method_declaration") else "class"
            a = Annotated(kind, text(name), n, line(name) if name is not None else line(n), anns, parent)
            _add(out, parent, a)
            if kind == "class":
                body = _field(n, "body") or next((c for c in n.named_children if c.type in (
                    "class_body", "interface_body", "enum_class_body")), None)
                if body is not None:
                    _jvm_defs(language, body, a, out)
        elif t in ("program", "source_file", "class_body", "interface_body"):
            _jvm_defs(language, n, parent, out)


def walk_annotated(items: list[Annotated]) -> Iterator[Annotated]:
    stack = list(reversed(items))
    while stack:
        a = stack.pop()
        yield a
        stack.extend(reversed(a.children))


def enclosing_call(node: TSNode, language: str, max_up: int = 6) -> Call | None:
    """The nearest call whose arguments contain ``node`` (within a few levels)."""
    n = node.parent
    for _ in range(max_up):
        if n is None:
            return None
        if n.type in ("call", "call_expression", "method_invocation", "new_expression", "object_creation_expression"):
            return as_call(language, n)
        n = n.parent
    return None

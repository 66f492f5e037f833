"""Syntax views: calls (``Call``), dotted callee chains, and call search by name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

from tree_sitter import Node as TSNode

from codegraph.indexer.adapters._syntax.base import (
    _CALL_QUERY,
    _field,
    captures,
    line,
    text,
)
from codegraph.indexer.treesitter import document_captures

# --- calls -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Call:
    """One call as written. ``callee`` is the dotted chain with call arguments elided
    (``webClient.get().uri``); ``method`` its last name; ``receiver`` the chain before it
    (``""`` for a plain function call). ``args`` are positional argument nodes,
    ``kwargs`` keyword/named arguments (Python ``k=v``, Kotlin ``k = v``)."""

    node: TSNode
    callee: str
    method: str
    receiver: str
    receiver_node: TSNode | None
    args: list[TSNode]
    kwargs: dict[str, TSNode]
    line: int
    is_new: bool = False


def chain(language: str, node: TSNode | None, depth: int = 0) -> str:
    """``a.b().c`` for member/selector/attribute chains; ``…`` for anything else."""
    if node is None or depth > 16:
        return "…"
    t = node.type
    if t in ("identifier", "property_identifier", "field_identifier", "simple_identifier", "type_identifier",
             "package_identifier", "this", "self", "super", "private_property_identifier"):
        return text(node)
    if t in ("member_expression", "attribute", "selector_expression", "field_access"):
        obj = _field(node, "object") or _field(node, "operand")
        prop = _field(node, "property") or _field(node, "attribute") or _field(node, "field")
        return f"{chain(language, obj, depth + 1)}.{text(prop)}"
    if t == "navigation_expression":  # kotlin: expr navigation_suffix(. name)
        kids = node.named_children
        if len(kids) >= 2 and kids[-1].type == "navigation_suffix":
            name = next((c for c in kids[-1].named_children if c.type == "simple_identifier"), None)
            return f"{chain(language, kids[0], depth + 1)}.{text(name)}"
        return "…"
    if t in ("call_expression", "call", "method_invocation"):
        fn = _call_function(language, node)
        if t == "method_invocation":
            obj, name = _field(node, "object"), _field(node, "name")
            return (f"{chain(language, obj, depth + 1)}.{text(name)}" if obj is not None else text(name)) + "()"
        return f"{chain(language, fn, depth + 1)}()"
    if t in ("parenthesized_expression", "non_null_expression", "await_expression", "unary_expression"):
        kids = node.named_children
        return chain(language, kids[-1], depth + 1) if kids else "…"
    if t == "qualified_type":
        return text(node)
    return "…"


def _call_function(language: str, node: TSNode) -> TSNode | None:
    if language == "kotlin":
        return node.named_children[0] if node.named_children else None
    return _field(node, "function")


def as_call(language: str, node: TSNode) -> Call | None:
    """The Call view of a call node (see ``calls``), or None for other nodes."""
    t = node.type
    args: list[TSNode] = []
    kwargs: dict[str, TSNode] = {}
    is_new = False
    if t == "method_invocation":  # java
        obj, name = _field(node, "object"), _field(node, "name")
        method = text(name)
        receiver_node = obj
        receiver = chain(language, obj) if obj is not None else ""
        arglist = _field(node, "arguments")
    elif t == "object_creation_expression":  # java new X(...)
        typ = _field(node, "type")
        method, receiver, receiver_node = text(typ).split("<")[0], "", None
        arglist, is_new = _field(node, "arguments"), True
    elif t == "new_expression":  # js new X(...)
        ctor = _field(node, "constructor")
        full = chain(language, ctor)
        receiver, _, method = full.rpartition(".")
        receiver_node, arglist, is_new = None, _field(node, "arguments"), True
    elif t in ("call", "call_expression"):
        fn = _call_function(language, node)
        if fn is None:
            return None
        full = chain(language, fn)
        receiver, _, method = full.rpartition(".")
        receiver_node = (_field(fn, "object") or _field(fn, "operand")) if fn.type != "navigation_expression" else (
            fn.named_children[0] if fn.named_children else None)
        if language == "kotlin":
            suffix = next((c for c in node.named_children if c.type == "call_suffix"), None)
            arglist = next((c for c in suffix.named_children if c.type == "value_arguments"), None) if suffix else None
            lam = next((c for c in suffix.named_children if c.type == "annotated_lambda"), None) if suffix else None
            args_extra = [lam] if lam is not None else []
        else:
            arglist = _field(node, "arguments")
            args_extra = []
    else:
        return None
    if arglist is not None:
        for c in arglist.named_children:
            ct = c.type
            if ct == "comment":
                continue
            if ct == "keyword_argument":  # python
                k, v = _field(c, "name"), _field(c, "value")
                if k is not None and v is not None:
                    kwargs[text(k)] = v
                continue
            if ct == "value_argument":  # kotlin
                kids = c.named_children
                if len(kids) == 2 and kids[0].type == "simple_identifier" and any(x.type == "=" for x in c.children):
                    kwargs[text(kids[0])] = kids[1]
                elif kids:
                    args.append(kids[-1])
                continue
            if ct in ("list_splat", "dictionary_splat", "spread_element"):
                continue
            args.append(c)
    if t in ("call", "call_expression") and language == "kotlin":
        args.extend(args_extra)
    callee = f"{receiver}.{method}" if receiver else method
    return Call(node, callee, method, receiver, receiver_node, args, kwargs, line(node), is_new)


# Calls whose (last) name matches a regex, filtered in C by the query engine: building a
# Python view of every call of a large file costs more than parsing it.
_NAMED_CALL_QUERY = {
    "python": '((call function: [(identifier) @f (attribute attribute: (identifier) @f)]) @c (#match? @f "{re}"))',
    "javascript": '((call_expression function: [(identifier) @f (member_expression property: (property_identifier) @f)])'
                  ' @c (#match? @f "{re}")) ((new_expression constructor: [(identifier) @f (member_expression'
                  ' property: (property_identifier) @f)]) @c (#match? @f "{re}"))',
    "java": '((method_invocation name: (identifier) @f) @c (#match? @f "{re}")) ((object_creation_expression type:'
            ' [(type_identifier) @f (generic_type (type_identifier) @f) (scoped_type_identifier (type_identifier) @f)])'
            ' @c (#match? @f "{re}"))',
    "go": '((call_expression function: [(identifier) @f (selector_expression field: (field_identifier) @f)]) @c'
          ' (#match? @f "{re}"))',
    "kotlin": '((call_expression [(simple_identifier) @f (navigation_expression (navigation_suffix (simple_identifier)'
              ' @f))]) @c (#match? @f "{re}"))',
}
_NAMED_CALL_QUERY["typescript"] = _NAMED_CALL_QUERY["tsx"] = _NAMED_CALL_QUERY["javascript"]


def calls(language: str, root: TSNode, name_re: str | None = None) -> Iterator[Call]:
    """Every call in the tree (document order); with ``name_re``, only calls whose
    function's last name matches it (``axios.get`` -> ``get``; ``new X()`` -> ``X``)."""
    if language == "python" and name_re:
        yield from _python_named_calls(root, name_re)
        return
    # The regex sits in a query string literal: its backslashes and quotes need escaping there.
    quoted = name_re.replace("\\", "\\\\").replace('"', '\\"') if name_re else ""
    q = _NAMED_CALL_QUERY.get(language, "").replace("{re}", quoted) if name_re else _CALL_QUERY.get(language)
    if not q:
        return
    seen: set[int] = set()
    for n in captures(language, q, root):
        if n.type in ("identifier", "property_identifier", "field_identifier", "simple_identifier",
                      "type_identifier") or n.id in seen:
            continue
        seen.add(n.id)
        c = as_call(language, n)
        if c is not None:
            yield c


@cache
def _py_fields() -> tuple[int, int]:
    """Field ids of a Python call's ``function`` and an attribute's ``attribute``."""
    from tree_sitter_language_pack import get_language

    lang = get_language("python")
    ids = lang.field_id_for_name("function"), lang.field_id_for_name("attribute")
    assert ids[0] is not None and ids[1] is not None
    return ids


@cache
def _name_hits(name_re: str) -> tuple[Callable[[str], re.Match[str] | None], dict[bytes, bool]]:
    """``re.search`` of ``name_re`` and the answers it gave, by name bytes: a file's
    callee names repeat (``get``, ``filter``) and the regex is a long alternation."""
    return re.compile(name_re).search, {}


def _python_named_calls(root: TSNode, name_re: str) -> Iterator[Call]:
    """``calls`` of Python with ``name_re``: the call nodes of the Python extractor's own
    query (``queries/python/tags.scm`` ``@call``, in document order: outer call first
    where two start at one byte), which it ran over this very tree just before
    (``treesitter.document_captures`` gives them again), filtered as
    ``_NAMED_CALL_QUERY["python"]`` filters: a function that is an identifier, or an
    attribute's identifier, whose text ``re.search``es ``name_re`` (what ``#match?``
    does). That second query over the tree cost more than this filter (~0.3 CPU s of
    Django's 6.7)."""
    f_function, f_attribute = _py_fields()
    search, hits = _name_hits(name_re)
    if len(hits) > 1 << 16:  # the workers are long-lived
        hits.clear()
    for n in document_captures("python", "tags", root).get("call", ()):
        f = n.child_by_field_id(f_function)
        if f is None:
            continue
        if f.type == "attribute":
            f = f.child_by_field_id(f_attribute)
            if f is None or f.type != "identifier":
                continue
        elif f.type != "identifier":
            continue
        name = f.text or b""
        hit = hits.get(name)
        if hit is None:
            hit = hits[name] = search(name.decode("utf-8", "replace")) is not None
        if hit:
            c = as_call("python", n)
            if c is not None:
                yield c

"""Syntax views: object / dict / struct literals as mappings, same-file string constants
and their substitution, and literal collections' element nodes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from tree_sitter import Node as TSNode
from tree_sitter import QueryCursor

from codegraph.indexer.adapters._syntax.base import (
    Parts,
    _field,
    _query,
    text,
)
from codegraph.indexer.adapters._syntax.calls import as_call
from codegraph.indexer.adapters._syntax.strings import _merge, literal, string_parts
from codegraph.indexer.treesitter import document_captures

# --- object / dict / struct literals ---------------------------------------------------------


def mapping(language: str, node: TSNode | None) -> dict[str, TSNode]:
    """Keys -> value nodes of an object literal (JS), dict literal (Python) or a Go
    struct literal (``T{Topic: "x"}``); ``{}`` for anything else."""
    out: dict[str, TSNode] = {}
    if node is None:
        return out
    t = node.type
    if t == "unary_expression" and node.named_children:
        return mapping(language, node.named_children[-1])
    if t == "object":  # js
        for c in node.named_children:
            if c.type == "pair":
                k, v = _field(c, "key"), _field(c, "value")
                if k is not None and v is not None:
                    out[_key_text(language, k)] = v
            elif c.type == "shorthand_property_identifier":
                out[text(c)] = c
    elif t == "dictionary":  # python
        for c in node.named_children:
            if c.type == "pair":
                k, v = _field(c, "key"), _field(c, "value")
                if k is not None and v is not None:
                    out[_key_text(language, k)] = v
    elif t == "composite_literal":  # go
        body = _field(node, "body")
        for c in body.named_children if body is not None else ():
            if c.type == "keyed_element":
                kids = c.named_children
                if len(kids) == 2:
                    k = kids[0].named_children[0] if kids[0].named_children else kids[0]
                    v = kids[1].named_children[0] if kids[1].named_children else kids[1]
                    out[text(k)] = v
    return out


def _key_text(language: str, k: TSNode) -> str:
    v = literal(language, k)
    return v if v is not None else text(k)




# --- same-file string constants -------------------------------------------------------------

_CONST_QUERY = {
    "python": """
        (module (expression_statement (assignment left: (identifier) @n right: (string) @v)))
        (class_definition body: (block (expression_statement (assignment left: (identifier) @n right: (string) @v))))
        (module (assignment left: (identifier) @n right: (string) @v))
        (class_definition body: (block (assignment left: (identifier) @n right: (string) @v)))
    """,
    "javascript": "(variable_declarator name: (identifier) @n value: [(string) (template_string)] @v)",
    "typescript": """(variable_declarator name: (identifier) @n value: [(string) (template_string)] @v)
                     (public_field_definition name: (property_identifier) @n value: (string) @v)""",
    "tsx": """(variable_declarator name: (identifier) @n value: [(string) (template_string)] @v)
              (public_field_definition name: (property_identifier) @n value: (string) @v)""",
    "java": "(variable_declarator name: (identifier) @n value: (string_literal) @v)",
    "go": """(const_spec name: (identifier) @n value: (expression_list [(interpreted_string_literal) (raw_string_literal)] @v))
             (var_spec name: (identifier) @n value: (expression_list [(interpreted_string_literal) (raw_string_literal)] @v))""",
    "kotlin": "(property_declaration (variable_declaration (simple_identifier) @n) (string_literal) @v)",
}


def _python_constants(root: TSNode) -> Iterator[tuple[TSNode, TSNode]]:
    """(name, string) of what ``_CONST_QUERY["python"]`` matches, from the Python
    extractor's assignment captures of this tree (``treesitter.document_captures``): an
    assignment of a string to a name, alone in its statement (or the statement itself),
    in the module or a class body. A query of its own walked the whole tree again.
    ``expression_statement`` is a hidden node in this grammar: the query's step through
    it also matched the inner assignment of a chain ``A = B = "s"`` (B, one level down,
    not deeper), so that one is kept too."""
    for a in document_captures("python", "tags", root).get("assign", ()):
        left, right = a.child_by_field_name("left"), a.child_by_field_name("right")
        if left is None or right is None or left.type != "identifier" or right.type != "string":
            continue
        p = a.parent
        if p is not None and p.type in ("expression_statement", "assignment"):
            p = p.parent
        if p is not None and (p.type == "module" or (p.type == "block" and p.parent is not None
                                                     and p.parent.type == "class_definition")):
            yield left, right


def constants(language: str, root: TSNode) -> dict[str, Parts]:
    """Names bound to a string expression in this file (module constants, class fields,
    ``const`` declarations) -> its pieces; a template's holes stay holes
    (``API = `${BASE}/api```). A name bound to two different values is left out (so the
    order the bindings are met in changes nothing)."""
    q = _CONST_QUERY.get(language)
    if q is None:
        return {}
    pairs: Iterable[tuple[TSNode, TSNode]]
    if language == "python":
        pairs = _python_constants(root)
    else:
        pairs = ((caps["n"][0], caps["v"][0]) for _, caps in QueryCursor(_query(language, q)).matches(root)
                 if caps.get("n") and caps.get("v"))
    out: dict[str, Parts] = {}
    clash: set[str] = set()
    for n, v in pairs:
        val = string_parts(language, v)
        if val is None:
            continue
        name = text(n)
        if name in out and out[name] != val:
            clash.add(name)
        out[name] = val
    for name in clash:
        out.pop(name, None)
    return out


_NAME_PATH = re.compile(r"^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$")


def substitute(parts: Parts, consts: dict[str, Parts], depth: int = 0) -> Parts:
    """Holes naming a constant (``X``, ``self.X``, ``this.X``, ``Cls.X``) take its pieces,
    which may hold holes of their own (resolved again, a few levels deep)."""
    if not consts or depth > 4 or not any(k == "hole" for k, _ in parts):
        return parts
    out: Parts = []
    for kind, val in parts:
        if kind == "hole" and _NAME_PATH.match(val):
            key = val.rsplit(".", 1)[-1]
            if key in consts:
                out.extend(substitute(consts[key], {k: v for k, v in consts.items() if k != key}, depth + 1))
                continue
        out.append((kind, val))
    return _merge(out)


_LIST_TYPES = frozenset((
    "list", "tuple", "set", "array", "element_value_array_initializer", "array_initializer", "collection_literal",
    "expression_list", "literal_value", "array_creation_expression",
))


def literal_nodes(language: str, node: TSNode | None) -> list[TSNode]:
    """The element nodes of a list/array/tuple literal (``["a", "b"]``, ``{"a", "b"}``,
    ``[]string{"a"}``, ``List.of("a")``, ``listOf("a")``); ``[]`` for anything else."""
    if node is None:
        return []
    t = node.type
    if t == "composite_literal":
        body = _field(node, "body")
        return literal_nodes(language, body)
    if t in _LIST_TYPES:
        out: list[TSNode] = []
        for c in node.named_children:
            if c.type == "literal_element" and c.named_children:
                c = c.named_children[0]
            if c.type in ("literal_value", "array_initializer"):
                out.extend(literal_nodes(language, c))
            elif c.type != "comment":
                out.append(c)
        return out
    if t in ("call_expression", "call", "method_invocation"):
        c = as_call(language, node)
        if c is not None and c.method in ("arrayOf", "listOf", "setOf", "of", "asList", "singletonList", "singleton",
                                          "frozenset", "list", "tuple", "set"):
            return list(c.args)
    return []

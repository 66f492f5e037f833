"""A small language-neutral view of the syntax the framework adapters read: calls,
string values (with interpolation holes), annotations/decorators and literal
collections, over tree-sitter trees of Python, JavaScript/TypeScript, Java, Go and
Kotlin (string values also for C#, Ruby, PHP and Rust).

Adapters match on these views instead of on each grammar's node types, so one rule
("``requests.get(url)`` is an HTTP GET") is written once per framework, not once per
grammar. Everything here is read-only and never raises on odd trees: an unknown shape
gives ``None`` or an empty list.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache

from tree_sitter import Node as TSNode
from tree_sitter import Query, QueryCursor
from tree_sitter_language_pack import get_language

# A string value: ("lit", text) and ("hole", expression text) pieces, in order.
Parts = list[tuple[str, str]]

JS_LANGS = frozenset(("javascript", "typescript", "tsx"))

# Call nodes per grammar, captured in C by one query.
_CALL_QUERY = {
    "python": "(call) @c",
    "javascript": "(call_expression) @c (new_expression) @c",
    "typescript": "(call_expression) @c (new_expression) @c",
    "tsx": "(call_expression) @c (new_expression) @c",
    "java": "(method_invocation) @c (object_creation_expression) @c",
    "go": "(call_expression) @c",
    "kotlin": "(call_expression) @c",
}

# String-ish leaf expressions per grammar (composites such as ``a + b`` are built on top).
_STRING_TYPES = {
    "python": ("string", "concatenated_string"),
    "javascript": ("string", "template_string"),
    "typescript": ("string", "template_string"),
    "tsx": ("string", "template_string"),
    "java": ("string_literal",),
    "go": ("interpreted_string_literal", "raw_string_literal"),
    "kotlin": ("string_literal", "multiline_string_literal"),
    "csharp": ("string_literal", "verbatim_string_literal", "raw_string_literal", "interpolated_string_expression"),
    "ruby": ("string",),
    "php": ("string", "encapsed_string"),
    "rust": ("string_literal", "raw_string_literal"),
}
_LIT_CHILD = frozenset((
    "string_content", "string_fragment", "multiline_string_fragment", "interpreted_string_literal_content",
    "raw_string_literal_content", "escape_sequence", "string_value", "string_literal_content",
    "verbatim_string_literal_content", "raw_string_content", "interpolated_string_text",
))
_HOLE_CHILD = frozenset((
    "interpolation", "template_substitution", "interpolated_identifier", "interpolated_expression",
    "variable_name", "simple_variable", "dynamic_variable_name",
))
_PLUS_PARENTS = frozenset(("binary_expression", "binary_operator", "additive_expression"))


@cache
def _query(language: str, text: str) -> Query:
    return Query(get_language(language), text)  # type: ignore[arg-type]


def captures(language: str, query: str, root: TSNode) -> list[TSNode]:
    """Nodes captured by ``query`` (any capture name), in document order."""
    found = QueryCursor(_query(language, query)).captures(root)
    out = [n for nodes in found.values() for n in nodes]
    out.sort(key=lambda n: n.start_byte)
    return out


def text(node: TSNode | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def line(node: TSNode) -> int:
    return node.start_point[0] + 1


def _field(node: TSNode | None, name: str) -> TSNode | None:
    return node.child_by_field_name(name) if node is not None else None


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


# --- strings ---------------------------------------------------------------------------------


def is_string(language: str, node: TSNode | None) -> bool:
    return node is not None and node.type in _STRING_TYPES.get(language, ())


def _leaf_parts(language: str, node: TSNode) -> Parts:
    out: Parts = []
    t = node.type
    if t == "concatenated_string":
        for c in node.named_children:
            out.extend(_leaf_parts(language, c))
        return out
    kids = node.named_children
    if language == "python":
        start = next((c for c in node.children if c.type == "string_start"), None)
        is_f = "f" in text(start).lower()
    else:
        is_f = True
    seen_content = False
    for c in kids:
        ct = c.type
        if ct in _LIT_CHILD:
            out.append(("lit", text(c)))
            seen_content = True
        elif ct in _HOLE_CHILD:
            if is_f:
                inner = text(c)
                out.append(("hole", inner.strip("${}").strip() if ct != "interpolated_identifier" else inner))
            else:  # a plain Python string has no interpolation; keep the braces literally
                out.append(("lit", text(c)))
            seen_content = True
    if not seen_content:
        stripped = _strip_quotes(text(node))
        if stripped is not None and not any(c.type in _HOLE_CHILD for c in kids):
            out.append(("lit", stripped))
    return _merge(out)


def _strip_quotes(raw: str) -> str | None:
    """Quotes (and a prefix such as r, b, f, @) stripped; None when unquoted."""
    body = raw.lstrip("rRbBuUfF@$")
    for q in ('"""', "'''", '"', "'", "`"):
        if len(body) >= 2 * len(q) and body.startswith(q) and body.endswith(q):
            return body[len(q):len(body) - len(q)]
    return None


def _merge(parts: Parts) -> Parts:
    out: Parts = []
    for kind, val in parts:
        if out and kind == "lit" and out[-1][0] == "lit":
            out[-1] = ("lit", out[-1][1] + val)
        else:
            out.append((kind, val))
    return out


_FMT_VERB = re.compile(r"%[-+# 0-9.*]*[sdvqfxXbegtT]|%\([a-zA-Z_]\w*\)[sdrf]")
_BRACE_HOLE = re.compile(r"\{[^{}/]*\}")


def _split_holes(parts: Parts, pattern: re.Pattern[str]) -> Parts:
    """Literal pieces matching ``pattern`` become holes (printf verbs, ``{}`` fields)."""
    out: Parts = []
    for kind, val in parts:
        if kind != "lit":
            out.append((kind, val))
            continue
        pos = 0
        for m in pattern.finditer(val):
            if m.start() > pos:
                out.append(("lit", val[pos:m.start()]))
            out.append(("hole", m.group(0).strip("{}")))
            pos = m.end()
        if pos < len(val):
            out.append(("lit", val[pos:]))
    return _merge(out)


def string_parts(language: str, node: TSNode | None, depth: int = 0) -> Parts | None:
    """The value of a string expression as literal and hole pieces, or None when
    ``node`` is not string-like at all. Handles literals, template strings, f-strings,
    Kotlin ``$x`` templates, ``+`` concatenation with any expression (a hole), Python
    ``%`` / ``.format`` and Go/Java ``Sprintf``/``String.format`` (verbs become holes)."""
    if node is None or depth > 20:
        return None
    t = node.type
    if t in _STRING_TYPES.get(language, ()):
        return _leaf_parts(language, node)
    if t == "parenthesized_expression" and node.named_children:
        return string_parts(language, node.named_children[0], depth + 1)
    if t in _PLUS_PARENTS:
        op = _field(node, "operator")
        op_text = text(op) if op is not None else next((text(c) for c in node.children if not c.is_named), "")
        left, right = _field(node, "left"), _field(node, "right")
        if left is None or right is None and len(node.named_children) == 2:
            left, right = node.named_children[0], node.named_children[-1]
        if op_text == "+":
            lp, rp = string_parts(language, left, depth + 1), string_parts(language, right, depth + 1)
            if lp is None and rp is None:
                return None
            return _merge((lp if lp is not None else [("hole", text(left))])
                          + (rp if rp is not None else [("hole", text(right))]))
        if op_text == "%" and language == "python":
            lp = string_parts(language, left, depth + 1)
            return _split_holes(lp, _FMT_VERB) if lp is not None else None
        return None
    if t in ("call", "call_expression", "method_invocation"):
        c = as_call(language, node)
        if c is None:
            return None
        if c.method == "format" and c.receiver_node is not None and language == "python":
            lp = string_parts(language, c.receiver_node, depth + 1)
            return _split_holes(lp, _BRACE_HOLE) if lp is not None else None
        if c.callee in ("fmt.Sprintf", "String.format", "format") and c.args:
            lp = string_parts(language, c.args[0], depth + 1)
            return _split_holes(lp, _FMT_VERB) if lp is not None else None
        if c.method in ("join", "resolve") and c.receiver in ("path", "posixpath", "urljoin"):
            return None
    return None


def literal(language: str, node: TSNode | None) -> str | None:
    """A string expression with no holes, as text; None otherwise."""
    parts = string_parts(language, node)
    if parts is None or any(k == "hole" for k, _ in parts):
        return None
    return "".join(v for _, v in parts)


def parts_text(parts: Parts) -> str:
    """Readable form: holes as ``{expr}``."""
    return "".join(v if k == "lit" else "{" + v[:40] + "}" for k, v in parts)


def uri_template_holes(parts: Parts) -> Parts:
    """Spring/Feign/OpenAPI URI templates: ``{id}`` in a literal is a variable."""
    return _split_holes(parts, _BRACE_HOLE)


def literals_of(language: str, node: TSNode | None) -> list[str]:
    """Literal strings of a value that may be a list/array/tuple/set of strings."""
    if node is None:
        return []
    one = literal(language, node)
    if one is not None:
        return [one]
    if node.type in ("list", "tuple", "set", "array", "element_value_array_initializer", "array_initializer",
                     "collection_literal", "expression_list", "literal_value", "composite_literal",
                     "array_creation_expression"):
        out: list[str] = []
        for c in node.named_children:
            if c.type == "literal_element" and c.named_children:
                c = c.named_children[0]
            if c.type in ("literal_value", "array_initializer"):
                out.extend(literals_of(language, c))
                continue
            v = literal(language, c)
            if v is not None:
                out.append(v)
        return out
    if node.type in ("call_expression", "call") and language in ("kotlin", "python"):
        c = as_call(language, node)
        if c is not None and c.method in ("arrayOf", "listOf", "setOf", "frozenset", "list", "tuple", "set"):
            return [v for a in c.args for v in literals_of(language, a)]
    return []


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
        _py_defs(root, None, out)
    elif language in JS_LANGS:
        _js_defs(root, None, out)
    elif language in ("java", "kotlin"):
        _jvm_defs(language, root, None, out)
    return out


def _add(out: list[Annotated], parent: Annotated | None, a: Annotated) -> None:
    (parent.children if parent is not None else out).append(a)


def _py_defs(node: TSNode, parent: Annotated | None, out: list[Annotated]) -> None:
    stack = [(c, parent) for c in reversed(node.named_children)]
    while stack:
        n, par = stack.pop()
        anns: list[Annotation] = []
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
            a = Annotated("class" if d.type == "class_definition" else "function", text(name), d,
                          line(name) if name is not None else line(d), anns, par)
            _add(out, par, a)
            body = _field(d, "body")
            if body is not None:
                stack.extend((c, a) for c in reversed(body.named_children))
        elif n.type in ("if_statement", "try_statement", "with_statement", "block", "else_clause", "elif_clause"):
            stack.extend((c, par) for c in reversed(n.named_children))


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


def constants(language: str, root: TSNode) -> dict[str, Parts]:
    """Names bound to a string expression in this file (module constants, class fields,
    ``const`` declarations) -> its pieces; a template's holes stay holes
    (``API = `${BASE}/api```). A name bound to two different values is left out."""
    q = _CONST_QUERY.get(language)
    if q is None:
        return {}
    out: dict[str, Parts] = {}
    clash: set[str] = set()
    for _, caps in QueryCursor(_query(language, q)).matches(root):
        ns, vs = caps.get("n"), caps.get("v")
        if not ns or not vs:
            continue
        val = string_parts(language, vs[0])
        if val is None:
            continue
        name = text(ns[0])
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


# --- import bindings -------------------------------------------------------------------------


@dataclass(slots=True)
class ImportBinding:
    """A local name bound by an import: the import statement's ``line`` (where the
    resolver's IMPORTS edge has its evidence), the ``name`` imported (``default``,
    ``*`` for a whole module / namespace) and the module ``spec`` as written."""

    line: int
    name: str
    spec: str


def import_bindings(language: str, root: TSNode) -> dict[str, ImportBinding]:
    """Local name -> ImportBinding for the file's top-level imports (Python, JS/TS, Go)."""
    out: dict[str, ImportBinding] = {}
    if language == "python":
        for n in captures(language, "(import_from_statement) @i (import_statement) @i", root):
            ln = line(n)
            if n.type == "import_from_statement":
                mod = _field(n, "module_name")
                spec = text(mod)
                for c in n.children_by_field_name("name"):
                    if c.type == "aliased_import":
                        orig, alias = _field(c, "name"), _field(c, "alias")
                        out[text(alias)] = ImportBinding(ln, text(orig).rsplit(".", 1)[-1], spec)
                    else:
                        nm = text(c).rsplit(".", 1)[-1]
                        out[nm] = ImportBinding(ln, nm, spec)
            else:
                for c in n.children_by_field_name("name"):
                    if c.type == "aliased_import":
                        out[text(_field(c, "alias"))] = ImportBinding(ln, "*", text(_field(c, "name")))
                    else:
                        full = text(c)
                        out[full.split(".", 1)[0]] = ImportBinding(ln, "*", full)
    elif language in JS_LANGS:
        for n in captures(language, "(import_statement) @i (variable_declarator) @d", root):
            ln = line(n)
            if n.type == "import_statement":
                spec = literal(language, _field(n, "source")) or ""
                clause = next((c for c in n.named_children if c.type == "import_clause"), None)
                for c in clause.named_children if clause is not None else ():
                    if c.type == "identifier":
                        out[text(c)] = ImportBinding(ln, "default", spec)
                    elif c.type == "namespace_import":
                        ident = next((x for x in c.named_children if x.type == "identifier"), None)
                        if ident is not None:
                            out[text(ident)] = ImportBinding(ln, "*", spec)
                    elif c.type == "named_imports":
                        for s in c.named_children:
                            if s.type == "import_specifier":
                                orig, alias = _field(s, "name"), _field(s, "alias")
                                out[text(alias if alias is not None else orig)] = ImportBinding(ln, text(orig), spec)
                continue
            value = _field(n, "value")
            if value is None or value.type != "call_expression":
                continue
            fn = _field(value, "function")
            if fn is None or text(fn) != "require":
                continue
            c = as_call(language, value)
            spec = literal(language, c.args[0]) if c is not None and c.args else None
            if spec is None:
                continue
            name_node = _field(n, "name")
            if name_node is None:
                continue
            if name_node.type == "identifier":
                out[text(name_node)] = ImportBinding(ln, "default", spec)
            elif name_node.type == "object_pattern":
                for p in name_node.named_children:
                    if p.type == "shorthand_property_identifier_pattern":
                        out[text(p)] = ImportBinding(ln, text(p), spec)
                    elif p.type == "pair_pattern":
                        k, v = _field(p, "key"), _field(p, "value")
                        if k is not None and v is not None and v.type == "identifier":
                            out[text(v)] = ImportBinding(ln, text(k), spec)
    elif language == "go":
        for n in captures(language, "(import_spec) @i", root):
            path = literal(language, _field(n, "path")) or ""
            alias = _field(n, "name")
            local = text(alias) if alias is not None else path.rsplit("/", 1)[-1]
            out[local] = ImportBinding(line(n), "*", path)
    return out


def assigned_name(language: str, node: TSNode) -> str | None:
    """The variable a value is assigned to (``x = <node>``, ``const x = <node>``,
    ``x := <node>``, ``self.x = <node>``, ``val x = <node>``), as written; else None."""
    p = node.parent
    while p is not None and p.type in ("await_expression", "parenthesized_expression", "unary_expression", "await"):
        node, p = p, p.parent
    if p is None:
        return None
    t = p.type
    if t == "assignment" and language == "python" and _field(p, "right") == node:
        return chain(language, _field(p, "left"))
    if t == "variable_declarator":
        if language == "java":
            return text(_field(p, "name"))
        if _field(p, "value") == node:
            name = _field(p, "name")
            return text(name) if name is not None and name.type == "identifier" else None
    if t == "assignment_expression" and _field(p, "right") == node:
        return chain(language, _field(p, "left"))
    if t == "expression_list" and p.parent is not None and p.parent.type in ("short_var_declaration", "assignment_statement"):
        decl = p.parent
        right, left = _field(decl, "right"), _field(decl, "left")
        if right == p and left is not None and left.named_children:
            idx = p.named_children.index(node) if node in p.named_children else 0
            kids = left.named_children
            return chain(language, kids[min(idx, len(kids) - 1)])
    if t == "property_declaration":
        v = next((c for c in p.named_children if c.type == "variable_declaration"), None)
        return text(v.named_children[0]) if v is not None and v.named_children else None
    if t == "with_item" or (t == "as_pattern" and language == "python"):
        alias = _field(p, "alias")
        if alias is not None:
            return text(alias).strip()
        target = p.parent
        if target is not None and target.type == "as_pattern":
            a = _field(target, "alias")
            return text(a).strip() if a is not None else None
    return None

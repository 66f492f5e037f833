"""Syntax views: string values as literal / hole ``Parts`` (concatenation, f-strings,
templates, format verbs) and literal string lists.
"""

from __future__ import annotations

import re

from tree_sitter import Node as TSNode

from codegraph.indexer.adapters._syntax.base import (
    _HOLE_CHILD,
    _LIT_CHILD,
    _PLUS_PARENTS,
    _STRING_TYPES,
    Parts,
    _field,
    text,
)
from codegraph.indexer.adapters._syntax.calls import as_call

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

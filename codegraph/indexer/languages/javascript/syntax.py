"""Name sets and small readers of tree-sitter JavaScript/TypeScript shapes, shared by the
extractor's mixins: runtime globals and built-in method names (never linked by name), node
type sets, callee text as written, destructuring patterns, ``require`` specifiers, object
literal members, CommonJS export names. Pure functions of nodes: no extraction state."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tree_sitter import Node as TSNode

from codegraph.indexer import treesitter as ts

if TYPE_CHECKING:
    from codegraph.indexer.languages.javascript.scopes import Binding

# --- names that never resolve inside a repository -----------------------------------------

# Globals of the JS runtimes (ECMAScript, browsers, Node, test runners). A call on these
# makes no reference at all: no change in the repository can break ``console.log``.
JS_GLOBALS = frozenset("""
console JSON Math Object Array String Number Boolean Symbol BigInt Promise Date RegExp Error
TypeError RangeError SyntaxError ReferenceError EvalError URIError AggregateError Map Set WeakMap
WeakSet WeakRef FinalizationRegistry Reflect Proxy Intl ArrayBuffer SharedArrayBuffer DataView
Atomics Int8Array Uint8Array Uint8ClampedArray Int16Array Uint16Array Int32Array Uint32Array
Float32Array Float64Array BigInt64Array BigUint64Array Function globalThis eval isNaN isFinite
parseInt parseFloat encodeURIComponent decodeURIComponent encodeURI decodeURI escape unescape
setTimeout setInterval clearTimeout clearInterval setImmediate clearImmediate queueMicrotask
structuredClone fetch require process Buffer global module exports __dirname __filename window
document navigator location history localStorage sessionStorage alert confirm prompt atob btoa
URL URLSearchParams TextEncoder TextDecoder AbortController AbortSignal Headers Request Response
FormData Blob File FileReader WebSocket Worker XMLHttpRequest EventSource Event CustomEvent
EventTarget performance crypto requestAnimationFrame cancelAnimationFrame requestIdleCallback
getComputedStyle matchMedia MutationObserver IntersectionObserver ResizeObserver Image Audio
HTMLElement Element Node DOMParser customElements indexedDB caches self postMessage
importScripts undefined NaN Infinity arguments describe it test expect beforeEach afterEach
beforeAll afterAll jest vi xit xdescribe fit fdescribe
""".split())

# Method names of built-in prototypes (Array, String, Promise, Map, Function, DOM events).
# On a receiver of unknown type they almost always mean the built-in, so they get no
# fallback by name: a repo class with a ``map`` method must not collect every ``xs.map``.
BUILTIN_METHODS = frozenset("""
push pop shift unshift slice splice concat join reverse sort indexOf lastIndexOf includes find
findIndex findLast findLastIndex filter map forEach reduce reduceRight some every flat flatMap
fill keys values entries at copyWithin split trim trimStart trimEnd toLowerCase toUpperCase
replace replaceAll startsWith endsWith padStart padEnd charAt charCodeAt codePointAt substring
substr match matchAll search localeCompare normalize repeat toString toFixed toPrecision valueOf
toLocaleString toISOString toJSON getTime then catch finally get set has delete clear add
hasOwnProperty call apply bind json on once off emit addEventListener removeEventListener
dispatchEvent preventDefault stopPropagation next return throw length test exec
getFullYear getMonth getDate getDay getHours getMinutes getSeconds getMilliseconds getTimezoneOffset
setFullYear setMonth setDate setHours setMinutes setSeconds setMilliseconds setTime getUTCFullYear
getUTCMonth getUTCDate getUTCDay getUTCHours getUTCMinutes getUTCSeconds setUTCFullYear setUTCMonth
setUTCDate setUTCHours setUTCMinutes setUTCSeconds toDateString toTimeString toUTCString
toLocaleDateString toLocaleTimeString
""".split())

# `const X = memo(() => ...)`: the wrapped function is the component X.
_WRAPPERS = frozenset(("memo", "forwardRef", "observer", "React.memo", "React.forwardRef", "defineComponent"))

_FUNC_NODES = frozenset((
    "function_declaration", "generator_function_declaration", "function_expression", "function",
    "generator_function", "arrow_function", "method_definition",
))
_FUNC_VALUES = frozenset(("function_expression", "function", "generator_function", "arrow_function"))
_CLASS_NODES = frozenset(("class_declaration", "abstract_class_declaration", "class"))
_COMPOUND = frozenset((
    "statement_block", "if_statement", "else_clause", "for_statement", "for_in_statement",
    "while_statement", "do_statement", "try_statement", "catch_clause", "finally_clause",
    "switch_statement", "switch_body", "switch_case", "switch_default", "labeled_statement",
))
# Statements that can declare a name (the rest of a body is skipped by the pre-pass).
_DECL_STMTS = frozenset((
    "export_statement", "function_signature", "function_declaration", "generator_function_declaration",
    "class_declaration", "abstract_class_declaration", "interface_declaration", "enum_declaration",
    "type_alias_declaration", "lexical_declaration", "variable_declaration", "import_statement",
    "expression_statement", "ambient_declaration", "internal_module",
))
_CLASSLIKE = frozenset(("class", "interface", "type", "enum", "function", "variable"))
_MAX_TARGET = 80


# --- small tree helpers -------------------------------------------------------------------


def _t(node: TSNode | None) -> str:
    return ts.text(node)


def _field(node: TSNode, name: str) -> TSNode | None:
    return node.child_by_field_name(name)


def _string_value(node: TSNode | None) -> str | None:
    """The value of a string literal node (no escapes processed), else None."""
    if node is None or node.type != "string":
        return None
    raw = _t(node)
    return raw[1:-1] if len(raw) >= 2 else None


def _first_string_arg(call: TSNode) -> str | None:
    args = _field(call, "arguments")
    if args is None:
        return None
    for c in args.named_children:
        if c.type != "comment":
            return _string_value(c)
    return None


def _member_name(node: TSNode | None) -> str:
    """Name of a class/object member key: identifier, ``#private``, string or computed."""
    if node is None:
        return ""
    if node.type == "string":
        return _string_value(node) or ""
    return _t(node)


def _written(node: TSNode | None, depth: int = 0) -> str:
    """Callee as written with arguments elided: ``a.b().c`` ; ``?.`` and ``!`` dropped."""
    if node is None or depth > 12:
        return "…"
    t = node.type
    if t == "member_expression":
        return f"{_written(_field(node, 'object'), depth + 1)}.{_t(_field(node, 'property'))}"
    if t == "call_expression":
        return f"{_written(_field(node, 'function'), depth + 1)}()"
    if t in ("parenthesized_expression", "non_null_expression", "await_expression"):
        inner = node.named_children
        return _written(inner[0], depth + 1) if inner else "…"
    if t == "new_expression":
        return f"new {_written(_field(node, 'constructor'), depth + 1)}()"
    if t in ("identifier", "this", "super", "property_identifier", "private_property_identifier",
             "type_identifier", "nested_type_identifier", "shorthand_property_identifier"):
        return _t(node)
    return "…"


_WS = re.compile(r"\s+")


def _callee_text(node: TSNode, member: str) -> str:
    """Stub identifier of a member callee from its source text (one slice, no tree walk):
    ``a?.b!.c`` -> ``a.b.c``; ``…c`` when it holds a call, subscript or template, or is long."""
    raw = node.text or b""
    if len(raw) > 2 * _MAX_TARGET or any(c in raw for c in b"([`'\"/"):
        return f"…{member}"
    text = _WS.sub("", raw.decode("utf-8", "replace")).replace("?.", ".").replace("!", "")
    return text if len(text) <= _MAX_TARGET else f"…{member}"


def _short(written: str, member: str) -> str:
    if len(written) > _MAX_TARGET or "(" in written or "…" in written:
        return f"…{member}"
    return written


def _pattern_names(node: TSNode | None, out: list[str]) -> list[str]:
    """Identifiers bound by a destructuring pattern (or a plain identifier)."""
    if node is None:
        return out
    t = node.type
    if t in ("identifier", "shorthand_property_identifier_pattern"):
        out.append(_t(node))
    elif t in ("object_pattern", "array_pattern", "rest_pattern", "pair_pattern", "assignment_pattern",
               "object_assignment_pattern"):
        for i, c in enumerate(node.children):
            fname = node.field_name_for_child(i)
            if t == "pair_pattern" and fname == "key":
                continue
            if t in ("assignment_pattern", "object_assignment_pattern") and fname in ("right",):
                continue
            _pattern_names(c, out)
    return out


def _doc(stmt: TSNode) -> str:
    """The JSDoc comment right before ``stmt`` (or before its decorators), trimmed."""
    prev = stmt.prev_named_sibling
    while prev is not None and prev.type == "decorator":
        prev = prev.prev_named_sibling
    if prev is None or prev.type != "comment" or prev.end_point[0] < stmt.start_point[0] - 1:
        return ""
    raw = _t(prev)
    if not raw.startswith("/**"):
        return ""
    lines = []
    for ln in raw[3:-2].splitlines():
        ln = ln.strip()
        if ln.startswith("*"):
            ln = ln[1:].strip()
        lines.append(ln)
    return "\n".join(lines).strip()[:2000]


def _first_line(node: TSNode) -> str:
    raw = node.text or b""
    return raw.split(b"\n", 1)[0].decode("utf-8", "replace").strip()[:200]


def _params_text(fn: TSNode) -> str:
    p = _field(fn, "parameters") or _field(fn, "parameter")
    return _t(p)


def _unwrap(node: TSNode) -> TSNode:
    while node.type in ("parenthesized_expression", "non_null_expression", "await_expression") and node.named_children:
        node = node.named_children[0]
    return node



# --- free helpers that read shapes ---------------------------------------------------------------------------


def _unwrap_satisfies(node: TSNode) -> TSNode:
    while node.type in ("satisfies_expression", "parenthesized_expression") and node.named_children:
        node = node.named_children[0]
    return node


def _require_spec(node: TSNode | None) -> str | None:
    """``require('x')`` -> ``x``."""
    if node is None or node.type != "call_expression":
        return None
    fn = _field(node, "function")
    if fn is None or fn.type != "identifier" or _t(fn) != "require":
        return None
    return _first_string_arg(node)


def _require_names(call: TSNode) -> list[str]:
    parent = call.parent
    if parent is not None and parent.type == "variable_declarator":
        name = _field(parent, "name")
        if name is not None and name.type == "object_pattern":
            return [orig for orig, _ in _object_pattern_pairs(name)] or ["*"]
    if parent is not None and parent.type == "member_expression":
        return [_t(_field(parent, "property"))]
    return ["*"]


def _object_pattern_pairs(pat: TSNode, sure: bool = False) -> list[tuple[str, str]]:
    """``{h, i: j, k = 1}`` -> [(h, h), (i, j), (k, k)]: (property, local name) pairs. With
    ``sure`` only the names bound to a property for sure: [(h, h), (i, j)] (a default
    value may replace it, a computed key is unknown)."""
    out: list[tuple[str, str]] = []
    for c in pat.named_children:
        if c.type == "shorthand_property_identifier_pattern":
            out.append((_t(c), _t(c)))
        elif c.type == "pair_pattern":
            key, value = _field(c, "key"), _field(c, "value")
            if value is not None and value.type == "assignment_pattern" and not sure:
                value = _field(value, "left")
            if key is not None and value is not None and value.type == "identifier" and not (
                    sure and key.type == "computed_property_name"):
                out.append((_member_name(key), _t(value)))
        elif c.type == "object_assignment_pattern" and not sure:
            left = _field(c, "left")
            if left is not None:
                out.append((_t(left), _t(left)))
    return out


def _returned(fn: TSNode) -> list[TSNode]:
    """The expressions a function returns, in source order: an arrow's expression body,
    else every ``return x`` of its body outside nested functions and classes."""
    body = _field(fn, "body")
    if body is None:
        return []
    if body.type != "statement_block":
        return [_unwrap(body)]
    out: list[TSNode] = []
    stack = list(reversed(body.named_children))
    while stack:
        st = stack.pop()
        if st.type == "return_statement":
            value = next((c for c in st.named_children if c.type != "comment"), None)
            if value is not None:
                out.append(_unwrap(value))
        elif st.type in _COMPOUND:
            stack.extend(reversed(st.named_children))
    return out


def _object_entries(obj: TSNode) -> dict[str, TSNode | None]:
    """Key -> the value written for it in an object literal (the last one wins): a pair's
    value, a shorthand's identifier, a method; None for a key a later spread may replace."""
    out: dict[str, TSNode | None] = {}
    for c in obj.named_children:
        t = c.type
        if t == "pair":
            key = _field(c, "key")
            if key is not None and key.type != "computed_property_name":
                out[_member_name(key)] = _field(c, "value")
        elif t == "shorthand_property_identifier":
            out[_t(c)] = c
        elif t == "method_definition":
            out[_member_name(_field(c, "name"))] = c
        elif t == "spread_element":
            out = dict.fromkeys(out)
    return out


def _wrapped_function(value: TSNode) -> TSNode | None:
    """``memo(() => ...)`` / ``forwardRef(function X() {})`` -> the inner function."""
    if value.type != "call_expression":
        return None
    fn = _field(value, "function")
    if fn is None or _written(fn) not in _WRAPPERS:
        return None
    args = _field(value, "arguments")
    for a in args.named_children if args is not None else []:
        if a.type in _FUNC_VALUES:
            return a
        if a.type == "call_expression":  # memo(forwardRef(...))
            inner = _wrapped_function(a)
            if inner is not None:
                return inner
    return None


def _object_members(obj: TSNode) -> list[tuple[str, TSNode]]:
    """Function-valued members of an object literal: (key, function node)."""
    out: list[tuple[str, TSNode]] = []
    for c in obj.named_children:
        if c.type == "method_definition":
            name = _member_name(_field(c, "name"))
            if name:
                out.append((name, c))
        elif c.type == "pair":
            key, value = _field(c, "key"), _field(c, "value")
            if key is not None and value is not None and value.type in _FUNC_VALUES and key.type != "computed_property_name":
                out.append((_member_name(key), value))
    return out


def _cjs_export_name(left: TSNode) -> str | None:
    """``module.exports`` -> ``default``; ``exports.x`` / ``module.exports.x`` -> ``x``."""
    if left.type != "member_expression":
        return None
    w = _written(left)
    if w == "module.exports":
        return "default"
    if w.count(".") == 1 and w.startswith("exports."):
        return w.split(".", 1)[1]
    if w.count(".") == 2 and w.startswith("module.exports."):
        return w.rsplit(".", 1)[1]
    return None


def _hoc_argument(call: TSNode) -> str | None:
    """``connect(a)(Foo)`` / ``memo(Foo)`` / ``withRouter(Foo)`` -> ``Foo`` (last identifier
    argument of the outermost call that has one)."""
    node: TSNode | None = call
    while node is not None and node.type == "call_expression":
        args = _field(node, "arguments")
        idents = [a for a in (args.named_children if args is not None else []) if a.type == "identifier"]
        if idents:
            return _t(idents[-1])
        node = _field(node, "function")
    return None


def _chain_root(node: TSNode) -> TSNode | None:
    cur: TSNode | None = node
    for _ in range(32):
        if cur is None:
            return None
        t = cur.type
        if t == "member_expression":
            cur = _field(cur, "object")
        elif t == "call_expression":
            cur = _field(cur, "function")
        elif t == "new_expression":
            cur = _field(cur, "constructor")
        elif t in ("parenthesized_expression", "non_null_expression", "await_expression", "subscript_expression"):
            cur = _field(cur, "object") if t == "subscript_expression" else (cur.named_children[0] if cur.named_children else None)
        else:
            return cur
    return None


def _last_name(node: TSNode) -> str:
    if node.type in ("member_expression",):
        return _t(_field(node, "property"))
    if node.type == "nested_type_identifier":
        return _t(_field(node, "name"))
    return _t(node)


def _flatten_union(node: TSNode) -> list[TSNode]:
    out: list[TSNode] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "union_type":
            stack.extend(n.named_children)
        else:
            out.append(n)
    return out


def _ext_ident(b: Binding) -> str:
    """Stub identifier for something from a package: ``react.useState``, ``next/link``."""
    return b.spec if b.export in ("*", "default", "") else f"{b.spec}.{b.export}"


def _member_visibility(m: TSNode, name: str) -> str:
    if name.startswith("#"):
        return "private"
    for c in m.children:
        if c.type == "accessibility_modifier":
            return _t(c)
    return "public"



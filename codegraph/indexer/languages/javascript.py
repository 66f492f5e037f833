"""JavaScript / TypeScript / TSX extractor (grammars ``javascript``, ``typescript``, ``tsx``).

``extract(repo, path, source)`` parses one file and emits the extraction contract
(``codegraph.indexer.records``): a ``module`` symbol per file, symbols for functions,
classes, methods, interfaces, enums, type aliases and module-level objects/constants that
matter, ``IMPORTS`` / ``CALLS`` / ``EXTENDS`` / ``IMPLEMENTS`` references with resolution
hints, and the file's export map (ES modules and CommonJS).

How it works: one pre-pass per scope (module, then every function body on entry) collects
the names the scope declares - imports, functions, classes, variables with the class of
their value when visible (``new X()``, ``p: X``) - because JS hoists declarations and a
call may precede the definition. Then an explicit-stack walk (minified code nests deeper
than Python's recursion limit) attributes every call to the innermost *named* symbol:
callbacks and anonymous functions belong to the function that wrote them.

Naming: the module qualified name is the repo-relative path without its extension
(``web/lib/api.ts`` -> ``web/lib/api``; ``x.d.ts`` -> ``x.d``); members join with ``.``.
Visibility: class members follow ``private`` / ``protected`` / ``#name``; everything else
is ``public`` when the module exports it and ``internal`` when it does not.

Stub identifiers: calls into bare packages read ``<specifier>.<export>[.<member>]``
(``react.useState``, ``express.Router``) so every file's use of one library function
meets in one stub; other unresolved calls keep the callee as written, or ``…member``
when the callee is long or contains a call.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from tree_sitter import Node as TSNode
from tree_sitter import Query, QueryCursor
from tree_sitter_language_pack import get_language

from codegraph.core.models import FileRecord, SymbolRecord
from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages import language_for
from codegraph.indexer.records import FileExtraction, Reference

# --- file names -----------------------------------------------------------------------

CODE_EXTS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
# Order in which an extension-less relative specifier is completed (Node + TypeScript).
_COMPLETIONS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".d.ts")
_INDEX_COMPLETIONS = ("/index.ts", "/index.tsx", "/index.js", "/index.jsx")
# A compiled-extension specifier names a TypeScript source in ESM TypeScript projects.
_TS_SOURCE_FOR = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
# ... and, from a declaration file, the declaration of that module (`./types.ts` -> types.d.ts).
_DECLARATION_FOR = {".js": ".d.ts", ".ts": ".d.ts", ".mjs": ".d.mts", ".mts": ".d.mts", ".cjs": ".d.cts", ".cts": ".d.cts"}
# Imports of styles, images, fonts and media are bundler assets, not code dependencies.
_ASSET_EXTS = frozenset((
    ".css", ".scss", ".sass", ".less", ".styl", ".pcss", ".svg", ".png", ".jpg", ".jpeg",
    ".gif", ".webp", ".avif", ".ico", ".bmp", ".woff", ".woff2", ".ttf", ".otf", ".eot",
    ".mp3", ".mp4", ".webm", ".wav", ".ogg",
))
# Other non-code files that may still be imported and indexed some day (exact path only).
_DATA_EXTS = frozenset((".json", ".vue", ".svelte", ".graphql", ".gql", ".html", ".md", ".mdx", ".wasm", ".txt", ".yaml", ".yml"))
_TEST_RE = re.compile(r"(^|/)__tests__/|\.(test|spec)\.[^/]*$")


def module_name(path: str) -> str:
    """``web/lib/api.ts`` -> ``web/lib/api``; ``x.d.ts`` -> ``x.d``; unknown suffix kept."""
    root, ext = posixpath.splitext(path)
    return root if ext.lower() in CODE_EXTS else path


def is_test_path(path: str) -> bool:
    return bool(_TEST_RE.search(path))


def package_name(spec: str) -> str:
    """``@scope/pkg/sub`` -> ``@scope/pkg``; ``lodash/fp`` -> ``lodash``; ``node:fs`` kept."""
    parts = spec.split("/")
    if spec.startswith("@") and len(parts) > 1:
        return "/".join(parts[:2])
    return parts[0]


def is_path_alias(spec: str) -> bool:
    """tsconfig / bundler aliases (``@/lib/x``, ``~/x``, ``#internal``) are not packages,
    but the extractor cannot see the mapping (it sees one file)."""
    return spec.startswith(("@/", "~/", "#")) or spec == "~"


def specifier_paths(importer: str, spec: str) -> list[str] | None:
    """Candidate repo paths for a relative specifier, most likely first; None for a bare
    (package or alias) specifier; [] when it climbs out of the repository; for an asset
    (``.css``, ``.svg``...) a one-element list of the asset path."""
    if not (spec.startswith("./") or spec.startswith("../") or spec in (".", "..")):
        return None
    dir_only = spec.endswith("/") or spec in (".", "..")
    base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
    if base == ".":
        base = ""
    if base.startswith(".."):
        return []
    index = [(base + s) if base else s.lstrip("/") for s in _INDEX_COMPLETIONS]
    if dir_only:
        return index
    ext = posixpath.splitext(base)[1].lower()
    if ext in CODE_EXTS:
        stem = base[: -len(ext)]
        alts = [stem + e for e in _TS_SOURCE_FOR.get(ext, ())]
        decl = [stem + _DECLARATION_FOR[ext]] if ext in _DECLARATION_FOR and not stem.endswith(".d") else []
        # A TypeScript importer that writes `./a.js` means the `a.ts` source next to it.
        if importer.endswith((".ts", ".tsx", ".mts", ".cts")):
            return alts + [base] + decl
        return [base] + alts + decl
    if ext in _ASSET_EXTS or ext in _DATA_EXTS:
        return [base]
    return [base + e for e in _COMPLETIONS] + index


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


# --- bindings -----------------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class Binding:
    """What a name means in a scope.

    kind: ``sym`` (a symbol of this file: qn, sym_kind) | ``import`` (export ``export``
    of the relative module at ``cands``) | ``ns`` (a whole relative module: namespace
    import or ``require``) | ``ext`` (from package ``pkg``) | ``alias`` (path alias we
    cannot map) | ``var`` (a local value; ``type_node`` gives its class when visible).
    """

    kind: str
    qn: str = ""
    sym_kind: str = ""
    cands: list[str] = field(default_factory=list)
    export: str = ""
    spec: str = ""
    pkg: str = ""
    type_node: TSNode | None = None
    scope: Scope | None = None
    members: frozenset[str] = frozenset()  # object-literal members (sym variable)
    origin: TSNode | None = None  # var / sym variable: the initial value
    resolved: bool = False
    type: Binding | None = None
    param_of: str = ""  # var: a parameter of this function symbol, at position param_index
    param_index: int | None = None


class Scope:
    __slots__ = ("names", "parent")

    def __init__(self, parent: Scope | None = None) -> None:
        self.names: dict[str, Binding] = {}
        self.parent = parent

    def lookup(self, name: str) -> Binding | None:
        s: Scope | None = self
        while s is not None:
            b = s.names.get(name)
            if b is not None:
                return b
            s = s.parent
        return None


@dataclass(slots=True)
class ClassInfo:
    """``this`` inside a class (or a module-level object literal)."""

    qn: str
    base: Binding | None = None
    base_external: bool = False
    members: set[str] = field(default_factory=set)
    methods: set[str] = field(default_factory=set)
    fields: dict[str, Binding] = field(default_factory=dict)


@dataclass(slots=True)
class Ctx:
    owner: str  # qualified name that owns calls here
    owner_sig: str
    prefix: str  # qualified-name prefix for declarations here
    cls: ClassInfo | None
    scope: Scope


@dataclass(slots=True)
class Target:
    """A resolved callee: the reference's target identifier and hints."""

    ident: str
    cands: list[dict[str, Any]]
    name: str | None = None
    kinds: list[str] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


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


# --- the extractor ------------------------------------------------------------------------


class _Extractor:
    """State of one file's extraction: symbols, references and exports built by ``run``."""

    def __init__(self, repo: str, path: str, language: str, root: TSNode, mod_sig: str) -> None:
        self.repo = repo
        self.path = path
        self.language = language
        self.root = root
        self.mod = module_name(path)
        self.mod_sig = mod_sig
        self.symbols: list[SymbolRecord] = []
        self.refs: list[Reference] = []
        self.exports: dict[str, dict[str, Any]] = {}
        self.registry: dict[int, tuple[str, str]] = {}  # node id -> (qn, signature_hash)
        self.objects: dict[int, ClassInfo] = {}  # registered object literal -> its ``this``
        self.seen: set[tuple[str, str]] = set()
        self.exported_locals: set[str] = set()
        self.pending_exports: list[tuple[str, str]] = []  # (exported name, local name)
        self._paths: dict[str, list[str] | None] = {}
        self.pending_members: list[tuple[TSNode, TSNode]] = []  # (Foo.prototype.m, function)

    def paths(self, spec: str) -> list[str] | None:
        """``specifier_paths`` from this file, memoised (a specifier recurs in bindings and refs)."""
        if spec not in self._paths:
            self._paths[spec] = specifier_paths(self.path, spec)
        return self._paths[spec]

    # -- output --------------------------------------------------------------------------
    def add_symbol(
        self, name: str, qn: str, kind: str, span: TSNode, params: str, lang_kind: str, parent: str | None,
        visibility: str, doc_node: TSNode | None = None, sig_node: TSNode | None = None,
    ) -> str:
        sig = ts.signature_hash(kind, qn, params)
        if (qn, sig) not in self.seen:
            self.seen.add((qn, sig))
            self.symbols.append(SymbolRecord(
                repo=self.repo, qualified_name=qn, signature_hash=sig, name=name, kind=kind,
                language=self.language, language_kind=lang_kind, file=self.path, line=ts.line(span),
                end_line=ts.end_line(span), visibility=visibility, content_hash=ts.content_hash(span.text or b""),
                signature=_first_line(sig_node or span), docstring=_doc(doc_node or span), parent=parent,
            ))
        return sig

    def ref(self, rtype: str, ctx: Ctx, tgt: Target, node: TSNode, **extra: Any) -> None:
        ex: dict[str, Any] = {"candidates": tgt.cands}
        if tgt.name:
            ex["name"] = tgt.name
            if tgt.kinds:
                ex["name_kinds"] = tgt.kinds
        ex.update(tgt.extra)
        ex.update(extra)
        self.refs.append(Reference(rtype, ctx.owner, tgt.ident, self.path, ts.line(node), ctx.owner_sig, "symbol", ex))

    def import_ref(self, spec: str, node: TSNode, names: list[str], forwarding: bool = False, **extra: Any) -> None:
        paths = self.paths(spec)
        ex: dict[str, Any] = {"names": names, "forwarding": forwarding}
        if paths is None:
            ex["candidates"] = []
            if is_path_alias(spec):
                ex["alias"] = spec
            else:
                ex["external"] = package_name(spec)
        else:
            if paths and posixpath.splitext(paths[0])[1].lower() in _ASSET_EXTS:
                return
            ex["candidates"] = [{"path": p, "how": "import"} for p in paths]
        ex.update(extra)
        self.refs.append(Reference("IMPORTS", self.path, spec, self.path, ts.line(node), "", "file", ex))

    # -- bindings of imports -----------------------------------------------------------------
    def import_binding(self, spec: str, export: str) -> Binding:
        paths = self.paths(spec)
        if paths is None:
            if is_path_alias(spec):
                return Binding("alias", export=export, spec=spec)
            return Binding("ext", export=export, spec=spec, pkg=package_name(spec))
        return Binding("import", cands=paths, export=export, spec=spec)

    def ns_binding(self, spec: str) -> Binding:
        paths = self.paths(spec)
        if paths is None:
            if is_path_alias(spec):
                return Binding("alias", export="*", spec=spec)
            return Binding("ext", export="*", spec=spec, pkg=package_name(spec))
        return Binding("ns", cands=paths, spec=spec)

    # -- entry ---------------------------------------------------------------------------------
    def run(self) -> None:
        mod = self.mod
        scope = Scope()
        ctx = Ctx(mod, self.mod_sig, mod, None, scope)
        self.prescan_exports(self.root)
        self.collect(self.root.named_children, ctx, module=True)
        for exported, local in self.pending_exports:
            entry = self.export_entry(local, scope)
            if entry is not None:
                self.exports.setdefault(exported, entry)
        for left, fn in self.pending_members:
            self.assigned_method(left, fn, scope)
        self.walk(self.root, ctx)

    def assigned_method(self, left: TSNode, fn: TSNode, scope: Scope) -> None:
        """Pre-class JavaScript: ``Foo.prototype.go = function`` / ``Foo.create = function``
        make methods of the local constructor function or class ``Foo``."""
        obj = _field(left, "object")
        member = _t(_field(left, "property"))
        if obj is not None and obj.type == "member_expression" and _t(_field(obj, "property")) == "prototype":
            obj = _field(obj, "object")
        if obj is None or obj.type != "identifier" or not member:
            return
        b = scope.names.get(_t(obj))
        if b is None or b.kind != "sym" or b.sym_kind not in ("function", "class"):
            return
        qn = f"{b.qn}.{member}"
        stmt = left.parent.parent if left.parent is not None and left.parent.parent is not None else left
        sig = self.add_symbol(member, qn, "method", stmt, _params_text(fn), fn.type, b.qn, "public", stmt)
        self.registry[fn.id] = (qn, sig)

    def export_entry(self, local: str, scope: Scope) -> dict[str, Any] | None:
        b = scope.names.get(local)
        if b is None:
            return None
        if b.kind == "sym":
            return {"qn": b.qn}
        if b.kind == "import":
            return {"from": b.cands, "name": b.export}
        return None

    # -- module-level pre-scan: which local names are exported -----------------------------
    def prescan_exports(self, root: TSNode) -> None:
        for st in root.named_children:
            if st.type == "export_statement" and _field(st, "source") is None:
                for c in st.named_children:
                    if c.type == "export_clause":
                        for spec in c.named_children:
                            if spec.type == "export_specifier":
                                self.exported_locals.add(_t(_field(spec, "name")))
                    elif c.type == "identifier":  # export default x / export = x
                        self.exported_locals.add(_t(c))
            elif st.type == "expression_statement":
                asg = st.named_children[0] if st.named_children else None
                if asg is None or asg.type != "assignment_expression":
                    continue
                left, right = _field(asg, "left"), _field(asg, "right")
                if left is None or right is None or _cjs_export_name(left) is None:
                    continue
                if right.type == "identifier":
                    self.exported_locals.add(_t(right))
                elif right.type == "object":
                    for c in right.named_children:
                        if c.type == "shorthand_property_identifier":
                            self.exported_locals.add(_t(c))
                        elif c.type == "pair" and (v := _field(c, "value")) is not None and v.type == "identifier":
                            self.exported_locals.add(_t(v))

    # -- declaration pre-pass -----------------------------------------------------------------
    def collect(self, stmts: list[TSNode], ctx: Ctx, module: bool = False) -> None:
        """Declare what ``stmts`` (and nested blocks, not nested functions) bind in ``ctx.scope``."""
        stack = list(reversed(stmts))
        sigs: list[TSNode] = []
        impl_names: set[str] = set()
        while stack:
            st = stack.pop()
            t = st.type
            if t in _COMPOUND:
                stack.extend(reversed(st.named_children))
                if t == "for_in_statement":
                    for n in _pattern_names(_field(st, "left"), []):
                        ctx.scope.names.setdefault(n, Binding("var"))
                elif t == "catch_clause":
                    for n in _pattern_names(_field(st, "parameter"), []):
                        ctx.scope.names.setdefault(n, Binding("var"))
                continue
            if t not in _DECL_STMTS:
                continue
            if t == "expression_statement" and not module:
                first = st.named_child(0)
                if first is None or first.type != "internal_module":
                    continue
            decl = _field(st, "declaration") if t == "export_statement" else st
            dt = decl.type if decl is not None else ""
            if dt == "function_signature":
                sigs.append(st)
                continue
            if dt in ("function_declaration", "generator_function_declaration"):
                impl_names.add(_t(_field(decl, "name")))
            if t == "export_statement":
                self.collect_export(st, ctx, module)
            else:
                self.declare(st, st, ctx, module, exported=False)
        # TS overload signatures become symbols only without an implementation (.d.ts, declare).
        done: set[str] = set()
        for st in sigs:
            decl = _field(st, "declaration") if st.type == "export_statement" else st
            name = _t(_field(decl, "name")) if decl is not None else ""
            if not name or name in impl_names or name in done:
                continue
            done.add(name)
            if st.type == "export_statement":
                self.collect_export(st, ctx, module)
            else:
                self.declare(st, st, ctx, module, exported=False)

    def visibility(self, name: str, exported: bool, module: bool) -> str:
        return "public" if exported or (module and name in self.exported_locals) else "internal"

    def declare(self, node: TSNode, outer: TSNode, ctx: Ctx, module: bool, exported: bool) -> list[str]:
        """Register one declaration statement; returns the names it binds."""
        t = node.type
        scope, prefix = ctx.scope, ctx.prefix
        if t in ("function_declaration", "generator_function_declaration", "function_signature"):
            name = _t(_field(node, "name"))
            if not name:
                return []
            qn = f"{prefix}.{name}"
            sig = self.add_symbol(name, qn, "function", outer, _params_text(node), t, prefix,
                                  self.visibility(name, exported, module), outer)
            self.registry[node.id] = (qn, sig)
            # type_node of a function: its declared return type (`makeParser(): Parser`)
            scope.names[name] = Binding("sym", qn=qn, sym_kind="function", type_node=_field(node, "return_type"),
                                        scope=scope)
            return [name]
        if t in ("class_declaration", "abstract_class_declaration"):
            name = _t(_field(node, "name"))
            if not name:
                return []
            qn = f"{prefix}.{name}"
            sig = self.add_symbol(name, qn, "class", outer, "", t, prefix, self.visibility(name, exported, module), outer)
            self.registry[node.id] = (qn, sig)
            scope.names[name] = Binding("sym", qn=qn, sym_kind="class")
            return [name]
        if t in ("interface_declaration", "enum_declaration", "type_alias_declaration"):
            name = _t(_field(node, "name"))
            if not name:
                return []
            kind = {"interface_declaration": "interface", "enum_declaration": "enum"}.get(t, "type")
            qn = f"{prefix}.{name}"
            sig = self.add_symbol(name, qn, kind, outer, "", t, prefix, self.visibility(name, exported, module), outer)
            self.registry[node.id] = (qn, sig)
            prev = scope.names.get(name)
            # TS keeps types and values apart: `type schema = ...` must not hide `const schema`.
            if kind == "enum" or prev is None or (prev.kind == "sym" and prev.sym_kind in ("type", "interface")):
                scope.names[name] = Binding("sym", qn=qn, sym_kind=kind)
            return [name]
        if t in ("lexical_declaration", "variable_declaration"):
            names: list[str] = []
            for d in node.named_children:
                if d.type == "variable_declarator":
                    names.extend(self.declarator(d, outer, ctx, module, exported))
            return names
        if t == "import_statement" and module:
            self.collect_import(node, scope)
            return []
        if t == "expression_statement" and node.named_children:
            inner = node.named_children[0]
            if inner.type == "internal_module":
                return self.declare(inner, outer, ctx, module, exported)
            if inner.type == "assignment_expression" and module:
                self.collect_cjs(inner, ctx)
            return []
        if t == "ambient_declaration":
            for c in node.named_children:
                if c.type == "module" or c.type == "statement_block":
                    continue  # `declare module 'x' {}` / `declare global {}` describe other code
                return self.declare(c, outer, ctx, module, exported)
            return []
        if t == "internal_module":  # TS `namespace X {}`: its members are `X.member`
            name = _t(_field(node, "name"))
            if not name:
                return []
            qn = f"{prefix}.{name}"
            sig = self.add_symbol(name, qn, "namespace", outer, "", t, prefix, self.visibility(name, exported, module), outer)
            self.registry[node.id] = (qn, sig)
            scope.names.setdefault(name, Binding("sym", qn=qn, sym_kind="namespace"))
            return [name]
        return []

    def declarator(self, d: TSNode, outer: TSNode, ctx: Ctx, module: bool, exported: bool) -> list[str]:
        name_node, value = _field(d, "name"), _field(d, "value")
        scope, prefix = ctx.scope, ctx.prefix
        if name_node is None:
            return []
        if name_node.type != "identifier":
            names = _pattern_names(name_node, [])
            if value is not None and (spec := _require_spec(value)) is not None and name_node.type == "object_pattern":
                for orig, local in _object_pattern_pairs(name_node):
                    scope.names[local] = self.import_binding(spec, orig)
            else:
                for n in names:
                    scope.names[n] = Binding("var")
            return names
        name = _t(name_node)
        vis = self.visibility(name, exported, module)
        if value is not None:
            value = _unwrap_satisfies(value)
            vt = value.type
            fn = value if vt in _FUNC_VALUES else _wrapped_function(value)
            if fn is not None:
                qn = f"{prefix}.{name}"
                sig = self.add_symbol(name, qn, "function", outer, _params_text(fn), fn.type, prefix, vis, outer)
                self.registry[fn.id] = (qn, sig)
                scope.names[name] = Binding("sym", qn=qn, sym_kind="function", type_node=_field(fn, "return_type"),
                                            scope=scope)
                return [name]
            if vt == "class":
                qn = f"{prefix}.{name}"
                sig = self.add_symbol(name, qn, "class", outer, "", vt, prefix, vis, outer)
                self.registry[value.id] = (qn, sig)
                scope.names[name] = Binding("sym", qn=qn, sym_kind="class")
                return [name]
            spec = _require_spec(value)
            if spec is not None:
                scope.names[name] = self.ns_binding(spec)
                return [name]
            if vt == "member_expression" and (spec := _require_spec(_field(value, "object"))) is not None:
                scope.names[name] = self.import_binding(spec, _t(_field(value, "property")))
                return [name]
            if vt == "await_expression" and value.named_children and value.named_children[0].type == "call_expression":
                call = value.named_children[0]
                fnode = _field(call, "function")
                if fnode is not None and fnode.type == "import" and (spec := _first_string_arg(call)) is not None:
                    scope.names[name] = self.ns_binding(spec)
                    return [name]
        type_node: TSNode | None = _field(d, "type")
        if type_node is None and value is not None:
            v = _unwrap(value)
            if v.type in ("new_expression", "as_expression") or (
                    v.type == "call_expression" and (f := _field(v, "function")) is not None and f.type == "identifier"):
                type_node = v
        # Module-level objects with methods and exported constants are symbols: callers of
        # `api.list()` / `import {CONFIG}` need a node to point at.
        if module and value is not None and (value.type == "object" or name in self.exported_locals or exported):
            members = _object_members(value) if value.type == "object" else []
            if value.type == "object" and not members and not (exported or name in self.exported_locals):
                scope.names[name] = Binding("var", type_node=type_node, scope=scope)
                return [name]
            qn = f"{prefix}.{name}"
            sig = self.add_symbol(name, qn, "variable", outer, "", "variable_declarator", prefix, vis, outer)
            if value.type == "object":
                self.register_object(value, qn, sig, members)
            scope.names[name] = Binding("sym", qn=qn, sym_kind="variable", type_node=type_node, scope=scope,
                                        members=frozenset(m for m, _ in members), origin=value)
            return [name]
        scope.names[name] = Binding("var", type_node=type_node, scope=scope, origin=value)
        return [name]

    def register_object(self, obj: TSNode, qn: str, sig: str, members: list[tuple[str, TSNode]]) -> None:
        self.registry[obj.id] = (qn, sig)
        info = ClassInfo(qn=qn, members={m for m, _ in members}, methods={m for m, _ in members})
        self.objects[obj.id] = info
        for mname, fn in members:
            mqn = f"{qn}.{mname}"
            span = fn.parent if fn.type != "method_definition" and fn.parent is not None else fn
            msig = self.add_symbol(mname, mqn, "method", span, _params_text(fn), fn.type, qn,
                                   "private" if mname.startswith("#") else "public", span)
            self.registry[fn.id] = (mqn, msig)

    def collect_import(self, node: TSNode, scope: Scope) -> None:
        spec = _string_value(_field(node, "source"))
        clause = next((c for c in node.named_children if c.type in ("import_clause", "import_require_clause")), None)
        if clause is not None and clause.type == "import_require_clause":
            src = _string_value(_field(clause, "source"))
            ident = next((c for c in clause.named_children if c.type == "identifier"), None)
            if src is not None:
                if ident is not None:
                    scope.names[_t(ident)] = self.ns_binding(src)
                self.import_ref(src, node, ["*"])
            return
        if spec is None:
            return
        type_only = any(c.type == "type" for c in node.children)
        names: list[str] = []
        if clause is not None:
            for c in clause.named_children:
                if c.type == "identifier":
                    scope.names[_t(c)] = self.import_binding(spec, "default")
                    names.append("default")
                elif c.type == "namespace_import":
                    ident = next((x for x in c.named_children if x.type == "identifier"), None)
                    if ident is not None:
                        scope.names[_t(ident)] = self.ns_binding(spec)
                    names.append("*")
                elif c.type == "named_imports":
                    for s in c.named_children:
                        if s.type != "import_specifier":
                            continue
                        orig = _member_name(_field(s, "name"))
                        alias = _field(s, "alias")
                        scope.names[_t(alias) if alias is not None else orig] = self.import_binding(spec, orig)
                        names.append(orig)
        extra = {"type_only": True} if type_only else {}
        self.import_ref(spec, node, names or ["*"], **extra)

    def collect_export(self, st: TSNode, ctx: Ctx, module: bool) -> None:
        source = _string_value(_field(st, "source"))
        decl = _field(st, "declaration")
        is_default = any(c.type == "default" for c in st.children)
        if source is not None:
            if not module:
                return
            paths = self.paths(source)
            names: list[str] = []
            clause = next((c for c in st.named_children if c.type == "export_clause"), None)
            if clause is not None:
                for s in clause.named_children:
                    if s.type != "export_specifier":
                        continue
                    orig = _member_name(_field(s, "name"))
                    alias = _field(s, "alias")
                    names.append(orig)
                    if paths:
                        self.exports[_member_name(alias) if alias is not None else orig] = {"from": paths, "name": orig}
            else:
                names.append("*")
                ns_exp = next((c for c in st.named_children if c.type == "namespace_export"), None)
                if ns_exp is None and paths:
                    self.exports.setdefault("*", {"from_all": []})["from_all"].append(paths)
            self.import_ref(source, st, names, forwarding=True)
            return
        if decl is not None:
            names = self.declare(decl, st, ctx, module, exported=True)
            if module:
                if is_default:  # `export default class Foo` exports "default", not "Foo"
                    if names:
                        self.exports["default"] = {"qn": f"{ctx.prefix}.{names[0]}"}
                    return
                for n in names:
                    b = ctx.scope.names.get(n)
                    if b is not None and b.kind == "sym":
                        self.exports[n] = {"qn": b.qn}
            return
        value = _field(st, "value")
        if value is None:  # export { a as b } / export = x
            for c in st.named_children:
                if c.type == "export_clause" and module:
                    for s in c.named_children:
                        if s.type == "export_specifier":
                            orig = _t(_field(s, "name"))
                            alias = _field(s, "alias")
                            self.pending_exports.append((_member_name(alias) if alias is not None else orig, orig))
                elif c.type == "identifier" and module:
                    self.pending_exports.append(("default", _t(c)))
            return
        value = _unwrap_satisfies(value)
        if not module:
            return
        vt = value.type
        qn = f"{ctx.prefix}.default"
        if vt in _FUNC_VALUES or vt in _CLASS_NODES:
            named = _field(value, "name")
            name = _t(named) if named is not None else "default"
            qn = f"{ctx.prefix}.{name}"
            kind = "class" if vt in _CLASS_NODES else "function"
            sig = self.add_symbol(name, qn, kind, st, _params_text(value) if kind == "function" else "", vt,
                                  ctx.prefix, "public", st)
            self.registry[value.id] = (qn, sig)
            self.exports["default"] = {"qn": qn}
        elif vt == "identifier":
            self.pending_exports.append(("default", _t(value)))
        elif vt == "object":
            members = _object_members(value)
            sig = self.add_symbol("default", qn, "variable", st, "", "object", ctx.prefix, "public", st)
            self.register_object(value, qn, sig, members)
            self.exports["default"] = {"qn": qn}
        elif vt == "call_expression":
            wrapped = _hoc_argument(value)  # export default connect(mapState)(OrderList)
            if wrapped:
                self.pending_exports.append(("default", wrapped))

    def collect_cjs(self, asg: TSNode, ctx: Ctx) -> None:
        """``module.exports = ...`` / ``exports.x = ...`` at module level."""
        left, right = _field(asg, "left"), _field(asg, "right")
        if left is None or right is None:
            return
        exported = _cjs_export_name(left)
        if exported is None:
            if left.type == "member_expression" and _unwrap(right).type in _FUNC_VALUES:
                self.pending_members.append((left, _unwrap(right)))
            return
        right = _unwrap(right)
        rt = right.type
        mod = ctx.prefix
        if exported == "default" and rt == "object":
            for mname, fn in _object_members(right):
                qn = f"{mod}.{mname}"
                span = fn.parent if fn.type != "method_definition" and fn.parent is not None else fn
                sig = self.add_symbol(mname, qn, "function", span, _params_text(fn), fn.type, mod, "public", span)
                self.registry[fn.id] = (qn, sig)
                self.exports[mname] = {"qn": qn}
            for c in right.named_children:
                if c.type == "shorthand_property_identifier":
                    self.pending_exports.append((_t(c), _t(c)))
                elif c.type == "pair":
                    v = _field(c, "value")
                    if v is not None and v.type == "identifier":
                        self.pending_exports.append((_member_name(_field(c, "key")), _t(v)))
            return
        if rt == "identifier":
            self.pending_exports.append((exported, _t(right)))
            return
        if rt in _FUNC_VALUES or rt in _CLASS_NODES:
            named = _field(right, "name")
            name = exported if exported != "default" else (_t(named) if named is not None else "default")
            qn = f"{mod}.{name}"
            kind = "class" if rt in _CLASS_NODES else "function"
            sig = self.add_symbol(name, qn, kind, asg.parent or asg, _params_text(right) if kind == "function" else "",
                                  rt, mod, "public", asg.parent or asg)
            self.registry[right.id] = (qn, sig)
            self.exports[exported] = {"qn": qn}
            return
        spec = _require_spec(right)
        if spec is not None and exported == "default":
            paths = self.paths(spec)
            if paths:
                self.exports.setdefault("*", {"from_all": []})["from_all"].append(paths)
                self.exports["default"] = {"from": paths, "name": "default"}

    # -- the walk --------------------------------------------------------------------------------
    def walk(self, root: TSNode, ctx: Ctx) -> None:
        """Visit the nodes that matter in document order. A stack of frames (end byte,
        context) tells which function / class / object / namespace encloses each node."""
        frames: list[tuple[int, Ctx]] = []
        skip_end = -1
        for node in _interesting(self.language, root):
            sb = node.start_byte
            if sb < skip_end:
                continue
            while frames and sb >= frames[-1][0]:
                frames.pop()
            cur = frames[-1][1] if frames else ctx
            t = node.type
            if t == "call_expression":
                self.on_call(node, cur)
            elif t in _FUNC_NODES:
                frames.append((node.end_byte, self.enter_function(node, cur)))
            elif t == "new_expression":
                self.on_new(node, cur)
            elif t == "object":
                info = self.objects.get(node.id)
                if info is not None:
                    reg = self.registry[node.id]
                    frames.append((node.end_byte, Ctx(reg[0], reg[1], reg[0], info, cur.scope)))
            elif t in ("jsx_opening_element", "jsx_self_closing_element"):
                self.on_jsx(node, cur)
            elif t in _CLASS_NODES:
                frames.append((node.end_byte, self.enter_class(node, cur)))
            elif t == "interface_declaration":
                self.on_interface(node, cur)
                skip_end = node.end_byte
            elif t == "internal_module":
                frames.append((node.end_byte, self.enter_namespace(node, cur)))
            elif _opaque(node, t):
                skip_end = node.end_byte

    def enter_namespace(self, node: TSNode, ctx: Ctx) -> Ctx:
        reg = self.registry.get(node.id)
        inner = Ctx(reg[0], reg[1], reg[0], None, Scope(ctx.scope)) if reg else \
            Ctx(ctx.owner, ctx.owner_sig, f"{ctx.prefix}.{_t(_field(node, 'name'))}", None, Scope(ctx.scope))
        body = _field(node, "body")
        if body is not None:
            self.collect(body.named_children, inner)
        return inner

    def enter_function(self, node: TSNode, ctx: Ctx) -> Ctx:
        """The context inside a function: its own scope (parameters, hoisted
        declarations), its owner (itself when named, else the enclosing owner)."""
        reg = self.registry.get(node.id)
        # `this` survives into arrows and into the class's (or object's) own members only.
        keeps_this = node.type == "arrow_function" or (
            reg is not None and ctx.cls is not None and bool(ctx.cls.qn) and reg[0].rsplit(".", 1)[0] == ctx.cls.qn)
        cls = ctx.cls if keeps_this else None
        if node.type == "method_definition" and node.parent is not None and node.parent.type == "object" \
                and node.parent.id not in self.objects:
            cls = None
        owner, owner_sig, prefix = (reg[0], reg[1], reg[0]) if reg else (ctx.owner, ctx.owner_sig, ctx.prefix)
        scope = Scope(ctx.scope)
        if node.type != "arrow_function":  # a plain function has its own `this` (typed by a TS `this:` param)
            scope.names["this"] = Binding("var")
        inner = Ctx(owner, owner_sig, prefix, cls, scope)
        params = _field(node, "parameters") or _field(node, "parameter")
        if params is not None:
            for i, p in enumerate([params] if params.type == "identifier" else params.named_children):
                self.declare_param(p, scope)
                if reg:  # a named function: calls of its parameters get the callers' arguments
                    pat = _field(p, "pattern") if p.type in ("required_parameter", "optional_parameter") else p
                    if pat is not None and pat.type == "identifier" and _t(pat) in scope.names:
                        scope.names[_t(pat)].param_of = reg[0]
                        scope.names[_t(pat)].param_index = i
        body = _field(node, "body")
        if body is not None and body.type == "statement_block":
            self.collect(body.named_children, inner)
        if reg:  # USES_TYPE from a named function to the types its signature names
            for p in ([] if params is None or params.type == "identifier" else params.named_children):
                t = _field(p, "type") if p.type in ("required_parameter", "optional_parameter") else None
                if t is not None:
                    self.uses_types(t, inner, scope, 0)
            rt = _field(node, "return_type")
            if rt is not None:
                self.uses_types(rt, inner, scope, 0)
        return inner

    def uses_types(self, tnode: TSNode, ctx: Ctx, scope: Scope, depth: int) -> None:
        """USES_TYPE to every class / interface / type alias / enum of the repo a TS type
        annotation names (generic arguments, unions, arrays included); never a stub."""
        if depth > 12:
            return
        t = tnode.type
        if t in ("type_identifier", "nested_type_identifier"):
            b = self.class_binding(tnode, scope)
            if b is None or (b.kind == "sym" and b.sym_kind not in ("class", "interface", "type", "enum")) \
                    or b.kind not in ("sym", "import"):
                return
            tgt = self.binding_target(b, _t(tnode), _t(tnode).rsplit(".", 1)[-1], ["class"])
            if tgt is not None and tgt.cands:
                self.ref("USES_TYPE", ctx, Target(tgt.ident, [{**c, "how": "annotation"} for c in tgt.cands]),
                         tnode, optional=True)
            return
        for c in tnode.named_children:
            self.uses_types(c, ctx, scope, depth + 1)

    def declare_param(self, p: TSNode, scope: Scope) -> None:
        t = p.type
        if t in ("required_parameter", "optional_parameter"):
            pat = _field(p, "pattern")
            tnode = _field(p, "type")
            if pat is not None and pat.type in ("identifier", "this"):
                scope.names[_t(pat)] = Binding("var", type_node=tnode, scope=scope)
            else:
                for n in _pattern_names(pat, []):
                    scope.names[n] = Binding("var")
        else:
            for n in _pattern_names(p, []):
                scope.names[n] = Binding("var")

    # -- classes -----------------------------------------------------------------------------------
    def enter_class(self, node: TSNode, ctx: Ctx) -> Ctx:
        """Register the members, record heritage and field types; returns the context
        for everything inside the class (``this`` bound, owner = the class)."""
        reg = self.registry.get(node.id)
        qn, sig = reg if reg else ("", "")
        info = ClassInfo(qn=qn)
        body = _field(node, "body")
        members: list[TSNode] = body.named_children if body is not None else []
        owner_ctx = Ctx(qn, sig, qn, info, ctx.scope) if qn else Ctx(ctx.owner, ctx.owner_sig, ctx.prefix, None, ctx.scope)
        for c in node.named_children:
            if c.type == "class_heritage":
                self.heritage(c, info, owner_ctx if qn else None, ctx.scope)
        # Pass 1: member names and field types, so `this.x` resolves anywhere in the body.
        for m in members:
            mt = m.type
            if mt in ("method_definition", "abstract_method_signature"):
                name = _member_name(_field(m, "name"))
                info.members.add(name)
                info.methods.add(name)
                if name == "constructor":
                    self.ctor_fields(m, info, ctx.scope)
            elif mt in ("public_field_definition", "field_definition"):
                name_node = _field(m, "name") or _field(m, "property")
                name = _member_name(name_node)
                info.members.add(name)
                value = _field(m, "value")
                if value is not None and value.type in _FUNC_VALUES:
                    info.methods.add(name)
                tnode = _field(m, "type")
                if tnode is None and value is not None and _unwrap(value).type == "new_expression":
                    tnode = _unwrap(value)
                if tnode is not None:
                    info.fields[name] = Binding("var", type_node=tnode, scope=ctx.scope)
        for m in members:
            if m.type == "method_definition" and _member_name(_field(m, "name")) != "constructor":
                self.assigned_fields(m, info, ctx.scope)
        # Pass 2: symbols, then walk bodies with `this` bound to the class.
        for m in members:
            mt = m.type
            if mt in ("method_definition", "abstract_method_signature") and qn:
                name = _member_name(_field(m, "name"))
                msig = self.add_symbol(name, f"{qn}.{name}", "method", m, _params_text(m), mt, qn, _member_visibility(m, name), m)
                self.registry[m.id] = (f"{qn}.{name}", msig)
            elif mt in ("public_field_definition", "field_definition"):
                value = _field(m, "value")
                if value is None or value.type not in _FUNC_VALUES or not qn:
                    continue
                name = _member_name(_field(m, "name") or _field(m, "property"))
                msig = self.add_symbol(name, f"{qn}.{name}", "method", m, _params_text(value), mt, qn,
                                       _member_visibility(m, name), m)
                self.registry[value.id] = (f"{qn}.{name}", msig)
        return owner_ctx

    def heritage(self, node: TSNode, info: ClassInfo, ctx: Ctx | None, scope: Scope) -> None:
        """``extends`` (value expression) and TS ``implements`` clauses."""
        clauses = node.named_children
        for c in clauses:
            if c.type == "extends_clause":
                value = _field(c, "value")
                self.set_base(value, info, ctx, scope)
            elif c.type == "implements_clause":
                for tnode in c.named_children:
                    if ctx is not None:
                        tgt = self.type_target(tnode, scope, ["interface", "class"])
                        if tgt is not None:
                            self.ref("IMPLEMENTS", ctx, tgt, tnode)
            elif c.type not in ("comment",):  # JavaScript grammar: the expression itself
                self.set_base(c, info, ctx, scope)

    def set_base(self, value: TSNode | None, info: ClassInfo, ctx: Ctx | None, scope: Scope) -> None:
        if value is None:
            return
        b = self.class_binding(value, scope)
        info.base = b
        if b is not None and b.kind == "ext":
            info.base_external = True
        if ctx is None:
            return
        if value.type == "call_expression":  # mixin(Base): no EXTENDS (the walk sees the call)
            return
        tgt = self.binding_target(b, _written(value), _last_name(value), ["class"]) if b is not None else None
        if tgt is None and b is None and value.type == "identifier" and _t(value) not in JS_GLOBALS:
            tgt = Target(_t(value), [], _t(value), ["class"])
        if tgt is not None:
            self.ref("EXTENDS", ctx, tgt, value)

    def ctor_fields(self, ctor: TSNode, info: ClassInfo, scope: Scope) -> None:
        """TS parameter properties (``constructor(private repo: Repo)``) and
        ``this.x = new X()`` / ``this.x = typedParam`` in the constructor."""
        params = _field(ctor, "parameters")
        ptypes: dict[str, TSNode] = {}
        if params is not None:
            for p in params.named_children:
                if p.type not in ("required_parameter", "optional_parameter"):
                    continue
                pat, tnode = _field(p, "pattern"), _field(p, "type")
                if pat is None or pat.type != "identifier":
                    continue
                if tnode is not None:
                    ptypes[_t(pat)] = tnode
                if any(c.type in ("accessibility_modifier", "readonly", "override_modifier") for c in p.children):
                    info.members.add(_t(pat))
                    if tnode is not None:
                        info.fields[_t(pat)] = Binding("var", type_node=tnode, scope=scope)
        self.assigned_fields(ctor, info, scope, ptypes)

    def assigned_fields(self, method: TSNode, info: ClassInfo, scope: Scope, ptypes: dict[str, TSNode] | None = None) -> None:
        body = _field(method, "body")
        if body is None:
            return
        for st in body.named_children:
            if st.type != "expression_statement" or not st.named_children:
                continue
            asg = st.named_children[0]
            if asg.type != "assignment_expression":
                continue
            left, right = _field(asg, "left"), _field(asg, "right")
            if left is None or right is None or left.type != "member_expression":
                continue
            obj = _field(left, "object")
            if obj is None or obj.type != "this":
                continue
            fname = _t(_field(left, "property"))
            info.members.add(fname)
            if fname in info.fields:
                continue
            r = _unwrap(right)
            if r.type in ("new_expression", "as_expression"):
                info.fields[fname] = Binding("var", type_node=r, scope=scope)
            elif r.type == "identifier" and ptypes and _t(r) in ptypes:
                info.fields[fname] = Binding("var", type_node=ptypes[_t(r)], scope=scope)

    def on_interface(self, node: TSNode, ctx: Ctx) -> None:
        reg = self.registry.get(node.id)
        if reg is None:
            return
        qn, sig = reg
        ictx = Ctx(qn, sig, qn, None, ctx.scope)
        for c in node.named_children:
            if c.type == "extends_type_clause":
                for tnode in c.named_children:
                    tgt = self.type_target(tnode, ctx.scope, ["interface", "class"])
                    if tgt is not None:
                        self.ref("EXTENDS", ictx, tgt, tnode)
        body = _field(node, "body")
        for m in body.named_children if body is not None else []:
            if m.type == "method_signature":
                name = _member_name(_field(m, "name"))
                self.add_symbol(name, f"{qn}.{name}", "method", m, _params_text(m), m.type, qn, "public", m)

    # -- types -----------------------------------------------------------------------------------------
    def class_binding(self, expr: TSNode, scope: Scope) -> Binding | None:
        """The class an expression names (``Foo``, ``ns.Foo``) as a binding, if known."""
        expr = _unwrap(expr)
        if expr.type in ("identifier", "type_identifier"):
            b = scope.lookup(_t(expr))
            if b is None or b.kind == "var":
                return None
            if b.kind == "ns":  # const Logger = require('./logger'): the module's export
                return Binding("import", cands=b.cands, export="default", spec=b.spec)
            if b.kind == "sym" and b.sym_kind not in _CLASSLIKE:
                return None
            return b
        if expr.type in ("member_expression", "nested_type_identifier"):
            obj = _field(expr, "object") or _field(expr, "module")
            prop = _field(expr, "property") or _field(expr, "name")
            if obj is None or prop is None or obj.type != "identifier":
                return None
            b = scope.lookup(_t(obj))
            if b is None:
                return None
            if b.kind == "ns":
                return Binding("import", cands=b.cands, export=_t(prop), spec=b.spec)
            if b.kind == "ext":
                return Binding("ext", export=_t(prop) if b.export in ("*", "default") else f"{b.export}.{_t(prop)}",
                               spec=b.spec, pkg=b.pkg)
            if b.kind == "sym" and b.sym_kind == "namespace":
                return Binding("sym", qn=f"{b.qn}.{_t(prop)}", sym_kind="class")
        return None

    def type_binding(self, tnode: TSNode | None, scope: Scope) -> Binding | None:
        """The class of a value from a type annotation, ``new X()`` or ``x as X``."""
        if tnode is None:
            return None
        t = tnode.type
        if t == "type_annotation":
            return self.type_binding(tnode.named_children[0] if tnode.named_children else None, scope)
        if t == "new_expression":
            ctor = _field(tnode, "constructor")
            return self.class_binding(ctor, scope) if ctor is not None else None
        if t == "as_expression":
            kids = tnode.named_children
            return self.type_binding(kids[-1], scope) if len(kids) == 2 else None
        if t == "call_expression":  # the declared return type of a function of this file
            fb = scope.lookup(_t(_field(tnode, "function")))
            if fb is None or fb.kind != "sym" or fb.sym_kind != "function" or fb.type_node is None:
                return None
            return self.type_of(fb)
        if t == "generic_type":
            name = _field(tnode, "name")
            args = _field(tnode, "type_arguments")
            if _t(name) == "Promise" and args is not None and args.named_children:  # awaited value
                return self.type_binding(args.named_children[0], scope)
            return self.type_binding(name, scope)
        if t in ("type_identifier", "nested_type_identifier", "identifier"):
            return self.class_binding(tnode, scope)
        if t in ("union_type", "parenthesized_type"):
            parts = [c for c in tnode.named_children if not (c.type == "literal_type" or _t(c) in ("null", "undefined"))]
            if len(parts) == 1:
                return self.type_binding(parts[0], scope)
            if t == "union_type":  # nested unions are left-leaning binaries
                flat = _flatten_union(tnode)
                flat = [c for c in flat if not (c.type == "literal_type" or _t(c) in ("null", "undefined"))]
                if len(flat) == 1:
                    return self.type_binding(flat[0], scope)
        return None

    def type_of(self, b: Binding) -> Binding | None:
        if not b.resolved:
            b.resolved = True
            if b.type_node is not None and b.scope is not None:
                b.type = self.type_binding(b.type_node, b.scope)
        return b.type

    def type_target(self, tnode: TSNode, scope: Scope, kinds: list[str]) -> Target | None:
        """Target of a type in ``implements`` / interface ``extends``."""
        name_node = _field(tnode, "name") if tnode.type == "generic_type" else tnode
        if name_node is None:
            return None
        b = self.class_binding(name_node, scope)
        written = _t(name_node)
        last = written.rsplit(".", 1)[-1]
        if b is None:
            if written in JS_GLOBALS or "." in written:
                return None
            return Target(written, [], last, kinds)
        return self.binding_target(b, written, last, kinds)

    # -- targets -----------------------------------------------------------------------------------------
    def binding_target(self, b: Binding, written: str, last: str, kinds: list[str], depth: int = 0) -> Target | None:
        """Target for a name bound to ``b`` (a call, ``new``, JSX, a base class)."""
        if b.kind == "sym":
            if b.sym_kind == "namespace":
                return None
            # An exported const may hold a function or a class made at run time.
            return Target(written, [{"qn": b.qn, "how": "same_module"}], last, kinds)
        if b.kind == "import":
            return Target(written, [{"file": b.cands, "export": b.export, "how": "import"}],
                          b.export if b.export != "default" else None, kinds)
        if b.kind == "ns":  # a required module called as a function: its module.exports
            return Target(written, [{"file": b.cands, "export": "default", "how": "import"}], None, kinds)
        if b.kind == "ext":
            return Target(_ext_ident(b), [], None, None, {"external": b.pkg})
        if b.kind == "alias":
            name = b.export if b.export not in ("default", "*") else last
            return Target(written, [], name, kinds, {"alias": b.spec})
        if b.kind == "var" and b.origin is not None and b.origin.type == "identifier" and b.scope is not None \
                and depth < 8:
            # const p = persist; p(): the value the name was initialised with (value_flow)
            ob = b.scope.lookup(_t(b.origin))
            if ob is not None and ob is not b and (ob.kind in ("import", "var") or (
                    ob.kind == "sym" and ob.sym_kind in ("function", "class"))):
                tgt = self.binding_target(ob, written, last, kinds, depth + 1)
                if tgt is not None and tgt.cands:
                    return Target(tgt.ident, [{**c, "how": "value_flow"} for c in tgt.cands], None, None, tgt.extra)
        return None

    def typed_target(self, tb: Binding, member: str, written: str) -> Target | None:
        """``x.member()`` where ``x`` is an instance of the class ``tb``."""
        name = member if member not in BUILTIN_METHODS else None
        if tb.kind == "sym":
            return Target(written, [{"owner": tb.qn, "member": member, "how": "receiver_type"}], name, ["method"])
        if tb.kind == "import":
            return Target(written, [{"owner_export": {"file": tb.cands, "export": tb.export}, "member": member,
                                     "how": "receiver_type"}], name, ["method"])
        if tb.kind == "ext":
            return Target(f"{_ext_ident(tb)}.{member}", [], None, None, {"external": tb.pkg})
        if tb.kind == "alias":
            return Target(written, [], name, ["method"], {"alias": tb.spec}) if name else None
        return None

    def unknown_target(self, written: str, member: str) -> Target | None:
        if member in BUILTIN_METHODS:
            return None
        return Target(_short(written, member), [], member, ["method"])

    def ident_target(self, name: str, ctx: Ctx, kinds: list[str]) -> Target | None:
        b = ctx.scope.lookup(name)
        if b is None:
            if name in JS_GLOBALS:
                return None
            return Target(name, [], name, kinds)
        return self.binding_target(b, name, name, kinds)

    def member_target(self, fn: TSNode, ctx: Ctx) -> Target | None:
        obj, prop = _field(fn, "object"), _field(fn, "property")
        if obj is None or prop is None:
            return None
        member = _t(prop)
        written = _callee_text(fn, member)
        obj = _unwrap(obj)
        ot = obj.type
        if ot == "this":
            cls = ctx.cls
            if cls is None or not cls.qn:
                tb = self.type_of(b) if (b := ctx.scope.lookup("this")) is not None else None
                return self.typed_target(tb, member, written) if tb is not None else self.unknown_target(written, member)
            if cls.base_external and member not in cls.members and cls.base is not None:
                # Inherited from a package class (React.Component.setState): one stub per library member.
                return Target(f"{_ext_ident(cls.base)}.{member}", [{"owner": cls.qn, "member": member, "how": "self"}],
                              None, None, {"external": cls.base.pkg})
            name = None if member in BUILTIN_METHODS else member
            return Target(written, [{"owner": cls.qn, "member": member, "how": "self"}], name, ["method"])
        if ot == "super":
            cls = ctx.cls
            if cls is None or not cls.qn:
                return None
            if cls.base_external and cls.base is not None:
                return Target(f"{_ext_ident(cls.base)}.{member}", [], None, None, {"external": cls.base.pkg})
            return Target(written, [{"super_of": cls.qn, "member": member, "how": "self"}],
                          None if member in BUILTIN_METHODS else member, ["method"])
        if ot == "identifier":
            oname = _t(obj)
            b = ctx.scope.lookup(oname)
            if b is None:
                if oname in ("exports",):
                    return Target(written, [{"qn": f"{self.mod}.{member}", "how": "same_module"}], member, ["function"])
                if oname in JS_GLOBALS:
                    return None
                return self.unknown_target(written, member)
            return self.bound_member_target(b, member, written)
        if ot == "member_expression":
            inner_obj = _field(obj, "object")
            if inner_obj is not None and inner_obj.type == "this" and ctx.cls is not None:
                fb = ctx.cls.fields.get(_t(_field(obj, "property")))
                tb = self.type_of(fb) if fb is not None else None
                if tb is not None:
                    return self.typed_target(tb, member, written)
                return self.unknown_target(written, member)
            if _written(obj) == "module.exports" and ctx.scope.lookup("module") is None:
                return Target(written, [{"qn": f"{self.mod}.{member}", "how": "same_module"}], member, ["function"])
        if ot in ("new_expression", "as_expression", "call_expression"):
            tb = self.type_binding(obj, ctx.scope)
            if tb is not None:
                return self.typed_target(tb, member, written)
        root = _chain_root(obj)
        if root is not None and root.type == "identifier":
            rb = ctx.scope.lookup(_t(root))
            if (rb is None and _t(root) in JS_GLOBALS) or (rb is not None and rb.kind == "ext"):
                return None
        return self.unknown_target(written, member)

    def bound_member_target(self, b: Binding, member: str, written: str) -> Target | None:
        """``name.member()`` where ``name`` is bound to ``b``."""
        if b.kind == "ns":
            return Target(written, [{"file": b.cands, "export": member, "how": "import"}], member, ["function", "class"])
        if b.kind == "ext":
            return Target(f"{_ext_ident(b)}.{member}", [], None, None, {"external": b.pkg})
        if b.kind == "alias":
            return Target(written, [], member, ["function", "method"], {"alias": b.spec})
        name = member if member not in BUILTIN_METHODS else None
        if b.kind == "import":
            cands: list[dict[str, Any]] = [{"owner_export": {"file": b.cands, "export": b.export}, "member": member,
                                            "how": "import"}]
            if b.export == "default":  # CommonJS interop: the default import is module.exports
                cands.append({"file": b.cands, "export": member, "how": "import"})
            return Target(written, cands, name, ["method"])
        if b.kind == "sym":
            if b.sym_kind == "namespace":
                return Target(written, [{"qn": f"{b.qn}.{member}", "how": "same_module"}], member, ["function", "class"])
            if b.sym_kind == "function":
                if member in ("call", "apply"):  # f.call(this, x) calls f
                    return Target(written, [{"qn": b.qn, "how": "same_module"}], None)
                return None if member in BUILTIN_METHODS else Target(
                    written, [{"owner": b.qn, "member": member, "how": "same_module"}], name, ["method"])
            if b.sym_kind == "variable":
                if member in b.members:
                    return Target(written, [{"owner": b.qn, "member": member, "how": "same_module"}], name, ["method"])
                tb = self.type_of(b)
                if tb is not None:
                    return self.typed_target(tb, member, written)
                return None if self.external_origin(b) else self.unknown_target(written, member)
            return Target(written, [{"owner": b.qn, "member": member, "how": "same_module"}], name, ["method"])
        tb = self.type_of(b)  # var
        if tb is not None:
            return self.typed_target(tb, member, written)
        return None if self.external_origin(b) else self.unknown_target(written, member)

    def external_origin(self, b: Binding, depth: int = 0) -> bool:
        """Whether a variable holds a value made by a package or a runtime global
        (``const app = express()``, ``const m = new Map()``, ``const s = z.object()``):
        its methods are the library's, so no fallback by name."""
        if b.origin is None or b.scope is None or depth > 3:
            return False
        root = _chain_root(_unwrap(b.origin))
        if root is None or root.type != "identifier":
            return False
        rb = b.scope.lookup(_t(root))
        if rb is None:
            return _t(root) in JS_GLOBALS
        if rb.kind == "ext":
            return True
        return rb.kind == "var" and rb is not b and self.external_origin(rb, depth + 1)

    # -- events ----------------------------------------------------------------------------------------------
    def on_call(self, node: TSNode, ctx: Ctx) -> None:
        fn = _field(node, "function")
        if fn is None:
            return
        ft = fn.type
        if ft == "import":
            spec = _first_string_arg(node)
            if spec is not None:
                self.import_ref(spec, node, ["*"], dynamic=True)
            return
        if ft == "identifier" and _t(fn) == "require" and ctx.scope.lookup("require") is None:
            spec = _first_string_arg(node)
            if spec is not None:
                self.import_ref(spec, node, _require_names(node))
            return
        tgt: Target | None
        if ft == "super":
            self.super_ctor(node, ctx)
            tgt = None
        elif ft == "identifier":
            tgt = self.ident_target(_t(fn), ctx, ["function"])
        elif ft == "member_expression":
            tgt = self.member_target(fn, ctx)
        else:
            tgt = None
        if tgt is not None:
            self.ref("CALLS", ctx, tgt, node)
        elif ft == "identifier":
            b = ctx.scope.lookup(_t(fn))
            if b is not None and b.kind == "var" and b.param_of:
                # cb() on a parameter: the resolver joins it with what callers pass (pass hints)
                self.ref("CALLS", ctx, Target(_t(fn), []), node, optional=True,
                         param_call={"owner": b.param_of, "index": b.param_index, "name": _t(fn)})
        self.callbacks(_field(node, "arguments"), ctx, tgt)

    def super_ctor(self, node: TSNode, ctx: Ctx) -> None:
        cls = ctx.cls
        if cls is None or not cls.qn or cls.base is None or cls.base_external:
            return
        self.ref("CALLS", ctx, Target("super", [{"super_of": cls.qn, "member": "constructor", "how": "self"}]), node,
                 optional=True)

    def on_new(self, node: TSNode, ctx: Ctx) -> None:
        ctor = _field(node, "constructor")
        if ctor is None:
            return
        ctor = _unwrap(ctor)
        written = _written(ctor)
        b: Binding | None = None
        if ctor.type == "identifier":
            b = ctx.scope.lookup(_t(ctor))
            if b is None:
                if _t(ctor) not in JS_GLOBALS:
                    self.ref("CALLS", ctx, Target(written, [], _t(ctor), ["class"]), node)
                self.callbacks(_field(node, "arguments"), ctx)
                return
            if b.kind == "ns":
                b = Binding("import", cands=b.cands, export="default", spec=b.spec)
        elif ctor.type == "member_expression":
            b = self.class_binding(ctor, ctx.scope)
        if b is not None:
            tgt = self.binding_target(b, written, _last_name(ctor), ["class"])
            if tgt is not None:
                self.ref("CALLS", ctx, tgt, node)
                ctor_cand: dict[str, Any] | None = None
                if b.kind == "sym" and b.sym_kind == "class":
                    ctor_cand = {"owner": b.qn, "member": "constructor", "how": "same_module"}
                elif b.kind == "import":
                    ctor_cand = {"owner_export": {"file": b.cands, "export": b.export}, "member": "constructor",
                                 "how": "import"}
                if ctor_cand is not None:
                    self.ref("CALLS", ctx, Target(f"{written}.constructor", [ctor_cand]), node, optional=True)
        self.callbacks(_field(node, "arguments"), ctx)

    def on_jsx(self, node: TSNode, ctx: Ctx) -> None:
        name = _field(node, "name")
        if name is not None:
            tgt: Target | None = None
            if name.type == "identifier" and _t(name)[:1].isupper():
                tgt = self.ident_target(_t(name), ctx, ["function", "class"])
            elif name.type == "member_expression":
                tgt = self.member_target(name, ctx)
            if tgt is not None:
                self.ref("CALLS", ctx, tgt, node, jsx=True)
        for attr in node.named_children:
            if attr.type == "jsx_attribute":
                for v in attr.named_children:
                    if v.type == "jsx_expression" and v.named_children:
                        self.callback(v.named_children[0], ctx)

    def callbacks(self, args: TSNode | None, ctx: Ctx, callee: Target | None = None) -> None:
        if args is None or args.type != "arguments":
            return
        for i, a in enumerate(c for c in args.named_children if c.type != "comment"):
            if a.type == "spread_element":
                break
            self.callback(a, ctx, callee, i)

    def callback(self, expr: TSNode, ctx: Ctx, callee: Target | None = None, index: int | None = None) -> None:
        """A function passed as a value (``arr.map(format)``, ``onClick={save}``,
        ``router.get('/x', handler)``): a REFERENCES edge from the code handing it
        over (impact walks it), and a ``pass`` hint so that a callee in the repo that
        calls that parameter gets the CALLS edge (resolution ``parameter``)."""
        extra: dict[str, Any] = {"callback": True, "optional": True}
        if callee is not None and callee.cands and index is not None:
            extra["pass"] = {"callee": callee.cands, "index": index, "kw": None}
        t = expr.type
        if t == "identifier":
            b = ctx.scope.lookup(_t(expr))
            if b is None or b.kind not in ("sym", "import", "alias"):
                return
            if b.kind == "sym" and b.sym_kind not in ("function", "class"):
                return
            tgt = self.binding_target(b, _t(expr), _t(expr), ["function", "class"])
            if tgt is not None:
                self.ref("REFERENCES", ctx, tgt, expr, **extra)
        elif t == "member_expression":
            obj, prop = _field(expr, "object"), _field(expr, "property")
            cls = ctx.cls
            if obj is not None and obj.type == "this" and cls is not None and cls.qn and _t(prop) in cls.methods:
                self.ref("REFERENCES", ctx, Target(_written(expr), [{"owner": cls.qn, "member": _t(prop), "how": "self"}],
                                                   _t(prop), ["method"]), expr, **extra)


_INTERESTING = (
    "call_expression", "new_expression", "jsx_opening_element", "jsx_self_closing_element", "object",
    "function_declaration", "generator_function_declaration", "function_expression", "function",
    "generator_function", "arrow_function", "method_definition", "class_declaration", "abstract_class_declaration",
    "class", "interface_declaration", "internal_module", "ambient_declaration", "export_statement",
)


@cache
def _interesting_query(language: str) -> Query:
    """One alternation over the node types the walk handles (those the grammar has):
    tree-sitter's C side finds them, so Python never visits identifiers or literals."""
    lang = get_language(language)  # type: ignore[arg-type]
    kinds = [k for k in _INTERESTING if lang.id_for_node_kind(k, True)]
    return Query(lang, "[" + " ".join(f"({k})" for k in kinds) + "] @n")


def _interesting(language: str, root: TSNode) -> list[TSNode]:
    """Nodes of ``_INTERESTING`` types in document order, an enclosing node first."""
    nodes = QueryCursor(_interesting_query(language)).captures(root).get("n", [])
    nodes.sort(key=lambda n: (n.start_byte, -n.end_byte))
    return nodes


def _opaque(node: TSNode, t: str) -> bool:
    """Statements whose inside describes other code: ``declare module 'x' {}``,
    ``declare global {}``, ``export ... from`` (handled by the pre-pass)."""
    if t == "ambient_declaration":
        return any(c.type in ("module", "statement_block") for c in node.named_children)
    return t == "export_statement" and _field(node, "source") is not None


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


def _object_pattern_pairs(pat: TSNode) -> list[tuple[str, str]]:
    """``{h, i: j, k = 1}`` -> [(h, h), (i, j), (k, k)]."""
    out: list[tuple[str, str]] = []
    for c in pat.named_children:
        if c.type == "shorthand_property_identifier_pattern":
            out.append((_t(c), _t(c)))
        elif c.type == "pair_pattern":
            key, value = _field(c, "key"), _field(c, "value")
            if value is not None and value.type == "assignment_pattern":
                value = _field(value, "left")
            if key is not None and value is not None and value.type == "identifier":
                out.append((_member_name(key), _t(value)))
        elif c.type == "object_assignment_pattern":
            left = _field(c, "left")
            if left is not None:
                out.append((_t(left), _t(left)))
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


# --- entry point ---------------------------------------------------------------------------------------------


def extract(repo: str, path: str, source: bytes) -> FileExtraction:
    """Extract one JavaScript / TypeScript / TSX file.

    ``path`` is repo-relative (POSIX); the grammar follows its extension (``.jsx`` /
    ``.mjs`` / ``.cjs`` -> javascript, ``.ts`` / ``.mts`` / ``.cts`` -> typescript,
    ``.tsx`` -> tsx). Never raises on bad syntax: the file is ``partial`` or ``error``
    and whatever parsed is still extracted.
    """
    language = language_for(path) or "javascript"
    if language not in ("javascript", "typescript", "tsx"):
        language = "javascript"
    src = source[3:] if source.startswith(b"\xef\xbb\xbf") else source
    tree = ts.parse(language, src)
    root = tree.root_node
    had_error, status, msgs = ts.coverage(root)
    fr = FileRecord(
        repo=repo, path=path, language=language, content_hash=ts.content_hash(source), had_error=had_error,
        coverage_status=status, is_test=is_test_path(path), size_bytes=len(source),
        line_count=source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1),
    )
    mod = module_name(path)
    # The path goes into the module's signature so that `a.js` and `a.ts` (same module
    # name) never share a Symbol key.
    mod_sig = ts.signature_hash("module", mod, path)
    ex = _Extractor(repo, path, language, root, mod_sig)
    ex.symbols.append(SymbolRecord(
        repo=repo, qualified_name=mod, signature_hash=mod_sig, name=posixpath.basename(mod), kind="module",
        language=language, language_kind="program", file=path, line=1, end_line=max(1, ts.end_line(root)),
        visibility="public", content_hash=fr.content_hash, signature=path, docstring="", parent=None,
    ))
    ex.seen.add((mod, mod_sig))
    ex.run()
    # TS merges a type and a value of one name (`type OK<T> = ...; const OK = ...`); the
    # value is what calls reach, and two symbols under one name would split every edge.
    values = {s.qualified_name for s in ex.symbols if s.kind in ("function", "class", "variable", "enum")}
    symbols = [s for s in ex.symbols if not (s.kind in ("type", "interface") and s.qualified_name in values)]
    return FileExtraction(file=fr, symbols=symbols, references=ex.refs, exports=ex.exports, errors=msgs)


__all__ = ["extract", "module_name", "specifier_paths", "package_name", "is_test_path"]

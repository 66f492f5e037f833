"""Python extractor: source bytes -> FileExtraction (symbols, references, exports).

One tree-sitter query run collects every node the rules need (definitions, lambdas,
calls, bare decorators, imports, assignments, binding targets) in C; Python then works
only on those nodes, never on the full tree. Each node is attributed to its scope by a
bisect over the scopes' body ranges (decorators, default values and class bases sit
outside the body, so they belong to the enclosing scope, as Python evaluates them).

Two phases: first every binding of every scope (defs, imports, assignments, parameters,
``self.x = ...``) is collected; then calls, decorators and class bases are resolved
against them flow-insensitively, so a function may call a name defined further down.

Resolution hints (see ``codegraph.indexer.records``), per kind of callee:

- a name defined in this file: ``{"qn"}`` how ``same_module``;
- a name or module bound by an import: ``{"qn"}``, ``{"file", "export"}`` and, for
  ``X.m()`` on an imported ``X``, ``{"owner"}`` / ``{"owner_export"}``, how ``import``;
  never a bare-name fallback (external calls like ``os.path.join`` stay ``missing`` stubs);
- ``self.m()`` / ``cls.m()``: ``{"owner": class, "member"}`` how ``self``;
- ``super().m()``: ``{"super_of": class}`` then ``{"owner": base}`` per base, how ``self``;
- a receiver whose type is visible (constructor assignment, annotation, typed parameter,
  ``self.x = C()`` anywhere in the class, ``C().m()``, a same-file function's return
  annotation): ``{"owner": C, "member"}`` how ``receiver_type``;
- an unknown receiver ``x.m()``: only the bare-name fallback, kinds ``["method"]``;
- an unbound name (not builtin): star-import exports, then the bare-name fallback.

Builtins (``len()``, ``str.join``), methods of builtin-typed values (``[].append``,
``"".join``) and direct calls of local variables or parameters (``callback()``) emit
nothing: they can never point into the repository, and as bare names they would only
make false edges or noise stubs.
"""

from __future__ import annotations

import inspect
import posixpath
import re
from bisect import bisect_right
from functools import lru_cache
from typing import Any

from tree_sitter import Node, Query, QueryCursor
from tree_sitter_language_pack import get_language

from codegraph.core.models import CALLS, EXTENDS, IMPORTS, REFERENCES, FileRecord, SymbolRecord
from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages.py_flow import _BUILTIN, _NONE, FlowMixin, _child_stems, _paths, target_parts
from codegraph.indexer.languages.py_uses import _PASSABLE, UsesMixin
from codegraph.indexer.records import FileExtraction, Reference

LANGUAGE = "python"
DOCSTRING_MAX = 500
SIGNATURE_MAX = 1000

# One pass in C over the tree; capture names select the handler.
_QUERY = """
(function_definition) @def
(class_definition) @def
(lambda) @lambda
(call) @call
(decorator (identifier) @deco)
(decorator (attribute) @deco)
(import_statement) @import
(import_from_statement) @import
(assignment) @assign
(for_statement) @for
(global_statement) @global
(nonlocal_statement) @global
(return_statement) @return
(with_item value: (_) @with)
(raise_statement) @raise
(decorator (call) @deco_call)
(argument_list (identifier) @val)
(argument_list (attribute) @val)
(keyword_argument value: (identifier) @val)
(keyword_argument value: (attribute) @val)
(assignment right: (identifier) @val)
(assignment right: (attribute) @val)
(return_statement (identifier) @val)
(return_statement (attribute) @val)
(expression_list (identifier) @val)
(expression_list (attribute) @val)
(list (identifier) @val)
(list (attribute) @val)
(tuple (identifier) @val)
(tuple (attribute) @val)
(set (identifier) @val)
(pair value: (identifier) @val)
(pair value: (attribute) @val)
(named_expression value: (identifier) @val)
(default_parameter value: (identifier) @val)
(typed_default_parameter value: (identifier) @val)
(for_in_clause left: (_) @bind)
(as_pattern_target) @bind
(named_expression name: (identifier) @bind)
"""

# builtins of CPython 3.11-3.13, fixed here so output does not depend on the running Python.
BUILTINS = frozenset("""
ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup BlockingIOError
BrokenPipeError BufferError BytesWarning ChildProcessError ConnectionAbortedError ConnectionError
ConnectionRefusedError ConnectionResetError DeprecationWarning EOFError Ellipsis EncodingWarning
EnvironmentError Exception ExceptionGroup False FileExistsError FileNotFoundError FloatingPointError
FutureWarning GeneratorExit IOError ImportError ImportWarning IndentationError IndexError
InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError
ModuleNotFoundError NameError None NotADirectoryError NotImplemented NotImplementedError OSError
OverflowError PendingDeprecationWarning PermissionError ProcessLookupError PythonFinalizationError
RecursionError ReferenceError ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration
StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError True TypeError
UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError
UnicodeWarning UserWarning ValueError Warning ZeroDivisionError abs aiter all anext any ascii bin
bool breakpoint bytearray bytes callable chr classmethod compile complex copyright credits delattr
dict dir divmod enumerate eval exec exit filter float format frozenset getattr globals hasattr hash
help hex id input int isinstance issubclass iter len license list locals map max memoryview min next
object oct open ord pow print property quit range repr reversed round set setattr slice sorted
staticmethod str sum super tuple type vars zip __import__ __build_class__ __debug__ __name__
__file__ __doc__ __spec__ __loader__ __package__ __builtins__
""".split())

# Builtin callables whose result is a builtin value: methods called on it never reach the repo.
_BUILTIN_VALUE_CALLS = frozenset(
    "list dict set tuple frozenset str bytes bytearray int float complex bool sorted open range "
    "enumerate zip map filter reversed iter repr format chr ord hex oct bin abs round len object "
    "memoryview slice ascii".split()
)
# Methods of str/bytes/list/dict/set: on an unknown receiver these are nearly always the
# builtin's, so the bare-name fallback would tie e.g. every ``s.strip()`` to the one repo
# class that happens to define ``strip`` (collections.UserString in the stdlib).
_BUILTIN_METHODS = frozenset(
    "strip lstrip rstrip split rsplit splitlines join startswith endswith find rfind rindex replace "
    "lower upper casefold capitalize title swapcase center ljust rjust zfill expandtabs partition "
    "rpartition removeprefix removesuffix isalnum isalpha isascii isdecimal isdigit isidentifier "
    "islower isnumeric isprintable isspace istitle isupper translate maketrans encode decode "
    "format_map hex fromhex append extend insert items keys values setdefault fromkeys popitem "
    "difference intersection union symmetric_difference issubset issuperset isdisjoint "
    "difference_update intersection_update symmetric_difference_update".split()
)
# Annotation names meaning a builtin value (typing aliases included).
_BUILTIN_TYPE_NAMES = frozenset(
    "int float complex bool str bytes bytearray list dict set frozenset tuple object memoryview "
    "List Dict Set FrozenSet Tuple Text DefaultDict OrderedDict Deque".split()
)
_LITERAL_TYPES = frozenset({
    "string", "concatenated_string", "integer", "float", "list", "dictionary", "set", "tuple",
    "list_comprehension", "dictionary_comprehension", "set_comprehension", "true", "false",
})
_DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")
_STRING_PREFIX = re.compile(r"^[rRuUbB]*('''|\"\"\"|'|\")")
_CODING = re.compile(rb"\A(?:[^\n]*\n)?[ \t\f]*#[^\n]*?coding[:=][ \t]*([-\w.]+)")
_TEST_NAME = re.compile(r"^(test_.*|.*_test)\.pyi?$")



@lru_cache(maxsize=1)
def _query() -> Query:
    return Query(get_language(LANGUAGE), _QUERY)  # type: ignore[arg-type]


# -- naming ------------------------------------------------------------------------------
def module_name(path: str) -> str:
    """Dotted module name of a repo-relative path: ``src/pkg/__init__.py`` -> ``pkg``,
    ``pkg/mod.pyi`` -> ``pkg.mod``. One leading ``src/`` segment is stripped."""
    p = path
    if p.startswith("src/") and p[4:] not in ("", "__init__.py", "__init__.pyi"):
        p = p[4:]
    if p.endswith(".pyi"):
        p = p[:-4]
    elif p.endswith(".py"):
        p = p[:-3]
    parts = [x for x in p.split("/") if x]
    if len(parts) > 1 and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) or "__init__"


def is_test_path(path: str) -> bool:
    """Under a ``test``/``tests`` folder, or named ``test_*.py`` / ``*_test.py``."""
    parts = path.split("/")
    return any(p in ("test", "tests") for p in parts[:-1]) or bool(_TEST_NAME.match(parts[-1]))


def visibility(name: str) -> str:
    """Python convention: ``_x`` and ``__x`` private, dunders public."""
    if name.startswith("__") and name.endswith("__") and len(name) > 4:
        return "public"
    return "private" if name.startswith("_") else "public"


def _looks_like_class(dotted: str) -> bool:
    """CapWords convention: the only hint a file gives that an imported name is a class."""
    last = dotted.rsplit(".", 1)[-1].lstrip("_")
    return bool(last) and last[0].isupper()


# -- scopes and bindings -----------------------------------------------------------------
class _Scope:
    """A module, class, function or lambda. ``named`` is the nearest scope that is a
    symbol (lambdas attribute their references to it). ``names`` maps a bound name to
    its bindings, each a tuple whose first item is the binding kind:

    ("def", qn, "class"|"function", scope, return_type_node)  a def/class in this file
    ("mod", module_qn, stems)                     ``import a.b [as c]``
    ("from", module_qn, name, stems)              ``from m import name [as x]``
    ("var", value_node, annotation_node, scope)   an assignment (value evaluated in scope)
    ("part", value_node, path, scope, starred)    a destructuring target (py_flow.target_parts)
    ("elem", iterable_node, scope)                ``for name in iterable``
    ("param", annotation_node, index, default)    a parameter (index None for *args/**kw)
    ("self", class_scope)                         first parameter of a method
    ("local",)                                    anything else (for/with/except targets)
    """

    __slots__ = (
        "kind", "qn", "sig", "start", "end", "parent", "named", "names", "attrs", "bases",
        "base_info", "star", "cls_method",
    )

    def __init__(self, kind: str, qn: str, sig: str, start: int, end: int, parent: _Scope | None) -> None:
        self.kind = kind
        self.qn = qn
        self.sig = sig
        self.start = start
        self.end = end
        self.parent = parent
        self.named: _Scope = self if kind != "lambda" or parent is None else parent.named
        self.names: dict[str, list[tuple[Any, ...]]] = {}
        self.attrs: dict[str, list[tuple[Node | None, Node | None, _Scope]]] = {}
        self.bases: list[Node] = []
        self.base_info: list[tuple[str, list[dict[str, Any]]]] | None = None
        self.star: list[list[str]] = []
        self.cls_method = False

    def bind(self, name: str, binding: tuple[Any, ...]) -> None:
        lst = self.names.get(name)
        if lst is None:
            self.names[name] = [binding]
        else:
            lst.append(binding)


class _Extractor(FlowMixin, UsesMixin):
    """State for one file; ``run()`` returns the FileExtraction."""

    def __init__(self, repo: str, path: str, source: bytes) -> None:
        self.repo = repo
        self.path = path
        self.src = source
        self.module = module_name(path)
        self.is_init = posixpath.basename(path) in ("__init__.py", "__init__.pyi")
        self.under_src = path.startswith("src/")
        self.dir = posixpath.dirname(path)
        self.symbols: list[SymbolRecord] = []
        self.class_scopes: list[_Scope] = []
        self.sym_keys: set[tuple[str, str]] = set()
        self.refs: list[Reference] = []
        self.ref_keys: set[tuple[Any, ...]] = set()
        self.exports: dict[str, dict[str, Any]] = {}
        self.def_exports: dict[str, dict[str, Any]] = {}
        self.memo: dict[Any, Any] = {}
        self.in_progress: set[Any] = set()
        self.returns: dict[int, list[tuple[Any, Node]]] = {}
        self.items: dict[tuple[int, str], list[tuple[Node | None, Node, Any, str]]] = {}
        self.lambdas: dict[int, tuple[Any, ...]] = {}
        self.globals: dict[int, set[str]] = {}
        self.lambda_count: dict[int, int] = {}
        # (using scope, scope the annotation is evaluated in, annotation node)
        self.annotations: list[tuple[Any, Any, Node]] = []

    # -- small helpers ------------------------------------------------------------------
    def text(self, n: Node | None) -> str:
        if n is None:
            return ""
        return self.src[n.start_byte:n.end_byte].decode("utf-8", "replace")

    def abs_stems(self, qn: str) -> list[str]:
        """Where an absolute module may live; ``src/`` layouts checked too (first when the
        importing file is itself under ``src/``)."""
        base = qn.replace(".", "/")
        return [f"src/{base}", base] if self.under_src else [base, f"src/{base}"]

    def relative(self, level: int, parts: list[str]) -> tuple[str, list[str]] | None:
        """(module qn, stems) of ``from <level dots><parts> import``; None above the top.
        The qn is "" for the repository root (a folder of top-level modules)."""
        pkg = self.module.split(".") if self.is_init else self.module.split(".")[:-1]
        d = self.dir
        for _ in range(level - 1):
            if not d:
                return None
            pkg = pkg[:-1]
            d = posixpath.dirname(d)
        return ".".join(pkg + parts), ["/".join(x for x in [d, *parts] if x)]

    # -- driver -------------------------------------------------------------------------
    def run(self) -> FileExtraction:
        src = self.src
        # Parse (and slice text from) UTF-8; hashes and sizes stay those of the raw bytes.
        self.src = _to_utf8(src)
        tree = ts.parse(LANGUAGE, self.src)
        root = tree.root_node
        had_error, status, msgs = ts.coverage(root)
        line_count = src.count(b"\n") + (0 if not src or src.endswith(b"\n") else 1)
        fr = FileRecord(
            repo=self.repo, path=self.path, language=LANGUAGE, content_hash=ts.content_hash(src),
            had_error=had_error, coverage_status=status, is_test=is_test_path(self.path),
            size_bytes=len(src), line_count=line_count,
        )
        mod = _Scope("module", self.module, ts.signature_hash("module", self.module, ""), 0, len(self.src) + 1, None)
        self.module_scope = mod
        self.symbols.append(SymbolRecord(
            repo=self.repo, qualified_name=self.module, signature_hash=mod.sig,
            name=self.module.rsplit(".", 1)[-1], kind="module", language=LANGUAGE, language_kind="module",
            file=self.path, line=1, end_line=max(1, line_count), visibility=visibility(self.module.rsplit(".", 1)[-1]),
            content_hash=fr.content_hash, signature="", docstring=self.docstring(root), parent=None,
        ))
        # Captures in source order (outer node first on a tie): the order the handlers see
        # nodes decides the order of records and of returned values, and tree-sitter's
        # capture lists are not in source order (nor the same order from run to run).
        caps = {k: sorted(v, key=lambda n: (n.start_byte, -n.end_byte))
                for k, v in QueryCursor(_query()).captures(root).items()}
        self.build_scopes(mod, caps.get("def", []), caps.get("lambda", []))
        for n in sorted(caps.get("import", []), key=_start):
            self.on_import(n)
        for n in caps.get("global", []):
            sc = self.scope_at(n.start_byte)
            self.globals.setdefault(id(sc), set()).update(
                self.text(c) for c in n.named_children if c.type == "identifier")
        for n in sorted(caps.get("bind", []), key=_start):
            sc = self.scope_at(n.start_byte)
            if n.parent is not None and n.parent.type == "named_expression":  # (a := f)
                name = self.text(n)
                self.binding_scope(sc, name).bind(name, ("var", n.parent.child_by_field_name("value"), None, sc))
                continue
            for name in self.target_names(n):
                sc.bind(name, ("local",))
        for n in caps.get("for", []):
            self.on_for(n)
        for n in caps.get("return", []):
            sc = self.scope_at(n.start_byte)
            val = n.named_children[0] if n.named_child_count else None
            if val is not None and sc.kind == "function":
                self.returns.setdefault(id(sc), []).append((sc, val))
        attr_assigns: list[tuple[_Scope, Node, Node | None, Node | None]] = []
        item_assigns: list[tuple[_Scope, Node, Node | None, Node | None]] = []
        for n in sorted(caps.get("assign", []), key=_start):
            self.on_assign(n, attr_assigns, item_assigns)
        for sc, obj, value, ann in attr_assigns:
            self.on_attr_assign(sc, obj, value, ann)
        call_nodes = caps.get("call", [])
        self.collect_items(item_assigns, call_nodes)
        for sc in self.class_scopes:
            self.emit_extends(sc)
        # Calls and bare decorators in source order, so references read top to bottom.
        calls = [(n.start_byte, 0, n) for n in call_nodes] + [(n.start_byte, 1, n) for n in caps.get("deco", [])]
        calls.sort(key=lambda x: (x[0], x[1]))
        for _, is_deco, n in calls:
            self.on_call(n, n if is_deco else n.child_by_field_name("function"))
        for n in caps.get("deco_call", []):
            self.on_decorator_call(n)
        self.emit_protocols(caps.get("for", []), caps.get("with", []), caps.get("raise", []))
        for src_scope, eval_scope, ann in self.annotations:
            self.uses_types(src_scope, eval_scope, ann, 0)
        for n in sorted(caps.get("val", []), key=_start):
            self.on_value(n)
        self.emit_module_exports()
        self.exports.update(self.def_exports)
        return FileExtraction(file=fr, symbols=self.symbols, references=self.refs, exports=self.exports, errors=msgs)

    # -- scopes and symbols -------------------------------------------------------------
    def build_scopes(self, mod: _Scope, defs: list[Node], lambdas: list[Node]) -> None:
        items = sorted(defs + lambdas, key=lambda n: n.start_byte)
        stack = [mod]
        scopes: list[_Scope] = []
        for n in items:
            start = n.start_byte
            while len(stack) > 1 and stack[-1].end <= start:
                stack.pop()
            # A lambda may sit in a def's header (a default value): not in its body.
            parent = next(s for s in reversed(stack) if s.start <= start)
            body = n.child_by_field_name("body")
            bstart = body.start_byte if body is not None else n.end_byte
            if n.type == "lambda":
                sc = self.on_lambda(n, parent, bstart)
            else:
                sc_or_none = self.on_def(n, parent, body, bstart)
                if sc_or_none is None:
                    continue
                sc = sc_or_none
            stack.append(sc)
            scopes.append(sc)
        # Breakpoints of the piecewise-constant map position -> innermost scope body.
        bp_pos, bp_scope = [0], [mod]
        st = [mod]
        for sc in sorted(scopes, key=lambda s: s.start):
            while len(st) > 1 and st[-1].end <= sc.start:
                top = st.pop()
                bp_pos.append(top.end)
                bp_scope.append(st[-1])
            st.append(sc)
            bp_pos.append(sc.start)
            bp_scope.append(sc)
        while len(st) > 1:
            top = st.pop()
            bp_pos.append(top.end)
            bp_scope.append(st[-1])
        self.bp_pos = bp_pos
        self.bp_scope = bp_scope

    def on_lambda(self, n: Node, parent: _Scope, bstart: int) -> _Scope:
        """A lambda is a symbol ``<lambdaN>`` (N counts the lambdas of the enclosing
        symbol in source order, so the name is stable while that symbol's other lambdas
        stay put); its body is its return value."""
        owner = parent.named
        idx = self.lambda_count.get(id(owner), 0)
        self.lambda_count[id(owner)] = idx + 1
        name = f"<lambda{idx}>"
        qn = f"{owner.qn}.{name}"
        params = n.child_by_field_name("parameters")
        sig = ts.signature_hash("function", qn, self.text(params))
        sc = _Scope("lambda", qn, sig, bstart, n.end_byte, parent)
        sc.named = sc
        if params is not None:
            for i, p in enumerate(params.named_children):
                for pname in self.param_names(p):
                    sc.bind(pname, ("param", None, i, None))
        body = n.child_by_field_name("body")
        if body is not None:
            self.returns[id(sc)] = [(sc, body)]
        if (qn, sig) not in self.sym_keys:
            self.sym_keys.add((qn, sig))
            self.symbols.append(SymbolRecord(
                repo=self.repo, qualified_name=qn, signature_hash=sig, name=name, kind="function",
                language=LANGUAGE, language_kind="lambda", file=self.path,
                line=n.start_point[0] + 1, end_line=n.end_point[0] + 1, visibility="private",
                content_hash=ts.content_hash(self.src[n.start_byte:n.end_byte]),
                signature=" ".join(self.text(n).split(":", 1)[0].split())[:SIGNATURE_MAX], docstring="",
                parent=owner.qn,
            ))
        self.lambdas[n.start_byte] = ("def", qn, "function", sc, None)
        # A lambda is always a value of the symbol that writes it.
        self.add_ref(REFERENCES, parent, qn, n.start_point[0] + 1,
                     {"candidates": [{"qn": qn, "how": "same_module"}], "optional": True})
        return sc

    def lambda_binding(self, n: Node) -> tuple[Any, ...] | None:
        return self.lambdas.get(n.start_byte)

    def scope_at(self, pos: int) -> _Scope:
        return self.bp_scope[bisect_right(self.bp_pos, pos) - 1]

    def on_def(self, n: Node, parent: _Scope, body: Node | None, bstart: int) -> _Scope | None:
        name_node = n.child_by_field_name("name")
        if name_node is None:
            return None
        name = self.text(name_node)
        owner = parent.named
        is_class = n.type == "class_definition"
        qn = f"{owner.qn}.{name}"
        params = n.child_by_field_name("superclasses" if is_class else "parameters")
        if is_class:
            kind, sig = "class", ts.signature_hash("class", qn, "")
        else:
            kind = "method" if owner.kind == "class" else "function"
            sig = ts.signature_hash(kind, qn, self.text(params))
        sc = _Scope("class" if is_class else "function", qn, sig, bstart, n.end_byte, parent)
        outer = n.parent if n.parent is not None and n.parent.type == "decorated_definition" else None
        decorators = [c for c in outer.named_children if c.type == "decorator"] if outer is not None else []
        if (qn, sig) not in self.sym_keys:
            self.sym_keys.add((qn, sig))
            head = self.src[n.start_byte:bstart].decode("utf-8", "replace").strip()
            if head.endswith(":"):
                head = head[:-1]
            whole = outer if outer is not None else n
            self.symbols.append(SymbolRecord(
                repo=self.repo, qualified_name=qn, signature_hash=sig, name=name, kind=kind,
                language=LANGUAGE, language_kind=n.type, file=self.path,
                line=n.start_point[0] + 1, end_line=n.end_point[0] + 1, visibility=visibility(name),
                content_hash=ts.content_hash(self.src[whole.start_byte:whole.end_byte]),
                signature=" ".join(head.split())[:SIGNATURE_MAX], docstring=self.docstring(body),
                parent=owner.qn,
            ))
        binding_scope = parent
        binding_scope.bind(name, ("def", qn, "class" if is_class else "function", sc,
                                  None if is_class else n.child_by_field_name("return_type")))
        if owner.kind == "module" and binding_scope.kind == "module":
            self.def_exports[name] = {"qn": qn}
        if is_class:
            self.class_scopes.append(sc)
            if params is not None:
                sc.bases = [c for c in params.named_children if c.type not in ("keyword_argument", "comment")]
        else:
            deco_names = {self.text(d.named_children[0]) for d in decorators if d.named_children}
            is_static = "staticmethod" in deco_names
            sc.cls_method = "classmethod" in deco_names
            first = True
            index = 0
            if params is not None:
                for p in params.named_children:
                    names = self.param_names(p)
                    if not names:
                        continue
                    if first and owner.kind == "class" and not is_static and p.type in ("identifier", "typed_parameter"):
                        sc.bind(names[0], ("self", owner))
                    else:
                        ann = p.child_by_field_name("type") if p.type in ("typed_parameter", "typed_default_parameter") else None
                        default = p.child_by_field_name("value") if p.type in ("default_parameter", "typed_default_parameter") else None
                        # ("param", annotation, positional index or None for *args/**kw, default)
                        splat = p.type in ("list_splat_pattern", "dictionary_splat_pattern") or (
                            p.type == "typed_parameter" and any(
                                c.type in ("list_splat_pattern", "dictionary_splat_pattern") for c in p.named_children))
                        for nm in names:
                            sc.bind(nm, ("param", ann, None if splat else index, default))
                        if ann is not None:
                            self.annotations.append((sc, parent, ann))
                        index += 1
                    first = False
            rt = n.child_by_field_name("return_type")
            if rt is not None:
                self.annotations.append((sc, parent, rt))
        return sc

    def param_names(self, p: Node) -> list[str]:
        t = p.type
        if t == "identifier":
            return [self.text(p)]
        if t in ("default_parameter", "typed_default_parameter"):
            nm = p.child_by_field_name("name")
            return [self.text(nm)] if nm is not None else []
        if t in ("typed_parameter", "list_splat_pattern", "dictionary_splat_pattern"):
            for c in p.named_children:
                if c.type == "identifier":
                    return [self.text(c)]
                if c.type in ("list_splat_pattern", "dictionary_splat_pattern"):
                    return self.param_names(c)
        return []

    def docstring(self, body: Node | None) -> str:
        if body is None:
            return ""
        first = body.named_child(0) if body.named_child_count else None
        while first is not None and first.type == "comment":
            first = first.next_named_sibling
        if first is not None and first.type == "expression_statement" and first.named_child_count:
            first = first.named_child(0)
        if first is None or first.type not in ("string", "concatenated_string"):
            return ""
        if first.type == "concatenated_string":
            first = first.named_child(0)
            if first is None:
                return ""
        raw = self.text(first)
        m = _STRING_PREFIX.match(raw)
        if m is None:
            return ""  # f-strings are not docstrings
        q = m.group(1)
        inner = raw[m.end():]
        if inner.endswith(q):
            inner = inner[: -len(q)]
        doc = inspect.cleandoc(inner)
        return doc if len(doc) <= DOCSTRING_MAX else doc[: DOCSTRING_MAX - 1].rstrip() + "…"

    # -- bindings -----------------------------------------------------------------------
    def target_names(self, n: Node) -> list[str]:
        """Identifiers bound by an assignment / for / with / except target."""
        t = n.type
        if t == "identifier":
            return [self.text(n)]
        if t in ("pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "as_pattern_target",
                 "list_splat_pattern", "parenthesized_expression"):
            out: list[str] = []
            for c in n.named_children:
                out.extend(self.target_names(c))
            return out
        return []

    def on_import(self, n: Node) -> None:
        sc = self.scope_at(n.start_byte)
        line = n.start_point[0] + 1
        top = sc.kind == "module"
        if n.type == "import_statement":
            for c in n.named_children:
                if c.type == "aliased_import":
                    dn = c.child_by_field_name("name")
                    alias = c.child_by_field_name("alias")
                    qn = self.text(dn)
                    stems = self.abs_stems(qn)
                    if alias is not None:
                        sc.bind(self.text(alias), ("mod", qn, stems))
                        if top:  # ``import posixpath as path``: the module re-exports a module
                            self.export_module(self.text(alias), _paths(stems))
                elif c.type == "dotted_name":
                    qn = self.text(c)
                    stems = self.abs_stems(qn)
                    head = qn.split(".", 1)[0]
                    sc.bind(head, ("mod", head, self.abs_stems(head)))
                else:
                    continue
                cands: list[dict[str, Any]] = [{"path": p, "how": "import"} for p in _paths(stems)]
                parts = qn.split(".")
                if len(parts) > 1:  # ``import os.path``: ``path`` may be a module bound in os.py
                    cands.append({"module_chain": {"file": _paths(self.abs_stems(parts[0])), "attrs": parts[1:],
                                                   "to_file": True}, "how": "module_alias"})
                self.add_ref(IMPORTS, None, qn, line, {"candidates": cands, "names": [], "forwarding": False})
            return
        mod_node = n.child_by_field_name("module_name")
        if mod_node is None:
            return
        package_only = False
        if mod_node.type == "relative_import":
            level, parts = 0, []
            for c in mod_node.named_children:
                if c.type == "import_prefix":
                    level = c.end_byte - c.start_byte
                elif c.type == "dotted_name":
                    parts = self.text(c).split(".")
            rel = self.relative(level, parts)
            if rel is None:
                self.add_ref(IMPORTS, None, self.text(mod_node), line, {"candidates": [], "names": []})
                return
            mqn, stems = rel
            package_only = not parts
        else:
            mqn = self.text(mod_node)
            stems = self.abs_stems(mqn)
        names: list[tuple[str, str]] = []  # (original, bound)
        star = False
        for c in n.children_by_field_name("name"):
            if c.type == "aliased_import":
                orig = self.text(c.child_by_field_name("name"))
                alias = c.child_by_field_name("alias")
                names.append((orig, self.text(alias) if alias is not None else orig))
            elif c.type == "dotted_name":
                orig = self.text(c)
                names.append((orig, orig))
        for c in n.named_children:
            if c.type == "wildcard_import":
                star = True
        forwarding = self.is_init and top
        extra: dict[str, Any] = {
            "candidates": [{"path": p, "how": "import"} for p in _paths(stems)],
            "names": ["*"] if star else [o for o, _ in names], "forwarding": forwarding,
        }
        if package_only:
            extra["optional"] = True  # namespace packages have no __init__.py
        if mqn:
            self.add_ref(IMPORTS, None, mqn, line, extra)
        paths = _paths(stems)
        for orig, bound in names:
            sc.bind(bound, ("from", mqn, orig, stems))
            if orig[:1].islower() or orig[:1] == "_":
                # The name may be a submodule: an edge to it if that file exists.
                sub = _child_stems(stems, orig.split("."))
                self.add_ref(IMPORTS, None, _qjoin(mqn, orig), line, {
                    "candidates": [{"path": p, "how": "import"} for p in _paths(sub)],
                    "names": [orig], "forwarding": forwarding, "optional": True,
                })
            if top and not package_only:
                # ``from . import x`` names a submodule far more often than a name of the
                # package; a "from" pointing back at the package only makes export cycles.
                self.exports[bound] = {"from": paths, "name": orig}
            elif top and "." not in orig:
                self.export_module(bound, _paths(_child_stems(stems, [orig])))
        if star:
            sc.star.append(paths)
            if top:
                self.exports.setdefault("*", {"from_all": []})["from_all"].append(paths)

    def export_module(self, name: str, paths: list[str]) -> None:
        """Export ``name`` as bound to the module in the first existing of ``paths``;
        a name bound in several branches keeps every alternative (os.py: ``import
        posixpath as path`` / ``import ntpath as path``)."""
        cur = self.exports.get(name)
        if cur is not None and "modules" in cur:
            if paths not in cur["modules"]:
                cur["modules"].append(paths)
        else:
            self.exports[name] = {"modules": [paths]}

    def on_assign(self, n: Node, attr_assigns: list[tuple[_Scope, Node, Node | None, Node | None]],
                  item_assigns: list[tuple[_Scope, Node, Node | None, Node | None]]) -> None:
        left = n.child_by_field_name("left")
        if left is None:
            return
        value = n.child_by_field_name("right")
        while value is not None and value.type == "assignment":
            value = value.child_by_field_name("right")
        ann = n.child_by_field_name("type")
        sc = self.scope_at(n.start_byte)
        if ann is not None:
            self.annotations.append((sc, sc, ann))
        t = left.type
        if t == "identifier":
            name = self.text(left)
            self.binding_scope(sc, name).bind(name, ("var", value, ann, sc))
            if sc.kind == "class":
                sc.attrs.setdefault(name, []).append((value, ann, sc))
        elif t == "attribute":
            attr_assigns.append((sc, left, value, ann))
        elif t == "subscript":
            item_assigns.append((sc, left, value, ann))
        else:
            for name, path, starred in target_parts(left, self.text):
                self.binding_scope(sc, name).bind(name, ("part", value, path, sc, starred))

    def binding_scope(self, sc: _Scope, name: str) -> _Scope:
        """Where an assignment in ``sc`` binds ``name``: the module for a ``global``."""
        if name in self.globals.get(id(sc), ()):
            return self.module_scope
        return sc

    def on_for(self, n: Node) -> None:
        left = n.child_by_field_name("left")
        right = n.child_by_field_name("right")
        if left is None:
            return
        sc = self.scope_at(n.start_byte)
        if left.type == "identifier" and right is not None:
            name = self.text(left)
            self.binding_scope(sc, name).bind(name, ("elem", right, sc))
        else:
            for name in self.target_names(left):
                sc.bind(name, ("local",))

    def on_attr_assign(self, sc: _Scope, left: Node, value: Node | None, ann: Node | None) -> None:
        obj = left.child_by_field_name("object")
        attr = left.child_by_field_name("attribute")
        if obj is None or attr is None or obj.type != "identifier":
            return
        found = self.lookup(sc, self.text(obj))
        if found is None:
            return
        for b in found[0]:
            if b[0] == "self":
                b[1].attrs.setdefault(self.text(attr), []).append((value, ann, sc))
                return

    # -- name lookup and types ----------------------------------------------------------
    def lookup(self, scope: _Scope, name: str) -> tuple[list[tuple[Any, ...]], _Scope] | None:
        """Python scoping: a class body is visible only to itself, not to nested defs."""
        s: _Scope | None = scope
        while s is not None:
            if s.kind != "class" or s is scope:
                b = s.names.get(name)
                if b:
                    return b, s
            s = s.parent
        return None

    def resolve_name(self, scope: _Scope, name: str) -> tuple[str, Any]:
        """What a bare name denotes:
        ("entities", [def/mod/from bindings]) | ("type", type) | ("local", None) |
        ("builtin", None) | ("unbound", None)."""
        key = (id(scope), name)
        hit = self.memo.get(key)
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        found = self.lookup(scope, name)
        res: tuple[str, Any]
        if found is None:
            res = ("builtin", None) if name in BUILTINS else ("unbound", None)
        else:
            bindings, bscope = found
            defs = [b for b in bindings if b[0] == "def"]
            imps = [b for b in bindings if b[0] in ("mod", "from")]
            selfb = [b for b in bindings if b[0] == "self"]
            if defs or imps:
                res = ("entities", defs + imps)
            elif selfb:
                res = ("type", ("inst", selfb[0][1].qn, "self", selfb[0][1], None))
            else:
                guard = (id(bscope), name)
                if guard in self.in_progress:
                    return ("local", None)
                self.in_progress.add(guard)
                try:
                    types = []
                    for b in bindings:
                        if b[0] == "var":
                            types.append(self.type_of_assigned(bscope, b[1], b[2]))
                        elif b[0] == "param":
                            types.append(self.annotation_type(bscope.parent or bscope, b[1]) if b[1] is not None else None)
                        else:
                            types.append(None)
                    t = _combine(types)
                finally:
                    self.in_progress.discard(guard)
                res = ("type", t) if t is not None else ("local", None)
        self.memo[key] = res
        return res

    def type_of_assigned(self, scope: _Scope, value: Node | None, ann: Node | None) -> Any:
        if ann is not None:
            t = self.annotation_type(scope, ann)
            if t is not None or value is None:
                return t
        if value is None:
            return None
        return self.type_of_expr(scope, value)

    def type_of_expr(self, scope: _Scope, n: Node) -> Any:
        t = n.type
        if t == "call":
            return self.type_of_call(scope, n)
        if t == "none":
            return _NONE
        if t in _LITERAL_TYPES:
            return _BUILTIN
        if t == "identifier":
            kind, val = self.resolve_name(scope, self.text(n))
            return val if kind == "type" else None
        if t == "attribute":
            return self.type_of_attribute(scope, n)
        if t == "parenthesized_expression" and n.named_child_count == 1:
            return self.type_of_expr(scope, n.named_children[0])
        return None

    def type_of_attribute(self, scope: _Scope, n: Node) -> Any:
        obj = n.child_by_field_name("object")
        attr = n.child_by_field_name("attribute")
        if obj is None or attr is None:
            return None
        base = self.type_of_expr(scope, obj)
        if base is None or base[0] != "inst":
            return None
        return self.attr_type(base, self.text(attr))

    def attr_type(self, inst: tuple[Any, ...], attr: str, depth: int = 0) -> Any:
        """Type of ``<instance of a class of this file>.attr`` from ``self.attr = ...``
        anywhere in the class (or in a base class of this file)."""
        cls = inst[3]
        if cls is None or depth > 8:
            return None
        key = (id(cls), "." + attr)
        if key in self.memo:
            return self.memo[key]
        if key in self.in_progress:
            return None
        self.in_progress.add(key)
        try:
            assigns = cls.attrs.get(attr)
            if assigns:
                t = _combine([self.type_of_assigned(sc, v, a) for v, a, sc in assigns])
                if t is not None and t[0] == "inst":
                    t = ("inst", t[1], "receiver_type", t[3], t[4])
            else:
                t = None
                for kind, ent in self.base_entities(cls):
                    if kind == "def":
                        t = self.attr_type(("inst", ent[1], "receiver_type", ent[3], None), attr, depth + 1)
                        if t is not None:
                            break
        finally:
            self.in_progress.discard(key)
        self.memo[key] = t
        return t

    def type_of_call(self, scope: _Scope, call: Node) -> Any:
        fn = call.child_by_field_name("function")
        if fn is None:
            return None
        root, attrs = self.split_chain(fn)
        if root is None or root.type != "identifier":
            return None
        name = self.text(root)
        kind, val = self.resolve_name(scope, name)
        if kind == "builtin":
            return _BUILTIN if not attrs and name in _BUILTIN_VALUE_CALLS else None
        if kind == "type":
            if not attrs and val[0] == "inst" and val[2] == "self" and scope_is_cls_method(scope):
                return ("inst", val[1], "receiver_type", val[3], None)  # cls(...)
            return None
        if kind == "local":  # K = C; K() / m = make_client; m()
            for v in self.name_values(scope, name, 1):
                if v[0][0] != "member":
                    t = self.type_from_entity(v[0], [*v[1], *attrs])
                    if t is not None:
                        return t
            return None
        if kind != "entities":
            return None
        for ent in val:
            t = self.type_from_entity(ent, attrs)
            if t is not None:
                return t
        return None

    def type_from_entity(self, ent: tuple[Any, ...], attrs: list[str]) -> Any:
        """Instance type produced by calling ``ent.attrs...``, when visible."""
        if ent[0] == "def":
            if ent[2] == "class":
                if not attrs:
                    return ("inst", ent[1], "receiver_type", ent[3], None)
                if _looks_like_class(attrs[-1]):
                    return ("inst", ".".join([ent[1], *attrs]), "receiver_type", None, None)
                return None
            if not attrs and ent[4] is not None:  # return annotation of a function of this file
                sc = ent[3].parent or self.module_scope
                return self.annotation_type(sc, ent[4])
            if not attrs and ent[3] is not None:  # what it returns: ``return Client()``
                return self.returned_type(ent[3])
            return None
        dotted = self.entity_qn(ent, attrs)
        if dotted and (attrs or ent[0] == "from") and _looks_like_class(dotted):
            return ("inst", dotted, "receiver_type", None, _entity_export(ent, attrs))
        oe = _entity_export(ent, attrs)
        if dotted and oe is not None:
            # An imported function: what it returns is in its module's export map
            # (``returns``), read by the resolver (candidate ``returns_of``).
            return ("inst", f"{dotted}()", "return_type", None, None, oe)
        return None

    def returned_type(self, fn: _Scope) -> Any:
        rets = self.returns.get(id(fn))
        if not rets:
            return None
        key = ("returned", id(fn))
        if key in self.memo:
            return self.memo[key]
        if key in self.in_progress:
            return None
        self.in_progress.add(key)
        try:
            t = _combine([self.type_of_expr(sc, r) for sc, r in rets])
        finally:
            self.in_progress.discard(key)
        if t is not None and t[0] == "inst" and t[2] == "self":
            t = ("inst", t[1], "receiver_type", t[3], t[4])
        self.memo[key] = t
        return t

    @staticmethod
    def entity_qn(ent: tuple[Any, ...], attrs: list[str]) -> str:
        if ent[0] == "mod":
            return ".".join([ent[1], *attrs])
        if ent[0] == "from":
            return _qjoin(ent[1], ent[2], *attrs)
        return ".".join([ent[1], *attrs])

    def annotation_type(self, scope: _Scope, ann: Node | None, depth: int = 0) -> Any:
        if ann is None or depth > 4:
            return None
        n = ann
        if n.type == "type" and n.named_child_count:
            n = n.named_children[0]
        t = n.type
        if t == "string":
            inner = self.text(n).strip("\"'").strip()
            if not _DOTTED.match(inner):
                return None
            parts = inner.split(".")
            return self.type_of_dotted(scope, parts[0], parts[1:])
        if t == "identifier":
            return self.type_of_dotted(scope, self.text(n), [])
        if t == "attribute":
            root, attrs = self.split_chain(n)
            if root is None or root.type != "identifier":
                return None
            return self.type_of_dotted(scope, self.text(root), attrs)
        if t == "none":
            return _NONE
        if t == "generic_type" and n.named_child_count:
            head = self.text(n.named_children[0])
            params = [c for c in n.named_children[1:] if c.type == "type_parameter"]
            args = [c for c in params[0].named_children if c.type == "type"] if params else []
            if head in ("Optional", "typing.Optional") and len(args) == 1:
                return self.annotation_type(scope, args[0], depth + 1)
            if head in ("Union", "typing.Union"):
                return _combine([self.annotation_type(scope, a, depth + 1) for a in args])
            if head.rsplit(".", 1)[-1] in _BUILTIN_TYPE_NAMES:
                return _BUILTIN
            return None
        if t == "binary_operator":
            left = n.child_by_field_name("left")
            right = n.child_by_field_name("right")
            return _combine([self.annotation_type(scope, left, depth + 1), self.annotation_type(scope, right, depth + 1)])
        return None

    def type_of_dotted(self, scope: _Scope, root: str, attrs: list[str]) -> Any:
        kind, val = self.resolve_name(scope, root)
        if kind == "builtin":
            return _BUILTIN if not attrs and root in _BUILTIN_TYPE_NAMES else None
        if kind != "entities":
            return None
        for ent in val:
            if ent[0] == "def":
                if ent[2] == "class":
                    return ("inst", ".".join([ent[1], *attrs]), "receiver_type", ent[3] if not attrs else None, None)
                continue
            dotted = self.entity_qn(ent, attrs)
            if ent[0] == "from" or attrs:
                return ("inst", dotted, "receiver_type", None, _entity_export(ent, attrs))
        return None

    # -- references ---------------------------------------------------------------------
    def add_ref(self, rtype: str, scope: _Scope | None, target: str, line: int, extra: dict[str, Any]) -> None:
        if scope is None:
            src, sig, skind = self.path, "", "file"
        else:
            named = scope.named
            src, sig, skind = named.qn, named.sig, "symbol"
        cands = extra.get("candidates")
        first = cands[0] if cands else None
        # Target, line and first candidate identify a reference; repr() of every candidate
        # list would cost more than the whole rest of add_ref.
        # A pass hint is one record per callee (``@f()`` may return several functions):
        # the callee is part of its identity, or all but the first one met are dropped.
        ps = extra.get("pass")
        pkey = None if ps is None else (ps.get("index"), ps.get("kw"), repr(ps.get("callee")))
        key = (rtype, src, sig, target, line, extra.get("name"), len(cands) if cands else 0, pkey,
               None if first is None else (first.get("qn") or first.get("owner") or first.get("path") or first.get("super_of")))
        if key in self.ref_keys:
            return
        self.ref_keys.add(key)
        self.refs.append(Reference(rtype, src, target, self.path, line, sig, skind, extra))

    @staticmethod
    def split_chain(n: Node) -> tuple[Node | None, list[str]]:
        """``a.b.c`` -> (node a, ["b", "c"]); the root may be any expression."""
        attrs: list[str] = []
        while n.type == "attribute":
            a = n.child_by_field_name("attribute")
            obj = n.child_by_field_name("object")
            if a is None or obj is None:
                return None, []
            attrs.append(a.text.decode("utf-8", "replace") if a.text is not None else "")
            n = obj
        attrs.reverse()
        return n, attrs

    def on_call(self, call: Node, fn: Node | None) -> None:
        """One call (or bare decorator): the callee's references, then what its
        arguments hand over (``pass`` hints: a function passed to a parameter the
        callee calls gets the edge from the callee, joined by the resolver)."""
        if fn is None:
            return
        before = len(self.refs)
        scope = self.scope_at(call.start_byte)
        self.on_call_inner(scope, call, fn)
        if call is fn:
            args = None
        else:
            if self.injected(scope, call, fn):
                self.on_inject(scope, call)
                return
            args = call.child_by_field_name("arguments")
            if args is None or args.type != "argument_list" or not any(
                    c.type in _PASSABLE or (c.type == "keyword_argument") for c in args.named_children):
                return  # nothing handed over that could be a function
        callees = [r["candidates"] for r in (ref.extra for ref in self.refs[before:] if ref.type == CALLS)
                   if r.get("candidates") and not r.get("optional")]
        if not callees:
            return
        if args is None:  # ``@dec`` hands the decorated definition to dec
            self.pass_decorated(scope, call, callees)
            return
        index = 0
        for a in args.named_children:
            if a.type == "comment":
                continue
            if a.type == "keyword_argument":
                nm, value = a.child_by_field_name("name"), a.child_by_field_name("value")
                if nm is not None and value is not None:
                    self.pass_value(scope, value, callees, None, self.text(nm))
                continue
            if a.type in ("list_splat", "dictionary_splat"):
                break  # positions after *args are unknown
            self.pass_value(scope, a, callees, index, None)
            index += 1

    def on_call_inner(self, scope: _Scope, call: Node, fn: Node) -> None:
        root, attrs = self.split_chain(fn)
        if root is None:
            return
        at = fn.child_by_field_name("attribute") if attrs else None
        line = (at if at is not None else fn).start_point[0] + 1
        rt = root.type
        if rt == "identifier":
            name = self.text(root)
            kind, val = self.resolve_name(scope, name)
            if kind == "entities":
                self.call_entities(scope, val, attrs, line)
            elif kind == "type":
                if attrs:
                    self.call_on_type(scope, val, attrs, line)
                elif val[0] == "inst" and val[2] == "self" and scope_is_cls_method(scope):
                    self.call_class(scope, val[1], "self", line)
                else:
                    self.param_call(scope, name, line)
            elif kind == "local":
                if attrs and not self.may_alias_module(scope, name):
                    self.call_unknown_member(scope, attrs[-1], line)
                    return
                vals = self.name_values(scope, name, 1)
                if attrs:
                    mods = [v for v in vals if v[0][0] in ("mod", "from") or (v[0][0] == "def" and v[0][2] == "class")]
                    if mods:
                        self.call_values(scope, mods, attrs, line)
                    else:
                        self.call_unknown_member(scope, attrs[-1], line)
                else:
                    if vals:
                        self.call_values(scope, vals, [], line, how=self.flow_how(scope, name))
                    self.param_call(scope, name, line)
            elif kind == "builtin" and not attrs and name in ("next", "iter"):
                args = call.child_by_field_name("arguments")
                pos = [c for c in args.named_children if c.type != "comment"] if args is not None else []
                if len(pos) == 1:
                    t = self.type_of_expr(scope, pos[0])
                    self.protocol_call(scope, t, "__next__" if name == "next" else "__iter__", line)
            elif kind == "unbound":
                if attrs:
                    self.call_unknown_member(scope, attrs[-1], line)
                else:
                    cands = [{"file": p, "export": name, "how": "import"} for p in self.star_paths(scope)]
                    self.add_ref(CALLS, scope, name, line, {
                        "candidates": cands, "name": name, "name_kinds": ["function", "class"],
                    })
            # builtins: nothing (see module docstring)
            return
        if not attrs:  # f()(), handlers[k](), (lambda: x)()
            vals = self.values(scope, fn)
            if vals:
                self.call_values(scope, vals, [], line)
            return
        if rt == "call":
            inner_fn = root.child_by_field_name("function")
            if inner_fn is not None and inner_fn.type == "identifier" and self.text(inner_fn) == "super" \
                    and self.resolve_name(scope, "super")[0] == "builtin":
                if len(attrs) == 1:
                    self.call_super(scope, root, attrs[0], line)
                else:
                    self.call_unknown_member(scope, attrs[-1], line)
                return
            t = self.type_of_call(scope, root)
            if t is not None:
                self.call_on_type(scope, t, attrs, line)
            else:
                self.call_unknown_member(scope, attrs[-1], line)
            return
        t = self.type_of_expr(scope, root)
        if t is not None:
            self.call_on_type(scope, t, attrs, line)
        else:
            self.call_unknown_member(scope, attrs[-1], line)

    def star_paths(self, scope: _Scope) -> list[list[str]]:
        out: list[list[str]] = []
        s: _Scope | None = scope
        while s is not None:
            out.extend(s.star)
            s = s.parent
        return out

    def call_unknown_member(self, scope: _Scope, member: str, line: int) -> None:
        if member in _BUILTIN_METHODS:
            return  # almost surely str/list/dict: a unique-name match would be a false edge
        self.add_ref(CALLS, scope, member, line, {"candidates": [], "name": member, "name_kinds": ["method"]})

    def call_on_type(self, scope: _Scope, t: Any, attrs: list[str], line: int, rtype: str = CALLS,
                     extra_fields: dict[str, Any] | None = None) -> None:
        cur = t
        for a in attrs[:-1]:
            if cur is _BUILTIN or cur is _NONE:
                return
            cur = self.attr_type(cur, a)
            if cur is None:
                if rtype == CALLS:
                    self.call_unknown_member(scope, attrs[-1], line)
                return
        if cur is _BUILTIN or cur is _NONE:
            return
        member = attrs[-1]
        owner, how, cls, oe = cur[1], cur[2], cur[3], cur[4]
        if len(cur) > 5:  # the return value of an imported function
            extra: dict[str, Any] = {"candidates": [{"returns_of": cur[5], "member": member, "how": how}]}
            if rtype == CALLS:
                if member not in _BUILTIN_METHODS:
                    extra.update({"name": member, "name_kinds": ["method"]})
                else:
                    extra["optional"] = True
            else:
                extra.update({"optional": True, **(extra_fields or {})})
            self.add_ref(rtype, scope, f"{owner}.{member}", line, extra)
            return
        if cls is not None and member in cls.attrs and not any(b[0] == "def" for b in cls.names.get(member, ())):
            # ``self.x()`` where ``self.x = f`` (or ``x = f`` in the class body)
            vals = self.class_member_values(cls, member, 0)
            if vals:
                self.call_values(scope, vals, [], line, rtype=rtype, extra_fields=extra_fields)
                return
        cand = {"owner": owner, "member": member, "how": how}
        if rtype != CALLS:  # a method handed around: only where its owner is certain
            self.add_ref(rtype, scope, f"{owner}.{member}", line, {
                "candidates": [cand] + ([{"owner_export": oe, "member": member, "how": how}] if oe else []),
                "optional": True, **(extra_fields or {})})
            return
        if cls is not None:
            # The class is in this file; the member may come from an external base or a
            # subclass hook, so the bare-name fallback stays allowed.
            self.add_ref(CALLS, scope, member, line, {"candidates": [cand], "name": member, "name_kinds": ["method"]})
        else:
            cands: list[dict[str, Any]] = [cand]
            if oe is not None:  # the class may be re-exported by the module it was imported from
                cands.append({"owner_export": oe, "member": member, "how": how})
            self.add_ref(CALLS, scope, f"{owner}.{member}", line, {"candidates": cands})

    def call_class(self, scope: _Scope, qn: str, how: str, line: int) -> None:
        """A call of a class of this file (``cls()``): the class, plus an optional edge to
        its ``__init__`` (absent when the class has none)."""
        self.add_ref(CALLS, scope, qn, line, {"candidates": [{"qn": qn, "how": how}]})
        self.add_ref(CALLS, scope, f"{qn}.__init__", line, {
            "candidates": [{"owner": qn, "member": "__init__", "how": how}], "optional": True})

    def call_entities(self, scope: _Scope, ents: list[tuple[Any, ...]], attrs: list[str], line: int,
                      how: str | None = None, rtype: str = CALLS, extra_fields: dict[str, Any] | None = None) -> None:
        """References to what ``ent.attrs`` names for each entity binding; ``how``
        overrides the resolution label, ``rtype`` REFERENCES makes optional references
        (a value used, not called: no stub, no constructor edge)."""
        cands: list[dict[str, Any]] = []
        init_owners: list[tuple[str, dict[str, Any] | None]] = []
        target = ""
        for ent in ents:
            kind = ent[0]
            if kind == "def":
                qn, dkind = ent[1], ent[2]
                if not attrs:
                    cands.append({"qn": qn, "how": "same_module"})
                    if dkind == "class":
                        init_owners.append((qn, None))
                elif dkind == "class":
                    owner = ".".join([qn, *attrs[:-1]])
                    cands.append({"owner": owner, "member": attrs[-1], "how": "same_module"})
                    if _looks_like_class(attrs[-1]):
                        init_owners.append((f"{owner}.{attrs[-1]}", None))
                else:
                    continue  # an attribute of a function object (e.g. @prop.setter)
                target = target or ".".join([qn, *attrs])
            elif kind == "mod":
                if not attrs:
                    continue
                mqn, stems = ent[1], ent[2]
                full = ".".join([mqn, *attrs])
                cands.append({"qn": full, "how": "import"})
                prefix_stems = _child_stems(stems, attrs[:-1]) if len(attrs) > 1 else stems
                if len(attrs) > 1:
                    cands.append({"owner": ".".join([mqn, *attrs[:-1]]), "member": attrs[-1], "how": "import"})
                cands.append({"file": _paths(prefix_stems), "export": attrs[-1], "how": "import"})
                if len(attrs) > 1:  # ``os.path.join``: ``path`` may be a module bound in os.py
                    cands.append({"module_chain": {"file": _paths(stems), "attrs": attrs}, "how": "module_alias"})
                if _looks_like_class(attrs[-1]):
                    init_owners.append((full, {"file": _paths(prefix_stems), "export": attrs[-1]}))
                target = target or full
            else:  # from m import name
                mqn, orig, stems = ent[1], ent[2], ent[3]
                base = _qjoin(mqn, orig)
                full = _qjoin(base, *attrs)
                cands.append({"qn": full, "how": "import"})
                if not attrs:
                    cands.append({"file": _paths(stems), "export": orig, "how": "import"})
                    if _looks_like_class(orig):
                        init_owners.append((full, {"file": _paths(stems), "export": orig}))
                else:
                    owner = ".".join([base, *attrs[:-1]])
                    cands.append({"owner": owner, "member": attrs[-1], "how": "import"})
                    if len(attrs) == 1:
                        # name is a class re-exported by m: look the member up on it.
                        cands.append({"owner_export": {"file": _paths(stems), "export": orig},
                                      "member": attrs[-1], "how": "import"})
                    sub = _child_stems(stems, [orig, *attrs[:-1]])
                    cands.append({"file": _paths(sub), "export": attrs[-1], "how": "import"})
                    cands.append({"module_chain": {"file": _paths(stems), "attrs": [orig, *attrs]},
                                  "how": "module_alias"})
                    if _looks_like_class(attrs[-1]):
                        init_owners.append((full, {"file": _paths(sub), "export": attrs[-1]}))
                target = target or full
        if not cands:
            return
        cands = _dedupe(cands)
        if how is not None:
            cands = [{**c, "how": how} for c in cands]
        if rtype != CALLS:
            self.add_ref(rtype, scope, target, line, {"candidates": cands, "optional": True, **(extra_fields or {})})
            return
        if init_owners:
            how = cands[0]["how"]
            self.add_ref(CALLS, scope, target, line, {"candidates": cands})
            ic: list[dict[str, Any]] = []
            for qn, oe in init_owners:
                ic.append({"owner": qn, "member": "__init__", "how": how})
                if oe is not None:
                    ic.append({"owner_export": oe, "member": "__init__", "how": how})
            if how is not None:
                ic = [{**c, "how": how} for c in ic]
            self.add_ref(CALLS, scope, f"{target}.__init__", line, {"candidates": _dedupe(ic), "optional": True})
            return
        self.add_ref(CALLS, scope, target, line, {"candidates": cands})

    def flow_how(self, scope: _Scope, name: str) -> str:
        found = self.lookup(scope, name)
        if found is not None and all(b[0] == "param" for b in found[0]):
            return "parameter"  # a default value
        return "value_flow"

    def base_entities(self, cls: _Scope) -> list[tuple[str, tuple[Any, ...]]]:
        """(kind, binding) of each base of a class that names a def/import entity."""
        out: list[tuple[str, tuple[Any, ...]]] = []
        lookup_scope = cls.parent or self.module_scope
        for b in cls.bases:
            if b.type == "subscript":
                b = b.child_by_field_name("value") or b
            root, attrs = self.split_chain(b)
            if root is None or root.type != "identifier" or attrs:
                continue
            kind, val = self.resolve_name(lookup_scope, self.text(root))
            if kind == "entities":
                for ent in val:
                    if ent[0] == "def" and ent[2] == "class":
                        out.append(("def", ent))
        return out

    def class_bases(self, cls: _Scope) -> list[tuple[str, list[dict[str, Any]], str | None, int]]:
        """Per base: (target identifier, candidates, fallback name or None, line)."""
        if cls.base_info is not None:
            return cls.base_info  # type: ignore[return-value]
        out: list[tuple[str, list[dict[str, Any]], str | None, int]] = []
        lookup_scope = cls.parent or self.module_scope
        for b in cls.bases:
            if b.type == "subscript":
                b = b.child_by_field_name("value") or b
            root, attrs = self.split_chain(b)
            if root is None or root.type != "identifier":
                continue
            name = self.text(root)
            line = b.start_point[0] + 1
            kind, val = self.resolve_name(lookup_scope, name)
            if kind == "unbound":
                if not attrs:
                    cands = [{"file": p, "export": name, "how": "import"} for p in self.star_paths(lookup_scope)]
                    out.append((name, cands, name, line))
                continue
            if kind != "entities":
                continue  # builtins (object, Exception...), local variables
            cands = []
            target = ""
            for ent in val:
                if ent[0] == "def":
                    if ent[2] != "class":
                        continue
                    cands.append({"qn": ".".join([ent[1], *attrs]), "how": "same_module"})
                    target = target or cands[-1]["qn"]
                elif ent[0] == "mod":
                    if not attrs:
                        continue
                    full = ".".join([ent[1], *attrs])
                    pst = _child_stems(ent[2], attrs[:-1]) if len(attrs) > 1 else ent[2]
                    cands += [{"qn": full, "how": "import"}, {"file": _paths(pst), "export": attrs[-1], "how": "import"}]
                    target = target or full
                else:
                    full = _qjoin(ent[1], ent[2], *attrs)
                    cands.append({"qn": full, "how": "import"})
                    if not attrs:
                        cands.append({"file": _paths(ent[3]), "export": ent[2], "how": "import"})
                    else:
                        sub = _child_stems(ent[3], [ent[2], *attrs[:-1]])
                        cands.append({"file": _paths(sub), "export": attrs[-1], "how": "import"})
                    target = target or full
            if cands:
                out.append((target, _dedupe(cands), None, line))
        cls.base_info = out  # type: ignore[assignment]
        return out

    def emit_extends(self, cls: _Scope) -> None:
        for target, cands, name, line in self.class_bases(cls):
            extra: dict[str, Any] = {"candidates": cands}
            if name:
                extra["name"] = name
                extra["name_kinds"] = ["class"]
            self.refs.append(Reference(EXTENDS, cls.qn, target, self.path, line, cls.sig, "symbol", extra))

    def call_super(self, scope: _Scope, super_call: Node, member: str, line: int) -> None:
        cls: _Scope | None = None
        args = super_call.child_by_field_name("arguments")
        explicit = [c for c in args.named_children if c.type != "comment"] if args is not None else []
        if explicit and explicit[0].type == "identifier":
            kind, val = self.resolve_name(scope, self.text(explicit[0]))
            if kind == "entities":
                cls = next((e[3] for e in val if e[0] == "def" and e[2] == "class"), None)
        else:
            s: _Scope | None = scope.named
            while s is not None and s.kind == "function":
                if s.parent is not None and s.parent.named.kind == "class":
                    cls = s.parent.named
                    break
                s = s.parent.named if s.parent is not None else None
        if cls is None:
            self.call_unknown_member(scope, member, line)
            return
        bases = [b for b in self.class_bases(cls) if b[2] is None]
        if not bases and not any(b[2] for b in self.class_bases(cls)):
            return  # only builtin bases (object, Exception...): nothing in the repo
        cands: list[dict[str, Any]] = [{"super_of": cls.qn, "member": member, "how": "self"}]
        for target, _, _, _ in bases:
            cands.append({"owner": target, "member": member, "how": "self"})
        first = bases[0][0] if bases else self.class_bases(cls)[0][0]
        extra: dict[str, Any] = {"candidates": cands}
        if member.startswith("__") and member.endswith("__"):
            extra["optional"] = True  # a base without __init__ inherits object's
        self.add_ref(CALLS, scope, f"{first}.{member}", line, extra)


def scope_is_cls_method(scope: _Scope) -> bool:
    s: _Scope | None = scope
    while s is not None and s.kind == "lambda":
        s = s.parent
    return s is not None and s.cls_method


def _combine(types: list[Any]) -> Any:
    """One type if every (non-None-literal) assignment agrees, else None (unknown)."""
    result = None
    for t in types:
        if t is _NONE:
            continue
        if t is None:
            return None
        if result is None:
            result = t
        elif result is _BUILTIN or t is _BUILTIN:
            if result is not t:
                return None
        elif result[1] != t[1]:
            return None
    return result


def _entity_export(ent: tuple[Any, ...], attrs: list[str]) -> dict[str, Any] | None:
    """``{"file", "export"}`` naming what an imported entity chain denotes."""
    if ent[0] == "mod":
        if not attrs:
            return None
        return {"file": _paths(_child_stems(ent[2], attrs[:-1])), "export": attrs[-1]}
    if ent[0] == "from":
        if not attrs:
            return {"file": _paths(ent[3]), "export": ent[2]}
        return {"file": _paths(_child_stems(ent[3], [ent[2], *attrs[:-1]])), "export": attrs[-1]}
    return None


def _to_utf8(src: bytes) -> bytes:
    """Re-encode a file declaring another encoding (PEP 263 cookie in its first two
    lines) so that tree-sitter, which reads UTF-8, sees the real characters."""
    m = _CODING.search(src[:400])
    if m is None:
        return src
    codec = m.group(1).decode("ascii", "replace").lower().replace("_", "-")
    if codec in ("utf-8", "utf8", "utf-8-sig"):
        return src
    try:
        return src.decode(codec).encode("utf-8")
    except (LookupError, UnicodeError):
        return src


def _start(n: Node) -> int:
    return n.start_byte


def _qjoin(*parts: str) -> str:
    return ".".join(p for p in parts if p)


def _dedupe(cands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if len(cands) < 2:
        return cands
    seen: set[str] = set()
    out = []
    for c in cands:
        k = repr(c)  # candidates are built with keys in a fixed order
        if k not in seen:
            seen.add(k)
            out.append(c)
    return out


def extract(repo: str, path: str, source: bytes) -> FileExtraction:
    """Extract one Python file. ``path`` is repo-relative with forward slashes.

    Returns a FileExtraction whose ``symbols`` start with the module symbol; never raises
    on bad syntax (what parsed is extracted; ``file.coverage_status`` says how much).
    """
    return _Extractor(repo, path, source).run()

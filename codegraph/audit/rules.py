"""What the auditor knows about symbols and call sites: callable and constructor kinds, calls the
language makes implicitly, builtin receivers, resolutions that follow values, the symbol
enclosing a line, and declarations that look like calls to text search."""

from __future__ import annotations

import re
import time

from codegraph.audit.text import FAMILY, TextHit
from codegraph.core.graph_store import GraphStore
from codegraph.core.models import (
    SYMBOL,
    Node,
)

CALLABLE_KINDS = frozenset({"function", "method", "constructor"})


# How extractors name constructors (Python, JS/TS, JVM bytecode style, C#).
CONSTRUCTOR_NAMES = frozenset({"__init__", "constructor", "<init>", ".ctor"})


# Symbols that cannot enclose a call site (a text hit inside one belongs to its parent).
_NOT_ENCLOSING = frozenset({"field", "variable"})


# Called implicitly by the language: a text search for ``name(`` cannot see those calls.
_IMPLICIT = re.compile(r"^__(enter|exit|aenter|aexit|iter|next|aiter|anext|call|getitem|setitem|delitem|contains|len|"
                       r"bool|eq|ne|lt|le|gt|ge|hash|add|sub|mul|truediv|floordiv|mod|pow|and|or|xor|neg|pos|invert|"
                       r"str|repr|format|get|set|delete|set_name|init_subclass|class_getitem|getattr|getattribute|"
                       r"setattr|delattr|del|new|post_init|missing|fspath|index|int|float|complex|bytes|round|"
                       r"reduce|reduce_ex|getstate|setstate|copy|deepcopy|await|radd|rsub|rmul|iadd|isub|imul)__$")


# Receivers that are builtin types: ``object.__init__(self)``, ``str.join(...)``.
_PY_BUILTIN_RECEIVERS = frozenset(
    "object str bytes bytearray int float complex bool list dict set frozenset tuple type BaseException "
    "Exception dict.fromkeys".split())


# -- the audit ----------------------------------------------------------------------------

_FLOW_RESOLUTIONS = {
    "value_flow": "a name, container element, attribute or return value holds it",
    "parameter": "passed as an argument and called by the callee",
    "module_alias": "a module bound to another name (os.path is posixpath)",
    "dynamic_import": "a module named by a string (importlib.import_module, a helper returning it)",
    "protocol": "an implicit call (for -> __iter__, with -> __enter__)",
    "return_type": "the receiver is typed by a return annotation",
}


def _callable_nodes(store: GraphStore, repo: str | None) -> list[Node]:
    out: list[Node] = []
    offset = 0
    while True:
        page = store.nodes_by_label(SYMBOL, repo, limit=5000, offset=offset)
        # Lambdas have no name a text search could find: not audited as callables.
        out.extend(n for n in page if n.props.get("kind") in CALLABLE_KINDS and n.props.get("language_kind") != "lambda")
        if len(page) < 5000:
            return out
        offset += 5000


def _is_constructor(n: Node) -> bool:
    p = n.props
    parent_last = re.split(r"[.:#/]+", p.get("parent") or "")[-1]
    return p.get("kind") == "constructor" or p.get("name") in CONSTRUCTOR_NAMES or (
        bool(parent_last) and p.get("name") == parent_last and p.get("language") != "python")


def _class_name(n: Node) -> str | None:
    parent = n.props.get("parent") or ""
    last = re.split(r"[.:#/]+", parent)[-1] if parent else ""
    return last or None


def _enclosing(symbols: list[Node], line: int) -> Node | None:
    """Innermost symbol (by line range) containing ``line``; fields/variables skipped."""
    best: Node | None = None
    for s in symbols:
        p = s.props
        if p.get("kind") in _NOT_ENCLOSING:
            continue
        lo, hi = int(p.get("line") or 0), int(p.get("end_line") or 0)
        if lo <= line <= hi and (best is None or lo > int(best.props["line"]) or (
                lo == int(best.props["line"]) and hi < int(best.props["end_line"]))):
            best = s
    return best


def _is_declaration_family(language: str) -> bool:
    """Families whose declarations look like calls (no keyword before the name)."""
    return FAMILY.get(language) in ("jvm", "csharp", "c", "js", "php")


def _declarations(name: str, hits: list[TextHit], file_syms: list[Node]) -> set[int]:
    """ids of hits that are C-like declarations (``void run(``, ``Foo(int x) {``): the
    first receiver-less hit of ``name`` inside a symbol of that name, in its first lines.
    Python and other keyword languages are handled by the text search itself."""
    lang = file_syms[0].props.get("language", "") if file_syms else ""
    if not _is_declaration_family(lang):
        return set()
    bare = sorted((h for h in hits if not h.receiver), key=lambda h: (h.line, h.col))
    out: set[int] = set()
    for s in file_syms:
        p = s.props
        if p.get("name") != name:
            continue
        lo, hi = int(p.get("line") or 0), int(p.get("end_line") or 0)
        first = next((h for h in bare if lo <= h.line <= hi), None)
        if first is not None and first.line <= lo + 5:
            out.add(id(first))
    return out


def _last(identifier: str) -> str:
    return re.split(r"\.|::|#|/", identifier)[-1]


def _ms(t: float) -> float:
    return round((time.perf_counter() - t) * 1000, 2)

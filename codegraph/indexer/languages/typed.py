"""Helpers of the statically typed extractors (Go, Java, Kotlin, C#) on the skeleton.

Those extractors sweep their captures once (``skeleton.sweep``), pushing a ``Scope`` per
class / callable / block; a scope's ``env`` maps the names visible in it (parameters,
locals, fields) to the type text written for them, which types receivers and picks
overloads (docs/DESIGN.md#resolution). ``TypedBuilder`` is the skeleton's ``Builder``
with the conventions these four share: the module symbol is named by the file's path,
a symbol's signature is its declaration header and its docstring the comment above it,
and a call's literal argument types ride along for overload choice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tree_sitter import Node as TSNode

from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages.skeleton import Builder, ScopeStack, hints, text_lines
from codegraph.indexer.overloads import call_arguments, literal_types
from codegraph.indexer.records import Reference

# Text of a callee that is too long or spans lines is not a useful stub identifier.
_MAX_TARGET = 80
_GENERIC_RE = re.compile(r"<[^<>]*>")
_WS_RE = re.compile(r"\s+")
# A name bound to a local function / lambda: calls to it are not references to symbols.
LOCAL_CALLABLE = "<local>"


def strip_type(text: str) -> str:
    """``Map<String, List<X>>[]?`` -> ``Map``; ``global::A.B`` -> ``A.B``; ``*pkg.T`` -> ``pkg.T``."""
    t = text.strip()
    while "<" in t:
        nt = _GENERIC_RE.sub("", t)
        if nt == t:
            t = t.split("<", 1)[0]
            break
        t = nt
    t = t.replace("global::", "").replace("?", "").replace("[]", "").strip()
    t = t.lstrip("*&[]")
    if " " in t:  # annotations / modifiers in front of a type: keep the last word
        t = t.split()[-1]
    return t


def short_target(text: str, member: str) -> str:
    """Stub identifier for a call: the callee as written when short and on one line,
    else ``…member``."""
    t = text.strip()
    if len(t) > _MAX_TARGET or "\n" in t or "(" in t:
        return f"…{member}"
    return _WS_RE.sub("", t)


def arity(args: TSNode | None) -> int:
    """Number of arguments in an argument-list node (comments excluded)."""
    if args is None:
        return 0
    return sum(1 for c in args.named_children if "comment" not in c.type)


def header_text(node: TSNode, body: TSNode | None, limit: int = 300) -> str:
    """The declaration up to its body, whitespace-collapsed: feeds search and display."""
    raw = node.text or b""
    if body is not None:
        raw = raw[: max(0, body.start_byte - node.start_byte)]
    return _WS_RE.sub(" ", raw.decode("utf-8", "replace")).strip()[:limit]


def doc_comment(node: TSNode) -> str:
    """The comment right above a declaration (Javadoc, KDoc, ``///``, Go ``//``)."""
    lines: list[str] = []
    prev = node.prev_sibling
    row = node.start_point[0]
    while prev is not None and "comment" in prev.type and prev.end_point[0] >= row - 1:
        lines.append(ts.text(prev))
        row = prev.start_point[0]
        prev = prev.prev_sibling
    return "\n".join(reversed(lines))[:1000]


def test_path(path: str) -> bool:
    """Test sources by folder convention: ``src/test/``, ``src/jvmTest/``, ``tests/``,
    ``Foo.Tests/`` and file names ``FooTest``/``FooTests``/``FooIT``/``*_test.go``."""
    parts = path.split("/")
    for d in parts[:-1]:
        low = d.lower()
        if low in ("test", "tests", "testing", "testfixtures") or d.endswith(("Test", ".Tests", ".Test", "Tests")):
            return True
    stem = parts[-1].rsplit(".", 1)[0]
    return stem.endswith(("Test", "Tests", "IT", "_test")) or (stem.startswith("Test") and stem[4:5].isupper())


@dataclass(slots=True)
class Scope:
    """Who owns the code up to byte ``end``: a module, class, or callable.

    ``env`` maps local names to the type text written for them (params, locals, fields).
    ``cls`` is the qualified name of the innermost class (for ``this`` / implicit calls).
    """

    kind: str  # module | namespace | class | callable | block
    qn: str
    end: int
    sig: str = ""
    cls: str = ""
    env: dict[str, str] = field(default_factory=dict)
    tparams: frozenset[str] = frozenset()
    ns: str = ""  # C#: the enclosing namespace


class TypedStack(ScopeStack[Scope]):
    """The skeleton's scope stack with look-ups through the open scopes' ``env``."""

    def lookup(self, name: str) -> str | None:
        """Type text of a local/param/field visible from the top of the stack."""
        for s in reversed(self.stack):
            t = s.env.get(name)
            if t is not None:
                return t
        return None

    def is_type_param(self, name: str) -> bool:
        return any(name in s.tparams for s in self.stack)

    def classes(self) -> list[str]:
        """Enclosing class qualified names, innermost first."""
        out: list[str] = []
        for s in reversed(self.stack):
            if s.kind == "class" and (not out or out[-1] != s.qn):
                out.append(s.qn)
        return out


class TypedBuilder(Builder):
    """One file's records. ``module_qn`` names the file-level ``module`` symbol."""

    def __init__(self, repo: str, path: str, language: str, source: bytes, root: TSNode, module_qn: str) -> None:
        super().__init__(repo, path, language, source, root, is_test=test_path(path),
                         line_count=text_lines(source) or 1)
        self.module_qn = module_qn
        self.module_sig = self.module(module_qn).signature_hash

    def module_scope(self, end: int) -> Scope:
        return Scope("module", self.module_qn, end, self.module_sig)

    def symbol(
        self, node: TSNode, name: str, qn: str, kind: str, params: str = "", *, visibility: str = "public",
        parent: str | None = None, body: TSNode | None = None, signature: str | None = None,
        overload: tuple[str, int | None, bool] | None = None,
    ) -> str:
        """Add a symbol; returns its signature hash. A second declaration with the same
        key in the file (e.g. the same method under #if branches) is kept once.
        ``overload``: (parameter types, arity or None when defaults make it a range,
        variadic) of a callable in a language with overloads (``SymbolRecord.params``)."""
        n_before = len(self.symbols)
        sym = self.define(node, kind, qn, name, sig_key=params, visibility=visibility, parent=parent,
                          signature=signature if signature is not None else header_text(node, body),
                          docstring=doc_comment(node))
        if overload is not None and len(self.symbols) > n_before:
            sym.params, sym.arity, sym.variadic = overload
        return sym.signature_hash

    def ref(
        self, rtype: str, scope: Scope, target: str, node: TSNode, candidates: list[dict[str, Any]],
        *, name: str | None = None, name_kinds: list[str] | None = None, optional: bool = False,
        **extra: Any,
    ) -> Reference:
        """A Reference from ``scope``'s symbol; a call's literal argument types (read
        through ``scope.env``) ride along as ``arg_types`` for overload choice."""
        ex = hints(candidates, name, name_kinds, optional, extra, name_always=True)
        if ex.get("arity") is not None and "arg_types" not in ex:
            kinds = literal_types(call_arguments(node), scope.env)
            if any(kinds):
                ex["arg_types"] = kinds  # literal argument types: the resolver picks the overload
        return self.reference(rtype, scope.qn, scope.sig, target, node, ex)

    def file_ref(self, rtype: str, target: str, node: TSNode, candidates: list[dict[str, Any]], **extra: Any) -> Reference:
        """A File-sourced reference (IMPORTS)."""
        return self.file_reference(rtype, target, node, hints(candidates, None, extra=extra, name_always=True))

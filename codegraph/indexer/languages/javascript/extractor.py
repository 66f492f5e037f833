"""The JavaScript / TypeScript / TSX extractor: the file's state, the module symbol,
the walk in document order and ``extract``. The rules live in the mixins (``scopes``,
``imports``, ``classes``, ``types``, ``calls``, ``flow``); see the package docstring."""

from __future__ import annotations

import posixpath
from typing import Any

from tree_sitter import Node as TSNode

from codegraph.core.models import SymbolRecord
from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages import language_for
from codegraph.indexer.languages.javascript.calls import _Calls
from codegraph.indexer.languages.javascript.classes import _Classes
from codegraph.indexer.languages.javascript.flow import _Flow
from codegraph.indexer.languages.javascript.imports import _Imports
from codegraph.indexer.languages.javascript.paths import is_test_path, module_name
from codegraph.indexer.languages.javascript.scopes import Binding, ClassInfo, Ctx, Scope, Target, _Declarations
from codegraph.indexer.languages.javascript.syntax import (
    _CLASS_NODES,
    _FUNC_NODES,
    _doc,
    _field,
    _first_line,
    _pattern_names,
    _t,
)
from codegraph.indexer.languages.javascript.types import _Types
from codegraph.indexer.languages.skeleton import file_record, module_symbol, query_events, text_lines
from codegraph.indexer.records import FileExtraction, Reference


class _Extractor(_Imports, _Declarations, _Classes, _Types, _Calls, _Flow):
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
        self.scopes: dict[int, Scope] = {}  # function node id -> its scope (built once: walk or value flow)
        self.returns: dict[int, list[Target]] = {}  # function node id -> what calling its result reaches
        self.literals: dict[int, dict[str, TSNode | None]] = {}  # object literal id -> key -> value written

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

    # -- the walk --------------------------------------------------------------------------------
    def walk(self, root: TSNode, ctx: Ctx) -> None:
        """Visit the nodes that matter in document order. A stack of frames (end byte,
        context) tells which function / class / object / namespace encloses each node."""
        frames: list[tuple[int, Ctx]] = []
        skip_end = -1
        # queries/<language>/tags.scm: the node types handled below and names in value
        # positions; tree-sitter's C side finds them, so Python never visits the rest.
        for sb, _, _, _, node in query_events(self.language, root):
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
            elif t in ("identifier", "shorthand_property_identifier"):
                self.on_value(node, cur)
            elif t in ("type_annotation", "as_expression", "satisfies_expression"):
                self.on_type_use(node, cur)
            elif t == "object":
                info = self.objects.get(node.id)
                if info is not None:
                    self.object_values(node, cur)
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
        scope = self.function_scope(node, ctx.scope, prefix)
        inner = Ctx(owner, owner_sig, prefix, cls, scope)
        params = _field(node, "parameters") or _field(node, "parameter")
        if reg:  # USES_TYPE from a named function to the types its signature names
            for p in ([] if params is None or params.type == "identifier" else params.named_children):
                t = _field(p, "type") if p.type in ("required_parameter", "optional_parameter") else None
                if t is not None:
                    self.uses_types(t, inner, scope, 0)
            rt = _field(node, "return_type")
            if rt is not None:
                self.uses_types(rt, inner, scope, 0)
        return inner

    def function_scope(self, node: TSNode, parent: Scope, prefix: str) -> Scope:
        """A function's own scope (``this``, parameters, hoisted declarations named under
        ``prefix``), built once: by the walk on entry, or earlier by value flow asking
        what a function returns or what a method assigned."""
        scope = self.scopes.get(node.id)
        if scope is not None:
            return scope
        scope = self.scopes[node.id] = Scope(parent)
        reg = self.registry.get(node.id)
        if node.type != "arrow_function":  # a plain function has its own `this` (typed by a TS `this:` param)
            scope.names["this"] = Binding("var")
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
            self.collect(body.named_children, Ctx(prefix, "", prefix, None, scope))
        return scope

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



def _opaque(node: TSNode, t: str) -> bool:
    """Statements whose inside describes other code: ``declare module 'x' {}``,
    ``declare global {}``, ``export ... from`` (handled by the pre-pass)."""
    if t == "ambient_declaration":
        return any(c.type in ("module", "statement_block") for c in node.named_children)
    return t == "export_statement" and _field(node, "source") is not None

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
    fr, msgs = file_record(repo, path, language, source, root, is_test_path(path), text_lines(source))
    mod = module_name(path)
    # The path goes into the module's signature so that `a.js` and `a.ts` (same module
    # name) never share a Symbol key.
    msym = module_symbol(fr, root, mod, name=posixpath.basename(mod), sig_key=path, language_kind="program",
                         end_line=max(1, ts.end_line(root)), signature=path)
    ex = _Extractor(repo, path, language, root, msym.signature_hash)
    ex.symbols.append(msym)
    ex.seen.add((mod, msym.signature_hash))
    ex.run()
    # TS merges a type and a value of one name (`type OK<T> = ...; const OK = ...`); the
    # value is what calls reach, and two symbols under one name would split every edge.
    values = {s.qualified_name for s in ex.symbols if s.kind in ("function", "class", "variable", "enum")}
    symbols = [s for s in ex.symbols if not (s.kind in ("type", "interface") and s.qualified_name in values)]
    return FileExtraction(file=fr, symbols=symbols, references=ex.refs, exports=ex.exports, errors=msgs)

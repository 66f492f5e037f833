"""The Python extractor's driver: state of one file, the one query run, the order of the
phases, and the reference sink (docs/DESIGN.md#extraction-contract)."""

from __future__ import annotations

import posixpath
from operator import itemgetter
from typing import Any

from tree_sitter import Node

from codegraph.core.models import SymbolRecord
from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages.python.calls import CallsMixin
from codegraph.indexer.languages.python.common import (
    F_FUNCTION,
    F_VALUE,
    LANGUAGE,
    _to_utf8,
    is_test_path,
    module_name,
    visibility,
)
from codegraph.indexer.languages.python.constructors import ConstructorsMixin
from codegraph.indexer.languages.python.dynimport import DynImportMixin
from codegraph.indexer.languages.python.flow import FlowMixin
from codegraph.indexer.languages.python.imports import ImportsMixin
from codegraph.indexer.languages.python.scopes import ScopesMixin, _Scope
from codegraph.indexer.languages.python.types import TypesMixin
from codegraph.indexer.languages.python.uses import UsesMixin
from codegraph.indexer.languages.skeleton import file_record, module_symbol, text_lines
from codegraph.indexer.records import FileExtraction, Reference

_POS_AND_KIND = itemgetter(0, 1)


class _Extractor(ScopesMixin, ImportsMixin, TypesMixin, ConstructorsMixin, CallsMixin, DynImportMixin, FlowMixin,
                 UsesMixin):
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
        self.method_returns: dict[str, dict[str, Any]] = {}  # "Class.method" -> {"returns"}
        self.memo: dict[Any, Any] = {}
        self.chains: dict[int, tuple[Node | None, list[str]]] = {}  # CallsMixin.split_chain
        self.flat_chains: set[int] = set()  # keys of chains on one line (CallsMixin.split_chain)
        self.call_fns: list[tuple[Node, Node | None]] = []  # (call, its "function" child)
        self.in_progress: set[Any] = set()
        self.returns: dict[int, list[tuple[Any, Node]]] = {}
        self.items: dict[tuple[int, str], list[tuple[Node | None, Node, Any, str]]] = {}
        self.lambdas: dict[int, tuple[Any, ...]] = {}
        self.globals: dict[int, set[str]] = {}
        self.lambda_count: dict[int, int] = {}
        # (using scope, scope the annotation is evaluated in, annotation node)
        self.annotations: list[tuple[Any, Any, Node]] = []

    def text(self, n: Node | None) -> str:
        """The source text of ``n`` ("" for None): its bytes decoded, errors replaced."""
        if n is None:
            return ""
        return self.src[n.start_byte:n.end_byte].decode("utf-8", "replace")

    def _ascii_text(self, n: Node | None) -> str:
        # ``text`` of an ASCII file: byte offsets are character offsets, so a slice of the
        # decoded file is the same string without a decode per node (~500k calls a stdlib run).
        if n is None:
            return ""
        return self.str_src[n.start_byte:n.end_byte]

    def run(self) -> FileExtraction:
        src = self.src
        # Parse (and slice text from) UTF-8; hashes and sizes stay those of the raw bytes.
        self.src = _to_utf8(src)
        if self.src.isascii():
            self.str_src = self.src.decode("ascii")
            self.text = self._ascii_text  # type: ignore[method-assign]
        tree = ts.parse(LANGUAGE, self.src)
        root = tree.root_node
        line_count = text_lines(src)
        fr, msgs = file_record(self.repo, self.path, LANGUAGE, src, root, is_test_path(self.path), line_count)
        mod = _Scope("module", self.module, ts.signature_hash("module", self.module, ""), 0, len(self.src) + 1, None)
        self.module_scope = mod
        short = self.module.rsplit(".", 1)[-1]
        self.symbols.append(module_symbol(fr, root, self.module, name=short, language_kind="module",
                                          end_line=max(1, line_count), visibility=visibility(short),
                                          docstring=self.docstring(root)))
        # Captures by name, each in document order (outer node first on a tie; the order of
        # skeleton.document_order within one capture): the order the handlers see nodes
        # decides the order of records and of returned values. The handlers take their
        # captures by name, so one merged stream is not built (it costs a sort of them all).
        caps = ts.document_captures(LANGUAGE, "tags", root)
        self.caps = caps
        self.build_scopes(mod, caps.get("def", []), caps.get("lambda", []))
        for n in caps.get("import", []):
            self.on_import(n)
        for n in caps.get("global", []):
            sc = self.scope_at(n.start_byte)
            self.globals.setdefault(id(sc), set()).update(
                self.text(c) for c in n.named_children if c.type == "identifier")
        for n in caps.get("bind", []):
            sc = self.scope_at(n.start_byte)
            if n.parent is not None and n.parent.type == "named_expression":  # (a := f)
                name = self.text(n)
                self.binding_scope(sc, name).bind(name, ("var", n.parent.child_by_field_id(F_VALUE), None, sc))
                continue
            for name in self.target_names(n):
                sc.bind(name, ("local",))
        for n in caps.get("for", []):
            self.on_for(n)
        for n in caps.get("return", []):
            sc = self.scope_at(n.start_byte)
            val = n.named_child(0) if n.named_child_count else None
            if val is not None and sc.kind == "function":
                self.returns.setdefault(id(sc), []).append((sc, val))
        attr_assigns: list[tuple[_Scope, Node, Node | None, Node | None]] = []
        item_assigns: list[tuple[_Scope, Node, Node | None, Node | None]] = []
        for n in caps.get("assign", []):
            self.on_assign(n, attr_assigns, item_assigns)
        for sc, obj, value, ann in attr_assigns:
            self.on_attr_assign(sc, obj, value, ann)
        # (call, callee expression) of every call, the callee looked up once for all passes.
        self.call_fns = [(n, n.child_by_field_id(F_FUNCTION)) for n in caps.get("call", [])]
        self.collect_items(item_assigns, self.call_fns)
        for sc in self.class_scopes:
            self.emit_extends(sc)
        # Calls and bare decorators in source order, so references read top to bottom.
        calls = [(n.start_byte, 0, n, fn) for n, fn in self.call_fns] + [
            (n.start_byte, 1, n, n) for n in caps.get("deco", [])]
        calls.sort(key=_POS_AND_KIND)
        for _, _, n, fn in calls:
            self.on_call(n, fn)
        for n in caps.get("deco_call", []):
            self.on_decorator_call(n)
        self.emit_protocols(caps.get("for", []), caps.get("with", []), caps.get("raise", []))
        for src_scope, eval_scope, ann in self.annotations:
            self.uses_types(src_scope, eval_scope, ann, 0)
        vals = caps.get("val")
        if vals:
            # on_value's first test, without a call per value: most are bare names that
            # no def or import of the file binds.
            names, text = self.entity_names(), self.text
            for n in vals:
                if n.type != "identifier" or text(n) in names:
                    self.on_value(n)
        self.emit_module_exports()
        self.exports.update(self.def_exports)
        self.exports.update(self.method_returns)
        return FileExtraction(file=fr, symbols=self.symbols, references=self.refs, exports=self.exports, errors=msgs)

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



def extract(repo: str, path: str, source: bytes) -> FileExtraction:
    """Extract one Python file. ``path`` is repo-relative with forward slashes.

    Returns a FileExtraction whose ``symbols`` start with the module symbol; never raises
    on bad syntax (what parsed is extracted; ``file.coverage_status`` says how much).
    """
    return _Extractor(repo, path, source).run()


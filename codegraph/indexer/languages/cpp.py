
"""C and C++ extractor: symbols, ``#include`` imports, calls, base classes.

Qualified names (see ``docs/languages/c.md`` and ``cpp.md``):

- C: functions are global by name, so a non-static function is its bare name
  (``parse_args``); a ``static`` function, ``main`` and anything in an anonymous
  namespace are private to their file: ``src/cli.c::parse_args``. Struct / union / enum
  types defined in a header are global (``Point``); defined in a ``.c``/``.cpp`` file they
  are file-scoped (``src/a.c::Node``). Fields: ``Point::x``.
- C++: namespaces and classes, ``ns::Cls::m``; an out-of-line definition
  ``void Cls::m() {}`` attaches to ``Cls`` (within the enclosing namespace, else within
  the file's single non-std ``using namespace``). Overloads are distinct symbols with
  the same qualified name: the signature hash covers the parameter *types* (names and
  default values dropped, ``const`` of the method kept), so a declaration in a header
  and its out-of-line definition agree.

A bodiless declaration is no symbol (the definition is), except pure virtual methods
(``= 0``), which are the only thing interface dispatch can land on. Namespaces are no
symbols (they span files; a symbol per file would collide).

``.h`` files are C by extension; a header whose text shows C++ (class, namespace,
template, access sections) or whose C parse has errors that a C++ parse does not, is
parsed as C++ and its File record says ``cpp``.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TSNode

from codegraph.core.models import SymbolRecord
from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages import language_for
from codegraph.indexer.languages.cpp_model import (
    EXTERNAL_NS,
    HEADER_EXT,
    TEST_MACROS,
    _param_arity,
    _plain_params,
    _Scope,
)
from codegraph.indexer.languages.cpp_names import _Names
from codegraph.indexer.languages.cpp_refs import _References
from codegraph.indexer.languages.cpp_source import CPP_MARKERS, _is_test_path, _preclean
from codegraph.indexer.languages.skeleton import (
    Builder,
    Comments,
    Event,
    define_sweep,
    document_order,
    head_signature,
    norm,
    reference_sweep,
)
from codegraph.indexer.records import FileExtraction


class _Extractor(_References, _Names):
    def __init__(self, repo: str, path: str, source: bytes) -> None:
        self.repo, self.path = repo, path
        lang = language_for(path) or "c"
        self.src = source
        self.lang = "cpp" if lang == "cpp" else "c"
        self.is_header = path.lower().endswith(HEADER_EXT)
        self.b: Builder  # set by run(): the file's records
        self.scope_of: dict[int, _Scope] = {}
        self.access: dict[int, str] = {}  # class member node id -> public/protected/private
        self.fields: dict[str, dict[str, TSNode]] = {}  # class qn -> field name -> type node
        self.aliases: dict[str, TSNode] = {}  # typedef / using alias -> type node
        self.using_ns: list[tuple[str, ...]] = []
        self.using_decl: dict[str, tuple[str, ...]] = {}
        self.include_paths: list[str] = []  # candidate files of quoted includes
        self.classes: set[str] = set()  # class qns defined in this file
        self.comments = Comments(())
        self.cand_cache: dict[tuple[tuple[str, ...], tuple[str, ...]], list[dict[str, Any]]] = {}

    # -- parsing -------------------------------------------------------------------
    def _parse(self) -> tuple[Any, str]:
        self.src = _preclean(self.src)
        if self.lang == "cpp":
            return ts.parse("cpp", self.src), "cpp"
        if self.path.lower().endswith(".h") and CPP_MARKERS.search(self.src):
            return ts.parse("cpp", self.src), "cpp"
        tree = ts.parse("c", self.src)
        # a second parse only where C++ is plausible (`::`): it doubles the cost
        if self.path.lower().endswith(".h") and tree.root_node.has_error and b"::" in self.src:
            alt = ts.parse("cpp", self.src)
            if not alt.root_node.has_error:
                return alt, "cpp"
        return tree, "c"

    # -- symbols -------------------------------------------------------------------
    def _symbol(self, node: TSNode, kind: str, qn: str, name: str, params: str, parent: str | None,
                visibility: str, head_end: int | None = None) -> SymbolRecord:
        # the same definition in another #if branch: one symbol (Builder.keep)
        return self.b.define(node, kind, qn, name, sig_key=params, visibility=visibility, parent=parent,
                             signature=head_signature(self.src, node, head_end), docstring=self._doc(node))

    def _doc(self, node: TSNode) -> str:
        """Comments on the lines right above ``node`` (or its `template <...>` line)."""
        anchor = node.parent if node.parent is not None and node.parent.type == "template_declaration" else node
        return "\n".join(ts.text(c) for c in self.comments.run_above(anchor))[:2000]

    def _param_types(self, params: TSNode | None, fdecl: TSNode | None = None) -> str:
        """Parameter types only (names and defaults dropped) plus the method's cv /
        ref qualifiers: what tells overloads apart."""
        if params is None:
            return ""
        out: list[str] = []
        for p in params.named_children:
            if p.type == "variadic_parameter" or ts.text(p) == "...":
                out.append("...")
                continue
            if p.type not in ("parameter_declaration", "optional_parameter_declaration",
                              "variadic_parameter_declaration"):
                continue
            quals = [ts.text(c) for c in p.named_children if c.type == "type_qualifier"]
            t = norm(ts.text(p.child_by_field_name("type")))
            out.append(" ".join(quals + [t]) + self._declarator_shape(p.child_by_field_name("declarator")))
        tail = ""
        if fdecl is not None:
            tail = " ".join(ts.text(c) for c in fdecl.named_children
                            if c.type in ("type_qualifier", "ref_qualifier"))
        return "(" + ", ".join(out) + ")" + (" " + tail if tail else "")

    @staticmethod
    def _declarator_shape(d: TSNode | None) -> str:
        shape = ""
        while d is not None:
            if d.type == "pointer_declarator":
                shape += "*"
            elif d.type == "reference_declarator":
                shape += "&&" if ts.text(d).startswith("&&") else "&"
            elif d.type == "array_declarator":
                shape += "[]"
            elif d.type in ("abstract_pointer_declarator",):
                shape += "*"
            elif d.type in ("abstract_reference_declarator",):
                shape += "&"
            elif d.type == "function_declarator" or d.type == "abstract_function_declarator":
                shape += "()"
            nxt = d.child_by_field_name("declarator")
            if nxt is None and d.type == "reference_declarator" and d.named_children:
                nxt = d.named_children[0]
            d = nxt
        return shape

    # -- driver --------------------------------------------------------------------
    def run(self) -> FileExtraction:
        tree, grammar = self._parse()
        self.lang = grammar
        root = tree.root_node
        self.b = Builder(self.repo, self.path, grammar, self.src, root, is_test=_is_test_path(self.path))
        fsym = self.b.module(language_kind="translation_unit")
        caps = ts.captures(grammar, "tags", root)
        self.comments = Comments(caps.pop("comment", ()))
        events = document_order(caps)
        file_scope = _Scope(len(self.src) + 1, "file", (), self.path, fsym.signature_hash)
        self._prescan(events)
        define_sweep(events, file_scope, self.scope_of, self._define_event)
        reference_sweep(events, file_scope, self.scope_of, self._opened, {
            "call": self._call, "new": self._new, "decl": self._declaration, "param": self._param,
        })
        return self.b.fx

    def _define_event(self, cap: str, node: TSNode, sc: _Scope) -> _Scope | None:
        return self._define(cap, node, sc) if cap.startswith("def.") else None

    def _opened(self, node: TSNode, opened: _Scope, outer: _Scope) -> None:
        if opened.kind == "class":
            self._bases(node, opened, outer)

    def _prescan(self, events: list[Event]) -> None:
        """Includes, `using` directives and aliases, before any name is resolved."""
        for _, _, _, cap, node in events:
            if cap == "include":
                self._include(node)
            elif cap == "using":
                self._using(node)
            elif cap == "def.alias":
                n, t = node.child_by_field_name("name"), node.child_by_field_name("type")
                if n is not None and t is not None:
                    self.aliases[ts.text(n)] = t
            elif cap == "def.typedef":
                t = node.child_by_field_name("type")
                for d in node.children_by_field_name("declarator"):
                    if t is not None and d.type == "type_identifier":
                        self.aliases[ts.text(d)] = t

    # -- definitions ---------------------------------------------------------------
    def _file_private(self, name: str) -> str:
        return f"{self.path}::{name}"

    def _define(self, cap: str, node: TSNode, sc: _Scope) -> _Scope | None:
        if cap == "def.namespace":
            n = node.child_by_field_name("name")
            segs = tuple(ts.text(n).split("::")) if n is not None else (self.path,)  # anonymous: file-private
            return _Scope(node.end_byte, "ns", sc.lookup + segs, sc.source_qn, sc.source_sig)
        if cap in ("def.class", "def.struct", "def.union", "def.enum"):
            return self._type_def(cap, node, sc)
        if cap == "def.function":
            return self._function(node, sc)
        if cap == "def.field":
            self._field(node, sc)
        elif cap == "def.macro" and sc.kind in ("file", "ns"):
            self._macro(node)
        return None

    def _macro(self, node: TSNode) -> None:
        """`#define NAME(args) ...`: a callable name, global when in a header, else
        private to its file like a static function."""
        n = node.child_by_field_name("name")
        if n is None:
            return
        name = ts.text(n)
        params = norm(ts.text(node.child_by_field_name("parameters")))
        qn = name if self.is_header else self._file_private(name)
        self._symbol(node, "function", qn, name, params, self.path, "public" if self.is_header else "private",
                     head_end=node.child_by_field_name("parameters").end_byte
                     if node.child_by_field_name("parameters") is not None else None)

    def _type_def(self, cap: str, node: TSNode, sc: _Scope) -> _Scope | None:
        kind = {"def.class": "class", "def.struct": "struct", "def.union": "union", "def.enum": "enum"}[cap]
        n = node.child_by_field_name("name")
        name = ts.text(n) if n is not None else ""
        if not name and node.parent is not None and node.parent.type == "type_definition":
            d = node.parent.child_by_field_name("declarator")
            name = ts.text(d) if d is not None and d.type == "type_identifier" else ""
        if not name or (n is not None and n.type not in ("type_identifier", "qualified_identifier")):
            return None
        if sc.kind == "fn":
            return None  # local types: nothing outside the function can name them
        segs = tuple(name.split("::"))
        if sc.kind in ("file", "ns") and not sc.lookup and not self.is_header and self.lang == "c":
            segs = (self.path,) + segs  # a type private to one C translation unit
        qn_segs = sc.lookup + segs
        qn = "::".join(qn_segs)
        vis = self.access.get(node.id, "public") if sc.kind == "class" else (
            "private" if qn.startswith(self.path + "::") else "public")
        parent = sc.owner if sc.kind == "class" else ("::".join(sc.lookup) if sc.lookup else self.path)
        s = self._symbol(node, kind, qn, segs[-1], "", parent, vis)
        self.classes.add(qn)
        body = node.child_by_field_name("body")
        default = "private" if kind == "class" else "public"
        if body is not None and kind != "enum":
            current = default
            for c in body.named_children:
                if c.type == "access_specifier":
                    current = ts.text(c).strip().rstrip(":").strip()
                else:
                    self.access[c.id] = current
                    if c.type == "template_declaration":
                        for cc in c.named_children:
                            self.access[cc.id] = current
        return _Scope(node.end_byte, "class", qn_segs, qn, s.signature_hash, owner=qn, default_access=default)

    def _func_declarator(self, decl: TSNode | None) -> TSNode | None:
        while decl is not None and decl.type != "function_declarator":
            nxt = decl.child_by_field_name("declarator")
            if nxt is None and decl.named_children:
                nxt = next((c for c in decl.named_children if c.type.endswith("declarator") or c.type in (
                    "function_declarator",)), None)
            decl = nxt
        return decl

    def _function(self, node: TSNode, sc: _Scope) -> _Scope | None:
        fdecl = self._func_declarator(node.child_by_field_name("declarator"))
        if fdecl is None:
            return None
        dn = fdecl.child_by_field_name("declarator")
        if dn is None:
            return None
        params = fdecl.child_by_field_name("parameters")
        static = any(c.type == "storage_class_specifier" and ts.text(c) == "static" for c in node.children)
        name, owner_segs = self._declarator_name(dn)
        if not name:
            return None
        if sc.kind == "fn":
            return None  # a local function-like declaration the grammar mistook
        if name in TEST_MACROS and params is not None and owner_segs == ():
            # gtest TEST(Suite, Name) { ... }: a test function named Suite.Name
            parts = [norm(ts.text(p)) for p in params.named_children]
            tname = ".".join(parts) if parts else name
            qn = self._file_private(tname)
            s = self._symbol(node, "function", qn, tname, name, self.path, "private")
            return _Scope(node.end_byte, "fn", sc.lookup, qn, s.signature_hash)
        ptypes = self._param_types(params, fdecl)
        if sc.kind == "class":
            owner = sc.owner
            qn_segs = sc.lookup + (name,)
            kind, vis = "method", self.access.get(node.id, sc.default_access)
            if node.parent is not None and node.parent.type == "template_declaration":
                vis = self.access.get(node.parent.id, vis)
        elif owner_segs:
            owner_qn = self._owner_of_definition(owner_segs, sc)
            owner = owner_qn
            qn_segs = tuple(owner_qn.split("::")) + (name,)
            kind, vis = "method", "public"
        else:
            owner = None
            kind = "function"
            # static, main (one per program, many per repo) and anonymous namespaces
            # are private to the file
            anonymous = bool(sc.lookup) and sc.lookup[0] == self.path
            private = static or anonymous or (name == "main" and not sc.lookup)
            qn_segs = ((self.path,) if private and not anonymous else ()) + sc.lookup + (name,)
            vis = "private" if private else "public"
        qn = "::".join(qn_segs)
        parent = owner or ("::".join(sc.lookup) if sc.lookup else self.path)
        s = self._symbol(node, kind, qn, name, ptypes, parent, vis)
        if self.lang == "cpp":
            s.arity, s.variadic = _param_arity(params)
            s.params = _plain_params(ptypes)
        lookup = tuple(owner.split("::")) if owner else sc.lookup
        return _Scope(node.end_byte, "fn", lookup, qn, s.signature_hash, owner=owner)

    def _declarator_name(self, dn: TSNode) -> tuple[str, tuple[str, ...]]:
        """(name, owner segments) of a function declarator's name node."""
        t = dn.type
        if t in ("identifier", "field_identifier"):
            return ts.text(dn), ()
        if t in ("destructor_name", "operator_name", "operator_cast"):
            return norm(ts.text(dn)), ()
        if t == "template_function":
            n = dn.child_by_field_name("name")
            return (ts.text(n) if n is not None else ""), ()
        if t == "qualified_identifier":
            segs: list[str] = []
            cur: TSNode | None = dn
            while cur is not None and cur.type == "qualified_identifier":
                scope = cur.child_by_field_name("scope")
                if scope is not None:
                    st = scope.child_by_field_name("name") if scope.type == "template_type" else scope
                    segs.append(ts.text(st))
                cur = cur.child_by_field_name("name")
            if cur is None:
                return "", ()
            name, _ = self._declarator_name(cur)
            return name, tuple(s for s in segs if s)
        return "", ()

    def _owner_of_definition(self, owner_segs: tuple[str, ...], sc: _Scope) -> str:
        """The class an out-of-line definition `A::m` belongs to."""
        for k in range(len(sc.lookup), -1, -1):
            cand = "::".join(sc.lookup[:k] + owner_segs)
            if cand in self.classes:
                return cand
        if not sc.lookup:
            ns = [u for u in self.using_ns if u[0] not in EXTERNAL_NS]
            if ns:
                return "::".join(ns[0] + owner_segs)
        return "::".join(sc.lookup + owner_segs)

    def _field(self, node: TSNode, sc: _Scope) -> None:
        if sc.kind != "class":
            return
        vis = self.access.get(node.id, sc.default_access)
        tnode = node.child_by_field_name("type")
        for d in node.children_by_field_name("declarator"):
            fdecl = self._func_declarator(d)
            if fdecl is not None:
                default = node.child_by_field_name("default_value")
                if default is not None and ts.text(default) == "0":  # pure virtual
                    dn = fdecl.child_by_field_name("declarator")
                    name = self._declarator_name(dn)[0] if dn is not None else ""
                    if name:
                        ptypes = self._param_types(fdecl.child_by_field_name("parameters"), fdecl)
                        pv = self._symbol(node, "method", f"{sc.owner}::{name}", name, ptypes, sc.owner, vis,
                                          head_end=node.end_byte)
                        pv.arity, pv.variadic = _param_arity(fdecl.child_by_field_name("parameters"))
                        pv.params = _plain_params(ptypes)
                continue
            inner = d
            while inner is not None and inner.type not in ("field_identifier", "identifier"):
                nxt = inner.child_by_field_name("declarator")
                if nxt is None and inner.named_children:
                    nxt = inner.named_children[0]
                inner = nxt
            if inner is None:
                continue
            name = ts.text(inner)
            self._symbol(node, "field", f"{sc.owner}::{name}", name, "", sc.owner, vis, head_end=node.end_byte)
            if tnode is not None and sc.owner:
                self.fields.setdefault(sc.owner, {})[name] = tnode



def extract(repo: str, path: str, source: bytes) -> FileExtraction:
    """Extract one C or C++ file (grammar by extension; `.h` sniffed, see module doc):
    symbols, IMPORTS (`#include`), CALLS (incl. constructor calls), EXTENDS (bases)."""
    return _Extractor(repo, path, source).run()

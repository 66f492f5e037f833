
"""Rust extractor: symbols, module paths, ``use`` imports, calls, trait impls.

Qualified names follow the crate's module tree, derived from the file path (see
``docs/languages/rust.md``): ``src/lib.rs`` / ``src/main.rs`` are the crate root,
``src/a/b.rs`` and ``src/a/b/mod.rs`` are module ``a::b``; inline ``mod x { }`` blocks
and ``impl`` types extend it: ``store::Repo::save``. A workspace member
``crates/foo/src/x.rs`` is prefixed with its crate directory (``foo::x``) so that
``use foo::x::Y`` from a sibling crate names it exactly. Items of the crate root have
bare names (``Repo``); the root module symbol itself is called ``crate`` (or the crate
directory name in a workspace).

One query (``queries/rust/tags.scm``) captures every node of interest; two sweeps over
the captures in document order (definitions, then references) give each reference its
enclosing symbol by byte-range containment, so the tree is walked once, in C.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from tree_sitter import Node as TSNode

from codegraph.core.models import IMPORTS, SymbolRecord
from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages.rust_model import (
    EXTERNAL_CRATES,
    LANG,
    _Alt,
    _Layout,
    _Scope,
    module_qn,
)
from codegraph.indexer.languages.rust_paths import _Paths
from codegraph.indexer.languages.rust_refs import _References
from codegraph.indexer.languages.skeleton import (
    Builder,
    Event,
    ScopeStack,
    define_sweep,
    document_order,
    head_signature,
    norm,
    reference_sweep,
)
from codegraph.indexer.records import FileExtraction


class _Nest(NamedTuple):
    """A module or item body while collecting names (``_collect_names``)."""

    end: int
    kind: str  # mod | item
    module: tuple[str, ...]


class _Extractor(_References, _Paths):
    def __init__(self, repo: str, path: str, source: bytes) -> None:
        self.repo, self.path, self.src = repo, path, source
        self.layout = _Layout(path)
        self.b: Builder  # set by run(): the file's records
        self.exports: dict[str, dict[str, Any]] = {}
        self.scope_of: dict[int, _Scope] = {}  # def node id -> scope it opens
        # per module (qn string): name -> full segs of items / modules defined in this file
        self.items: dict[str, dict[str, tuple[str, ...]]] = {}
        self.uses: dict[str, dict[str, _Alt]] = {}
        self.globs: dict[str, list[_Alt]] = {}
        self.fields: dict[str, dict[str, TSNode]] = {}  # type qn -> field -> type node
        self.aliases: dict[str, dict[str, TSNode]] = {}  # module -> alias -> type node
        self.test_file = self._is_test_path(path)
        self.decor_of: dict[int, tuple[str, str]] = {}  # item node id -> (attributes, doc comment)
        self.resolved: dict[tuple[Any, ...], list[_Alt]] = {}

    @staticmethod
    def _is_test_path(path: str) -> bool:
        parts = path.split("/")
        return "tests" in parts[:-1] or parts[-1].endswith("_test.rs") or parts[-1] == "tests.rs"

    # -- symbols -------------------------------------------------------------------
    def _symbol(
        self, node: TSNode, kind: str, qn: str, name: str, params: str, parent: str | None,
        visibility: str, sig_extra: str = "",
    ) -> SymbolRecord:
        sig = head_signature(self.src, node)
        attrs, doc = self.decor_of.get(node.id, ("", ""))
        if attrs:
            sig = f"{attrs} {sig}"
        # the same item under another #[cfg(...)]: one symbol (Builder.keep)
        return self.b.define(node, kind, qn, name, sig_key=f"{sig_extra}{params}", visibility=visibility,
                             parent=parent, signature=sig, docstring=doc)

    def _decorate(self, node: TSNode, pending: list[TSNode]) -> None:
        """Attach the attributes and doc comments written right above ``node`` (on
        consecutive lines) to it. Sibling walks would cost O(n) per item in tree-sitter."""
        if not pending:
            return
        row = node.start_point[0]
        picked: list[TSNode] = []
        for d in reversed(pending):
            if d.end_byte > node.start_byte or d.end_point[0] < row - 1:
                break
            picked.append(d)
            row = d.start_point[0]
        pending.clear()
        if not picked:
            return
        picked.reverse()
        attrs = " ".join(norm(self._t(d)) for d in picked if d.type == "attribute_item")
        docs = []
        for d in picked:
            t = self._t(d)
            if d.type == "line_comment" and t.startswith("///"):
                docs.append(t[3:].strip())
            elif d.type == "block_comment" and t.startswith("/**"):
                docs.append(t[3:-2].strip())
        self.decor_of[node.id] = (attrs, "\n".join(docs)[:2000])

    def _t(self, node: TSNode | None) -> str:
        return "" if node is None else self.src[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def _visibility(self, node: TSNode) -> str:
        for c in node.children:
            if c.type == "visibility_modifier":
                t = self._t(c)
                return "public" if t == "pub" else "internal"
            if c.is_named and c.type not in ("attribute_item", "line_comment"):
                break
        return "private"

    # -- driver --------------------------------------------------------------------
    def run(self) -> FileExtraction:
        tree = ts.parse(LANG, self.src)
        root = tree.root_node
        self.b = Builder(self.repo, self.path, LANG, self.src, root, is_test=self.test_file)
        mqn = module_qn(self.layout.module)
        fsym = self.b.module(mqn, sig_key=self.path, name=self.layout.module[-1] if self.layout.module else "crate",
                             language_kind="source_file")
        caps = ts.captures(LANG, "tags", root)
        src = self.src
        events = document_order({name: nodes for name, nodes in caps.items() if name != "decor"})
        # Captures do not come back in document order; the attribute/doc scan needs it.
        decor = sorted((n for n in caps.get("decor", ()) if n.type == "attribute_item"
                        or src[n.start_byte:n.start_byte + 3] in (b"///", b"/**", b"//!", b"/*!")),
                       key=lambda n: n.start_byte)
        file_scope = _Scope(
            end=len(self.src) + 1, kind="file", module=self.layout.module, prefix=self.layout.module,
            source_qn=mqn, source_sig=fsym.signature_hash, is_test=self.test_file,
        )
        defs = [e for e in events if e[3][0] in "du"]  # def.* and use
        self._definitions(defs, decor, file_scope)
        self._references(events, file_scope)
        self.b.fx.exports = self.exports
        return self.b.fx

    def _definitions(self, events: list[Event], decor: list[TSNode],
                     file_scope: _Scope) -> None:
        self._collect_names(events)
        self.resolved.clear()  # readings cached while `use`s were still being collected
        pending: list[TSNode] = []
        k, nd = 0, len(decor)

        def visit(cap: str, node: TSNode, sc: _Scope) -> _Scope | None:
            nonlocal k
            if cap == "use":
                return None
            start = node.start_byte
            if k < nd and decor[k].start_byte < start:
                while k < nd and decor[k].start_byte < start:
                    d = decor[k]
                    if pending and pending[-1].end_point[0] < d.start_point[0] - 1:
                        pending.clear()
                    pending.append(d)
                    k += 1
                self._decorate(node, pending)
            return self._define(cap, node, sc)

        define_sweep(events, file_scope, self.scope_of, visit)

    def _collect_names(self, events: list[Event]) -> None:
        """Module-level item names, type aliases and `use` bindings, before anything is
        resolved: Rust items are visible throughout their module regardless of order."""
        stack = ScopeStack(_Nest(len(self.src) + 1, "mod", self.layout.module))
        uses: list[tuple[TSNode, tuple[str, ...], bool]] = []
        for start, _, _, cap, node in events:
            _, kind, module = stack.at(start)
            if cap == "use":
                uses.append((node, module, kind == "mod"))
                continue
            if not cap.startswith("def.") or cap in ("def.field", "def.variant"):
                continue
            name_node = node.child_by_field_name("name")
            name = self._t(name_node) if name_node is not None else ""
            if kind == "mod" and name:
                if cap == "def.alias":
                    tnode = node.child_by_field_name("type")
                    if tnode is not None:
                        self.aliases.setdefault(module_qn(module), {})[name] = tnode
                else:
                    self._items_of(module)[name] = module + (name,)
            if cap == "def.mod":
                if node.child_by_field_name("body") is not None:
                    stack.push(_Nest(node.end_byte, "mod", module + (name,)))
            else:
                stack.push(_Nest(node.end_byte, "item", module))
        for node, module, top in uses:
            sc = _Scope(0, "mod" if top else "fn", module, module, "", "")
            self._use(node, sc)

    def _references(self, events: list[Event], file_scope: _Scope) -> None:
        reference_sweep(events, file_scope, self.scope_of, self._opened, {
            "let": self._let, "call": self._call, "macro_args": self._macro_calls,
        })

    def _opened(self, node: TSNode, opened: _Scope, outer: _Scope) -> None:
        if opened.kind == "fn":
            self._params(node, opened)
        elif opened.kind == "impl":
            self._impl_refs(node, opened, outer)
        elif opened.kind == "trait":
            self._supertraits(node, opened)

    # -- definitions ---------------------------------------------------------------
    def _items_of(self, module: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
        return self.items.setdefault(module_qn(module), {})

    def _define(self, cap: str, node: TSNode, sc: _Scope) -> _Scope | None:
        name_node = node.child_by_field_name("name")
        if cap == "def.impl":
            return self._impl(node, sc)
        if name_node is None:
            return None
        name = self._t(name_node)
        vis = self._visibility(node)
        if sc.kind in ("trait",) or (sc.kind == "impl" and sc.generics.get("__trait__")):
            vis = "public"  # trait items are as visible as the trait
        parent_qn = sc.source_qn if sc.kind in ("type", "trait", "impl", "file", "mod") else sc.source_qn
        if sc.kind == "impl":
            parent_qn = sc.owner or sc.source_qn
        qn_segs = sc.prefix + (name,)
        qn = "::".join(qn_segs)
        if cap == "def.mod":
            body = node.child_by_field_name("body")
            is_test = sc.is_test or "cfg(test)" in self.decor_of.get(node.id, ("", ""))[0].replace(" ", "")
            if body is None:  # `mod x;` -> a file
                files = [f"{self.layout.mod_dir}/{name}.rs", f"{self.layout.mod_dir}/{name}/mod.rs"]
                self._ref(IMPORTS, self.path, "", f"mod {name}", node, [{"path": p, "how": "import"} for p in files],
                          source_kind="file", names=[name])
                return None
            s = self._symbol(node, "module", qn, name, "", parent_qn, vis)
            return _Scope(node.end_byte, "mod", qn_segs, qn_segs, qn, s.signature_hash, is_test=is_test)
        if cap in ("def.struct", "def.union", "def.enum", "def.trait"):
            kind = {"def.struct": "struct", "def.union": "union", "def.enum": "enum", "def.trait": "trait"}[cap]
            s = self._symbol(node, kind, qn, name, "", parent_qn, vis)
            scope = _Scope(node.end_byte, "trait" if kind == "trait" else "type", sc.module, qn_segs, qn,
                           s.signature_hash, owner=qn, is_test=sc.is_test)
            scope.generics = self._generic_bounds(node)
            return scope
        if cap == "def.function":
            params = node.child_by_field_name("parameters")
            ptext = self._t(params)
            in_type = sc.kind in ("impl", "trait")
            kind = "method" if in_type else "function"
            if sc.kind == "impl" and sc.owner:
                qn_segs = tuple(sc.owner.split("::")) + (name,)
                qn = sc.owner + "::" + name
            extra = ""
            trait_node = sc.generics.get("__trait__")
            if trait_node:
                extra = "impl " + norm(self._t(trait_node[0])) + " "
            s = self._symbol(node, kind, qn, name, ptext, parent_qn, vis, sig_extra=extra)
            scope = _Scope(node.end_byte, "fn", sc.module, qn_segs, qn, s.signature_hash, owner=sc.owner,
                           is_test=sc.is_test or "#[test]" in s.signature)
            scope.generics = {**{k: v for k, v in sc.generics.items() if k != "__trait__"}, **self._generic_bounds(node)}
            return scope
        if cap == "def.const":
            if sc.kind == "impl" and sc.owner:
                qn = sc.owner + "::" + name
            s = self._symbol(node, "variable", qn, name, "", parent_qn, vis)
            return _Scope(node.end_byte, "const", sc.module, qn_segs, qn, s.signature_hash, owner=sc.owner,
                          generics=sc.generics, is_test=sc.is_test)
        if cap == "def.field" and sc.kind == "type":
            if node.parent is not None and node.parent.parent is not None and node.parent.parent.type == "enum_variant":
                return None  # struct-like variant fields: the variant is the symbol
            self._symbol(node, "field", qn, name, "", sc.source_qn, vis)
            tnode = node.child_by_field_name("type")
            if tnode is not None:
                self.fields.setdefault(sc.source_qn, {})[name] = tnode
            return None
        if cap == "def.variant" and sc.kind == "type":
            self._symbol(node, "field", qn, name, "", sc.source_qn, "public")
            return None
        return None

    def _generic_bounds(self, node: TSNode) -> dict[str, list[TSNode]]:
        out: dict[str, list[TSNode]] = {}
        tp = node.child_by_field_name("type_parameters")
        if tp is not None:
            for p in tp.named_children:
                n = p.child_by_field_name("name")
                b = p.child_by_field_name("bounds")
                if n is not None and b is not None:
                    out[self._t(n)] = [x for x in b.named_children if x.type != "lifetime"]
        for c in node.named_children:
            if c.type == "where_clause":
                for pred in c.named_children:
                    left, b = pred.child_by_field_name("left"), pred.child_by_field_name("bounds")
                    if left is not None and b is not None:
                        out[self._t(left)] = [x for x in b.named_children if x.type != "lifetime"]
        return out

    def _impl(self, node: TSNode, sc: _Scope) -> _Scope:
        tnode = node.child_by_field_name("type")
        trait = node.child_by_field_name("trait")
        generics = self._generic_bounds(node)
        segs = self._type_segments(tnode)
        owner: str | None = None
        if segs is not None:
            if len(segs) == 1 and segs[0] in generics and trait is not None:
                # blanket impl: its methods act as the trait's default methods
                alts = self._resolve(self._type_segments(trait) or (), sc)
                owner = "::".join(alts[0].segs) if alts else None
            else:
                alts = self._resolve(segs, sc)
                owner = "::".join(alts[0].segs) if alts else "::".join(segs)
        if trait is not None:
            generics["__trait__"] = [trait]
        return _Scope(node.end_byte, "impl", sc.module, sc.prefix, sc.source_qn, sc.source_sig,
                      owner=owner, generics=generics, is_test=sc.is_test)

    def _use(self, node: TSNode, sc: _Scope) -> None:
        arg = node.child_by_field_name("argument")
        if arg is None:
            return
        module = sc.module
        pub = self._visibility(node) == "public" and sc.kind == "mod"
        uses = self.uses.setdefault(module_qn(module), {})
        for written, alias, glob in self._use_tree(arg, ()):
            alt = self._use_target(written, sc)
            if alt is None:
                continue
            target = alt if alt.local or alt.own_crate is None else _Alt(alt.own_crate, "import", True)
            files = self._module_files(target.segs if glob else target.segs[:-1]) if target.local else []
            if glob:
                self.globs.setdefault(module_qn(module), []).append(alt)
                if alt.own_crate is not None:
                    self.globs[module_qn(module)].append(_Alt(alt.own_crate, "import", True))
                if pub and alt.local:
                    self.exports.setdefault("*", {"from_all": []})["from_all"].append(self.layout.files_for(alt.segs))
            elif alias != "_":
                uses[alias] = alt
                if pub:
                    self.exports[alias] = ({"from": self.layout.files_for(alt.segs[:-1]), "name": alt.segs[-1]}
                                           if alt.local else {"qn": "::".join(alt.segs)})
            if files:
                if not glob:
                    # `use crate::a::b` may name module b itself: its own file comes first
                    files = self.layout.files_for(target.segs) + files
                # files after this one can never win (this file exists): a path into
                # this very file (an inline module) is no file import
                inside = self.path in files
                if inside:
                    files = files[: files.index(self.path)]
                if not files:
                    continue
                cands = [{"path": p, "how": "import"} for p in dict.fromkeys(files)]
                self._ref(IMPORTS, self.path, "", "::".join(written) + ("::*" if glob else ""), node, cands,
                          source_kind="file", names=[alias], forwarding=pub, optional=inside or not alt.local)

    def _use_target(self, written: tuple[str, ...], sc: _Scope) -> _Alt | None:
        """What a `use` path names. Unlike expression paths, an unknown first segment
        is an extern crate (2018 edition) unless this module declares that name."""
        if not written:
            return None
        first = written[0]
        if first in ("crate", "self", "super") or first in self.items.get(module_qn(sc.module), {}):
            alts = self._resolve(written, sc, use_path=True)
            return alts[0] if alts else None
        ext = first in EXTERNAL_CRATES
        own = self.layout.prefix + written[1:] if not ext and len(written) > 1 else None
        return _Alt(written, "import", False, external=ext, own_crate=own)

    def _module_files(self, segs: tuple[str, ...]) -> list[str]:
        """Files that may hold module ``segs`` or one of its ancestors, nearest first."""
        n = len(self.layout.prefix)
        out: list[str] = []
        for k in range(len(segs), n - 1, -1):
            out.extend(self.layout.files_for(segs[:k]))
        return out

    def _use_tree(self, node: TSNode, base: tuple[str, ...]) -> list[tuple[tuple[str, ...], str, bool]]:
        """(written path, bound name, is_glob) for every leaf of a use tree."""
        t = node.type
        if t in ("identifier", "crate", "self", "super", "metavariable"):
            name = self._t(node)
            if name == "self" and base:
                return [(base, base[-1], False)]
            return [(base + (name,), name, False)]
        if t == "scoped_identifier":
            segs = self._path_segments(node)
            return [(base + segs, segs[-1], False)] if segs else []
        if t == "use_as_clause":
            p, a = node.child_by_field_name("path"), node.child_by_field_name("alias")
            inner = self._use_tree(p, base) if p is not None else []
            return [(w, self._t(a), g) for w, _, g in inner] if a is not None else inner
        if t == "use_wildcard":
            inner = node.named_children[0] if node.named_children else None
            segs = self._path_segments(inner) if inner is not None else ()
            return [(base + segs, "*", True)]
        if t == "scoped_use_list":
            p, lst = node.child_by_field_name("path"), node.child_by_field_name("list")
            nb = base + (self._path_segments(p) if p is not None else ())
            return self._use_tree(lst, nb) if lst is not None else []
        if t == "use_list":
            out: list[tuple[tuple[str, ...], str, bool]] = []
            for c in node.named_children:
                out.extend(self._use_tree(c, base))
            return out
        return []



def extract(repo: str, path: str, source: bytes) -> FileExtraction:
    """Extract one Rust file: symbols, IMPORTS (`mod x;`, `use`), CALLS, IMPLEMENTS
    (`impl Trait for Type`, Type -> Trait), EXTENDS (supertraits). Never raises on
    syntax errors (coverage says how much parsed)."""
    return _Extractor(repo, path, source).run()

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

import re
from dataclasses import dataclass, field
from typing import Any

from tree_sitter import Node as TSNode

from codegraph.core.models import CALLS, EXTENDS, IMPLEMENTS, IMPORTS, SymbolRecord
from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages._common import (
    Event,
    document_order,
    file_record,
    head_signature,
    keep_once,
    norm,
    ref_extra,
    reference_sweep,
)
from codegraph.indexer.records import FileExtraction, Reference

LANG = "rust"
EXTERNAL_CRATES = frozenset({"std", "core", "alloc", "proc_macro", "test"})
# Wrappers whose methods are rarely what a call means: `Box<Repo>` calls Repo's methods.
TRANSPARENT = frozenset({"Box", "Rc", "Arc", "RefCell", "Cell", "Mutex", "RwLock", "Cow", "Pin", "MutexGuard"})
# Prelude / std types: their names are never this crate's items unless defined here.
PRELUDE_TYPES = frozenset({
    "Vec", "String", "Option", "Result", "Box", "Rc", "Arc", "HashMap", "HashSet", "BTreeMap",
    "BTreeSet", "VecDeque", "Some", "None", "Ok", "Err", "Default", "Iterator", "From", "Into",
    "Clone", "Copy", "Debug", "Display", "PartialEq", "Eq", "PartialOrd", "Ord", "Hash", "Drop", "Send", "Sync",
    "Sized", "AsRef", "AsMut", "TryFrom", "TryInto", "ToString", "ToOwned", "IntoIterator", "Extend",
    "FromIterator", "DoubleEndedIterator", "ExactSizeIterator", "Fn", "FnMut", "FnOnce", "Deref", "DerefMut",
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "f32", "f64",
    "bool", "char", "str",
})
# Method names of std types and traits: an unknown receiver calling one of these makes
# no `missing` stub when the repository defines no such method (it is almost always std).
STD_METHODS = frozenset("""
unwrap expect unwrap_or unwrap_or_else unwrap_or_default ok err ok_or ok_or_else map map_err and_then
or_else is_some is_none is_ok is_err as_ref as_mut as_deref as_str as_bytes as_slice as_ptr clone
cloned copied to_string to_owned to_vec into into_iter iter iter_mut collect len is_empty push pop
insert remove get get_mut contains contains_key entry or_insert or_insert_with or_default extend
append clear first last split splitn trim starts_with ends_with join chars bytes lines parse
format fmt write write_str write_all flush read read_to_string next peekable enumerate zip filter
filter_map flat_map fold any all find position count sum max min rev take skip chain sort sort_by
sort_by_key dedup retain keys values lock borrow borrow_mut take replace swap set as_any downcast_ref
with_capacity capacity reserve truncate drain sort_unstable binary_search windows chunks to_lowercase
to_uppercase eq ne cmp partial_cmp hash await poll send recv spawn then unwrap_err expect_err
field finish debug_struct debug_tuple debug_list debug_map debug_set entries entry key value write_fmt
""".split())


@dataclass(slots=True)
class _Scope:
    """What a byte range of the file means for naming and resolution."""

    end: int
    kind: str  # file | mod | type | trait | impl | fn | const
    module: tuple[str, ...]  # the Rust module (full qn segments) the scope lives in
    prefix: tuple[str, ...]  # qn segments for items nested here
    source_qn: str  # the symbol that owns code written here
    source_sig: str
    owner: str | None = None  # `Self` (impl type or trait) qualified name
    generics: dict[str, list[TSNode]] = field(default_factory=dict)
    locals: dict[str, tuple[list[str], str]] = field(default_factory=dict)  # var -> (owner qns, how)
    is_test: bool = False


@dataclass(slots=True)
class _Alt:
    """One reading of a path: full qn segments, the resolution label, and whether it
    lies in this crate (so files can be guessed) or is external (no name fallback)."""

    segs: tuple[str, ...]
    how: str
    local: bool
    external: bool = False
    # `use mycrate::x` from tests/ or examples/: the first segment may be this
    # package's own name, so the rest is also tried inside this crate.
    own_crate: tuple[str, ...] | None = None
    guess: bool = False  # nothing in scope names it: only a plausible reading


_VERSION = re.compile(r"-\d+\.\d+(\.\d+)?([-+.][\w.]*)?$")


class _Layout:
    """Where a file sits in its crate: crate prefix, module path, `mod x;` directory."""

    def __init__(self, path: str) -> None:
        parts = path.split("/")
        dirs = parts[:-1]
        stem = parts[-1][:-3] if parts[-1].endswith(".rs") else parts[-1]
        if "src" in dirs:
            i = len(dirs) - 1 - dirs[::-1].index("src")
            crate_dir, rel = dirs[:i], dirs[i + 1:]
            self.src_dir = "/".join(dirs[: i + 1])
            root_file = not rel and stem in ("lib", "main")
            bin_root = rel == ["bin"]
        else:
            # tests/, examples/, benches/, build.rs: each file is its own crate root.
            k = next((j for j, d in enumerate(dirs) if d in ("tests", "examples", "benches")), None)
            crate_dir = dirs[:k] if k is not None else dirs
            rel = dirs[k:] if k is not None else []
            self.src_dir = "/".join(crate_dir + ["src"]) if crate_dir else "src"
            root_file = False
            bin_root = k is not None and len(rel) == 1
        # a crate directory is named after the crate, perhaps with its version
        # (`serde-1.0.210` in cargo's registry): `use serde::x` names it
        self.prefix: tuple[str, ...] = (_VERSION.sub("", crate_dir[-1]).replace("-", "_"),) if crate_dir else ()
        segs = list(rel) + ([] if root_file or stem == "mod" else [stem])
        self.module: tuple[str, ...] = self.prefix + tuple(s.replace("-", "_") for s in segs)
        self.is_root = root_file or bin_root or path.endswith("build.rs") and not rel
        here = "/".join(dirs)
        self.mod_dir = here if (self.is_root or stem == "mod") else (f"{here}/{stem}" if here else stem)

    def files_for(self, segs: tuple[str, ...]) -> list[str]:
        """Candidate files of module ``segs`` (full qn segments of this crate)."""
        rel = segs[len(self.prefix):]
        base = self.src_dir
        if not rel:
            return [f"{base}/lib.rs", f"{base}/main.rs"]
        p = "/".join(rel)
        return [f"{base}/{p}.rs", f"{base}/{p}/mod.rs"]


def module_qn(segs: tuple[str, ...]) -> str:
    return "::".join(segs) if segs else "crate"


class _Extractor:
    def __init__(self, repo: str, path: str, source: bytes) -> None:
        self.repo, self.path, self.src = repo, path, source
        self.layout = _Layout(path)
        self.symbols: list[SymbolRecord] = []
        self.refs: list[Reference] = []
        self.exports: dict[str, dict[str, Any]] = {}
        self.scope_of: dict[int, _Scope] = {}  # def node id -> scope it opens
        # per module (qn string): name -> full segs of items / modules defined in this file
        self.items: dict[str, dict[str, tuple[str, ...]]] = {}
        self.uses: dict[str, dict[str, _Alt]] = {}
        self.globs: dict[str, list[_Alt]] = {}
        self.fields: dict[str, dict[str, TSNode]] = {}  # type qn -> field -> type node
        self.aliases: dict[str, dict[str, TSNode]] = {}  # module -> alias -> type node
        self.test_file = self._is_test_path(path)
        self.seen: dict[tuple[str, str], SymbolRecord] = {}
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
        s = SymbolRecord(
            repo=self.repo, qualified_name=qn, signature_hash=ts.signature_hash(kind, qn, f"{sig_extra}{params}"),
            name=name, kind=kind, language=LANG, language_kind=node.type, file=self.path,
            line=ts.line(node), end_line=ts.end_line(node), visibility=visibility,
            content_hash=ts.content_hash(self.src[node.start_byte:node.end_byte]), signature=sig,
            docstring=doc, parent=parent,
        )
        return keep_once(self.seen, self.symbols, s)  # the same item under another #[cfg(...)]: one symbol

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
        fr, msgs = file_record(self.repo, self.path, LANG, self.src, root, self.test_file)
        mqn = module_qn(self.layout.module)
        fsym = SymbolRecord(
            repo=self.repo, qualified_name=mqn, signature_hash=ts.signature_hash("module", mqn, self.path),
            name=self.layout.module[-1] if self.layout.module else "crate", kind="module", language=LANG,
            language_kind="source_file", file=self.path, line=1, end_line=root.end_point[0] + 1,
            visibility="public", content_hash=fr.content_hash, parent=None,
        )
        self.symbols.append(fsym)
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
        return FileExtraction(file=fr, symbols=self.symbols, references=self.refs, exports=self.exports, errors=msgs)

    def _definitions(self, events: list[Event], decor: list[TSNode],
                     file_scope: _Scope) -> None:
        self._collect_names(events)
        self.resolved.clear()  # readings cached while `use`s were still being collected
        stack = [file_scope]
        pending: list[TSNode] = []
        k, nd = 0, len(decor)
        for start, _, _, cap, node in events:
            if cap == "use":
                continue
            if k < nd and decor[k].start_byte < start:
                while k < nd and decor[k].start_byte < start:
                    d = decor[k]
                    if pending and pending[-1].end_point[0] < d.start_point[0] - 1:
                        pending.clear()
                    pending.append(d)
                    k += 1
                self._decorate(node, pending)
            while stack[-1].end <= start:
                stack.pop()
            new = self._define(cap, node, stack[-1])
            if new is not None:
                self.scope_of[node.id] = new
                stack.append(new)

    def _collect_names(self, events: list[Event]) -> None:
        """Module-level item names, type aliases and `use` bindings, before anything is
        resolved: Rust items are visible throughout their module regardless of order."""
        stack: list[tuple[int, str, tuple[str, ...]]] = [(len(self.src) + 1, "mod", self.layout.module)]
        uses: list[tuple[TSNode, tuple[str, ...], bool]] = []
        for start, _, _, cap, node in events:
            while stack[-1][0] <= start:
                stack.pop()
            kind, module = stack[-1][1], stack[-1][2]
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
                    stack.append((node.end_byte, "mod", module + (name,)))
            else:
                stack.append((node.end_byte, "item", module))
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

    # -- paths and types -----------------------------------------------------------
    def _path_segments(self, node: TSNode | None) -> tuple[str, ...]:
        if node is None:
            return ()
        t = node.type
        if t in ("identifier", "type_identifier", "crate", "self", "super", "metavariable", "field_identifier"):
            return (self._t(node),)
        if t in ("scoped_identifier", "scoped_type_identifier"):
            p = node.child_by_field_name("path")
            n = node.child_by_field_name("name")
            return self._path_segments(p) + ((self._t(n),) if n is not None else ())
        if t == "generic_type":
            return self._path_segments(node.child_by_field_name("type"))
        if t == "bracketed_type":
            inner = node.named_children[0] if node.named_children else None
            if inner is not None and inner.type == "qualified_type":
                alias = inner.child_by_field_name("alias")
                return self._path_segments(alias if alias is not None else inner.child_by_field_name("type"))
            return self._path_segments(inner)
        if t == "generic_function":
            return self._path_segments(node.child_by_field_name("function"))
        return ()

    def _type_segments(self, node: TSNode | None) -> tuple[str, ...] | None:
        """The nominal type a type expression names, unwrapping references and smart
        pointers; None for primitives, tuples, arrays, function types."""
        while node is not None:
            t = node.type
            if t in ("reference_type", "pointer_type"):
                node = node.child_by_field_name("type")
            elif t in ("dynamic_type", "abstract_type"):
                node = node.child_by_field_name("trait")
            elif t == "trait_bounds" or t == "bounded_type":
                node = next((c for c in node.named_children if c.type != "lifetime"), None)
            elif t == "generic_type":
                base = self._path_segments(node.child_by_field_name("type"))
                args = node.child_by_field_name("type_arguments")
                if base and base[-1] in TRANSPARENT and args is not None and args.named_children:
                    node = args.named_children[0]
                else:
                    return base or None
            elif t in ("type_identifier", "scoped_type_identifier"):
                return self._path_segments(node)
            else:
                return None
        return None

    def _resolve(self, segs: tuple[str, ...], sc: _Scope, use_path: bool = False) -> list[_Alt]:
        """Readings of a written path, most likely first (cached per module and Self)."""
        if not segs:
            return []
        key = (segs, sc.module, sc.owner, use_path)
        hit = self.resolved.get(key)
        if hit is None:
            hit = self.resolved[key] = self._resolve_uncached(segs, sc, use_path)
        return hit

    def _resolve_uncached(self, segs: tuple[str, ...], sc: _Scope, use_path: bool) -> list[_Alt]:
        first, rest = segs[0], segs[1:]
        module = sc.module
        if first == "crate":
            return [_Alt(self.layout.prefix + rest, "exact", True)]
        if first == "self":
            return [_Alt(module + rest, "same_module", True)]
        if first == "super":
            m = module
            while segs and segs[0] == "super":
                m = m[:-1] if len(m) > len(self.layout.prefix) else m
                segs = segs[1:]
            return [_Alt(m + segs, "import", True)]
        if first == "Self" and sc.owner:
            return [_Alt(tuple(sc.owner.split("::")) + rest, "self", True)]
        if first in EXTERNAL_CRATES:
            return [_Alt(segs, "import", False, external=True)]
        if not use_path:
            m: tuple[str, ...] | None = module
            while m is not None:
                mq = module_qn(m)
                u = self.uses.get(mq, {}).get(first)
                if u is not None:
                    out = [_Alt(u.segs + rest, "import", u.local, u.external)]
                    if u.own_crate is not None:
                        out.append(_Alt(u.own_crate + rest, "import", True))
                    return out
                local = self.items.get(mq, {}).get(first)
                if local is not None:
                    return [_Alt(local + rest, "same_module", True)]
                alias = self.aliases.get(mq, {}).get(first)
                if alias is not None and not rest:
                    aseg = self._type_segments(alias)
                    if aseg and aseg != segs:
                        return self._resolve(aseg, sc)
                # names of enclosing inline modules are not in scope in Rust, but
                # `#[cfg(test)] mod tests { use super::*; }` makes the parent's visible.
                if any(g.segs == m[:-1] for g in self.globs.get(mq, [])) and len(m) > len(self.layout.prefix):
                    m = m[:-1]
                else:
                    m = None
        if first in PRELUDE_TYPES:
            return [_Alt(segs, "import", False, external=True)]
        # 2018 paths: an extern crate (a workspace sibling) or an item of this module.
        alts = [_Alt(module + segs, "same_module", True, guess=True)]
        if len(segs) > 1 or use_path:
            alts.append(_Alt(segs, "import", False, guess=True))
        for g in self.globs.get(module_qn(module), []):
            alts.append(_Alt(g.segs + segs, "import", g.local, g.external, guess=True))
        return alts

    def _owners_of_type(self, tnode: TSNode | None, sc: _Scope) -> list[_Alt]:
        """Readings of the nominal type a type expression names (generic parameters
        stand for their bounds)."""
        segs = self._type_segments(tnode)
        if not segs:
            return []
        if len(segs) == 1 and segs[0] in sc.generics:
            out: list[_Alt] = []
            for b in sc.generics[segs[0]]:
                out.extend(self._owners_of_type(b, sc))
            return out
        return self._resolve(segs, sc)

    def _owner_candidates(self, owners: list[_Alt], member: str, how: str) -> list[dict[str, Any]]:
        """Member lookups on each reading of a receiver type, directly and through the
        re-export (`pub use`) that may be the only place the type is named."""
        out: list[dict[str, Any]] = []
        n = len(self.layout.prefix)
        for a in owners:
            out.append({"owner": "::".join(a.segs), "member": member, "how": how})
            if a.local and len(a.segs) > n:
                out.append({"owner_export": {"file": self.layout.files_for(a.segs[:-1]), "export": a.segs[-1]},
                            "member": member, "how": how})
        return out

    # -- references ----------------------------------------------------------------
    def _ref(
        self, rtype: str, source_qn: str, source_sig: str, target: str, node: TSNode,
        candidates: list[dict[str, Any]], *, source_kind: str = "symbol", name: str | None = None,
        name_kinds: list[str] | None = None, optional: bool = False, **extra: Any,
    ) -> None:
        ex = ref_extra(candidates, name, name_kinds, optional, extra)
        self.refs.append(Reference(rtype, source_qn, target, self.path, ts.line(node), source_sig, source_kind, ex))

    def _impl_refs(self, node: TSNode, impl: _Scope, outer: _Scope) -> None:
        trait = impl.generics.get("__trait__")
        if not trait or not impl.owner:
            return
        tsegs = self._type_segments(trait[0])
        if not tsegs or impl.owner == "::".join(self._resolve(tsegs, outer)[0].segs):
            return
        # `impl Display for X` stays an edge (to a stub): "who implements Display" is a
        # fair question; `external` tells the triage list it is the standard library's
        ext = self._is_external(tsegs, outer)
        extra: dict[str, Any] = {"external": "std"} if ext else {}
        self._ref(IMPLEMENTS, impl.owner, "", "::".join(tsegs), node, self._item_candidates(tsegs, outer),
                  name=None if ext else tsegs[-1], name_kinds=["trait"], **extra)

    def _supertraits(self, node: TSNode, scope: _Scope) -> None:
        bounds = node.child_by_field_name("bounds")
        if bounds is None:
            return
        for b in bounds.named_children:
            segs = self._type_segments(b)
            if not segs:
                continue
            self._ref(EXTENDS, scope.source_qn, scope.source_sig, "::".join(segs), b,
                      self._item_candidates(segs, scope),
                      name=None if self._is_external(segs, scope) else segs[-1], name_kinds=["trait"])

    def _is_external(self, segs: tuple[str, ...], sc: _Scope) -> bool:
        alts = self._resolve(segs, sc)
        return bool(alts) and all(a.external for a in alts)

    def _item_candidates(self, segs: tuple[str, ...], sc: _Scope) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for a in self._resolve(segs, sc):
            out.append({"qn": "::".join(a.segs), "how": a.how})
            if a.local and len(a.segs) > len(self.layout.prefix):
                out.append({"file": self.layout.files_for(a.segs[:-1]), "export": a.segs[-1], "how": a.how})
        return out

    def _member_candidates(self, segs: tuple[str, ...], sc: _Scope) -> list[dict[str, Any]]:
        """`A::b` where A may be a type (associated fn, trait method via IMPLEMENTS) or a
        module (free function, re-exported or not)."""
        out: list[dict[str, Any]] = []
        for a in self._resolve(segs, sc):
            full, how = a.segs, a.how
            out.append({"qn": "::".join(full), "how": how})
            if len(full) >= 2:
                out.append({"owner": "::".join(full[:-1]), "member": full[-1], "how": how})
            if a.local and len(full) > len(self.layout.prefix) + 1:
                out.append({"owner_export": {"file": self.layout.files_for(full[:-2]), "export": full[-2]},
                            "member": full[-1], "how": how})
            if a.local and len(full) > len(self.layout.prefix):
                out.append({"file": self.layout.files_for(full[:-1]), "export": full[-1], "how": how})
        return out

    def _self_alt(self, sc: _Scope) -> list[_Alt]:
        return [_Alt(tuple(sc.owner.split("::")), "self", True)] if sc.owner else []

    def _params(self, fn: TSNode, sc: _Scope) -> None:
        params = fn.child_by_field_name("parameters")
        if params is None:
            return
        for p in params.named_children:
            if p.type == "self_parameter" and sc.owner:
                sc.locals["self"] = (self._self_alt(sc), "self")
            elif p.type == "parameter":
                pat = p.child_by_field_name("pattern")
                if pat is not None and pat.type == "mut_pattern" and pat.named_children:
                    pat = pat.named_children[-1]
                if pat is not None and pat.type == "identifier":
                    owners = self._owners_of_type(p.child_by_field_name("type"), sc)
                    sc.locals[self._t(pat)] = (owners, "receiver_type" if owners else "")

    def _let(self, node: TSNode, sc: _Scope) -> None:
        pat = node.child_by_field_name("pattern")
        if pat is None or sc.kind != "fn":
            return
        if pat.type == "mut_pattern" and pat.named_children:
            pat = pat.named_children[-1]
        if pat.type != "identifier":
            return
        tnode = node.child_by_field_name("type")
        if tnode is not None:
            owners = self._owners_of_type(tnode, sc)
            how = "receiver_type"
        else:
            owners, how = self._expr_owners(node.child_by_field_name("value"), sc)
        sc.locals[self._t(pat)] = (owners, how if owners else "")

    def _expr_owners(self, node: TSNode | None, sc: _Scope) -> tuple[list[_Alt], str]:
        """Readings of the type an expression evaluates to, when visible in the code."""
        while node is not None and node.type in ("try_expression", "reference_expression", "parenthesized_expression",
                                                 "await_expression"):
            node = node.named_children[-1] if node.type == "reference_expression" else (
                node.named_children[0] if node.named_children else None)
        if node is None:
            return [], ""
        t = node.type
        if t == "self":
            return self._self_alt(sc), "self"
        if t == "identifier":
            v = sc.locals.get(self._t(node))
            return (list(v[0]), v[1]) if v else ([], "")
        if t == "struct_expression":
            segs = self._path_segments(node.child_by_field_name("name"))
            if segs == ("Self",):
                return self._self_alt(sc), "self"
            return self._resolve(segs, sc), "receiver_type"
        if t == "call_expression":
            fn = node.child_by_field_name("function")
            if fn is not None and fn.type == "field_expression":
                meth = self._t(fn.child_by_field_name("field"))
                if meth in ("unwrap", "expect", "clone", "unwrap_or_default", "to_owned"):
                    return self._expr_owners(fn.child_by_field_name("value"), sc)
                return [], ""
            segs = self._path_segments(fn)
            # `Type::new()` and friends: an associated function of an (upper-case) type
            # returns that type far more often than not.
            if len(segs) >= 2 and segs[-2][:1].isupper():
                if segs[-2] == "Self":
                    return self._self_alt(sc), "self"
                return self._resolve(segs[:-1], sc), "receiver_type"
            return [], ""
        if t == "field_expression":
            base, _ = self._expr_owners(node.child_by_field_name("value"), sc)
            fname = self._t(node.child_by_field_name("field"))
            for b in base:
                ftype = self.fields.get("::".join(b.segs), {}).get(fname)
                if ftype is not None:
                    owners = self._owners_of_type(ftype, sc)
                    if owners:
                        return owners, "receiver_type"
            return [], ""
        return [], ""

    def _call(self, node: TSNode, sc: _Scope) -> None:
        fn = node.child_by_field_name("function")
        if fn is None:
            return
        if fn.type == "generic_function":
            fn = fn.child_by_field_name("function")
            if fn is None:
                return
        if fn.type == "field_expression":
            recv = fn.child_by_field_name("value")
            meth = self._t(fn.child_by_field_name("field"))
            if not meth or meth.isdigit():
                return
            self._method_call(node, recv, meth, sc)
            return
        if fn.type in ("identifier", "scoped_identifier"):
            segs = self._path_segments(fn)
            if not segs:
                return
            self._path_call(node, segs, self._t(fn), sc)

    def _path_call(self, node: TSNode, segs: tuple[str, ...], written: str, sc: _Scope) -> None:
        if len(segs) == 1:
            name = segs[0]
            if name in sc.locals:
                return  # calling a closure or fn pointer held in a local
            if name in PRELUDE_TYPES:
                return  # Some(x), Ok(x), Err(e)
            cands: list[dict[str, Any]] = []
            if sc.kind == "fn":
                # a nested fn declared in this function body
                cands.append({"qn": sc.source_qn + "::" + name, "how": "same_module"})
            if self._is_external(segs, sc):
                return  # `use std::mem::swap; swap(..)`
            cands += self._item_candidates(segs, sc)
            self._ref(CALLS, sc.source_qn, sc.source_sig, written, node, cands, name=name,
                      name_kinds=["function"])
            return
        if self._is_external(segs, sc):
            return  # std / core / prelude (`Vec::new`, `std::mem::take`): outside any repository
        cands = self._member_candidates(segs, sc)
        self._ref(CALLS, sc.source_qn, sc.source_sig, written, node, cands,
                  name=segs[-1], name_kinds=["function", "method", "field"])

    def _method_call(self, node: TSNode, recv: TSNode | None, meth: str, sc: _Scope) -> None:
        owners, how = self._expr_owners(recv, sc)
        std = meth in STD_METHODS
        if owners and not all(o.guess for o in owners):
            if all(o.external for o in owners):
                return  # a method of a std type (`f: &mut fmt::Formatter`, `f.write_str(..)`)
            # a stub is named after the receiver's type, so one missing method of one
            # type is one stub however its receivers are called
            written = f"{owners[0].segs[-1]}::{meth}"
            self._ref(CALLS, sc.source_qn, sc.source_sig, written, node,
                      self._owner_candidates(owners, meth, how), optional=std, name=None)
            return
        rtext = self._t(recv) if recv is not None else "?"
        written = f"{rtext}.{meth}" if len(rtext) <= 40 and "\n" not in rtext else f"?.{meth}"
        # unknown receiver (or a type nothing in scope names): the unique method of
        # that name in the repository, else an ambiguous / missing stub; std method names
        # (`clone`, `iter`, `unwrap`) on an unknown receiver are almost always std calls,
        # so they take no name fallback
        self._ref(CALLS, sc.source_qn, sc.source_sig, written, node,
                  self._owner_candidates(owners, meth, how), name=None if std else meth, name_kinds=["method"],
                  optional=std)

    def _macro_calls(self, tt: TSNode, sc: _Scope) -> None:
        """Calls written inside macro arguments (`assert_eq!(parse(x), y)`, `vec![Repo::new()]`):
        tree-sitter leaves them as token trees, so scan tokens for `path(` and `recv.m(`."""
        toks = tt.children
        n = len(toks)
        i = 0
        while i < n:
            tok = toks[i]
            if tok.type == "token_tree":
                if not (i > 0 and toks[i - 1].type == "#"):  # `#[cfg(x)]` inside a macro: no calls
                    self._macro_calls(tok, sc)
                i += 1
                continue
            if tok.type in ("identifier", "self", "crate", "super") and (i == 0 or toks[i - 1].type != "."):
                segs = [self._t(tok)]
                j = i + 1
                while j + 1 < n and toks[j].type == "::" and toks[j + 1].type in ("identifier", "super", "self"):
                    segs.append(self._t(toks[j + 1]))
                    j += 2
                if j < n and toks[j].type == "token_tree" and self._t(toks[j]).startswith("("):
                    if segs[-1] not in ("self", "super", "crate") and not (i > 0 and toks[i - 1].type == "!"):
                        self._path_call(toks[i], tuple(segs), "::".join(segs), sc)
                    i = j
                    continue
                # `recv.method(` with recv a single identifier or self
                if (len(segs) == 1 and j + 2 < n and toks[j].type == "." and toks[j + 1].type == "identifier"
                        and toks[j + 2].type == "token_tree" and self._t(toks[j + 2]).startswith("(")):
                    meth = self._t(toks[j + 1])
                    self._method_call(toks[j + 1], tok, meth, sc)
                    i = j + 2
                    continue
                i = j
                continue
            i += 1


def extract(repo: str, path: str, source: bytes) -> FileExtraction:
    """Extract one Rust file: symbols, IMPORTS (`mod x;`, `use`), CALLS, IMPLEMENTS
    (`impl Trait for Type`, Type -> Trait), EXTENDS (supertraits). Never raises on
    syntax errors (coverage says how much parsed)."""
    return _Extractor(repo, path, source).run()

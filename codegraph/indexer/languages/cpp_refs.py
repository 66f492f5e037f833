"""C/C++ extractor, references: base classes, typed locals and parameters, CALLS of
free, qualified and member functions and constructors. A mixin of ``cpp._Extractor``.
"""


from __future__ import annotations

from typing import Any

from tree_sitter import Node as TSNode

from codegraph.core.models import CALLS, EXTENDS
from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages.cpp_model import (
    EXTERNAL_NS,
    LIBC,
    MAKERS,
    NOT_CALLS,
    STL_METHODS,
    _call_arity,
    _Scope,
)
from codegraph.indexer.languages.skeleton import hints
from codegraph.indexer.overloads import call_arguments, literal_types


class _References:
    """Reference methods of ``cpp._Extractor``."""

    # -- references ----------------------------------------------------------------
    def _ref(self, rtype: str, sc: _Scope, target: str, node: TSNode, cands: list[dict[str, Any]], *,
             name: str | None = None, name_kinds: list[str] | None = None, optional: bool = False) -> None:
        ex = hints(cands, name, name_kinds, optional)
        if rtype == CALLS and self.lang == "cpp":
            n = _call_arity(node)
            if n is not None:
                ex["arity"] = n  # the resolver keeps the overloads this many arguments fit
                kinds = literal_types(call_arguments(node)) if node.type != "init_declarator" else []
                if any(kinds):
                    ex["arg_types"] = kinds  # and those these literal arguments can go to
        self.b.reference(rtype, sc.source_qn, sc.source_sig, target, node, ex)

    def _bases(self, node: TSNode, sc: _Scope, outer: _Scope) -> None:
        for c in node.named_children:
            if c.type != "base_class_clause":
                continue
            for b in c.named_children:
                if b.type == "access_specifier":
                    continue
                segs = self._type_segments(b)
                if not segs:
                    continue
                self._ref(EXTENDS, sc, "::".join(segs), b, self._qn_candidates(segs, outer),
                          name=segs[-1], name_kinds=["class", "struct"])

    def _param(self, node: TSNode, sc: _Scope) -> None:
        if sc.kind != "fn":
            return
        d = node.child_by_field_name("declarator")
        name = self._declared_name(d)
        if name:
            sc.locals[name] = node.child_by_field_name("type")

    @staticmethod
    def _declared_name(d: TSNode | None) -> str:
        while d is not None and d.type not in ("identifier", "field_identifier"):
            nxt = d.child_by_field_name("declarator")
            if nxt is None and d.named_children:
                nxt = next((c for c in d.named_children if c.type in ("identifier",) or c.type.endswith("declarator")),
                           None)
            d = nxt
        return ts.text(d) if d is not None else ""

    def _declaration(self, node: TSNode, sc: _Scope) -> None:
        tnode = node.child_by_field_name("type")
        for d in node.children_by_field_name("declarator"):
            if d.type == "function_declarator":
                continue  # a prototype
            name = self._declared_name(d)
            value = d.child_by_field_name("value") if d.type == "init_declarator" else None
            ttype = tnode
            if tnode is not None and tnode.type == "placeholder_type_specifier" and value is not None:
                ttype = self._expr_type_node(value)
            if sc.kind == "fn" and name:
                sc.locals[name] = ttype
            if self.lang == "cpp" and value is not None and value.type in ("argument_list", "initializer_list"):
                self._construct(tnode, d, sc)

    def _expr_type_node(self, value: TSNode) -> TSNode | None:
        if value.type == "new_expression":
            return value.child_by_field_name("type")
        if value.type == "call_expression":
            fn = value.child_by_field_name("function")
            if fn is not None:
                segs = self._qual_segments(fn)
                if segs and segs[-1] in MAKERS:
                    inner = fn
                    while inner is not None and inner.type == "qualified_identifier":
                        inner = inner.child_by_field_name("name")
                    args = inner.child_by_field_name("arguments") if inner is not None else None
                    if args is not None and args.named_children:
                        return args.named_children[0]
                if segs and segs[-1][:1].isupper() and fn.type in ("identifier", "qualified_identifier"):
                    return fn  # Foo(1): a temporary of class Foo
        return None

    def _construct(self, tnode: TSNode | None, at: TSNode, sc: _Scope) -> None:
        segs = self._type_segments(tnode)
        if not segs:
            return
        written = "::".join(segs)
        self._ref(CALLS, sc, written, at, self._qn_candidates(segs, sc), name=segs[-1],
                  name_kinds=["class", "struct"])
        self._ref(CALLS, sc, f"{written}::{segs[-1]}", at, self._owner_candidates(segs, sc, segs[-1], "exact"),
                  optional=True)

    def _new(self, node: TSNode, sc: _Scope) -> None:
        self._construct(node.child_by_field_name("type"), node, sc)

    def _call(self, node: TSNode, sc: _Scope) -> None:
        fn = node.child_by_field_name("function")
        if fn is None:
            return
        t = fn.type
        if t in ("identifier", "template_function"):
            n = fn if t == "identifier" else fn.child_by_field_name("name")
            if ts.text(n) in NOT_CALLS:
                return
        if t == "identifier":
            self._free_call(node, fn, (ts.text(fn),), sc)
        elif t in ("qualified_identifier", "template_function"):
            segs = self._qual_segments(fn)
            if segs and segs[-1] in MAKERS and segs[0] in ("std", "boost") or segs == ("make_unique",) \
                    or segs == ("make_shared",):
                inner = fn
                while inner is not None and inner.type == "qualified_identifier":
                    inner = inner.child_by_field_name("name")
                args = inner.child_by_field_name("arguments") if inner is not None else None
                if args is not None and args.named_children:
                    self._construct(args.named_children[0], node, sc)
                return
            if not segs:
                return
            if len(segs) == 1:
                self._free_call(node, fn, segs, sc)
            else:
                self._qualified_call(node, segs, sc)
        elif t == "field_expression" and self.lang == "cpp":
            self._member_call(node, fn, sc)

    def _free_call(self, node: TSNode, fn: TSNode, segs: tuple[str, ...], sc: _Scope) -> None:
        name = segs[0]
        if name in sc.locals:
            return  # a lambda or function pointer held in a local
        cands: list[dict[str, Any]] = []
        if sc.owner:
            cands.append({"owner": sc.owner, "member": name, "how": "self"})
        cands += self._qn_candidates(segs, sc)
        # the C library: an edge when the repository defines the name, never a stub
        libc = name in LIBC
        if self.lang == "c":
            self._ref(CALLS, sc, name, node, cands, optional=libc)
            return
        self._ref(CALLS, sc, name, node, cands, name=name, name_kinds=["function"], optional=libc)
        if name[:1].isupper():  # Foo(1) may construct a Foo
            self._ref(CALLS, sc, f"{name}::{name}", node, self._owner_candidates(segs, sc, name, "exact"),
                      optional=True)

    def _qualified_call(self, node: TSNode, segs: tuple[str, ...], sc: _Scope) -> None:
        written = "::".join(segs)
        if segs[0] in EXTERNAL_NS:
            return  # std::sort, boost::...: outside any repository
        cands = self._qn_candidates(segs, sc)
        cands += self._owner_candidates(segs[:-1], sc, segs[-1], "exact")
        self._ref(CALLS, sc, written, node, cands, name=segs[-1], name_kinds=["function", "method"])

    def _member_call(self, node: TSNode, fn: TSNode, sc: _Scope) -> None:
        recv = fn.child_by_field_name("argument")
        f = fn.child_by_field_name("field")
        if f is None:
            return
        meth = self._qual_segments(f)
        if not meth:
            return
        m = meth[-1]
        rtext = ts.text(recv) if recv is not None else "?"
        op = "->" if any(c.type == "->" for c in fn.children) else "."
        written = f"{rtext}{op}{m}" if len(rtext) <= 40 and "\n" not in rtext else f"?{op}{m}"
        if recv is not None and recv.type == "this" and sc.owner:
            self._ref(CALLS, sc, written, node, [{"owner": sc.owner, "member": m, "how": "self"}])
            return
        segs = self._receiver_type(recv, sc)
        stl = m in STL_METHODS
        if segs:
            self._ref(CALLS, sc, written, node, self._owner_candidates(segs, sc, m, "receiver_type"),
                      optional=stl)
            return
        if not stl:  # STL names on an unknown receiver are almost always STL calls
            self._ref(CALLS, sc, written, node, [], name=m, name_kinds=["method"])

    def _receiver_type(self, recv: TSNode | None, sc: _Scope) -> tuple[str, ...] | None:
        if recv is None:
            return None
        while recv.type in ("parenthesized_expression", "pointer_expression") and recv.named_children:
            recv = recv.named_children[-1]
        if recv.type == "identifier":
            name = ts.text(recv)
            if name in sc.locals:
                return self._type_segments(sc.locals[name])
            if sc.owner:
                ftype = self.fields.get(sc.owner, {}).get(name)
                if ftype is not None:
                    return self._type_segments(ftype)
            return None
        if recv.type == "field_expression":
            base = recv.child_by_field_name("argument")
            fname = ts.text(recv.child_by_field_name("field"))
            owner: str | None = None
            if base is not None and base.type == "this":
                owner = sc.owner
            else:
                bsegs = self._receiver_type(base, sc)
                if bsegs:
                    owner = next((q for q in ("::".join(p + bsegs) for p in self._chain(sc)) if q in self.fields),
                                 None)
            if owner:
                ftype = self.fields.get(owner, {}).get(fname)
                if ftype is not None:
                    return self._type_segments(ftype)
        return None

"""Rust extractor, references: IMPLEMENTS / EXTENDS of impls and traits, typed
locals, CALLS of paths, methods and macro arguments. A mixin of ``rust._Extractor``.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TSNode

from codegraph.core.models import CALLS, EXTENDS, IMPLEMENTS
from codegraph.indexer.languages.rust_model import (
    PRELUDE_TYPES,
    STD_METHODS,
    _Alt,
    _Scope,
)
from codegraph.indexer.languages.skeleton import hints


class _References:
    """Reference methods of ``rust._Extractor``."""


    # -- references ----------------------------------------------------------------
    def _ref(
        self, rtype: str, source_qn: str, source_sig: str, target: str, node: TSNode,
        candidates: list[dict[str, Any]], *, source_kind: str = "symbol", name: str | None = None,
        name_kinds: list[str] | None = None, optional: bool = False, **extra: Any,
    ) -> None:
        self.b.reference(rtype, source_qn, source_sig, target, node, hints(candidates, name, name_kinds, optional, extra),
                         source_kind)

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

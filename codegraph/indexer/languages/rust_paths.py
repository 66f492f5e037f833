"""Rust extractor, paths and types: reading path / type nodes into qualified-name
segments and resolving them against the module's items, ``use`` bindings and globs.
A mixin of ``rust._Extractor`` (its state lives there).
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TSNode

from codegraph.indexer.languages.rust_model import (
    EXTERNAL_CRATES,
    PRELUDE_TYPES,
    TRANSPARENT,
    _Alt,
    _Scope,
    module_qn,
)


class _Paths:
    """Path and type resolution methods of ``rust._Extractor``."""


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

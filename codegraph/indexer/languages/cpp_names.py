"""C/C++ extractor, imports and names: ``#include`` / ``using`` and reading qualified
names and types into candidate targets. A mixin of ``cpp._Extractor``.
"""


from __future__ import annotations

import posixpath
from typing import Any

from tree_sitter import Node as TSNode

from codegraph.core.models import IMPORTS
from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages.cpp_model import (
    EXTERNAL_NS,
    SMART_POINTERS,
    _Scope,
)


class _Names:
    """Include, using and name-lookup methods of ``cpp._Extractor``."""

    # -- imports -------------------------------------------------------------------
    def _include(self, node: TSNode) -> None:
        p = node.child_by_field_name("path")
        if p is None:
            return
        raw = ts.text(p)
        system = p.type == "system_lib_string"
        inc = raw.strip("<>\"")
        if not inc or inc.startswith("/"):
            return
        here = posixpath.dirname(self.path)
        cands: list[str] = []
        # the including file's directory (quoted includes only), then the include roots a
        # build would pass with -I: each ancestor directory and its include/ folder,
        # nearest first (`proj/include/lib/x.h` from `proj/src/`)
        dirs = [here]
        while dirs[-1]:
            dirs.append(posixpath.dirname(dirs[-1]))
        for d in dirs:
            if d != here or not system:
                cands.append(posixpath.normpath(posixpath.join(d, inc)))
            cands.append(posixpath.normpath(posixpath.join(d, "include", inc)))
        for root in ("src", "lib"):
            cands.append(f"{root}/{posixpath.normpath(inc)}")
        cands = [c for c in dict.fromkeys(cands) if not c.startswith("..") and c != self.path]
        if not system:
            self.include_paths.extend(cands)  # where static inline helpers may come from
        self.b.file_reference(IMPORTS, raw if system else inc, node,
                              {"candidates": [{"path": c, "how": "import"} for c in cands], "names": [inc]})

    def _using(self, node: TSNode) -> None:
        is_ns = any(c.type == "namespace" for c in node.children)
        target = next((c for c in node.named_children), None)
        if target is None:
            return
        segs = tuple(s for s in ts.text(target).replace(" ", "").split("::") if s)
        if not segs:
            return
        if is_ns:
            self.using_ns.append(segs)
        else:
            self.using_decl[segs[-1]] = segs

    # -- names ---------------------------------------------------------------------
    def _chain(self, sc: _Scope) -> list[tuple[str, ...]]:
        """Naming contexts to look a name up in, innermost first."""
        return [sc.lookup[:k] for k in range(len(sc.lookup), -1, -1)]

    def _qual_segments(self, node: TSNode | None) -> tuple[str, ...]:
        if node is None:
            return ()
        t = node.type
        if t in ("identifier", "type_identifier", "namespace_identifier", "field_identifier", "primitive_type"):
            return (ts.text(node),)
        if t == "template_type" or t == "template_function":
            return self._qual_segments(node.child_by_field_name("name"))
        if t == "qualified_identifier":
            scope = node.child_by_field_name("scope")
            head = self._qual_segments(scope) if scope is not None else ()
            return head + self._qual_segments(node.child_by_field_name("name"))
        if t == "destructor_name":
            return ("~" + ts.text(node).lstrip("~").strip(),)
        return ()

    def _type_segments(self, tnode: TSNode | None, depth: int = 0) -> tuple[str, ...] | None:
        """The class a type names, through smart pointers and aliases; None for
        primitives and std containers."""
        if tnode is None or depth > 5:
            return None
        t = tnode.type
        if t in ("primitive_type", "sized_type_specifier", "placeholder_type_specifier"):
            return None
        if t in ("struct_specifier", "class_specifier", "union_specifier"):
            n = tnode.child_by_field_name("name")
            return self._qual_segments(n) or None
        if t == "type_descriptor":
            return self._type_segments(tnode.child_by_field_name("type"), depth + 1)
        tmpl = tnode
        if t == "qualified_identifier":
            inner = tnode
            while inner is not None and inner.type == "qualified_identifier":
                inner = inner.child_by_field_name("name")
            tmpl = inner if inner is not None else tnode
        if tmpl.type == "template_type":
            name = ts.text(tmpl.child_by_field_name("name"))
            args = tmpl.child_by_field_name("arguments")
            if name in SMART_POINTERS and args is not None and args.named_children:
                return self._type_segments(args.named_children[0], depth + 1)
        segs = self._qual_segments(tnode)
        if not segs:
            return None
        if segs[0] in EXTERNAL_NS:
            return None
        if len(segs) == 1 and segs[0] in self.aliases:
            return self._type_segments(self.aliases[segs[0]], depth + 1)
        return segs

    def _owner_candidates(self, segs: tuple[str, ...], sc: _Scope, member: str, how: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"owner": "::".join(p + segs), "member": member, "how": how}
                                     for p in self._chain(sc)]
        out += [{"owner": "::".join(u + segs), "member": member, "how": "import"} for u in self.using_ns
                if u[0] not in EXTERNAL_NS]
        if self.lang == "c" or (not self.is_header and len(segs) == 1):
            out.insert(0, {"owner": "::".join((self.path,) + segs), "member": member, "how": how})
        return out

    def _qn_candidates(self, segs: tuple[str, ...], sc: _Scope) -> list[dict[str, Any]]:
        """Qualified names a written name may mean here, most specific first (cached:
        the same names recur all over a file)."""
        key = (segs, sc.lookup)
        hit = self.cand_cache.get(key)
        if hit is None:
            hit = self.cand_cache[key] = self._qn_candidates_uncached(segs, sc)
        return hit

    def _qn_candidates_uncached(self, segs: tuple[str, ...], sc: _Scope) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if len(segs) == 1:
            out.append({"qn": self._file_private(segs[0]), "how": "same_module"})
            if segs[0] in self.using_decl:
                out.append({"qn": "::".join(self.using_decl[segs[0]]), "how": "import"})
        for p in self._chain(sc):
            out.append({"qn": "::".join(p + segs), "how": "same_module" if p else "exact"})
        for u in self.using_ns:
            if u[0] not in EXTERNAL_NS:
                out.append({"qn": "::".join(u + segs), "how": "import"})
        if len(segs) == 1:
            for inc in self.include_paths:  # static inline functions of included headers
                out.append({"qn": f"{inc}::{segs[0]}", "how": "import"})
        return out

"""Python imports: module and ``from`` imports bound in their scope, IMPORTS references,
relative-import arithmetic, the module's re-exports and star imports
(docs/DESIGN.md#resolution)."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Any

from tree_sitter import Node

from codegraph.core.models import IMPORTS
from codegraph.indexer.languages.python.common import (
    F_ALIAS,
    F_MODULE_NAME,
    F_NAME,
    _child_stems,
    _paths,
    _qjoin,
)

if TYPE_CHECKING:
    from codegraph.indexer.languages.python.scopes import _Scope


class ImportsMixin:
    """Import handling of the Python extractor."""

    def abs_stems(self, qn: str) -> list[str]:
        """Where an absolute module may live; ``src/`` layouts checked too (first when the
        importing file is itself under ``src/``)."""
        base = qn.replace(".", "/")
        return [f"src/{base}", base] if self.under_src else [base, f"src/{base}"]

    def relative(self, level: int, parts: list[str]) -> tuple[str, list[str]] | None:
        """(module qn, stems) of ``from <level dots><parts> import``; None above the top.
        The qn is "" for the repository root (a folder of top-level modules)."""
        pkg = self.module.split(".") if self.is_init else self.module.split(".")[:-1]
        d = self.dir
        for _ in range(level - 1):
            if not d:
                return None
            pkg = pkg[:-1]
            d = posixpath.dirname(d)
        return ".".join(pkg + parts), ["/".join(x for x in [d, *parts] if x)]

    def on_import(self, n: Node) -> None:
        sc = self.scope_at(n.start_byte)
        line = n.start_point[0] + 1
        top = sc.kind == "module"
        if n.type == "import_statement":
            for c in n.named_children:
                if c.type == "aliased_import":
                    dn = c.child_by_field_id(F_NAME)
                    alias = c.child_by_field_id(F_ALIAS)
                    qn = self.text(dn)
                    stems = self.abs_stems(qn)
                    if alias is not None:
                        sc.bind(self.text(alias), ("mod", qn, stems))
                        if top:  # ``import posixpath as path``: the module re-exports a module
                            self.export_module(self.text(alias), _paths(stems))
                elif c.type == "dotted_name":
                    qn = self.text(c)
                    stems = self.abs_stems(qn)
                    head = qn.split(".", 1)[0]
                    sc.bind(head, ("mod", head, self.abs_stems(head)))
                else:
                    continue
                cands: list[dict[str, Any]] = [{"path": p, "how": "import"} for p in _paths(stems)]
                parts = qn.split(".")
                if len(parts) > 1:  # ``import os.path``: ``path`` may be a module bound in os.py
                    cands.append({"module_chain": {"file": _paths(self.abs_stems(parts[0])), "attrs": parts[1:],
                                                   "to_file": True}, "how": "module_alias"})
                self.add_ref(IMPORTS, None, qn, line, {"candidates": cands, "names": [], "forwarding": False})
            return
        mod_node = n.child_by_field_id(F_MODULE_NAME)
        if mod_node is None:
            return
        package_only = False
        if mod_node.type == "relative_import":
            level, parts = 0, []
            for c in mod_node.named_children:
                if c.type == "import_prefix":
                    level = c.end_byte - c.start_byte
                elif c.type == "dotted_name":
                    parts = self.text(c).split(".")
            rel = self.relative(level, parts)
            if rel is None:
                self.add_ref(IMPORTS, None, self.text(mod_node), line, {"candidates": [], "names": []})
                return
            mqn, stems = rel
            package_only = not parts
        else:
            mqn = self.text(mod_node)
            stems = self.abs_stems(mqn)
        names: list[tuple[str, str]] = []  # (original, bound)
        star = False
        for c in n.children_by_field_name("name"):
            if c.type == "aliased_import":
                orig = self.text(c.child_by_field_id(F_NAME))
                alias = c.child_by_field_id(F_ALIAS)
                names.append((orig, self.text(alias) if alias is not None else orig))
            elif c.type == "dotted_name":
                orig = self.text(c)
                names.append((orig, orig))
        for c in n.named_children:
            if c.type == "wildcard_import":
                star = True
        forwarding = self.is_init and top
        extra: dict[str, Any] = {
            "candidates": [{"path": p, "how": "import"} for p in _paths(stems)],
            "names": ["*"] if star else [o for o, _ in names], "forwarding": forwarding,
        }
        if package_only:
            extra["optional"] = True  # namespace packages have no __init__.py
        chain = self.alias_chain(mqn, stems, [])
        if chain is not None:  # ``from os.path import x``: ``path`` may be a module bound in os.py
            extra["candidates"].append({"module_chain": {**chain, "to_file": True}, "how": "module_alias"})
        if mqn:
            self.add_ref(IMPORTS, None, mqn, line, extra)
        paths = _paths(stems)
        for orig, bound in names:
            sc.bind(bound, ("from", mqn, orig, stems))
            if orig[:1].islower() or orig[:1] == "_":
                # The name may be a submodule: an edge to it if that file exists.
                sub = _child_stems(stems, orig.split("."))
                self.add_ref(IMPORTS, None, _qjoin(mqn, orig), line, {
                    "candidates": [{"path": p, "how": "import"} for p in _paths(sub)],
                    "names": [orig], "forwarding": forwarding, "optional": True,
                })
            if top and not package_only:
                # ``from . import x`` names a submodule far more often than a name of the
                # package; a "from" pointing back at the package only makes export cycles.
                self.exports[bound] = {"from": paths, "name": orig}
            elif top and "." not in orig:
                self.export_module(bound, _paths(_child_stems(stems, [orig])))
        if star:
            sc.star.append(paths)
            if top:
                self.exports.setdefault("*", {"from_all": []})["from_all"].append(paths)

    def alias_chain(self, mqn: str, stems: list[str], names: list[str]) -> dict[str, Any] | None:
        """``{"file", "attrs"}`` of a ``module_chain`` candidate for names imported from
        an absolute dotted module (``from os.path import join``): the module may be a
        name its package binds (``os.py``: ``import posixpath as path``), not a file.
        None for a relative or undotted module."""
        head, _, rest = mqn.partition(".")
        if not rest or stems != self.abs_stems(mqn):
            return None
        return {"file": _paths(self.abs_stems(head)), "attrs": [*rest.split("."), *names]}

    def export_module(self, name: str, paths: list[str]) -> None:
        """Export ``name`` as bound to the module in the first existing of ``paths``;
        a name bound in several branches keeps every alternative (os.py: ``import
        posixpath as path`` / ``import ntpath as path``)."""
        cur = self.exports.get(name)
        if cur is not None and "modules" in cur:
            if paths not in cur["modules"]:
                cur["modules"].append(paths)
        else:
            self.exports[name] = {"modules": [paths]}

    def star_paths(self, scope: _Scope) -> list[list[str]]:
        out: list[list[str]] = []
        s: _Scope | None = scope
        while s is not None:
            out.extend(s.star)
            s = s.parent
        return out


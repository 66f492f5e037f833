"""Python dynamic imports: a module named by a string literal (docs/DESIGN.md#resolution).

- ``importlib.import_module("a.b")`` (also ``from importlib import import_module``) is the
  module ``a.b``; ``__import__("a.b")`` is the top-level package ``a`` (the leaf ``a.b``
  when a non-empty literal ``fromlist`` is given); a relative name, a ``level`` other than
  0 or any argument that is not a literal gives nothing;
- a function is *module-returning* when one of its ``return`` values is such an import of
  one of its parameters (never rebound in the function): a call of it with a string
  literal for that parameter returns that module. In the same file the call is followed
  here; a module-level function is exported with ``module_param`` (``{"index", "name",
  "top"}``) so callers in other files resolve through it: the call's literal arguments go
  into a ``module_of_call`` hint (``codegraph.indexer.hints.ModuleOfCall``) that the
  resolver completes once it has read the callee's export.

The module values are ``("mod", qn, stems, "dynamic_import")`` bindings (a ``mod`` binding
of the extractor plus the resolution label of the edges they give) and, for a call of an
imported function, ``("modcall", function export, literal arguments)``. Never a guess: a
call whose function is not known to return a module gives no edge.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node

from codegraph.core.models import CALLS
from codegraph.indexer.languages.python.common import (
    _BUILTIN_METHODS,
    _DOTTED,
    _STRING_PREFIX,
    F_ARGUMENTS,
    F_FUNCTION,
    F_NAME,
    F_VALUE,
    _looks_like_class,
    _paths,
)
from codegraph.indexer.languages.python.types import DYNAMIC, _entity_export

_IMPORT_MODULE = "importlib.import_module"
_TAILS = (b"t_module", b"import__")  # last bytes of import_module / __import__ (a cheap pre-filter)


class DynImportMixin:
    """Dynamic-import rules of the Python extractor (see module doc)."""

    memo: dict[Any, Any]
    src: bytes

    def module_literal(self, n: Node | None) -> str | None:
        """The absolute dotted module name a plain string literal spells, else None."""
        if n is None or n.type != "string" or any(c.type == "interpolation" for c in n.named_children):
            return None
        raw = self.text(n)  # type: ignore[attr-defined]
        m = _STRING_PREFIX.match(raw)
        if m is None or "b" in raw[:m.start(1)].lower():
            return None
        q = m.group(1)
        inner = raw[m.end():len(raw) - len(q)] if raw.endswith(q) and len(raw) >= m.end() + len(q) else ""
        return inner if _DOTTED.match(inner) else None

    @staticmethod
    def call_args(call: Node) -> tuple[list[Node], dict[str, Node], bool]:
        """(positional arguments, keyword arguments by name, a ``*``/``**`` splat seen)."""
        args = call.child_by_field_id(F_ARGUMENTS)
        pos: list[Node] = []
        kws: dict[str, Node] = {}
        splat = False
        if args is None or args.type != "argument_list":
            return pos, kws, True
        for a in args.named_children:
            t = a.type
            if t == "comment":
                continue
            if t == "keyword_argument":
                nm, v = a.child_by_field_id(F_NAME), a.child_by_field_id(F_VALUE)
                if nm is not None and v is not None and nm.text is not None:
                    kws[nm.text.decode("utf-8", "replace")] = v
            elif t in ("list_splat", "dictionary_splat"):
                splat = True
            elif not splat:
                pos.append(a)
        return pos, kws, splat

    def has_string_arg(self, call: Node) -> bool:
        """Cheap pre-check: is a string literal among the call's arguments?"""
        args = call.child_by_field_id(F_ARGUMENTS)
        if args is None:
            return False
        src, start, end = self.src, args.start_byte, args.end_byte
        if src.find(b'"', start, end) < 0 and src.find(b"'", start, end) < 0:
            return False  # no quote in the arguments' text: no string among them
        for c in args.named_children:
            if c.type == "string":
                return True
            if c.type == "keyword_argument":
                v = c.child_by_field_id(F_VALUE)
                if v is not None and v.type == "string":
                    return True
        return False

    def dyn_import(self, scope: Any, call: Node) -> tuple[Node, bool] | None:
        """(the module-name argument, top) when ``call`` is ``importlib.import_module(...)``
        or ``__import__(...)``; ``top``: the call returns the top-level package."""
        fn = call.child_by_field_id(F_FUNCTION)
        if fn is None or self.src[fn.end_byte - 8:fn.end_byte] not in _TAILS:
            return None
        root, attrs = self.split_chain(fn)  # type: ignore[attr-defined]
        if root is None or root.type != "identifier":
            return None
        name = self.text(root)  # type: ignore[attr-defined]
        kind, val = self.resolve_name(scope, name)  # type: ignore[attr-defined]
        pos, kws, splat = self.call_args(call)
        if splat:
            return None
        if name == "__import__" and not attrs and kind == "builtin":
            if set(kws) - {"name", "globals", "locals", "fromlist", "level"}:
                return None
            level = pos[4] if len(pos) > 4 else kws.get("level")
            if level is not None and not (level.type == "integer" and self.text(level) == "0"):  # type: ignore[attr-defined]
                return None
            fromlist = pos[3] if len(pos) > 3 else kws.get("fromlist")
            if fromlist is None or fromlist.type == "none":
                top = True
            elif fromlist.type in ("list", "tuple"):
                top = not [c for c in fromlist.named_children if c.type != "comment"]
            else:
                return None  # a fromlist we cannot read: leaf or top is unknown
            arg = pos[0] if pos else kws.get("name")
            return (arg, top) if arg is not None else None
        if kind != "entities" or not any(b[0] in ("mod", "from") and self.entity_qn(b, attrs) == _IMPORT_MODULE  # type: ignore[attr-defined]
                                         for b in val):
            return None
        arg = pos[0] if pos else kws.get("name")
        return (arg, False) if arg is not None else None

    def module_binding(self, qn: str, top: bool) -> tuple[Any, ...]:
        """The value ``("mod", qn, stems, "dynamic_import")`` of module ``qn`` (its top-level
        package when ``top``); one tuple per module, so values dedupe by identity."""
        if top:
            qn = qn.split(".", 1)[0]
        key = ("dynmod", qn)
        b = self.memo.get(key)
        if b is None:
            b = ("mod", qn, self.abs_stems(qn), DYNAMIC)  # type: ignore[attr-defined]
            self.memo[key] = b
        return b  # type: ignore[no-any-return]

    def module_param(self, fn: Any) -> tuple[int, str, bool] | None:
        """(index, name, top) of the parameter whose module function ``fn`` (a scope of this
        file) returns; None when it returns no import of an unchanged parameter."""
        key = ("modparam", id(fn))
        if key in self.memo:
            return self.memo[key]  # type: ignore[no-any-return]
        out = None
        for sc, r in self.returns.get(id(fn), ()):  # type: ignore[attr-defined]
            if r.type != "call":
                continue
            d = self.dyn_import(sc, r)
            if d is None or d[0].type != "identifier":
                continue
            pname = self.text(d[0])  # type: ignore[attr-defined]
            found = self.lookup(sc, pname)  # type: ignore[attr-defined]
            if found is None or found[1] is not fn:
                continue
            bs = found[0]
            if len(bs) == 1 and bs[0][0] == "param" and bs[0][2] is not None:
                out = (bs[0][2], pname, d[1])
                break
        self.memo[key] = out
        return out

    def literal_module_values(self, scope: Any, call: Node, fn_vals: list[tuple[Any, ...]] | None = None) -> list[tuple[Any, ...]]:
        """Module values of ``call`` in this file: a dynamic import of a literal, or a
        module-returning function of this file called with a literal for its parameter."""
        if not self.has_string_arg(call):
            return []  # no string literal handed over: no module named here
        d = self.dyn_import(scope, call)
        if d is not None:
            lit = self.module_literal(d[0])
            return [(self.module_binding(lit, d[1]), [])] if lit is not None else []
        fn = call.child_by_field_id(F_FUNCTION)
        out: list[tuple[Any, ...]] = []
        if fn is None:
            return out
        if fn_vals is None:
            fn_vals = self.values(scope, fn)  # type: ignore[attr-defined]
        pos, kws, splat = self.call_args(call)
        for b, attrs in ((v[0], v[1]) for v in fn_vals):
            if b[0] != "def" or b[2] != "function" or attrs:
                continue
            mp = self.module_param(b[3])
            if mp is None:
                continue
            index, pname, top = mp
            arg = pos[index] if index < len(pos) else (kws.get(pname) if not splat or pname in kws else None)
            lit = self.module_literal(arg)
            if lit is not None:
                out.append((self.module_binding(lit, top), []))
        return out

    def module_args(self, call: Node) -> list[dict[str, Any]]:
        """The string-literal arguments of ``call`` that spell a module, each with the
        files of the module and of its top-level package: what a ``module_of_call`` hint
        carries (the callee's ``module_param`` picks one)."""
        pos, kws, _ = self.call_args(call)
        out: list[dict[str, Any]] = []
        for key, node in [*(("index", (i, n)) for i, n in enumerate(pos)), *(("kw", kv) for kv in kws.items())]:
            lit = self.module_literal(node[1])
            if lit is None:
                continue
            arg: dict[str, Any] = {key: node[0], "file": _paths(self.abs_stems(lit))}  # type: ignore[attr-defined]
            if "." in lit:
                arg["top"] = _paths(self.abs_stems(lit.split(".", 1)[0]))  # type: ignore[attr-defined]
            out.append(arg)
        return out

    def module_call_value(self, ent: tuple[Any, ...], attrs: list[str], call: Node) -> tuple[Any, ...] | None:
        """``("modcall", function export, arguments)`` for a call of an imported function
        with a literal module name among its arguments (resolved through the callee's
        ``module_param``), else None."""
        if ent[0] not in ("mod", "from") or (ent[0] == "mod" and not attrs) \
                or _looks_like_class(attrs[-1] if attrs else ent[2]):
            return None  # a class (CapWords) makes an instance, not a module
        oe = _entity_export(ent, attrs)
        if oe is None or self.entity_qn(ent, attrs) == _IMPORT_MODULE:  # type: ignore[attr-defined]
            return None
        key = ("modcall", id(ent), tuple(attrs), call.start_byte, call.end_byte)
        if key in self.memo:
            return self.memo[key]  # type: ignore[no-any-return]
        margs = self.module_args(call)
        out = ("modcall", {**oe, "args": margs}) if margs else None
        self.memo[key] = out
        return out

    def module_of_call(self, scope: Any, b: tuple[Any, ...], attrs: list[str], line: int, rtype: str,
                       extra_fields: dict[str, Any] | None, alone: bool = True) -> None:
        """The references of ``<module a call returns>.attrs`` (``call_values``). ``alone``:
        no other value is known, so the call keeps the unknown member's name fallback (and
        its stub when no module is found); otherwise the reference is optional."""
        if not attrs or not b[1]:
            return
        cand: dict[str, Any] = {"module_of_call": b[1], "attrs": attrs, "how": DYNAMIC}
        member = attrs[-1]
        if rtype != CALLS:
            self.add_ref(rtype, scope, member, line, {  # type: ignore[attr-defined]
                "candidates": [cand], "optional": True, **(extra_fields or {})})
            return
        # As an unknown receiver's call had it: the same stub when the module is not found.
        extra: dict[str, Any] = {"candidates": [cand]}
        if member in _BUILTIN_METHODS or not alone:
            extra["optional"] = True  # no reference (or another one) was made for the call without it
        else:
            extra.update({"name": member, "name_kinds": ["method"]})
        self.add_ref(rtype, scope, member, line, extra)  # type: ignore[attr-defined]
        if _looks_like_class(member):
            self.add_ref(rtype, scope, f"{member}.__init__", line, {  # type: ignore[attr-defined]
                "candidates": [{**cand, "member": "__init__"}], "optional": True})

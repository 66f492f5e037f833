"""Python type inference: what a bare name denotes, the class of a receiver from
assignments, annotations (``Optional``, unions, strings), constructor calls and return
values, attribute types from ``self.x = ...``, and class bases (EXTENDS)
(docs/DESIGN.md#resolution)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tree_sitter import Node

from codegraph.core.models import EXTENDS
from codegraph.indexer.languages.python.common import (
    _BUILTIN,
    _BUILTIN_TYPE_NAMES,
    _BUILTIN_VALUE_CALLS,
    _DOTTED,
    _LITERAL_TYPES,
    _NONE,
    BUILTINS,
    F_ATTRIBUTE,
    F_FUNCTION,
    F_LEFT,
    F_OBJECT,
    F_RIGHT,
    F_VALUE,
    _child_stems,
    _dedupe,
    _looks_like_class,
    _paths,
    _qjoin,
    memoized,
)
from codegraph.indexer.languages.python.scopes import scope_is_cls_method
from codegraph.indexer.records import Reference

DYNAMIC = "dynamic_import"  # the resolution of a module named by a string (python.dynimport)

if TYPE_CHECKING:
    from codegraph.indexer.languages.python.scopes import _Scope

def _combine(types: list[Any]) -> Any:
    """One type if every (non-None-literal) assignment agrees, else None (unknown)."""
    result = None
    for t in types:
        if t is _NONE:
            continue
        if t is None:
            return None
        if result is None:
            result = t
        elif result is _BUILTIN or t is _BUILTIN:
            if result is not t:
                return None
        elif result[1] != t[1]:
            return None
    return result



def _entity_export(ent: tuple[Any, ...], attrs: list[str]) -> dict[str, Any] | None:
    """``{"file", "export"}`` naming what an imported entity chain denotes."""
    if ent[0] == "mod":
        if not attrs:
            return None
        return {"file": _paths(_child_stems(ent[2], attrs[:-1])), "export": attrs[-1]}
    if ent[0] == "from":
        if not attrs:
            return {"file": _paths(ent[3]), "export": ent[2]}
        return {"file": _paths(_child_stems(ent[3], [ent[2], *attrs[:-1]])), "export": attrs[-1]}
    return None



class TypesMixin:
    """Name resolution and receiver types of the Python extractor."""

    @staticmethod
    def combine_types(types: list[Any]) -> Any:
        return _combine(types)

    def resolve_name(self, scope: _Scope, name: str) -> tuple[str, Any]:
        """What a bare name denotes:
        ("entities", [def/mod/from bindings]) | ("type", type) | ("local", None) |
        ("builtin", None) | ("unbound", None)."""
        hit = scope.resolved.get(name)
        if hit is not None:
            return hit
        found = self.lookup(scope, name)
        res: tuple[str, Any]
        if found is None:
            res = ("builtin", None) if name in BUILTINS else ("unbound", None)
        else:
            bindings, bscope = found
            # One pass over the bindings: defs (in binding order), then imports, else
            # the first ``self``.
            defs: list[tuple[Any, ...]] = []
            imps: list[tuple[Any, ...]] = []
            selfb = None
            for b in bindings:
                k = b[0]
                if k == "def":
                    defs.append(b)
                elif k == "mod" or k == "from":
                    imps.append(b)
                elif k == "self" and selfb is None:
                    selfb = b
            if defs or imps:
                res = ("entities", defs + imps)
            elif selfb is not None:
                res = ("type", ("inst", selfb[1].qn, "self", selfb[1], None))
            else:
                guard = (id(bscope), name)
                if guard in self.in_progress:
                    return ("local", None)
                self.in_progress.add(guard)
                try:
                    types = []
                    for b in bindings:
                        if b[0] == "var":
                            types.append(self.type_of_assigned(bscope, b[1], b[2]))
                        elif b[0] == "param" and b[1] is not None:
                            types.append(self.annotation_type(bscope.parent or bscope, b[1]))
                        elif b[0] == "param":  # ``__init__(self, db)``: what the constructions pass
                            types.append(self.constructor_arg_type(bscope, name, b[2], b[3]))
                        else:
                            types.append(None)
                    t = _combine(types)
                finally:
                    self.in_progress.discard(guard)
                res = ("type", t) if t is not None else ("local", None)
        scope.resolved[name] = res
        return res

    def type_of_assigned(self, scope: _Scope, value: Node | None, ann: Node | None) -> Any:
        if ann is not None:
            t = self.annotation_type(scope, ann)
            if t is not None or value is None:
                return t
        if value is None:
            return None
        return self.type_of_expr(scope, value)

    def type_of_expr(self, scope: _Scope, n: Node) -> Any:
        t = n.type
        if t == "call":
            return self.type_of_call(scope, n)
        if t == "none":
            return _NONE
        if t in _LITERAL_TYPES:
            return _BUILTIN
        if t == "identifier":
            kind, val = self.resolve_name(scope, self.text(n))
            return val if kind == "type" else None
        if t == "attribute":
            return self.type_of_attribute(scope, n)
        if t == "parenthesized_expression" and n.named_child_count == 1:
            return self.type_of_expr(scope, n.named_children[0])
        return None

    def type_of_attribute(self, scope: _Scope, n: Node) -> Any:
        obj = n.child_by_field_id(F_OBJECT)
        attr = n.child_by_field_id(F_ATTRIBUTE)
        if obj is None or attr is None:
            return None
        base = self.type_of_expr(scope, obj)
        if base is None or base[0] != "inst":
            return None
        return self.attr_type(base, self.text(attr))

    def attr_type(self, inst: tuple[Any, ...], attr: str, depth: int = 0) -> Any:
        """Type of ``<instance of a class of this file>.attr`` from ``self.attr = ...``
        anywhere in the class (or in a base class of this file)."""
        cls = inst[3]
        if cls is None or depth > 8:
            return None
        key = (id(cls), "." + attr)
        memo = self.memo
        if key in memo:  # a hit does not build the closure
            return memo[key]

        def compute() -> Any:
            assigns = cls.attrs.get(attr)
            if assigns:
                t = _combine([self.type_of_assigned(sc, v, a) for v, a, sc in assigns])
                if t is not None and t[0] == "inst":
                    t = ("inst", t[1], "receiver_type", t[3], t[4])
                return t
            for kind, ent in self.base_entities(cls):
                if kind == "def":
                    t = self.attr_type(("inst", ent[1], "receiver_type", ent[3], None), attr, depth + 1)
                    if t is not None:
                        return t
            return None

        return memoized(memo, self.in_progress, key, compute)

    def type_of_call(self, scope: _Scope, call: Node) -> Any:
        fn = call.child_by_field_id(F_FUNCTION)
        if fn is None:
            return None
        root, attrs = self.split_chain(fn)
        if root is not None and root.type == "call" and attrs:  # make().run()
            inner = self.type_of_call(scope, root)
            if inner is None and self.has_string_arg(root):  # import_module("m").C() (python.dynimport)
                for v in self.values(scope, root):
                    if v[0][0] == "mod":
                        t = self.type_from_entity(v[0], [*v[1], *attrs])
                        if t is not None:
                            return t
                return None
            return self.method_result_type(inner, attrs) if isinstance(inner, tuple) and inner[0] == "inst" else None
        if root is None or root.type != "identifier":
            return None
        name = self.text(root)
        kind, val = self.resolve_name(scope, name)
        if kind == "builtin":
            return _BUILTIN if not attrs and name in _BUILTIN_VALUE_CALLS else None
        if kind == "type":
            if not attrs and val[0] == "inst" and val[2] == "self" and scope_is_cls_method(scope):
                return ("inst", val[1], "receiver_type", val[3], None)  # cls(...)
            if attrs and isinstance(val, tuple) and val[0] == "inst":
                return self.method_result_type(val, attrs)  # c.make() for a typed c
            return None
        if kind == "local":  # K = C; K() / m = make_client; m()
            for v in self.name_values(scope, name, 1):
                if v[0][0] not in ("member", "modcall"):
                    t = self.type_from_entity(v[0], [*v[1], *attrs])
                    if t is not None:
                        return t
            return None
        if kind != "entities":
            return None
        named = self.has_string_arg(call)
        if named and self.literal_module_values(scope, call):
            return None  # a module (python.dynimport), not an instance: its values say which
        for ent in val:
            t = self.type_from_entity(ent, attrs)
            if t is not None:
                if named and len(t) > 5:  # an imported function may return the module it is given
                    mv = self.module_call_value(ent, attrs, call)
                    if mv is not None:
                        t = (*t[:5], [*t[5], {"module_of_call": mv[1], "attrs": [], "how": DYNAMIC}])
                return t
        return None

    def type_from_entity(self, ent: tuple[Any, ...], attrs: list[str]) -> Any:
        """Instance type produced by calling ``ent.attrs...``, when visible."""
        if ent[0] == "def":
            if ent[2] == "class":
                if not attrs:
                    return ("inst", ent[1], "receiver_type", ent[3], None)
                if _looks_like_class(attrs[-1]):
                    return ("inst", ".".join([ent[1], *attrs]), "receiver_type", None, None)
                return None
            if not attrs and ent[4] is not None:  # return annotation of a function of this file
                sc = ent[3].parent or self.module_scope
                return self.annotation_type(sc, ent[4])
            if not attrs and ent[3] is not None:  # what it returns: ``return Client()``
                return self.returned_type(ent[3])
            return None
        dotted = self.entity_qn(ent, attrs)
        if dotted and (attrs or ent[0] == "from") and _looks_like_class(dotted):
            return ("inst", dotted, "receiver_type", None, _entity_export(ent, attrs))
        oe = _entity_export(ent, attrs)
        if dotted and oe is not None:
            # An imported function: what it returns is in its module's export map
            # (``returns``), read by the resolver (candidate ``returns_of``).
            return ("inst", f"{dotted}()", "return_type", None, None, [{"returns_of": oe}])
        return None

    def method_result_type(self, inst: tuple[Any, ...], attrs: list[str]) -> Any:
        """Type of ``x.a.m()`` for ``x`` of a known class: what method ``m`` returns (its
        annotation or its ``return`` values) when the class is in this file; for a class
        of another file, a ``returns_of_method`` hint the resolver reads from the export
        map of the method's module (``Class.method``: ``returns``)."""
        cur: Any = inst
        for a in attrs[:-1]:
            if not isinstance(cur, tuple) or cur[0] != "inst" or len(cur) > 5:
                return None
            cur = self.attr_type(cur, a)
        if not isinstance(cur, tuple) or cur[0] != "inst" or len(cur) > 5:
            return None
        method = attrs[-1]
        cls = cur[3]
        if cls is not None:
            fn = self.class_method(cls, method, 0)
            return None if fn is None else self.type_from_entity(fn, [])
        hints: list[dict[str, Any]] = [{"returns_of_method": {"owner": cur[1], "method": method}}]
        if cur[4] is not None:
            hints.append({"returns_of_method": {"owner_export": cur[4], "method": method}})
        return ("inst", f"{cur[1]}.{method}()", "return_type", None, None, hints)

    def class_method(self, cls: _Scope, name: str, depth: int) -> tuple[Any, ...] | None:
        """The def binding of method ``name`` on ``cls`` or a base class of this file."""
        if depth > 8:
            return None
        for b in cls.names.get(name, ()):
            if b[0] == "def" and b[2] == "function":
                return b
        if name in cls.names or name in cls.attrs:
            return None  # assigned in the class body: not a method we can read
        for _, ent in self.base_entities(cls):
            found = self.class_method(ent[3], name, depth + 1)
            if found is not None:
                return found
        return None

    def returned_type(self, fn: _Scope) -> Any:
        rets = self.returns.get(id(fn))
        if not rets:
            return None
        key = ("returned", id(fn))
        memo = self.memo
        if key in memo:  # a hit does not build the closure
            return memo[key]

        def compute() -> Any:
            t = _combine([self.type_of_expr(sc, r) for sc, r in rets])
            if t is not None and t[0] == "inst" and t[2] == "self":
                t = ("inst", t[1], "receiver_type", t[3], t[4])
            return t

        return memoized(memo, self.in_progress, key, compute)

    @staticmethod
    def entity_qn(ent: tuple[Any, ...], attrs: list[str]) -> str:
        if ent[0] == "mod":
            return ".".join([ent[1], *attrs])
        if ent[0] == "from":
            return _qjoin(ent[1], ent[2], *attrs)
        return ".".join([ent[1], *attrs])

    def annotation_type(self, scope: _Scope, ann: Node | None, depth: int = 0) -> Any:
        if ann is None or depth > 4:
            return None
        n = ann
        if n.type == "type" and n.named_child_count:
            n = n.named_children[0]
        t = n.type
        if t == "string":
            inner = self.text(n).strip("\"'").strip()
            if not _DOTTED.match(inner):
                return None
            parts = inner.split(".")
            return self.type_of_dotted(scope, parts[0], parts[1:])
        if t == "identifier":
            return self.type_of_dotted(scope, self.text(n), [])
        if t == "attribute":
            root, attrs = self.split_chain(n)
            if root is None or root.type != "identifier":
                return None
            return self.type_of_dotted(scope, self.text(root), attrs)
        if t == "none":
            return _NONE
        if t == "generic_type" and n.named_child_count:
            head = self.text(n.named_children[0])
            params = [c for c in n.named_children[1:] if c.type == "type_parameter"]
            args = [c for c in params[0].named_children if c.type == "type"] if params else []
            if head in ("Optional", "typing.Optional") and len(args) == 1:
                return self.annotation_type(scope, args[0], depth + 1)
            if head in ("Union", "typing.Union"):
                return _combine([self.annotation_type(scope, a, depth + 1) for a in args])
            if head.rsplit(".", 1)[-1] in _BUILTIN_TYPE_NAMES:
                return _BUILTIN
            return None
        if t == "binary_operator":
            left = n.child_by_field_id(F_LEFT)
            right = n.child_by_field_id(F_RIGHT)
            return _combine([self.annotation_type(scope, left, depth + 1), self.annotation_type(scope, right, depth + 1)])
        return None

    def type_of_dotted(self, scope: _Scope, root: str, attrs: list[str]) -> Any:
        kind, val = self.resolve_name(scope, root)
        if kind == "builtin":
            return _BUILTIN if not attrs and root in _BUILTIN_TYPE_NAMES else None
        if kind != "entities":
            return None
        for ent in val:
            if ent[0] == "def":
                if ent[2] == "class":
                    return ("inst", ".".join([ent[1], *attrs]), "receiver_type", ent[3] if not attrs else None, None)
                continue
            dotted = self.entity_qn(ent, attrs)
            if ent[0] == "from" or attrs:
                return ("inst", dotted, "receiver_type", None, _entity_export(ent, attrs))
        return None

    def base_entities(self, cls: _Scope) -> list[tuple[str, tuple[Any, ...]]]:
        """(kind, binding) of each base of a class that names a def/import entity."""
        out: list[tuple[str, tuple[Any, ...]]] = []
        lookup_scope = cls.parent or self.module_scope
        names = cls.base_names
        if names is None:  # the bases named by a bare identifier, read once per class
            names = []
            for b in cls.bases:
                if b.type == "subscript":
                    b = b.child_by_field_id(F_VALUE) or b
                root, attrs = self.split_chain(b)
                if root is None or root.type != "identifier" or attrs:
                    continue
                names.append(self.text(root))
            cls.base_names = names
        for name in names:  # asked each time, in order, as resolve_name's memo expects
            kind, val = self.resolve_name(lookup_scope, name)
            if kind == "entities":
                for ent in val:
                    if ent[0] == "def" and ent[2] == "class":
                        out.append(("def", ent))
        return out

    def class_bases(self, cls: _Scope) -> list[tuple[str, list[dict[str, Any]], str | None, int]]:
        """Per base: (target identifier, candidates, fallback name or None, line)."""
        if cls.base_info is not None:
            return cls.base_info  # type: ignore[return-value]
        out: list[tuple[str, list[dict[str, Any]], str | None, int]] = []
        lookup_scope = cls.parent or self.module_scope
        for b in cls.bases:
            if b.type == "subscript":
                b = b.child_by_field_id(F_VALUE) or b
            root, attrs = self.split_chain(b)
            if root is None or root.type != "identifier":
                continue
            name = self.text(root)
            line = b.start_point[0] + 1
            kind, val = self.resolve_name(lookup_scope, name)
            if kind == "unbound":
                if not attrs:
                    cands = [{"file": p, "export": name, "how": "import"} for p in self.star_paths(lookup_scope)]
                    out.append((name, cands, name, line))
                continue
            if kind != "entities":
                continue  # builtins (object, Exception...), local variables
            cands = []
            target = ""
            for ent in val:
                if ent[0] == "def":
                    if ent[2] != "class":
                        continue
                    cands.append({"qn": ".".join([ent[1], *attrs]), "how": "same_module"})
                    target = target or cands[-1]["qn"]
                elif ent[0] == "mod":
                    if not attrs:
                        continue
                    full = ".".join([ent[1], *attrs])
                    pst = _child_stems(ent[2], attrs[:-1]) if len(attrs) > 1 else ent[2]
                    cands += [{"qn": full, "how": "import"}, {"file": _paths(pst), "export": attrs[-1], "how": "import"}]
                    target = target or full
                else:
                    full = _qjoin(ent[1], ent[2], *attrs)
                    cands.append({"qn": full, "how": "import"})
                    if not attrs:
                        cands.append({"file": _paths(ent[3]), "export": ent[2], "how": "import"})
                    else:
                        sub = _child_stems(ent[3], [ent[2], *attrs[:-1]])
                        cands.append({"file": _paths(sub), "export": attrs[-1], "how": "import"})
                    target = target or full
            if cands:
                out.append((target, _dedupe(cands), None, line))
        cls.base_info = out  # type: ignore[assignment]
        return out

    def emit_extends(self, cls: _Scope) -> None:
        for target, cands, name, line in self.class_bases(cls):
            extra: dict[str, Any] = {"candidates": cands}
            if name:
                extra["name"] = name
                extra["name_kinds"] = ["class"]
            self.refs.append(Reference(EXTENDS, cls.qn, target, self.path, line, cls.sig, "symbol", extra))


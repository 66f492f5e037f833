"""Python extractor, the second half of the rules (a mixin of ``python.extractor._Extractor``):
what a call hands over and what the file says about values beyond calls
(docs/DESIGN.md#resolution).

- ``pass`` hints: a value handed to a callee at a position / keyword, and ``param_call``
  hints: a parameter called; the resolver joins them (resolution ``parameter``);
  decorators hand the decorated definition to the decorator; ``@factory()`` calls what
  the factory returns;
- container contents written after creation (``d[k] = f``, ``update``, ``append``...);
- protocols: ``for`` / ``next()`` / ``iter()`` / ``with`` reach ``__iter__`` / ``__next__``
  / ``__enter__`` / ``__exit__`` of a value of known class; ``raise Cls``;
- REFERENCES (a function / class / method named where a value goes), USES_TYPE
  (annotations, generic arguments, string annotations, ``typing.cast``), INJECTS
  (FastAPI ``Depends`` / ``Security``);
- module-level re-bindings exported (``api = _impl``, ``g = f``) and the ``returns`` of
  module-level functions for callers in other files (and ``module_param`` of a
  module-returning one, ``python.dynimport``).
"""

from __future__ import annotations

import re
from typing import Any

from tree_sitter import Node

from codegraph.core.models import CALLS, INJECTS, REFERENCES, USES_TYPE
from codegraph.indexer.languages.python.common import (
    _BUILTIN,
    _NONE,
    F_ARGUMENTS,
    F_ATTRIBUTE,
    F_BODY,
    F_DEFINITION,
    F_FUNCTION,
    F_NAME,
    F_OBJECT,
    F_RIGHT,
    F_SUBSCRIPT,
    F_VALUE,
    _paths,
)

# Last three bytes of the container methods collect_items reads (a cheap pre-filter).
_ITEM_TAILS = frozenset({b"end", b"add", b"ate", b"ert", b"ult"})  # append/extend, add, update, insert, setdefault
_PASSABLE = frozenset({"identifier", "attribute", "lambda"})  # arguments followed into callees
_TYPE_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


class UsesMixin:
    """Methods of the Python extractor (see module doc); state and the other rules
    live in the other mixins of ``python.extractor._Extractor``."""

    # Provided by the extractor.
    refs: list[Any]
    items: dict[Any, Any]
    returns: dict[int, Any]
    exports: dict[str, Any]
    def_exports: dict[str, Any]
    method_returns: dict[str, Any]
    class_scopes: list[Any]
    module_scope: Any
    bp_scope: list[Any]
    module: str
    src: bytes

    def collect_items(self, item_assigns: list[tuple[Any, Node, Node | None, Node | None]],
                      calls: list[tuple[Node, Node | None]]) -> None:
        """Container contents written after creation: ``d[k] = f``, ``d.update({...})``,
        ``ls.append(f)``, ``ls.extend([...])``, ``s.add(f)``, ``d.setdefault(k, f)``."""
        for sc, left, value, _ann in item_assigns:
            obj = left.child_by_field_id(F_VALUE)
            if obj is None or obj.type != "identifier" or value is None:
                continue
            self.add_item(sc, self.text(obj), left.child_by_field_id(F_SUBSCRIPT), value, "item")
        src = self.src
        for call, fn in calls:
            if fn is None or fn.type != "attribute" or src[fn.end_byte - 3:fn.end_byte] not in _ITEM_TAILS:
                continue
            obj = fn.child_by_field_id(F_OBJECT)
            an = fn.child_by_field_id(F_ATTRIBUTE)
            if obj is None or an is None or obj.type != "identifier":
                continue
            meth = self.text(an)
            if meth not in ("append", "add", "update", "extend", "insert", "setdefault"):
                continue
            args = call.child_by_field_id(F_ARGUMENTS)
            pos = [c for c in args.named_children if c.type not in ("comment", "keyword_argument")] if args else []
            sc = self.scope_at(call.start_byte)
            if meth in ("append", "add") and len(pos) == 1:
                self.add_item(sc, self.text(obj), None, pos[0], "item")
            elif meth in ("update", "extend") and len(pos) == 1:
                self.add_item(sc, self.text(obj), None, pos[0], "all")
            elif meth == "insert" and len(pos) == 2:
                self.add_item(sc, self.text(obj), None, pos[1], "item")
            elif meth == "setdefault" and len(pos) == 2:
                self.add_item(sc, self.text(obj), pos[0], pos[1], "item")

    def add_item(self, sc: Any, name: str, key: Node | None, value: Node, how: str) -> None:
        found = self.lookup(sc, name)
        if found is None:
            return
        self.items.setdefault((id(found[1]), name), []).append((key, value, sc, how))

    def pass_value(self, scope: Any, value: Node, callees: list[list[dict[str, Any]]], index: int | None,
                   kw: str | None) -> None:
        if value.type not in _PASSABLE:
            return  # (handlers[k] / make() handed over: rare, and costly to follow everywhere)
        if value.type != "lambda":
            # Cheap pre-checks first: most arguments are plain data.
            root, attrs = self.split_chain(value)
            if root is None or root.type != "identifier":
                return
            name = self.text(root)
            kind = self.resolve_name(scope, name)[0]
            if kind in ("builtin", "unbound") or (kind == "type" and not attrs):
                return
            if kind == "type":
                t = self.resolve_name(scope, name)[1]
                if len(attrs) != 1 or not isinstance(t, tuple) or t[0] != "inst":
                    return
                cls = t[3]
                if cls is not None and not any(b[0] == "def" for b in cls.names.get(attrs[0], ())) and not any(
                        v is not None and v.type in _PASSABLE for v, _, _ in cls.attrs.get(attrs[0], ())):
                    return  # a data attribute of a class of this file
            if kind == "local" and not self.may_hold_value(scope, name):
                return
        vals = self.values(scope, value)
        if not vals:
            return
        line = value.start_point[0] + 1
        for cands in callees:
            extra = {"pass": {"callee": cands, "index": index, "kw": kw}, "pass_only": True}
            self.call_values(scope, vals, [], line, rtype=REFERENCES, how="parameter", extra_fields=extra)

    def pass_decorated(self, scope: Any, deco: Node, callees: list[list[dict[str, Any]]]) -> None:
        d = deco.parent
        outer = d.parent if d is not None else None
        if outer is None or outer.type != "decorated_definition":
            return
        df = outer.child_by_field_id(F_DEFINITION)
        name = df.child_by_field_id(F_NAME) if df is not None else None
        if name is None:
            return
        ents = [b for b in scope.names.get(self.text(name), ()) if b[0] == "def"]
        line = name.start_point[0] + 1
        for cands in callees:
            extra = {"pass": {"callee": cands, "index": 0, "kw": None}, "pass_only": True}
            self.call_values(scope, [(b, []) for b in ents], [], line, rtype=REFERENCES, how="parameter",
                             extra_fields=extra)

    def on_decorator_call(self, call: Node) -> None:
        """``@factory(args)``: what the factory returns is called with the definition."""
        scope = self.scope_at(call.start_byte)
        vals = [v for v in self.return_values(scope, call, 0) if v[0][0] == "def" and not v[1]]
        if not vals:
            return
        line = call.start_point[0] + 1
        before = len(self.refs)
        self.call_values(scope, vals, [], line)
        callees = [r.extra["candidates"] for r in self.refs[before:] if r.type == CALLS and not r.extra.get("optional")]
        if callees:
            self.pass_decorated(scope, call, callees)

    def call_values(self, scope: Any, vals: list[tuple[Any, ...]], attrs: list[str], line: int,
                    rtype: str = CALLS, how: str = "value_flow", extra_fields: dict[str, Any] | None = None) -> None:
        """References to each value (``python.flow``) an expression denotes, ``attrs`` after it."""
        only_modcalls = all(v[0][0] == "modcall" for v in vals)
        for v in vals:
            b, pre = v[0], v[1]
            if b[0] == "member":
                if rtype == CALLS or extra_fields:
                    self.call_on_type(scope, b[1], [b[2], *pre, *attrs], line, rtype=rtype, extra_fields=extra_fields)
                continue
            if b[0] == "modcall":  # a module a call returns (python.dynimport)
                self.module_of_call(scope, b, [*pre, *attrs], line, rtype, extra_fields, only_modcalls)
                continue
            if b[0] == "mod" and not pre and not attrs:
                continue  # a module itself is not called or handed around as a symbol
            h = b[3] if b[0] == "mod" and len(b) > 3 and how == "value_flow" else how  # dynamic_import
            self.call_entities(scope, [b], [*pre, *attrs], line, how=h, rtype=rtype, extra_fields=extra_fields)

    def may_alias_module(self, scope: Any, name: str) -> bool:
        """Cheap pre-check for ``m.f()`` on a local: is ``m`` assigned a bare name or
        attribute chain somewhere (``m = lib``), or a call handed a string literal
        (``m = importlib.import_module("lib")``, python.dynimport): the only ways it can
        hold a module?"""
        found = self.lookup(scope, name)
        return found is not None and any(
            b[0] == "var" and b[1] is not None and (b[1].type in ("identifier", "attribute") or (
                b[1].type == "call" and self.has_string_arg(b[1]))) for b in found[0])

    def may_hold_value(self, scope: Any, name: str) -> bool:
        """Cheap pre-check: can local ``name`` hold a function, class or module (bound
        to a name, attribute, lambda, element, destructured literal or default)?"""
        found = self.lookup(scope, name)
        if found is None:
            return False
        for b in found[0]:
            k = b[0]
            if k == "var" and b[1] is not None and b[1].type in ("identifier", "attribute", "lambda", "subscript",
                                                                  "conditional_expression", "boolean_operator"):
                return True
            if k in ("part", "elem") or (k == "param" and len(b) > 3 and b[3] is not None):
                return True
        return False

    def param_call(self, scope: Any, name: str, line: int) -> None:
        """``cb()`` on a parameter: no edge here; the resolver adds one from this
        symbol to whatever a caller passes at that position or keyword."""
        found = self.lookup(scope, name)
        if found is None:
            return
        bindings, bscope = found
        for b in bindings:
            if b[0] == "param" and bscope.kind == "function":
                self.add_ref(CALLS, scope, name, line, {"candidates": [], "optional": True, "param_call": {
                    "owner": bscope.qn, "index": b[2], "name": name}})
                return

    def protocol_call(self, scope: Any, t: Any, member: str, line: int) -> None:
        """An implicit call the language makes (``for`` -> ``__iter__``, ``with`` ->
        ``__enter__``...) on a value of known class; optional: absent methods link nothing."""
        if t is None or t is _BUILTIN or t is _NONE or t[0] != "inst":
            return
        if len(t) > 5:
            cands: list[dict[str, Any]] = [{**r, "member": member, "how": "protocol"} for r in t[5]
                                           if "module_of_call" not in r]
            self.add_ref(CALLS, scope, f"{t[1]}.{member}", line, {"candidates": cands, "optional": True})
            return
        cands = [{"owner": t[1], "member": member, "how": "protocol"}]
        if t[4] is not None:
            cands.append({"owner_export": t[4], "member": member, "how": "protocol"})
        self.add_ref(CALLS, scope, f"{t[1]}.{member}", line, {"candidates": cands, "optional": True})

    def emit_protocols(self, fors: list[Node], withs: list[Node], raises: list[Node]) -> None:
        for n in fors:
            right = n.child_by_field_id(F_RIGHT)
            if right is None:
                continue
            scope = self.scope_at(n.start_byte)
            t = self.type_of_expr(scope, right)
            line = right.start_point[0] + 1
            self.protocol_call(scope, t, "__iter__", line)
            cls = t[3] if isinstance(t, tuple) and t[0] == "inst" else None
            if cls is not None and any(b[0] == "def" for b in cls.names.get("__next__", ())):
                it = next((b for b in cls.names.get("__iter__", ()) if b[0] == "def"), None)
                if it is not None and any(r.type == "identifier" and self.text(r) == "self"
                                          for _, r in self.returns.get(id(it[3]), ())):
                    self.protocol_call(scope, t, "__next__", line)  # __iter__ returns self
        for n in withs:
            scope = self.scope_at(n.start_byte)
            t = self.type_of_expr(scope, n)
            line = n.start_point[0] + 1
            self.protocol_call(scope, t, "__enter__", line)
            self.protocol_call(scope, t, "__exit__", line)
        for n in raises:
            exc = n.named_child(0) if n.named_child_count else None
            if exc is None or exc.type not in ("identifier", "attribute"):
                continue  # ``raise C(...)`` is a call, already seen
            scope = self.scope_at(n.start_byte)
            root, attrs = self.split_chain(exc)
            if root is None or root.type != "identifier":
                continue
            kind, val = self.resolve_name(scope, self.text(root))
            if kind == "entities":
                ents = [b for b in val if b[0] != "def" or b[2] == "class"]
                if ents and (attrs or any(b[0] != "mod" for b in ents)):
                    self.call_entities(scope, ents, attrs, exc.start_point[0] + 1)

    def uses_types(self, src: Any, scope: Any, n: Node, depth: int) -> None:
        """USES_TYPE from ``src`` to every class an annotation names (generic
        arguments, ``Optional[...]``, ``A | None``, string annotations included)."""
        if depth > 16:
            return
        t = n.type
        if t in ("identifier", "attribute"):
            root, attrs = self.split_chain(n)
            if root is None or root.type != "identifier":
                return
            kind, val = self.resolve_name(scope, self.text(root))
            if kind != "entities":
                return
            ents = [b for b in val if (b[0] == "def" and b[2] == "class") or b[0] == "from" or (b[0] == "mod" and attrs)]
            if ents:
                self.call_entities(src, ents, attrs, n.start_point[0] + 1, how="annotation", rtype=USES_TYPE)
            return
        if t == "string":
            if any(c.type == "interpolation" for c in n.named_children):
                return
            inner = self.text(n).strip("rRbBuU").strip("\"'")
            line = n.start_point[0] + 1
            for m in _TYPE_WORD.finditer(inner):
                parts = m.group(0).split(".")
                kind, val = self.resolve_name(scope, parts[0])
                if kind == "entities":
                    ents = [b for b in val if (b[0] == "def" and b[2] == "class") or b[0] == "from"
                            or (b[0] == "mod" and len(parts) > 1)]
                    if ents:
                        self.call_entities(src, ents, parts[1:], line, how="annotation", rtype=USES_TYPE)
            return
        for c in n.named_children:
            if c.type != "comment":
                self.uses_types(src, scope, c, depth + 1)

    def injected(self, scope: Any, call: Node, fn: Node | None = None) -> bool:
        """``Depends(fn)`` / ``Security(fn)`` of FastAPI in a parameter default, an
        ``Annotated[...]`` or a decorator: INJECTS from the function to ``fn``."""
        if fn is None:
            fn = call.child_by_field_id(F_FUNCTION)
        if fn is None or self.src[fn.end_byte - 7:fn.end_byte] not in (b"Depends", b"ecurity"):
            return False
        root, attrs = self.split_chain(fn)
        if root is None or root.type != "identifier":
            return False
        kind, val = self.resolve_name(scope, self.text(root))
        if kind != "entities":
            return False
        for b in val:
            qn = self.entity_qn(b, attrs) if b[0] != "def" else ""
            if qn.split(".", 1)[0] == "fastapi" and qn.rsplit(".", 1)[-1] in ("Depends", "Security"):
                return True
        return False

    def on_inject(self, scope: Any, call: Node) -> None:
        args = call.child_by_field_id(F_ARGUMENTS)
        pos = [c for c in args.named_children if c.type not in ("comment", "keyword_argument")] if args else []
        kw = [c.child_by_field_id(F_VALUE) for c in (args.named_children if args else [])
              if c.type == "keyword_argument" and self.text(c.child_by_field_id(F_NAME)) == "dependency"]
        dep = pos[0] if pos else (kw[0] if kw else None)
        if dep is None:
            return
        consumer = self.consumer_of(call) or scope
        vals = [v for v in self.values(scope, dep) if v[0][0] != "member"]
        self.call_values(consumer, vals, [], dep.start_point[0] + 1, rtype=INJECTS, how="injection")

    def consumer_of(self, n: Node) -> Any | None:
        """The function whose parameters (or decorators) hold ``n``."""
        p: Node | None = n.parent
        while p is not None:
            if p.type == "parameters" and p.parent is not None and p.parent.type == "function_definition":
                body = p.parent.child_by_field_id(F_BODY)
                return self.scope_at(body.start_byte) if body is not None else None
            if p.type == "decorator" and p.parent is not None and p.parent.type == "decorated_definition":
                d = p.parent.child_by_field_id(F_DEFINITION)
                body = d.child_by_field_id(F_BODY) if d is not None else None
                return self.scope_at(body.start_byte) if body is not None else None
            if p.type in ("block", "module"):
                return None
            p = p.parent
        return None

    def in_special_call(self, n: Node, p: Node | None) -> str:
        """``cast`` (first argument a type) or ``inject`` when ``n`` (whose parent is
        ``p``) is an argument of ``typing.cast`` / FastAPI ``Depends``; "" otherwise."""
        if p is None or p.type not in ("argument_list", "keyword_argument"):
            return ""
        if p.type == "keyword_argument":
            p = p.parent
            if p is None or p.type != "argument_list":
                return ""
        call = p.parent
        if call is None or call.type != "call":
            return ""
        fn = call.child_by_field_id(F_FUNCTION)
        if fn is None or not self.text(fn).endswith(("cast", "Depends", "Security")):
            return ""
        scope = self.scope_at(call.start_byte)
        if self.injected(scope, call):
            return "inject"
        if self.text(fn).endswith("cast") and p.named_children \
                and p.named_children[0].start_byte == n.start_byte:
            root, attrs = self.split_chain(fn)
            if root is not None and root.type == "identifier":
                kind, val = self.resolve_name(scope, self.text(root))
                if kind == "entities" and any(b[0] != "def" and self.entity_qn(b, attrs) == "typing.cast" for b in val):
                    return "cast"
        return ""

    def on_value(self, n: Node) -> None:
        """A function, class or method named where a value goes (argument, assignment,
        return, container element, default): a REFERENCES edge from the enclosing symbol."""
        if n.type == "identifier" and self.text(n) not in self.entity_names():
            return  # a bare name no def / import binds anywhere in the file: never an entity
        scope = self.scope_at(n.start_byte)
        root, attrs = self.split_chain(n)
        if root is None or root.type != "identifier":
            return
        kind, val = self.resolve_name(scope, self.text(root))
        if kind != "entities" and not (
                kind == "type" and len(attrs) == 1 and isinstance(val, tuple) and val[0] == "inst"
                and val[3] is not None and any(b[0] == "def" for b in val[3].names.get(attrs[0], ()))):
            return  # locals, builtins, data attributes: decided before any parent walk
        line = n.start_point[0] + 1
        p = n.parent
        if p is not None and p.type == "argument_list":
            pp = p.parent
            if pp is not None and pp.type == "class_definition":
                return  # a base class: EXTENDS
            if pp is not None and pp.type == "call":
                fn = pp.child_by_field_id(F_FUNCTION)
                if fn is not None and fn.type == "identifier" and self.text(fn) == "super":
                    return  # super(Child, self)
        special = self.in_special_call(n, p)
        if special == "inject":
            return  # INJECTS, from the consumer (on_inject)
        if special == "cast":
            self.uses_types(scope, scope, n, 0)
            return
        if kind == "entities":
            ents = [b for b in val if b[0] in ("def", "from") or (b[0] == "mod" and attrs)]
            if ents:
                self.call_entities(scope, ents, attrs, line, rtype=REFERENCES)
        elif kind == "type" and len(attrs) == 1 and isinstance(val, tuple) and val[0] == "inst" \
                and val[3] is not None and any(b[0] == "def" for b in val[3].names.get(attrs[0], ())):
            self.add_ref(REFERENCES, scope, f"{val[1]}.{attrs[0]}", line, {
                "candidates": [{"owner": val[1], "member": attrs[0], "how": val[2]}], "optional": True})

    def entity_names(self) -> set[str]:
        """Names some scope of the file binds by a def, class or import (built once)."""
        names = self.memo.get("entity_names")
        if names is None:
            names = set()
            done: set[int] = set()
            for sc in self.bp_scope:
                if id(sc) in done:
                    continue
                done.add(id(sc))
                names.update(sc.entities)
            self.memo["entity_names"] = names
        return names  # type: ignore[no-any-return]

    def emit_module_exports(self) -> None:
        """Module-level ``api = _impl`` (a module) / ``g = f`` (one function of this
        file): exported like the thing bound, so importers resolve through them; a
        module-level function whose return type is visible (annotation or ``return
        C()``) exports it as ``returns`` (owner candidates), for callers elsewhere; so does
        a method of a module-level class, under ``Class.method``."""
        for name, target in self.def_exports.items():
            ent = next((b for b in self.module_scope.names.get(name, ())
                        if b[0] == "def" and b[2] == "function" and b[1] == target.get("qn")), None)
            if ent is None:
                continue
            mp = self.module_param(ent[3])
            if mp is not None:  # returns importlib.import_module(<parameter>): python.dynimport
                target["module_param"] = {"index": mp[0], "name": mp[1], "top": mp[2]}
            t = self.type_from_entity(ent, [])
            if isinstance(t, tuple) and t[0] == "inst" and len(t) == 5:
                rets: list[dict[str, Any]] = [{"owner": t[1]}]
                if t[4] is not None:
                    rets.append({"owner_export": t[4]})
                target["returns"] = rets
        for cls in self.class_scopes:
            if cls.parent is not self.module_scope:
                continue
            short = cls.qn.rsplit(".", 1)[-1]
            for mname, bindings in cls.names.items():
                ent = next((b for b in bindings if b[0] == "def" and b[2] == "function"), None)
                if ent is None or len(bindings) != 1:
                    continue
                t = self.type_from_entity(ent, [])
                if isinstance(t, tuple) and t[0] == "inst" and len(t) == 5:
                    rets = [{"owner": t[1]}] + ([{"owner_export": t[4]}] if t[4] is not None else [])
                    # ``Class.method``: no identifier has a dot, so no import can bind this name
                    self.method_returns[f"{short}.{mname}"] = {"returns": rets}
        for name, bindings in self.module_scope.names.items():
            if name in self.exports or name in self.def_exports or len(bindings) != 1 or bindings[0][0] != "var":
                continue
            value = bindings[0][1]
            if value is None or value.type not in ("identifier", "attribute"):
                continue
            vals = self.values(self.module_scope, value)
            if len(vals) != 1:
                continue
            b, attrs = vals[0][0], vals[0][1]
            if b[0] == "mod" and not attrs:
                self.export_module(name, _paths(b[2]))
            elif b[0] == "from" and not attrs:
                self.exports[name] = {"from": _paths(b[3]), "name": b[2]}
            elif b[0] == "def" and not attrs and b[1].count(".") == self.module.count(".") + 1:
                self.def_exports[name] = {"qn": b[1]}

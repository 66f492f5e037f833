"""Call targets: what a call, ``new`` or JSX element reaches (a symbol of this file, an
import's export, a member on a receiver type or on ``this`` / ``super``, a package stub),
with the resolution hints of docs/DESIGN.md#resolution."""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TSNode

from codegraph.indexer.languages.javascript.scopes import Binding, Ctx, Target
from codegraph.indexer.languages.javascript.syntax import (
    BUILTIN_METHODS,
    JS_GLOBALS,
    _callee_text,
    _chain_root,
    _ext_ident,
    _field,
    _first_string_arg,
    _last_name,
    _object_entries,
    _require_names,
    _short,
    _t,
    _unwrap,
    _written,
)


class _Calls:
    """Mixed into ``extractor._Extractor``: call targets and call events."""

    def binding_target(self, b: Binding, written: str, last: str, kinds: list[str], depth: int = 0) -> Target | None:
        """Target for a name bound to ``b`` (a call, ``new``, JSX, a base class)."""
        if b.kind == "sym":
            if b.sym_kind == "namespace":
                return None
            # An exported const may hold a function or a class made at run time.
            return Target(written, [{"qn": b.qn, "how": "same_module"}], last, kinds)
        if b.kind == "import":
            return Target(written, [{"file": b.cands, "export": b.export, "how": "import"}],
                          b.export if b.export != "default" else None, kinds)
        if b.kind == "ns":  # a required module called as a function: its module.exports
            return Target(written, [{"file": b.cands, "export": "default", "how": "import"}], None, kinds)
        if b.kind == "ext":
            return Target(_ext_ident(b), [], None, None, {"external": b.pkg})
        if b.kind == "alias":
            name = b.export if b.export not in ("default", "*") else last
            return Target(written, [], name, kinds, {"alias": b.spec})
        if b.kind == "var" and b.member and b.origin is not None and b.scope is not None and depth < 8:
            # const {save} = handlers; save(): the member of what the name destructures
            ob = b.scope.lookup(_t(b.origin))
            tgt = self.bound_member_target(ob, b.member, written, depth + 1) if ob is not None and ob is not b else None
            if tgt is None or not tgt.cands:
                return None
            return Target(tgt.ident, [{**c, "how": "value_flow"} for c in tgt.cands], None, None,
                          {**tgt.extra, "optional": True})
        if b.kind == "var" and b.origin is not None and b.origin.type == "identifier" and b.scope is not None \
                and depth < 8:
            # const p = persist; p(): the value the name was initialised with (value_flow)
            ob = b.scope.lookup(_t(b.origin))
            if ob is not None and ob is not b and (ob.kind in ("import", "var") or (
                    ob.kind == "sym" and ob.sym_kind in ("function", "class"))):
                tgt = self.binding_target(ob, written, last, kinds, depth + 1)
                if tgt is not None and tgt.cands:
                    return Target(tgt.ident, [{**c, "how": "value_flow"} for c in tgt.cands], None, None, tgt.extra)
        return None

    def typed_target(self, tb: Binding, member: str, written: str) -> Target | None:
        """``x.member()`` where ``x`` is an instance of the class ``tb``."""
        name = member if member not in BUILTIN_METHODS else None
        if tb.kind == "sym":
            return Target(written, [{"owner": tb.qn, "member": member, "how": "receiver_type"}], name, ["method"])
        if tb.kind == "import":
            return Target(written, [{"owner_export": {"file": tb.cands, "export": tb.export}, "member": member,
                                     "how": "receiver_type"}], name, ["method"])
        if tb.kind == "ext":
            return Target(f"{_ext_ident(tb)}.{member}", [], None, None, {"external": tb.pkg})
        if tb.kind == "alias":
            return Target(written, [], name, ["method"], {"alias": tb.spec}) if name else None
        return None

    def unknown_target(self, written: str, member: str) -> Target | None:
        if member in BUILTIN_METHODS:
            return None
        return Target(_short(written, member), [], member, ["method"])

    def ident_target(self, name: str, ctx: Ctx, kinds: list[str]) -> Target | None:
        b = ctx.scope.lookup(name)
        if b is None:
            if name in JS_GLOBALS:
                return None
            return Target(name, [], name, kinds)
        return self.binding_target(b, name, name, kinds)

    def member_target(self, fn: TSNode, ctx: Ctx) -> Target | None:
        obj, prop = _field(fn, "object"), _field(fn, "property")
        if obj is None or prop is None:
            return None
        member = _t(prop)
        written = _callee_text(fn, member)
        obj = _unwrap(obj)
        ot = obj.type
        if ot == "this":
            cls = ctx.cls
            if cls is None or not cls.qn:
                tb = self.type_of(b) if (b := ctx.scope.lookup("this")) is not None else None
                return self.typed_target(tb, member, written) if tb is not None else self.unknown_target(written, member)
            if cls.base_external and member not in cls.members and cls.base is not None:
                # Inherited from a package class (React.Component.setState): one stub per library member.
                return Target(f"{_ext_ident(cls.base)}.{member}", [{"owner": cls.qn, "member": member, "how": "self"}],
                              None, None, {"external": cls.base.pkg})
            name = None if member in BUILTIN_METHODS else member
            return Target(written, [{"owner": cls.qn, "member": member, "how": "self"}], name, ["method"])
        if ot == "super":
            cls = ctx.cls
            if cls is None or not cls.qn:
                return None
            if cls.base_external and cls.base is not None:
                return Target(f"{_ext_ident(cls.base)}.{member}", [], None, None, {"external": cls.base.pkg})
            return Target(written, [{"super_of": cls.qn, "member": member, "how": "self"}],
                          None if member in BUILTIN_METHODS else member, ["method"])
        if ot == "identifier":
            oname = _t(obj)
            b = ctx.scope.lookup(oname)
            if b is None:
                if oname in ("exports",):
                    return Target(written, [{"qn": f"{self.mod}.{member}", "how": "same_module"}], member, ["function"])
                if oname in JS_GLOBALS:
                    return None
                return self.unknown_target(written, member)
            return self.bound_member_target(b, member, written)
        if ot == "member_expression":
            inner_obj = _field(obj, "object")
            if inner_obj is not None and inner_obj.type == "this" and ctx.cls is not None:
                fb = ctx.cls.fields.get(_t(_field(obj, "property")))
                tb = self.type_of(fb) if fb is not None else None
                if tb is not None:
                    return self.typed_target(tb, member, written)
                return self.unknown_target(written, member)
            if _written(obj) == "module.exports" and ctx.scope.lookup("module") is None:
                return Target(written, [{"qn": f"{self.mod}.{member}", "how": "same_module"}], member, ["function"])
        if ot in ("new_expression", "as_expression", "call_expression"):
            tb = self.type_binding(obj, ctx.scope)
            if tb is not None:
                return self.typed_target(tb, member, written)
        root = _chain_root(obj)
        if root is not None and root.type == "identifier":
            rb = ctx.scope.lookup(_t(root))
            if (rb is None and _t(root) in JS_GLOBALS) or (rb is not None and rb.kind == "ext"):
                return None
        return self.unknown_target(written, member)

    def bound_member_target(self, b: Binding, member: str, written: str, depth: int = 0) -> Target | None:
        """``name.member()`` where ``name`` is bound to ``b``."""
        if b.kind == "ns":
            return Target(written, [{"file": b.cands, "export": member, "how": "import"}], member, ["function", "class"])
        if b.kind == "ext":
            return Target(f"{_ext_ident(b)}.{member}", [], None, None, {"external": b.pkg})
        if b.kind == "alias":
            return Target(written, [], member, ["function", "method"], {"alias": b.spec})
        name = member if member not in BUILTIN_METHODS else None
        if b.kind == "import":
            cands: list[dict[str, Any]] = [{"owner_export": {"file": b.cands, "export": b.export}, "member": member,
                                            "how": "import"}]
            if b.export == "default":  # CommonJS interop: the default import is module.exports
                cands.append({"file": b.cands, "export": member, "how": "import"})
            return Target(written, cands, name, ["method"])
        if b.kind == "sym":
            if b.sym_kind == "namespace":
                return Target(written, [{"qn": f"{b.qn}.{member}", "how": "same_module"}], member, ["function", "class"])
            if b.sym_kind == "function":
                if member in ("call", "apply"):  # f.call(this, x) calls f
                    return Target(written, [{"qn": b.qn, "how": "same_module"}], None)
                return None if member in BUILTIN_METHODS else Target(
                    written, [{"owner": b.qn, "member": member, "how": "same_module"}], name, ["method"])
            if b.sym_kind == "variable":
                if member in b.members:
                    return Target(written, [{"owner": b.qn, "member": member, "how": "same_module"}], name, ["method"])
                if (stored := self.object_member_target(b, member, written, depth)) is not None:
                    return stored
                tb = self.type_of(b)
                if tb is not None:
                    return self.typed_target(tb, member, written)
                return None if self.external_origin(b) else self.unknown_target(written, member)
            return Target(written, [{"owner": b.qn, "member": member, "how": "same_module"}], name, ["method"])
        if (stored := self.object_member_target(b, member, written, depth)) is not None:  # var
            return stored
        tb = self.type_of(b)
        if tb is not None:
            return self.typed_target(tb, member, written)
        return None if self.external_origin(b) else self.unknown_target(written, member)

    def object_member_target(self, b: Binding, member: str, written: str, depth: int) -> Target | None:
        """``handlers.save()`` after ``const handlers = {save: persist}``: the function or
        class the object literal stores under that key (``value_flow``); None when the key
        holds anything else or is not written there."""
        if b.origin is None or b.origin.type != "object" or b.scope is None or depth > 6:
            return None
        entries = self.literals.get(b.origin.id)
        if entries is None:
            entries = self.literals[b.origin.id] = _object_entries(b.origin)
        v = entries.get(member)
        if v is None or v.type not in ("identifier", "shorthand_property_identifier"):
            return None
        vb = b.scope.lookup(_t(v))
        if vb is None or vb is b or not (vb.kind in ("import", "var") or (
                vb.kind == "sym" and vb.sym_kind in ("function", "class"))):
            return None
        tgt = self.binding_target(vb, _t(v), _t(v), ["function", "class"], depth + 1)
        if tgt is None or not tgt.cands:
            return None
        return Target(written, [{**c, "how": "value_flow"} for c in tgt.cands], None, None, tgt.extra)

    def external_origin(self, b: Binding, depth: int = 0) -> bool:
        """Whether a variable holds a value made by a package or a runtime global
        (``const app = express()``, ``const m = new Map()``, ``const s = z.object()``):
        its methods are the library's, so no fallback by name."""
        if b.origin is None or b.scope is None or depth > 3:
            return False
        root = _chain_root(_unwrap(b.origin))
        if root is None or root.type != "identifier":
            return False
        rb = b.scope.lookup(_t(root))
        if rb is None:
            return _t(root) in JS_GLOBALS
        if rb.kind == "ext":
            return True
        return rb.kind == "var" and rb is not b and self.external_origin(rb, depth + 1)

    # -- events ----------------------------------------------------------------------------------------------
    def on_call(self, node: TSNode, ctx: Ctx) -> None:
        fn = _field(node, "function")
        if fn is None:
            return
        ft = fn.type
        if ft == "import":
            spec = _first_string_arg(node)
            if spec is not None:
                self.import_ref(spec, node, ["*"], dynamic=True)
            return
        name = _t(fn) if ft == "identifier" else ""
        b = ctx.scope.lookup(name) if name else None
        if name == "require" and b is None:
            spec = _first_string_arg(node)
            if spec is not None:
                self.import_ref(spec, node, _require_names(node))
            return
        flow = self.flow_call_targets(fn, ctx, b)
        if flow is not None:
            for t in flow:
                self.ref("CALLS", ctx, t, node, optional=True)
            known = [t for t in flow if t.cands]
            if known:  # else only parameters' values: the usual target (or stub) stays too
                self.callbacks(_field(node, "arguments"), ctx, known[0] if len(known) == 1 else None)
                return
        tgt: Target | None
        if ft == "super":
            self.super_ctor(node, ctx)
            tgt = None
        elif ft == "identifier":
            if b is None:
                tgt = None if name in JS_GLOBALS else Target(name, [], name, ["function"])
            else:
                tgt = self.binding_target(b, name, name, ["function"])
        elif ft == "member_expression":
            tgt = self.member_target(fn, ctx)
        else:
            tgt = None
        if tgt is not None:
            self.ref("CALLS", ctx, tgt, node)
        elif b is not None and b.kind == "var" and b.param_of:
            # cb() on a parameter: the resolver joins it with what callers pass (pass hints)
            self.ref("CALLS", ctx, Target(name, []), node, optional=True,
                     param_call={"owner": b.param_of, "index": b.param_index, "name": name})
        self.callbacks(_field(node, "arguments"), ctx, tgt)

    def super_ctor(self, node: TSNode, ctx: Ctx) -> None:
        cls = ctx.cls
        if cls is None or not cls.qn or cls.base is None or cls.base_external:
            return
        self.ref("CALLS", ctx, Target("super", [{"super_of": cls.qn, "member": "constructor", "how": "self"}]), node,
                 optional=True)

    def on_new(self, node: TSNode, ctx: Ctx) -> None:
        ctor = _field(node, "constructor")
        if ctor is None:
            return
        ctor = _unwrap(ctor)
        written = _written(ctor)
        b: Binding | None = None
        if ctor.type == "identifier":
            b = ctx.scope.lookup(_t(ctor))
            if b is None:
                if _t(ctor) not in JS_GLOBALS:
                    self.ref("CALLS", ctx, Target(written, [], _t(ctor), ["class"]), node)
                self.callbacks(_field(node, "arguments"), ctx)
                return
            if b.kind == "ns":
                b = Binding("import", cands=b.cands, export="default", spec=b.spec)
        elif ctor.type == "member_expression":
            b = self.class_binding(ctor, ctx.scope)
        ctor_tgt: Target | None = None  # what receives the arguments (pass hints: new Svc(persist))
        if b is not None:
            tgt = self.binding_target(b, written, _last_name(ctor), ["class"])
            if tgt is not None:
                self.ref("CALLS", ctx, tgt, node)
                ctor_cand: dict[str, Any] | None = None
                if b.kind == "sym" and b.sym_kind == "class":
                    ctor_cand = {"owner": b.qn, "member": "constructor", "how": "same_module"}
                elif b.kind == "import":
                    ctor_cand = {"owner_export": {"file": b.cands, "export": b.export}, "member": "constructor",
                                 "how": "import"}
                if ctor_cand is not None:
                    ctor_tgt = Target(f"{written}.constructor", [ctor_cand])
                    self.ref("CALLS", ctx, ctor_tgt, node, optional=True)
        self.callbacks(_field(node, "arguments"), ctx, ctor_tgt)

    def on_jsx(self, node: TSNode, ctx: Ctx) -> None:
        name = _field(node, "name")
        if name is not None:
            tgt: Target | None = None
            if name.type == "identifier" and _t(name)[:1].isupper():
                tgt = self.ident_target(_t(name), ctx, ["function", "class"])
            elif name.type == "member_expression":
                tgt = self.member_target(name, ctx)
            if tgt is not None:
                self.ref("CALLS", ctx, tgt, node, jsx=True)
        for attr in node.named_children:
            if attr.type == "jsx_attribute":
                for v in attr.named_children:
                    if v.type == "jsx_expression" and v.named_children:
                        self.callback(v.named_children[0], ctx)


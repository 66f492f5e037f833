"""Value flow (docs/DESIGN.md#resolution): functions handed over as values (callbacks,
JSX props, route handlers) give REFERENCES from the code handing them over and ``pass``
hints so a callee in the repository that calls that parameter gets the CALLS edge
(resolution ``parameter``); functions stored, assigned or returned give REFERENCES; calls
through a returned function (``make()()``) or a field assigned a function (``this.cb()``)
reach it (``value_flow``). Only names whose binding is known count: an unknown flow keeps
the caller's usual target or stub."""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TSNode

from codegraph.indexer.languages.javascript.scopes import Binding, ClassInfo, Ctx, Scope, Target
from codegraph.indexer.languages.javascript.syntax import _field, _returned, _t, _unwrap, _written


class _Flow:
    """Mixed into ``extractor._Extractor``: values that carry functions."""

    def callbacks(self, args: TSNode | None, ctx: Ctx, callee: Target | None = None) -> None:
        if args is None or args.type != "arguments":
            return
        for i, a in enumerate(c for c in args.named_children if c.type != "comment"):
            if a.type == "spread_element":
                break
            self.callback(a, ctx, callee, i)

    def callback(self, expr: TSNode, ctx: Ctx, callee: Target | None = None, index: int | None = None) -> None:
        """A function passed as a value (``arr.map(format)``, ``onClick={save}``,
        ``router.get('/x', handler)``): a REFERENCES edge from the code handing it
        over (impact walks it), and a ``pass`` hint so that a callee in the repo that
        calls that parameter gets the CALLS edge (resolution ``parameter``)."""
        extra: dict[str, Any] = {"callback": True, "optional": True}
        if callee is not None and callee.cands and index is not None:
            extra["pass"] = {"callee": callee.cands, "index": index, "kw": None}
        t = expr.type
        if t == "identifier":
            b = ctx.scope.lookup(_t(expr))
            if b is None or b.kind not in ("sym", "import", "alias"):
                return
            if b.kind == "sym" and b.sym_kind not in ("function", "class"):
                return
            tgt = self.binding_target(b, _t(expr), _t(expr), ["function", "class"])
            if tgt is not None:
                self.ref("REFERENCES", ctx, tgt, expr, **extra)
        elif t == "member_expression":
            obj, prop = _field(expr, "object"), _field(expr, "property")
            cls = ctx.cls
            if obj is not None and obj.type == "this" and cls is not None and cls.qn and _t(prop) in cls.methods:
                self.ref("REFERENCES", ctx, Target(_written(expr), [{"owner": cls.qn, "member": _t(prop), "how": "self"}],
                                                   _t(prop), ["method"]), expr, **extra)



    # -- names stored, assigned and returned ---------------------------------------------
    def on_value(self, expr: TSNode, ctx: Ctx) -> None:
        """A plain name where a value goes (``const p = persist``, ``this.cb = persist``,
        ``return inner``, ``{save: persist}``, ``[a, b]``, a class field ``cb = persist``):
        REFERENCES from the enclosing symbol when it names a function or class."""
        parent = expr.parent
        obj = parent.parent if parent is not None and parent.type == "pair" else parent
        if obj is not None and obj.type == "object" and obj.id in self.objects:
            return  # written by the code enclosing the literal (object_values)
        self.value_ref(expr, ctx)

    def object_values(self, obj: TSNode, ctx: Ctx) -> None:
        """The names a module-level object literal (a symbol) stores, from the code writing it."""
        for c in obj.named_children:
            if c.type == "shorthand_property_identifier":
                self.value_ref(c, ctx)
            elif c.type == "pair" and (v := _field(c, "value")) is not None and v.type == "identifier":
                self.value_ref(v, ctx)

    def value_ref(self, expr: TSNode, ctx: Ctx) -> None:
        b = ctx.scope.lookup(_t(expr))
        if b is None or not (b.kind == "import" or (b.kind == "sym" and b.sym_kind in ("function", "class"))):
            return
        tgt = self.binding_target(b, _t(expr), _t(expr), ["function", "class"])
        if tgt is not None and tgt.cands:  # never by name: the candidates or nothing
            self.ref("REFERENCES", ctx, Target(tgt.ident, tgt.cands), expr, optional=True)

    # -- calls through values ---------------------------------------------------------------
    def flow_call_targets(self, fn: TSNode, ctx: Ctx, b: Binding | None) -> list[Target] | None:
        """What a call through a value reaches: ``make()()`` and ``f()`` after
        ``const f = make()`` (what ``make`` returns), ``this.cb()`` of a field assigned a
        name (``cb = persist`` / ``this.cb = persist``). None when the callee is no such
        value or its flow is unknown (the caller keeps its usual target)."""
        t = fn.type
        out: list[Target] = []
        if t == "call_expression":
            out = self.call_returns(fn, ctx.scope, 0)
        elif t == "identifier":  # b: what the name is bound to (looked up by the caller)
            if b is not None and b.kind == "var" and not b.member and b.scope is not None \
                    and b.origin is not None and _unwrap(b.origin).type == "call_expression":
                out = self.call_returns(_unwrap(b.origin), b.scope, 0)
        elif t == "member_expression" and (cls := ctx.cls) is not None and cls.values:
            obj = _field(fn, "object")
            member = _t(_field(fn, "property"))
            if obj is not None and obj.type == "this" and cls.qn and member in cls.values and member not in cls.methods:
                out = self.field_values(cls, member)
        if not out:
            return None
        written = _written(fn)
        return [Target(written, tgt.cands, extra=tgt.extra) for tgt in out]

    def call_returns(self, call: TSNode, scope: Scope, depth: int) -> list[Target]:
        """Targets of calling what ``call`` returns, when it calls a function of this file."""
        f = _field(call, "function")
        if f is None or f.type != "identifier" or depth > 4:
            return []
        fb = scope.lookup(_t(f))
        if fb is None or fb.kind != "sym" or fb.sym_kind != "function" or fb.fn is None or fb.scope is None:
            return []
        key = fb.fn.id
        if key not in self.returns:
            self.returns[key] = []  # a recursive function reaches no new value through itself
            inner = self.function_scope(fb.fn, fb.scope, fb.qn)
            out: list[Target] = []
            for e in _returned(fb.fn):
                if e.type == "call_expression":
                    out.extend(self.call_returns(e, inner, depth + 1))
                elif e.type == "identifier" and (tgt := self.named_value(e, inner)) is not None:
                    out.append(tgt)
            self.returns[key] = out
        return self.returns[key]

    def field_values(self, cls: ClassInfo, member: str) -> list[Target]:
        """Targets of calling field ``member`` of ``cls`` from the names assigned to it; a
        parameter of the assigning method (``constructor(cb) { this.cb = cb }``) gives a
        ``param_call`` hint: the resolver joins it with what callers pass (``new Svc(persist)``)."""
        out: list[Target] = []
        for value, method, scope in cls.values.get(member, ()):
            if method is not None:
                reg = self.registry.get(method.id)
                if reg is None:
                    continue
                scope = self.function_scope(method, scope, reg[0])
                pb = scope.lookup(_t(value))
                if pb is not None and pb.kind == "var" and pb.param_of and pb.param_index is not None:
                    out.append(Target(_t(value), [], extra={"param_call": {
                        "owner": pb.param_of, "index": pb.param_index, "name": _t(value)}}))
                    continue
            tgt = self.named_value(value, scope)
            if tgt is not None:
                out.append(tgt)
        return out

    def named_value(self, name: TSNode, scope: Scope) -> Target | None:
        """The function or class a name holds, as a value-flow target (never by name)."""
        b = scope.lookup(_t(name))
        if b is None or b.kind not in ("sym", "import", "var") or (b.kind == "sym" and b.sym_kind not in ("function", "class")):
            return None
        tgt = self.binding_target(b, _t(name), _t(name), ["function", "class"])
        if tgt is None or not tgt.cands:
            return None
        return Target(tgt.ident, [{**c, "how": "value_flow"} for c in tgt.cands])

"""Classes and interfaces: members, heritage (EXTENDS / IMPLEMENTS), field types from
annotations, TS parameter properties and ``this.x = ...`` assignments."""

from __future__ import annotations

from tree_sitter import Node as TSNode

from codegraph.indexer.languages.javascript.scopes import Binding, ClassInfo, Ctx, Scope, Target
from codegraph.indexer.languages.javascript.syntax import (
    _FUNC_VALUES,
    JS_GLOBALS,
    _chain_root,
    _field,
    _last_name,
    _member_name,
    _member_visibility,
    _params_text,
    _t,
    _unwrap,
    _written,
)


class _Classes:
    """Mixed into ``extractor._Extractor``: class bodies and interfaces."""

    def enter_class(self, node: TSNode, ctx: Ctx) -> Ctx:
        """Register the members, record heritage and field types; returns the context
        for everything inside the class (``this`` bound, owner = the class)."""
        reg = self.registry.get(node.id)
        qn, sig = reg if reg else ("", "")
        info = ClassInfo(qn=qn)
        body = _field(node, "body")
        members: list[TSNode] = body.named_children if body is not None else []
        owner_ctx = Ctx(qn, sig, qn, info, ctx.scope) if qn else Ctx(ctx.owner, ctx.owner_sig, ctx.prefix, None, ctx.scope)
        for c in node.named_children:
            if c.type == "class_heritage":
                self.heritage(c, info, owner_ctx if qn else None, ctx.scope)
        injected = bool(qn) and self.di_decorated(node, ctx.scope)
        # Pass 1: member names and field types, so `this.x` resolves anywhere in the body.
        for m in members:
            mt = m.type
            if mt in ("method_definition", "abstract_method_signature"):
                name = _member_name(_field(m, "name"))
                info.members.add(name)
                info.methods.add(name)
                if name == "constructor":
                    self.ctor_fields(m, info, ctx.scope)
                    if injected:
                        self.ctor_injects(m, owner_ctx, ctx.scope)
            elif mt in ("public_field_definition", "field_definition"):
                name_node = _field(m, "name") or _field(m, "property")
                name = _member_name(name_node)
                info.members.add(name)
                value = _field(m, "value")
                if value is not None and value.type in _FUNC_VALUES:
                    info.methods.add(name)
                tnode = _field(m, "type")
                if tnode is not None and qn:  # USES_TYPE from the class to its fields' types
                    self.uses_types(tnode, owner_ctx, ctx.scope, 0)
                v = _unwrap(value) if value is not None else None
                if tnode is None and v is not None and v.type == "new_expression":
                    tnode = v
                if v is not None and v.type == "identifier":  # cb = persist: this.cb() calls persist
                    info.values.setdefault(name, []).append((v, None, ctx.scope))
                if v is not None and v.type == "call_expression" and qn and (cls := self.angular_inject(v, ctx.scope)):
                    self.ref("INJECTS", owner_ctx, cls[1], cls[0], optional=True)
                    tnode = tnode or cls[0]
                if tnode is not None:
                    info.fields[name] = Binding("var", type_node=tnode, scope=ctx.scope)
        for m in members:
            if m.type == "method_definition" and _member_name(_field(m, "name")) != "constructor":
                self.assigned_fields(m, info, ctx.scope)
        # Pass 2: symbols, then walk bodies with `this` bound to the class.
        for m in members:
            mt = m.type
            if mt in ("method_definition", "abstract_method_signature") and qn:
                name = _member_name(_field(m, "name"))
                msig = self.add_symbol(name, f"{qn}.{name}", "method", m, _params_text(m), mt, qn, _member_visibility(m, name), m)
                self.registry[m.id] = (f"{qn}.{name}", msig)
            elif mt in ("public_field_definition", "field_definition"):
                value = _field(m, "value")
                if value is None or value.type not in _FUNC_VALUES or not qn:
                    continue
                name = _member_name(_field(m, "name") or _field(m, "property"))
                msig = self.add_symbol(name, f"{qn}.{name}", "method", m, _params_text(value), mt, qn,
                                       _member_visibility(m, name), m)
                self.registry[value.id] = (f"{qn}.{name}", msig)
        return owner_ctx

    def heritage(self, node: TSNode, info: ClassInfo, ctx: Ctx | None, scope: Scope) -> None:
        """``extends`` (value expression) and TS ``implements`` clauses."""
        clauses = node.named_children
        for c in clauses:
            if c.type == "extends_clause":
                value = _field(c, "value")
                self.set_base(value, info, ctx, scope)
            elif c.type == "implements_clause":
                for tnode in c.named_children:
                    if ctx is not None:
                        tgt = self.type_target(tnode, scope, ["interface", "class"])
                        if tgt is not None:
                            self.ref("IMPLEMENTS", ctx, tgt, tnode)
            elif c.type not in ("comment",):  # JavaScript grammar: the expression itself
                self.set_base(c, info, ctx, scope)

    def set_base(self, value: TSNode | None, info: ClassInfo, ctx: Ctx | None, scope: Scope) -> None:
        if value is None:
            return
        b = self.class_binding(value, scope)
        info.base = b
        if b is not None and b.kind == "ext":
            info.base_external = True
        if ctx is None:
            return
        if value.type == "call_expression":  # mixin(Base): no EXTENDS (the walk sees the call)
            return
        tgt = self.binding_target(b, _written(value), _last_name(value), ["class"]) if b is not None else None
        if tgt is None and b is None and value.type == "identifier" and _t(value) not in JS_GLOBALS:
            tgt = Target(_t(value), [], _t(value), ["class"])
        if tgt is not None:
            self.ref("EXTENDS", ctx, tgt, value)

    def ctor_fields(self, ctor: TSNode, info: ClassInfo, scope: Scope) -> None:
        """TS parameter properties (``constructor(private repo: Repo)``) and
        ``this.x = new X()`` / ``this.x = typedParam`` in the constructor."""
        params = _field(ctor, "parameters")
        ptypes: dict[str, TSNode] = {}
        if params is not None:
            for p in params.named_children:
                if p.type not in ("required_parameter", "optional_parameter"):
                    continue
                pat, tnode = _field(p, "pattern"), _field(p, "type")
                if pat is None or pat.type != "identifier":
                    continue
                if tnode is not None:
                    ptypes[_t(pat)] = tnode
                if any(c.type in ("accessibility_modifier", "readonly", "override_modifier") for c in p.children):
                    info.members.add(_t(pat))
                    if tnode is not None:
                        info.fields[_t(pat)] = Binding("var", type_node=tnode, scope=scope)
        self.assigned_fields(ctor, info, scope, ptypes)

    def assigned_fields(self, method: TSNode, info: ClassInfo, scope: Scope, ptypes: dict[str, TSNode] | None = None) -> None:
        body = _field(method, "body")
        if body is None:
            return
        for st in body.named_children:
            if st.type != "expression_statement" or not st.named_children:
                continue
            asg = st.named_children[0]
            if asg.type != "assignment_expression":
                continue
            left, right = _field(asg, "left"), _field(asg, "right")
            if left is None or right is None or left.type != "member_expression":
                continue
            obj = _field(left, "object")
            if obj is None or obj.type != "this":
                continue
            fname = _t(_field(left, "property"))
            info.members.add(fname)
            r = _unwrap(right)
            if r.type == "identifier":  # this.cb = persist: this.cb() calls persist (looked up in this method)
                info.values.setdefault(fname, []).append((r, method, scope))
            if fname in info.fields:
                continue
            if r.type in ("new_expression", "as_expression"):
                info.fields[fname] = Binding("var", type_node=r, scope=scope)
            elif r.type == "identifier" and ptypes and _t(r) in ptypes:
                info.fields[fname] = Binding("var", type_node=ptypes[_t(r)], scope=scope)

    # -- dependency injection ------------------------------------------------------------------
    def di_decorated(self, node: TSNode, scope: Scope) -> bool:
        """Whether a class carries a decorator of a dependency-injection framework
        (``@Injectable()``, ``@Controller()``, ``@Component({...})`` imported from
        ``@nestjs/*``, ``@angular/core``, typedi, inversify, tsyringe): its constructor's
        typed parameters are provided by the container."""
        decos = [c for c in node.named_children if c.type == "decorator"]
        if node.parent is not None and node.parent.type == "export_statement":
            decos += [c for c in node.parent.named_children if c.type == "decorator"]
        for d in decos:
            expr = next((c for c in d.named_children if c.type != "comment"), None)
            root = _chain_root(expr) if expr is not None else None
            b = scope.lookup(_t(root)) if root is not None and root.type == "identifier" else None
            if b is not None and b.kind == "ext" and _is_di_package(b.pkg):
                return True
        return False

    def ctor_injects(self, ctor: TSNode, ctx: Ctx, scope: Scope) -> None:
        """INJECTS from the class to each class of the repo its constructor parameters are
        typed by (``constructor(private readonly users: UsersService)``); with
        ``@Inject(token)`` the token is the provider (a class named there, else none)."""
        params = _field(ctor, "parameters")
        for p in params.named_children if params is not None else []:
            if p.type not in ("required_parameter", "optional_parameter"):
                continue
            tnode = _field(p, "type")
            given = next((d for d in p.named_children if d.type == "decorator"
                          and _t(_chain_root(d.named_children[0]) if d.named_children else None) == "Inject"), None)
            if given is not None:
                call = given.named_children[0]
                args = _field(call, "arguments") if call.type == "call_expression" else None
                token = next((a for a in (args.named_children if args is not None else []) if a.type != "comment"), None)
                tnode = token if token is not None and token.type in ("identifier", "member_expression") else None
            elif tnode is not None:
                tnode = tnode.named_children[0] if tnode.named_children else None
            tgt = self.injected_target(tnode, scope) if tnode is not None else None
            if tgt is not None:
                self.ref("INJECTS", ctx, tgt, tnode, optional=True)

    def angular_inject(self, call: TSNode, scope: Scope) -> tuple[TSNode, Target] | None:
        """``inject(UsersService)`` (``inject`` from ``@angular/core``): the class node and
        its INJECTS target."""
        fn = _field(call, "function")
        b = scope.lookup(_t(fn)) if fn is not None and fn.type == "identifier" else None
        if b is None or b.kind != "ext" or b.pkg != "@angular/core" or b.export != "inject":
            return None
        args = _field(call, "arguments")
        first = next((a for a in (args.named_children if args is not None else []) if a.type != "comment"), None)
        if first is None or first.type not in ("identifier", "member_expression"):
            return None
        tgt = self.injected_target(first, scope)
        return (first, tgt) if tgt is not None else None

    def injected_target(self, tnode: TSNode, scope: Scope) -> Target | None:
        if tnode.type == "generic_type":
            tnode = _field(tnode, "name") or tnode
        b = self.class_binding(tnode, scope)
        if b is None or not (b.kind == "import" or (b.kind == "sym" and b.sym_kind == "class")):
            return None
        tgt = self.binding_target(b, _t(tnode), _last_name(tnode), ["class"])
        if tgt is None or not tgt.cands:
            return None
        return Target(tgt.ident, [{**c, "how": "injection"} for c in tgt.cands])

    def on_interface(self, node: TSNode, ctx: Ctx) -> None:
        reg = self.registry.get(node.id)
        if reg is None:
            return
        qn, sig = reg
        ictx = Ctx(qn, sig, qn, None, ctx.scope)
        for c in node.named_children:
            if c.type == "extends_type_clause":
                for tnode in c.named_children:
                    tgt = self.type_target(tnode, ctx.scope, ["interface", "class"])
                    if tgt is not None:
                        self.ref("EXTENDS", ictx, tgt, tnode)
        body = _field(node, "body")
        for m in body.named_children if body is not None else []:
            if m.type == "method_signature":
                name = _member_name(_field(m, "name"))
                self.add_symbol(name, f"{qn}.{name}", "method", m, _params_text(m), m.type, qn, "public", m)



_DI_PACKAGES = frozenset(("@angular/core", "typedi", "inversify", "tsyringe"))


def _is_di_package(pkg: str) -> bool:
    return pkg.startswith("@nestjs/") or pkg in _DI_PACKAGES

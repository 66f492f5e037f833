"""What a name means where: bindings, scopes, class contexts and call targets
(dataclasses), and the declaration pre-pass (``_Declarations``) that fills a scope
before the walk (JS hoists declarations, so a call may precede its definition).
See docs/DESIGN.md#extraction-contract."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tree_sitter import Node as TSNode

from codegraph.indexer.languages.javascript.syntax import (
    _COMPOUND,
    _DECL_STMTS,
    _FUNC_VALUES,
    _field,
    _first_string_arg,
    _object_members,
    _object_pattern_pairs,
    _params_text,
    _pattern_names,
    _require_spec,
    _t,
    _unwrap,
    _unwrap_satisfies,
    _wrapped_function,
)

# --- bindings -----------------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class Binding:
    """What a name means in a scope.

    kind: ``sym`` (a symbol of this file: qn, sym_kind) | ``import`` (export ``export``
    of the relative module at ``cands``) | ``ns`` (a whole relative module: namespace
    import or ``require``) | ``ext`` (from package ``pkg``) | ``alias`` (path alias we
    cannot map) | ``var`` (a local value; ``type_node`` gives its class when visible).
    """

    kind: str
    qn: str = ""
    sym_kind: str = ""
    cands: list[str] = field(default_factory=list)
    export: str = ""
    spec: str = ""
    pkg: str = ""
    type_node: TSNode | None = None
    scope: Scope | None = None
    members: frozenset[str] = frozenset()  # object-literal members (sym variable)
    origin: TSNode | None = None  # var / sym variable: the initial value
    resolved: bool = False
    type: Binding | None = None
    param_of: str = ""  # var: a parameter of this function symbol, at position param_index
    param_index: int | None = None
    member: str = ""  # var: destructured property ``member`` of ``origin`` (``const {save} = handlers``)
    fn: TSNode | None = None  # sym function: its function node (what it returns)


class Scope:
    __slots__ = ("names", "parent")

    def __init__(self, parent: Scope | None = None) -> None:
        self.names: dict[str, Binding] = {}
        self.parent = parent

    def lookup(self, name: str) -> Binding | None:
        s: Scope | None = self
        while s is not None:
            b = s.names.get(name)
            if b is not None:
                return b
            s = s.parent
        return None


@dataclass(slots=True)
class ClassInfo:
    """``this`` inside a class (or a module-level object literal)."""

    qn: str
    base: Binding | None = None
    base_external: bool = False
    members: set[str] = field(default_factory=set)
    methods: set[str] = field(default_factory=set)
    fields: dict[str, Binding] = field(default_factory=dict)
    # Fields assigned a plain name (``cb = persist`` / ``this.cb = persist``): field ->
    # (the name's node, the method assigning it or None for a class field, the class's scope).
    values: dict[str, list[tuple[TSNode, TSNode | None, Scope]]] = field(default_factory=dict)


@dataclass(slots=True)
class Ctx:
    owner: str  # qualified name that owns calls here
    owner_sig: str
    prefix: str  # qualified-name prefix for declarations here
    cls: ClassInfo | None
    scope: Scope


@dataclass(slots=True)
class Target:
    """A resolved callee: the reference's target identifier and hints."""

    ident: str
    cands: list[dict[str, Any]]
    name: str | None = None
    kinds: list[str] | None = None
    extra: dict[str, Any] = field(default_factory=dict)




class _Declarations:
    """Mixed into ``extractor._Extractor``: the declaration pre-pass of a scope."""

    # -- declaration pre-pass -----------------------------------------------------------------
    def collect(self, stmts: list[TSNode], ctx: Ctx, module: bool = False) -> None:
        """Declare what ``stmts`` (and nested blocks, not nested functions) bind in ``ctx.scope``."""
        stack = list(reversed(stmts))
        sigs: list[TSNode] = []
        impl_names: set[str] = set()
        while stack:
            st = stack.pop()
            t = st.type
            if t in _COMPOUND:
                stack.extend(reversed(st.named_children))
                if t == "for_in_statement":
                    for n in _pattern_names(_field(st, "left"), []):
                        ctx.scope.names.setdefault(n, Binding("var"))
                elif t == "catch_clause":
                    for n in _pattern_names(_field(st, "parameter"), []):
                        ctx.scope.names.setdefault(n, Binding("var"))
                continue
            if t not in _DECL_STMTS:
                continue
            if t == "expression_statement" and not module:
                first = st.named_child(0)
                if first is None or first.type != "internal_module":
                    continue
            decl = _field(st, "declaration") if t == "export_statement" else st
            dt = decl.type if decl is not None else ""
            if dt == "function_signature":
                sigs.append(st)
                continue
            if dt in ("function_declaration", "generator_function_declaration"):
                impl_names.add(_t(_field(decl, "name")))
            if t == "export_statement":
                self.collect_export(st, ctx, module)
            else:
                self.declare(st, st, ctx, module, exported=False)
        # TS overload signatures become symbols only without an implementation (.d.ts, declare).
        done: set[str] = set()
        for st in sigs:
            decl = _field(st, "declaration") if st.type == "export_statement" else st
            name = _t(_field(decl, "name")) if decl is not None else ""
            if not name or name in impl_names or name in done:
                continue
            done.add(name)
            if st.type == "export_statement":
                self.collect_export(st, ctx, module)
            else:
                self.declare(st, st, ctx, module, exported=False)

    def visibility(self, name: str, exported: bool, module: bool) -> str:
        return "public" if exported or (module and name in self.exported_locals) else "internal"

    def declare(self, node: TSNode, outer: TSNode, ctx: Ctx, module: bool, exported: bool) -> list[str]:
        """Register one declaration statement; returns the names it binds."""
        t = node.type
        scope, prefix = ctx.scope, ctx.prefix
        if t in ("function_declaration", "generator_function_declaration", "function_signature"):
            name = _t(_field(node, "name"))
            if not name:
                return []
            qn = f"{prefix}.{name}"
            sig = self.add_symbol(name, qn, "function", outer, _params_text(node), t, prefix,
                                  self.visibility(name, exported, module), outer)
            self.registry[node.id] = (qn, sig)
            # type_node of a function: its declared return type (`makeParser(): Parser`)
            scope.names[name] = Binding("sym", qn=qn, sym_kind="function", type_node=_field(node, "return_type"),
                                        scope=scope, fn=node)
            return [name]
        if t in ("class_declaration", "abstract_class_declaration"):
            name = _t(_field(node, "name"))
            if not name:
                return []
            qn = f"{prefix}.{name}"
            sig = self.add_symbol(name, qn, "class", outer, "", t, prefix, self.visibility(name, exported, module), outer)
            self.registry[node.id] = (qn, sig)
            scope.names[name] = Binding("sym", qn=qn, sym_kind="class")
            return [name]
        if t in ("interface_declaration", "enum_declaration", "type_alias_declaration"):
            name = _t(_field(node, "name"))
            if not name:
                return []
            kind = {"interface_declaration": "interface", "enum_declaration": "enum"}.get(t, "type")
            qn = f"{prefix}.{name}"
            sig = self.add_symbol(name, qn, kind, outer, "", t, prefix, self.visibility(name, exported, module), outer)
            self.registry[node.id] = (qn, sig)
            prev = scope.names.get(name)
            # TS keeps types and values apart: `type schema = ...` must not hide `const schema`.
            if kind == "enum" or prev is None or (prev.kind == "sym" and prev.sym_kind in ("type", "interface")):
                scope.names[name] = Binding("sym", qn=qn, sym_kind=kind)
            return [name]
        if t in ("lexical_declaration", "variable_declaration"):
            names: list[str] = []
            for d in node.named_children:
                if d.type == "variable_declarator":
                    names.extend(self.declarator(d, outer, ctx, module, exported))
            return names
        if t == "import_statement" and module:
            self.collect_import(node, scope)
            return []
        if t == "expression_statement" and node.named_children:
            inner = node.named_children[0]
            if inner.type == "internal_module":
                return self.declare(inner, outer, ctx, module, exported)
            if inner.type == "assignment_expression" and module:
                self.collect_cjs(inner, ctx)
            return []
        if t == "ambient_declaration":
            for c in node.named_children:
                if c.type == "module" or c.type == "statement_block":
                    continue  # `declare module 'x' {}` / `declare global {}` describe other code
                return self.declare(c, outer, ctx, module, exported)
            return []
        if t == "internal_module":  # TS `namespace X {}`: its members are `X.member`
            name = _t(_field(node, "name"))
            if not name:
                return []
            qn = f"{prefix}.{name}"
            sig = self.add_symbol(name, qn, "namespace", outer, "", t, prefix, self.visibility(name, exported, module), outer)
            self.registry[node.id] = (qn, sig)
            scope.names.setdefault(name, Binding("sym", qn=qn, sym_kind="namespace"))
            return [name]
        return []

    def declarator(self, d: TSNode, outer: TSNode, ctx: Ctx, module: bool, exported: bool) -> list[str]:
        name_node, value = _field(d, "name"), _field(d, "value")
        scope, prefix = ctx.scope, ctx.prefix
        if name_node is None:
            return []
        if name_node.type != "identifier":
            names = _pattern_names(name_node, [])
            if value is not None and (spec := _require_spec(value)) is not None and name_node.type == "object_pattern":
                for orig, local in _object_pattern_pairs(name_node):
                    scope.names[local] = self.import_binding(spec, orig)
            else:
                for n in names:
                    scope.names[n] = Binding("var")
                src = _unwrap(value) if value is not None else None
                if src is not None and src.type == "identifier" and name_node.type == "object_pattern":
                    # const {save} = handlers: save is handlers.save (a default value makes it unknown)
                    for orig, local in _object_pattern_pairs(name_node, sure=True):
                        scope.names[local] = Binding("var", origin=src, member=orig, scope=scope)
            return names
        name = _t(name_node)
        vis = self.visibility(name, exported, module)
        if value is not None:
            value = _unwrap_satisfies(value)
            vt = value.type
            fn = value if vt in _FUNC_VALUES else _wrapped_function(value)
            if fn is not None:
                qn = f"{prefix}.{name}"
                sig = self.add_symbol(name, qn, "function", outer, _params_text(fn), fn.type, prefix, vis, outer)
                self.registry[fn.id] = (qn, sig)
                scope.names[name] = Binding("sym", qn=qn, sym_kind="function", type_node=_field(fn, "return_type"),
                                            scope=scope, fn=fn if fn is value else None)
                return [name]
            if vt == "class":
                qn = f"{prefix}.{name}"
                sig = self.add_symbol(name, qn, "class", outer, "", vt, prefix, vis, outer)
                self.registry[value.id] = (qn, sig)
                scope.names[name] = Binding("sym", qn=qn, sym_kind="class")
                return [name]
            spec = _require_spec(value)
            if spec is not None:
                scope.names[name] = self.ns_binding(spec)
                return [name]
            if vt == "member_expression" and (spec := _require_spec(_field(value, "object"))) is not None:
                scope.names[name] = self.import_binding(spec, _t(_field(value, "property")))
                return [name]
            if vt == "await_expression" and value.named_children and value.named_children[0].type == "call_expression":
                call = value.named_children[0]
                fnode = _field(call, "function")
                if fnode is not None and fnode.type == "import" and (spec := _first_string_arg(call)) is not None:
                    scope.names[name] = self.ns_binding(spec)
                    return [name]
        type_node: TSNode | None = _field(d, "type")
        if type_node is None and value is not None:
            v = _unwrap(value)
            if v.type in ("new_expression", "as_expression") or (
                    v.type == "call_expression" and (f := _field(v, "function")) is not None and f.type == "identifier"):
                type_node = v
        # Module-level objects with methods and exported constants are symbols: callers of
        # `api.list()` / `import {CONFIG}` need a node to point at.
        if module and value is not None and (value.type == "object" or name in self.exported_locals or exported):
            members = _object_members(value) if value.type == "object" else []
            if value.type == "object" and not members and not (exported or name in self.exported_locals):
                scope.names[name] = Binding("var", type_node=type_node, scope=scope, origin=value)
                return [name]
            qn = f"{prefix}.{name}"
            sig = self.add_symbol(name, qn, "variable", outer, "", "variable_declarator", prefix, vis, outer)
            if value.type == "object":
                self.register_object(value, qn, sig, members)
            scope.names[name] = Binding("sym", qn=qn, sym_kind="variable", type_node=type_node, scope=scope,
                                        members=frozenset(m for m, _ in members), origin=value)
            return [name]
        scope.names[name] = Binding("var", type_node=type_node, scope=scope, origin=value)
        return [name]

    def register_object(self, obj: TSNode, qn: str, sig: str, members: list[tuple[str, TSNode]]) -> None:
        self.registry[obj.id] = (qn, sig)
        info = ClassInfo(qn=qn, members={m for m, _ in members}, methods={m for m, _ in members})
        self.objects[obj.id] = info
        for mname, fn in members:
            mqn = f"{qn}.{mname}"
            span = fn.parent if fn.type != "method_definition" and fn.parent is not None else fn
            msig = self.add_symbol(mname, mqn, "method", span, _params_text(fn), fn.type, qn,
                                   "private" if mname.startswith("#") else "public", span)
            self.registry[fn.id] = (mqn, msig)


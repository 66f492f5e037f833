"""Receiver types: the class a value has (annotations, ``new X()``, ``x as X``, declared
return types, ``Promise<T>``, unions with null), the class an expression names, and
USES_TYPE from a function's signature to the classes, interfaces, type aliases and enums
it names."""

from __future__ import annotations

from tree_sitter import Node as TSNode

from codegraph.indexer.languages.javascript.scopes import Binding, Ctx, Scope, Target
from codegraph.indexer.languages.javascript.syntax import _CLASSLIKE, JS_GLOBALS, _field, _flatten_union, _t, _unwrap


class _Types:
    """Mixed into ``extractor._Extractor``: types of values and annotations."""

    def on_type_use(self, node: TSNode, ctx: Ctx) -> None:
        """A type named inside code: ``const x: Foo = ...``, ``y as Foo``, ``z satisfies
        Foo``: USES_TYPE from the enclosing symbol (as for signatures: never a stub)."""
        if node.type != "type_annotation":
            kids = node.named_children
            if len(kids) != 2:
                return
            node = kids[1]
        self.uses_types(node, ctx, ctx.scope, 0)

    def uses_types(self, tnode: TSNode, ctx: Ctx, scope: Scope, depth: int) -> None:
        """USES_TYPE to every class / interface / type alias / enum of the repo a TS type
        annotation names (generic arguments, unions, arrays included); never a stub."""
        if depth > 12:
            return
        t = tnode.type
        if t in ("type_identifier", "nested_type_identifier"):
            b = self.class_binding(tnode, scope)
            if b is None or (b.kind == "sym" and b.sym_kind not in ("class", "interface", "type", "enum")) \
                    or b.kind not in ("sym", "import"):
                return
            tgt = self.binding_target(b, _t(tnode), _t(tnode).rsplit(".", 1)[-1], ["class"])
            if tgt is not None and tgt.cands:
                self.ref("USES_TYPE", ctx, Target(tgt.ident, [{**c, "how": "annotation"} for c in tgt.cands]),
                         tnode, optional=True)
            return
        for c in tnode.named_children:
            self.uses_types(c, ctx, scope, depth + 1)

    def class_binding(self, expr: TSNode, scope: Scope) -> Binding | None:
        """The class an expression names (``Foo``, ``ns.Foo``) as a binding, if known."""
        expr = _unwrap(expr)
        if expr.type in ("identifier", "type_identifier"):
            b = scope.lookup(_t(expr))
            if b is None or b.kind == "var":
                return None
            if b.kind == "ns":  # const Logger = require('./logger'): the module's export
                return Binding("import", cands=b.cands, export="default", spec=b.spec)
            if b.kind == "sym" and b.sym_kind not in _CLASSLIKE:
                return None
            return b
        if expr.type in ("member_expression", "nested_type_identifier"):
            obj = _field(expr, "object") or _field(expr, "module")
            prop = _field(expr, "property") or _field(expr, "name")
            if obj is None or prop is None or obj.type != "identifier":
                return None
            b = scope.lookup(_t(obj))
            if b is None:
                return None
            if b.kind == "ns":
                return Binding("import", cands=b.cands, export=_t(prop), spec=b.spec)
            if b.kind == "ext":
                return Binding("ext", export=_t(prop) if b.export in ("*", "default") else f"{b.export}.{_t(prop)}",
                               spec=b.spec, pkg=b.pkg)
            if b.kind == "sym" and b.sym_kind == "namespace":
                return Binding("sym", qn=f"{b.qn}.{_t(prop)}", sym_kind="class")
        return None

    def type_binding(self, tnode: TSNode | None, scope: Scope) -> Binding | None:
        """The class of a value from a type annotation, ``new X()`` or ``x as X``."""
        if tnode is None:
            return None
        t = tnode.type
        if t == "type_annotation":
            return self.type_binding(tnode.named_children[0] if tnode.named_children else None, scope)
        if t == "new_expression":
            ctor = _field(tnode, "constructor")
            return self.class_binding(ctor, scope) if ctor is not None else None
        if t == "as_expression":
            kids = tnode.named_children
            return self.type_binding(kids[-1], scope) if len(kids) == 2 else None
        if t == "call_expression":  # the declared return type of a function of this file
            fb = scope.lookup(_t(_field(tnode, "function")))
            if fb is None or fb.kind != "sym" or fb.sym_kind != "function" or fb.type_node is None:
                return None
            return self.type_of(fb)
        if t == "generic_type":
            name = _field(tnode, "name")
            args = _field(tnode, "type_arguments")
            if _t(name) == "Promise" and args is not None and args.named_children:  # awaited value
                return self.type_binding(args.named_children[0], scope)
            return self.type_binding(name, scope)
        if t in ("type_identifier", "nested_type_identifier", "identifier"):
            return self.class_binding(tnode, scope)
        if t in ("union_type", "parenthesized_type"):
            parts = [c for c in tnode.named_children if not (c.type == "literal_type" or _t(c) in ("null", "undefined"))]
            if len(parts) == 1:
                return self.type_binding(parts[0], scope)
            if t == "union_type":  # nested unions are left-leaning binaries
                flat = _flatten_union(tnode)
                flat = [c for c in flat if not (c.type == "literal_type" or _t(c) in ("null", "undefined"))]
                if len(flat) == 1:
                    return self.type_binding(flat[0], scope)
        return None

    def type_of(self, b: Binding) -> Binding | None:
        if not b.resolved:
            b.resolved = True
            if b.type_node is not None and b.scope is not None:
                b.type = self.type_binding(b.type_node, b.scope)
        return b.type

    def type_target(self, tnode: TSNode, scope: Scope, kinds: list[str]) -> Target | None:
        """Target of a type in ``implements`` / interface ``extends``."""
        name_node = _field(tnode, "name") if tnode.type == "generic_type" else tnode
        if name_node is None:
            return None
        b = self.class_binding(name_node, scope)
        written = _t(name_node)
        last = written.rsplit(".", 1)[-1]
        if b is None:
            if written in JS_GLOBALS or "." in written:
                return None
            return Target(written, [], last, kinds)
        return self.binding_target(b, written, last, kinds)


"""ES imports, ``require``, ES and CommonJS exports, re-exports (barrels): the IMPORTS
references, the import bindings of a scope and the file's export map."""

from __future__ import annotations

import posixpath
from typing import Any

from tree_sitter import Node as TSNode

from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages.javascript.paths import _ASSET_EXTS, is_path_alias, package_name, specifier_paths
from codegraph.indexer.languages.javascript.scopes import Binding, Ctx, Scope
from codegraph.indexer.languages.javascript.syntax import (
    _CLASS_NODES,
    _FUNC_VALUES,
    _cjs_export_name,
    _field,
    _hoc_argument,
    _member_name,
    _object_members,
    _params_text,
    _require_spec,
    _string_value,
    _t,
    _unwrap,
    _unwrap_satisfies,
)
from codegraph.indexer.records import Reference


class _Imports:
    """Mixed into ``extractor._Extractor``: imports and exports of one file."""

    def paths(self, spec: str) -> list[str] | None:
        """``specifier_paths`` from this file, memoised (a specifier recurs in bindings and refs)."""
        if spec not in self._paths:
            self._paths[spec] = specifier_paths(self.path, spec)
        return self._paths[spec]

    def import_ref(self, spec: str, node: TSNode, names: list[str], forwarding: bool = False, **extra: Any) -> None:
        paths = self.paths(spec)
        ex: dict[str, Any] = {"names": names, "forwarding": forwarding}
        if paths is None:
            ex["candidates"] = []
            if is_path_alias(spec):
                ex["alias"] = spec
            else:
                ex["external"] = package_name(spec)
        else:
            if paths and posixpath.splitext(paths[0])[1].lower() in _ASSET_EXTS:
                return
            ex["candidates"] = [{"path": p, "how": "import"} for p in paths]
        ex.update(extra)
        self.refs.append(Reference("IMPORTS", self.path, spec, self.path, ts.line(node), "", "file", ex))

    # -- bindings of imports -----------------------------------------------------------------
    def import_binding(self, spec: str, export: str) -> Binding:
        paths = self.paths(spec)
        if paths is None:
            if is_path_alias(spec):
                return Binding("alias", export=export, spec=spec)
            return Binding("ext", export=export, spec=spec, pkg=package_name(spec))
        return Binding("import", cands=paths, export=export, spec=spec)

    def ns_binding(self, spec: str) -> Binding:
        paths = self.paths(spec)
        if paths is None:
            if is_path_alias(spec):
                return Binding("alias", export="*", spec=spec)
            return Binding("ext", export="*", spec=spec, pkg=package_name(spec))
        return Binding("ns", cands=paths, spec=spec)

    def assigned_method(self, left: TSNode, fn: TSNode, scope: Scope) -> None:
        """Pre-class JavaScript: ``Foo.prototype.go = function`` / ``Foo.create = function``
        make methods of the local constructor function or class ``Foo``."""
        obj = _field(left, "object")
        member = _t(_field(left, "property"))
        if obj is not None and obj.type == "member_expression" and _t(_field(obj, "property")) == "prototype":
            obj = _field(obj, "object")
        if obj is None or obj.type != "identifier" or not member:
            return
        b = scope.names.get(_t(obj))
        if b is None or b.kind != "sym" or b.sym_kind not in ("function", "class"):
            return
        qn = f"{b.qn}.{member}"
        stmt = left.parent.parent if left.parent is not None and left.parent.parent is not None else left
        sig = self.add_symbol(member, qn, "method", stmt, _params_text(fn), fn.type, b.qn, "public", stmt)
        self.registry[fn.id] = (qn, sig)

    def export_entry(self, local: str, scope: Scope) -> dict[str, Any] | None:
        b = scope.names.get(local)
        if b is None:
            return None
        if b.kind == "sym":
            return {"qn": b.qn}
        if b.kind == "import":
            return {"from": b.cands, "name": b.export}
        return None

    # -- module-level pre-scan: which local names are exported -----------------------------
    def prescan_exports(self, root: TSNode) -> None:
        for st in root.named_children:
            if st.type == "export_statement" and _field(st, "source") is None:
                for c in st.named_children:
                    if c.type == "export_clause":
                        for spec in c.named_children:
                            if spec.type == "export_specifier":
                                self.exported_locals.add(_t(_field(spec, "name")))
                    elif c.type == "identifier":  # export default x / export = x
                        self.exported_locals.add(_t(c))
            elif st.type == "expression_statement":
                asg = st.named_children[0] if st.named_children else None
                if asg is None or asg.type != "assignment_expression":
                    continue
                left, right = _field(asg, "left"), _field(asg, "right")
                if left is None or right is None or _cjs_export_name(left) is None:
                    continue
                if right.type == "identifier":
                    self.exported_locals.add(_t(right))
                elif right.type == "object":
                    for c in right.named_children:
                        if c.type == "shorthand_property_identifier":
                            self.exported_locals.add(_t(c))
                        elif c.type == "pair" and (v := _field(c, "value")) is not None and v.type == "identifier":
                            self.exported_locals.add(_t(v))

    def collect_import(self, node: TSNode, scope: Scope) -> None:
        spec = _string_value(_field(node, "source"))
        clause = next((c for c in node.named_children if c.type in ("import_clause", "import_require_clause")), None)
        if clause is not None and clause.type == "import_require_clause":
            src = _string_value(_field(clause, "source"))
            ident = next((c for c in clause.named_children if c.type == "identifier"), None)
            if src is not None:
                if ident is not None:
                    scope.names[_t(ident)] = self.ns_binding(src)
                self.import_ref(src, node, ["*"])
            return
        if spec is None:
            return
        type_only = any(c.type == "type" for c in node.children)
        names: list[str] = []
        if clause is not None:
            for c in clause.named_children:
                if c.type == "identifier":
                    scope.names[_t(c)] = self.import_binding(spec, "default")
                    names.append("default")
                elif c.type == "namespace_import":
                    ident = next((x for x in c.named_children if x.type == "identifier"), None)
                    if ident is not None:
                        scope.names[_t(ident)] = self.ns_binding(spec)
                    names.append("*")
                elif c.type == "named_imports":
                    for s in c.named_children:
                        if s.type != "import_specifier":
                            continue
                        orig = _member_name(_field(s, "name"))
                        alias = _field(s, "alias")
                        scope.names[_t(alias) if alias is not None else orig] = self.import_binding(spec, orig)
                        names.append(orig)
        extra = {"type_only": True} if type_only else {}
        self.import_ref(spec, node, names or ["*"], **extra)

    def collect_export(self, st: TSNode, ctx: Ctx, module: bool) -> None:
        source = _string_value(_field(st, "source"))
        decl = _field(st, "declaration")
        is_default = any(c.type == "default" for c in st.children)
        if source is not None:
            if not module:
                return
            paths = self.paths(source)
            names: list[str] = []
            clause = next((c for c in st.named_children if c.type == "export_clause"), None)
            if clause is not None:
                for s in clause.named_children:
                    if s.type != "export_specifier":
                        continue
                    orig = _member_name(_field(s, "name"))
                    alias = _field(s, "alias")
                    names.append(orig)
                    if paths:
                        self.exports[_member_name(alias) if alias is not None else orig] = {"from": paths, "name": orig}
            else:
                names.append("*")
                ns_exp = next((c for c in st.named_children if c.type == "namespace_export"), None)
                if ns_exp is None and paths:
                    self.exports.setdefault("*", {"from_all": []})["from_all"].append(paths)
            self.import_ref(source, st, names, forwarding=True)
            return
        if decl is not None:
            names = self.declare(decl, st, ctx, module, exported=True)
            if module:
                if is_default:  # `export default class Foo` exports "default", not "Foo"
                    if names:
                        self.exports["default"] = {"qn": f"{ctx.prefix}.{names[0]}"}
                    return
                for n in names:
                    b = ctx.scope.names.get(n)
                    if b is not None and b.kind == "sym":
                        self.exports[n] = {"qn": b.qn}
            return
        value = _field(st, "value")
        if value is None:  # export { a as b } / export = x
            for c in st.named_children:
                if c.type == "export_clause" and module:
                    for s in c.named_children:
                        if s.type == "export_specifier":
                            orig = _t(_field(s, "name"))
                            alias = _field(s, "alias")
                            self.pending_exports.append((_member_name(alias) if alias is not None else orig, orig))
                elif c.type == "identifier" and module:
                    self.pending_exports.append(("default", _t(c)))
            return
        value = _unwrap_satisfies(value)
        if not module:
            return
        vt = value.type
        qn = f"{ctx.prefix}.default"
        if vt in _FUNC_VALUES or vt in _CLASS_NODES:
            named = _field(value, "name")
            name = _t(named) if named is not None else "default"
            qn = f"{ctx.prefix}.{name}"
            kind = "class" if vt in _CLASS_NODES else "function"
            sig = self.add_symbol(name, qn, kind, st, _params_text(value) if kind == "function" else "", vt,
                                  ctx.prefix, "public", st)
            self.registry[value.id] = (qn, sig)
            self.exports["default"] = {"qn": qn}
        elif vt == "identifier":
            self.pending_exports.append(("default", _t(value)))
        elif vt == "object":
            members = _object_members(value)
            sig = self.add_symbol("default", qn, "variable", st, "", "object", ctx.prefix, "public", st)
            self.register_object(value, qn, sig, members)
            self.exports["default"] = {"qn": qn}
        elif vt == "call_expression":
            wrapped = _hoc_argument(value)  # export default connect(mapState)(OrderList)
            if wrapped:
                self.pending_exports.append(("default", wrapped))

    def collect_cjs(self, asg: TSNode, ctx: Ctx) -> None:
        """``module.exports = ...`` / ``exports.x = ...`` at module level."""
        left, right = _field(asg, "left"), _field(asg, "right")
        if left is None or right is None:
            return
        exported = _cjs_export_name(left)
        if exported is None:
            if left.type == "member_expression" and _unwrap(right).type in _FUNC_VALUES:
                self.pending_members.append((left, _unwrap(right)))
            return
        right = _unwrap(right)
        rt = right.type
        mod = ctx.prefix
        if exported == "default" and rt == "object":
            for mname, fn in _object_members(right):
                qn = f"{mod}.{mname}"
                span = fn.parent if fn.type != "method_definition" and fn.parent is not None else fn
                sig = self.add_symbol(mname, qn, "function", span, _params_text(fn), fn.type, mod, "public", span)
                self.registry[fn.id] = (qn, sig)
                self.exports[mname] = {"qn": qn}
            for c in right.named_children:
                if c.type == "shorthand_property_identifier":
                    self.pending_exports.append((_t(c), _t(c)))
                elif c.type == "pair":
                    v = _field(c, "value")
                    if v is not None and v.type == "identifier":
                        self.pending_exports.append((_member_name(_field(c, "key")), _t(v)))
            return
        if rt == "identifier":
            self.pending_exports.append((exported, _t(right)))
            return
        if rt in _FUNC_VALUES or rt in _CLASS_NODES:
            named = _field(right, "name")
            name = exported if exported != "default" else (_t(named) if named is not None else "default")
            qn = f"{mod}.{name}"
            kind = "class" if rt in _CLASS_NODES else "function"
            sig = self.add_symbol(name, qn, kind, asg.parent or asg, _params_text(right) if kind == "function" else "",
                                  rt, mod, "public", asg.parent or asg)
            self.registry[right.id] = (qn, sig)
            self.exports[exported] = {"qn": qn}
            return
        spec = _require_spec(right)
        if spec is not None and exported == "default":
            paths = self.paths(spec)
            if paths:
                self.exports.setdefault("*", {"from_all": []})["from_all"].append(paths)
                self.exports["default"] = {"from": paths, "name": "default"}


"""Python scopes: the scope model (module, class, function, lambda), building the scopes
and their symbols from the definitions, parameters, and the bindings assignments,
``for`` targets and ``self.x = ...`` make (docs/DESIGN.md#extraction-contract)."""

from __future__ import annotations

import inspect
from bisect import bisect_right
from operator import attrgetter
from typing import Any

from tree_sitter import Node

from codegraph.core.models import REFERENCES, SymbolRecord
from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages.python.common import (
    _STRING_PREFIX,
    DOCSTRING_MAX,
    F_ATTRIBUTE,
    F_BODY,
    F_LEFT,
    F_NAME,
    F_OBJECT,
    F_PARAMETERS,
    F_RETURN_TYPE,
    F_RIGHT,
    F_SUPERCLASSES,
    F_TYPE,
    F_VALUE,
    LANGUAGE,
    SIGNATURE_MAX,
    visibility,
)
from codegraph.indexer.languages.python.flow import target_parts

_ENTITY_KINDS = frozenset(("def", "mod", "from"))  # bindings that name an entity (_Scope.entities)


class _Scope:
    """A module, class, function or lambda. ``named`` is the nearest scope that is a
    symbol (lambdas attribute their references to it). ``names`` maps a bound name to
    its bindings, each a tuple whose first item is the binding kind:

    ("def", qn, "class"|"function", scope, return_type_node)  a def/class in this file
    ("mod", module_qn, stems)                     ``import a.b [as c]``
    ("from", module_qn, name, stems)              ``from m import name [as x]``
    ("var", value_node, annotation_node, scope)   an assignment (value evaluated in scope)
    ("part", value_node, path, scope, starred)    a destructuring target (flow.target_parts)
    ("elem", iterable_node, scope)                ``for name in iterable``
    ("param", annotation_node, index, default)    a parameter (index None for *args/**kw)
    ("self", class_scope)                         first parameter of a method
    ("local",)                                    anything else (for/with/except targets)
    """

    __slots__ = (
        "kind", "qn", "sig", "start", "end", "parent", "named", "names", "attrs", "bases",
        "base_info", "base_names", "star", "cls_method", "entities", "resolved",
    )

    def __init__(self, kind: str, qn: str, sig: str, start: int, end: int, parent: _Scope | None) -> None:
        self.kind = kind
        self.qn = qn
        self.sig = sig
        self.start = start
        self.end = end
        self.parent = parent
        self.named: _Scope = self if kind != "lambda" or parent is None else parent.named
        self.names: dict[str, list[tuple[Any, ...]]] = {}
        self.attrs: dict[str, list[tuple[Node | None, Node | None, _Scope]]] = {}
        self.bases: list[Node] = []
        self.base_info: list[tuple[str, list[dict[str, Any]]]] | None = None
        self.base_names: list[str] | None = None  # TypesMixin.base_entities: bare-name bases
        self.star: list[list[str]] = []
        self.cls_method = False
        self.entities: set[str] = set()  # names bound here by a def, class or import
        self.resolved: dict[str, tuple[str, Any]] = {}  # TypesMixin.resolve_name's answers here

    def bind(self, name: str, binding: tuple[Any, ...]) -> None:
        lst = self.names.get(name)
        if lst is None:
            self.names[name] = [binding]
        else:
            lst.append(binding)
        if binding[0] in _ENTITY_KINDS:
            self.entities.add(name)


_NODE_START = attrgetter("start_byte")
_SCOPE_START = attrgetter("start")


def scope_is_cls_method(scope: _Scope) -> bool:
    s: _Scope | None = scope
    while s is not None and s.kind == "lambda":
        s = s.parent
    return s is not None and s.cls_method



class ScopesMixin:
    """Scope building and name binding of the Python extractor."""

    def build_scopes(self, mod: _Scope, defs: list[Node], lambdas: list[Node]) -> None:
        items = sorted(defs + lambdas, key=_NODE_START)
        stack = [mod]
        scopes: list[_Scope] = []
        for n in items:
            start = n.start_byte
            while len(stack) > 1 and stack[-1].end <= start:
                stack.pop()
            # A lambda may sit in a def's header (a default value): not in its body.
            parent = next(s for s in reversed(stack) if s.start <= start)
            body = n.child_by_field_id(F_BODY)
            bstart = body.start_byte if body is not None else n.end_byte
            if n.type == "lambda":
                sc = self.on_lambda(n, parent, bstart)
            else:
                sc_or_none = self.on_def(n, parent, body, bstart)
                if sc_or_none is None:
                    continue
                sc = sc_or_none
            stack.append(sc)
            scopes.append(sc)
        # Breakpoints of the piecewise-constant map position -> innermost scope body.
        bp_pos, bp_scope = [0], [mod]
        st = [mod]
        for sc in sorted(scopes, key=_SCOPE_START):
            while len(st) > 1 and st[-1].end <= sc.start:
                top = st.pop()
                bp_pos.append(top.end)
                bp_scope.append(st[-1])
            st.append(sc)
            bp_pos.append(sc.start)
            bp_scope.append(sc)
        while len(st) > 1:
            top = st.pop()
            bp_pos.append(top.end)
            bp_scope.append(st[-1])
        self.bp_pos = bp_pos
        self.bp_scope = bp_scope

    def on_lambda(self, n: Node, parent: _Scope, bstart: int) -> _Scope:
        """A lambda is a symbol ``<lambdaN>`` (N counts the lambdas of the enclosing
        symbol in source order, so the name is stable while that symbol's other lambdas
        stay put); its body is its return value."""
        owner = parent.named
        idx = self.lambda_count.get(id(owner), 0)
        self.lambda_count[id(owner)] = idx + 1
        name = f"<lambda{idx}>"
        qn = f"{owner.qn}.{name}"
        params = n.child_by_field_id(F_PARAMETERS)
        sig = ts.signature_hash("function", qn, self.text(params))
        sc = _Scope("lambda", qn, sig, bstart, n.end_byte, parent)
        sc.named = sc
        if params is not None:
            for i, p in enumerate(params.named_children):
                for pname in self.param_names(p):
                    sc.bind(pname, ("param", None, i, None))
        body = n.child_by_field_id(F_BODY)
        if body is not None:
            self.returns[id(sc)] = [(sc, body)]
        if (qn, sig) not in self.sym_keys:
            self.sym_keys.add((qn, sig))
            self.symbols.append(SymbolRecord(
                repo=self.repo, qualified_name=qn, signature_hash=sig, name=name, kind="function",
                language=LANGUAGE, language_kind="lambda", file=self.path,
                line=n.start_point[0] + 1, end_line=n.end_point[0] + 1, visibility="private",
                content_hash=ts.content_hash(self.src[n.start_byte:n.end_byte]),
                signature=" ".join(self.text(n).split(":", 1)[0].split())[:SIGNATURE_MAX], docstring="",
                parent=owner.qn,
            ))
        self.lambdas[n.start_byte] = ("def", qn, "function", sc, None)
        # A lambda is always a value of the symbol that writes it.
        self.add_ref(REFERENCES, parent, qn, n.start_point[0] + 1,
                     {"candidates": [{"qn": qn, "how": "same_module"}], "optional": True})
        return sc

    def lambda_binding(self, n: Node) -> tuple[Any, ...] | None:
        return self.lambdas.get(n.start_byte)

    def scope_at(self, pos: int) -> _Scope:
        return self.bp_scope[bisect_right(self.bp_pos, pos) - 1]

    def on_def(self, n: Node, parent: _Scope, body: Node | None, bstart: int) -> _Scope | None:
        name_node = n.child_by_field_id(F_NAME)
        if name_node is None:
            return None
        name = self.text(name_node)
        owner = parent.named
        ntype = n.type
        is_class = ntype == "class_definition"
        qn = f"{owner.qn}.{name}"
        params = n.child_by_field_id(F_SUPERCLASSES if is_class else F_PARAMETERS)
        if is_class:
            kind, sig = "class", ts.signature_hash("class", qn, "")
        else:
            kind = "method" if owner.kind == "class" else "function"
            sig = ts.signature_hash(kind, qn, self.text(params))
        sc = _Scope("class" if is_class else "function", qn, sig, bstart, n.end_byte, parent)
        outer = n.parent
        if outer is not None and outer.type != "decorated_definition":
            outer = None
        decorators = [c for c in outer.named_children if c.type == "decorator"] if outer is not None else []
        if (qn, sig) not in self.sym_keys:
            self.sym_keys.add((qn, sig))
            head = self.src[n.start_byte:bstart].decode("utf-8", "replace").strip()
            if head.endswith(":"):
                head = head[:-1]
            whole = outer if outer is not None else n
            self.symbols.append(SymbolRecord(
                repo=self.repo, qualified_name=qn, signature_hash=sig, name=name, kind=kind,
                language=LANGUAGE, language_kind=ntype, file=self.path,
                line=n.start_point[0] + 1, end_line=n.end_point[0] + 1, visibility=visibility(name),
                content_hash=ts.content_hash(self.src[whole.start_byte:whole.end_byte]),
                signature=" ".join(head.split())[:SIGNATURE_MAX], docstring=self.docstring(body),
                parent=owner.qn,
            ))
        rt = None if is_class else n.child_by_field_id(F_RETURN_TYPE)
        binding_scope = parent
        binding_scope.bind(name, ("def", qn, "class" if is_class else "function", sc, rt))
        if owner.kind == "module" and binding_scope.kind == "module":
            self.def_exports[name] = {"qn": qn}
        if is_class:
            self.class_scopes.append(sc)
            if params is not None:
                sc.bases = [c for c in params.named_children if c.type not in ("keyword_argument", "comment")]
        else:
            deco_names = {self.text(d.named_children[0]) for d in decorators if d.named_children}
            is_static = "staticmethod" in deco_names
            sc.cls_method = "classmethod" in deco_names
            first = True
            index = 0
            if params is not None:
                for p in params.named_children:
                    names = self.param_names(p)
                    if not names:
                        continue
                    pt = p.type
                    if first and owner.kind == "class" and not is_static and pt in ("identifier", "typed_parameter"):
                        sc.bind(names[0], ("self", owner))
                    else:
                        ann = p.child_by_field_id(F_TYPE) if pt in ("typed_parameter", "typed_default_parameter") else None
                        default = p.child_by_field_id(F_VALUE) if pt in ("default_parameter", "typed_default_parameter") else None
                        # ("param", annotation, positional index or None for *args/**kw, default)
                        splat = pt in ("list_splat_pattern", "dictionary_splat_pattern") or (
                            pt == "typed_parameter" and any(
                                c.type in ("list_splat_pattern", "dictionary_splat_pattern") for c in p.named_children))
                        for nm in names:
                            sc.bind(nm, ("param", ann, None if splat else index, default))
                        if ann is not None:
                            self.annotations.append((sc, parent, ann))
                        index += 1
                    first = False
            if rt is not None:
                self.annotations.append((sc, parent, rt))
        return sc

    def param_names(self, p: Node) -> list[str]:
        t = p.type
        if t == "identifier":
            return [self.text(p)]
        if t in ("default_parameter", "typed_default_parameter"):
            nm = p.child_by_field_id(F_NAME)
            return [self.text(nm)] if nm is not None else []
        if t in ("typed_parameter", "list_splat_pattern", "dictionary_splat_pattern"):
            for c in p.named_children:
                if c.type == "identifier":
                    return [self.text(c)]
                if c.type in ("list_splat_pattern", "dictionary_splat_pattern"):
                    return self.param_names(c)
        return []

    def docstring(self, body: Node | None) -> str:
        if body is None:
            return ""
        first = body.named_child(0) if body.named_child_count else None
        while first is not None and first.type == "comment":
            first = first.next_named_sibling
        if first is not None and first.type == "expression_statement" and first.named_child_count:
            first = first.named_child(0)
        if first is None or first.type not in ("string", "concatenated_string"):
            return ""
        if first.type == "concatenated_string":
            first = first.named_child(0)
            if first is None:
                return ""
        raw = self.text(first)
        m = _STRING_PREFIX.match(raw)
        if m is None:
            return ""  # f-strings are not docstrings
        q = m.group(1)
        inner = raw[m.end():]
        if inner.endswith(q):
            inner = inner[: -len(q)]
        doc = inspect.cleandoc(inner)
        return doc if len(doc) <= DOCSTRING_MAX else doc[: DOCSTRING_MAX - 1].rstrip() + "…"

    def target_names(self, n: Node) -> list[str]:
        """Identifiers bound by an assignment / for / with / except target."""
        t = n.type
        if t == "identifier":
            return [self.text(n)]
        if t in ("pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "as_pattern_target",
                 "list_splat_pattern", "parenthesized_expression"):
            out: list[str] = []
            for c in n.named_children:
                out.extend(self.target_names(c))
            return out
        return []

    def on_assign(self, n: Node, attr_assigns: list[tuple[_Scope, Node, Node | None, Node | None]],
                  item_assigns: list[tuple[_Scope, Node, Node | None, Node | None]]) -> None:
        left = n.child_by_field_id(F_LEFT)
        if left is None:
            return
        value = n.child_by_field_id(F_RIGHT)
        while value is not None and value.type == "assignment":
            value = value.child_by_field_id(F_RIGHT)
        ann = n.child_by_field_id(F_TYPE)
        sc = self.scope_at(n.start_byte)
        if ann is not None:
            self.annotations.append((sc, sc, ann))
        t = left.type
        if t == "identifier":
            name = self.text(left)
            self.binding_scope(sc, name).bind(name, ("var", value, ann, sc))
            if sc.kind == "class":
                sc.attrs.setdefault(name, []).append((value, ann, sc))
        elif t == "attribute":
            attr_assigns.append((sc, left, value, ann))
        elif t == "subscript":
            item_assigns.append((sc, left, value, ann))
        else:
            for name, path, starred in target_parts(left, self.text):
                self.binding_scope(sc, name).bind(name, ("part", value, path, sc, starred))

    def binding_scope(self, sc: _Scope, name: str) -> _Scope:
        """Where an assignment in ``sc`` binds ``name``: the module for a ``global``."""
        if name in self.globals.get(id(sc), ()):
            return self.module_scope
        return sc

    def on_for(self, n: Node) -> None:
        left = n.child_by_field_id(F_LEFT)
        right = n.child_by_field_id(F_RIGHT)
        if left is None:
            return
        sc = self.scope_at(n.start_byte)
        if left.type == "identifier" and right is not None:
            name = self.text(left)
            self.binding_scope(sc, name).bind(name, ("elem", right, sc))
        else:
            for name in self.target_names(left):
                sc.bind(name, ("local",))

    def on_attr_assign(self, sc: _Scope, left: Node, value: Node | None, ann: Node | None) -> None:
        obj = left.child_by_field_id(F_OBJECT)
        attr = left.child_by_field_id(F_ATTRIBUTE)
        if obj is None or attr is None or obj.type != "identifier":
            return
        found = self.lookup(sc, self.text(obj))
        if found is None:
            return
        for b in found[0]:
            if b[0] == "self":
                b[1].attrs.setdefault(self.text(attr), []).append((value, ann, sc))
                return

    def lookup(self, scope: _Scope, name: str) -> tuple[list[tuple[Any, ...]], _Scope] | None:
        """Python scoping: a class body is visible only to itself, not to nested defs."""
        s: _Scope | None = scope
        while s is not None:
            if s.kind != "class" or s is scope:
                b = s.names.get(name)
                if b:
                    return b, s
            s = s.parent
        return None


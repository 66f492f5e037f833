"""Python value flow inside one file: which functions, classes, modules or bound methods
an expression may denote (docs/DESIGN.md#resolution).

A mixin of the Python extractor (``python.extractor._Extractor``), in the spirit of an assignment
graph, flow-insensitive and conservative:

- a name carries every value it is bound to in its scope (``a = f``, ``a = b = f``,
  rebinding in branches gives both, ``global`` rebinding included);
- destructuring picks the element at the same position of a literal tuple/list on the
  right (``a, (b, c) = f, (g, h)``; a starred target takes the middle slice);
- containers: elements of dict/list/tuple/set literals, ``d[k] = f``, ``d.update({...})``,
  ``ls.append(f)``; a literal key (string or integer) picks its value, any other key (or a
  slice) gives every value of that container; nested subscripts compose;
- calls: the values a same-file function returns (``return inner``), a lambda's body;
- attributes: ``mod.f``, ``Class.m``, ``self.x`` where ``self.x = f`` / ``x = f`` in the
  class, and methods of an instance whose class is in this file (bound methods);
- ``for x in (f, g)`` binds ``x`` to every element.

Values are ``(binding, attrs)`` pairs: a ``def`` / ``mod`` / ``from`` binding of the
extractor plus an attribute chain, ``("member", type, attr)`` for a method of an
instance whose class lives in another file, or a module a dynamic import names
(``python.dynimport``: ``importlib.import_module("m")``, a module-returning function). Anything else is unknown and gives nothing:
the call keeps today's stub, never a guess by name.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node

from codegraph.indexer.languages.python.common import (
    F_ARGUMENTS,
    F_ATTRIBUTE,
    F_FUNCTION,
    F_KEY,
    F_LEFT,
    F_OBJECT,
    F_RIGHT,
    F_SUBSCRIPT,
    F_VALUE,
)

MAX_DEPTH = 12
MAX_VALUES = 32  # a name bound to more values than this is a registry: stay quiet
# Work bound per file (value queries): code that rewrites one container thousands of
# times (``a[i] = a[j]`` in test suites) stops the flow there instead of going quadratic.
MAX_STEPS_PER_FILE = 50_000
_KEY_TYPES = ("string", "integer")


class FlowMixin:
    """Value-flow queries over the extractor's scopes and bindings (see module doc)."""

    # Provided by the extractor.
    memo: dict[Any, Any]
    in_progress: set[Any]
    returns: dict[int, list[tuple[Any, Node]]]
    items: dict[tuple[int, str], list[tuple[Node | None, Node, Any, str]]]

    def text(self, n: Node | None) -> str: ...  # pragma: no cover - the extractor's
    def lookup(self, scope: Any, name: str) -> Any: ...  # pragma: no cover
    def type_of_expr(self, scope: Any, n: Node) -> Any: ...  # pragma: no cover
    def split_chain(self, n: Node) -> tuple[Node | None, list[str]]: ...  # pragma: no cover
    def has_string_arg(self, call: Node) -> bool: ...  # pragma: no cover - python.dynimport
    def module_call_value(self, ent: Any, attrs: list[str], call: Node) -> Any: ...  # pragma: no cover
    def literal_module_values(self, scope: Any, call: Node, fn_vals: Any = None) -> list[Any]: ...  # pragma: no cover

    # -- values -----------------------------------------------------------------------------
    flow_steps: int = 0

    def values(self, scope: Any, n: Node | None, depth: int = 0) -> list[tuple[Any, ...]]:
        """Entity values ``[(binding, attrs)]`` expression ``n`` may denote; [] unknown."""
        if n is None or depth > MAX_DEPTH:
            return []
        self.flow_steps += 1
        if self.flow_steps > MAX_STEPS_PER_FILE:
            return []
        t = n.type
        if t == "identifier":
            return self.name_values(scope, self.text(n), depth + 1)
        key = ("node", id(scope), n.start_byte, n.end_byte, t)
        if key in self.memo:
            return self.memo[key]  # type: ignore[no-any-return]
        if key in self.in_progress:
            return []
        self.in_progress.add(key)
        try:
            out = self.expr_values(scope, n, t, depth)
        finally:
            self.in_progress.discard(key)
        self.memo[key] = out
        return out

    def expr_values(self, scope: Any, n: Node, t: str, depth: int) -> list[tuple[Any, ...]]:
        if t == "attribute":
            return self.attribute_values(scope, n, depth + 1)
        if t == "subscript":
            out: list[tuple[Any, ...]] = []
            for sc, el in self.element_nodes(scope, n.child_by_field_id(F_VALUE), n.child_by_field_id(F_SUBSCRIPT),
                                             depth + 1):
                out.extend(self.values(sc, el, depth + 1))
            return _dedupe_values(out)
        if t == "call":
            return self.return_values(scope, n, depth + 1)
        if t == "lambda":
            lam = self.lambda_binding(n)
            return [(lam, [])] if lam is not None else []
        if t == "parenthesized_expression" and n.named_child_count == 1:
            return self.values(scope, n.named_children[0], depth + 1)
        if t == "conditional_expression" and n.named_child_count == 3:
            a, _, b = n.named_children
            return _dedupe_values(self.values(scope, a, depth + 1) + self.values(scope, b, depth + 1))
        if t == "boolean_operator":
            return _dedupe_values(self.values(scope, n.child_by_field_id(F_LEFT), depth + 1)
                                  + self.values(scope, n.child_by_field_id(F_RIGHT), depth + 1))
        return []

    def lambda_binding(self, n: Node) -> tuple[Any, ...] | None:
        return None  # overridden by the extractor (lambdas are symbols there)

    def name_values(self, scope: Any, name: str, depth: int) -> list[tuple[Any, ...]]:
        found = self.lookup(scope, name)
        if found is None:
            return []
        bindings, bscope = found
        key = ("values", id(bscope), name)
        if key in self.memo:
            return self.memo[key]  # type: ignore[no-any-return]
        if key in self.in_progress:
            return []
        self.in_progress.add(key)
        out: list[tuple[Any, ...]] = []
        try:
            for b in bindings:
                kind = b[0]
                if kind in ("def", "mod", "from"):
                    out.append((b, []))
                elif kind == "var":
                    out.extend(self.values(b[3] if len(b) > 3 else bscope, b[1], depth + 1))
                elif kind == "part":
                    node = self.part_node(b[1], b[2])
                    if node is not None:
                        out.extend(self.values(b[3], node, depth + 1))
                elif kind == "elem":
                    for sc, el in self.element_nodes(b[2], b[1], None, depth + 1):
                        out.extend(self.values(sc, el, depth + 1))
                elif kind == "param" and len(b) > 3 and b[3] is not None:
                    out.extend(self.values(bscope.parent or bscope, b[3], depth + 1))  # default value
        finally:
            self.in_progress.discard(key)
        out = _dedupe_values(out)
        if len(out) > MAX_VALUES:
            out = []
        if depth <= 1:
            self.memo[key] = out
        return out

    def attribute_values(self, scope: Any, n: Node, depth: int) -> list[tuple[Any, ...]]:
        obj = n.child_by_field_id(F_OBJECT)
        an = n.child_by_field_id(F_ATTRIBUTE)
        if obj is None or an is None:
            return []
        attr = self.text(an)
        out: list[tuple[Any, ...]] = []
        maybe: list[tuple[Any, ...]] = []  # a module a call may return: never instead of what is known
        for b, attrs in ((v[0], v[1]) for v in self.values(scope, obj, depth + 1) if v[0][0] != "member"):
            if b[0] == "modcall":
                maybe.append((b, [*attrs, attr]))
            elif b[0] in ("mod", "from") or (b[0] == "def" and b[2] == "class"):
                if b[0] == "def" and not attrs:
                    out.extend(self.class_member_values(b[3], attr, depth + 1))
                else:
                    out.append((b, [*attrs, attr]))
        if out:
            return _dedupe_values(out + maybe)
        ty = self.type_of_expr(scope, obj)
        if ty is not None and isinstance(ty, tuple) and ty[0] == "inst":
            return self.member_values(ty, attr, depth + 1) + maybe
        return maybe

    def class_member_values(self, cls: Any, attr: str, depth: int) -> list[tuple[Any, ...]]:
        """``Class.attr`` for a class of this file: its method, or what ``attr`` holds."""
        defs = [b for b in cls.names.get(attr, ()) if b[0] == "def"]
        if defs:
            return [(b, []) for b in defs]
        out: list[tuple[Any, ...]] = []
        for value, _ann, sc in cls.attrs.get(attr, ()):
            out.extend(self.values(sc, value, depth + 1))
        return _dedupe_values(out)

    def member_values(self, inst: tuple[Any, ...], attr: str, depth: int) -> list[tuple[Any, ...]]:
        """``obj.attr`` on an instance: a method (bound), or what ``self.attr`` holds."""
        cls = inst[3]
        if cls is None:
            return [(("member", inst, attr), [])]
        return self.class_member_values(cls, attr, depth)

    def return_values(self, scope: Any, call: Node, depth: int) -> list[tuple[Any, ...]]:
        fn = call.child_by_field_id(F_FUNCTION)
        if fn is None:
            return []
        if fn.type == "attribute":
            an = fn.child_by_field_id(F_ATTRIBUTE)
            obj = fn.child_by_field_id(F_OBJECT)
            if an is not None and obj is not None and self.text(an) in ("get", "pop", "setdefault"):
                args = call.child_by_field_id(F_ARGUMENTS)
                first = next((c for c in args.named_children if c.type != "comment"), None) if args is not None else None
                out: list[tuple[Any, ...]] = []
                for sc, el in self.element_nodes(scope, obj, first, depth + 1):
                    out.extend(self.values(sc, el, depth + 1))
                if out:
                    return _dedupe_values(out)
        out = []
        fn_vals = self.values(scope, fn, depth + 1)
        named = self.has_string_arg(call)  # a module may be named by a literal (python.dynimport)
        for b, attrs in ((v[0], v[1]) for v in fn_vals):
            if b[0] == "def" and b[2] == "function" and not attrs:
                for sc, r in self.returns.get(id(b[3]), ()):
                    out.extend(self.values(sc, r, depth + 1))
            elif named and b[0] in ("mod", "from"):
                mv = self.module_call_value(b, attrs, call)
                if mv is not None:
                    out.append((mv, []))
        if named:
            out.extend(self.literal_module_values(scope, call, fn_vals))
        return _dedupe_values(out)

    # -- containers -------------------------------------------------------------------------
    def element_nodes(self, scope: Any, container: Node | None, key: Node | None, depth: int) -> list[tuple[Any, Node]]:
        """(scope, expression) of the elements ``container[key]`` may be; every element
        when the key is not a literal (None: iteration)."""
        if container is None or depth > MAX_DEPTH:
            return []
        t = container.type
        want = self.literal_key(key)
        if t == "dictionary":
            out = []
            for p in container.named_children:
                if p.type != "pair":
                    continue
                k, v = p.child_by_field_id(F_KEY), p.child_by_field_id(F_VALUE)
                if v is not None and (want is None or self.literal_key(k) in (want, None)):
                    out.append((scope, v))
            return out
        if t in ("list", "tuple", "set", "expression_list"):
            els = [c for c in container.named_children if c.type != "comment"]
            if want is not None and t != "set" and want.lstrip("-").isdigit() \
                    and not any(c.type == "list_splat" for c in els):
                i = int(want)
                return [(scope, els[i])] if -len(els) <= i < len(els) else []
            return [(scope, c) for c in els if c.type != "list_splat"]
        if t == "parenthesized_expression" and container.named_child_count == 1:
            return self.element_nodes(scope, container.named_children[0], key, depth + 1)
        if t == "subscript":
            sub = container.child_by_field_id(F_SUBSCRIPT)
            if sub is not None and sub.type == "slice":  # a slice keeps the container's elements
                return self.element_nodes(scope, container.child_by_field_id(F_VALUE), key, depth + 1)
            out = []
            for sc, el in self.element_nodes(scope, container.child_by_field_id(F_VALUE),
                                             container.child_by_field_id(F_SUBSCRIPT), depth + 1):
                out.extend(self.element_nodes(sc, el, key, depth + 1))
            return out
        if t == "identifier":
            return self.name_elements(scope, self.text(container), want, key, depth + 1)
        return []

    def name_elements(self, scope: Any, name: str, want: str | None, key: Node | None,
                      depth: int) -> list[tuple[Any, Node]]:
        found = self.lookup(scope, name)
        if found is None:
            return []
        bindings, bscope = found
        memo_key = ("elements", id(bscope), name, want)
        if memo_key in self.memo:
            return self.memo[memo_key]  # type: ignore[no-any-return]
        guard = ("elements", id(bscope), name)  # one container at a time: a[i] = a[j] cycles
        if guard in self.in_progress:
            return []
        self.in_progress.add(guard)
        out: list[tuple[Any, Node]] = []
        try:
            for b in bindings:
                if b[0] == "var" and b[1] is not None:
                    out.extend(self.element_nodes(b[3] if len(b) > 3 else bscope, b[1], key, depth + 1))
                elif b[0] == "part" and len(b) > 4 and b[4]:  # a starred target: the middle slice
                    for el in self.star_nodes(b[1], b[2]):
                        out.append((b[3], el))
            for k, v, sc, how in self.items.get((id(bscope), name), ()):
                if how == "item" and (want is None or self.literal_key(k) in (want, None)):
                    out.append((sc, v))
                elif how == "all":  # d.update({...}) / ls.extend([...])
                    out.extend(self.element_nodes(sc, v, key, depth + 1))
        finally:
            self.in_progress.discard(guard)
        if want is not None and any(b[0] == "var" and b[1] is not None and b[1].type in ("list", "tuple")
                                    for b in bindings) and self.items.get((id(bscope), name)):
            # list literal plus appends: an index cannot be trusted, every element may be it
            out = self.name_elements(scope, name, None, None, depth + 1)
        self.memo[memo_key] = out
        return out

    def literal_key(self, k: Node | None) -> str | None:
        if k is None or k.type not in _KEY_TYPES:
            if k is not None and k.type == "unary_operator" and self.text(k).lstrip("-").isdigit():
                return self.text(k)
            return None
        txt = self.text(k)
        if k.type == "string":
            if any(c.type == "interpolation" for c in k.named_children):
                return None
            return "s:" + txt.strip("rRbBuU").strip("\"'")
        return txt

    # -- destructuring ----------------------------------------------------------------------
    def part_node(self, value: Node | None, path: tuple[int, ...]) -> Node | None:
        """The element of a literal tuple/list at the target position ``path``
        (``(i, n_before, n_after)`` triples per level; a starred target has no node)."""
        node = value
        for i, before, after in path:
            if node is None:
                return None
            while node.type == "parenthesized_expression" and node.named_child_count == 1:
                node = node.named_children[0]
            if node.type not in ("tuple", "list", "expression_list", "pattern_list"):
                return None
            els = [c for c in node.named_children if c.type != "comment"]
            if any(c.type == "list_splat" for c in els):
                return None
            if before < 0:  # no starred sibling: plain index
                node = els[i] if i < len(els) else None
            elif i < before:
                node = els[i]
            else:  # after the starred target: count from the end
                j = len(els) - after + (i - before - 1)
                node = els[j] if 0 <= j < len(els) else None
        return node

    def star_nodes(self, value: Node | None, path: tuple[Any, ...]) -> list[Node]:
        """Elements a starred target (last level of ``path``) takes."""
        if not path:
            return []
        *outer, (_, before, after) = path
        node = self.part_node(value, tuple(outer)) if outer else value
        while node is not None and node.type == "parenthesized_expression" and node.named_child_count == 1:
            node = node.named_children[0]
        if node is None or node.type not in ("tuple", "list", "expression_list"):
            return []
        els = [c for c in node.named_children if c.type != "comment"]
        if any(c.type == "list_splat" for c in els):
            return []
        return els[before:len(els) - after]


def target_parts(n: Node, text: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[str, tuple[Any, ...], bool]]:
    """(name, path, starred) per identifier of a destructuring target; ``path`` holds
    ``(index, n_before_star or -1, n_after_star)`` per nesting level."""
    t = n.type
    if t == "identifier":
        return [(text(n), prefix, False)]
    if t in ("pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "expression_list"):
        kids = [c for c in n.named_children if c.type != "comment"]
        star = next((i for i, c in enumerate(kids) if c.type in ("list_splat_pattern", "list_splat")), -1)
        after = len(kids) - star - 1 if star >= 0 else 0
        out: list[tuple[str, tuple[Any, ...], bool]] = []
        for i, c in enumerate(kids):
            step = (i, star, after)
            if c.type in ("list_splat_pattern", "list_splat"):
                inner = next((x for x in c.named_children if x.type == "identifier"), None)
                if inner is not None:
                    out.append((text(inner), (*prefix, step), True))
            else:
                out.extend(target_parts(c, text, (*prefix, step)))
        return out
    if t == "parenthesized_expression" and n.named_child_count == 1:
        return target_parts(n.named_children[0], text, prefix)
    return []


def _dedupe_values(vals: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    seen: set[Any] = set()
    out = []
    for v in vals:
        b, attrs = v[0], v[1]
        k = (id(b) if b[0] != "member" else ("member", b[1][1], b[2]), tuple(attrs))
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out





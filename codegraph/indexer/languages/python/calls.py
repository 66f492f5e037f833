"""Python calls: the resolution hints of one call site (a name of this file, an import,
``self.m()``, ``super().m()``, a receiver of known type, an unknown receiver) and what
its arguments hand over to the callee (docs/DESIGN.md#resolution)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from tree_sitter import Node

from codegraph.core.models import CALLS
from codegraph.indexer.languages.python.common import (
    _BUILTIN,
    _BUILTIN_METHODS,
    _NONE,
    F_ARGUMENTS,
    F_ATTRIBUTE,
    F_FUNCTION,
    F_NAME,
    F_OBJECT,
    F_VALUE,
    _child_stems,
    _dedupe,
    _looks_like_class,
    _paths,
    _qjoin,
)
from codegraph.indexer.languages.python.scopes import scope_is_cls_method
from codegraph.indexer.languages.python.uses import _PASSABLE

_HANDED = _PASSABLE | {"keyword_argument"}  # argument nodes that may hand a function over
# An attribute chain written as dotted names on one line, nothing else (ASCII names: the
# text's characters are then its bytes, so the root's byte span is its name's length).
_FLAT_CHAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\Z")

if TYPE_CHECKING:
    from codegraph.indexer.languages.python.scopes import _Scope


class CallsMixin:
    """Call-site references of the Python extractor."""

    chains: dict[int, tuple[Node | None, list[str]]]
    flat_chains: set[int]

    def split_chain(self, n: Node) -> tuple[Node | None, list[str]]:
        """``a.b.c`` -> (node a, ["b", "c"]); the root may be any expression. Answers for
        attribute chains are kept per node (calls, arguments and values ask for the same
        nodes); the list returned is shared: never modify it. A chain written on one line
        as plain dotted names (``self.x.y``) has its key in ``flat_chains``."""
        if n.type != "attribute":
            return n, []
        key = n.id
        hit = self.chains.get(key)
        if hit is not None:
            return hit
        txt = self.text(n)
        if _FLAT_CHAIN.match(txt) is not None and not n.has_error:
            # Names and dots only, nothing missing or in error: the tree can only be
            # attribute(attribute(root, b), c), so the text gives the attribute names and
            # the root is the leaf the chain starts with (no walk down object/attribute).
            parts = txt.split(".")
            start = n.start_byte
            root = n.descendant_for_byte_range(start, start + len(parts[0]))
            if root is not None:
                chain = (root, parts[1:])
                self.chains[key] = chain
                self.flat_chains.add(key)
                return chain
        attrs: list[str] = []
        while n.type == "attribute":
            a = n.child_by_field_id(F_ATTRIBUTE)
            obj = n.child_by_field_id(F_OBJECT)
            if a is None or obj is None:
                self.chains[key] = (None, [])
                return None, []
            attrs.append(self.text(a))
            n = obj
        attrs.reverse()
        self.chains[key] = (n, attrs)
        return n, attrs

    def on_call(self, call: Node, fn: Node | None) -> None:
        """One call (or bare decorator): the callee's references, then what its
        arguments hand over (``pass`` hints: a function passed to a parameter the
        callee calls gets the edge from the callee, joined by the resolver)."""
        if fn is None:
            return
        before = len(self.refs)
        scope = self.scope_at(call.start_byte)
        self.on_call_inner(scope, call, fn)
        if call is not fn and self.injected(scope, call, fn):
            self.on_inject(scope, call)
            return
        if len(self.refs) == before:
            return  # no callee: nothing to hand an argument to
        if call is fn:
            args = None
        else:
            args = call.child_by_field_id(F_ARGUMENTS)
            if args is None or args.type != "argument_list":
                return
            kids = args.named_children
            for c in kids:
                if c.type in _HANDED:
                    break
            else:
                return  # nothing handed over that could be a function
        callees: list[list[dict[str, Any]]] = []
        for ref in self.refs[before:]:
            if ref.type == CALLS:
                r = ref.extra
                if r.get("candidates") and not r.get("optional"):
                    callees.append(r["candidates"])
        if not callees:
            return
        if args is None:  # ``@dec`` hands the decorated definition to dec
            self.pass_decorated(scope, call, callees)
            return
        index = 0
        for a in kids:
            t = a.type
            if t == "comment":
                continue
            if t == "keyword_argument":
                nm, value = a.child_by_field_id(F_NAME), a.child_by_field_id(F_VALUE)
                if nm is not None and value is not None:
                    self.pass_value(scope, value, callees, None, self.text(nm))
                continue
            if t in ("list_splat", "dictionary_splat"):
                break  # positions after *args are unknown
            self.pass_value(scope, a, callees, index, None)
            index += 1

    def on_call_inner(self, scope: _Scope, call: Node, fn: Node) -> None:
        root, attrs = self.split_chain(fn)
        if root is None:
            return
        if attrs and fn.id not in self.flat_chains:  # the called name may be on a later line
            at = fn.child_by_field_id(F_ATTRIBUTE)
            line = (at if at is not None else fn).start_point[0] + 1
        else:
            line = fn.start_point[0] + 1
        rt = root.type
        if rt == "identifier":
            name = self.text(root)
            kind, val = self.resolve_name(scope, name)
            if kind == "entities":
                self.call_entities(scope, val, attrs, line)
            elif kind == "type":
                if attrs:
                    self.call_on_type(scope, val, attrs, line)
                elif val[0] == "inst" and val[2] == "self" and scope_is_cls_method(scope):
                    self.call_class(scope, val[1], "self", line)
                else:
                    self.param_call(scope, name, line)
            elif kind == "local":
                if attrs and not self.may_alias_module(scope, name):
                    self.call_unknown_member(scope, attrs[-1], line)
                    return
                vals = self.name_values(scope, name, 1)
                if attrs:
                    mods = [v for v in vals if v[0][0] in ("mod", "from", "modcall")
                            or (v[0][0] == "def" and v[0][2] == "class")]
                    if mods:
                        self.call_values(scope, mods, attrs, line)
                    else:
                        self.call_unknown_member(scope, attrs[-1], line)
                else:
                    if vals:
                        self.call_values(scope, vals, [], line, how=self.flow_how(scope, name))
                    self.param_call(scope, name, line)
            elif kind == "builtin" and not attrs and name in ("next", "iter"):
                args = call.child_by_field_id(F_ARGUMENTS)
                pos = [c for c in args.named_children if c.type != "comment"] if args is not None else []
                if len(pos) == 1:
                    t = self.type_of_expr(scope, pos[0])
                    self.protocol_call(scope, t, "__next__" if name == "next" else "__iter__", line)
            elif kind == "unbound":
                if attrs:
                    self.call_unknown_member(scope, attrs[-1], line)
                else:
                    cands = [{"file": p, "export": name, "how": "import"} for p in self.star_paths(scope)]
                    self.add_ref(CALLS, scope, name, line, {
                        "candidates": cands, "name": name, "name_kinds": ["function", "class"],
                    })
            # builtins: nothing (see module docstring)
            return
        if not attrs:  # f()(), handlers[k](), (lambda: x)()
            vals = self.values(scope, fn)
            if vals:
                self.call_values(scope, vals, [], line)
            return
        if rt == "call":
            inner_fn = root.child_by_field_id(F_FUNCTION)
            if inner_fn is not None and inner_fn.type == "identifier" and self.text(inner_fn) == "super" \
                    and self.resolve_name(scope, "super")[0] == "builtin":
                if len(attrs) == 1:
                    self.call_super(scope, root, attrs[0], line)
                else:
                    self.call_unknown_member(scope, attrs[-1], line)
                return
            t = self.type_of_call(scope, root)
            if t is not None:
                self.call_on_type(scope, t, attrs, line)
                return
            mods = [v for v in self.values(scope, root) if v[0][0] in ("mod", "modcall")] \
                if self.has_string_arg(root) else []
            if mods:  # importlib.import_module("m").f() (python.dynimport)
                self.call_values(scope, mods, attrs, line)
            else:
                self.call_unknown_member(scope, attrs[-1], line)
            return
        t = self.type_of_expr(scope, root)
        if t is not None:
            self.call_on_type(scope, t, attrs, line)
        else:
            self.call_unknown_member(scope, attrs[-1], line)

    def call_unknown_member(self, scope: _Scope, member: str, line: int) -> None:
        if member in _BUILTIN_METHODS:
            return  # almost surely str/list/dict: a unique-name match would be a false edge
        self.add_ref(CALLS, scope, member, line, {"candidates": [], "name": member, "name_kinds": ["method"]})

    def call_on_type(self, scope: _Scope, t: Any, attrs: list[str], line: int, rtype: str = CALLS,
                     extra_fields: dict[str, Any] | None = None) -> None:
        if len(attrs) > 1 and isinstance(t, tuple) and len(t) > 5 and rtype == CALLS:
            mods = [{**r, "attrs": [*r["attrs"], *attrs]} for r in t[5] if "module_of_call" in r]
            if mods:  # helper("pkg").sub.f(): attributes of the module it may return (python.dynimport)
                member = attrs[-1]
                extra = {"candidates": mods, **({"optional": True} if member in _BUILTIN_METHODS
                                                else {"name": member, "name_kinds": ["method"]})}
                self.add_ref(CALLS, scope, member, line, extra)
                return
        cur = t
        for a in attrs[:-1]:
            if cur is _BUILTIN or cur is _NONE:
                return
            cur = self.attr_type(cur, a)
            if cur is None:
                if rtype == CALLS:
                    self.call_unknown_member(scope, attrs[-1], line)
                return
        if cur is _BUILTIN or cur is _NONE:
            return
        member = attrs[-1]
        owner, how, cls, oe = cur[1], cur[2], cur[3], cur[4]
        if len(cur) > 5:  # the return value of an imported function or method
            # A module a call may return (python.dynimport) is walked by attributes, not members.
            extra: dict[str, Any] = {"candidates": [
                {**r, "attrs": [*r["attrs"], member]} if "module_of_call" in r else {**r, "member": member, "how": how}
                for r in cur[5]]}
            if rtype == CALLS:
                if member not in _BUILTIN_METHODS:
                    extra.update({"name": member, "name_kinds": ["method"]})
                else:
                    extra["optional"] = True
            else:
                extra.update({"optional": True, **(extra_fields or {})})
            self.add_ref(rtype, scope, f"{owner}.{member}", line, extra)
            return
        if cls is not None and member in cls.attrs and not any(b[0] == "def" for b in cls.names.get(member, ())):
            # ``self.x()`` where ``self.x = f`` (or ``x = f`` in the class body)
            vals = self.class_member_values(cls, member, 0)
            if vals:
                self.call_values(scope, vals, [], line, rtype=rtype, extra_fields=extra_fields)
                return
        cand = {"owner": owner, "member": member, "how": how}
        if rtype != CALLS:  # a method handed around: only where its owner is certain
            self.add_ref(rtype, scope, f"{owner}.{member}", line, {
                "candidates": [cand] + ([{"owner_export": oe, "member": member, "how": how}] if oe else []),
                "optional": True, **(extra_fields or {})})
            return
        if cls is not None:
            # The class is in this file; the member may come from an external base or a
            # subclass hook, so the bare-name fallback stays allowed.
            self.add_ref(CALLS, scope, member, line, {"candidates": [cand], "name": member, "name_kinds": ["method"]})
        else:
            cands: list[dict[str, Any]] = [cand]
            if oe is not None:  # the class may be re-exported by the module it was imported from
                cands.append({"owner_export": oe, "member": member, "how": how})
            self.add_ref(CALLS, scope, f"{owner}.{member}", line, {"candidates": cands})

    def call_class(self, scope: _Scope, qn: str, how: str, line: int) -> None:
        """A call of a class of this file (``cls()``): the class, plus an optional edge to
        its ``__init__`` (absent when the class has none)."""
        self.add_ref(CALLS, scope, qn, line, {"candidates": [{"qn": qn, "how": how}]})
        self.add_ref(CALLS, scope, f"{qn}.__init__", line, {
            "candidates": [{"owner": qn, "member": "__init__", "how": how}], "optional": True})

    def call_entities(self, scope: _Scope, ents: list[tuple[Any, ...]], attrs: list[str], line: int,
                      how: str | None = None, rtype: str = CALLS, extra_fields: dict[str, Any] | None = None) -> None:
        """References to what ``ent.attrs`` names for each entity binding; ``how``
        overrides the resolution label, ``rtype`` REFERENCES makes optional references
        (a value used, not called: no stub, no constructor edge)."""
        cands: list[dict[str, Any]] = []
        init_owners: list[tuple[str, dict[str, Any] | None]] = []
        target = ""
        for ent in ents:
            kind = ent[0]
            if kind == "def":
                qn, dkind = ent[1], ent[2]
                if not attrs:
                    cands.append({"qn": qn, "how": "same_module"})
                    if dkind == "class":
                        init_owners.append((qn, None))
                elif dkind == "class":
                    owner = ".".join([qn, *attrs[:-1]])
                    cands.append({"owner": owner, "member": attrs[-1], "how": "same_module"})
                    if _looks_like_class(attrs[-1]):
                        init_owners.append((f"{owner}.{attrs[-1]}", None))
                else:
                    continue  # an attribute of a function object (e.g. @prop.setter)
                target = target or ".".join([qn, *attrs])
            elif kind == "mod":
                if not attrs:
                    continue
                mqn, stems = ent[1], ent[2]
                full = ".".join([mqn, *attrs])
                cands.append({"qn": full, "how": "import"})
                prefix_stems = _child_stems(stems, attrs[:-1]) if len(attrs) > 1 else stems
                if len(attrs) > 1:
                    cands.append({"owner": ".".join([mqn, *attrs[:-1]]), "member": attrs[-1], "how": "import"})
                cands.append({"file": _paths(prefix_stems), "export": attrs[-1], "how": "import"})
                if len(attrs) > 1:  # ``os.path.join``: ``path`` may be a module bound in os.py
                    cands.append({"module_chain": {"file": _paths(stems), "attrs": attrs}, "how": "module_alias"})
                if _looks_like_class(attrs[-1]):
                    init_owners.append((full, {"file": _paths(prefix_stems), "export": attrs[-1]}))
                target = target or full
            else:  # from m import name
                mqn, orig, stems = ent[1], ent[2], ent[3]
                base = _qjoin(mqn, orig)
                full = _qjoin(base, *attrs)
                cands.append({"qn": full, "how": "import"})
                if not attrs:
                    cands.append({"file": _paths(stems), "export": orig, "how": "import"})
                    if _looks_like_class(orig):
                        init_owners.append((full, {"file": _paths(stems), "export": orig}))
                else:
                    owner = ".".join([base, *attrs[:-1]])
                    cands.append({"owner": owner, "member": attrs[-1], "how": "import"})
                    if len(attrs) == 1:
                        # name is a class re-exported by m: look the member up on it.
                        cands.append({"owner_export": {"file": _paths(stems), "export": orig},
                                      "member": attrs[-1], "how": "import"})
                    sub = _child_stems(stems, [orig, *attrs[:-1]])
                    cands.append({"file": _paths(sub), "export": attrs[-1], "how": "import"})
                    cands.append({"module_chain": {"file": _paths(stems), "attrs": [orig, *attrs]},
                                  "how": "module_alias"})
                    if _looks_like_class(attrs[-1]):
                        init_owners.append((full, {"file": _paths(sub), "export": attrs[-1]}))
                chain = self.alias_chain(mqn, stems, [orig, *attrs])
                if chain is not None:  # ``from os.path import join``: os binds ``path``
                    cands.append({"module_chain": chain, "how": "module_alias"})
                target = target or full
        if not cands:
            return
        cands = _dedupe(cands)
        if how is not None:
            cands = [{**c, "how": how} for c in cands]
        if rtype != CALLS:
            self.add_ref(rtype, scope, target, line, {"candidates": cands, "optional": True, **(extra_fields or {})})
            return
        if init_owners:
            how = cands[0]["how"]
            self.add_ref(CALLS, scope, target, line, {"candidates": cands})
            ic: list[dict[str, Any]] = []
            for qn, oe in init_owners:
                ic.append({"owner": qn, "member": "__init__", "how": how})
                if oe is not None:
                    ic.append({"owner_export": oe, "member": "__init__", "how": how})
            if how is not None:
                ic = [{**c, "how": how} for c in ic]
            self.add_ref(CALLS, scope, f"{target}.__init__", line, {"candidates": _dedupe(ic), "optional": True})
            return
        self.add_ref(CALLS, scope, target, line, {"candidates": cands})

    def flow_how(self, scope: _Scope, name: str) -> str:
        found = self.lookup(scope, name)
        if found is not None and all(b[0] == "param" for b in found[0]):
            return "parameter"  # a default value
        return "value_flow"

    def call_super(self, scope: _Scope, super_call: Node, member: str, line: int) -> None:
        cls: _Scope | None = None
        args = super_call.child_by_field_id(F_ARGUMENTS)
        explicit = [c for c in args.named_children if c.type != "comment"] if args is not None else []
        if explicit and explicit[0].type == "identifier":
            kind, val = self.resolve_name(scope, self.text(explicit[0]))
            if kind == "entities":
                cls = next((e[3] for e in val if e[0] == "def" and e[2] == "class"), None)
        else:
            s: _Scope | None = scope.named
            while s is not None and s.kind == "function":
                if s.parent is not None and s.parent.named.kind == "class":
                    cls = s.parent.named
                    break
                s = s.parent.named if s.parent is not None else None
        if cls is None:
            self.call_unknown_member(scope, member, line)
            return
        bases = [b for b in self.class_bases(cls) if b[2] is None]
        if not bases and not any(b[2] for b in self.class_bases(cls)):
            return  # only builtin bases (object, Exception...): nothing in the repo
        cands: list[dict[str, Any]] = [{"super_of": cls.qn, "member": member, "how": "self"}]
        for target, _, _, _ in bases:
            cands.append({"owner": target, "member": member, "how": "self"})
        first = bases[0][0] if bases else self.class_bases(cls)[0][0]
        extra: dict[str, Any] = {"candidates": cands}
        if member.startswith("__") and member.endswith("__"):
            extra["optional"] = True  # a base without __init__ inherits object's
        self.add_ref(CALLS, scope, f"{first}.{member}", line, extra)


"""What Java, Kotlin and C# share on the skeleton: type-name look-up JVM/.NET style,
receivers typed through fields and locals, member / constructor calls as References
with owner candidates (docs/DESIGN.md#resolution).

A language module subclasses ``ClassBasedExtractor``: it fills ``names``, ``class_qn``,
``field_types`` and ``supers`` in a pre-pass over its events, pushes scopes while
sweeping them (``skeleton.sweep``) and implements ``receiver`` for its grammar, using
``access_receiver`` / ``expression_receiver`` for the node shapes the grammars share.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tree_sitter import Node as TSNode

from codegraph.core.models import CALLS
from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages.typed import LOCAL_CALLABLE, Scope, TypedBuilder, TypedStack, short_target, strip_type


def dotted_text(node: TSNode | None) -> str:
    """A node's text without white space (``a . b`` -> ``a.b``)."""
    return "".join(ts.text(node).split())


class TypeNames:
    """Resolves a type name as written to candidate qualified names, JVM/.NET style.

    Order (first existing wins in the resolver): classes nested in the enclosing classes,
    explicit imports / aliases, classes declared in this file, the current package (C#:
    each enclosing namespace, innermost first), wildcard imports / ``using`` namespaces.
    Returns ``(qn, how)`` pairs, ``how`` being a models.RESOLUTIONS label.
    """

    def __init__(self, package: str = "") -> None:
        self.package = package
        self.imports: dict[str, str] = {}  # simple name or alias -> fqn
        self.wildcards: list[str] = []  # packages / namespaces imported whole
        self.declared: dict[str, list[str]] = {}  # simple name -> qns declared in this file
        self.declared_qns: set[str] = set()

    def declare(self, simple: str, qn: str) -> None:
        self.declared.setdefault(simple, []).append(qn)
        self.declared_qns.add(qn)

    def candidates(self, text: str, enclosing: list[str], namespaces: list[str] | None = None) -> list[tuple[str, str]]:
        t = strip_type(text)
        if not t or not (t[0].isalpha() or t[0] == "_"):
            return []
        first, _, rest = t.partition(".")
        if rest and first[:1].islower() and first not in self.imports:
            return [(t, "exact")]  # package-qualified (java.io.File): nothing else to try
        out: list[tuple[str, str]] = []
        heads = self._simple(first, enclosing, namespaces)
        for q, how in heads:
            out.append((f"{q}.{rest}" if rest else q, how))
        if rest:
            out.append((t, "exact"))  # already fully qualified
        seen: set[str] = set()
        uniq = []
        for q, how in out:
            if q not in seen:
                seen.add(q)
                uniq.append((q, how))
        return uniq

    def _simple(self, name: str, enclosing: list[str], namespaces: list[str] | None) -> list[tuple[str, str]]:
        for c in enclosing:  # nested type of an enclosing class, or an enclosing class itself
            if f"{c}.{name}" in self.declared_qns:
                return [(f"{c}.{name}", "same_module")]
            if c.rsplit(".", 1)[-1] == name:
                return [(c, "same_module")]
        if name in self.imports:
            return [(self.imports[name], "import")]
        local = self.declared.get(name)
        if local and len(local) == 1:
            return [(local[0], "same_module")]
        out: list[tuple[str, str]] = []
        if namespaces is None:
            out.append((f"{self.package}.{name}" if self.package else name, "same_module"))
        else:
            out.extend((f"{ns}.{name}" if ns else name, "same_module") for ns in namespaces)
        out.extend((f"{w}.{name}", "import") for w in self.wildcards)
        return out


# Owner candidates of a receiver ((qn, how) pairs; None: type unknown) and its type text.
Receiver = tuple[list[tuple[str, str]] | None, str]
SUPER_OF = "super_of:"  # owner marker: look the member up on the class's bases only


def member_candidates(owners: list[tuple[str, str]], member: str, how: str | None = None) -> list[dict[str, Any]]:
    """``{"owner", "member"}`` candidates for each owner qn (``how`` overrides);
    ``super_of:<cls>`` owners become ``{"super_of": cls, "member"}``."""
    return [
        {"super_of": q[len(SUPER_OF):], "member": member, "how": how or h} if q.startswith(SUPER_OF)
        else {"owner": q, "member": member, "how": how or h}
        for q, h in owners
    ]


def qn_candidates(qns: list[tuple[str, str]], how: str | None = None) -> list[dict[str, Any]]:
    return [{"qn": q, "how": how or h} for q, h in qns]


class ClassBasedExtractor:
    """What Java, Kotlin and C# share: type lookups, member calls and constructor calls.

    Subclasses fill ``names`` and ``class_qn``/``field_types``/``supers`` in a pre-pass,
    push scopes while sweeping their events and implement ``receiver``.
    """

    init_name = "<init>"
    call_name_kinds: list[str] = ["method"]

    def __init__(self, b: TypedBuilder, root: TSNode) -> None:
        self.b = b
        self.root = root
        self.names = TypeNames()
        self.static_imports: dict[str, str] = {}  # member -> owner class fqn
        self.static_wild: list[str] = []  # classes whose static members are imported whole
        self.class_qn: dict[int, str] = {}
        self.field_types: dict[str, dict[str, str]] = {}  # class qn -> member -> type text
        self.supers: dict[str, str] = {}  # class qn -> superclass type text
        self.stack = TypedStack(b.module_scope(root.end_byte))
        self._type_cache: dict[tuple[str, tuple[str, ...], tuple[str, ...] | None], list[tuple[str, str]]] = {}

    def namespaces(self) -> list[str] | None:
        """C#: enclosing namespaces innermost first; None: use the package."""
        return None

    def type_candidates(self, text: str, skip_self: bool = False) -> list[tuple[str, str]]:
        enclosing = self.stack.classes()
        if skip_self:
            enclosing = enclosing[1:]
        ns = self.namespaces()
        # Memoised per file: the same few type names are looked up over and over.
        key = (text, tuple(enclosing), tuple(ns) if ns is not None else None)
        hit = self._type_cache.get(key)
        if hit is None:
            hit = self._type_cache[key] = self.names.candidates(text, enclosing, ns)
        return hit

    def typed(self, type_text: str) -> tuple[list[tuple[str, str]] | None, str]:
        """Owner candidates for a value of the written type. None when it is a type
        parameter or unknown; [] for primitives (external, no name guess)."""
        st = strip_type(type_text)
        if not st or st in ("var", LOCAL_CALLABLE) or self.stack.is_type_param(st.split(".", 1)[0]):
            return None, st
        if not st[0].isupper() and "." not in st:
            return [], st
        return [(q, "receiver_type") for q, _ in self.type_candidates(st)], st

    def name_receiver(self, name: str) -> tuple[list[tuple[str, str]] | None, str]:
        """A receiver written as a bare name: a visible local / param / field (by its
        type), else a capitalised name is a class (static member), else unknown."""
        vt = self.stack.lookup(name)
        if vt is None:
            if name[:1].isupper():
                return self.type_candidates(name), name
            return None, name
        return self.typed(vt)

    def field_receiver(self, owners: list[tuple[str, str]] | None, fname: str) -> tuple[list[tuple[str, str]] | None, str]:
        """A receiver ``x.fname`` where ``x`` has the owner candidates ``owners``: typed
        by the first owner that declares the field, else unknown."""
        for q, _ in owners or []:
            ft = self.field_types.get(q, {}).get(fname)
            if ft is not None:
                return self.typed(ft)
        return None, fname

    # Node types of the receivers Java and C# spell alike but name differently.
    super_type = "super"  # C#: base
    literal_types: dict[str, str] = {}  # literal node type -> its type name ("" = the literal's text)
    type_nodes: tuple[str, ...] = ()  # a type written as a receiver (a static member call)

    def receiver(self, obj: TSNode, sc: Scope) -> Receiver:
        """Owner candidates of a receiver expression and the type text for the stub id.
        None: the receiver's type is not visible (name fallback applies). Java / C#
        shape; a grammar's member access goes to ``member_access``."""
        t = obj.type
        if t == "this":
            return [(sc.cls, "self")], sc.cls.rsplit(".", 1)[-1]
        if t == self.super_type:
            return self.super_owners(sc.cls), strip_type(self.supers.get(sc.cls, t))
        if t == "identifier":
            return self.name_receiver(ts.text(obj))
        typed = self.member_access(obj, sc)
        if typed is None:
            typed = self.expression_receiver(obj, sc)
        if typed is not None:
            return typed
        if t in self.literal_types:
            return [], self.literal_types[t] or ts.text(obj)
        if t in self.type_nodes:
            return self.type_candidates(ts.text(obj)), strip_type(ts.text(obj))
        return None, ""

    def member_access(self, obj: TSNode, sc: Scope) -> Receiver | None:
        """``a.b`` in the grammar's spelling (``access_receiver``); None: not one."""
        return None

    def access_receiver(self, obj: TSNode, sc: Scope, inner: TSNode | None, fname: str, path_types: tuple[str, ...],
                        names_class: Callable[[str, str], bool]) -> Receiver:
        """A receiver ``inner.fname`` (Java field access, C# member access): ``this.f``
        typed by the field; a dotted path of plain names not bound locally is a class
        when ``names_class(dotted, head)`` says so (``a.b.Outer.Inner``); else the field
        ``fname`` of what ``inner`` is."""
        if inner is not None and inner.type == "this":
            return self.field_receiver([(sc.cls, "self")], fname)
        dotted = dotted_text(obj)
        head = dotted.split(".", 1)[0]
        if all(c.type in path_types for c in obj.named_children) and \
                self.stack.lookup(head) is None and names_class(dotted, head):
            return self.type_candidates(dotted), dotted
        if inner is not None:
            return self.field_receiver(self.receiver(inner, sc)[0], fname)
        return None, fname

    def expression_receiver(self, obj: TSNode, sc: Scope) -> Receiver | None:
        """Receivers Java and C# spell alike: ``new T()``, ``(x)``, ``(T) x``; None for
        any other node."""
        t = obj.type
        if t == "object_creation_expression" or t == "cast_expression":
            return self.typed(ts.text(obj.child_by_field_name("type")))
        if t == "parenthesized_expression" and obj.named_children:
            return self.receiver(obj.named_children[0], sc)
        return None

    def super_owners(self, cls: str) -> list[tuple[str, str]]:
        """``super.m()``: the member on the resolved bases of ``cls`` (not on ``cls``)."""
        return [(f"{SUPER_OF}{cls}", "self")] if cls else []

    def implicit_owners(self, member: str) -> list[dict[str, Any]]:
        """Candidates of an unqualified call: the enclosing classes, then static imports."""
        cands = member_candidates([(c, "self") for c in self.stack.classes()], member)
        if member in self.static_imports:
            cands.append({"owner": self.static_imports[member], "member": member, "how": "import"})
        cands.extend({"owner": w, "member": member, "how": "import"} for w in self.static_wild)
        return cands

    def emit_implicit_call(self, n: TSNode, sc: Scope, member: str, nargs: int | None) -> None:
        """An unqualified call ``member(...)``: members of the enclosing classes and static
        imports, then the name fallback restricted to ``call_name_kinds``."""
        extra: dict[str, Any] = {} if nargs is None else {"arity": nargs}
        self.b.ref(CALLS, sc, member, n, self.implicit_owners(member), name=member,
                   name_kinds=self.call_name_kinds, **extra)

    def emit_call(
        self, n: TSNode, sc: Scope, recv_text: str, owners: list[tuple[str, str]] | None, tname: str,
        member: str, nargs: int | None, after: list[dict[str, Any]] | None = None,
    ) -> None:
        """A member call on a receiver: typed (owner candidates, no name guess) or unknown
        (name fallback restricted to ``call_name_kinds``). ``after``: candidates tried
        after the owner's (Kotlin extension functions)."""
        extra: dict[str, Any] = {} if nargs is None else {"arity": nargs}
        tail = after or []
        if owners is None:
            self.b.ref(CALLS, sc, short_target(f"{recv_text}.{member}", member), n, tail,
                       name=member, name_kinds=self.call_name_kinds, **extra)
        else:
            self.b.ref(CALLS, sc, f"{tname}.{member}", n, member_candidates(owners, member) + tail, **extra)

    def emit_ctor(self, n: TSNode, sc: Scope, type_text: str, nargs: int | None,
                  name_kinds: list[str] | None = None) -> None:
        """``new T(...)``: CALLS the class (name fallback to ``name_kinds``, default
        classes), and optionally its constructor (no stub when the class declares none)."""
        st = strip_type(type_text)
        if not st or self.stack.is_type_param(st):
            return
        cands = self.type_candidates(st)
        self.b.ref(CALLS, sc, st, n, qn_candidates(cands), name=st.rsplit(".", 1)[-1],
                   name_kinds=name_kinds if name_kinds is not None else ["class"])
        extra: dict[str, Any] = {} if nargs is None else {"arity": nargs}
        self.b.ref(CALLS, sc, f"{st}.{self.init_name}", n, member_candidates(cands, self.init_name),
                   optional=True, **extra)

    def ctor_ref(self, n: TSNode, sc: Scope, owners: list[tuple[str, str]], target: str, nargs: int) -> None:
        """CALLS a constructor of ``owners``; optional: a class may declare none."""
        self.b.ref(CALLS, sc, target, n, member_candidates(owners, self.init_name), optional=True, arity=nargs)

    def emit_ctor_delegation(self, n: TSNode, sc: Scope, to_super: bool, nargs: int) -> None:
        """``this(...)`` / ``super(...)`` (C# ``: base(...)``) heading a constructor of
        ``sc.cls``: the class's own constructor, or one of its superclass."""
        if to_super:
            owners = self.super_owners(sc.cls)
            target = f"{strip_type(self.supers.get(sc.cls, 'super'))}.{self.init_name}"
        else:
            owners, target = [(sc.cls, "self")], f"{sc.cls.rsplit('.', 1)[-1]}.{self.init_name}"
        self.ctor_ref(n, sc, owners, target, nargs)

    def type_ref(self, rtype: str, scope: Scope, t: str, node: TSNode, skip_self: bool = True) -> None:
        """EXTENDS / IMPLEMENTS from ``scope`` (a class) to the written type."""
        target = strip_type(t)
        if not target:
            return
        self.b.ref(rtype, scope, target, node, qn_candidates(self.type_candidates(target, skip_self)),
                   name=target.rsplit(".", 1)[-1], name_kinds=["class", "interface"])

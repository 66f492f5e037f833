"""Java extractor: symbols, imports, calls, constructor calls, extends/implements.

Qualified names: ``package.Outer.Inner.member``; constructors are ``<init>`` (the JVM's
name), so ``new Repo(x)`` reaches ``pkg.Repo.<init>``. Overloads share a qualified name
and differ by ``signature_hash`` (kind + qn + parameter TYPES, so renaming a parameter
keeps the node). Package-private maps to visibility ``internal``. The file's ``module``
symbol is named by its path and owns nothing but imports. See docs/languages/java.md.
"""

from __future__ import annotations

from tree_sitter import Node as TSNode

from codegraph.core.models import EXTENDS, IMPLEMENTS, IMPORTS
from codegraph.core.overloads import split_params
from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages.class_based import ClassBasedExtractor, Receiver, dotted_text
from codegraph.indexer.languages.jvm_inject import (
    AUTOWIRE,
    LOMBOK_CTORS,
    NOT_NULL,
    PROVIDER,
    STEREOTYPE,
    Annotation,
    Injection,
    may_inject,
)
from codegraph.indexer.languages.skeleton import query_events, sweep
from codegraph.indexer.languages.typed import Scope, TypedBuilder, arity
from codegraph.indexer.records import FileExtraction

LANG = "java"
CLASS_KINDS = {
    "class_declaration": "class", "interface_declaration": "interface", "enum_declaration": "enum",
    "record_declaration": "class", "annotation_type_declaration": "interface",
}
CALLABLES = {
    "method_declaration", "constructor_declaration", "compact_constructor_declaration",
    "annotation_type_element_declaration",
}
_INTERFACE_BODIES = {"interface_body", "annotation_type_body"}
# Receivers whose static type is a JDK class: calls on them are external, never a name guess.
_LITERAL_TYPES = {
    "string_literal": "String", "text_block": "String", "character_literal": "Character",
    "decimal_integer_literal": "Integer", "class_literal": "Class",
}


def _visibility(node: TSNode, in_interface: bool) -> str:
    for c in node.children:
        if c.type == "modifiers":
            for m in c.children:
                if m.type in ("public", "private", "protected"):
                    return m.type
            break
    return "public" if in_interface else "internal"


def _strings(node: TSNode | None) -> tuple[str, ...]:
    """The string literals of an annotation value (one, or an array of them)."""
    if node is None:
        return ()
    if node.type == "string_literal":
        return ("".join(ts.text(c) for c in node.named_children if c.type == "string_fragment"),)
    if node.type == "element_value_array_initializer":
        return tuple(x for c in node.named_children for x in _strings(c))
    return ()


def _annotations(node: TSNode) -> list[Annotation]:
    """The annotations in a declaration's modifiers: name as written, ``value`` / ``name`` strings."""
    m = next((c for c in node.children if c.type == "modifiers"), None)
    out: list[Annotation] = []
    for a in m.named_children if m is not None else ():
        if a.type not in ("marker_annotation", "annotation"):
            continue
        values: tuple[str, ...] = ()
        args = a.child_by_field_name("arguments")
        for c in args.named_children if args is not None else ():
            if c.type == "element_value_pair":
                if ts.text(c.child_by_field_name("key")) in ("value", "name"):
                    values += _strings(c.child_by_field_name("value"))
            else:
                values += _strings(c)
        out.append((dotted_text(a.child_by_field_name("name")), values))
    return out


def _anonymous_body(node: TSNode) -> bool:
    """A member of ``new T() { ... }`` or of an enum constant's body."""
    p = node.parent
    return p is not None and p.type == "class_body" and p.parent is not None and p.parent.type in (
        "object_creation_expression", "enum_constant")


def _type_params(node: TSNode) -> frozenset[str]:
    tp = node.child_by_field_name("type_parameters")
    if tp is None:
        return frozenset()
    return frozenset(ts.text(c.named_children[0]) for c in tp.named_children if c.type == "type_parameter" and c.named_children)


def _params(node: TSNode | None) -> tuple[str, dict[str, str]]:
    """(parameter types joined by ',' for the signature hash, name -> type text)."""
    if node is None:
        return "", {}
    types: list[str] = []
    env: dict[str, str] = {}
    for p in node.named_children:
        if p.type == "formal_parameter":
            t = ts.text(p.child_by_field_name("type"))
            types.append(t)
            env[ts.text(p.child_by_field_name("name"))] = t
        elif p.type == "spread_parameter":
            t = next((ts.text(c) for c in p.named_children if c.type not in ("modifiers", "variable_declarator")), "")
            types.append(t + "...")
            decl = next((c for c in p.named_children if c.type == "variable_declarator"), None)
            if decl is not None:
                env[ts.text(decl.child_by_field_name("name"))] = t + "[]"
        elif p.type == "receiver_parameter":
            continue
    return ",".join("".join(t.split()) for t in types), env


class _Java(ClassBasedExtractor):
    literal_types = _LITERAL_TYPES
    type_nodes = ("scoped_type_identifier", "type_identifier", "generic_type")

    def __init__(self, repo: str, path: str, source: bytes) -> None:
        root = ts.parse(LANG, source).root_node
        super().__init__(TypedBuilder(repo, path, LANG, source, root, path), root)
        self.di = Injection(self, LANG) if may_inject(source) else None
        self.stereotypes: set[str] = set()  # Spring stereotype classes of this file
        self.ctor_count: dict[str, int] = {}  # class qn -> constructors it declares
        self.lombok: dict[str, str] = {}  # stereotype class qn -> its Lombok constructor (required / all)

    def run(self) -> FileExtraction:
        events = query_events(LANG, self.root)
        for _, _, _, cap, n in events:  # pre-pass: names every later reference may use
            if cap == "package":
                self.names.package = dotted_text(next((c for c in n.named_children if "identifier" in c.type), None))
            elif cap == "import":
                self._import(n)
            elif cap == "class":
                self._declare_class(n)
            elif cap == "field":
                self._declare_field(n)
        handlers = {
            "class": self._class, "method": self._method, "field": self._field, "enum_constant": self._enum_constant,
            "local": self._local, "foreach": self._foreach, "call": self._call, "new": self._new,
            "ctor_call": self._ctor_call, "mref": self._mref,
        }
        sweep(events, self.stack, handlers)
        return self.b.fx

    # -- pre-pass ------------------------------------------------------------------
    def _import(self, n: TSNode) -> None:
        is_static = any(c.type == "static" for c in n.children)
        wild = any(c.type == "asterisk" for c in n.children)
        fqn = dotted_text(next((c for c in n.named_children if "identifier" in c.type), None))
        if not fqn:
            return
        last = fqn.rsplit(".", 1)[-1]
        if not is_static and wild:
            # A package: no file to point an IMPORTS edge at; used for type lookups only.
            self.names.wildcards.append(fqn)
            return
        if not is_static:
            self.names.imports[last] = fqn
            self.b.file_ref(IMPORTS, fqn, n, [{"qn": fqn, "how": "import"}], names=[last], optional=True)
        elif wild:
            self.static_wild.append(fqn)
            self.b.file_ref(IMPORTS, fqn, n, [{"qn": fqn, "how": "import"}], names=["*"], optional=True)
        else:
            owner = fqn.rsplit(".", 1)[0]
            self.static_imports[last] = owner
            self.b.file_ref(IMPORTS, fqn, n, [{"qn": owner, "how": "import"}], names=[last], optional=True)

    def _owner_qn(self, n: TSNode) -> str:
        """Qualified name of what encloses a declaration: class, method (local classes) or package."""
        p = n.parent
        while p is not None:
            if p.type in CLASS_KINDS and p.id in self.class_qn:
                return self.class_qn[p.id]
            if p.type in CALLABLES and not _anonymous_body(p):
                name = "<init>" if p.type != "method_declaration" else ts.text(p.child_by_field_name("name"))
                return f"{self._owner_qn(p)}.{name}"
            p = p.parent
        return self.names.package

    def _declare_class(self, n: TSNode) -> None:
        name = ts.text(n.child_by_field_name("name"))
        owner = self._owner_qn(n)
        qn = f"{owner}.{name}" if owner else name
        self.class_qn[n.id] = qn
        self.names.declare(name, qn)
        if n.type == "record_declaration":
            _, env = _params(n.child_by_field_name("parameters"))
            self.field_types.setdefault(qn, {}).update(env)

    def _declare_field(self, n: TSNode) -> None:
        cls = n.parent
        for _ in range(3):  # class_body / interface_body / enum_body > enum_body_declarations
            if cls is None or cls.type in CLASS_KINDS:
                break
            cls = cls.parent
        if cls is None or cls.type not in CLASS_KINDS or cls.id not in self.class_qn:
            return
        t = ts.text(n.child_by_field_name("type"))
        env = self.field_types.setdefault(self.class_qn[cls.id], {})
        for d in n.children_by_field_name("declarator"):
            env[ts.text(d.child_by_field_name("name"))] = t

    # -- declarations --------------------------------------------------------------
    def _class(self, n: TSNode, sc: Scope) -> None:
        qn = self.class_qn[n.id]
        name = qn.rsplit(".", 1)[-1]
        in_iface = n.parent is not None and n.parent.type in _INTERFACE_BODIES
        sig = self.b.symbol(n, name, qn, CLASS_KINDS[n.type], visibility=_visibility(n, in_iface),
                            parent=sc.qn, body=n.child_by_field_name("body"))
        scope = Scope("class", qn, n.end_byte, sig, cls=qn, env=dict(self.field_types.get(qn, {})),
                      tparams=_type_params(n))
        self.stack.push(scope)
        if self.di is not None:
            self._di_class(n, qn)
        if n.type == "record_declaration":
            comps = n.child_by_field_name("parameters")
            for p in comps.named_children if comps is not None else []:
                if p.type == "formal_parameter":
                    pname = ts.text(p.child_by_field_name("name"))
                    self.b.symbol(p, pname, f"{qn}.{pname}", "field", visibility="private", parent=qn)
        sup = n.child_by_field_name("superclass")
        if sup is not None and sup.named_children:
            t = ts.text(sup.named_children[0])
            self.supers[qn] = t
            self.type_ref(EXTENDS, scope, t, sup)
        ifaces = n.child_by_field_name("interfaces")
        ext = next((c for c in n.children if c.type == "extends_interfaces"), None)
        for holder, rtype in ((ifaces, IMPLEMENTS), (ext, EXTENDS)):
            if holder is None:
                continue
            for tl in holder.named_children:
                for t in tl.named_children if tl.type == "type_list" else [tl]:
                    self.type_ref(rtype, scope, ts.text(t), t)

    def _method(self, n: TSNode, sc: Scope) -> None:
        params_text, env = _params(n.child_by_field_name("parameters"))
        if _anonymous_body(n) or not sc.cls:
            # Members of anonymous classes are not symbols: their code belongs to the enclosing member.
            self.stack.push(Scope("callable", sc.qn, n.end_byte, sc.sig, cls=sc.cls, env=env))
            return
        if n.type == "method_declaration" or n.type == "annotation_type_element_declaration":
            name = ts.text(n.child_by_field_name("name"))
        else:
            name = "<init>"
            if n.type == "compact_constructor_declaration":
                params_text = "record"
        qn = f"{sc.cls}.{name}"
        in_iface = n.parent is not None and n.parent.type in _INTERFACE_BODIES
        plist = split_params(params_text) if params_text != "record" else None
        overload = (params_text, len(plist), bool(plist) and plist[-1].endswith("...")) if plist is not None else None
        sig = self.b.symbol(n, name, qn, "method", params_text, visibility=_visibility(n, in_iface),
                            parent=sc.cls, body=n.child_by_field_name("body"), overload=overload)
        if self.di is not None:
            self._di_method(n, sc, qn, sig)
        self.stack.push(Scope("callable", qn, n.end_byte, sig, cls=sc.cls, env=env, tparams=_type_params(n)))

    def _field(self, n: TSNode, sc: Scope) -> None:
        if not sc.cls or sc.kind != "class":
            return
        in_iface = n.parent is not None and n.parent.type in _INTERFACE_BODIES
        vis = _visibility(n, in_iface)
        for d in n.children_by_field_name("declarator"):
            name = ts.text(d.child_by_field_name("name"))
            self.b.symbol(d, name, f"{sc.cls}.{name}", "field", visibility=vis, parent=sc.cls,
                          signature=ts.text(n).split("=", 1)[0].strip()[:300])
        if self.di is not None:
            self._di_field(n, sc)

    # -- dependency injection (languages/jvm_inject.py) --------------------------------
    def _di_field(self, n: TSNode, sc: Scope) -> None:
        """An @Autowired / @Inject field, or a field a Lombok-generated constructor of a
        stereotype class takes (``@RequiredArgsConstructor``: final or ``@NonNull``
        fields without an initialiser; ``@AllArgsConstructor``: every non-static field
        but an initialised final one)."""
        assert self.di is not None
        kinds = self.di.kinds(_annotations(n))
        t = n.child_by_field_name("type")
        generated = self.lombok.get(sc.cls)
        for d in n.children_by_field_name("declarator"):
            name = ts.text(d.child_by_field_name("name"))
            if AUTOWIRE in kinds:
                self.di.point(sc.qn, sc.sig, ts.text(t), t, "field", name, kinds)
            elif generated is not None:
                mods = {c.type for m in n.children if m.type == "modifiers" for c in m.children}
                final, initialised = "final" in mods, d.child_by_field_name("value") is not None
                if "static" in mods:
                    continue
                takes = (not initialised and (final or NOT_NULL in kinds)) if generated == "required" \
                    else not (final and initialised)
                if takes:
                    self.di.point(sc.qn, sc.sig, ts.text(t), t, "constructor", name, kinds)

    def _di_class(self, n: TSNode, qn: str) -> None:
        assert self.di is not None
        anns = _annotations(n)
        kinds = self.di.kinds(anns)
        if STEREOTYPE in kinds:
            self.stereotypes.add(qn)
        body = n.child_by_field_name("body")
        written = sum(1 for c in body.named_children if c.type == "constructor_declaration") if body is not None else 0
        generated = [LOMBOK_CTORS[f] for f in (self.di.qualify(a) for a, _ in anns) if f in LOMBOK_CTORS]
        self.ctor_count[qn] = written + len(generated)
        if STEREOTYPE in kinds and written == 0 and len(generated) == 1 and generated[0] != "none":
            self.lombok[qn] = generated[0]  # the one constructor, which Spring autowires

    def _di_method(self, n: TSNode, sc: Scope, qn: str, sig: str) -> None:
        """A provider method, an @Autowired / @Inject method or constructor, or the one
        constructor of a stereotype class: its parameters are injection points."""
        assert self.di is not None
        kinds = self.di.kinds(_annotations(n))
        is_ctor = n.type == "constructor_declaration"
        if PROVIDER in kinds and n.type == "method_declaration":
            self.di.provider(qn, sig, ts.text(n.child_by_field_name("type")), n, kinds)
            self._di_params(n, qn, sig, "provider_parameter")
        elif AUTOWIRE in kinds:
            self._di_params(n, sc.qn, sc.sig, "constructor" if is_ctor else "method")
        elif is_ctor and sc.cls in self.stereotypes and self.ctor_count.get(sc.cls) == 1:
            self._di_params(n, sc.qn, sc.sig, "constructor")

    def _di_params(self, n: TSNode, source_qn: str, source_sig: str, via: str) -> None:
        assert self.di is not None
        params = n.child_by_field_name("parameters")
        for p in params.named_children if params is not None else ():
            t = p.child_by_field_name("type") if p.type == "formal_parameter" else None
            if t is not None:
                self.di.point(source_qn, source_sig, ts.text(t), t, via, ts.text(p.child_by_field_name("name")),
                              self.di.kinds(_annotations(p)))

    def _enum_constant(self, n: TSNode, sc: Scope) -> None:
        if sc.cls:
            name = ts.text(n.child_by_field_name("name"))
            self.b.symbol(n, name, f"{sc.cls}.{name}", "field", parent=sc.cls, signature=name)

    def _local(self, n: TSNode, sc: Scope) -> None:
        t = ts.text(n.child_by_field_name("type"))
        for d in n.children_by_field_name("declarator"):
            name = ts.text(d.child_by_field_name("name"))
            tt = t
            if t == "var":
                v = d.child_by_field_name("value")
                tt = ts.text(v.child_by_field_name("type")) if v is not None and v.type == "object_creation_expression" else ""
            sc.env[name] = tt

    def _foreach(self, n: TSNode, sc: Scope) -> None:
        t = ts.text(n.child_by_field_name("type"))
        # The loop variable lives in the loop body: a scope ending with the statement.
        self.stack.push(Scope("block", sc.qn, n.end_byte, sc.sig, cls=sc.cls,
                              env={ts.text(n.child_by_field_name("name")): "" if t == "var" else t}))

    # -- references ----------------------------------------------------------------
    def member_access(self, obj: TSNode, sc: Scope) -> Receiver | None:
        if obj.type != "field_access":
            return None
        return self.access_receiver(obj, sc, obj.child_by_field_name("object"),
                                    ts.text(obj.child_by_field_name("field")), ("identifier", "field_access"),
                                    lambda dotted, _head: any(p[:1].isupper() for p in dotted.split(".")))

    def _member_call(self, n: TSNode, sc: Scope, obj: TSNode | None, member: str, nargs: int | None) -> None:
        if obj is None:
            self.emit_implicit_call(n, sc, member, nargs)
            return
        owners, tname = self.receiver(obj, sc)
        self.emit_call(n, sc, ts.text(obj), owners, tname, member, nargs)

    def _call(self, n: TSNode, sc: Scope) -> None:
        self._member_call(n, sc, n.child_by_field_name("object"), ts.text(n.child_by_field_name("name")),
                          arity(n.child_by_field_name("arguments")))

    def _new(self, n: TSNode, sc: Scope) -> None:
        self.emit_ctor(n, sc, ts.text(n.child_by_field_name("type")), arity(n.child_by_field_name("arguments")))

    def _ctor_call(self, n: TSNode, sc: Scope) -> None:
        c = n.child_by_field_name("constructor")
        nargs = arity(n.child_by_field_name("arguments"))
        if c is None or not sc.cls:
            return
        self.emit_ctor_delegation(n, sc, c.type == "super", nargs)

    def _mref(self, n: TSNode, sc: Scope) -> None:
        kids = n.named_children
        if not kids:
            return
        if any(c.type == "new" for c in n.children):
            self.emit_ctor(n, sc, ts.text(kids[0]), None)
            return
        if len(kids) < 2:
            return
        self._member_call(n, sc, kids[0], ts.text(kids[-1]), None)


def extract(repo: str, path: str, source: bytes) -> FileExtraction:
    """Extract one Java file (see module docstring for naming)."""
    return _Java(repo, path, source).run()

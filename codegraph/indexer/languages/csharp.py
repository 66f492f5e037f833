"""C# extractor: symbols, using directives, calls, constructor calls, base lists.

Qualified names: ``Namespace.Outer.Inner.Member`` (block and file-scoped namespaces);
constructors are ``.ctor`` (the CLR's name), finalizers ``Finalize``, indexers ``this[]``,
operators ``operator +``. Properties and events are ``field`` symbols that own the code
of their accessors. Overloads differ by ``signature_hash`` (parameter types). A
``partial`` type is declared once per file (its hash includes the path). Base lists: the
first base is EXTENDS unless its name follows the ``IName`` interface convention; later
bases are IMPLEMENTS (C# allows one base class, first); interfaces' bases are EXTENDS,
structs' IMPLEMENTS. See docs/languages/csharp.md.
"""

from __future__ import annotations

from tree_sitter import Node as TSNode

from codegraph.core.models import EXTENDS, IMPLEMENTS, IMPORTS
from codegraph.core.overloads import split_params
from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages.class_based import ClassBasedExtractor, Receiver, dotted_text
from codegraph.indexer.languages.skeleton import query_events, sweep
from codegraph.indexer.languages.typed import LOCAL_CALLABLE, Scope, TypedBuilder, arity, strip_type
from codegraph.indexer.records import FileExtraction

LANG = "csharp"
CLASS_KINDS = {
    "class_declaration": "class", "interface_declaration": "interface", "struct_declaration": "struct",
    "enum_declaration": "enum", "record_declaration": "class", "delegate_declaration": "class",
}
_MEMBER_TYPES = {"property_declaration", "field_declaration", "event_field_declaration", "event_declaration"}
_LITERALS = {
    "string_literal": "string", "verbatim_string_literal": "string", "raw_string_literal": "string",
    "interpolated_string_expression": "string", "integer_literal": "int", "real_literal": "double",
    "character_literal": "char", "boolean_literal": "bool", "predefined_type": "",
}


def _modifiers(node: TSNode) -> set[str]:
    return {ts.text(c) for c in node.children if c.type == "modifier"}


def _visibility(node: TSNode) -> str:
    mods = _modifiers(node)
    if "private" in mods:  # incl. "private protected"
        return "private"
    if "protected" in mods:  # incl. "protected internal"
        return "protected"
    if "public" in mods:
        return "public"
    if "internal" in mods:
        return "internal"
    p = node.parent
    if p is not None and p.type == "declaration_list" and p.parent is not None:
        if p.parent.type == "interface_declaration":
            return "public"
        if p.parent.type in CLASS_KINDS:
            return "private"
    if p is not None and p.type == "enum_member_declaration_list":
        return "public"
    return "internal"  # top-level types


def _member_name(node: TSNode | None) -> str:
    """``Foo`` of ``Foo``, ``Foo<T>`` or ``A.Foo``."""
    if node is None:
        return ""
    if node.type == "generic_name":
        return ts.text(node.named_children[0]) if node.named_children else ""
    if node.type == "qualified_name":
        return _member_name(node.child_by_field_name("name"))
    return ts.text(node)


def _params(node: TSNode | None) -> tuple[str, dict[str, str]]:
    """(parameter types for the signature hash, name -> type text)."""
    if node is None:
        return "", {}
    types: list[str] = []
    env: dict[str, str] = {}
    for p in node.named_children:
        if p.type == "parameter":
            t = ts.text(p.child_by_field_name("type"))
            mods = [ts.text(c) for c in p.children if c.type == "modifier"]
            types.append(" ".join([*mods, t]))
            env[ts.text(p.child_by_field_name("name"))] = t
    # `params T[] x` is spelled as loose type/name fields of the list in this grammar.
    for t, nm in zip(node.children_by_field_name("type"), node.children_by_field_name("name"), strict=False):
        types.append("params " + ts.text(t))
        env[ts.text(nm)] = ts.text(t)
    return ",".join("".join(t.split()) for t in types), env


def _type_params(node: TSNode) -> frozenset[str]:
    tp = next((c for c in node.children if c.type == "type_parameter_list"), None)
    if tp is None:
        return frozenset()
    return frozenset(ts.text(c.child_by_field_name("name")) for c in tp.named_children if c.type == "type_parameter")


class _CSharp(ClassBasedExtractor):
    init_name = ".ctor"
    super_type = "base"
    literal_types = _LITERALS
    type_nodes = ("generic_name", "qualified_name")

    def __init__(self, repo: str, path: str, source: bytes) -> None:
        root = ts.parse(LANG, source).root_node
        super().__init__(TypedBuilder(repo, path, LANG, source, root, path), root)
        self.path = path
        self.file_ns = ""
        self.ns_qn: dict[int, str] = {}
        self.local_fns: dict[int, set[str]] = {}  # member node id -> its local function names

    def namespaces(self) -> list[str]:
        ns = next((s.ns for s in reversed(self.stack.stack) if s.ns), "")
        out = []
        while ns:
            out.append(ns)
            ns = ns.rpartition(".")[0]
        out.append("")
        return out

    def run(self) -> FileExtraction:
        events = query_events(LANG, self.root)
        for _, _, _, cap, n in events:
            if cap == "using":
                self._using(n)
            elif cap == "namespace":
                self._declare_ns(n)
            elif cap == "file_namespace":
                self.file_ns = dotted_text(n.child_by_field_name("name"))
            elif cap in ("class", "delegate"):
                self._declare_class(n)
            elif cap in ("field", "property"):
                self._declare_member(n)
            elif cap == "local_function":
                self._declare_local_function(n)
        self.file_ns = ""
        handlers = {
            "namespace": self._namespace, "file_namespace": self._file_namespace, "class": self._class,
            "delegate": self._class, "method": self._method, "property": self._property, "field": self._field,
            "enum_member": self._enum_member, "local_function": self._local_function, "local": self._local,
            "foreach": self._foreach, "call": self._call, "new": self._new, "new_implicit": self._new_implicit,
            "ctor_call": self._ctor_call,
        }
        sweep(events, self.stack, handlers)
        return self.b.fx

    # -- pre-pass ------------------------------------------------------------------
    def _using(self, n: TSNode) -> None:
        alias = n.child_by_field_name("name")
        target = next((c for c in n.named_children if c.type in ("identifier", "qualified_name", "generic_name")
                       and c != alias), None)
        fqn = dotted_text(target)
        if not fqn:
            return
        is_static = any(c.type == "static" for c in n.children)
        if alias is not None:
            self.names.imports[ts.text(alias)] = fqn
            self.b.file_ref(IMPORTS, fqn, n, [{"qn": strip_type(fqn), "how": "import"}],
                            names=[ts.text(alias)], optional=True)
        elif is_static:
            self.static_wild.append(strip_type(fqn))
            self.b.file_ref(IMPORTS, fqn, n, [{"qn": strip_type(fqn), "how": "import"}], names=["*"], optional=True)
        else:
            # A namespace: no file to point an IMPORTS edge at; used for type lookups only.
            self.names.wildcards.append(fqn)

    def _declare_local_function(self, n: TSNode) -> None:
        """Local functions may be called above their declaration: the enclosing member
        learns their names before its body is walked."""
        p = n.parent
        while p is not None and not (p.type.endswith("_declaration") and p.type not in (
                "variable_declaration", "local_declaration_statement")):
            p = p.parent
        if p is not None:
            self.local_fns.setdefault(p.id, set()).add(ts.text(n.child_by_field_name("name")))

    def _declare_ns(self, n: TSNode) -> None:
        name = dotted_text(n.child_by_field_name("name"))
        p = n.parent
        while p is not None and p.type != "namespace_declaration":
            p = p.parent
        outer = self.ns_qn.get(p.id, "") if p is not None else self.file_ns
        self.ns_qn[n.id] = f"{outer}.{name}" if outer else name

    def _owner_qn(self, n: TSNode) -> str:
        p = n.parent
        while p is not None:
            if p.type in CLASS_KINDS and p.id in self.class_qn:
                return self.class_qn[p.id]
            if p.type == "namespace_declaration":
                return self.ns_qn.get(p.id, "")
            p = p.parent
        return self.file_ns

    def _declare_class(self, n: TSNode) -> None:
        name = ts.text(n.child_by_field_name("name"))
        owner = self._owner_qn(n)
        qn = f"{owner}.{name}" if owner else name
        self.class_qn[n.id] = qn
        self.names.declare(name, qn)
        if n.type == "record_declaration":
            plist = next((c for c in n.children if c.type == "parameter_list"), None)
            self.field_types.setdefault(qn, {}).update(_params(plist)[1])

    def _declare_member(self, n: TSNode) -> None:
        cls = n.parent.parent if n.parent is not None else None
        if cls is None or cls.id not in self.class_qn:
            return
        env = self.field_types.setdefault(self.class_qn[cls.id], {})
        if n.type in ("property_declaration", "event_declaration"):
            env[ts.text(n.child_by_field_name("name"))] = ts.text(n.child_by_field_name("type"))
            return
        vd = next((c for c in n.named_children if c.type == "variable_declaration"), None)
        if vd is not None:
            t = ts.text(vd.child_by_field_name("type"))
            for d in vd.named_children:
                if d.type == "variable_declarator":
                    env[ts.text(d.child_by_field_name("name"))] = t

    # -- declarations --------------------------------------------------------------
    def _namespace(self, n: TSNode, sc: Scope) -> None:
        qn = self.ns_qn.get(n.id, "")
        self.stack.push(Scope("namespace", sc.qn, n.end_byte, sc.sig, ns=qn))

    def _file_namespace(self, n: TSNode, sc: Scope) -> None:
        # Applies to the rest of the file: the declarations are its siblings, not children.
        self.stack.push(Scope("namespace", sc.qn, self.root.end_byte, sc.sig, ns=dotted_text(n.child_by_field_name("name"))))

    def _class(self, n: TSNode, sc: Scope) -> None:
        qn = self.class_qn[n.id]
        name = qn.rsplit(".", 1)[-1]
        kind = CLASS_KINDS[n.type]
        mods = _modifiers(n)
        key = f"partial:{self.path}" if "partial" in mods else ""
        sig = self.b.symbol(n, name, qn, kind, key, visibility=_visibility(n), parent=sc.cls or sc.qn,
                            body=n.child_by_field_name("body"))
        scope = Scope("class", qn, n.end_byte, sig, cls=qn, env=dict(self.field_types.get(qn, {})),
                      tparams=_type_params(n))
        self.stack.push(scope)
        if n.type == "record_declaration":
            plist = next((c for c in n.children if c.type == "parameter_list"), None)
            for p in plist.named_children if plist is not None else []:
                if p.type == "parameter":
                    pname = ts.text(p.child_by_field_name("name"))
                    self.b.symbol(p, pname, f"{qn}.{pname}", "field", parent=qn)
        bl = next((c for c in n.children if c.type == "base_list"), None)
        if bl is None or n.type in ("enum_declaration", "delegate_declaration"):
            return
        for i, base in enumerate(bl.named_children):
            if base.type == "primary_constructor_base_type":
                bt = base.named_children[0] if base.named_children else base
                args = next((c for c in base.named_children if c.type == "argument_list"), None)
                self._base(scope, n, bt, i)
                self.ctor_ref(base, scope, self.super_owners(scope.qn), f"{strip_type(ts.text(bt))}.{self.init_name}",
                              arity(args))
            elif "comment" not in base.type:
                self._base(scope, n, base, i)

    def _base(self, scope: Scope, decl: TSNode, base: TSNode, index: int) -> None:
        t = ts.text(base)
        simple = strip_type(t).rsplit(".", 1)[-1]
        iface_name = len(simple) > 1 and simple[0] == "I" and simple[1].isupper()
        if decl.type == "interface_declaration":
            rtype = EXTENDS
        elif decl.type == "struct_declaration" or index > 0 or iface_name:
            rtype = IMPLEMENTS
        else:
            rtype = EXTENDS
            self.supers[scope.qn] = t
        self.type_ref(rtype, scope, t, base)

    def _method(self, n: TSNode, sc: Scope) -> None:
        params_text, env = _params(n.child_by_field_name("parameters"))
        env.update(dict.fromkeys(self.local_fns.get(n.id, ()), LOCAL_CALLABLE))
        if not sc.cls:
            self.stack.push(Scope("callable", sc.qn, n.end_byte, sc.sig, cls=sc.cls, env=env))
            return
        t = n.type
        if t == "method_declaration":
            name = ts.text(n.child_by_field_name("name"))
        elif t == "constructor_declaration":
            name = ".ctor" if "static" not in _modifiers(n) else ".cctor"
        elif t == "destructor_declaration":
            name = "Finalize"
        elif t == "indexer_declaration":
            name = "this[]"
        elif t == "operator_declaration":
            name = f"operator {ts.text(n.child_by_field_name('operator'))}"
        else:  # conversion operator
            name = f"operator {ts.text(n.child_by_field_name('type'))}"
        qn = f"{sc.cls}.{name}"
        body = n.child_by_field_name("body") or n.child_by_field_name("value")
        plist = n.child_by_field_name("parameters")
        # An extension method's `this` parameter is the receiver, not an argument.
        count = len(split_params(params_text)) - params_text.startswith("this") if params_text else 0
        defaults = plist is not None and any(c.type == "=" for p in plist.named_children for c in p.children)
        overload = (params_text, None if defaults else count, "params" in params_text.split(",")[-1][:6])
        sig = self.b.symbol(n, name, qn, "method", params_text, visibility=_visibility(n), parent=sc.cls, body=body,
                            overload=overload)
        self.stack.push(Scope("callable", qn, n.end_byte, sig, cls=sc.cls, env=env, tparams=_type_params(n)))

    def _property(self, n: TSNode, sc: Scope) -> None:
        if not sc.cls:
            return
        name = ts.text(n.child_by_field_name("name"))
        qn = f"{sc.cls}.{name}"
        body = n.child_by_field_name("accessors") or n.child_by_field_name("value")
        sig = self.b.symbol(n, name, qn, "field", visibility=_visibility(n), parent=sc.cls, body=body)
        # Accessor bodies and initialisers are the property's code.
        env = dict.fromkeys(self.local_fns.get(n.id, ()), LOCAL_CALLABLE)
        self.stack.push(Scope("callable", qn, n.end_byte, sig, cls=sc.cls, env=env))

    def _field(self, n: TSNode, sc: Scope) -> None:
        if not sc.cls:
            return
        vd = next((c for c in n.named_children if c.type == "variable_declaration"), None)
        if vd is None:
            return
        vis = _visibility(n)
        head = ts.text(n).split("=", 1)[0].strip()[:300]
        for d in vd.named_children:
            if d.type == "variable_declarator":
                name = ts.text(d.child_by_field_name("name"))
                self.b.symbol(d, name, f"{sc.cls}.{name}", "field", visibility=vis, parent=sc.cls, signature=head)

    def _enum_member(self, n: TSNode, sc: Scope) -> None:
        if sc.cls:
            name = ts.text(n.child_by_field_name("name"))
            self.b.symbol(n, name, f"{sc.cls}.{name}", "field", parent=sc.cls, signature=name)

    def _local_function(self, n: TSNode, sc: Scope) -> None:
        sc.env[ts.text(n.child_by_field_name("name"))] = LOCAL_CALLABLE
        _, env = _params(n.child_by_field_name("parameters"))
        self.stack.push(Scope("block", sc.qn, n.end_byte, sc.sig, cls=sc.cls, env=env))

    def _local(self, n: TSNode, sc: Scope) -> None:
        vd = next((c for c in n.named_children if c.type == "variable_declaration"), None)
        if vd is None:
            return
        tnode = vd.child_by_field_name("type")
        t = "" if tnode is None or tnode.type == "implicit_type" else ts.text(tnode)
        for d in vd.named_children:
            if d.type != "variable_declarator":
                continue
            tt = t
            if not t:
                v = next((c for c in d.named_children if c.type == "object_creation_expression"), None)
                tt = ts.text(v.child_by_field_name("type")) if v is not None else ""
                if any(c.type in ("lambda_expression", "anonymous_method_expression") for c in d.named_children):
                    tt = LOCAL_CALLABLE
            sc.env[ts.text(d.child_by_field_name("name"))] = tt

    def _foreach(self, n: TSNode, sc: Scope) -> None:
        tnode = n.child_by_field_name("type")
        left = n.child_by_field_name("left")
        t = "" if tnode is None or tnode.type == "implicit_type" else ts.text(tnode)
        env = {ts.text(left): t} if left is not None and left.type == "identifier" else {}
        self.stack.push(Scope("block", sc.qn, n.end_byte, sc.sig, cls=sc.cls, env=env))

    # -- references ----------------------------------------------------------------
    def member_access(self, obj: TSNode, sc: Scope) -> Receiver | None:
        if obj.type != "member_access_expression":
            return None
        return self.access_receiver(obj, sc, obj.child_by_field_name("expression"),
                                    _member_name(obj.child_by_field_name("name")),
                                    ("identifier", "member_access_expression"), lambda _dotted, head: head[:1].isupper())

    def _call(self, n: TSNode, sc: Scope) -> None:
        fn = n.child_by_field_name("function")
        nargs = arity(n.child_by_field_name("arguments"))
        if fn is None:
            return
        if fn.type in ("identifier", "generic_name"):
            member = _member_name(fn)
            local = self.stack.lookup(member)
            if local is not None or member == "nameof":  # a delegate / lambda / local function; an operator
                return
            self.emit_implicit_call(n, sc, member, nargs)
            return
        if fn.type == "member_access_expression":
            obj = fn.child_by_field_name("expression")
            member = _member_name(fn.child_by_field_name("name"))
        elif fn.type == "conditional_access_expression":
            obj = fn.child_by_field_name("condition")
            mb = next((c for c in fn.named_children if c.type == "member_binding_expression"), None)
            if mb is None:
                return
            member = _member_name(mb.child_by_field_name("name"))
        else:
            return
        if obj is None or not member:
            return
        owners, tname = self.receiver(obj, sc)
        self.emit_call(n, sc, ts.text(obj), owners, tname, member, nargs)

    def _new(self, n: TSNode, sc: Scope) -> None:
        self.emit_ctor(n, sc, ts.text(n.child_by_field_name("type")), arity(n.child_by_field_name("arguments")))

    def _new_implicit(self, n: TSNode, sc: Scope) -> None:
        """``Foo x = new(...)``: the type is the declaration's."""
        p = n.parent
        if p is not None and p.type == "variable_declarator" and p.parent is not None:
            t = p.parent.child_by_field_name("type")
            if t is not None and t.type != "implicit_type":
                args = next((c for c in n.named_children if c.type == "argument_list"), None)
                self.emit_ctor(n, sc, ts.text(t), arity(args))

    def _ctor_call(self, n: TSNode, sc: Scope) -> None:
        """``: base(...)`` / ``: this(...)`` of a constructor."""
        if not sc.cls:
            return
        args = next((c for c in n.named_children if c.type == "argument_list"), None)
        self.emit_ctor_delegation(n, sc, any(c.type == "base" for c in n.children), arity(args))


def extract(repo: str, path: str, source: bytes) -> FileExtraction:
    """Extract one C# file (see module docstring for naming)."""
    return _CSharp(repo, path, source).run()

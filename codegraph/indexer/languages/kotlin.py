"""Kotlin extractor: symbols, imports, calls, constructor calls, supertypes.

Qualified names: ``package.Class.Nested.member``; top-level functions and properties are
``package.name`` (Kotlin's own naming, not the JVM's ``FileKt`` facade); members of a
companion object are named as members of the enclosing class (``Repo.create``: that is
how callers write them). Constructors (primary and secondary) are ``<init>``. Extension
functions are ``function`` symbols ``package.name`` whose signature hash includes the
receiver type. ``expect``/``actual`` declarations hash their file path so that each
platform's copy is its own node. Supertypes: ``Base(...)`` (a constructor call) is
EXTENDS, a bare type IMPLEMENTS (EXTENDS for an interface's supertypes).
See docs/languages/kotlin.md.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TSNode

from codegraph.core.models import CALLS, EXTENDS, IMPLEMENTS, IMPORTS
from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages.class_based import ClassBasedExtractor, Receiver, dotted_text
from codegraph.indexer.languages.jvm_inject import AUTOWIRE, Injection, may_inject
from codegraph.indexer.languages.kotlin_inject import _annotations, _Injection
from codegraph.indexer.languages.skeleton import query_events, sweep
from codegraph.indexer.languages.typed import LOCAL_CALLABLE, Scope, TypedBuilder, strip_type
from codegraph.indexer.records import FileExtraction

LANG = "kotlin"
# Kotlin standard-library functions called unqualified everywhere: when the file's own
# candidates miss, a repo method of the same name (okio's ``require``) is no match.
STDLIB_FUNCTIONS = frozenset(
    "require requireNotNull check checkNotNull error println print TODO run let apply also with takeIf takeUnless "
    "repeat lazy synchronized listOf listOfNotNull mutableListOf arrayListOf setOf mutableSetOf hashSetOf "
    "linkedSetOf mapOf mutableMapOf hashMapOf linkedMapOf emptyList emptySet emptyMap emptyArray arrayOf "
    "arrayOfNulls intArrayOf longArrayOf byteArrayOf charArrayOf booleanArrayOf doubleArrayOf floatArrayOf "
    "sequenceOf sequence buildList buildSet buildMap buildString maxOf minOf assert contract callsInPlace "
    "returns suspendCoroutine suspendCancellableCoroutine coroutineScope supervisorScope withContext "
    "launch async runBlocking delay yield atomic".split()
)
_LITERALS = {"string_literal": "String", "integer_literal": "Int", "character_literal": "Char",
             "boolean_literal": "Boolean", "real_literal": "Double", "long_literal": "Long"}


def _first(node: TSNode, type_: str) -> TSNode | None:
    return next((c for c in node.children if c.type == type_), None)


def _modifier_words(node: TSNode) -> set[str]:
    m = _first(node, "modifiers")
    if m is None:
        return set()
    return {ts.text(c) for c in m.named_children if c.type != "annotation"}


def _visibility(words: set[str]) -> str:
    for v in ("private", "protected", "internal"):
        if v in words:
            return v
    return "public"


def _user_type(node: TSNode | None) -> str:
    """Type text without nullability / generics: ``Map<K, V>?`` -> ``Map``."""
    return strip_type(ts.text(node)) if node is not None else ""


def _params(node: TSNode | None) -> tuple[list[str], dict[str, str]]:
    """(parameter type texts, name -> type text) of function_value_parameters."""
    types: list[str] = []
    env: dict[str, str] = {}
    if node is None:
        return types, env
    vararg = False
    for p in node.named_children:
        if p.type == "parameter_modifiers":
            vararg = "vararg" in ts.text(p)
        elif p.type == "parameter":
            name = _first(p, "simple_identifier")
            t = next((c for c in p.named_children if c.type in ("user_type", "nullable_type", "function_type")), None)
            tt = "".join(ts.text(t).split())
            types.append(("vararg " if vararg else "") + tt)
            env[ts.text(name)] = "" if t is not None and t.type == "function_type" else tt
            vararg = False
    return types, env


def _overload(node: TSNode | None) -> tuple[str, int | None, bool]:
    """(parameter types, arity or None when a default value makes it a range, vararg)."""
    types, _ = _params(node)
    defaults = node is not None and any(c.type == "=" for c in node.children)
    return ",".join(types), None if defaults else len(types), any(t.startswith("vararg ") for t in types)


def _type_params(node: TSNode) -> frozenset[str]:
    tp = _first(node, "type_parameters")
    if tp is None:
        return frozenset()
    return frozenset(ts.text(_first(c, "type_identifier")) for c in tp.named_children if c.type == "type_parameter")


def _nargs(suffix: TSNode | None) -> int | None:
    if suffix is None:
        return 0
    n = 0
    for c in suffix.named_children:
        if c.type == "value_arguments":
            if any(x.type == "spread_expression" for a in c.named_children for x in a.named_children):
                return None  # f(*xs): the count is not known
            n += sum(1 for a in c.named_children if a.type == "value_argument")
        elif c.type == "annotated_lambda":
            n += 1
    return n


class _Kotlin(_Injection, ClassBasedExtractor):
    call_name_kinds = ["method", "function"]  # extension functions are called like methods

    def __init__(self, repo: str, path: str, source: bytes) -> None:
        root = ts.parse(LANG, source).root_node
        super().__init__(TypedBuilder(repo, path, LANG, source, root, path), root)
        self.path = path
        self.di = Injection(self, LANG) if may_inject(source) else None
        self.stereotypes: set[str] = set()  # Spring stereotype classes of this file
        self.local_fns: dict[int, set[str]] = {}

    def run(self) -> FileExtraction:
        events = query_events(LANG, self.root)
        for _, _, _, cap, n in events:
            if cap == "package":
                self.names.package = dotted_text(_first(n, "identifier"))
            elif cap == "import":
                self._import(n)
            elif cap == "class":
                self._declare_class(n)
            elif cap == "function":
                self._declare_local_fn(n)
        for _, _, _, cap, n in events:  # member types after all classes are named
            if cap == "property":
                self._declare_property(n)
            elif cap == "class":
                self._declare_ctor_props(n)
        handlers = {
            "class": self._class, "companion": self._companion, "anon": self._anon, "function": self._function,
            "ctor": self._ctor, "property": self._property, "enum_entry": self._enum_entry, "call": self._call,
            "ctor_call": self._ctor_call, "mref": self._mref, "foreach": self._foreach,
        }
        sweep(events, self.stack, handlers)
        return self.b.fx

    # -- pre-pass ------------------------------------------------------------------
    def _import(self, n: TSNode) -> None:
        fqn = dotted_text(_first(n, "identifier"))
        if not fqn:
            return
        if _first(n, "wildcard_import") is not None:
            # A package (or a class's members): no single declaration to point at.
            self.names.wildcards.append(fqn)
            self.static_wild.append(fqn)
            return
        alias = _first(n, "import_alias")
        local = ts.text(alias.named_children[0]) if alias is not None and alias.named_children else fqn.rsplit(".", 1)[-1]
        self.names.imports[local] = fqn
        self.b.file_ref(IMPORTS, fqn, n, [{"qn": fqn, "how": "import"}], names=[local], optional=True)

    def _owner_qn(self, n: TSNode) -> str | None:
        """Enclosing class qn, package for top-level, None inside a function body."""
        p = n.parent
        while p is not None:
            if p.type in ("class_declaration", "object_declaration") and p.id in self.class_qn:
                return self.class_qn[p.id]
            if p.type in ("function_declaration", "secondary_constructor", "object_literal", "lambda_literal",
                          "anonymous_initializer", "getter", "setter"):
                return None
            p = p.parent
        return self.names.package

    def _declare_class(self, n: TSNode) -> None:
        name = ts.text(_first(n, "type_identifier"))
        owner = self._owner_qn(n)
        if owner is None or not name:
            return  # local classes: their members belong to the enclosing function
        qn = f"{owner}.{name}" if owner else name
        self.class_qn[n.id] = qn
        self.names.declare(name, qn)

    def _class_of_member(self, n: TSNode) -> str | None:
        """Class qn of a class-body member (companion members count as the class's)."""
        body = n.parent
        if body is None or body.type not in ("class_body", "enum_class_body"):
            return None
        decl = body.parent
        if decl is not None and decl.type == "companion_object":
            decl = decl.parent.parent if decl.parent is not None else None
        return self.class_qn.get(decl.id) if decl is not None else None

    def _declare_property(self, n: TSNode) -> None:
        cls = self._class_of_member(n)
        if cls is None:
            return
        vd = _first(n, "variable_declaration")
        if vd is not None:
            self.field_types.setdefault(cls, {})[ts.text(_first(vd, "simple_identifier"))] = self._value_type(n, vd)

    def _declare_ctor_props(self, n: TSNode) -> None:
        qn = self.class_qn.get(n.id)
        pc = _first(n, "primary_constructor")
        if qn is None or pc is None:
            return
        env = self.field_types.setdefault(qn, {})
        for p in pc.named_children:
            if p.type == "class_parameter" and _first(p, "binding_pattern_kind") is not None:
                env[ts.text(_first(p, "simple_identifier"))] = _user_type(
                    next((c for c in p.named_children if c.type in ("user_type", "nullable_type")), None))

    def _declare_local_fn(self, n: TSNode) -> None:
        p = n.parent
        while p is not None and p.type not in ("function_declaration", "secondary_constructor", "class_body",
                                               "source_file", "getter", "setter", "anonymous_initializer"):
            p = p.parent
        if p is not None and p.type not in ("class_body", "source_file"):
            self.local_fns.setdefault(p.id, set()).add(ts.text(_first(n, "simple_identifier")))

    def _value_type(self, n: TSNode, vd: TSNode) -> str:
        """Declared type of a property, else the class of a ``Foo(...)`` initialiser."""
        t = next((c for c in vd.named_children if c.type in ("user_type", "nullable_type")), None)
        if t is not None:
            return _user_type(t)
        if _first(vd, "function_type") is not None:
            return LOCAL_CALLABLE
        v = n.named_children[-1] if n.named_children else None
        if v is not None and v.type == "call_expression" and v.named_children:
            callee = v.named_children[0]
            if callee.type == "simple_identifier" and ts.text(callee)[:1].isupper():
                return ts.text(callee)
        if v is not None and v.type in ("lambda_literal", "callable_reference", "anonymous_function"):
            return LOCAL_CALLABLE
        return ""

    # -- declarations --------------------------------------------------------------
    def _kind(self, n: TSNode) -> str:
        kw = {c.type for c in n.children if not c.is_named}
        if "interface" in kw:
            return "interface"
        if "enum" in kw or _first(n, "enum_class_body") is not None:
            return "enum"
        return "class"

    def _class(self, n: TSNode, sc: Scope) -> None:
        qn = self.class_qn.get(n.id)
        if qn is None:  # local class
            self.stack.push(Scope("block", sc.qn, n.end_byte, sc.sig, cls=sc.cls))
            return
        name = qn.rsplit(".", 1)[-1]
        words = _modifier_words(n)
        kind = "class" if n.type == "object_declaration" else self._kind(n)
        body = _first(n, "class_body") or _first(n, "enum_class_body")
        key = f"platform:{self.path}" if words & {"expect", "actual"} else ""
        sig = self.b.symbol(n, name, qn, kind, key, visibility=_visibility(words), parent=sc.cls or sc.qn, body=body)
        env = dict(self.field_types.get(qn, {}))
        pc = _first(n, "primary_constructor")
        ctor_env: dict[str, str] = {}
        if pc is not None:
            ptypes: list[str] = []
            for p in pc.named_children:
                if p.type != "class_parameter":
                    continue
                pname = ts.text(_first(p, "simple_identifier"))
                t = next((c for c in p.named_children if c.type in ("user_type", "nullable_type", "function_type")), None)
                ptypes.append("".join(ts.text(t).split()))
                ctor_env[pname] = _user_type(t)
                if _first(p, "binding_pattern_kind") is not None:
                    self.b.symbol(p, pname, f"{qn}.{pname}", "field", visibility=_visibility(_modifier_words(p)),
                                  parent=qn)
            self.b.symbol(pc, "<init>", f"{qn}.<init>", "method", ",".join(ptypes),
                          visibility=_visibility(_modifier_words(pc)), parent=qn, signature=f"{name}{ts.text(pc)}"[:300])
        # Constructor parameters are visible in initialisers and property initialisers.
        env = {**ctor_env, **env}
        scope = Scope("class", qn, n.end_byte, sig, cls=qn, env=env, tparams=_type_params(n))
        self.stack.push(scope)
        self._supertypes(n, scope, kind)
        if self.di is not None:
            self._di_class(n, scope, pc, body)

    def _supertypes(self, n: TSNode, scope: Scope, kind: str) -> None:
        for ds in n.named_children:
            if ds.type != "delegation_specifier" or not ds.named_children:
                continue
            spec = ds.named_children[0]
            if spec.type == "constructor_invocation":
                t = _first(spec, "user_type")
                self.type_ref(EXTENDS, scope, ts.text(t), spec)
                if t is not None:
                    self.supers[scope.qn] = ts.text(t)
                    self.ctor_ref(spec, scope, self.super_owners(scope.qn), f"{_user_type(t)}.<init>", _nargs(spec))
            elif spec.type in ("user_type", "explicit_delegation"):
                t = spec if spec.type == "user_type" else _first(spec, "user_type")
                rtype = EXTENDS if kind == "interface" else IMPLEMENTS
                self.type_ref(rtype, scope, ts.text(t), spec)

    def _companion(self, n: TSNode, sc: Scope) -> None:
        # Members qualify under the enclosing class: ``Repo.create()`` is how they are called.
        self.stack.push(Scope("class", sc.cls or sc.qn, n.end_byte, sc.sig, cls=sc.cls, env={}))

    def _anon(self, n: TSNode, sc: Scope) -> None:
        """``object : T { ... }``: its members are not symbols; their code is the enclosing member's."""
        self.stack.push(Scope("block", sc.qn, n.end_byte, sc.sig, cls=sc.cls))

    def _function(self, n: TSNode, sc: Scope) -> None:
        name = ts.text(_first(n, "simple_identifier"))
        ptypes, env = _params(_first(n, "function_value_parameters"))
        env.update(dict.fromkeys(self.local_fns.get(n.id, ()), LOCAL_CALLABLE))
        tparams = _type_params(n)
        in_class = sc.kind == "class"
        if sc.kind not in ("class", "module"):  # local function / member of an anonymous object
            sc.env.setdefault(name, LOCAL_CALLABLE)
            self.stack.push(Scope("block", sc.qn, n.end_byte, sc.sig, cls=sc.cls, env=env, tparams=tparams))
            return
        recv = n.child_by_field_name("receiver")
        if recv is not None:
            ptypes.insert(0, "receiver " + "".join(ts.text(recv).split()))
        words = _modifier_words(n)
        if words & {"expect", "actual"}:
            ptypes.append(f"platform:{self.path}")
        owner = sc.cls if in_class else self.names.package
        qn = f"{owner}.{name}" if owner else name
        body = _first(n, "function_body")
        sig = self.b.symbol(n, name, qn, "method" if in_class else "function", ",".join(ptypes),
                            visibility=_visibility(words), parent=sc.cls if in_class else sc.qn, body=body,
                            overload=_overload(_first(n, "function_value_parameters")))
        if self.di is not None:
            self._di_function(n, sc, qn, sig)
        self.stack.push(Scope("callable", qn, n.end_byte, sig, cls=sc.cls, env=env, tparams=tparams))

    def _ctor(self, n: TSNode, sc: Scope) -> None:
        ptypes, env = _params(_first(n, "function_value_parameters"))
        env.update(dict.fromkeys(self.local_fns.get(n.id, ()), LOCAL_CALLABLE))
        if sc.kind != "class":
            self.stack.push(Scope("block", sc.qn, n.end_byte, sc.sig, cls=sc.cls, env=env))
            return
        qn = f"{sc.cls}.<init>"
        sig = self.b.symbol(n, "<init>", qn, "method", ",".join(ptypes), visibility=_visibility(_modifier_words(n)),
                            parent=sc.cls, body=_first(n, "statements") or _first(n, "block"),
                            overload=_overload(_first(n, "function_value_parameters")))
        if self.di is not None:
            kinds = self.di.kinds(_annotations(n))
            if AUTOWIRE in kinds or (sc.cls in self.stereotypes and self._sole_secondary(n)):
                self._di_params(_first(n, "function_value_parameters"), sc.qn, sc.sig, "constructor")
        self.stack.push(Scope("callable", qn, n.end_byte, sig, cls=sc.cls, env=env))

    def _property(self, n: TSNode, sc: Scope) -> None:
        vd = _first(n, "variable_declaration")
        if vd is None:
            return  # destructuring
        name = ts.text(_first(vd, "simple_identifier"))
        if sc.kind not in ("class", "module"):
            sc.env[name] = self._value_type(n, vd)
            return
        in_class = sc.kind == "class"
        owner = sc.cls if in_class else self.names.package
        qn = f"{owner}.{name}" if owner else name
        words = _modifier_words(n)
        key = f"platform:{self.path}" if words & {"expect", "actual"} else ""
        head = ts.text(n).split("=", 1)[0].split("\n", 1)[0].strip()[:300]
        self.b.symbol(n, name, qn, "field" if in_class else "variable", key, visibility=_visibility(words),
                      parent=sc.cls if in_class else sc.qn, signature=head)
        kinds = self.di.kinds(_annotations(n)) if in_class and self.di is not None else {}
        if self.di is not None and AUTOWIRE in kinds:
            t = next((c for c in vd.named_children if c.type in ("user_type", "nullable_type")), None)
            if t is not None:
                self.di.point(sc.qn, sc.sig, ts.text(t), t, "field", name, kinds)

    def _enum_entry(self, n: TSNode, sc: Scope) -> None:
        if sc.kind == "class":
            name = ts.text(_first(n, "simple_identifier"))
            self.b.symbol(n, name, f"{sc.cls}.{name}", "field", parent=sc.cls, signature=name)

    def _foreach(self, n: TSNode, sc: Scope) -> None:
        vd = _first(n, "variable_declaration")
        if vd is None:
            return
        t = next((c for c in vd.named_children if c.type in ("user_type", "nullable_type")), None)
        self.stack.push(Scope("block", sc.qn, n.end_byte, sc.sig, cls=sc.cls,
                              env={ts.text(_first(vd, "simple_identifier")): _user_type(t)}))

    # -- references ----------------------------------------------------------------
    def receiver(self, obj: TSNode, sc: Scope) -> Receiver:
        t = obj.type
        if t == "this_expression":
            return ([(sc.cls, "self")], sc.cls.rsplit(".", 1)[-1]) if sc.cls else (None, "this")
        if t == "super_expression":
            return self.super_owners(sc.cls), strip_type(self.supers.get(sc.cls, "super"))
        if t == "simple_identifier":
            return self.name_receiver(ts.text(obj))
        if t == "navigation_expression":
            inner = obj.named_children[0] if obj.named_children else None
            suffix = _first(obj, "navigation_suffix")
            fname = ts.text(_first(suffix, "simple_identifier")) if suffix is not None else ""
            if inner is None or not fname:
                return None, fname
            dotted = dotted_text(obj)
            head = dotted.split(".", 1)[0]
            if not any(ch in dotted for ch in "(?!@[") and self.stack.lookup(head) is None:
                if fname == "Companion":  # companion members are qualified under the class
                    dotted = dotted.rsplit(".", 1)[0]
                if dotted.rsplit(".", 1)[-1][:1].isupper():  # a (nested / package-qualified) class
                    return self.type_candidates(dotted), dotted
            if inner.type == "this_expression":
                return self.field_receiver([(sc.cls, "self")], fname)
            return self.field_receiver(self.receiver(inner, sc)[0], fname)
        if t == "call_expression" and obj.named_children and obj.named_children[0].type == "simple_identifier":
            callee = ts.text(obj.named_children[0])
            if callee[:1].isupper() and self.stack.lookup(callee) is None:
                return self.typed(callee)
            return None, callee
        if t in ("parenthesized_expression", "postfix_expression") and obj.named_children:
            return self.receiver(obj.named_children[0], sc)
        if t == "as_expression" and len(obj.named_children) > 1:
            return self.typed(ts.text(obj.named_children[-1]))
        if t in _LITERALS:
            return [], _LITERALS[t]
        return None, ""

    def _call(self, n: TSNode, sc: Scope) -> None:
        if not n.named_children:
            return
        callee = n.named_children[0]
        suffix = _first(n, "call_suffix")
        nargs = _nargs(suffix)
        if callee.type == "simple_identifier":
            name = ts.text(callee)
            if self.stack.lookup(name) is not None:
                return  # a lambda / function value / local function
            if name[:1].isupper():
                self._construct(n, sc, name, nargs)
                return
            cands = self.implicit_owners(name)
            if name in self.names.imports:
                cands.append({"qn": self.names.imports[name], "how": "import"})
            pkg = self.names.package
            cands.append({"qn": f"{pkg}.{name}" if pkg else name, "how": "same_module"})
            cands.extend({"qn": f"{w}.{name}", "how": "import"} for w in self.names.wildcards)
            fallback = None if name in STDLIB_FUNCTIONS else name
            self.b.ref(CALLS, sc, name, n, cands, name=fallback, name_kinds=["function", "method"], arity=nargs)
            return
        if callee.type != "navigation_expression" or not callee.named_children:
            return
        suffix_n = _first(callee, "navigation_suffix")
        member = ts.text(_first(suffix_n, "simple_identifier")) if suffix_n is not None else ""
        if not member:
            return
        obj = callee.named_children[0]
        owners, tname = self.receiver(obj, sc)
        if member[:1].isupper() and owners is not None and tname[:1].isupper():
            # ``Outer.Inner(...)`` / ``pkg.Foo(...)``: a constructor of a nested / qualified class
            self._construct(n, sc, f"{tname}.{member}", nargs)
            return
        self.emit_call(n, sc, ts.text(obj), owners, tname, member, nargs, self._extension_candidates(member))

    def _extension_candidates(self, member: str) -> list[dict[str, Any]]:
        """``x.shout()`` may be an extension function imported by name. (Not tried: one in
        this package, as a same-named top-level function that is no extension would match.)"""
        if member in self.names.imports:
            return [{"qn": self.names.imports[member], "how": "import"}]
        return []

    def _construct(self, n: TSNode, sc: Scope, type_name: str, nargs: int) -> None:
        """``Foo(...)``: a class (and its constructor) or a factory function named like one."""
        self.emit_ctor(n, sc, type_name, nargs, ["class", "function"])

    def _ctor_call(self, n: TSNode, sc: Scope) -> None:
        """``constructor(...) : this(...)`` / ``: super(...)``."""
        if not sc.cls:
            return
        nargs = sum(1 for a in (_first(n, "value_arguments") or n).named_children if a.type == "value_argument")
        self.emit_ctor_delegation(n, sc, any(c.type == "super" for c in n.children), nargs)

    def _mref(self, n: TSNode, sc: Scope) -> None:
        """``::foo``, ``Repo::save``, ``x::save``: the function will be called."""
        kids = n.named_children
        if not kids:
            return
        member = ts.text(kids[-1])
        extra: dict[str, Any] = {}
        if len(kids) == 1:
            cands = self.implicit_owners(member)
            pkg = self.names.package
            if member in self.names.imports:
                cands.append({"qn": self.names.imports[member], "how": "import"})
            cands.append({"qn": f"{pkg}.{member}" if pkg else member, "how": "same_module"})
            self.b.ref(CALLS, sc, member, n, cands, name=member, name_kinds=["function", "method"], **extra)
            return
        recv = kids[0]
        if recv.type in ("type_identifier", "user_type"):
            rt = strip_type(ts.text(recv))
            self.emit_call(n, sc, rt, self.type_candidates(rt), rt, member, None)
        else:
            owners, tname = self.receiver(recv, sc)
            self.emit_call(n, sc, ts.text(recv), owners, tname, member, None)


def extract(repo: str, path: str, source: bytes) -> FileExtraction:
    """Extract one Kotlin file (see module docstring for naming)."""
    return _Kotlin(repo, path, source).run()

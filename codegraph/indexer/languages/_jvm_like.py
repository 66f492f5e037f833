"""Shared machinery of the Go, Java, Kotlin and C# extractors.

Each of those extractors runs ONE stored tree-sitter query (``queries/<lang>/tags.scm``)
over the file; the C side of tree-sitter does the tree walk and hands back only the nodes
that matter (declarations, calls, object creations, typed locals). ``items`` sorts them
in document order (outer before inner), and a ``ScopeStack`` keyed by end byte tells for
every node which symbol owns it. That keeps Python work proportional to the number of
interesting nodes, not to the size of the tree.

``Builder`` turns what a language module found into the extraction contract
(``codegraph.indexer.records``): a ``module`` symbol per file that owns top-level code,
symbols with signature/content hashes, and references with resolution hints.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tree_sitter import Node as TSNode

from codegraph.core.models import CALLS, FileRecord, SymbolRecord
from codegraph.indexer import treesitter as ts
from codegraph.indexer.overloads import call_arguments, literal_types
from codegraph.indexer.records import FileExtraction, Reference

# Text of a callee that is too long or spans lines is not a useful stub identifier.
_MAX_TARGET = 80
_GENERIC_RE = re.compile(r"<[^<>]*>")
_WS_RE = re.compile(r"\s+")


def items(language: str, root: TSNode) -> list[tuple[str, TSNode]]:
    """(capture name, node) of ``queries/<language>/tags.scm`` in document order; an
    enclosing node comes before the nodes inside it."""
    caps = ts.captures(language, "tags", root)
    out = [(n.start_byte, -n.end_byte, name, n) for name, nodes in caps.items() for n in nodes]
    out.sort(key=lambda t: (t[0], t[1]))
    return [(name, n) for _, _, name, n in out]


def strip_type(text: str) -> str:
    """``Map<String, List<X>>[]?`` -> ``Map``; ``global::A.B`` -> ``A.B``; ``*pkg.T`` -> ``pkg.T``."""
    t = text.strip()
    while "<" in t:
        nt = _GENERIC_RE.sub("", t)
        if nt == t:
            t = t.split("<", 1)[0]
            break
        t = nt
    t = t.replace("global::", "").replace("?", "").replace("[]", "").strip()
    t = t.lstrip("*&[]")
    if " " in t:  # annotations / modifiers in front of a type: keep the last word
        t = t.split()[-1]
    return t


def short_target(text: str, member: str) -> str:
    """Stub identifier for a call: the callee as written when short and on one line,
    else ``…member``."""
    t = text.strip()
    if len(t) > _MAX_TARGET or "\n" in t or "(" in t:
        return f"…{member}"
    return _WS_RE.sub("", t)


def arity(args: TSNode | None) -> int:
    """Number of arguments in an argument-list node (comments excluded)."""
    if args is None:
        return 0
    return sum(1 for c in args.named_children if "comment" not in c.type)


def header_text(node: TSNode, body: TSNode | None, limit: int = 300) -> str:
    """The declaration up to its body, whitespace-collapsed: feeds search and display."""
    raw = node.text or b""
    if body is not None:
        raw = raw[: max(0, body.start_byte - node.start_byte)]
    return _WS_RE.sub(" ", raw.decode("utf-8", "replace")).strip()[:limit]


def doc_comment(node: TSNode) -> str:
    """The comment right above a declaration (Javadoc, KDoc, ``///``, Go ``//``)."""
    lines: list[str] = []
    prev = node.prev_sibling
    row = node.start_point[0]
    while prev is not None and "comment" in prev.type and prev.end_point[0] >= row - 1:
        lines.append(ts.text(prev))
        row = prev.start_point[0]
        prev = prev.prev_sibling
    return "\n".join(reversed(lines))[:1000]


def test_path(path: str) -> bool:
    """Test sources by folder convention: ``src/test/``, ``src/jvmTest/``, ``tests/``,
    ``Foo.Tests/`` and file names ``FooTest``/``FooTests``/``FooIT``/``*_test.go``."""
    parts = path.split("/")
    for d in parts[:-1]:
        low = d.lower()
        if low in ("test", "tests", "testing", "testfixtures") or d.endswith(("Test", ".Tests", ".Test", "Tests")):
            return True
    stem = parts[-1].rsplit(".", 1)[0]
    return stem.endswith(("Test", "Tests", "IT", "_test")) or (stem.startswith("Test") and stem[4:5].isupper())


@dataclass(slots=True)
class Scope:
    """Who owns the code up to byte ``end``: a module, class, or callable.

    ``env`` maps local names to the type text written for them (params, locals, fields).
    ``cls`` is the qualified name of the innermost class (for ``this`` / implicit calls).
    """

    kind: str  # module | namespace | class | callable
    qn: str
    end: int
    sig: str = ""
    cls: str = ""
    env: dict[str, str] = field(default_factory=dict)
    tparams: frozenset[str] = frozenset()
    ns: str = ""  # C#: the enclosing namespace


class ScopeStack:
    def __init__(self, module: Scope) -> None:
        self.stack = [module]

    def at(self, node: TSNode) -> Scope:
        """The innermost scope that still contains ``node`` (pops finished ones)."""
        st = self.stack
        start = node.start_byte
        while len(st) > 1 and st[-1].end <= start:
            st.pop()
        return st[-1]

    def push(self, scope: Scope) -> None:
        self.stack.append(scope)

    def lookup(self, name: str) -> str | None:
        """Type text of a local/param/field visible from the top of the stack."""
        for s in reversed(self.stack):
            t = s.env.get(name)
            if t is not None:
                return t
        return None

    def is_type_param(self, name: str) -> bool:
        return any(name in s.tparams for s in self.stack)

    def classes(self) -> list[str]:
        """Enclosing class qualified names, innermost first."""
        out: list[str] = []
        for s in reversed(self.stack):
            if s.kind == "class" and (not out or out[-1] != s.qn):
                out.append(s.qn)
        return out


class Builder:
    """Collects one file's records. ``module_qn`` names the file-level ``module`` symbol."""

    def __init__(self, repo: str, path: str, language: str, source: bytes, root: TSNode, module_qn: str) -> None:
        had_error, status, msgs = ts.coverage(root)
        self.repo, self.path, self.language = repo, path, language
        self.fx = FileExtraction(
            file=FileRecord(
                repo=repo, path=path, language=language, content_hash=ts.content_hash(source),
                had_error=had_error, coverage_status=status, is_test=test_path(path),
                size_bytes=len(source), line_count=source.count(b"\n") + (0 if source.endswith(b"\n") else 1),
            ),
            errors=msgs,
        )
        self.module_qn = module_qn
        self.module_sig = ts.signature_hash("module", module_qn, "")
        self.fx.symbols.append(SymbolRecord(
            repo=repo, qualified_name=module_qn, signature_hash=self.module_sig, name=path.rsplit("/", 1)[-1],
            kind="module", language=language, language_kind=root.type, file=path, line=1,
            end_line=max(1, root.end_point[0] + 1), content_hash=self.fx.file.content_hash,
        ))
        self._seen: set[tuple[str, str]] = {(module_qn, self.module_sig)}

    def module_scope(self, end: int) -> Scope:
        return Scope("module", self.module_qn, end, self.module_sig)

    def symbol(
        self, node: TSNode, name: str, qn: str, kind: str, params: str = "", *, visibility: str = "public",
        parent: str | None = None, body: TSNode | None = None, signature: str | None = None,
        overload: tuple[str, int | None, bool] | None = None,
    ) -> str:
        """Add a symbol; returns its signature hash. A second declaration with the same
        key in the file (e.g. the same method under #if branches) is kept once.
        ``overload``: (parameter types, arity or None when defaults make it a range,
        variadic) of a callable in a language with overloads (``SymbolRecord.params``)."""
        sig = ts.signature_hash(kind, qn, params)
        if (qn, sig) in self._seen:
            return sig
        self._seen.add((qn, sig))
        self.fx.symbols.append(SymbolRecord(
            repo=self.repo, qualified_name=qn, signature_hash=sig, name=name, kind=kind,
            language=self.language, language_kind=node.type, file=self.path, line=ts.line(node),
            end_line=ts.end_line(node), visibility=visibility, content_hash=ts.content_hash(node.text or b""),
            signature=signature if signature is not None else header_text(node, body),
            docstring=doc_comment(node), parent=parent,
        ))
        if overload is not None:
            sym = self.fx.symbols[-1]
            sym.params, sym.arity, sym.variadic = overload
        return sig

    def ref(
        self, rtype: str, scope: Scope, target: str, node: TSNode, candidates: list[dict[str, Any]],
        *, name: str | None = None, name_kinds: list[str] | None = None, optional: bool = False,
        **extra: Any,
    ) -> Reference:
        ex: dict[str, Any] = {"candidates": candidates, "name": name}
        if name_kinds:
            ex["name_kinds"] = name_kinds
        if optional:
            ex["optional"] = True
        ex.update(extra)
        if ex.get("arity") is not None and "arg_types" not in ex:
            kinds = literal_types(call_arguments(node), scope.env)
            if any(kinds):
                ex["arg_types"] = kinds  # literal argument types: the resolver picks the overload
        r = Reference(rtype, scope.qn, target, self.path, ts.line(node), scope.sig, extra=ex)
        self.fx.references.append(r)
        return r

    def file_ref(self, rtype: str, target: str, node: TSNode, candidates: list[dict[str, Any]], **extra: Any) -> Reference:
        """A File-sourced reference (IMPORTS)."""
        r = Reference(rtype, self.path, target, self.path, ts.line(node), source_kind="file",
                      extra={"candidates": candidates, "name": None, **extra})
        self.fx.references.append(r)
        return r


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


# A name bound to a local function / lambda: calls to it are not references to symbols.
LOCAL_CALLABLE = "<local>"


class ClassBasedExtractor:
    """What Java, Kotlin and C# share: type lookups, member calls and constructor calls.

    Subclasses fill ``names`` and ``class_qn``/``field_types``/``supers`` in a pre-pass,
    push scopes while walking ``items`` and implement ``receiver``.
    """

    init_name = "<init>"
    call_name_kinds: list[str] = ["method"]

    def __init__(self, b: Builder, root: TSNode) -> None:
        self.b = b
        self.root = root
        self.names = TypeNames()
        self.static_imports: dict[str, str] = {}  # member -> owner class fqn
        self.static_wild: list[str] = []  # classes whose static members are imported whole
        self.class_qn: dict[int, str] = {}
        self.field_types: dict[str, dict[str, str]] = {}  # class qn -> member -> type text
        self.supers: dict[str, str] = {}  # class qn -> superclass type text
        self.stack = ScopeStack(b.module_scope(root.end_byte))
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

"""Go extractor: functions, methods, structs, interfaces, fields, package variables,
imports, calls (package-qualified, receiver-typed), struct/interface embedding.

Qualified names are module-relative: ``<package dir>.<Name>`` for functions, types and
package variables, ``<package dir>.<Type>.<Method>`` for methods whatever the receiver
(``func (r *Repo) Save`` is ``internal/store.Repo.Save``: pointer and value receivers share
one method set name). The repository-root package uses its package name (``chi.NewRouter``);
an external test package (``package store_test``) gets ``<dir>_test``. The file's
``module`` symbol (qualified name = its path, ``parent`` = its package prefix) owns
package-level code such as ``var x = New()``.

An extractor sees one file, so it cannot know which import paths belong to the repo
(that needs go.mod's module path). References through imports therefore carry
placeholders (``{"go_import": path, "go_qn": "T"}`` / ``{"go_import", "go_owner", "member"}``,
forms the resolver does not know and so never matches)
that ``link_repo`` turns into real candidates once every file is extracted; it also
points each in-repo import at every file of the imported package and adds the
IMPLEMENTS edges that method sets prove across files. See docs/languages/go.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath
from typing import Any

from tree_sitter import Node as TSNode

from codegraph.core.models import CALLS, EXTENDS, IMPLEMENTS, IMPORTS
from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages.skeleton import query_events, sweep
from codegraph.indexer.languages.typed import LOCAL_CALLABLE, Scope, TypedBuilder, TypedStack, short_target
from codegraph.indexer.records import FileExtraction, Reference

LANG = "go"
# Calls to these are conversions or language built-ins, not references to code.
BUILTINS = frozenset(
    "append cap clear close complex copy delete imag len make max min new panic print println real recover "
    "bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 "
    "uint16 uint32 uint64 uintptr any".split()
)
_MODULE_RE = re.compile(rb"^\s*module\s+(\S+)", re.M)


def parse_go_mod(text: bytes | str) -> str | None:
    """The module path declared by a go.mod file, or None."""
    raw = text.encode() if isinstance(text, str) else text
    m = _MODULE_RE.search(raw)
    return m.group(1).decode().strip('"') if m else None


def _type_text(node: TSNode | None) -> str:
    """``*pkg.T`` / ``T[K]`` / ``*T`` -> ``pkg.T`` / ``T``; slices, maps, funcs -> ''."""
    if node is None:
        return ""
    t = node.type
    if t == "pointer_type" and node.named_children:
        return _type_text(node.named_children[0])
    if t == "generic_type":
        return _type_text(node.child_by_field_name("type"))
    if t in ("type_identifier", "qualified_type"):
        return "".join(ts.text(node).split())
    if t == "parenthesized_type" and node.named_children:
        return _type_text(node.named_children[0])
    return ""


def _params(node: TSNode | None) -> tuple[list[str], dict[str, str]]:
    """(parameter type texts, name -> type) of a parameter_list."""
    types: list[str] = []
    env: dict[str, str] = {}
    if node is None:
        return types, env
    for p in node.named_children:
        if p.type not in ("parameter_declaration", "variadic_parameter_declaration"):
            continue
        tnode = p.child_by_field_name("type")
        tt = "".join(ts.text(tnode).split())
        names = p.children_by_field_name("name")
        prefix = "..." if p.type == "variadic_parameter_declaration" else ""
        types.extend([prefix + tt] * max(1, len(names)))
        t = "" if prefix else _type_text(tnode)
        if tnode is not None and tnode.type == "function_type":
            t = LOCAL_CALLABLE
        for nm in names:
            env[ts.text(nm)] = t
    return types, env


class _Go:
    def __init__(self, repo: str, path: str, source: bytes) -> None:
        self.root = ts.parse(LANG, source).root_node
        self.path = path
        self.b = TypedBuilder(repo, path, LANG, source, self.root, path)
        self.stack = TypedStack(self.b.module_scope(self.root.end_byte))
        self.pkg = ""  # qualified-name prefix of this file's package
        self.imports: dict[str, str] = {}  # local name -> import path
        self.dot_imports: list[str] = []
        self.struct_fields: dict[str, dict[str, str]] = {}  # type name -> field -> type text
        self.results: dict[str, str] = {}  # function name -> first result type (this file)
        self.methods: dict[str, set[str]] = {}  # receiver type name -> method names (this file)
        self.iface_methods: dict[str, set[str] | None] = {}  # None: embeds something
        self.type_nodes: dict[str, TSNode] = {}

    def run(self) -> FileExtraction:
        events = query_events(LANG, self.root)
        directory = str(PurePosixPath(self.path).parent)
        pkg_name = ""
        for _, _, _, cap, n in events:  # pre-pass: package, imports, struct fields, result types
            if cap == "package":
                pkg_name = ts.text(n.named_children[0]) if n.named_children else ""
            elif cap == "import":
                self._import(n)
            elif cap == "type":
                self._declare_type(n)
            elif cap == "function":
                res = _type_text(n.child_by_field_name("result"))
                if res:
                    self.results[ts.text(n.child_by_field_name("name"))] = res
        base = directory if directory not in ("", ".") else (pkg_name or "main")
        if pkg_name.endswith("_test") and directory not in ("", "."):
            base = f"{directory}_test"
        self.pkg = base
        self.b.fx.symbols[0].parent = base
        handlers = {
            "function": self._function, "method": self._method, "type": self._type, "var": self._var,
            "const": self._var, "short_var": self._short_var, "call": self._call, "range": self._range,
            "func_literal": self._func_literal,
        }
        sweep(events, self.stack, handlers)
        self._implements_in_file()
        return self.b.fx

    # -- pre-pass ------------------------------------------------------------------
    def _import(self, n: TSNode) -> None:
        p = n.child_by_field_name("path")
        ip = ts.text(p).strip('"`')
        if not ip:
            return
        alias = n.child_by_field_name("name")
        local = ts.text(alias) if alias is not None else ip.rsplit("/", 1)[-1]
        if alias is not None and alias.type == "dot":
            self.dot_imports.append(ip)
            local = "."
        elif alias is None and re.fullmatch(r"v\d+", local) and "/" in ip:  # .../chi/v5 is package chi
            local = ip.rsplit("/", 2)[-2]
        if local not in (".", "_"):
            self.imports[local] = ip
        self.b.file_ref(IMPORTS, ip, n, [], names=[local], optional=True, go_import=ip)

    def _declare_type(self, n: TSNode) -> None:
        name = ts.text(n.child_by_field_name("name"))
        t = n.child_by_field_name("type")
        self.type_nodes[name] = n
        if t is not None and t.type == "struct_type":
            fields: dict[str, str] = {}
            fl = t.named_children[0] if t.named_children else None
            for fd in fl.named_children if fl is not None else []:
                if fd.type != "field_declaration":
                    continue
                ft = _type_text(fd.child_by_field_name("type"))
                names = fd.children_by_field_name("name")
                if names:
                    for nm in names:
                        fields[ts.text(nm)] = ft
                elif ft:  # embedded: the field is named after the type
                    fields[ft.rsplit(".", 1)[-1]] = ft
            self.struct_fields[name] = fields

    # -- type -> candidates ----------------------------------------------------------
    def _owner_candidates(self, type_text: str, member: str, how: str) -> list[dict[str, Any]]:
        if not type_text:
            return []
        pkg, _, name = type_text.rpartition(".")
        if not pkg:
            cands: list[dict[str, Any]] = [{"owner": f"{self.pkg}.{name}", "member": member, "how": how}]
            cands.extend({"go_import": ip, "go_owner": name, "member": member, "how": how} for ip in self.dot_imports)
            return cands
        ip = self.imports.get(pkg)
        return [{"go_import": ip, "go_owner": name, "member": member, "how": how}] if ip else []

    def _type_candidates(self, type_text: str) -> list[dict[str, Any]]:
        pkg, _, name = type_text.rpartition(".")
        if not pkg:
            return [{"qn": f"{self.pkg}.{name}", "how": "same_module"}] + [
                {"go_import": ip, "go_qn": name, "how": "import"} for ip in self.dot_imports]
        ip = self.imports.get(pkg)
        return [{"go_import": ip, "go_qn": name, "how": "import"}] if ip else []

    # -- declarations --------------------------------------------------------------
    @staticmethod
    def _vis(name: str) -> str:
        return "public" if name[:1].isupper() else "private"

    def _function(self, n: TSNode, sc: Scope) -> None:
        name = ts.text(n.child_by_field_name("name"))
        ptypes, env = _params(n.child_by_field_name("parameters"))
        qn = f"{self.pkg}.{name}"
        body = n.child_by_field_name("body")
        sig = self.b.symbol(n, name, qn, "function", ",".join(ptypes), visibility=self._vis(name),
                            parent=self.b.module_qn, body=body)
        tparams = n.child_by_field_name("type_parameters")
        tp = frozenset(ts.text(c.child_by_field_name("name")) for c in tparams.named_children) if tparams else frozenset()
        self.stack.push(Scope("callable", qn, n.end_byte, sig, env=env, tparams=tp))

    def _method(self, n: TSNode, sc: Scope) -> None:
        name = ts.text(n.child_by_field_name("name"))
        rtypes, renv = _params(n.child_by_field_name("receiver"))
        recv = next((t for t in renv.values() if t), "")
        if not recv:  # unnamed receiver: `func (Repo) M()`
            rl = n.child_by_field_name("receiver")
            pd = rl.named_children[0] if rl is not None and rl.named_children else None
            recv = _type_text(pd.child_by_field_name("type")) if pd is not None else ""
        ptypes, env = _params(n.child_by_field_name("parameters"))
        env.update(renv)
        owner = f"{self.pkg}.{recv}"
        qn = f"{owner}.{name}"
        sig = self.b.symbol(n, name, qn, "method", ",".join(ptypes), visibility=self._vis(name), parent=owner,
                            body=n.child_by_field_name("body"))
        self.methods.setdefault(recv, set()).add(name)
        self.stack.push(Scope("callable", qn, n.end_byte, sig, cls=owner, env=env))

    def _type(self, n: TSNode, sc: Scope) -> None:
        if sc.kind != "module":
            return  # local types: their methods cannot exist, their code is the function's
        name = ts.text(n.child_by_field_name("name"))
        t = n.child_by_field_name("type")
        kind = {"struct_type": "struct", "interface_type": "interface"}.get(t.type if t is not None else "", "class")
        qn = f"{self.pkg}.{name}"
        sig = self.b.symbol(n, name, qn, kind, visibility=self._vis(name), parent=self.b.module_qn,
                            body=t if kind != "class" else None)
        scope = Scope("class", qn, n.end_byte, sig, cls=qn)
        if kind == "struct" and t is not None and t.named_children:
            for fd in t.named_children[0].named_children:
                if fd.type != "field_declaration":
                    continue
                names = fd.children_by_field_name("name")
                ftype = fd.child_by_field_name("type")
                for nm in names:
                    fname = ts.text(nm)
                    self.b.symbol(fd, fname, f"{qn}.{fname}", "field", visibility=self._vis(fname), parent=qn,
                                  signature=" ".join(ts.text(fd).split())[:300])
                if not names:  # embedding: promoted fields and methods
                    self._embed(scope, ftype)
        elif kind == "interface" and t is not None:
            mset: set[str] | None = set()
            for el in t.named_children:
                if el.type == "method_elem":
                    mname = ts.text(el.child_by_field_name("name"))
                    ptypes, _ = _params(el.child_by_field_name("parameters"))
                    self.b.symbol(el, mname, f"{qn}.{mname}", "method", ",".join(ptypes),
                                  visibility=self._vis(mname), parent=qn, signature=" ".join(ts.text(el).split())[:300])
                    if mset is not None:
                        mset.add(mname)
                elif el.type == "type_elem":
                    for emb in el.named_children:
                        self._embed(scope, emb)
                    mset = None  # embeds another interface or a constraint: method set not provable here
            self.iface_methods[name] = mset
        elif kind == "class" and n.type == "type_alias" and t is not None:
            tt = _type_text(t)
            if tt:
                self.b.ref(EXTENDS, scope, tt, t, self._type_candidates(tt), name=None)

    def _embed(self, scope: Scope, tnode: TSNode | None) -> None:
        tt = _type_text(tnode)
        if tt and tnode is not None:
            self.b.ref(EXTENDS, scope, tt, tnode, self._type_candidates(tt), name=None)

    def _var(self, n: TSNode, sc: Scope) -> None:
        names = n.children_by_field_name("name")
        tnode = n.child_by_field_name("type")
        t = _type_text(tnode)
        values = n.child_by_field_name("value")
        vals = values.named_children if values is not None else []
        top = sc.kind == "module"
        kind_word = "const" if n.type == "const_spec" else "var"
        for i, nm in enumerate(names):
            name = ts.text(nm)
            vt = t or (self._expr_type(vals[i]) if i < len(vals) and len(vals) == len(names) else "")
            if top:
                if name != "_":
                    self.b.symbol(nm, name, f"{self.pkg}.{name}", "variable", visibility=self._vis(name),
                                  parent=self.b.module_qn, signature=f"{kind_word} {' '.join(ts.text(n).split())}"[:300])
                sc.env[name] = vt
            else:
                sc.env[name] = vt

    def _short_var(self, n: TSNode, sc: Scope) -> None:
        left = n.child_by_field_name("left")
        right = n.child_by_field_name("right")
        lefts = left.named_children if left is not None else []
        rights = right.named_children if right is not None else []
        for i, nm in enumerate(lefts):
            if nm.type != "identifier":
                continue
            vt = ""
            if len(rights) == len(lefts):
                vt = self._expr_type(rights[i])
            elif len(rights) == 1 and i == 0:  # x, err := NewRepo()
                vt = self._expr_type(rights[0])
            sc.env[ts.text(nm)] = vt

    def _range(self, n: TSNode, sc: Scope) -> None:
        # Loop variables: element types are not tracked, but they shadow outer names.
        left = n.child_by_field_name("left")
        for nm in left.named_children if left is not None else []:
            if nm.type == "identifier":
                sc.env[ts.text(nm)] = ""

    def _func_literal(self, n: TSNode, sc: Scope) -> None:
        _, env = _params(n.child_by_field_name("parameters"))
        self.stack.push(Scope("block", sc.qn, n.end_byte, sc.sig, cls=sc.cls, env=env))

    def _expr_type(self, e: TSNode) -> str:
        t = e.type
        if t == "composite_literal":
            return _type_text(e.child_by_field_name("type"))
        if t == "unary_expression" and e.child_by_field_name("operand") is not None:
            return self._expr_type(e.child_by_field_name("operand"))  # type: ignore[arg-type]
        if t == "func_literal":
            return LOCAL_CALLABLE
        if t == "call_expression":
            fn = e.child_by_field_name("function")
            if fn is not None and fn.type == "identifier":
                name = ts.text(fn)
                if name == "new":
                    args = e.child_by_field_name("arguments")
                    return _type_text(args.named_children[0]) if args is not None and args.named_children else ""
                return self.results.get(name, "")
        if t == "parenthesized_expression" and e.named_children:
            return self._expr_type(e.named_children[0])
        return ""

    # -- references ----------------------------------------------------------------
    def _operand_type(self, e: TSNode, sc: Scope) -> str | None:
        """Type text of a receiver expression; None when not visible."""
        t = e.type
        if t == "identifier":
            vt = self.stack.lookup(ts.text(e))
            return vt or None
        if t == "selector_expression":
            inner = e.child_by_field_name("operand")
            field = ts.text(e.child_by_field_name("field"))
            it = self._operand_type(inner, sc) if inner is not None else None
            if it and "." not in it:
                ft = self.struct_fields.get(it, {}).get(field)
                return ft or None
            return None
        if t in ("composite_literal", "unary_expression", "parenthesized_expression", "call_expression"):
            return self._expr_type(e) or None
        return None

    def _call(self, n: TSNode, sc: Scope) -> None:
        fn = n.child_by_field_name("function")
        if fn is None:
            return
        args = n.child_by_field_name("arguments")
        nargs = sum(1 for c in args.named_children if c.type != "comment") if args is not None else 0
        if fn.type == "generic_type":  # f[T](x)
            fn = fn.child_by_field_name("type") or fn
        if fn.type == "identifier":
            name = ts.text(fn)
            if name in BUILTINS and self.stack.lookup(name) is None:
                return
            bound = self.stack.lookup(name)
            if bound is not None and (bound == LOCAL_CALLABLE or any(name in s.env for s in self.stack.stack[1:])):
                return  # a function value held in a variable or parameter
            cands = self._type_candidates(name)
            self.b.ref(CALLS, sc, name, n, cands, name=None, arity=nargs)
            return
        if fn.type != "selector_expression":
            return
        operand = fn.child_by_field_name("operand")
        member = ts.text(fn.child_by_field_name("field"))
        if operand is None or not member:
            return
        if operand.type == "identifier":
            oname = ts.text(operand)
            if self.stack.lookup(oname) is None and oname in self.imports:
                ip = self.imports[oname]
                self.b.ref(CALLS, sc, f"{oname}.{member}", n, [{"go_import": ip, "go_qn": member, "how": "import"}],
                           name=None, arity=nargs)
                return
        ot = self._operand_type(operand, sc)
        if ot and ot != LOCAL_CALLABLE and not self.stack.is_type_param(ot):
            self.b.ref(CALLS, sc, f"{ot}.{member}", n, self._owner_candidates(ot, member, "receiver_type"),
                       name=None, arity=nargs)
            return
        self.b.ref(CALLS, sc, short_target(f"{ts.text(operand)}.{member}", member), n, [], name=member,
                   name_kinds=["method"], arity=nargs)

    # -- implicit interfaces -------------------------------------------------------
    def _implements_in_file(self) -> None:
        """Type T IMPLEMENTS interface I when both are declared in this file and T's
        methods here include all of I's (pointer and value receivers alike)."""
        for iname, mset in self.iface_methods.items():
            if not mset:
                continue
            for tname, methods in self.methods.items():
                if tname in self.type_nodes and tname not in self.iface_methods and mset <= methods:
                    scope = Scope("class", f"{self.pkg}.{tname}", 0, ts.signature_hash(
                        _kind_of(self.type_nodes[tname]), f"{self.pkg}.{tname}", ""))
                    self.b.ref(IMPLEMENTS, scope, iname, self.type_nodes[tname],
                               [{"qn": f"{self.pkg}.{iname}", "how": "same_module"}], name=None,
                               proof="method_set")


def _kind_of(type_node: TSNode) -> str:
    t = type_node.child_by_field_name("type")
    return {"struct_type": "struct", "interface_type": "interface"}.get(t.type if t is not None else "", "class")


def extract(repo: str, path: str, source: bytes) -> FileExtraction:
    """Extract one Go file (see module docstring for naming and ``link_repo``)."""
    return _Go(repo, path, source).run()


# -- repository-wide linking ----------------------------------------------------------

def _module_map(go_files: Iterable[str], go_mods: dict[str, str] | None, import_paths: Iterable[str]) -> dict[str, str]:
    """module path -> repo-relative directory of its go.mod ('' for the root).

    Without go.mod contents, infer the module path by voting: an import path that ends
    with an in-repo package directory suggests the prefix before it."""
    if go_mods:
        return {mod: d for d, mod in go_mods.items()}
    dirs = {str(PurePosixPath(f).parent) for f in go_files}
    dirs = {"" if d == "." else d for d in dirs}
    votes: dict[str, int] = {}
    for ip in set(import_paths):
        for d in dirs:
            if d and ip.endswith("/" + d):
                prefix = ip[: -len(d) - 1]
                if "." in prefix.split("/", 1)[0]:  # a module path starts with a domain
                    votes[prefix] = votes.get(prefix, 0) + 1
    if not votes:
        return {}
    best = max(votes.items(), key=lambda kv: (kv[1], len(kv[0])))
    return {best[0]: ""} if best[1] >= 2 or len(votes) == 1 else {}


def link_repo(extractions: list[FileExtraction], go_mods: dict[str, str] | None = None) -> None:
    """Resolve the Go placeholders of a whole repository in place.

    ``go_mods`` maps the repo-relative directory of each go.mod ('' for the root) to its
    module path (``parse_go_mod``); without it the module path is inferred from the
    imports. Then: import placeholders become ``{"qn"}`` / ``{"owner", "member"}``
    candidates of in-repo packages or are dropped (external), every in-repo IMPORTS
    reference is replaced by one IMPORTS reference per file of the imported package,
    and IMPLEMENTS references are added for types whose methods (anywhere in the repo)
    cover an interface's declared methods."""
    go_fx = [fx for fx in extractions if fx.file.language == LANG]
    if not go_fx:
        return
    pkg_files: dict[str, list[str]] = {}
    pkg_prefix: dict[str, str] = {}
    for fx in go_fx:
        d = str(PurePosixPath(fx.file.path).parent)
        d = "" if d == "." else d
        if fx.symbols and fx.symbols[0].kind == "module" and not fx.file.path.endswith("_test.go"):
            pkg_files.setdefault(d, []).append(fx.file.path)
            pkg_prefix[d] = fx.symbols[0].parent or d
    imports = [r.extra["go_import"] for fx in go_fx for r in fx.references if "go_import" in r.extra]
    modules = _module_map([fx.file.path for fx in go_fx], go_mods, imports)

    def package_dir(ip: str) -> str | None:
        for mod, root in sorted(modules.items(), key=lambda kv: -len(kv[0])):
            if ip == mod or ip.startswith(mod + "/"):
                rest = ip[len(mod):].lstrip("/")
                d = "/".join(p for p in (root, rest) if p)
                return d if d in pkg_files else None
        return None

    for fx in go_fx:
        out: list[Reference] = []
        for r in fx.references:
            cands = r.extra.get("candidates") or []
            if r.type == IMPORTS and "go_import" in r.extra:
                d = package_dir(r.extra["go_import"])
                if d is None:
                    out.append(r)
                    continue
                # One edge per file of the package (a Go import names a folder); the
                # placeholder key goes so that linking twice is harmless.
                base_extra = {k: v for k, v in r.extra.items() if k != "go_import"}
                for f in sorted(pkg_files[d]):
                    out.append(Reference(r.type, r.source_qualified_name, r.target_identifier, r.file, r.line,
                                         r.source_signature_hash, r.source_kind,
                                         {**base_extra, "go_package": d, "candidates": [{"path": f, "how": "import"}]}))
                continue
            if any("go_import" in c for c in cands):
                linked = []
                for c in cands:
                    if "go_import" not in c:
                        linked.append(c)
                        continue
                    d = package_dir(c["go_import"])
                    if d is None:
                        linked.append(c)  # another module: kept for the cross-repo pass (resolves nothing here)
                        continue
                    prefix = pkg_prefix[d]
                    if "go_owner" in c:
                        linked.append({"owner": f"{prefix}.{c['go_owner']}", "member": c["member"], "how": c["how"]})
                    else:
                        linked.append({"qn": f"{prefix}.{c['go_qn']}", "how": c["how"]})
                r.extra["candidates"] = linked
            out.append(r)
        fx.references = out
    _implements_repo(go_fx)


def _implements_repo(go_fx: list[FileExtraction]) -> None:
    """IMPLEMENTS for types whose repo-wide method names cover an interface's methods
    (interfaces that embed others are skipped: their full method set is not known)."""
    iface: dict[str, set[str]] = {}
    embeds: set[str] = set()
    kinds: dict[str, tuple[str, str, int, str]] = {}  # qn -> (kind, file, line, sig)
    methods: dict[str, set[str]] = {}
    for fx in go_fx:
        for s in fx.symbols:
            if s.kind in ("struct", "class", "interface"):
                kinds[s.qualified_name] = (s.kind, s.file, s.line, s.signature_hash)
            elif s.kind == "method" and s.parent:
                methods.setdefault(s.parent, set()).add(s.name)
        for r in fx.references:
            if r.type == EXTENDS:
                embeds.add(r.source_qualified_name)
    for q, (kind, *_rest) in kinds.items():
        if kind == "interface" and q not in embeds and methods.get(q):
            iface[q] = methods[q]
    existing = {(r.source_qualified_name, c.get("qn"))
                for fx in go_fx for r in fx.references if r.type == IMPLEMENTS
                for c in r.extra.get("candidates", [])}
    by_file = {fx.file.path: fx for fx in go_fx}
    for tq, (kind, file, line, sig) in kinds.items():
        if kind == "interface":
            continue
        ms = methods.get(tq)
        if not ms:
            continue
        for iq, need in iface.items():
            if need <= ms and (tq, iq) not in existing:
                by_file[file].references.append(Reference(
                    IMPLEMENTS, tq, iq.rsplit(".", 1)[-1], file, line, sig,
                    extra={"candidates": [{"qn": iq, "how": "exact"}], "name": None, "proof": "method_set"}))

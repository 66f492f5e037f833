"""C and C++ extractor: symbols, ``#include`` imports, calls, base classes.

Qualified names (see ``docs/languages/c.md`` and ``cpp.md``):

- C: functions are global by name, so a non-static function is its bare name
  (``parse_args``); a ``static`` function, ``main`` and anything in an anonymous
  namespace are private to their file: ``src/cli.c::parse_args``. Struct / union / enum
  types defined in a header are global (``Point``); defined in a ``.c``/``.cpp`` file they
  are file-scoped (``src/a.c::Node``). Fields: ``Point::x``.
- C++: namespaces and classes, ``ns::Cls::m``; an out-of-line definition
  ``void Cls::m() {}`` attaches to ``Cls`` (within the enclosing namespace, else within
  the file's single non-std ``using namespace``). Overloads are distinct symbols with
  the same qualified name: the signature hash covers the parameter *types* (names and
  default values dropped, ``const`` of the method kept), so a declaration in a header
  and its out-of-line definition agree.

A bodiless declaration is no symbol (the definition is), except pure virtual methods
(``= 0``), which are the only thing interface dispatch can land on. Namespaces are no
symbols (they span files; a symbol per file would collide).

``.h`` files are C by extension; a header whose text shows C++ (class, namespace,
template, access sections) or whose C parse has errors that a C++ parse does not, is
parsed as C++ and its File record says ``cpp``.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from tree_sitter import Node as TSNode

from codegraph.core.models import CALLS, EXTENDS, IMPORTS, SymbolRecord
from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages import language_for
from codegraph.indexer.languages._common import (
    Event,
    define_sweep,
    document_order,
    file_record,
    head_signature,
    keep_once,
    norm,
    path_module_symbol,
    ref_extra,
    reference_sweep,
)
from codegraph.indexer.overloads import call_arguments, literal_types
from codegraph.indexer.records import FileExtraction, Reference

CPP_MARKERS = re.compile(
    rb"^\s*(?:class\s+\w+\s*[:{]|namespace\s+\w*\s*\{|template\s*<|(?:public|private|protected)\s*:)", re.M
)
# `class GTEST_API_ Foo : Base {` / `struct MYLIB_EXPORT Bar {`: an export macro between
# the keyword and the name derails the grammar; it is blanked (same length, so byte
# offsets and lines are unchanged) before parsing.
EXPORT_MACRO = re.compile(
    rb"\b(?:class|struct)\s+([A-Z][A-Z0-9_]+)\s+(?=(?!final\b)[A-Za-z_]\w*\s*(?:final\s*)?[:{])")
# `LZ4LIB_API int f(...)`, `static BROTLI_INLINE uint16_t f(...)`, `FORCE_INLINE U32\nf(`:
# an all-caps macro followed by what is clearly the rest of a declaration.
SPEC_MACRO = re.compile(
    rb"(?m)^[ \t]*(?:(?:static|extern|inline|[A-Z][A-Z0-9_]*)[ \t]+)*?([A-Z][A-Z0-9]*_[A-Z0-9_]*|[A-Z]{2,}[A-Z0-9]*)\s+"
    rb"(?=(?:static|extern|inline|const|volatile|unsigned|signed|struct|enum|union|void|char|short|int|long|float"
    rb"|double|bool|_Bool|class|template)\b|[A-Za-z_]\w*(?:::\w+)*(?:\s*[*&]+\s*|[ \t]*\n\s*|[ \t]+[*&]*)\w+"
    rb"[ \t]*[(;=\[])")
# `uint8_t* BROTLI_RESTRICT data`
RESTRICT_MACRO = re.compile(rb"\*[ \t]*([A-Z][A-Z0-9_]*RESTRICT[A-Z0-9_]*|__restrict__|__restrict)[ \t]+(?=\w)")
# `#ifdef __cplusplus` + `extern "C" {` or `}`: braces the grammar cannot pair up
CPLUSPLUS_GUARD = re.compile(
    rb'(?m)^[ \t]*#[ \t]*if[^\n]*__cplusplus[^\n]*\n((?:[ \t]*extern[ \t]+"C"[ \t]*\{|[ \t]*\})[^\n]*)$')
EXTERNAL_NS = frozenset({"std", "boost", "testing", "absl"})
SMART_POINTERS = frozenset({"unique_ptr", "shared_ptr", "weak_ptr", "optional", "reference_wrapper", "auto_ptr"})
MAKERS = frozenset({"make_unique", "make_shared"})
# Keywords the grammar parses as calls (`static_cast<int>(x)`, `sizeof(x)` in C++ macros).
NOT_CALLS = frozenset({"static_cast", "dynamic_cast", "reinterpret_cast", "const_cast", "sizeof", "alignof",
                       "decltype", "typeid", "noexcept", "offsetof", "va_arg", "defined", "__attribute__"})
TEST_MACROS = frozenset({"TEST", "TEST_F", "TEST_P", "TYPED_TEST", "TYPED_TEST_P", "FRIEND_TEST"})
# STL member names: an unknown receiver calling one of these makes no `missing` stub
# when the repository defines no such method.
STL_METHODS = frozenset("""
push_back emplace_back pop_back push_front pop_front size empty begin end cbegin cend rbegin rend clear
insert erase find count at front back data c_str str length substr append reserve resize get reset
release swap first second emplace lower_bound upper_bound equal_range what load store exchange
compare_exchange_weak compare_exchange_strong lock unlock try_lock join detach wait notify_one
notify_all value value_or has_value operator() assign capacity shrink_to_fit compare replace
""".split())
LIBC = frozenset("""
memcpy memset memmove memcmp memchr strlen strnlen strcmp strncmp strcpy strncpy strcat strncat strchr strrchr
strstr strdup strndup strtok strerror strspn strcspn strcasecmp strncasecmp malloc calloc realloc free
aligned_alloc posix_memalign printf fprintf sprintf snprintf vprintf vfprintf vsprintf vsnprintf puts fputs
fputc putc putchar fgets fgetc getc getchar ungetc fopen fdopen freopen fclose fread fwrite fflush fseek ftell
rewind feof ferror clearerr perror remove rename tmpfile scanf sscanf fscanf exit _exit abort atexit assert
qsort bsearch atoi atol atoll atof strtol strtoul strtoll strtoull strtod strtof abs labs llabs div getenv
setenv time clock difftime mktime localtime gmtime strftime isalpha isdigit isspace isalnum isupper islower
isxdigit isprint ispunct iscntrl toupper tolower va_start va_end va_copy va_arg open close read write lseek
stat fstat lstat unlink mkdir rmdir getpid fork execv execvp waitpid signal raise sleep usleep nanosleep
pthread_create pthread_join pthread_mutex_lock pthread_mutex_unlock pthread_mutex_init pthread_mutex_destroy
pthread_cond_wait pthread_cond_signal pthread_cond_broadcast pthread_self select poll socket bind listen accept
connect send recv sendto recvfrom setsockopt getsockopt htons htonl ntohs ntohl inet_pton inet_ntop
sqrt pow exp log log2 log10 floor ceil round fabs fmod sin cos tan atan atan2 fmin fmax isnan isinf
offsetof setjmp longjmp errno
""".split())
HEADER_EXT = (".h", ".hh", ".hpp", ".hxx", ".h++", ".inl", ".ipp")


@dataclass(slots=True)
class _Scope:
    end: int
    kind: str  # file | ns | class | fn
    lookup: tuple[str, ...]  # naming context: namespace / class path (qn segments)
    source_qn: str
    source_sig: str
    owner: str | None = None  # enclosing class qn (`this`)
    default_access: str = "public"
    locals: dict[str, TSNode | None] = field(default_factory=dict)  # var -> type node


class _Extractor:
    def __init__(self, repo: str, path: str, source: bytes) -> None:
        self.repo, self.path = repo, path
        lang = language_for(path) or "c"
        self.src = source
        self.lang = "cpp" if lang == "cpp" else "c"
        self.is_header = path.lower().endswith(HEADER_EXT)
        self.symbols: list[SymbolRecord] = []
        self.refs: list[Reference] = []
        self.scope_of: dict[int, _Scope] = {}
        self.access: dict[int, str] = {}  # class member node id -> public/protected/private
        self.fields: dict[str, dict[str, TSNode]] = {}  # class qn -> field name -> type node
        self.aliases: dict[str, TSNode] = {}  # typedef / using alias -> type node
        self.using_ns: list[tuple[str, ...]] = []
        self.using_decl: dict[str, tuple[str, ...]] = {}
        self.include_paths: list[str] = []  # candidate files of quoted includes
        self.classes: set[str] = set()  # class qns defined in this file
        self.seen: dict[tuple[str, str], SymbolRecord] = {}
        self.comments: list[TSNode] = []
        self.comment_starts: list[int] = []
        self.cand_cache: dict[tuple[tuple[str, ...], tuple[str, ...]], list[dict[str, Any]]] = {}

    # -- parsing -------------------------------------------------------------------
    def _parse(self) -> tuple[Any, str]:
        self.src = _preclean(self.src)
        if self.lang == "cpp":
            return ts.parse("cpp", self.src), "cpp"
        if self.path.lower().endswith(".h") and CPP_MARKERS.search(self.src):
            return ts.parse("cpp", self.src), "cpp"
        tree = ts.parse("c", self.src)
        # a second parse only where C++ is plausible (`::`): it doubles the cost
        if self.path.lower().endswith(".h") and tree.root_node.has_error and b"::" in self.src:
            alt = ts.parse("cpp", self.src)
            if not alt.root_node.has_error:
                return alt, "cpp"
        return tree, "c"

    # -- symbols -------------------------------------------------------------------
    def _symbol(self, node: TSNode, kind: str, qn: str, name: str, params: str, parent: str | None,
                visibility: str, head_end: int | None = None) -> SymbolRecord:
        s = SymbolRecord(
            repo=self.repo, qualified_name=qn, signature_hash=ts.signature_hash(kind, qn, params), name=name,
            kind=kind, language=self.lang, language_kind=node.type, file=self.path, line=ts.line(node),
            end_line=ts.end_line(node), visibility=visibility,
            content_hash=ts.content_hash(self.src[node.start_byte:node.end_byte]),
            signature=head_signature(self.src, node, head_end), docstring=self._doc(node), parent=parent,
        )
        return keep_once(self.seen, self.symbols, s)  # the same definition in another #if branch: one symbol

    def _doc(self, node: TSNode) -> str:
        """Comments on the lines right above ``node`` (or its `template <...>` line).
        Taken from the captured comments: sibling walks cost O(n) per definition."""
        anchor = node.parent if node.parent is not None and node.parent.type == "template_declaration" else node
        i = bisect.bisect_left(self.comment_starts, anchor.start_byte) - 1
        row = anchor.start_point[0]
        lines: list[str] = []
        while i >= 0:
            c = self.comments[i]
            if c.end_point[0] < row - 1 or c.end_byte > anchor.start_byte:
                break
            lines.append(ts.text(c))
            row = c.start_point[0]
            i -= 1
        return "\n".join(reversed(lines))[:2000]

    def _param_types(self, params: TSNode | None, fdecl: TSNode | None = None) -> str:
        """Parameter types only (names and defaults dropped) plus the method's cv /
        ref qualifiers: what tells overloads apart."""
        if params is None:
            return ""
        out: list[str] = []
        for p in params.named_children:
            if p.type == "variadic_parameter" or ts.text(p) == "...":
                out.append("...")
                continue
            if p.type not in ("parameter_declaration", "optional_parameter_declaration",
                              "variadic_parameter_declaration"):
                continue
            quals = [ts.text(c) for c in p.named_children if c.type == "type_qualifier"]
            t = norm(ts.text(p.child_by_field_name("type")))
            out.append(" ".join(quals + [t]) + self._declarator_shape(p.child_by_field_name("declarator")))
        tail = ""
        if fdecl is not None:
            tail = " ".join(ts.text(c) for c in fdecl.named_children
                            if c.type in ("type_qualifier", "ref_qualifier"))
        return "(" + ", ".join(out) + ")" + (" " + tail if tail else "")

    @staticmethod
    def _declarator_shape(d: TSNode | None) -> str:
        shape = ""
        while d is not None:
            if d.type == "pointer_declarator":
                shape += "*"
            elif d.type == "reference_declarator":
                shape += "&&" if ts.text(d).startswith("&&") else "&"
            elif d.type == "array_declarator":
                shape += "[]"
            elif d.type in ("abstract_pointer_declarator",):
                shape += "*"
            elif d.type in ("abstract_reference_declarator",):
                shape += "&"
            elif d.type == "function_declarator" or d.type == "abstract_function_declarator":
                shape += "()"
            nxt = d.child_by_field_name("declarator")
            if nxt is None and d.type == "reference_declarator" and d.named_children:
                nxt = d.named_children[0]
            d = nxt
        return shape

    # -- driver --------------------------------------------------------------------
    def run(self) -> FileExtraction:
        tree, grammar = self._parse()
        self.lang = grammar
        root = tree.root_node
        fr, msgs = file_record(self.repo, self.path, grammar, self.src, root, _is_test_path(self.path))
        fsym = path_module_symbol(fr, "translation_unit", root)
        self.symbols.append(fsym)
        caps = ts.captures(grammar, "tags", root)
        # Captures do not come back in document order; the docstring lookup bisects by position.
        self.comments = sorted(caps.pop("comment", ()), key=lambda n: n.start_byte)
        self.comment_starts = [c.start_byte for c in self.comments]
        events = document_order(caps)
        file_scope = _Scope(len(self.src) + 1, "file", (), self.path, fsym.signature_hash)
        self._prescan(events)
        define_sweep(events, file_scope, self.scope_of, self._define_event)
        reference_sweep(events, file_scope, self.scope_of, self._opened, {
            "call": self._call, "new": self._new, "decl": self._declaration, "param": self._param,
        })
        return FileExtraction(file=fr, symbols=self.symbols, references=self.refs, errors=msgs)

    def _define_event(self, cap: str, node: TSNode, sc: _Scope) -> _Scope | None:
        return self._define(cap, node, sc) if cap.startswith("def.") else None

    def _opened(self, node: TSNode, opened: _Scope, outer: _Scope) -> None:
        if opened.kind == "class":
            self._bases(node, opened, outer)

    def _prescan(self, events: list[Event]) -> None:
        """Includes, `using` directives and aliases, before any name is resolved."""
        for _, _, _, cap, node in events:
            if cap == "include":
                self._include(node)
            elif cap == "using":
                self._using(node)
            elif cap == "def.alias":
                n, t = node.child_by_field_name("name"), node.child_by_field_name("type")
                if n is not None and t is not None:
                    self.aliases[ts.text(n)] = t
            elif cap == "def.typedef":
                t = node.child_by_field_name("type")
                for d in node.children_by_field_name("declarator"):
                    if t is not None and d.type == "type_identifier":
                        self.aliases[ts.text(d)] = t

    # -- definitions ---------------------------------------------------------------
    def _file_private(self, name: str) -> str:
        return f"{self.path}::{name}"

    def _define(self, cap: str, node: TSNode, sc: _Scope) -> _Scope | None:
        if cap == "def.namespace":
            n = node.child_by_field_name("name")
            segs = tuple(ts.text(n).split("::")) if n is not None else (self.path,)  # anonymous: file-private
            return _Scope(node.end_byte, "ns", sc.lookup + segs, sc.source_qn, sc.source_sig)
        if cap in ("def.class", "def.struct", "def.union", "def.enum"):
            return self._type_def(cap, node, sc)
        if cap == "def.function":
            return self._function(node, sc)
        if cap == "def.field":
            self._field(node, sc)
        elif cap == "def.macro" and sc.kind in ("file", "ns"):
            self._macro(node)
        return None

    def _macro(self, node: TSNode) -> None:
        """`#define NAME(args) ...`: a callable name, global when in a header, else
        private to its file like a static function."""
        n = node.child_by_field_name("name")
        if n is None:
            return
        name = ts.text(n)
        params = norm(ts.text(node.child_by_field_name("parameters")))
        qn = name if self.is_header else self._file_private(name)
        self._symbol(node, "function", qn, name, params, self.path, "public" if self.is_header else "private",
                     head_end=node.child_by_field_name("parameters").end_byte
                     if node.child_by_field_name("parameters") is not None else None)

    def _type_def(self, cap: str, node: TSNode, sc: _Scope) -> _Scope | None:
        kind = {"def.class": "class", "def.struct": "struct", "def.union": "union", "def.enum": "enum"}[cap]
        n = node.child_by_field_name("name")
        name = ts.text(n) if n is not None else ""
        if not name and node.parent is not None and node.parent.type == "type_definition":
            d = node.parent.child_by_field_name("declarator")
            name = ts.text(d) if d is not None and d.type == "type_identifier" else ""
        if not name or (n is not None and n.type not in ("type_identifier", "qualified_identifier")):
            return None
        if sc.kind == "fn":
            return None  # local types: nothing outside the function can name them
        segs = tuple(name.split("::"))
        if sc.kind in ("file", "ns") and not sc.lookup and not self.is_header and self.lang == "c":
            segs = (self.path,) + segs  # a type private to one C translation unit
        qn_segs = sc.lookup + segs
        qn = "::".join(qn_segs)
        vis = self.access.get(node.id, "public") if sc.kind == "class" else (
            "private" if qn.startswith(self.path + "::") else "public")
        parent = sc.owner if sc.kind == "class" else ("::".join(sc.lookup) if sc.lookup else self.path)
        s = self._symbol(node, kind, qn, segs[-1], "", parent, vis)
        self.classes.add(qn)
        body = node.child_by_field_name("body")
        default = "private" if kind == "class" else "public"
        if body is not None and kind != "enum":
            current = default
            for c in body.named_children:
                if c.type == "access_specifier":
                    current = ts.text(c).strip().rstrip(":").strip()
                else:
                    self.access[c.id] = current
                    if c.type == "template_declaration":
                        for cc in c.named_children:
                            self.access[cc.id] = current
        return _Scope(node.end_byte, "class", qn_segs, qn, s.signature_hash, owner=qn, default_access=default)

    def _func_declarator(self, decl: TSNode | None) -> TSNode | None:
        while decl is not None and decl.type != "function_declarator":
            nxt = decl.child_by_field_name("declarator")
            if nxt is None and decl.named_children:
                nxt = next((c for c in decl.named_children if c.type.endswith("declarator") or c.type in (
                    "function_declarator",)), None)
            decl = nxt
        return decl

    def _function(self, node: TSNode, sc: _Scope) -> _Scope | None:
        fdecl = self._func_declarator(node.child_by_field_name("declarator"))
        if fdecl is None:
            return None
        dn = fdecl.child_by_field_name("declarator")
        if dn is None:
            return None
        params = fdecl.child_by_field_name("parameters")
        static = any(c.type == "storage_class_specifier" and ts.text(c) == "static" for c in node.children)
        name, owner_segs = self._declarator_name(dn)
        if not name:
            return None
        if sc.kind == "fn":
            return None  # a local function-like declaration the grammar mistook
        if name in TEST_MACROS and params is not None and owner_segs == ():
            # gtest TEST(Suite, Name) { ... }: a test function named Suite.Name
            parts = [norm(ts.text(p)) for p in params.named_children]
            tname = ".".join(parts) if parts else name
            qn = self._file_private(tname)
            s = self._symbol(node, "function", qn, tname, name, self.path, "private")
            return _Scope(node.end_byte, "fn", sc.lookup, qn, s.signature_hash)
        ptypes = self._param_types(params, fdecl)
        if sc.kind == "class":
            owner = sc.owner
            qn_segs = sc.lookup + (name,)
            kind, vis = "method", self.access.get(node.id, sc.default_access)
            if node.parent is not None and node.parent.type == "template_declaration":
                vis = self.access.get(node.parent.id, vis)
        elif owner_segs:
            owner_qn = self._owner_of_definition(owner_segs, sc)
            owner = owner_qn
            qn_segs = tuple(owner_qn.split("::")) + (name,)
            kind, vis = "method", "public"
        else:
            owner = None
            kind = "function"
            # static, main (one per program, many per repo) and anonymous namespaces
            # are private to the file
            anonymous = bool(sc.lookup) and sc.lookup[0] == self.path
            private = static or anonymous or (name == "main" and not sc.lookup)
            qn_segs = ((self.path,) if private and not anonymous else ()) + sc.lookup + (name,)
            vis = "private" if private else "public"
        qn = "::".join(qn_segs)
        parent = owner or ("::".join(sc.lookup) if sc.lookup else self.path)
        s = self._symbol(node, kind, qn, name, ptypes, parent, vis)
        if self.lang == "cpp":
            s.arity, s.variadic = _param_arity(params)
            s.params = _plain_params(ptypes)
        lookup = tuple(owner.split("::")) if owner else sc.lookup
        return _Scope(node.end_byte, "fn", lookup, qn, s.signature_hash, owner=owner)

    def _declarator_name(self, dn: TSNode) -> tuple[str, tuple[str, ...]]:
        """(name, owner segments) of a function declarator's name node."""
        t = dn.type
        if t in ("identifier", "field_identifier"):
            return ts.text(dn), ()
        if t in ("destructor_name", "operator_name", "operator_cast"):
            return norm(ts.text(dn)), ()
        if t == "template_function":
            n = dn.child_by_field_name("name")
            return (ts.text(n) if n is not None else ""), ()
        if t == "qualified_identifier":
            segs: list[str] = []
            cur: TSNode | None = dn
            while cur is not None and cur.type == "qualified_identifier":
                scope = cur.child_by_field_name("scope")
                if scope is not None:
                    st = scope.child_by_field_name("name") if scope.type == "template_type" else scope
                    segs.append(ts.text(st))
                cur = cur.child_by_field_name("name")
            if cur is None:
                return "", ()
            name, _ = self._declarator_name(cur)
            return name, tuple(s for s in segs if s)
        return "", ()

    def _owner_of_definition(self, owner_segs: tuple[str, ...], sc: _Scope) -> str:
        """The class an out-of-line definition `A::m` belongs to."""
        for k in range(len(sc.lookup), -1, -1):
            cand = "::".join(sc.lookup[:k] + owner_segs)
            if cand in self.classes:
                return cand
        if not sc.lookup:
            ns = [u for u in self.using_ns if u[0] not in EXTERNAL_NS]
            if ns:
                return "::".join(ns[0] + owner_segs)
        return "::".join(sc.lookup + owner_segs)

    def _field(self, node: TSNode, sc: _Scope) -> None:
        if sc.kind != "class":
            return
        vis = self.access.get(node.id, sc.default_access)
        tnode = node.child_by_field_name("type")
        for d in node.children_by_field_name("declarator"):
            fdecl = self._func_declarator(d)
            if fdecl is not None:
                default = node.child_by_field_name("default_value")
                if default is not None and ts.text(default) == "0":  # pure virtual
                    dn = fdecl.child_by_field_name("declarator")
                    name = self._declarator_name(dn)[0] if dn is not None else ""
                    if name:
                        ptypes = self._param_types(fdecl.child_by_field_name("parameters"), fdecl)
                        pv = self._symbol(node, "method", f"{sc.owner}::{name}", name, ptypes, sc.owner, vis,
                                          head_end=node.end_byte)
                        pv.arity, pv.variadic = _param_arity(fdecl.child_by_field_name("parameters"))
                        pv.params = _plain_params(ptypes)
                continue
            inner = d
            while inner is not None and inner.type not in ("field_identifier", "identifier"):
                nxt = inner.child_by_field_name("declarator")
                if nxt is None and inner.named_children:
                    nxt = inner.named_children[0]
                inner = nxt
            if inner is None:
                continue
            name = ts.text(inner)
            self._symbol(node, "field", f"{sc.owner}::{name}", name, "", sc.owner, vis, head_end=node.end_byte)
            if tnode is not None and sc.owner:
                self.fields.setdefault(sc.owner, {})[name] = tnode

    # -- imports -------------------------------------------------------------------
    def _include(self, node: TSNode) -> None:
        p = node.child_by_field_name("path")
        if p is None:
            return
        raw = ts.text(p)
        system = p.type == "system_lib_string"
        inc = raw.strip("<>\"")
        if not inc or inc.startswith("/"):
            return
        here = posixpath.dirname(self.path)
        cands: list[str] = []
        # the including file's directory (quoted includes only), then the include roots a
        # build would pass with -I: each ancestor directory and its include/ folder,
        # nearest first (`proj/include/lib/x.h` from `proj/src/`)
        dirs = [here]
        while dirs[-1]:
            dirs.append(posixpath.dirname(dirs[-1]))
        for d in dirs:
            if d != here or not system:
                cands.append(posixpath.normpath(posixpath.join(d, inc)))
            cands.append(posixpath.normpath(posixpath.join(d, "include", inc)))
        for root in ("src", "lib"):
            cands.append(f"{root}/{posixpath.normpath(inc)}")
        cands = [c for c in dict.fromkeys(cands) if not c.startswith("..") and c != self.path]
        if not system:
            self.include_paths.extend(cands)  # where static inline helpers may come from
        self.refs.append(Reference(
            IMPORTS, self.path, raw if system else inc, self.path, ts.line(node), "", "file",
            {"candidates": [{"path": c, "how": "import"} for c in cands], "names": [inc]},
        ))

    def _using(self, node: TSNode) -> None:
        is_ns = any(c.type == "namespace" for c in node.children)
        target = next((c for c in node.named_children), None)
        if target is None:
            return
        segs = tuple(s for s in ts.text(target).replace(" ", "").split("::") if s)
        if not segs:
            return
        if is_ns:
            self.using_ns.append(segs)
        else:
            self.using_decl[segs[-1]] = segs

    # -- names ---------------------------------------------------------------------
    def _chain(self, sc: _Scope) -> list[tuple[str, ...]]:
        """Naming contexts to look a name up in, innermost first."""
        return [sc.lookup[:k] for k in range(len(sc.lookup), -1, -1)]

    def _qual_segments(self, node: TSNode | None) -> tuple[str, ...]:
        if node is None:
            return ()
        t = node.type
        if t in ("identifier", "type_identifier", "namespace_identifier", "field_identifier", "primitive_type"):
            return (ts.text(node),)
        if t == "template_type" or t == "template_function":
            return self._qual_segments(node.child_by_field_name("name"))
        if t == "qualified_identifier":
            scope = node.child_by_field_name("scope")
            head = self._qual_segments(scope) if scope is not None else ()
            return head + self._qual_segments(node.child_by_field_name("name"))
        if t == "destructor_name":
            return ("~" + ts.text(node).lstrip("~").strip(),)
        return ()

    def _type_segments(self, tnode: TSNode | None, depth: int = 0) -> tuple[str, ...] | None:
        """The class a type names, through smart pointers and aliases; None for
        primitives and std containers."""
        if tnode is None or depth > 5:
            return None
        t = tnode.type
        if t in ("primitive_type", "sized_type_specifier", "placeholder_type_specifier"):
            return None
        if t in ("struct_specifier", "class_specifier", "union_specifier"):
            n = tnode.child_by_field_name("name")
            return self._qual_segments(n) or None
        if t == "type_descriptor":
            return self._type_segments(tnode.child_by_field_name("type"), depth + 1)
        tmpl = tnode
        if t == "qualified_identifier":
            inner = tnode
            while inner is not None and inner.type == "qualified_identifier":
                inner = inner.child_by_field_name("name")
            tmpl = inner if inner is not None else tnode
        if tmpl.type == "template_type":
            name = ts.text(tmpl.child_by_field_name("name"))
            args = tmpl.child_by_field_name("arguments")
            if name in SMART_POINTERS and args is not None and args.named_children:
                return self._type_segments(args.named_children[0], depth + 1)
        segs = self._qual_segments(tnode)
        if not segs:
            return None
        if segs[0] in EXTERNAL_NS:
            return None
        if len(segs) == 1 and segs[0] in self.aliases:
            return self._type_segments(self.aliases[segs[0]], depth + 1)
        return segs

    def _owner_candidates(self, segs: tuple[str, ...], sc: _Scope, member: str, how: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"owner": "::".join(p + segs), "member": member, "how": how}
                                     for p in self._chain(sc)]
        out += [{"owner": "::".join(u + segs), "member": member, "how": "import"} for u in self.using_ns
                if u[0] not in EXTERNAL_NS]
        if self.lang == "c" or (not self.is_header and len(segs) == 1):
            out.insert(0, {"owner": "::".join((self.path,) + segs), "member": member, "how": how})
        return out

    def _qn_candidates(self, segs: tuple[str, ...], sc: _Scope) -> list[dict[str, Any]]:
        """Qualified names a written name may mean here, most specific first (cached:
        the same names recur all over a file)."""
        key = (segs, sc.lookup)
        hit = self.cand_cache.get(key)
        if hit is None:
            hit = self.cand_cache[key] = self._qn_candidates_uncached(segs, sc)
        return hit

    def _qn_candidates_uncached(self, segs: tuple[str, ...], sc: _Scope) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if len(segs) == 1:
            out.append({"qn": self._file_private(segs[0]), "how": "same_module"})
            if segs[0] in self.using_decl:
                out.append({"qn": "::".join(self.using_decl[segs[0]]), "how": "import"})
        for p in self._chain(sc):
            out.append({"qn": "::".join(p + segs), "how": "same_module" if p else "exact"})
        for u in self.using_ns:
            if u[0] not in EXTERNAL_NS:
                out.append({"qn": "::".join(u + segs), "how": "import"})
        if len(segs) == 1:
            for inc in self.include_paths:  # static inline functions of included headers
                out.append({"qn": f"{inc}::{segs[0]}", "how": "import"})
        return out

    # -- references ----------------------------------------------------------------
    def _ref(self, rtype: str, sc: _Scope, target: str, node: TSNode, cands: list[dict[str, Any]], *,
             name: str | None = None, name_kinds: list[str] | None = None, optional: bool = False) -> None:
        ex = ref_extra(cands, name, name_kinds, optional, {})
        if rtype == CALLS and self.lang == "cpp":
            n = _call_arity(node)
            if n is not None:
                ex["arity"] = n  # the resolver keeps the overloads this many arguments fit
                kinds = literal_types(call_arguments(node)) if node.type != "init_declarator" else []
                if any(kinds):
                    ex["arg_types"] = kinds  # and those these literal arguments can go to
        self.refs.append(Reference(rtype, sc.source_qn, target, self.path, ts.line(node), sc.source_sig, "symbol", ex))

    def _bases(self, node: TSNode, sc: _Scope, outer: _Scope) -> None:
        for c in node.named_children:
            if c.type != "base_class_clause":
                continue
            for b in c.named_children:
                if b.type == "access_specifier":
                    continue
                segs = self._type_segments(b)
                if not segs:
                    continue
                self._ref(EXTENDS, sc, "::".join(segs), b, self._qn_candidates(segs, outer),
                          name=segs[-1], name_kinds=["class", "struct"])

    def _param(self, node: TSNode, sc: _Scope) -> None:
        if sc.kind != "fn":
            return
        d = node.child_by_field_name("declarator")
        name = self._declared_name(d)
        if name:
            sc.locals[name] = node.child_by_field_name("type")

    @staticmethod
    def _declared_name(d: TSNode | None) -> str:
        while d is not None and d.type not in ("identifier", "field_identifier"):
            nxt = d.child_by_field_name("declarator")
            if nxt is None and d.named_children:
                nxt = next((c for c in d.named_children if c.type in ("identifier",) or c.type.endswith("declarator")),
                           None)
            d = nxt
        return ts.text(d) if d is not None else ""

    def _declaration(self, node: TSNode, sc: _Scope) -> None:
        tnode = node.child_by_field_name("type")
        for d in node.children_by_field_name("declarator"):
            if d.type == "function_declarator":
                continue  # a prototype
            name = self._declared_name(d)
            value = d.child_by_field_name("value") if d.type == "init_declarator" else None
            ttype = tnode
            if tnode is not None and tnode.type == "placeholder_type_specifier" and value is not None:
                ttype = self._expr_type_node(value)
            if sc.kind == "fn" and name:
                sc.locals[name] = ttype
            if self.lang == "cpp" and value is not None and value.type in ("argument_list", "initializer_list"):
                self._construct(tnode, d, sc)

    def _expr_type_node(self, value: TSNode) -> TSNode | None:
        if value.type == "new_expression":
            return value.child_by_field_name("type")
        if value.type == "call_expression":
            fn = value.child_by_field_name("function")
            if fn is not None:
                segs = self._qual_segments(fn)
                if segs and segs[-1] in MAKERS:
                    inner = fn
                    while inner is not None and inner.type == "qualified_identifier":
                        inner = inner.child_by_field_name("name")
                    args = inner.child_by_field_name("arguments") if inner is not None else None
                    if args is not None and args.named_children:
                        return args.named_children[0]
                if segs and segs[-1][:1].isupper() and fn.type in ("identifier", "qualified_identifier"):
                    return fn  # Foo(1): a temporary of class Foo
        return None

    def _construct(self, tnode: TSNode | None, at: TSNode, sc: _Scope) -> None:
        segs = self._type_segments(tnode)
        if not segs:
            return
        written = "::".join(segs)
        self._ref(CALLS, sc, written, at, self._qn_candidates(segs, sc), name=segs[-1],
                  name_kinds=["class", "struct"])
        self._ref(CALLS, sc, f"{written}::{segs[-1]}", at, self._owner_candidates(segs, sc, segs[-1], "exact"),
                  optional=True)

    def _new(self, node: TSNode, sc: _Scope) -> None:
        self._construct(node.child_by_field_name("type"), node, sc)

    def _call(self, node: TSNode, sc: _Scope) -> None:
        fn = node.child_by_field_name("function")
        if fn is None:
            return
        t = fn.type
        if t in ("identifier", "template_function"):
            n = fn if t == "identifier" else fn.child_by_field_name("name")
            if ts.text(n) in NOT_CALLS:
                return
        if t == "identifier":
            self._free_call(node, fn, (ts.text(fn),), sc)
        elif t in ("qualified_identifier", "template_function"):
            segs = self._qual_segments(fn)
            if segs and segs[-1] in MAKERS and segs[0] in ("std", "boost") or segs == ("make_unique",) \
                    or segs == ("make_shared",):
                inner = fn
                while inner is not None and inner.type == "qualified_identifier":
                    inner = inner.child_by_field_name("name")
                args = inner.child_by_field_name("arguments") if inner is not None else None
                if args is not None and args.named_children:
                    self._construct(args.named_children[0], node, sc)
                return
            if not segs:
                return
            if len(segs) == 1:
                self._free_call(node, fn, segs, sc)
            else:
                self._qualified_call(node, segs, sc)
        elif t == "field_expression" and self.lang == "cpp":
            self._member_call(node, fn, sc)

    def _free_call(self, node: TSNode, fn: TSNode, segs: tuple[str, ...], sc: _Scope) -> None:
        name = segs[0]
        if name in sc.locals:
            return  # a lambda or function pointer held in a local
        cands: list[dict[str, Any]] = []
        if sc.owner:
            cands.append({"owner": sc.owner, "member": name, "how": "self"})
        cands += self._qn_candidates(segs, sc)
        # the C library: an edge when the repository defines the name, never a stub
        libc = name in LIBC
        if self.lang == "c":
            self._ref(CALLS, sc, name, node, cands, optional=libc)
            return
        self._ref(CALLS, sc, name, node, cands, name=name, name_kinds=["function"], optional=libc)
        if name[:1].isupper():  # Foo(1) may construct a Foo
            self._ref(CALLS, sc, f"{name}::{name}", node, self._owner_candidates(segs, sc, name, "exact"),
                      optional=True)

    def _qualified_call(self, node: TSNode, segs: tuple[str, ...], sc: _Scope) -> None:
        written = "::".join(segs)
        if segs[0] in EXTERNAL_NS:
            return  # std::sort, boost::...: outside any repository
        cands = self._qn_candidates(segs, sc)
        cands += self._owner_candidates(segs[:-1], sc, segs[-1], "exact")
        self._ref(CALLS, sc, written, node, cands, name=segs[-1], name_kinds=["function", "method"])

    def _member_call(self, node: TSNode, fn: TSNode, sc: _Scope) -> None:
        recv = fn.child_by_field_name("argument")
        f = fn.child_by_field_name("field")
        if f is None:
            return
        meth = self._qual_segments(f)
        if not meth:
            return
        m = meth[-1]
        rtext = ts.text(recv) if recv is not None else "?"
        op = "->" if any(c.type == "->" for c in fn.children) else "."
        written = f"{rtext}{op}{m}" if len(rtext) <= 40 and "\n" not in rtext else f"?{op}{m}"
        if recv is not None and recv.type == "this" and sc.owner:
            self._ref(CALLS, sc, written, node, [{"owner": sc.owner, "member": m, "how": "self"}])
            return
        segs = self._receiver_type(recv, sc)
        stl = m in STL_METHODS
        if segs:
            self._ref(CALLS, sc, written, node, self._owner_candidates(segs, sc, m, "receiver_type"),
                      optional=stl)
            return
        if not stl:  # STL names on an unknown receiver are almost always STL calls
            self._ref(CALLS, sc, written, node, [], name=m, name_kinds=["method"])

    def _receiver_type(self, recv: TSNode | None, sc: _Scope) -> tuple[str, ...] | None:
        if recv is None:
            return None
        while recv.type in ("parenthesized_expression", "pointer_expression") and recv.named_children:
            recv = recv.named_children[-1]
        if recv.type == "identifier":
            name = ts.text(recv)
            if name in sc.locals:
                return self._type_segments(sc.locals[name])
            if sc.owner:
                ftype = self.fields.get(sc.owner, {}).get(name)
                if ftype is not None:
                    return self._type_segments(ftype)
            return None
        if recv.type == "field_expression":
            base = recv.child_by_field_name("argument")
            fname = ts.text(recv.child_by_field_name("field"))
            owner: str | None = None
            if base is not None and base.type == "this":
                owner = sc.owner
            else:
                bsegs = self._receiver_type(base, sc)
                if bsegs:
                    owner = next((q for q in ("::".join(p + bsegs) for p in self._chain(sc)) if q in self.fields),
                                 None)
            if owner:
                ftype = self.fields.get(owner, {}).get(fname)
                if ftype is not None:
                    return self._type_segments(ftype)
        return None


def _plain_params(ptypes: str) -> str:
    """``(int, const std::string&) const`` -> ``int, const std::string&`` (SymbolRecord.params)."""
    return ptypes[1:ptypes.rfind(")")] if ptypes.startswith("(") else ptypes


def _count_args(args: TSNode | None) -> int | None:
    """Arguments of a call; None when a pack expansion (``f(args...)``) hides the count."""
    if args is None:
        return 0
    if any(c.type == "parameter_pack_expansion" for c in args.named_children):
        return None
    return sum(1 for c in args.named_children if c.type != "comment")


def _call_arity(node: TSNode) -> int | None:
    """Arguments passed by a call, `new`, or a constructing declaration."""
    t = node.type
    if t in ("call_expression", "new_expression"):
        return _count_args(node.child_by_field_name("arguments"))
    if t == "init_declarator":
        v = node.child_by_field_name("value")
        return _count_args(v) if v is not None and v.type in ("argument_list", "initializer_list") else None
    return None


def _param_arity(params: TSNode | None) -> tuple[int | None, bool]:
    """(parameter count, variadic); count None when defaults make it a range."""
    if params is None:
        return None, False
    n, variadic = 0, False
    for p in params.named_children:
        if p.type == "comment":
            continue
        if p.type in ("variadic_parameter", "variadic_parameter_declaration") or ts.text(p) == "...":
            variadic = True
            continue
        if p.type == "optional_parameter_declaration":
            return None, variadic
        if p.type == "parameter_declaration" and ts.text(p).strip() == "void" and len(params.named_children) == 1:
            return 0, False
        n += 1
    return n, variadic


def _blank(m: re.Match[bytes], group: int) -> bytes:
    """The match with one group replaced by spaces: byte offsets and lines stay put."""
    s, e = m.start(group) - m.start(0), m.end(group) - m.start(0)
    whole = m.group(0)
    return whole[:s] + b" " * (e - s) + whole[e:]


def _preclean(src: bytes) -> bytes:
    """Blank the preprocessor idioms that derail a grammar that cannot expand macros:
    export / inline / restrict macros among declaration specifiers and the braces of
    `#ifdef __cplusplus` / `extern "C" {` / `#endif` guards. Same length, same lines."""
    if b"class" in src or b"struct" in src:
        src = EXPORT_MACRO.sub(lambda m: _blank(m, 1), src)
    for _ in range(3):  # `HIDDEN BORROWED PyObject *f(`: one macro per pass
        nxt = SPEC_MACRO.sub(lambda m: _blank(m, 1), src)
        if nxt == src:
            break
        src = nxt
    if b"RESTRICT" in src or b"restrict" in src:
        src = RESTRICT_MACRO.sub(lambda m: _blank(m, 1), src)
    if b"__cplusplus" in src:
        src = CPLUSPLUS_GUARD.sub(lambda m: _blank(m, 1), src)
    return src


TEST_NAME = re.compile(r"(?:^test_|[_-](?:unit)?tests?$|[a-z0-9]Tests?$)")


def _is_test_path(path: str) -> bool:
    parts = path.split("/")
    base = parts[-1].rsplit(".", 1)[0]
    return (any(p.lower() in ("test", "tests", "testing", "unittest", "unittests") for p in parts[:-1])
            or TEST_NAME.search(base) is not None)


def extract(repo: str, path: str, source: bytes) -> FileExtraction:
    """Extract one C or C++ file (grammar by extension; `.h` sniffed, see module doc):
    symbols, IMPORTS (`#include`), CALLS (incl. constructor calls), EXTENDS (bases)."""
    return _Extractor(repo, path, source).run()

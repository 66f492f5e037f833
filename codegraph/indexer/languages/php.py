"""PHP extractor: namespaces, classes / interfaces / traits / enums, functions,
``use`` imports, require / include, calls, inheritance.

Qualified names (see ``docs/languages/php.md``): the namespaced class name with
backslashes, members after ``::`` as PHP writes static access: ``App\\Models\\User``,
``App\\Models\\User::save``, a property ``App\\Models\\User::$email``, a namespaced
function ``App\\Util\\slugify``, a global one ``slugify``.

``extends`` is EXTENDS (class -> class, interface -> interface); ``implements`` and a
trait ``use T;`` inside a class are IMPLEMENTS (a trait is a mixin: its methods are
looked up through the same base walk as an interface's).

``use App\\Models\\User;`` is an IMPORTS edge to the file declaring that class, found
by PSR-4 style path guesses (``App/Models/User.php``, ``src/Models/User.php``,
``app/Models/User.php`` ...); require / include with literal paths (also
``__DIR__ . '/x.php'``) are IMPORTS edges too.
"""

from __future__ import annotations

import bisect
import posixpath
from dataclasses import dataclass, field
from typing import Any

from tree_sitter import Node as TSNode

from codegraph.core.models import CALLS, EXTENDS, IMPLEMENTS, IMPORTS, SymbolRecord
from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages.skeleton import (
    Builder,
    Comments,
    Event,
    define_sweep,
    document_order,
    head_signature,
    hints,
    norm,
    reference_sweep,
)
from codegraph.indexer.records import FileExtraction

LANG = "php"
SOURCE_ROOTS = ("src", "app", "lib", "")
# Language constructs the grammar parses as calls.
CONSTRUCTS = frozenset({"isset", "empty", "unset", "eval", "exit", "die", "list", "array", "compact", "extract",
                        "func_get_args", "func_num_args"})
# Core functions and classes: an edge when the repository defines the name (a polyfill),
# never a stub.
BUILTIN_FUNCTIONS = frozenset("""
strlen count sprintf printf vsprintf implode explode substr str_replace str_contains str_starts_with str_ends_with
strpos stripos strrpos strtolower strtoupper ucfirst lcfirst ucwords trim ltrim rtrim str_repeat str_pad
str_split sprintf number_format preg_match preg_match_all preg_replace preg_replace_callback preg_split
preg_quote array_map array_filter array_reduce array_keys array_values array_merge array_merge_recursive
array_combine array_flip array_slice array_splice array_search array_key_exists array_key_first
array_key_last array_unique array_reverse array_pop array_push array_shift array_unshift array_fill
array_fill_keys array_column array_diff array_diff_key array_intersect array_intersect_key array_walk
array_sum array_product in_array is_array is_string is_int is_integer is_float is_bool is_null is_numeric
is_object is_callable is_iterable is_countable is_resource is_a is_subclass_of get_class get_parent_class
get_object_vars method_exists property_exists class_exists interface_exists function_exists trait_exists
enum_exists defined define constant sort rsort usort uasort uksort ksort krsort asort arsort range min max
abs floor ceil round intval floatval strval boolval settype gettype get_debug_type json_encode json_decode
serialize unserialize var_export var_dump print_r spl_object_hash spl_object_id spl_autoload_register
iterator_to_array call_user_func call_user_func_array func_get_args is_file is_dir file_exists
file_get_contents file_put_contents fopen fclose fwrite fread fgets feof fflush unlink mkdir rmdir rename
copy realpath dirname basename pathinfo glob scandir tempnam sys_get_temp_dir getenv putenv ini_get
ini_set time microtime hrtime date mktime strtotime date_default_timezone_get usleep sleep trigger_error
error_reporting set_error_handler restore_error_handler set_exception_handler debug_backtrace
htmlspecialchars html_entity_decode htmlentities strip_tags addslashes stripslashes nl2br urlencode
rawurlencode urldecode http_build_query parse_url parse_str base64_encode base64_decode md5 sha1 crc32
hash hash_hmac random_int random_bytes mt_rand rand uniqid bin2hex hex2bin ord chr mb_strlen mb_substr
mb_strtolower mb_strtoupper mb_strpos mb_str_split mb_convert_encoding mb_check_encoding iconv ctype_digit
ctype_alpha ctype_space ctype_upper ctype_lower array_is_list str_word_count wordwrap similar_text
levenshtein sprintf vsprintf fprintf ob_start ob_get_clean ob_get_contents ob_end_clean headers_sent header
class_implements class_uses is_writable is_readable stream_get_contents fseek ftell rewind array_rand
shuffle array_chunk array_pad array_count_values natsort natcasesort array_multisort version_compare
phpversion php_sapi_name extension_loaded function_exists mb_internal_encoding str_word_count
""".split())
CORE_CLASSES = frozenset("""
Exception ErrorException Error TypeError ValueError ArgumentCountError ArithmeticError DivisionByZeroError
RuntimeException LogicException InvalidArgumentException DomainException LengthException OutOfRangeException
OutOfBoundsException RangeException OverflowException UnderflowException UnexpectedValueException
BadFunctionCallException BadMethodCallException JsonException Closure Generator stdClass ArrayObject
ArrayIterator SplObjectStorage SplQueue SplStack SplFileInfo SplFileObject SplTempFileObject
SplPriorityQueue SplFixedArray DateTime DateTimeImmutable DateTimeZone DateInterval DatePeriod
IteratorIterator RecursiveArrayIterator RecursiveIteratorIterator FilesystemIterator DirectoryIterator
RecursiveDirectoryIterator CallbackFilterIterator AppendIterator LimitIterator EmptyIterator ReflectionClass
ReflectionMethod ReflectionProperty ReflectionFunction ReflectionNamedType ReflectionObject WeakMap
WeakReference PDO PDOStatement PDOException SimpleXMLElement DOMDocument DOMXPath DOMElement
""".split())
PSEUDO_TYPES = frozenset({"self", "static", "parent", "mixed", "void", "null", "array", "callable", "iterable",
                          "object", "never", "false", "true", "bool", "int", "float", "string"})


@dataclass(slots=True)
class _Scope:
    end: int
    kind: str  # file | class | fn
    source_qn: str
    source_sig: str
    owner: str | None = None  # class qn ($this, self::)
    parent_class: str | None = None
    locals: dict[str, list[str]] = field(default_factory=dict)  # $var -> class qn candidates


@dataclass(slots=True)
class _Namespace:
    name: str  # "" for global
    classes: dict[str, str] = field(default_factory=dict)  # alias -> fq class name
    functions: dict[str, str] = field(default_factory=dict)


class _Extractor:
    def __init__(self, repo: str, path: str, source: bytes) -> None:
        self.repo, self.path, self.src = repo, path, source
        self.b: Builder  # set by run(): the file's records
        self.comments = Comments(())
        self.scope_of: dict[int, _Scope] = {}
        self.ns_starts: list[int] = []
        self.ns_list: list[tuple[int, _Namespace]] = []  # (end byte, namespace) by start
        self.props: dict[str, dict[str, list[str]]] = {}  # class qn -> property -> class qn candidates
        self.global_ns = _Namespace("")

    # -- namespaces ----------------------------------------------------------------
    def _namespaces(self, events: list[Event]) -> None:
        regions: list[tuple[int, int, _Namespace]] = []
        for _, _, _, cap, node in events:
            if cap != "namespace":
                continue
            n = node.child_by_field_name("name")
            ns = _Namespace(ts.text(n).strip("\\") if n is not None else "")
            body = node.child_by_field_name("body")
            if body is not None:
                regions.append((node.start_byte, node.end_byte, ns))
            else:  # `namespace A;` runs to the next namespace statement or the end
                if regions and regions[-1][1] == len(self.src) + 1:
                    s, _, prev = regions[-1]
                    regions[-1] = (s, node.start_byte, prev)
                regions.append((node.start_byte, len(self.src) + 1, ns))
        self.ns_starts = [r[0] for r in regions]
        self.ns_list = [(r[1], r[2]) for r in regions]
        for _, _, _, cap, node in events:
            if cap == "use":
                self._use(node)

    def _ns_at(self, pos: int) -> _Namespace:
        i = bisect.bisect_right(self.ns_starts, pos) - 1
        while i >= 0:
            end, ns = self.ns_list[i]
            if pos < end:
                return ns
            i -= 1
        return self.global_ns

    def _use(self, node: TSNode) -> None:
        ns = self._ns_at(node.start_byte)
        kind = "class"
        for c in node.children:
            if c.type in ("function", "const"):
                kind = c.type
        prefix = ""
        group = node.child_by_field_name("body")
        for c in node.named_children:
            if c.type == "namespace_name" and group is not None:
                prefix = ts.text(c).strip("\\") + "\\"
        clauses = [c for c in (group.named_children if group is not None else node.named_children)
                   if c.type == "namespace_use_clause"]
        for cl in clauses:
            ckind = kind
            for c in cl.children:
                if c.type in ("function", "const"):
                    ckind = c.type
            alias_node = cl.child_by_field_name("alias")
            target_node = next((c for c in cl.named_children if c.type in ("qualified_name", "name")
                                and c != alias_node), None)
            if target_node is None:
                continue
            fq = prefix + ts.text(target_node).strip("\\")
            alias = ts.text(alias_node) if alias_node is not None else fq.rsplit("\\", 1)[-1]
            if ckind == "function":
                ns.functions[alias] = fq
            elif ckind == "class":
                ns.classes[alias] = fq
                # PSR-4 path guesses, then the class itself: the resolver links an IMPORTS
                # `qn` candidate to the declaring file (where it supports that); either
                # way a class the repository declares makes no stub
                cands: list[dict[str, Any]] = [{"path": p, "how": "import"} for p in self._psr4_paths(fq)]
                cands.append({"qn": fq, "how": "import"})
                self._ref(IMPORTS, None, fq, cl, cands, source_kind="file", names=[alias],
                          optional=fq.split("\\")[0] in CORE_CLASSES)

    @staticmethod
    def _psr4_paths(fq: str) -> list[str]:
        parts = fq.split("\\")
        out: list[str] = []
        for drop in range(0, min(2, len(parts) - 1) + 1):
            rel = "/".join(parts[drop:]) + ".php"
            for root in SOURCE_ROOTS:
                out.append(f"{root}/{rel}" if root else rel)
        return list(dict.fromkeys(out))

    def _class_name(self, written: str, at: int, sc: _Scope | None = None) -> list[str]:
        """Fully qualified class name(s) for a name as written (PHP resolution rules)."""
        if not written:
            return []
        low = written.lower()
        if sc is not None and low in ("self", "static"):
            return [sc.owner] if sc.owner else []
        if sc is not None and low == "parent":
            return [sc.parent_class] if sc.parent_class else []
        if low in PSEUDO_TYPES:
            return []
        if written.startswith("\\"):
            return [written.lstrip("\\")]
        if written.lower().startswith("namespace\\"):
            written = written[len("namespace\\"):]
            ns = self._ns_at(at)
            return [f"{ns.name}\\{written}" if ns.name else written]
        ns = self._ns_at(at)
        first, _, rest = written.partition("\\")
        if first in ns.classes:
            return [ns.classes[first] + ("\\" + rest if rest else "")]
        return [f"{ns.name}\\{written}" if ns.name else written]

    # -- symbols -------------------------------------------------------------------
    def _symbol(self, node: TSNode, kind: str, qn: str, name: str, params: str, parent: str | None,
                vis: str, head_end: int | None = None) -> SymbolRecord:
        # declared twice (`if (!function_exists(..))`, reopened twice): one symbol (Builder.keep)
        return self.b.define(node, kind, qn, name, sig_key=params, visibility=vis, parent=parent,
                             signature=head_signature(self.src, node, head_end), docstring=self._doc(node))

    def _doc(self, node: TSNode) -> str:
        """The `/** ... */` block right above ``node``."""
        c = self.comments.nearest_before(node)
        if c is None:
            return ""
        t = ts.text(c)
        if c.end_point[0] < node.start_point[0] - 1 or not t.startswith("/**"):
            return ""
        return t[:2000]

    @staticmethod
    def _visibility(node: TSNode) -> str:
        for c in node.named_children:
            if c.type == "visibility_modifier":
                return ts.text(c).lower()
        return "public"

    # -- driver --------------------------------------------------------------------
    def run(self) -> FileExtraction:
        root = ts.parse(LANG, self.src).root_node
        self.b = Builder(self.repo, self.path, LANG, self.src, root, is_test=_is_test_path(self.path))
        fsym = self.b.module(language_kind="program")
        caps = ts.captures(LANG, "tags", root)
        self.comments = Comments(caps.pop("comment", ()))
        events = document_order(caps)
        self.file_scope = _Scope(len(self.src) + 1, "file", self.path, fsym.signature_hash)
        self._namespaces(events)
        define_sweep(events, self.file_scope, self.scope_of, self._define_event)
        reference_sweep(events, self.file_scope, self.scope_of, self._opened, {
            "param": self._param, "assign": self._assign, "call.function": self._function_call,
            "call.member": self._member_call, "call.scoped": self._scoped_call, "new": self._new,
            "include": self._include, "trait_use": self._trait_use,
        })
        return self.b.fx

    def _define_event(self, cap: str, node: TSNode, sc: _Scope) -> _Scope | None:
        if cap.startswith("def."):
            return self._define(cap, node, sc)
        if cap == "param" and node.type == "property_promotion_parameter":
            self._promoted(node, sc)
        return None

    def _opened(self, node: TSNode, opened: _Scope, outer: _Scope) -> None:
        if opened.kind == "class":
            self._heritage(node, opened)

    # -- definitions ---------------------------------------------------------------
    def _define(self, cap: str, node: TSNode, sc: _Scope) -> _Scope | None:
        n = node.child_by_field_name("name")
        if cap in ("def.class", "def.interface", "def.trait", "def.enum"):
            if n is None or sc.kind != "file":
                return None
            ns = self._ns_at(node.start_byte)
            name = ts.text(n)
            qn = f"{ns.name}\\{name}" if ns.name else name
            kind = {"def.class": "class", "def.interface": "interface", "def.trait": "trait", "def.enum": "enum"}[cap]
            s = self._symbol(node, kind, qn, name, "", ns.name or self.path, "public")
            parent_class = None
            for c in node.named_children:
                if c.type == "base_clause" and kind == "class" and c.named_children:
                    cands = self._class_name(ts.text(c.named_children[0]), c.start_byte)
                    parent_class = cands[0] if cands else None
            return _Scope(node.end_byte, "class", qn, s.signature_hash, owner=qn, parent_class=parent_class)
        if cap == "def.method":
            if n is None or sc.kind != "class":
                return None
            name = ts.text(n)
            params = self._param_text(node.child_by_field_name("parameters"))
            s = self._symbol(node, "method", f"{sc.owner}::{name}", name, params, sc.owner, self._visibility(node))
            return _Scope(node.end_byte, "fn", s.qualified_name, s.signature_hash, owner=sc.owner,
                          parent_class=sc.parent_class)
        if cap == "def.function":
            if n is None:
                return None
            if sc.kind != "file":
                return None  # a function declared inside a function: defined when that runs
            ns = self._ns_at(node.start_byte)
            name = ts.text(n)
            qn = f"{ns.name}\\{name}" if ns.name else name
            params = self._param_text(node.child_by_field_name("parameters"))
            s = self._symbol(node, "function", qn, name, params, ns.name or self.path, "public")
            return _Scope(node.end_byte, "fn", qn, s.signature_hash)
        if cap == "def.property" and sc.kind == "class" and sc.owner:
            vis = self._visibility(node)
            types = self._type_candidates(node.child_by_field_name("type"), node.start_byte, sc)
            for el in node.named_children:
                if el.type != "property_element":
                    continue
                vn = el.child_by_field_name("name")
                pname = ts.text(vn).lstrip("$") if vn is not None else ""
                if not pname:
                    continue
                self._symbol(node, "field", f"{sc.owner}::${pname}", pname, "", sc.owner, vis, head_end=node.end_byte)
                if types:
                    self.props.setdefault(sc.owner, {})[pname] = types
            return None
        if cap == "def.case" and sc.kind == "class" and n is not None:
            name = ts.text(n)
            self._symbol(node, "field", f"{sc.owner}::{name}", name, "", sc.owner, "public", head_end=node.end_byte)
        return None

    @staticmethod
    def _param_text(params: TSNode | None) -> str:
        if params is None:
            return ""
        out = []
        for p in params.named_children:
            t = p.child_by_field_name("type")
            out.append(norm(ts.text(t)) if t is not None else "mixed")
        return "(" + ", ".join(out) + ")"

    def _promoted(self, node: TSNode, sc: _Scope) -> None:
        """`public function __construct(private Repo $repo)`: a property too."""
        if sc.kind != "fn" or not sc.owner:
            return
        vn = node.child_by_field_name("name")
        pname = ts.text(vn).lstrip("$") if vn is not None else ""
        if not pname:
            return
        vis_node = node.child_by_field_name("visibility")
        vis = ts.text(vis_node).lower() if vis_node is not None else "public"
        self._symbol(node, "field", f"{sc.owner}::${pname}", pname, "", sc.owner, vis, head_end=node.end_byte)
        types = self._type_candidates(node.child_by_field_name("type"), node.start_byte, sc)
        if types:
            self.props.setdefault(sc.owner, {})[pname] = types

    def _type_candidates(self, tnode: TSNode | None, at: int, sc: _Scope) -> list[str]:
        while tnode is not None and tnode.type in ("optional_type", "union_type", "intersection_type",
                                                   "disjunctive_normal_form_type"):
            tnode = next((c for c in tnode.named_children if c.type in ("named_type", "optional_type")), None)
        if tnode is None or tnode.type != "named_type":
            return []
        inner = tnode.named_children[0] if tnode.named_children else None
        return self._class_name(ts.text(inner), at, sc) if inner is not None else []

    # -- references ----------------------------------------------------------------
    def _ref(self, rtype: str, sc: _Scope | None, target: str, node: TSNode, cands: list[dict[str, Any]], *,
             name: str | None = None, name_kinds: list[str] | None = None, optional: bool = False,
             source_kind: str = "symbol", **extra: Any) -> None:
        ex = hints(cands, name, name_kinds, optional, extra)
        if source_kind == "file" or sc is None:
            src_qn, src_sig = self.path, ""
        else:
            src_qn, src_sig = sc.source_qn, sc.source_sig
        self.b.reference(rtype, src_qn, src_sig, target, node, ex, source_kind)

    def _heritage(self, node: TSNode, sc: _Scope) -> None:
        is_interface = node.type == "interface_declaration"
        for c in node.named_children:
            if c.type == "base_clause":
                rtype = EXTENDS
            elif c.type == "class_interface_clause":
                rtype = IMPLEMENTS
            else:
                continue
            for b in c.named_children:
                if b.type not in ("name", "qualified_name"):
                    continue
                written = ts.text(b)
                cands = [{"qn": q, "how": "import"} for q in self._class_name(written, b.start_byte)]
                self._ref(EXTENDS if is_interface else rtype, sc, written, b, cands)

    def _trait_use(self, node: TSNode, sc: _Scope) -> None:
        if sc.kind != "class":
            return
        for b in node.named_children:
            if b.type in ("name", "qualified_name"):
                written = ts.text(b)
                cands = [{"qn": q, "how": "import"} for q in self._class_name(written, b.start_byte)]
                self._ref(IMPLEMENTS, sc, written, b, cands)

    def _param(self, node: TSNode, sc: _Scope) -> None:
        if sc.kind != "fn":
            return
        vn = node.child_by_field_name("name")
        if vn is None:
            return
        sc.locals[ts.text(vn).lstrip("$")] = self._type_candidates(node.child_by_field_name("type"),
                                                                    node.start_byte, sc)

    def _assign(self, node: TSNode, sc: _Scope) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if left is None or sc.kind not in ("fn", "file"):
            return
        var = ts.text(left).lstrip("$")
        types = self._expr_types(right, sc)
        sc.locals[var] = types

    def _expr_types(self, expr: TSNode | None, sc: _Scope) -> list[str]:
        while expr is not None and expr.type == "parenthesized_expression" and expr.named_children:
            expr = expr.named_children[0]
        if expr is None:
            return []
        if expr.type == "object_creation_expression":
            cls = next((c for c in expr.named_children if c.type in ("name", "qualified_name")), None)
            return self._class_name(ts.text(cls), expr.start_byte, sc) if cls is not None else []
        if expr.type == "variable_name":
            return list(sc.locals.get(ts.text(expr).lstrip("$"), []))
        if expr.type in ("member_access_expression", "nullsafe_member_access_expression"):
            obj = expr.child_by_field_name("object")
            pname = ts.text(expr.child_by_field_name("name"))
            for owner in self._expr_types(obj, sc) if obj is not None and ts.text(obj) != "$this" else (
                    [sc.owner] if sc.owner else []):
                t = self.props.get(owner, {}).get(pname)
                if t:
                    return list(t)
        return []

    def _function_call(self, node: TSNode, sc: _Scope) -> None:
        fn = node.child_by_field_name("function")
        if fn is None or fn.type not in ("name", "qualified_name"):
            return  # $callable(), closures
        written = ts.text(fn)
        bare = written.lstrip("\\")
        if bare.lower() in CONSTRUCTS:
            return
        ns = self._ns_at(node.start_byte)
        cands: list[dict[str, Any]] = []
        if written.startswith("\\"):
            cands.append({"qn": written.lstrip("\\"), "how": "exact"})
        else:
            first, _, rest = written.partition("\\")
            if not rest and first in ns.functions:
                cands.append({"qn": ns.functions[first], "how": "import"})
            elif rest and first in ns.classes:
                cands.append({"qn": ns.classes[first] + "\\" + rest, "how": "import"})
            if ns.name:
                cands.append({"qn": f"{ns.name}\\{written}", "how": "same_module"})
            if not rest:
                cands.append({"qn": written, "how": "exact"})  # PHP falls back to the global function
        self._ref(CALLS, sc, written, node, cands, optional=bare in BUILTIN_FUNCTIONS)

    def _member_call(self, node: TSNode, sc: _Scope) -> None:
        obj = node.child_by_field_name("object")
        mname = node.child_by_field_name("name")
        if obj is None or mname is None or mname.type != "name":
            return
        meth = ts.text(mname)
        otext = ts.text(obj)
        arrow = "?->" if node.type.startswith("nullsafe") else "->"
        written = f"{otext}{arrow}{meth}" if len(otext) <= 40 and "\n" not in otext else f"?{arrow}{meth}"
        if otext == "$this" and sc.owner:
            self._ref(CALLS, sc, written, node, [{"owner": sc.owner, "member": meth, "how": "self"}])
            return
        owners = self._expr_types(obj, sc)
        if owners:
            self._ref(CALLS, sc, written, node,
                      [{"owner": o, "member": meth, "how": "receiver_type"} for o in owners])
            return
        self._ref(CALLS, sc, written, node, [], name=meth, name_kinds=["method"])

    def _scoped_call(self, node: TSNode, sc: _Scope) -> None:
        scope = node.child_by_field_name("scope")
        mname = node.child_by_field_name("name")
        if scope is None or mname is None or mname.type != "name":
            return
        meth = ts.text(mname)
        stext = ts.text(scope)
        written = f"{stext}::{meth}"
        low = stext.lower()
        if low == "parent" and sc.owner:
            self._ref(CALLS, sc, written, node, [{"super_of": sc.owner, "member": meth, "how": "self"}])
            return
        if low in ("self", "static") and sc.owner:
            self._ref(CALLS, sc, written, node, [{"owner": sc.owner, "member": meth, "how": "self"}])
            return
        if scope.type == "variable_name":
            owners = self._expr_types(scope, sc)
            how = "receiver_type"
        else:
            owners = self._class_name(stext, node.start_byte, sc)
            how = "import" if stext.split("\\")[0] in self._ns_at(node.start_byte).classes else "exact"
        self._ref(CALLS, sc, written, node, [{"owner": o, "member": meth, "how": how} for o in owners],
                  name=None if owners else meth, name_kinds=["method"])

    def _new(self, node: TSNode, sc: _Scope) -> None:
        cls = next((c for c in node.named_children if c.type in ("name", "qualified_name")), None)
        if cls is None:
            return  # new class {...}, new $name
        written = ts.text(cls)
        owners = self._class_name(written, node.start_byte, sc)
        if not owners:
            return
        self._ref(CALLS, sc, f"new {written}", node, [{"qn": q, "how": "exact"} for q in owners],
                  optional=written.lstrip("\\") in CORE_CLASSES)
        self._ref(CALLS, sc, f"{written}::__construct", node,
                  [{"owner": q, "member": "__construct", "how": "exact"} for q in owners], optional=True)

    def _include(self, node: TSNode, sc: _Scope) -> None:
        arg = node.named_children[0] if node.named_children else None
        if arg is not None and arg.type == "parenthesized_expression" and arg.named_children:
            arg = arg.named_children[0]
        if arg is None:
            return
        here = posixpath.dirname(self.path)
        rel: str | None = None
        dir_relative = False
        if arg.type in ("string", "encapsed_string"):
            rel = self._literal(arg)
        elif arg.type == "binary_expression":
            left, right = arg.child_by_field_name("left"), arg.child_by_field_name("right")
            lt = ts.text(left)
            if lt in ("__DIR__", "dirname(__FILE__)") and right is not None and right.type in (
                    "string", "encapsed_string"):
                rel = self._literal(right)
                dir_relative = True
        if not rel:
            return
        if dir_relative:
            cands = [posixpath.normpath(posixpath.join(here, rel.lstrip("/")))]
        else:
            cands = [posixpath.normpath(posixpath.join(here, rel)), posixpath.normpath(rel)]
        cands = [c for c in dict.fromkeys(cands) if not c.startswith("..")]
        self._ref(IMPORTS, sc, rel, node, [{"path": c, "how": "import"} for c in cands], source_kind="file",
                  names=[rel])

    @staticmethod
    def _literal(s: TSNode) -> str | None:
        if any(c.type in ("variable_name", "dynamic_variable_name", "expression") for c in s.named_children):
            return None
        return "".join(ts.text(c) for c in s.named_children if c.type == "string_content") or None


def _is_test_path(path: str) -> bool:
    parts = path.split("/")
    return any(p.lower() in ("tests", "test") for p in parts[:-1]) or parts[-1].endswith("Test.php")


def extract(repo: str, path: str, source: bytes) -> FileExtraction:
    """Extract one PHP file: symbols, IMPORTS (use / require / include), CALLS (incl.
    ``new``), EXTENDS, IMPLEMENTS (interfaces and traits)."""
    return _Extractor(repo, path, source).run()

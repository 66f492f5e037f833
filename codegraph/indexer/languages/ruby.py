"""Ruby extractor: modules, classes, methods, requires, calls, mixins.

Qualified names (see ``docs/languages/ruby.md``): constants nest with ``::``
(``Shop::Cart``); an instance method is ``Shop::Cart#add``, a singleton method
(``def self.x``, ``class << self``, after ``module_function``) ``Shop::Cart.build``;
a method defined at the top level of a file belongs to ``Object`` (``Object#helper``).
Every symbol's ``parent`` is its class/module, so member lookups on a receiver's class
(and, through EXTENDS / IMPLEMENTS, its superclass and mixins) find both kinds.

A class or module may be reopened in many files; each opening is a symbol of its own
(the signature hash includes the file path) so one file's re-index never deletes
another file's opening. ``class A < B`` is EXTENDS A -> B; ``include M``,
``extend M`` and ``prepend M`` are IMPLEMENTS A -> M (the resolver walks both kinds
when it looks a method up on a class).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Any

from tree_sitter import Node as TSNode

from codegraph.core.models import CALLS, EXTENDS, IMPLEMENTS, IMPORTS, SymbolRecord
from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages.skeleton import (
    Builder,
    Comments,
    define_sweep,
    document_order,
    head_signature,
    hints,
    reference_sweep,
)
from codegraph.indexer.records import FileExtraction

LANG = "ruby"
VISIBILITY_WORDS = frozenset({"private", "protected", "public", "module_function"})
MIXINS = frozenset({"include", "extend", "prepend"})
ATTRS = {"attr_reader": ("",), "attr_writer": ("=",), "attr_accessor": ("", "=")}
# Kernel / Module methods and keywords-in-disguise: calling one is no edge and no stub.
BUILTINS = frozenset("""
require require_relative load autoload include extend prepend attr_reader attr_writer attr_accessor attr
private protected public module_function private_class_method public_class_method private_constant
raise fail puts print p pp printf sprintf format warn lambda proc loop catch throw block_given? binding
caller exit exit! abort at_exit sleep rand srand gets open system exec fork spawn trap Integer Float
String Array Hash Rational Complex define_method alias_method instance_variable_get instance_variable_set
instance_variables respond_to? send __send__ public_send is_a? kind_of? instance_of? nil? freeze frozen?
dup clone tap then yield_self itself class object_id hash inspect to_s method methods new allocate
superclass ancestors const_get const_set const_defined? module_eval class_eval instance_eval instance_exec
class_exec using refine extend_object included extended inherited attr_internal delegate
""".split())
# Core / standard-library constants: a call on one (`File.join`, `Hash.new`) links when
# the repository defines that constant, and makes no stub when it does not.
CORE_CONSTANTS = frozenset("""
File Dir IO Hash Array String Symbol Integer Float Numeric Rational Complex Range Regexp MatchData Time Struct
Set Kernel Object BasicObject Module Class Proc Method Comparable Enumerable Enumerator Math Process Signal GC
ObjectSpace Thread Mutex Queue ConditionVariable Fiber Random Encoding Marshal Warning RbConfig Gem JSON YAML
Psych URI Pathname StringIO Tempfile FileUtils ERB OpenStruct Date DateTime Logger Benchmark Timeout Socket
Zlib Digest Base64 SecureRandom CGI Net OptionParser Shellwords Open3 Etc WeakRef Errno Exception
StandardError RuntimeError ArgumentError NotImplementedError TypeError NameError NoMethodError KeyError
IndexError IOError StopIteration RangeError ScriptError LoadError SystemExit Interrupt ENV ARGV STDIN STDOUT
STDERR Forwardable Singleton Observable Ripper Coverage Monitor Find Abbrev PP PrettyPrint Readline
""".split())
# Core-library methods: an unknown receiver calling one of these makes no `missing` stub
# when the repository defines no such method.
CORE_METHODS = frozenset("""
each each_with_index each_with_object map flat_map collect select reject filter find detect inject reduce
sum count size length empty? any? all? none? include? first last push pop shift unshift << concat join
split strip chomp gsub sub match scan start_with? end_with? upcase downcase to_i to_f to_a to_h to_sym
keys values fetch dig merge merge! key? has_key? delete compact flatten uniq sort sort_by min max group_by
partition zip take drop each_slice each_char times upto call read write close exist? present? blank?
try to_json as_json empty nil? == != === =~ [] []= + - * / % <=> equal? eql? sort! map! select! reject!
""".split())


@dataclass(slots=True)
class _Scope:
    end: int
    kind: str  # file | module | class | method
    crefs: tuple[tuple[str, ...], ...]  # lexical constant nesting, innermost last
    source_qn: str
    source_sig: str
    owner: str | None = None  # class / module qn (self's class in instance methods)
    singleton: bool = False  # `class << self` body or a `def self.x`
    vis: str = "public"  # current visibility section (class scopes)
    module_function: bool = False
    method: str = ""  # method name (for super)
    locals: dict[str, list[str]] = field(default_factory=dict)  # var -> class qn candidates


class _Extractor:
    def __init__(self, repo: str, path: str, source: bytes) -> None:
        self.repo, self.path, self.src = repo, path, source
        self.b: Builder  # set by run(): the file's records
        self.comments = Comments(())
        self.scope_of: dict[int, _Scope] = {}
        self.vis_override: dict[int, str] = {}  # method node id -> visibility (`private def x`)
        self.vis_later: dict[tuple[str, str], str] = {}  # (owner, name) -> visibility (`private :x`)
        self.singleton_later: set[tuple[str, str]] = set()  # `private_class_method :x` etc.
        self.ivars: dict[str, dict[str, list[str]]] = {}  # class qn -> @ivar -> class qn candidates
        self.is_test = _is_test_path(path)

    # -- symbols -------------------------------------------------------------------
    def _symbol(self, node: TSNode, kind: str, qn: str, name: str, params: str, parent: str | None,
                vis: str, head_end: int | None = None, per_file: bool = False) -> SymbolRecord:
        # the same opening defined twice: one symbol (Builder.keep)
        return self.b.define(node, kind, qn, name, sig_key=f"{self.path} {params}" if per_file else params,
                             visibility=vis, parent=parent, signature=head_signature(self.src, node, head_end),
                             docstring=self._doc(node))

    def _doc(self, node: TSNode) -> str:
        """`#` comments on the lines right above ``node``."""
        run = self.comments.run_above(node, same_row=False)
        return "\n".join(ts.text(c).lstrip("#").strip() for c in run)[:2000]

    # -- driver --------------------------------------------------------------------
    def run(self) -> FileExtraction:
        root = ts.parse(LANG, self.src).root_node
        self.b = Builder(self.repo, self.path, LANG, self.src, root, is_test=self.is_test)
        fsym = self.b.module(language_kind="program")
        caps = ts.captures(LANG, "tags", root)
        self.comments = Comments(caps.pop("comment", ()))
        events = document_order(caps)
        file_scope = _Scope(len(self.src) + 1, "file", ((),), self.path, fsym.signature_hash)
        define_sweep(events, file_scope, self.scope_of, self._define_event)
        self._apply_late_visibility()
        reference_sweep(events, file_scope, self.scope_of, self._opened, {
            "call": self._call, "bare_parent": self._bare_children, "local": self._local, "super": self._super,
        })
        return self.b.fx

    def _define_event(self, cap: str, node: TSNode, sc: _Scope) -> _Scope | None:
        if cap.startswith("def."):
            return self._define(cap, node, sc)
        if cap == "visibility":
            self._visibility_section(node, sc)
        elif cap == "call":
            self._directive(node, sc)
        elif cap == "ivar":
            self._ivar(node, sc)
        return None

    def _opened(self, node: TSNode, opened: _Scope, outer: _Scope) -> None:
        if opened.kind == "class":
            self._superclass(node, opened, outer)
        elif opened.kind == "method":
            self._params(node, opened)

    # -- definitions ---------------------------------------------------------------
    def _const_segments(self, node: TSNode | None) -> tuple[tuple[str, ...], bool]:
        """(segments, absolute) of a constant path: `A::B` -> (("A", "B"), False)."""
        if node is None:
            return (), False
        if node.type == "constant":
            return (ts.text(node),), False
        if node.type == "scope_resolution":
            scope = node.child_by_field_name("scope")
            name = node.child_by_field_name("name")
            if scope is None:
                return ((ts.text(name),) if name is not None else ()), True
            head, absolute = self._const_segments(scope)
            if not head:
                return (), False
            return head + ((ts.text(name),) if name is not None else ()), absolute
        return (), False

    def _define(self, cap: str, node: TSNode, sc: _Scope) -> _Scope | None:
        if cap in ("def.module", "def.class"):
            segs, absolute = self._const_segments(node.child_by_field_name("name"))
            if not segs:
                return None
            base = () if absolute else sc.crefs[-1]
            qn_segs = base + segs
            qn = "::".join(qn_segs)
            kind = "module" if cap == "def.module" else "class"
            parent = "::".join(qn_segs[:-1]) or self.path
            s = self._symbol(node, kind, qn, segs[-1], "", parent, "public", per_file=True)
            return _Scope(node.end_byte, kind, sc.crefs + (qn_segs,), qn, s.signature_hash, owner=qn)
        if cap == "def.singleton_class":
            value = node.child_by_field_name("value")
            if value is None or value.type != "self" or sc.kind not in ("class", "module"):
                return None
            return _Scope(node.end_byte, sc.kind, sc.crefs, sc.source_qn, sc.source_sig, owner=sc.owner,
                          singleton=True)
        if cap in ("def.method", "def.singleton_method"):
            name = ts.text(node.child_by_field_name("name"))
            if not name:
                return None
            singleton = cap == "def.singleton_method" or sc.singleton or sc.module_function
            if cap == "def.singleton_method":
                obj = node.child_by_field_name("object")
                if obj is not None and obj.type != "self":
                    return None  # def obj.x: a method on some other object
            owner = sc.owner if sc.kind in ("class", "module") else None
            if sc.kind == "method":
                return None  # a def inside a method body: defined when that runs
            params = ts.text(node.child_by_field_name("parameters"))
            vis = self.vis_override.get(node.id, "public" if sc.module_function else sc.vis)
            if name == "initialize" or (owner is None and not singleton):
                vis = "private" if owner is None or name == "initialize" else vis
            own = owner or "Object"
            qn = f"{own}{'.' if singleton else '#'}{name}"
            s = self._symbol(node, "method", qn, name, params, own, vis, per_file=owner is None)
            return _Scope(node.end_byte, "method", sc.crefs, qn, s.signature_hash, owner=own, singleton=singleton,
                          method=name)
        return None

    def _visibility_section(self, node: TSNode, sc: _Scope) -> None:
        body = node.parent
        if body is None or body.type != "body_statement" or sc.kind not in ("class", "module"):
            return
        word = ts.text(node)
        if word == "module_function":
            sc.module_function = True
        else:
            sc.vis = word
            sc.module_function = False

    def _symbol_args(self, node: TSNode) -> list[str]:
        args = node.child_by_field_name("arguments")
        if args is None:
            return []
        out = []
        for a in args.named_children:
            if a.type == "simple_symbol":
                out.append(ts.text(a)[1:])
            elif a.type in ("string", "symbol") or a.type == "delimited_symbol":
                out.append(ts.text(a).strip(":\"'"))
        return out

    def _directive(self, node: TSNode, sc: _Scope) -> None:
        """`private def x`, `private :x`, `attr_reader :x`, `private_class_method :x`."""
        if node.child_by_field_name("receiver") is not None or sc.kind not in ("class", "module"):
            return
        word = ts.text(node.child_by_field_name("method"))
        owner = sc.owner or ""
        if word in ("private", "protected", "public"):
            args = node.child_by_field_name("arguments")
            for a in args.named_children if args is not None else ():
                if a.type in ("method", "singleton_method"):
                    self.vis_override[a.id] = word
            for name in self._symbol_args(node):
                self.vis_later[(owner, name)] = word
        elif word == "private_class_method":
            for name in self._symbol_args(node):
                self.vis_later[(owner, name)] = "private"
        elif word in ATTRS and sc.owner:
            for name in self._symbol_args(node):
                for suffix in ATTRS[word]:
                    qn = f"{sc.owner}{'.' if sc.singleton else '#'}{name}{suffix}"
                    self._symbol(node, "method", qn, name + suffix, "", sc.owner, sc.vis, head_end=node.end_byte)

    def _apply_late_visibility(self) -> None:
        if not self.vis_later:
            return
        for s in self.b.symbols:
            v = self.vis_later.get((s.parent or "", s.name))
            if v is not None and s.kind == "method":
                s.visibility = v

    def _ivar(self, node: TSNode, sc: _Scope) -> None:
        if sc.kind != "method" or sc.owner is None:
            return
        assign = node.parent
        right = assign.child_by_field_name("right") if assign is not None else None
        types = self._constructed(right, sc)
        if types:
            self.ivars.setdefault(sc.owner, {})[ts.text(node)] = types

    # -- names ---------------------------------------------------------------------
    def _const_candidates(self, segs: tuple[str, ...], absolute: bool, sc: _Scope) -> list[str]:
        if absolute:
            return ["::".join(segs)]
        out = ["::".join(c + segs) for c in reversed(sc.crefs)]
        return list(dict.fromkeys(out))

    def _constructed(self, expr: TSNode | None, sc: _Scope) -> list[str]:
        """Class candidates when ``expr`` is `Foo.new(...)` / `A::Foo.new`."""
        if expr is None or expr.type not in ("call", "identifier"):
            return []
        if expr.type == "identifier" or expr.child_by_field_name("receiver") is None:
            # a bare `new` inside a singleton method builds an instance of self
            meth = ts.text(expr) if expr.type == "identifier" else ts.text(expr.child_by_field_name("method"))
            return [sc.owner] if meth == "new" and sc.singleton and sc.owner else []
        if ts.text(expr.child_by_field_name("method")) != "new":
            return []
        segs, absolute = self._const_segments(expr.child_by_field_name("receiver"))
        return self._const_candidates(segs, absolute, sc) if segs else []

    # -- references ----------------------------------------------------------------
    def _ref(self, rtype: str, sc: _Scope, target: str, node: TSNode, cands: list[dict[str, Any]], *,
             name: str | None = None, name_kinds: list[str] | None = None, optional: bool = False,
             source_kind: str = "symbol", **extra: Any) -> None:
        ex = hints(cands, name, name_kinds, optional, extra)
        src_qn, src_sig = (self.path, "") if source_kind == "file" else (sc.source_qn, sc.source_sig)
        self.b.reference(rtype, src_qn, src_sig, target, node, ex, source_kind)

    def _superclass(self, node: TSNode, cls: _Scope, outer: _Scope) -> None:
        sup = node.child_by_field_name("superclass")
        if sup is None or not sup.named_children:
            return
        segs, absolute = self._const_segments(sup.named_children[0])
        if not segs:
            return
        cands = [{"qn": q, "how": "exact"} for q in self._const_candidates(segs, absolute, outer)]
        self._ref(EXTENDS, cls, "::".join(segs), sup, cands)

    def _call(self, node: TSNode, sc: _Scope) -> None:
        mnode = node.child_by_field_name("method")
        if mnode is None or mnode.type == "super":
            return
        meth = ts.text(mnode)
        recv = node.child_by_field_name("receiver")
        if recv is None:
            self._receiverless(node, meth, sc)
            return
        rt = recv.type
        if rt == "self":
            if sc.owner and meth not in BUILTINS:
                self._ref(CALLS, sc, f"self.{meth}", node, [{"owner": sc.owner, "member": meth, "how": "self"}],
                          name=meth, name_kinds=["method"])
            return
        if rt in ("constant", "scope_resolution"):
            segs, absolute = self._const_segments(recv)
            if not segs:
                return
            owners = self._const_candidates(segs, absolute, sc)
            written = f"{'::' if absolute else ''}{'::'.join(segs)}.{meth}"
            core = segs[0] in CORE_CONSTANTS
            if meth == "new":
                self._ref(CALLS, sc, written, node, [{"qn": q, "how": "exact"} for q in owners], optional=core)
                self._ref(CALLS, sc, f"{'::'.join(segs)}#initialize", node,
                          [{"owner": q, "member": "initialize", "how": "exact"} for q in owners], optional=True)
                return
            self._ref(CALLS, sc, written, node, [{"owner": q, "member": meth, "how": "exact"} for q in owners],
                      optional=core)
            return
        owners: list[str] = []
        how = "receiver_type"
        if rt == "identifier":
            rname = ts.text(recv)
            if sc.kind == "method" and rname not in sc.locals:
                self._bare(recv, sc)  # `items.each`: `items` is itself a call on self
            owners = sc.locals.get(rname, [])
        elif rt == "instance_variable" and sc.owner:
            owners = self.ivars.get(sc.owner, {}).get(ts.text(recv), [])
        elif rt == "call":
            owners = self._constructed(recv, sc)
        rtext = ts.text(recv)
        written = f"{rtext}.{meth}" if len(rtext) <= 40 and "\n" not in rtext else f"?.{meth}"
        core = meth in CORE_METHODS or meth in BUILTINS
        if owners:
            self._ref(CALLS, sc, written, node, [{"owner": q, "member": meth, "how": how} for q in owners],
                      optional=core)
            return
        # an unknown receiver: the repository's unique method of that name, else an
        # ambiguous / missing stub; core names (`to_s`, `each`, `call`) on an unknown
        # receiver are almost always core calls, so they take no name fallback at all
        if not core:
            self._ref(CALLS, sc, written, node, [], name=meth, name_kinds=["method"])

    def _receiverless(self, node: TSNode, meth: str, sc: _Scope) -> None:
        if meth in ("require", "require_relative", "load"):
            self._require(node, meth, sc)
            return
        if meth in MIXINS:
            self._mixin(node, sc)
            return
        if meth in BUILTINS:
            return
        # a receiverless call in a class body is a class-level macro (`validates :x`,
        # `has_many :y`) that mostly comes from a framework base class, and top-level
        # code of a spec is the test framework's DSL (`describe`, `it`, `expect`): no stubs
        self._self_call(node, meth, sc, dsl=sc.kind in ("class", "module") or (sc.kind == "file" and self.is_test))

    def _self_call(self, node: TSNode, meth: str, sc: _Scope, dsl: bool = False) -> None:
        owner = sc.owner or "Object"
        cands = [{"owner": owner, "member": meth, "how": "self"}]
        if owner != "Object":
            cands.append({"owner": "Object", "member": meth, "how": "same_module"})
        self._ref(CALLS, sc, meth, node, cands, name=meth, name_kinds=["method"], optional=dsl)

    def _params(self, node: TSNode, sc: _Scope) -> None:
        params = node.child_by_field_name("parameters")
        for p in params.named_children if params is not None else ():
            n = p if p.type == "identifier" else p.child_by_field_name("name")
            if n is not None:
                sc.locals[ts.text(n)] = []

    def _bare_children(self, parent: TSNode, sc: _Scope) -> None:
        if sc.kind != "method":
            return
        if parent.type in ("if", "unless"):
            cond = parent.child_by_field_name("condition")
            if cond is not None and cond.type == "identifier":
                self._bare(cond, sc)
            return
        for c in parent.named_children:
            if c.type == "identifier":
                self._bare(c, sc)

    def _bare(self, node: TSNode, sc: _Scope) -> None:
        if sc.kind != "method":
            return
        name = ts.text(node)
        if name in sc.locals or name in BUILTINS or name in VISIBILITY_WORDS:
            return
        # (no `node.parent` here: tree-sitter finds a parent by walking down from the
        # root, O(depth), which is quadratic on `a + b + c + ...` chains)
        self._self_call(node, name, sc)

    def _local(self, node: TSNode, sc: _Scope) -> None:
        if sc.kind != "method":
            return
        name = ts.text(node)
        parent = node.parent
        types: list[str] = []
        if parent is not None and parent.type == "assignment" and parent.child_by_field_name("left") == node:
            right = parent.child_by_field_name("right")
            types = self._constructed(right, sc)
            if right is not None and right.type == "identifier":
                self._bare(right, sc)  # `sum = subtotal`: the right side is read first
        if name not in sc.locals or types:
            sc.locals[name] = types

    def _super(self, node: TSNode, sc: _Scope) -> None:
        if sc.kind != "method" or not sc.owner or sc.owner == "Object":
            return
        # the superclass is often a library's (StandardError, a framework base): no stub
        self._ref(CALLS, sc, f"super.{sc.method}", node,
                  [{"super_of": sc.owner, "member": sc.method, "how": "self"}], optional=True)

    def _mixin(self, node: TSNode, sc: _Scope) -> None:
        if sc.kind not in ("class", "module") or not sc.owner:
            return
        args = node.child_by_field_name("arguments")
        for a in args.named_children if args is not None else ():
            segs, absolute = self._const_segments(a)
            if not segs:
                continue
            cands = [{"qn": q, "how": "exact"} for q in self._const_candidates(segs, absolute, sc)]
            self._ref(IMPLEMENTS, sc, "::".join(segs), a, cands)

    def _require(self, node: TSNode, meth: str, sc: _Scope) -> None:
        args = node.child_by_field_name("arguments")
        if args is None or not args.named_children:
            return
        arg = args.named_children[0]
        if arg.type != "string" or any(c.type == "interpolation" for c in arg.named_children):
            return
        target = "".join(ts.text(c) for c in arg.named_children if c.type == "string_content")
        if not target:
            return
        rel = target if target.endswith(".rb") else target + ".rb"
        here = posixpath.dirname(self.path)
        cands: list[str] = []
        if meth == "require_relative":
            cands.append(posixpath.normpath(posixpath.join(here, rel)))
        else:
            # the load path: the nearest enclosing lib/ first, then the repository root
            parts = here.split("/") if here else []
            for k in range(len(parts), 0, -1):
                if parts[k - 1] == "lib":
                    cands.append("/".join(parts[:k] + [rel]))
            cands += [f"lib/{rel}", rel]
            if meth == "load":
                cands.insert(0, posixpath.normpath(posixpath.join(here, rel)))
        cands = [c for c in dict.fromkeys(cands) if not c.startswith("..")]
        self._ref(IMPORTS, sc, target, node, [{"path": c, "how": "import"} for c in cands], source_kind="file",
                  names=[target])


def _is_test_path(path: str) -> bool:
    parts = path.split("/")
    base = parts[-1]
    return (any(p in ("spec", "test", "tests") for p in parts[:-1])
            or base.endswith(("_spec.rb", "_test.rb")) or base.startswith("test_"))


def extract(repo: str, path: str, source: bytes) -> FileExtraction:
    """Extract one Ruby file: symbols, IMPORTS (require / require_relative / load),
    CALLS, EXTENDS (superclass), IMPLEMENTS (include / extend / prepend)."""
    return _Extractor(repo, path, source).run()

"""Accuracy audit: the graph's direct callers against an independent text search.

For each audited callable (named, or a seeded random sample), two caller sets:

- **expected** (text): ``name(`` / ``.name(`` call sites found by ``codegraph.audit_text``
  in the repository's files on disk (comments, strings and generated files left out),
  each attributed to its enclosing symbol by the graph's line ranges
  (``GraphStore.nodes_in_files``); for a constructor (``__init__``) the class name is
  searched as well;
- **actual** (graph): ``codegraph.core.impact.callers`` - incoming CALLS edges.

Every disagreement keeps file:line and is classified so a person can judge it:

| verdict | meaning | categories (examples) |
|---|---|---|
| ``text_false_positive`` | text saw a call that cannot reach the target | name collision (the graph linked it to another symbol), external call, qualified call naming another owner, bare call of a method, call on a builtin value, parameter or builtin of that name |
| ``graph_miss`` | a call that may reach the target and has no edge | dispatch through a base class, unresolved qualified call, class call without ``__init__`` edge, unparsed file |
| ``flagged`` | the graph saw the call but could not pick among several candidates | ambiguous stub (``impact`` lists it under ``unresolved``) |
| ``text_miss`` | the graph is right, plain text cannot see it | import alias, bare decorator, inherited constructor, implicit protocol call |
| ``attribution`` | both see the call at the same file:line but attribute it to different enclosing symbols | default values, decorators |
| ``graph_false_positive`` | an edge whose evidence line does not name the target | linked by name only |
| ``unclear`` | neither rule applies: judge by hand | |

Figures per language (``Figures.summary``): ``raw`` precision/recall take the text set as
the truth; ``judged`` ones drop text false positives, count text misses and attribution
as hits, count ``unclear`` against the graph (conservative) and report flagged callers
apart (also weighted 1/candidates). Micro (callers summed) and macro (per callable,
averaged) figures are both given; neither is ground truth. HTTP links (CALLS_HTTP to
endpoints) are not audited yet.
"""

from __future__ import annotations

import os
import random
import re
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from codegraph.audit_text import FAMILY, TextHit, call_pattern, find_calls, generated_reason, strip_code
from codegraph.core.errors import BadInput, TargetNotFound
from codegraph.core.graph_store import GraphStore
from codegraph.core.impact import callers
from codegraph.core.models import (
    CALLS,
    EXTENDS,
    FILE,
    STUB,
    SYMBOL,
    Node,
    Step,
    file_hash,
    file_uid,
    repo_uid,
    uid_kind,
)
from codegraph.core.paths import contained
from codegraph.indexer.workers import worker_pool

CALLABLE_KINDS = frozenset({"function", "method", "constructor"})
# How extractors name constructors (Python, JS/TS, JVM bytecode style, C#).
CONSTRUCTOR_NAMES = frozenset({"__init__", "constructor", "<init>", ".ctor"})
# Symbols that cannot enclose a call site (a text hit inside one belongs to its parent).
_NOT_ENCLOSING = frozenset({"field", "variable"})
# Called implicitly by the language: a text search for ``name(`` cannot see those calls.
_IMPLICIT = re.compile(r"^__(enter|exit|aenter|aexit|iter|next|aiter|anext|call|getitem|setitem|delitem|contains|len|"
                       r"bool|eq|ne|lt|le|gt|ge|hash|add|sub|mul|truediv|floordiv|mod|pow|and|or|xor|neg|pos|invert|"
                       r"str|repr|format|get|set|delete|set_name|init_subclass|class_getitem|getattr|getattribute|"
                       r"setattr|delattr|del|new|post_init|missing|fspath|index|int|float|complex|bytes|round|"
                       r"reduce|reduce_ex|getstate|setstate|copy|deepcopy|await|radd|rsub|rmul|iadd|isub|imul)__$")
# Receivers that are builtin types: ``object.__init__(self)``, ``str.join(...)``.
_PY_BUILTIN_RECEIVERS = frozenset(
    "object str bytes bytearray int float complex bool list dict set frozenset tuple type BaseException "
    "Exception dict.fromkeys".split())
VERDICTS = ("text_false_positive", "graph_miss", "flagged", "text_miss", "attribution", "graph_false_positive",
            "unclear")
NOTICE = ("Text search is a second witness, not ground truth: read the disagreements. HTTP links "
          "(CALLS_HTTP to endpoints) are not audited yet; that share will be added when endpoint "
          "extraction exists for the audited languages.")
MAX_SITES = 5  # per disagreement, in answers
POOL_MIN_FILES = 64  # below this, stripping in-process is faster than starting workers


@dataclass(slots=True)
class Site:
    """One piece of evidence: file:line, the caller it is attributed to, the line's text."""

    file: str
    line: int
    caller: str
    snippet: str = ""
    receiver: str = ""
    resolution: str = ""


@dataclass(slots=True)
class Disagreement:
    """A caller one side has and the other lacks. ``side``: ``missed`` (text only) or
    ``extra`` (graph only). ``verdict`` is one of VERDICTS; ``category`` a short label;
    ``detail`` names what the graph did at that line."""

    side: str
    caller: str
    caller_uid: str
    verdict: str
    category: str
    detail: str
    sites: list[Site]
    candidates: int = 0  # for a flagged (ambiguous) call: how many symbols it may reach


@dataclass(slots=True)
class CallableAudit:
    """One audited callable. Counts are callers (enclosing symbols), not call sites."""

    target: str
    uid: str
    name: str
    kind: str
    language: str
    repo: str
    file: str
    line: int
    expected: int = 0
    actual: int = 0
    matched: int = 0
    matched_callers: list[str] = field(default_factory=list)
    missed: list[Disagreement] = field(default_factory=list)
    extra: list[Disagreement] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    resolutions: dict[str, int] = field(default_factory=dict)


def judged_counts(matched: int, disagreements: list[Disagreement]) -> dict[str, int]:
    """TP / FP / FN / flagged from the matched callers and the classified disagreements:
    TP = matched + graph-only callers judged text misses or attribution; FP = graph-only
    callers judged graph false positives or unclear; FN = text-only callers judged graph
    misses or unclear; flagged = text-only callers the graph reports as ambiguous stubs."""
    c = Counter(f"{d.side}:{d.verdict}" for d in disagreements)
    return {"true_positive": matched + c["extra:text_miss"] + c["extra:attribution"],
            "false_positive": c["extra:graph_false_positive"] + c["extra:unclear"],
            "false_negative": c["missed:graph_miss"] + c["missed:unclear"],
            "flagged": c["missed:flagged"]}


def flagged_expected(disagreements: list[Disagreement]) -> float:
    """Flagged callers weighted by 1/candidates: how many would reach the target if each
    ambiguous call went to one of its candidates with equal odds."""
    return sum(1 / max(d.candidates, 1) for d in disagreements if d.verdict == "flagged")


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


@dataclass(slots=True)
class Figures:
    """Figures for one language. Micro figures sum callers over all audited callables
    (common names weigh most); macro figures average the per-callable ratios over the
    callables where the ratio is defined (the typical callable)."""

    callables: int = 0
    expected: int = 0
    actual: int = 0
    matched: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)  # "missed:graph_miss" -> n
    judged: dict[str, int] = field(default_factory=dict)
    flagged_expected: float = 0.0
    per_callable: list[dict[str, int]] = field(default_factory=list)

    def add(self, r: CallableAudit) -> None:
        self.callables += 1
        self.expected += r.expected
        self.actual += r.actual
        self.matched += r.matched
        for d in r.missed + r.extra:
            key = f"{d.side}:{d.verdict}"
            self.verdicts[key] = self.verdicts.get(key, 0) + 1
        j = judged_counts(r.matched, r.missed + r.extra)
        self.flagged_expected += flagged_expected(r.missed)
        for k, v in j.items():
            self.judged[k] = self.judged.get(k, 0) + v
        self.per_callable.append(j | {"expected": r.expected, "actual": r.actual, "matched": r.matched})

    def summary(self) -> dict[str, Any]:
        """Ratios are fractions 0..1, None when undefined.

        ``raw_*``: text taken as the truth. ``precision`` = TP/(TP+FP); ``recall`` =
        TP/(TP+FN) (flagged stubs left out: the graph reports them as unresolved);
        ``recall_flagged_as_missed`` counts them as misses; ``flagged_share`` =
        flagged/(TP+FN+flagged); ``flagged_expected`` weighs each flagged caller by
        1/candidates and ``recall_flagged_expected`` counts that many as misses.
        ``macro_*``: the same per callable, averaged."""
        j = {k: self.judged.get(k, 0) for k in ("true_positive", "false_positive", "false_negative", "flagged")}
        tp, fp, fn, fl = j["true_positive"], j["false_positive"], j["false_negative"], j["flagged"]

        def mean(vals: list[float | None]) -> float | None:
            xs = [v for v in vals if v is not None]
            return round(sum(xs) / len(xs), 4) if xs else None

        pc = self.per_callable
        return {
            "callables": self.callables, "expected": self.expected, "actual": self.actual, "matched": self.matched,
            "raw_precision": _ratio(self.matched, self.actual), "raw_recall": _ratio(self.matched, self.expected),
            "precision": _ratio(tp, tp + fp), "recall": _ratio(tp, tp + fn),
            "recall_flagged_as_missed": _ratio(tp, tp + fn + fl), "flagged_share": _ratio(fl, tp + fn + fl),
            "flagged_expected": round(self.flagged_expected, 2),
            "recall_flagged_expected": (round(tp / (tp + fn + self.flagged_expected), 4)
                                        if tp + fn + self.flagged_expected else None),
            "macro_precision": mean([_ratio(c["true_positive"], c["true_positive"] + c["false_positive"]) for c in pc]),
            "macro_recall": mean([_ratio(c["true_positive"], c["true_positive"] + c["false_negative"]) for c in pc]),
            "macro_raw_precision": mean([_ratio(c["matched"], c["actual"]) for c in pc]),
            "macro_raw_recall": mean([_ratio(c["matched"], c["expected"]) for c in pc]),
            "judged": j, "verdicts": dict(sorted(self.verdicts.items())),
        }


@dataclass(slots=True)
class AuditReport:
    repos: list[str]
    callables: list[CallableAudit]
    languages: dict[str, Figures]
    categories: dict[str, int]
    files: dict[str, int]
    steps: list[Step]
    sample: dict[str, Any] | None = None
    notice: str = NOTICE

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["languages"] = {k: v.summary() for k, v in self.languages.items()}
        for c, r in zip(d["callables"], self.callables, strict=True):
            c["judged"] = judged_counts(r.matched, r.missed + r.extra)
        return d


# -- files on disk ------------------------------------------------------------------------

content_hash = file_hash  # a file's hash as the indexer stores it (models.file_hash)


@dataclass(slots=True)
class _File:
    path: str
    language: str
    coverage: str
    text: str
    is_test: bool = False
    stripped: str | None = None
    method: str = ""


class _Corpus:
    """The repo's indexed files as they are on disk, by language family. Files whose
    content changed since indexing (hash differs), generated files and unreadable ones
    are left out of both sides and counted."""

    def __init__(self, store: GraphStore, repo: str, families: set[str]) -> None:
        repo_node = store.get_nodes([repo_uid(repo)]).get(repo_uid(repo))
        if repo_node is None:
            raise TargetNotFound(f"no repository named {repo!r} in the graph")
        root = Path(repo_node.props.get("path") or "")
        if not root.is_dir():
            raise BadInput(f"repository {repo!r} was indexed from {root}, which is not a folder on this machine")
        self.repo = repo
        self.root = root
        self.families = set(families)
        self.files: dict[str, _File] = {}
        self.excluded: dict[str, str] = {}
        self.counts: Counter[str] = Counter()
        offset = 0
        while True:
            page = store.nodes_by_label(FILE, repo, limit=5000, offset=offset)
            for n in page:
                p = n.props
                lang = p.get("language", "")
                if FAMILY.get(lang) not in families:
                    continue
                path = p.get("path", "")
                inside = contained(root, path)  # a graph path may not lead out of the checkout
                if inside is None:
                    self._exclude(path, "outside the checkout")
                    continue
                try:
                    data = inside.read_bytes()
                except OSError:
                    self._exclude(path, "missing or unreadable on disk")
                    continue
                if p.get("content_hash") and content_hash(data) != p["content_hash"]:
                    self._exclude(path, "changed since indexing")
                    continue
                text = data.decode("utf-8", "replace")
                if generated_reason(path, text):
                    self._exclude(path, "generated")
                    continue
                self.files[path] = _File(path, lang, p.get("coverage_status", "full"), text, bool(p.get("is_test")))
                self.counts["scanned"] += 1
            if len(page) < 5000:
                break
            offset += 5000

    def _exclude(self, path: str, why: str) -> None:
        self.excluded[path] = why
        self.counts[f"excluded: {why}"] += 1

    def stripped(self, f: _File) -> str:
        if f.stripped is None:
            f.stripped, f.method = strip_code(f.text, f.language)
            self.counts[f"stripped by {f.method}"] += 1
        return f.stripped

    def strip_all(self, files: list[_File]) -> None:
        """Strip many files at once, in a process pool when there are enough of them
        (Python's tokenize is pure Python: about 0.1 s per 1,000-line file)."""
        todo = [f for f in files if f.stripped is None]
        workers = min(os.cpu_count() or 1, 8)
        if len(todo) < POOL_MIN_FILES or workers < 2:
            for f in todo:
                self.stripped(f)
            return
        with worker_pool(workers) as pool:
            for f, (text, method) in zip(todo, pool.map(strip_code, [f.text for f in todo], [f.language for f in todo],
                                                        chunksize=8), strict=True):
                f.stripped, f.method = text, method
                self.counts[f"stripped by {method}"] += 1

    def line(self, path: str, line: int, stripped: bool = False) -> str | None:
        f = self.files.get(path)
        if f is None:
            return None
        lines = (self.stripped(f) if stripped else f.text).split("\n")
        return lines[line - 1] if 0 < line <= len(lines) else None


# -- the audit ----------------------------------------------------------------------------

_FLOW_RESOLUTIONS = {
    "value_flow": "a name, container element, attribute or return value holds it",
    "parameter": "passed as an argument and called by the callee",
    "module_alias": "a module bound to another name (os.path is posixpath)",
    "protocol": "an implicit call (for -> __iter__, with -> __enter__)",
    "return_type": "the receiver is typed by a return annotation",
}


def _callable_nodes(store: GraphStore, repo: str | None) -> list[Node]:
    out: list[Node] = []
    offset = 0
    while True:
        page = store.nodes_by_label(SYMBOL, repo, limit=5000, offset=offset)
        # Lambdas have no name a text search could find: not audited as callables.
        out.extend(n for n in page if n.props.get("kind") in CALLABLE_KINDS and n.props.get("language_kind") != "lambda")
        if len(page) < 5000:
            return out
        offset += 5000


def _is_constructor(n: Node) -> bool:
    p = n.props
    parent_last = re.split(r"[.:#/]+", p.get("parent") or "")[-1]
    return p.get("kind") == "constructor" or p.get("name") in CONSTRUCTOR_NAMES or (
        bool(parent_last) and p.get("name") == parent_last and p.get("language") != "python")


def _class_name(n: Node) -> str | None:
    parent = n.props.get("parent") or ""
    last = re.split(r"[.:#/]+", parent)[-1] if parent else ""
    return last or None


def _enclosing(symbols: list[Node], line: int) -> Node | None:
    """Innermost symbol (by line range) containing ``line``; fields/variables skipped."""
    best: Node | None = None
    for s in symbols:
        p = s.props
        if p.get("kind") in _NOT_ENCLOSING:
            continue
        lo, hi = int(p.get("line") or 0), int(p.get("end_line") or 0)
        if lo <= line <= hi and (best is None or lo > int(best.props["line"]) or (
                lo == int(best.props["line"]) and hi < int(best.props["end_line"]))):
            best = s
    return best


def _is_declaration_family(language: str) -> bool:
    """Families whose declarations look like calls (no keyword before the name)."""
    return FAMILY.get(language) in ("jvm", "csharp", "c", "js", "php")


def _declarations(name: str, hits: list[TextHit], file_syms: list[Node]) -> set[int]:
    """ids of hits that are C-like declarations (``void run(``, ``Foo(int x) {``): the
    first receiver-less hit of ``name`` inside a symbol of that name, in its first lines.
    Python and other keyword languages are handled by the text search itself."""
    lang = file_syms[0].props.get("language", "") if file_syms else ""
    if not _is_declaration_family(lang):
        return set()
    bare = sorted((h for h in hits if not h.receiver), key=lambda h: (h.line, h.col))
    out: set[int] = set()
    for s in file_syms:
        p = s.props
        if p.get("name") != name:
            continue
        lo, hi = int(p.get("line") or 0), int(p.get("end_line") or 0)
        first = next((h for h in bare if lo <= h.line <= hi), None)
        if first is not None and first.line <= lo + 5:
            out.add(id(first))
    return out


class _Auditor:
    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self.module_exists: dict[tuple[str, str], bool] = {}
        self.bases_cache: dict[tuple[str, str], set[str]] = {}
        self.kinds: dict[tuple[str, str], str] = {}
        self.last_candidates = 0  # set by classify_missed for a flagged site
        self.subclass_cache: dict[tuple[str, str, str], bool] = {}
        self.corpora: dict[str, _Corpus] = {}
        self.read_ms: dict[str, float] = {}

    def corpus(self, repo: str, families: set[str]) -> _Corpus:
        """The repo's files of ``families`` on disk, read once per audit."""
        c = self.corpora.get(repo)
        if c is None or not families <= c.families:
            t = time.perf_counter()
            c = _Corpus(self.store, repo, families | (c.families if c else set()))
            self.corpora[repo] = c
            self.read_ms[repo] = _ms(t)
        return c

    # ---- text side ----
    def text_sites(self, corpus: _Corpus, targets: list[Node]) -> dict[str, list[tuple[TextHit, Node | None]]]:
        """name -> text hits in the corpus with their enclosing symbol (None: file level)."""
        by_family: dict[str, set[str]] = defaultdict(set)
        for t in targets:
            fam = FAMILY.get(t.props.get("language", ""), "")
            by_family[fam].add(t.props["name"])
            if _is_constructor(t) and _class_name(t):
                by_family[fam].add(_class_name(t) or "")
        hits: dict[str, list[TextHit]] = defaultdict(list)
        for fam, names in by_family.items():
            names.discard("")
            if not names:
                continue
            files = [f for f in corpus.files.values() if FAMILY.get(f.language) == fam]
            if not files:
                continue
            pat = call_pattern(names, files[0].language)
            todo = [f for f in files if pat.search(f.text)]  # cheap pre-filter on the raw text
            corpus.strip_all(todo)
            for f in todo:
                for h in find_calls(f.path, f.text, corpus.stripped(f), f.language, pat):
                    hits[h.name].append(h)
        files_hit = sorted({h.file for lst in hits.values() for h in lst})
        syms = self.store.nodes_in_files(corpus.repo, files_hit) if files_hit else {}
        out: dict[str, list[tuple[TextHit, Node | None]]] = {}
        for name, lst in hits.items():
            per_file: dict[str, list[TextHit]] = defaultdict(list)
            for h in lst:
                per_file[h.file].append(h)
            rows = []
            for path, file_hits in per_file.items():
                file_syms = syms.get(path, [])
                decl = _declarations(name, file_hits, file_syms)
                rows.extend((h, _enclosing(file_syms, h.line)) for h in file_hits if id(h) not in decl)
            out[name] = rows
        return out

    # ---- graph side helpers ----
    def _module_in_repo(self, repo: str, root: str) -> bool:
        key = (repo, root)
        if key not in self.module_exists:
            found = self.store.symbols_by_qualified_name([root], repo).get(root, [])
            self.module_exists[key] = any(n.props.get("kind") in ("module", "namespace", "package") for n in found)
        return self.module_exists[key]

    def _bases(self, target: Node) -> set[str]:
        """Qualified names of the base classes of the target's class (EXTENDS, transitive)."""
        parent = target.props.get("parent") or ""
        if (target.repo, parent) in self.bases_cache:
            return self.bases_cache[(target.repo, parent)]
        cls = [n for n in self.store.symbols_by_qualified_name([parent], target.repo).get(parent, [])
               if n.props.get("kind") not in CALLABLE_KINDS]
        seen: set[str] = set()
        frontier = [n.uid for n in cls]
        for _ in range(12):
            if not frontier:
                break
            nxt = []
            for lst in self.store.neighbours(frontier, "out", [EXTENDS]).values():
                for h in lst:
                    qn = h.node.props.get("qualified_name")
                    if h.node.label == SYMBOL and qn and qn not in seen:
                        seen.add(qn)
                        nxt.append(h.node.uid)
            frontier = nxt
        self.bases_cache[(target.repo, parent)] = seen
        return seen

    # ---- classification ----
    def _kind_of(self, repo: str, qn: str) -> str:
        """Kind of the symbol ``qn`` (first match), "" when unknown; cached."""
        if (repo, qn) not in self.kinds:
            found = self.store.symbols_by_qualified_name([qn], repo).get(qn, []) if qn else []
            self.kinds[(repo, qn)] = found[0].props.get("kind", "") if found else ""
        return self.kinds[(repo, qn)]

    def _is_class(self, repo: str, name: str) -> bool:
        """True when some class of the repo is called ``name``; cached."""
        key = (repo, "class:" + name)
        if key not in self.kinds:
            found = self.store.symbols_by_name([name], repo).get(name, []) if name.isidentifier() else []
            self.kinds[key] = "class" if any(n.props.get("kind") in ("class", "interface", "struct") for n in found) else ""
        return self.kinds[key] == "class"

    def _subclass_of(self, repo: str, class_name: str, base_qn: str) -> bool:
        """True when a class named ``class_name`` extends ``base_qn`` (EXTENDS, transitive)."""
        key = (repo, class_name, base_qn)
        if key not in self.subclass_cache:
            found = False
            start = [n for n in self.store.symbols_by_name([class_name], repo).get(class_name, [])
                     if n.props.get("kind") not in CALLABLE_KINDS]
            frontier, seen = [n.uid for n in start], set()
            for _ in range(12):
                if not frontier or found:
                    break
                nxt = []
                for lst in self.store.neighbours(frontier, "out", [EXTENDS]).values():
                    for h in lst:
                        if h.node.props.get("qualified_name") == base_qn:
                            found = True
                        if h.node.uid not in seen:
                            seen.add(h.node.uid)
                            nxt.append(h.node.uid)
                frontier = nxt
            self.subclass_cache[key] = found
        return self.subclass_cache[key]

    def classify_missed(self, target: Node, site: TextHit, caller_uid: str, calls_at: dict[tuple[str, int], list[Any]],
                        target_edge_sites: dict[tuple[str, int], str], corpus: _Corpus) -> tuple[str, str, str]:
        """(verdict, category, detail) for one text-only call site."""
        p = target.props
        name, lang, kind = p["name"], p.get("language", ""), p.get("kind", "")
        parent = p.get("parent") or ""
        is_python = FAMILY.get(lang) == "python"
        other = target_edge_sites.get((site.file, site.line))
        if other is not None:
            return "attribution", "graph attributes the call to another symbol", f"edge from {other}"
        constructor_alias = site.name != name
        if is_python and not constructor_alias:
            # What Python's scoping makes impossible, whatever the graph says.
            if kind == "method" and not site.receiver:
                return "text_false_positive", "bare call cannot reach a method", "a method needs a receiver"
            if kind == "function" and site.receiver and self._kind_of(target.repo, parent) in CALLABLE_KINDS:
                return ("text_false_positive", "attribute call cannot reach a nested function",
                        f"{name} is local to {parent}")
            if kind == "function" and site.receiver in ("self", "cls", "super()"):
                return "text_false_positive", "self call cannot reach a function", f"receiver {site.receiver}"
        linked = [h for h in calls_at.get((caller_uid, site.line), [])
                  if _last(h.node.props.get("target_identifier") or h.node.props.get("qualified_name") or "") == site.name]
        for h in linked:
            n = h.node
            if n.label == SYMBOL:
                qn = n.props.get("qualified_name", "")
                if constructor_alias and qn == parent:
                    continue  # the class itself; its __init__ edge is looked for below
                linked_owner = n.props.get("parent") or ""
                # super().m() and Class.m(self) name the implementation: no dispatch.
                virtual = site.receiver != "super()" and not self._is_class(target.repo, _last(site.receiver))
                if not constructor_alias and virtual and linked_owner in self._bases(target):
                    return ("graph_miss", "dispatch through a base class",
                            f"linked to base method {qn}; on an instance of {parent} the override runs")
                return "text_false_positive", "name collision", f"linked to {qn} ({h.edge.resolution})"
        for h in linked:
            n = h.node
            if n.label != STUB:
                continue
            ti = n.props.get("target_identifier", "")
            if n.props.get("reason") == "ambiguous":
                cands = n.props.get("candidates") or []
                count = int(n.props.get("candidate_count") or 0)
                if p.get("qualified_name") in cands or count > len(cands):
                    self.last_candidates = max(count, 1)
                    return ("flagged", "ambiguous stub",
                            f"stub {ti!r}: {count} candidates, none picked (impact lists it under unresolved)")
                return "text_false_positive", "name collision", f"ambiguous stub {ti!r} among other symbols"
            if "." in ti or "::" in ti:
                owner = ti[:max(ti.rfind("."), ti.rfind("::"))]
                own_names = {_last(parent)} | ({_last(parent.rsplit(".", 1)[0])} if constructor_alias else set())
                if _last(owner) in own_names or owner == parent:
                    return "graph_miss", "unresolved qualified call", f"missing stub {ti!r}"
                root = re.split(r"\.|::", ti)[0]
                if self._module_in_repo(target.repo, root):
                    return ("text_false_positive", "qualified call names another owner",
                            f"missing stub {ti!r}: owner {owner} is not {parent}")
                return "text_false_positive", "external call", f"missing stub {ti!r} (not in the repo)"
            return "graph_miss", "unresolved name", f"missing stub {ti!r}"
        if constructor_alias and any(h.node.label == SYMBOL for h in linked):
            return "graph_miss", "class call without __init__ edge", f"linked to class {parent} only"
        f = corpus.files.get(site.file)
        if f is not None and f.coverage in ("partial", "error"):
            return "graph_miss", "file only partly parsed", f"coverage {f.coverage}"
        if is_python:
            if site.receiver == "super()":
                return ("text_false_positive", "super() into a base outside the repo",
                        "no reference recorded: the class's bases are builtins or external")
            if site.receiver in _PY_BUILTIN_RECEIVERS or site.receiver in (")", "]"):
                return ("text_false_positive", "no reference recorded (builtin receiver)",
                        f"receiver {site.receiver!r}: a builtin type or the value of a call/subscript")
            if site.receiver:
                # The extractor's design, not something the text can check: say so apart.
                return ("text_false_positive", "skipped by design (builtin value or builtin method name)",
                        "no reference recorded: the extractor skips builtin method names (encode, append, "
                        "items...) on receivers of unknown type and calls on builtin-typed values")
            return ("text_false_positive", "local or builtin name",
                    "no reference recorded: a parameter, local variable or builtin of that name")
        return "graph_miss", "no reference recorded", "dynamic or untyped receiver"

    def classify_extra(self, target: Node, site: Site, corpus: _Corpus,
                       text_by_line: dict[tuple[str, int], str]) -> tuple[str, str, str]:
        """(verdict, category, detail) for one graph-only edge."""
        name = target.props["name"]
        other = text_by_line.get((site.file, site.line))
        if other is not None:
            return "attribution", "text attributes the call to another symbol", f"text puts it in {other}"
        orig = corpus.line(site.file, site.line)
        if orig is None:
            return "graph_false_positive", "evidence line not in the file", "line beyond the end of the file"
        if site.resolution in _FLOW_RESOLUTIONS:
            # Called through a value the resolver followed (a variable, container, return
            # value, parameter, module alias, protocol): text search by name cannot see it.
            return "text_miss", f"called through a value ({site.resolution})", _FLOW_RESOLUTIONS[site.resolution]
        stripped = corpus.line(site.file, site.line, stripped=True) or ""
        names = {name} | ({_class_name(target) or ""} if _is_constructor(target) else set())
        names.discard("")
        word = re.compile(r"(?<![\w$])(" + "|".join(re.escape(n) for n in names) + r")(?![\w$])")
        if word.search(stripped):
            if re.search(r"@\s*[\w.]*(?<![\w$])(" + "|".join(re.escape(n) for n in names) + r")\s*$", stripped.strip()):
                return "text_miss", "bare decorator", "a decorator without parentheses is a call"
            return "unclear", "reference without call syntax", "the name is used as a value here (judge)"
        if word.search(orig):
            return "unclear", "inside a string or comment (per the text tokenizer)", "check the tokenizer or the extractor"
        if _IMPLICIT.match(name) and not _is_constructor(target):
            return "text_miss", "implicit call (protocol method)", "called by the language, not by name"
        if _is_constructor(target):
            for m in re.finditer(r"(?<![\w$])([A-Za-z_$][\w$]*)\s*\(", stripped):
                if self._subclass_of(target.repo, m.group(1), target.props.get("parent") or ""):
                    return ("text_miss", "constructor of a subclass (inherited)",
                            f"{m.group(1)}(...) runs the inherited {target.props.get('parent')}.{name}")
        if site.resolution in ("import", "exact"):
            alias = re.search(r"\b" + re.escape(name) + r"\s+as\s+(\w+)", corpus.files[site.file].text) \
                if site.file in corpus.files else None
            return "text_miss", "import alias", f"called as {alias.group(1)}" if alias else "called through an alias"
        if site.resolution in ("unique_name", "overload"):
            return "graph_false_positive", "linked by name, name not at the evidence line", f"resolution {site.resolution}"
        return "unclear", "name not at the evidence line", f"resolution {site.resolution or 'n/a'}"

    # ---- one repo ----
    def audit_repo(self, repo: str, targets: list[Node], steps: list[Step]) -> list[CallableAudit]:
        families = {FAMILY.get(n.props.get("language", ""), "") for n in targets}
        corpus = self.corpus(repo, families)
        if repo in self.read_ms:
            steps.append(Step(f"read files ({repo})", self.read_ms.pop(repo), f"{corpus.counts['scanned']} files"))
        t = time.perf_counter()
        live = [n for n in targets if n.props.get("file") in corpus.files]
        sites = self.text_sites(corpus, live)
        steps.append(Step(f"text search ({repo})", _ms(t), f"{sum(len(v) for v in sites.values())} call sites"))
        t = time.perf_counter()
        results = [self.audit_one(n, sites, corpus) for n in live]
        for n in targets:
            if n.props.get("file") not in corpus.files:
                res = _blank_audit(n)
                why = corpus.excluded.get(n.props.get("file", ""), "not scanned")
                res.skipped[f"target file excluded: {why}"] = 1
                results.append(res)
        steps.append(Step(f"graph callers and compare ({repo})", _ms(t), f"{len(live)} callables"))
        return results

    def audit_one(self, target: Node, sites: dict[str, list[tuple[TextHit, Node | None]]], corpus: _Corpus) -> CallableAudit:
        p = target.props
        res = _blank_audit(target)
        skipped: Counter[str] = Counter()
        own = {n.uid for n in self.store.symbols_by_qualified_name([p["qualified_name"]], target.repo)
               .get(p["qualified_name"], [])} | {target.uid}

        # Graph side: direct callers (CALLS), all of them.
        graph = callers(self.store, p["qualified_name"], repo=target.repo, limit=1_000_000)
        actual: dict[str, list[Site]] = defaultdict(list)
        actual_names: dict[str, str] = {}
        target_edge_sites: dict[tuple[str, int], str] = {}
        resolutions: Counter[str] = Counter()
        for c in graph.callers:
            if c.evidence_file not in corpus.files:
                skipped["graph caller in an excluded file"] += 1
                continue
            snippet = (corpus.line(c.evidence_file, c.evidence_line) or "").strip()[:200]
            actual[c.node.uid].append(Site(c.evidence_file, c.evidence_line, c.node.qualified_name, snippet,
                                           resolution=c.resolution))
            actual_names[c.node.uid] = c.node.qualified_name
            target_edge_sites[(c.evidence_file, c.evidence_line)] = c.node.qualified_name
            resolutions[c.resolution] += 1

        # Text side.
        expected: dict[str, list[TextHit]] = defaultdict(list)
        expected_names: dict[str, str] = {}
        names = [p["name"]] + ([_class_name(target) or ""] if _is_constructor(target) else [])
        for nm in dict.fromkeys(n for n in names if n):
            for h, enc in sites.get(nm, []):
                if nm != p["name"] and h.receiver and h.receiver not in ("new",):
                    # ``x.ClassName(`` is a nested class or module attribute, still a constructor
                    pass
                uid = enc.uid if enc is not None else file_uid(target.repo, h.file)
                if uid in own:
                    skipped["recursive call (the graph keeps no self-edges)"] += 1
                    continue
                expected[uid].append(h)
                expected_names[uid] = enc.props.get("qualified_name", h.file) if enc is not None else h.file

        res.expected, res.actual = len(expected), len(actual)
        matched = sorted(set(expected) & set(actual))
        res.matched = len(matched)
        res.matched_callers = sorted(actual_names[u] for u in matched)
        res.resolutions = dict(resolutions)

        # Classify text-only callers.
        missed_uids = sorted(set(expected) - set(actual))
        calls_at: dict[tuple[str, int], list[Any]] = defaultdict(list)
        if missed_uids:
            for src, lst in self.store.neighbours([u for u in missed_uids if uid_kind(u) != "file"],
                                                  "out", [CALLS]).items():
                for h in lst:
                    calls_at[(src, h.edge.line)].append(h)
        order = {v: i for i, v in enumerate(VERDICTS)}
        rank = {"graph_miss": 0, "unclear": 1, "flagged": 2, "attribution": 3, "text_false_positive": 4}
        for uid in missed_uids:
            hits = expected[uid]
            judged = []
            for h in hits:
                self.last_candidates = 0
                verdict, category, detail = self.classify_missed(target, h, uid, calls_at, target_edge_sites, corpus)
                judged.append(((verdict, category, detail, self.last_candidates), h))
            judged.sort(key=lambda x: (rank.get(x[0][0], 9), x[1].line))
            (verdict, category, detail, cands), _ = judged[0]
            res.missed.append(Disagreement(
                "missed", expected_names[uid], uid, verdict, category, detail,
                [Site(h.file, h.line, expected_names[uid], h.snippet, h.receiver) for _, h in judged[:MAX_SITES]],
                cands))

        # Classify graph-only callers.
        text_by_line = {(h.file, h.line): expected_names[u] for u, lst in expected.items() for h in lst}
        rank_x = {"unclear": 0, "graph_false_positive": 1, "attribution": 2, "text_miss": 3}
        for uid in sorted(set(actual) - set(expected)):
            ev = actual[uid]
            judged_x = [(self.classify_extra(target, s, corpus, text_by_line), s) for s in ev]
            judged_x.sort(key=lambda x: (rank_x.get(x[0][0], 9), x[1].line))
            (verdict, category, detail), _ = judged_x[0]
            res.extra.append(Disagreement("extra", actual_names[uid], uid, verdict, category, detail,
                                          [s for _, s in judged_x[:MAX_SITES]]))
        res.missed.sort(key=lambda d: (order[d.verdict], d.caller))
        res.extra.sort(key=lambda d: (order[d.verdict], d.caller))
        res.skipped = dict(skipped)
        return res


def _last(identifier: str) -> str:
    return re.split(r"\.|::|#|/", identifier)[-1]


def _ms(t: float) -> float:
    return round((time.perf_counter() - t) * 1000, 2)


def _blank_audit(n: Node) -> CallableAudit:
    p = n.props
    return CallableAudit(target=p.get("qualified_name", ""), uid=n.uid, name=p.get("name", ""), kind=p.get("kind", ""),
                         language=p.get("language", ""), repo=n.repo, file=p.get("file", ""), line=int(p.get("line") or 0))


def resolve_callables(store: GraphStore, names: list[str], repo: str | None) -> list[Node]:
    """Callable symbols the given targets name (qualified name, suffix or bare name, as
    in ``codegraph impact``); one per (repo, qualified name). Raises TargetNotFound."""
    from codegraph.core.targets import resolve_target

    out: dict[tuple[str, str], Node] = {}
    for text in names:
        found = [n for n in resolve_target(store, text, repo) if n.label == SYMBOL]
        nodes = [n for n in found if n.props.get("kind") in CALLABLE_KINDS]
        if not nodes:
            kinds = sorted({n.props.get("kind", "?") for n in found})
            raise TargetNotFound(f"{text!r} names no function or method (found kinds: {', '.join(kinds) or 'none'})")
        for n in nodes:
            out.setdefault((n.repo, n.props["qualified_name"]), n)
    return list(out.values())


def sample_callables(store: GraphStore, n: int, seed: int, repo: str | None = None,
                     language: str | None = None, auditor: _Auditor | None = None,
                     include_tests: bool = True) -> list[Node]:
    """``n`` callables drawn without replacement by ``random.Random(seed)`` from every
    function/method of ``repo`` (all repos if None) whose file the audit can read (on
    disk, unchanged since indexing, not generated; not a test file unless
    ``include_tests``), ordered by uid first, so the same graph, files and seed give the
    same sample. Overloads count once."""
    auditor = auditor or _Auditor(store)
    pool: dict[tuple[str, str], Node] = {}
    for node in sorted(_callable_nodes(store, repo), key=lambda x: x.uid):
        lang = node.props.get("language", "")
        if (language and lang != language) or not FAMILY.get(lang):
            continue
        pool.setdefault((node.repo, node.props["qualified_name"]), node)
    families: dict[str, set[str]] = defaultdict(set)
    for node in pool.values():
        families[node.repo].add(FAMILY[node.props["language"]])
    readable = {r: auditor.corpus(r, fams).files for r, fams in families.items()}
    for r in readable:
        auditor.read_ms.pop(r, None)  # reading is part of picking here
    readable = {r: {p for p, f in files.items() if include_tests or not f.is_test} for r, files in readable.items()}
    items = sorted((x for x in pool.values() if x.props.get("file") in readable[x.repo]), key=lambda x: x.uid)
    if not items:
        raise TargetNotFound("no functions or methods to sample in the graph" + (f" of repo {repo!r}" if repo else ""))
    return random.Random(seed).sample(items, min(n, len(items)))


def run_audit(store: GraphStore, targets: list[Node], sample: dict[str, Any] | None = None,
              auditor: _Auditor | None = None) -> AuditReport:
    """Audit ``targets`` (callable Symbol nodes). Returns an AuditReport with one
    CallableAudit per target, figures per language, category counts, files scanned /
    excluded and per-step milliseconds. Raises TargetNotFound for an unknown repo,
    BadInput when a repo's folder is not on this machine, StoreUnavailable from the store."""
    steps: list[Step] = []
    auditor = auditor or _Auditor(store)
    by_repo: dict[str, list[Node]] = defaultdict(list)
    for n in targets:
        by_repo[n.repo].append(n)
    results: list[CallableAudit] = []
    files: Counter[str] = Counter()
    for repo in sorted(by_repo):
        results.extend(auditor.audit_repo(repo, by_repo[repo], steps))
        files.update(auditor.corpora[repo].counts)
    langs: dict[str, Figures] = {}
    cats: Counter[str] = Counter()
    for r in results:
        if any(k.startswith("target file excluded") for k in r.skipped):
            continue
        langs.setdefault(r.language, Figures()).add(r)
        for d in r.missed + r.extra:
            cats[f"{d.side}: {d.verdict}: {d.category}"] += 1
    return AuditReport(repos=sorted(by_repo), callables=results, languages=langs,
                       categories=dict(cats.most_common()), files=dict(files), steps=steps, sample=sample)


def audit(store: GraphStore, targets: list[str] | None = None, *, repo: str | None = None, sample: int = 0,
          seed: int = 0, language: str | None = None, include_tests: bool = True) -> AuditReport:
    """Audit named ``targets`` and/or ``sample`` random callables (seeded); see the
    module docstring. Raises BadInput when there is nothing to audit, TargetNotFound
    when a target names no function or method."""
    auditor = _Auditor(store)
    nodes: list[Node] = []
    t = time.perf_counter()
    if targets:
        nodes.extend(resolve_callables(store, targets, repo))
    sample_info = None
    if sample:
        picked = sample_callables(store, sample, seed, repo, language, auditor, include_tests)
        seen = {(n.repo, n.props["qualified_name"]) for n in nodes}
        nodes.extend(n for n in picked if (n.repo, n.props["qualified_name"]) not in seen)
        sample_info = {"n": sample, "seed": seed, "repo": repo, "language": language, "include_tests": include_tests,
                       "drawn": len(picked)}
    if not nodes:
        raise BadInput("nothing to audit: name targets or pass --sample N")
    pick_ms = _ms(t)
    report = run_audit(store, nodes, sample_info, auditor)
    report.steps.insert(0, Step("pick callables", pick_ms, f"{len(nodes)} callable(s)"))
    return report


__all__ = ["AuditReport", "CallableAudit", "Disagreement", "Figures", "Site", "audit", "resolve_callables",
           "run_audit", "sample_callables"]

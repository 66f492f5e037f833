"""The auditor: for one callable, the expected callers (text hits attributed to their enclosing
symbols) against the graph's callers, every disagreement classified with a verdict and a
category (table in ``codegraph.audit``)."""

from __future__ import annotations

import re
import time
from collections import Counter, defaultdict
from typing import Any

from codegraph.audit.corpus import _Corpus
from codegraph.audit.results import MAX_SITES, VERDICTS, CallableAudit, Disagreement, Site, _blank_audit
from codegraph.audit.rules import (
    _FLOW_RESOLUTIONS,
    _IMPLICIT,
    _PY_BUILTIN_RECEIVERS,
    CALLABLE_KINDS,
    _class_name,
    _declarations,
    _enclosing,
    _is_constructor,
    _last,
    _ms,
)
from codegraph.audit.text import FAMILY, TextHit, call_pattern, find_calls
from codegraph.core.graph_store import GraphStore
from codegraph.core.impact import callers
from codegraph.core.models import (
    CALLS,
    EXTENDS,
    IMPORTS,
    STUB,
    SYMBOL,
    Node,
    Step,
    file_uid,
    parse_uid,
    uid_kind,
)


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
        return self._class_bases(target.repo, target.props.get("parent") or "")

    def _class_bases(self, repo: str, parent: str) -> set[str]:
        """Qualified names of the base classes of class ``parent`` (EXTENDS, transitive); cached."""
        if (repo, parent) in self.bases_cache:
            return self.bases_cache[(repo, parent)]
        cls = [n for n in self.store.symbols_by_qualified_name([parent], repo).get(parent, [])
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
        self.bases_cache[(repo, parent)] = seen
        return seen

    # ---- classification ----
    def _self_class_outside(self, target: Node, caller_uid: str, receiver: str) -> str:
        """For ``self.m()`` / ``cls.m()``: the caller's class when the target's class is
        neither it nor below it (then self is never an instance of the target's class and
        its override cannot run there); "" otherwise or when unknown."""
        if receiver not in ("self", "cls"):
            return ""
        q = parse_uid(caller_uid)[2].split("|", 1)[0]
        while "." in q:
            q = q.rsplit(".", 1)[0]
            kind = self._kind_of(target.repo, q)
            if kind in CALLABLE_KINDS:
                continue
            if kind != "class":
                return ""
            parent = target.props.get("parent") or ""
            return "" if q == parent or q in self._bases(target) else q
        return ""

    def _constructed_class_outside(self, target: Node, caller_uid: str, site: TextHit,
                                   calls_at: dict[tuple[str, int], list[Any]]) -> str:
        """For ``Foo(...).m()``: the class constructed when it is neither the target's class
        nor below it (an instance of it never runs the target's override); "" otherwise or
        when unknown. The class is the one Python's scoping gives ``Foo`` (defined in the
        calling function, an enclosing function or the module; a class body is not visible
        to its methods), and the graph must have linked this call of ``Foo`` to it."""
        name = site.call_of
        if site.receiver != ")" or not name.isidentifier() or uid_kind(caller_uid) == "file":
            return ""
        repo = target.repo
        caller = parse_uid(caller_uid)[2].split("|", 1)[0]
        cur, cls = caller, ""
        while cur:
            kind = self._kind_of(repo, cur)
            if (cur == caller or kind != "class") and self._kind_of(repo, f"{cur}.{name}") == "class":
                cls = f"{cur}.{name}"
                break
            if kind == "module" or "." not in cur:
                break
            cur = cur.rsplit(".", 1)[0]
        if not cls or not any(h.node.props.get("qualified_name") == cls for h in calls_at.get((caller_uid, site.line), [])):
            return ""
        parent = target.props.get("parent") or ""
        return "" if cls == parent or parent in self._class_bases(repo, cls) else cls

    def _bound_from_outside(self, repo: str, path: str, name: str, corpus: _Corpus | None) -> bool:
        """True when file ``path`` binds ``name`` by ``from X import name`` from a module X
        outside the repo (an IMPORTS edge to a stub whose names hold it) and its text binds
        ``name`` nowhere else (no ``name =``, ``def`` / ``class name``, ``as name``)."""
        f = corpus.files.get(path) if corpus is not None else None
        if f is None:
            return False
        outside = any(h.node.label == STUB and name in (h.edge.extra or {}).get("names", ())
                      for lst in self.store.neighbours([file_uid(repo, path)], "out", [IMPORTS]).values() for h in lst)
        if not outside:
            return False
        n = re.escape(name)
        other = re.compile(rf"^[ \t]*(?:{n}\s*(?::[^=\n]*)?=(?!=)|(?:async\s+)?def\s+{n}\b|class\s+{n}\b)|\bas\s+{n}\b", re.M)
        return other.search(corpus.stripped(f)) is None

    def _module_not_importing(self, target: Node, owner: str, corpus: _Corpus | None = None) -> str:
        """For a missing stub ``m.Name.member`` whose class name matches the target's class:
        the module ``m`` (a module of the repo in another file) when it does not import the
        target's file, directly or through other files' imports (IMPORTS, a few hops): then
        ``m.Name`` cannot be the target's class re-exported (``io.StringIO`` is ``_io``'s, not
        ``_pyio.StringIO``), or when m binds ``Name`` only by ``from X import Name`` from a module
        outside the repo (io.py: ``from _io import StringIO``); the reason, "" otherwise or when
        unknown."""
        repo, parts = target.repo, owner.split(".")
        module = next((".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)
                       if self._kind_of(repo, ".".join(parts[:i])) == "module"), "")
        found = self.store.symbols_by_qualified_name([module], repo).get(module, []) if module else []
        src = next((n.props.get("file") for n in found if n.props.get("kind") == "module"), None)
        goal = target.props.get("file")
        if not src or not goal or src == goal:
            return ""
        seen, frontier = {src}, [file_uid(repo, src)]
        for _ in range(6):
            nxt = []
            for lst in self.store.neighbours(frontier, "out", [IMPORTS]).values():
                for h in lst:
                    path = h.node.props.get("path")
                    if not path or path in seen:
                        continue
                    if path == goal:
                        return self._outside_reason(repo, src, module, parts, corpus)
                    seen.add(path)
                    nxt.append(h.node.uid)
            if not nxt:
                return f"{module} does not import {goal}"
            frontier = nxt
        return self._outside_reason(repo, src, module, parts, corpus)  # not settled within the hops

    def _outside_reason(self, repo: str, src: str, module: str, parts: list[str], corpus: _Corpus | None) -> str:
        name = parts[len(module.split("."))] if len(parts) > len(module.split(".")) else ""
        if name and self._bound_from_outside(repo, src, name, corpus):
            return f"{module} takes {name} from a module outside the repo"
        return ""

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
                    outside = self._self_class_outside(target, caller_uid, site.receiver)
                    if outside:
                        return ("text_false_positive", "self call from a class the target's class is not below",
                                f"self is a {outside}; {parent} is no subclass of it")
                    built = self._constructed_class_outside(target, caller_uid, site, calls_at)
                    if built:
                        return ("text_false_positive", "method of a constructed object whose class is not below "
                                "the target's class", f"{site.call_of}() makes a {built}; {parent} is no subclass of it")
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
                    if (not constructor_alias and owner != parent and self._kind_of(target.repo, owner) == "class"
                            and parent not in self._class_bases(target.repo, owner)):
                        # Owner.m() on another class of the same name that has no m (nor a base with it)
                        return ("text_false_positive", "qualified call names another owner",
                                f"missing stub {ti!r}: {owner} is another class of that name")
                    elsewhere = "" if constructor_alias or owner == parent else \
                        self._module_not_importing(target, owner, corpus)
                    if elsewhere:
                        return ("text_false_positive", "qualified call names another owner",
                                f"missing stub {ti!r}: {elsewhere}")
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

"""Refresh: re-resolve only the references a change can reach (docs/DESIGN.md#refresh).

A resolution runs on a ``TracingTable``: the resolver's ``SymbolTable`` whose lookup
structures (``by_qn``, ``by_name``, ``members``, ``exports``, ``files``, ``bases``,
``param_calls`` ... every public dict or set of the table) record each key looked up, per
file of the reference being resolved. These *dependency keys* are kept in the indexer
state as texts (``key_text``), per file and inverted key -> files (``ResolveState.texts``;
the shards of ``codegraph.indexer.state_deps``). A refresh then

1. builds the table of the whole repo (cached extractions + fresh ones) and its bases;
2. computes the keys whose contents differ: the table entries the changed, added and
   removed files contribute before and after the edit, and the base-class map;
3. re-resolves the fresh files, the files that looked up one of those keys, and what the
   closure rules add:

   - value flow (``pass`` / ``param_call``): a file whose functions call a parameter
     receives edges from the files that hand values to them, so both are resolved
     together (the key ``param_calls`` names the function);
   - an ``ambiguous`` stub whose first occurrence is in a re-resolved file: every file
     naming that stub (its candidates come from the first occurrence);
   - framework records (``codegraph.indexer.boundaries``) read the resolved edges of
     their files: those files are always re-resolved — except files whose only records
     are constants built from their own pieces (``const`` without ``hole_imports``: the
     boundary pass reads their parts, never their edges; ``_reads_own_edges``).

Anything this module cannot follow falls back to the whole-repo resolution: a rebuild,
no recorded keys (state from an older version), changed triage decisions, or a change to
what a repo-wide link pass reads (``codegraph.indexer.languages.link_repo``: Go files,
JS/TS files added or removed, Python packages added or removed, Java/Kotlin provider
methods — ``@Bean`` / ``@Provides`` — added, changed or removed).

The result equals a full re-index; ``tests/property`` checks it on random edit sequences.
Stub records and counts merge per file in path order, which is why the pipeline resolves
extractions sorted by path.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegraph.core.models import StubRecord, stable_hash
from codegraph.indexer.boundaries import BoundaryLinks, link_boundaries
from codegraph.indexer.languages import link_repo
from codegraph.indexer.records import FileExtraction
from codegraph.indexer.resolve import Decision, Resolution, SymbolRecord, SymbolTable, link_bases, resolve_repo
from codegraph.indexer.state_deps import SEP, ResolveState, key_text
from codegraph.indexer.symbol_table import named_key

log = logging.getLogger(__name__)

STATE_VERSION = 1  # of the repo-level resolution state below; another value forces a full resolution
_LINK_LANGS_ANY = frozenset({"go"})  # every change feeds the repo-wide link pass (implicit interfaces)
_LINK_LANGS_PATHS = frozenset({"javascript", "typescript", "tsx"})  # added / removed files do
# Repo-wide link passes that read every file's references (Go interfaces, the JS/TS module
# map, JVM injection): a repo with one of these languages reads all references up front.
_EAGER_LANGS = _LINK_LANGS_ANY | _LINK_LANGS_PATHS | frozenset({"java", "kotlin"})


# -- recording lookups -------------------------------------------------------------------
class _TDict(dict):  # type: ignore[type-arg]
    __slots__ = ("_tag", "_t")

    def get(self, k: Any, d: Any = None) -> Any:
        r = self._t.cur
        if r is not None:
            r.add((self._tag, k))
        return dict.get(self, k, d)

    def __getitem__(self, k: Any) -> Any:
        r = self._t.cur
        if r is not None:
            r.add((self._tag, k))
        return dict.__getitem__(self, k)

    def __contains__(self, k: Any) -> bool:
        r = self._t.cur
        if r is not None:
            r.add((self._tag, k))
        return dict.__contains__(self, k)


class _TDefault(defaultdict):  # type: ignore[type-arg]
    __slots__ = ("_tag", "_t")
    get = _TDict.get
    __contains__ = _TDict.__contains__

    def __getitem__(self, k: Any) -> Any:
        r = self._t.cur
        if r is not None:
            r.add((self._tag, k))
        return defaultdict.__getitem__(self, k)

    def __missing__(self, k: Any) -> Any:
        # A look-up inserted an entry (empty unless an append follows): TracingTable.patch
        # drops the ones left empty, as a build has none.
        self._t._missed.add((self._tag, k))
        return defaultdict.__missing__(self, k)


class _TExports(dict):  # type: ignore[type-arg]
    """One file's export map: a look-up records (``exports``, (path, name)), so a change
    to one export reaches the files that read that export, not every importer."""

    __slots__ = ("_path", "_t")

    def get(self, k: Any, d: Any = None) -> Any:
        r = self._t.cur
        if r is not None:
            r.add(("exports", (self._path, k)))
        return dict.get(self, k, d)


class _TSet(set):  # type: ignore[type-arg]
    __slots__ = ("_tag", "_t")

    def __contains__(self, k: Any) -> bool:
        r = self._t.cur
        if r is not None:
            r.add((self._tag, k))
        return set.__contains__(self, k)


def _traced_attrs(table: SymbolTable) -> dict[str, Any]:
    """The table's lookup structures: every public dict or set attribute."""
    return {k: v for k, v in vars(table).items() if not k.startswith("_") and isinstance(v, dict | set)}


class TracingTable(SymbolTable):
    """A ``SymbolTable`` that records, per file, the keys its lookups read (``deps``:
    path -> {(structure, key)}). ``begin`` (called by the resolver before each reference)
    says which file; memoised export lookups replay the keys of their first computation."""

    def __init__(self, repo: str, extractions: list[FileExtraction]) -> None:
        super().__init__(repo, extractions)
        self.cur: set[tuple[str, Any]] | None = None
        self.pos: tuple[int, str] = (1, "")
        self.deps: dict[str, set[tuple[str, Any]]] = defaultdict(set)
        self._memo_deps: dict[tuple[str, str], set[tuple[str, Any]]] = {}
        self._named_deps: dict[Any, set[tuple[str, Any]]] = {}  # named()'s memo: the keys its first look-up read
        self._missed: set[tuple[str, Any]] = set()  # (structure, key) a look-up inserted (_TDefault.__missing__)
        for tag, val in _traced_attrs(self).items():
            if isinstance(val, defaultdict):
                new: Any = _TDefault(val.default_factory, val)
            elif isinstance(val, dict):
                new = _TDict(val)
            else:
                new = _TSet(val)
            new._tag, new._t = tag, self
            setattr(self, tag, new)
        for path, exp in list(dict.items(self.exports)):
            inner = _TExports(exp)
            inner._path, inner._t = path, self
            dict.__setitem__(self.exports, path, inner)

    def patch(self, old: list[FileExtraction], new: list[FileExtraction], exports: dict[str, Any]) -> None:
        """Make this table the one a build from the current files would give, for a next
        run of a long-running process: ``old`` (last run's versions of the changed and
        removed files) out, ``new`` (the changed and added files) in — each list of
        entries keeps path order, as a build in path order gives it. ``exports``: path ->
        every file's export map now (link passes may have rewritten one in place). The
        derived state (bases, memos, recorded keys) is cleared: ``link_bases`` runs again."""
        paths = {fx.file.path for fx in [*old, *new]}
        before, after = SymbolTable(self.repo, old), SymbolTable(self.repo, new)
        for tag in _LISTS:
            mine, b, a = getattr(self, tag), getattr(before, tag), getattr(after, tag)
            for k in b.keys() | a.keys():
                if tag == "dirs":
                    lst = sorted({*(p for p in dict.get(mine, k, ()) if p not in paths), *a.get(k, ())})
                else:
                    lst = [x for x in dict.get(mine, k, ()) if x.file not in paths] + a.get(k, [])
                    lst.sort(key=lambda x: x.file)  # stable: each file's entries keep their order
                if lst:
                    dict.__setitem__(mine, k, lst)
                else:
                    dict.pop(mine, k, None)
        for p in paths:
            set.discard(self.files, p)
            for d in (self.family, self.file_module, self.exports):
                dict.pop(d, p, None)
        set.update(self.files, after.files)
        dict.update(self.family, after.family)
        dict.update(self.file_module, after.file_module)
        for path, exp in exports.items():
            inner = _TExports(exp)
            inner._path, inner._t = path, self
            dict.__setitem__(self.exports, path, inner)
        for tag, k in self._missed:  # a look-up's miss inserted an empty list: a build has none
            if tag in _LISTS:
                d = getattr(self, tag)
                if not dict.get(d, k, True):
                    dict.pop(d, k)
        self._missed.clear()
        dict.clear(self.bases)
        set.clear(self.external_bases)
        self._export_memo.clear()
        self._memo_deps.clear()
        self._named_memo.clear()
        self._named_deps.clear()
        self.deps = defaultdict(set)
        self.cur, self.pos = None, (1, "")

    def begin(self, file: str | None, inheritance: bool = False) -> None:
        self.cur = self.deps[file] if file is not None else None
        self.pos = (0 if inheritance else 1, file or "")

    def note(self, key: tuple[str, Any]) -> None:
        if self.cur is not None:
            self.cur.add(key)

    def begin_quiet(self, file: str | None, inheritance: bool = False) -> None:
        # ``begin`` reads ``deps`` through its recording dict (``deps`` is a public dict:
        # traced as well), so the sequence of begins leaves keys: this one leaves none.
        if file is None:
            self.cur = None
        else:
            cur = dict.get(self.deps, file)
            if cur is None:
                cur = set()
                dict.__setitem__(self.deps, file, cur)
            self.cur = cur
        self.pos = (0 if inheritance else 1, file or "")

    def cursor(self) -> Any:
        return self.cur

    def set_cursor(self, cursor: Any) -> None:
        self.cur = cursor

    def split_keys(self, files: list[str]) -> Any:
        return {p: dict.get(self.deps, p) for p in files if dict.__contains__(self.deps, p)}

    def merge_keys(self, keys: Any) -> None:
        for p, ks in (keys or {}).items():
            mine = dict.get(self.deps, p)
            if mine is None:
                dict.__setitem__(self.deps, p, ks)
            else:
                mine |= ks

    def named(self, name: str, kinds: Any, fam: str | None) -> tuple[list[SymbolRecord], list[str]]:
        # Memoised like _export_of: a hit adds the keys the first look-up read.
        key = named_key(name, kinds, fam)
        outer = self.cur
        if key is not None and key in self._named_memo:
            if outer is not None:
                outer |= self._named_deps[key]
            return self._named_memo[key]
        inner: set[tuple[str, Any]] = set()
        self.cur = inner
        try:
            found = SymbolTable.named(self, name, kinds, fam)
        finally:
            self.cur = outer
        if key is not None:
            self._named_deps[key] = inner
        if outer is not None:
            outer |= inner
        return found

    def _export_of(self, path: str, name: str, visiting: set[tuple[str, str]]) -> list[SymbolRecord]:
        key = (path, name)
        outer = self.cur
        if key in self._export_memo:
            if outer is not None:
                outer |= self._memo_deps.get(key, set())
            return self._export_memo[key]
        inner: set[tuple[str, Any]] = set()
        self.cur = inner
        try:
            found = SymbolTable._export_of(self, path, name, visiting)
        finally:
            self.cur = outer
        if key in self._export_memo:
            self._memo_deps[key] = inner
        if outer is not None:
            outer |= inner
        return found


class _StubDict(dict):  # type: ignore[type-arg]
    """``Resolution.stubs`` that records who asked (key ``stub``) and where each stub's
    final record was set (path order decides between ambiguous records)."""

    def __init__(self, table: TracingTable) -> None:
        super().__init__()
        self.t = table
        self.pos: dict[str, tuple[int, str]] = {}

    def get(self, k: Any, d: Any = None) -> Any:
        if self.t.cur is not None:
            self.t.cur.add(("stub", k))
        return dict.get(self, k, d)

    def __setitem__(self, k: Any, v: Any) -> None:
        self.pos[k] = self.t.pos
        dict.__setitem__(self, k, v)


class _FileCounts(Counter):  # type: ignore[type-arg]
    """``Resolution.counts`` that also keeps the counts per file of the reference."""

    def __init__(self, table: TracingTable) -> None:
        super().__init__()
        self.t = table
        self.per_file: dict[str, Counter[str]] = defaultdict(Counter)

    def __setitem__(self, k: Any, v: Any) -> None:
        self.per_file[self.t.pos[1]][k] += v - self.get(k, 0)
        dict.__setitem__(self, k, v)


# -- what changed ------------------------------------------------------------------------
def contributions(repo: str, extractions: list[FileExtraction]) -> dict[tuple[str, Any], Any]:
    """(structure, key) -> value for the table entries these files make."""
    out: dict[tuple[str, Any], Any] = {}
    for tag, val in _traced_attrs(SymbolTable(repo, extractions)).items():
        if tag == "exports":  # the map's presence, and each name (see _TExports)
            for path, exp in val.items():
                out[(tag, path)] = True
                out.update(((tag, (path, k)), v) for k, v in exp.items())
        elif isinstance(val, dict):
            out.update(((tag, k), v) for k, v in val.items())
        else:
            out.update(((tag, k), True) for k in val)
    return out


def changed_keys(repo: str, before: list[FileExtraction], after: list[FileExtraction]) -> set[tuple[str, Any]]:
    """Keys whose entries differ between the old and the new versions of the changed files."""
    old, new = contributions(repo, before), contributions(repo, after)
    return {k for k in old.keys() | new.keys() if old.get(k) != new.get(k)}


def _bases_keys(old: dict[str, Any], table: SymbolTable) -> set[tuple[str, Any]]:
    out: set[tuple[str, Any]] = set()
    new_bases = {k: v for k, v in dict.items(table.bases) if v}
    old_bases = old.get("bases", {})
    changed = [k for k in old_bases.keys() | new_bases.keys() if old_bases.get(k) != new_bases.get(k)]
    out.update(("bases", k) for k in changed)
    # A class gaining or losing a subclass: the self.m() calls dispatching below it.
    out.update(("subclasses", b) for k in changed for b in (*old_bases.get(k, ()), *new_bases.get(k, ())))
    out.update(("external_bases", k) for k in set(old.get("external_bases", ())) ^ set(table.external_bases))
    return out


def decisions_hash(decisions: dict[str, Decision] | None) -> str:
    return stable_hash(*sorted(repr(d) for d in (decisions or {}).values()))


def _full_reason(fresh: dict[str, FileExtraction], old: dict[str, FileExtraction], removed: list[str],
                 blob: dict[str, Any] | None, decisions: dict[str, Decision] | None) -> str | None:
    """Why this refresh must resolve the whole repo, or None."""
    if blob is None or blob.get("version") != STATE_VERSION:
        return "no recorded lookups"
    if blob.get("decisions") != decisions_hash(decisions):
        return "triage decisions changed"
    added = [p for p in fresh if p not in old]
    langs = {fx.file.language for fx in [*fresh.values(), *old.values()]}
    if langs & _LINK_LANGS_ANY:
        return "a Go file changed (repo-wide interface pass)"
    moved = [*added, *removed]
    moved_langs = {fx.file.language for p in moved for fx in (fresh.get(p), old.get(p)) if fx is not None}
    if moved_langs & _LINK_LANGS_PATHS:
        return "a JS/TS file was added or removed (module map)"
    if any(p.endswith(("/__init__.py", "/__init__.pyi")) or p in ("__init__.py", "__init__.pyi") for p in moved):
        return "a Python package was added or removed (package roots)"
    if any(_providers(fresh.get(p)) != _providers(old.get(p)) for p in [*fresh, *removed]):
        return "a Java/Kotlin provider method changed (injection pass)"
    return None


def _providers(fx: FileExtraction | None) -> list[str]:
    """The DI provider records of a file (``languages/jvm_inject.py``): the repo-wide
    injection pass points other files' INJECTS at them."""
    if fx is None:
        return []
    return sorted(repr(sorted(r.items())) for r in fx.framework if r.get("type") == "provider")


# -- the resolution step of a run ----------------------------------------------------------
def partial_load_ok(languages: frozenset[str] | None) -> bool:
    """May the unchanged files be read as heads (``StateStore.extractions(heads=True)``):
    their references read only when they are resolved again? Not when the languages are
    unknown or a link pass reads every reference (``_EAGER_LANGS``)."""
    return languages is not None and not languages & _EAGER_LANGS


# The last run's table per (state file, repo) with the extraction objects it was built
# from: a long-running process (``codegraph watch``, a server) patches it for the files
# that changed instead of building it over every symbol again.
_TABLES: dict[tuple[str, str], tuple[TracingTable, dict[str, FileExtraction]]] = {}
_PATCH_AT_MOST = 0.05  # of the repo's files changed; more, and a build is as cheap
# The structures of lists TracingTable.patch rebuilds per key (and drops when left empty).
_LISTS = ("by_qn", "by_name", "members", "by_file_qn", "param_calls", "dirs")
# The structures TracingTable.patch knows; a table with others is built again.
_PATCHED = frozenset({"by_qn", "by_name", "members", "by_file_qn", "files", "family", "dirs", "exports",
                      "file_module", "bases", "external_bases", "param_calls"})


def _table(repo: str, all_fx: list[FileExtraction], state: Any) -> TracingTable:
    """A ``TracingTable`` of ``all_fx`` (sorted by path): the cached one patched when few
    files differ from the run it was built for, else a new one."""
    key = (str(getattr(state, "_key", id(state))), repo)
    now = {fx.file.path: fx for fx in all_fx}
    hit = _TABLES.pop(key, None)
    if hit is not None and set(_traced_attrs(hit[0])) - {"deps", "cur"} == _PATCHED:
        table, built = hit
        old = [fx for p, fx in built.items() if now.get(p) is not fx]
        new = [fx for p, fx in now.items() if built.get(p) is not fx]
        if len(old) + len(new) <= max(8, _PATCH_AT_MOST * len(all_fx)):
            table.patch(old, new, {p: fx.exports for p, fx in now.items()})
            _TABLES[key] = (table, now)
            return table
    table = TracingTable(repo, all_fx)
    _TABLES[key] = (table, now)
    return table


def _fill(state: Any, repo: str, all_fx: list[FileExtraction], paths: set[str] | None, root: Path | None) -> None:
    """Read the whole reference lists of ``paths`` (None: every file) where only heads
    were read, and run the repo-wide link passes again for them (idempotent)."""
    fill = getattr(state, "fill_references", None)
    if fill is not None and fill(repo, [fx for fx in all_fx if paths is None or fx.file.path in paths]):
        link_repo(all_fx, root)


@dataclass(slots=True)
class Resolved:
    """Resolution and boundary links of one run.

    ``files``: the files whose edges ``res`` holds completely (None: every file);
    ``stubs``: the stub records to write; ``totals``: counts for the whole repo;
    ``state``: what ``StateStore.save`` keeps for the next refresh.
    """

    res: Resolution
    links: BoundaryLinks
    files: set[str] | None
    stubs: list[StubRecord]
    totals: dict[str, int]
    state: ResolveState
    reason: str = ""  # why the whole repo was resolved ("" for a partial resolution)


def _stub_entry(st: StubRecord, pos: tuple[int, str]) -> list[Any]:
    return [st.reason, st.candidate_count, list(st.candidates), pos[0], pos[1]]


def resolve_and_link(
    repo: str, all_fx: list[FileExtraction], fresh: dict[str, FileExtraction], removed: list[str],
    known: set[str], state: Any, decisions: dict[str, Decision] | None, root: Path | None, *,
    full: bool = False,
) -> Resolved:
    """Resolve and link ``all_fx`` (the whole repo after the run, sorted by path): only the
    affected files when the state allows it, else every file. ``fresh``: the changed and
    added files; ``known``: the paths of the previous run; ``state``: the ``StateStore``
    (read only here)."""
    blob = None if full else state.resolve_blob(repo)
    old_paths = [p for p in fresh if p in known] + list(removed) if blob else []
    old = state.extractions(repo, old_paths) if old_paths else {}
    reason = "full" if full else _full_reason(fresh, old, removed, blob, decisions)
    table = _table(repo, all_fx, state)
    link_bases(table, all_fx)
    if reason is not None:
        _fill(state, repo, all_fx, None, root)
        out = _resolve(repo, all_fx, table, None, set(), decisions, root, blob or {}, {}, reason)
        out.state.removed = list(removed)
        return out
    assert blob is not None
    keys = changed_keys(repo, list(old.values()), list(fresh.values())) | _bases_keys(blob, table)
    files = set(fresh) | state.resolve_dependents(repo, [key_text(k) for k in keys])
    files.update(fx.file.path for fx in all_fx if _reads_own_edges(fx))
    files -= set(removed)
    current = {fx.file.path for fx in all_fx}
    for _ in range(8):
        files = _closure(repo, files, set(removed), table, state, current)
        _fill(state, repo, all_fx, files, root)
        out = _resolve(repo, all_fx, table, files, set(removed), decisions, root, blob,
                       state.resolve_counts(repo, files | set(removed)), "")
        grow = _landing(repo, table, out, files, set(removed), blob, state) & current
        if not grow:
            out.state.removed = list(removed)
            return out
        files |= grow
    _fill(state, repo, all_fx, None, root)
    out = _resolve(repo, all_fx, table, None, set(), decisions, root, blob, {}, "closure did not settle")
    out.state.removed = list(removed)
    return out


def _reads_own_edges(fx: FileExtraction) -> bool:
    """Does the boundary pass read this file's resolved edges (its imports, handler calls)?
    For every framework record but a constant with no imported piece: a ``const`` record
    is read for its parts, and only its ``hole_imports`` are looked up through the file's
    IMPORTS edges (``boundaries._Linker.complete``)."""
    return any(r.get("type") != "const" or r.get("hole_imports") for r in fx.framework)


def _closure(repo: str, files: set[str], removed: set[str], table: TracingTable, state: Any,
             current: set[str]) -> set[str]:
    """Add what value flow ties to ``files`` (and to the ``removed`` files' last
    resolution), to a fixpoint (module doc)."""
    files = set(files) & current
    done: set[str] = set()
    todo = files | removed
    while todo:
        done |= todo
        keys: list[str] = []
        old_deps = state.resolve_file_deps(repo, sorted(todo))
        for p in todo:
            # A file calling its parameters receives edges from the files handing values over.
            keys.extend(key_text(("param_calls", q)) for q in _param_owners(table, p))
            for k in old_deps.get(p, ()):
                tag, _, rest = k.partition(SEP)
                if tag == "param_calls":  # it handed values over: where they landed
                    files.update(r.file for r in dict.get(table.param_calls, rest, ()))
        if keys:
            files |= state.resolve_dependents(repo, keys)
        files &= current
        todo = files - done
    return files


def _param_owners(table: TracingTable, path: str) -> set[str]:
    return {r.extra["param_call"]["owner"] for lst in dict.values(table.param_calls) for r in lst if r.file == path} \
        if path in table.files else set()


def _landing(repo: str, table: TracingTable, out: Resolved, files: set[str], removed: set[str],
             blob: dict[str, Any], state: Any) -> set[str]:
    """Files outside ``files`` that must be resolved with them: those the resolution or
    the links wrote edges into, those whose parameter calls the re-resolved files now
    hand values to, and the files naming an ambiguous stub whose first occurrence was in
    a re-resolved or removed file and is not (at the same place or earlier) any more."""
    grow = {p for p in out.res.edges if p not in files}
    grow.update(p for p in out.links.edges if p not in files)
    for p in files:
        for tag, k in table.deps.get(p, ()):
            if tag == "param_calls":
                grow.update(r.file for r in dict.get(table.param_calls, k, ()) if r.file not in files)
    stubs = out.res.stubs
    pos = stubs.pos if isinstance(stubs, _StubDict) else {}
    lost = []
    for uid, e in blob.get("stubs", {}).items():
        if e[0] == "ambiguous" and (e[4] in files or e[4] in removed):
            st = dict.get(stubs, uid)
            if st is None or st.reason != "ambiguous" or pos[uid] > (e[3], e[4]):
                lost.append(key_text(("stub", uid)))
    if lost:
        grow |= state.resolve_dependents(repo, lost) - files
    return grow


def _resolve(repo: str, all_fx: list[FileExtraction], table: TracingTable, files: set[str] | None,
             removed: set[str], decisions: dict[str, Decision] | None, root: Path | None, blob: dict[str, Any],
             old_counts: dict[str, dict[str, int]], reason: str) -> Resolved:
    for p in files if files is not None else list(table.deps):
        table.deps.pop(p, None)  # the inheritance pass's keys are recorded again below
    stubs = _StubDict(table)
    counts = _FileCounts(table)
    res = Resolution(stubs=stubs, counts=counts)  # type: ignore[arg-type]
    resolve_repo(repo, all_fx, decisions, table=table, only=files, res=res)
    links = link_boundaries(repo, all_fx, res, root, table=table)
    table.begin(None)
    touched = set(files) if files is not None else {fx.file.path for fx in all_fx}
    old_stubs: dict[str, list[Any]] = dict(blob.get("stubs", {})) if files is not None else {}
    new_stubs = {uid: e for uid, e in old_stubs.items() if e[4] not in touched and e[4] not in removed}
    write: list[StubRecord] = []
    for uid, st in stubs.items():
        pos = stubs.pos[uid]
        prev = new_stubs.get(uid)
        if prev is not None and prev[0] == "ambiguous" and (st.reason != "ambiguous" or (prev[3], prev[4]) < pos):
            st = StubRecord(repo, st.target_identifier, prev[0], prev[1], list(prev[2]))
            pos = (prev[3], prev[4])
        # Written even when the last run stored the same record: the cross-repo pass and
        # triage prune stub nodes that no edge reaches any more, so the node may be gone.
        write.append(st)
        new_stubs[uid] = _stub_entry(st, pos)
    totals: Counter[str] = Counter(blob.get("totals", {})) if files is not None else Counter()
    for p in [*touched, *removed]:
        totals.subtract(old_counts.get(p, {}))
        totals.update(counts.per_file.get(p, {}))
    totals = Counter({k: v for k, v in totals.items() if v > 0})
    rs = ResolveState(
        files={p: (table.deps.get(p, ()), dict(counts.per_file.get(p, {}))) for p in touched},
        full=files is None,
        blob={"version": STATE_VERSION, "decisions": decisions_hash(decisions),
              "bases": {k: v for k, v in dict.items(table.bases) if v},
              "external_bases": sorted(table.external_bases), "stubs": new_stubs, "totals": dict(totals)})
    if reason:
        log.debug("resolving every file: %s", reason)
    return Resolved(res, links, files, write, dict(totals), rs, reason)


__all__ = ["Resolved", "ResolveState", "TracingTable", "changed_keys", "contributions", "key_text",
           "partial_load_ok", "resolve_and_link"]

"""The recording symbol table of a refresh (docs/DESIGN.md#refresh): a ``SymbolTable`` whose
lookup structures (``by_qn``, ``by_name``, ``members``, ``exports``, ``files``, ``bases``,
``param_calls`` ... every public dict or set of the table) record each key looked up, per
file of the reference being resolved — the *dependency keys* ``codegraph.indexer.affected``
keeps in the indexer state — with the ``Resolution`` parts that record per file too
(``StubDict``: stub records and where each was set; ``FileCounts``: counts), and the last
run's table of a long-running process, patched for the files that changed.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from codegraph.core.models import StubRecord
from codegraph.indexer.records import FileExtraction
from codegraph.indexer.symbol_table import SymbolRecord, SymbolTable, export_cut, named_key


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
    __getitem__ = _TDict.__getitem__  # defaultdict.__getitem__ is dict's: a miss still calls __missing__

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


class TracingTable(SymbolTable):
    """A ``SymbolTable`` that records, per file, the keys its lookups read (``deps``:
    path -> {(structure, key)}). ``begin`` (called by the resolver before each reference)
    says which file; a memoised look-up (``_kept``) adds the keys of its first computation."""

    def __init__(self, repo: str, extractions: list[FileExtraction]) -> None:
        super().__init__(repo, extractions)
        self.cur: set[tuple[str, Any]] | None = None
        self.pos: tuple[int, str] = (1, "")
        self.deps: dict[str, set[tuple[str, Any]]] = defaultdict(set)
        # named's, _export_of's, module_files' and export's answers with the keys their first
        # look-up read (``_kept``; SymbolTable's own memos of named and _export_of stay empty
        # here): what they read (names, files, export maps, symbols) is fixed once the table
        # is built (patch clears them), and a repo asks the same few a thousand times (Django:
        # 6,601 module_files look-ups of 943 kinds, 9,245 exports of 2,973).
        self._kept_named: dict[tuple[str, tuple[str, ...], str | None],
                               tuple[tuple[list[SymbolRecord], list[str]], set[tuple[str, Any]]]] = {}
        self._kept_export_of: dict[tuple[str, str], tuple[list[SymbolRecord], set[tuple[str, Any]]]] = {}
        self._kept_files: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[list[str], set[tuple[str, Any]]]] = {}
        self._kept_export: dict[tuple[tuple[str, ...], str], tuple[list[SymbolRecord], set[tuple[str, Any]]]] = {}
        # member's and owner_has_external_base's, kept only while the bases are final (they
        # walk them; link_bases builds them): (owner, member, skip_self) / (owner,).
        self._bases_final = False
        self._kept_member: dict[tuple[Any, ...], tuple[Any, set[tuple[str, Any]]]] = {}
        self._missed: set[tuple[str, Any]] = set()  # (structure, key) a look-up inserted (_TDefault.__missing__)
        for tag, val in self.structures().items():
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
        self._kept_named.clear()
        self._kept_export_of.clear()
        self._kept_files.clear()
        self._kept_export.clear()
        self.bases_final(False)
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
        key = named_key(name, kinds, fam)
        if key is None:  # not memoised (SymbolTable.named): every look-up recorded as made
            return SymbolTable._named(self, name, kinds, fam)
        return self._kept(self._kept_named, key, SymbolTable._named, name, kinds, fam)  # type: ignore[no-any-return]

    def bases_final(self, final: bool) -> None:
        self._bases_final = final
        self._kept_member.clear()

    def _kept(self, memo: dict[Any, tuple[Any, set[tuple[str, Any]]]], key: Any, look: Any, *args: Any) -> Any:
        """``look(self, *args)`` kept in ``memo`` under ``key`` with the keys it read, which
        every call adds to the current reference's (as a plan does, ``resolve._shared_plan``)."""
        outer = self.cur
        hit = memo.get(key)
        if hit is None:
            inner: set[tuple[str, Any]] = set()
            self.cur = inner
            try:
                found = look(self, *args)
            finally:
                self.cur = outer
            hit = memo[key] = (found, inner)
        if outer is not None:
            outer |= hit[1]
        return hit[0]

    def member(self, owner_qn: str, member: str, skip_self: bool = False) -> list[SymbolRecord]:
        if not self._bases_final:
            return SymbolTable.member(self, owner_qn, member, skip_self)
        return self._kept(self._kept_member, (owner_qn, member, skip_self), SymbolTable.member, owner_qn, member,
                          skip_self)  # type: ignore[no-any-return]

    def owner_has_external_base(self, owner_qn: str) -> bool:
        if not self._bases_final:
            return SymbolTable.owner_has_external_base(self, owner_qn)
        return self._kept(self._kept_member, (owner_qn,), SymbolTable.owner_has_external_base,
                          owner_qn)  # type: ignore[no-any-return]

    def module_files(self, paths: list[str], attrs: list[str]) -> list[str]:
        # A copy: a caller may keep the list (export's are shared, as SymbolTable's own memo's).
        return list(self._kept(self._kept_files, (tuple(paths), tuple(attrs)), SymbolTable.module_files, paths, attrs))

    def export(self, paths: list[str], name: str) -> list[SymbolRecord]:
        return self._kept(self._kept_export, (tuple(paths), name), SymbolTable.export, paths,
                          name)  # type: ignore[no-any-return]

    def _export_of(self, path: str, name: str, visiting: set[tuple[str, str]]) -> list[SymbolRecord]:
        key = (path, name)
        if export_cut(key, visiting) and key not in self._kept_export_of:
            return []  # a cycle cut, not kept (SymbolTable._export_of)
        return self._kept(self._kept_export_of, key, SymbolTable._export_walk, path, name,
                          visiting)  # type: ignore[no-any-return]


class StubDict(dict[str, StubRecord]):
    """``Resolution.stubs`` of a resolution on ``table``: records who asked (key ``stub``)
    and, in ``pos`` (stub uid -> ``table.pos`` when its record was set: (0 in the inheritance
    pass else 1, path)), where each stub's final record was set (path order decides between
    ambiguous records)."""

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


class FileCounts(Counter[str]):
    """``Resolution.counts`` of a resolution on ``table`` that also keeps the counts per file
    of the reference (``per_file``: path -> label -> count)."""

    def __init__(self, table: TracingTable) -> None:
        super().__init__()
        self.t = table
        self.per_file: dict[str, Counter[str]] = defaultdict(Counter)

    def __setitem__(self, k: Any, v: Any) -> None:
        self.per_file[self.t.pos[1]][k] += v - self.get(k, 0)
        dict.__setitem__(self, k, v)


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


def cached_table(repo: str, all_fx: list[FileExtraction], state: Any) -> TracingTable:
    """A ``TracingTable`` of ``all_fx`` (sorted by path) for a run with indexer state
    ``state``: the cached one patched when few files differ from the run it was built for,
    else a new one."""
    key = (str(getattr(state, "_key", id(state))), repo)
    now = {fx.file.path: fx for fx in all_fx}
    hit = _TABLES.pop(key, None)
    if hit is not None and set(hit[0].structures()) - {"deps", "cur"} == _PATCHED:
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


__all__ = ["FileCounts", "StubDict", "TracingTable", "cached_table"]

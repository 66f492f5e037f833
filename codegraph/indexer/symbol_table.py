"""The resolver's symbol table (docs/DESIGN.md#resolution): every symbol, file, export
map and parameter call of one repository in dicts, with the lookups the candidate rules
of ``codegraph.indexer.resolve`` make (a member through the resolved bases, a file's
export following re-exports and ``export *``, a chain of module bindings).

The recording table (``codegraph.indexer.tracing_table``) subclasses it to trace which keys
each file's references read (``begin`` / ``note``), so every lookup goes through these public
structures (``SymbolTable.structures``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from codegraph.core.models import EXTENDS, IMPLEMENTS, SymbolRecord
from codegraph.indexer.hints import HintError, ParamCall
from codegraph.indexer.languages import family
from codegraph.indexer.records import FileExtraction, Reference

TYPE_KINDS = frozenset({"class", "interface", "struct", "enum", "trait", "record", "union", "object", "module", "namespace"})
MAX_CHAIN = 12  # re-export hops and base-class depth; cycles are cut by visited sets too



MAX_EXPORT_HOPS = 64  # re-exports followed before a chain is cut (a deeper one is a cycle in all but name)


def export_cut(key: tuple[str, str], visiting: set[tuple[str, str]]) -> bool:
    """Is the export ``key`` (path, name) not followed: already being followed (a cycle) or
    past ``MAX_EXPORT_HOPS``? A cut answers [] and is not memoised."""
    return key in visiting or len(visiting) > MAX_EXPORT_HOPS


class SymbolTable:
    """Lookup structures over every symbol, file and export map of one repository."""

    def __init__(self, repo: str, extractions: list[FileExtraction]) -> None:
        self.repo = repo
        self.by_qn: dict[str, list[SymbolRecord]] = defaultdict(list)
        self.by_name: dict[str, list[SymbolRecord]] = defaultdict(list)
        self.members: dict[tuple[str, str], list[SymbolRecord]] = defaultdict(list)
        self.by_file_qn: dict[tuple[str, str], list[SymbolRecord]] = defaultdict(list)
        self.files: set[str] = set()
        self.family: dict[str, str] = {}  # path -> language family (codegraph.indexer.languages.family)
        self.dirs: dict[str, list[str]] = defaultdict(list)
        self.exports: dict[str, dict[str, dict[str, Any]]] = {}
        self.file_module: dict[str, str] = {}
        self.bases: dict[str, list[str]] = defaultdict(list)
        self._export_memo: dict[tuple[str, str], list[SymbolRecord]] = {}
        self._named_memo: dict[tuple[str, tuple[str, ...], str | None], tuple[list[SymbolRecord], list[str]]] = {}
        # Classes with a base outside the repo: a member missing on them is probably
        # inherited from there, so a unique-name match elsewhere would be a false edge.
        self.external_bases: set[str] = set()
        # Calls of a parameter, by the function owning the parameter (param_call hints).
        self.param_calls: dict[str, list[Reference]] = defaultdict(list)
        # Locals: this loop runs over every symbol of the repo on each build (a CLI refresh).
        by_qn, by_name, members, by_file_qn = self.by_qn, self.by_name, self.members, self.by_file_qn
        file_module, param_calls, families = self.file_module, self.param_calls, {}
        for fx in extractions:
            path = fx.file.path
            self.files.add(path)
            lang = fx.file.language
            fam = families.get(lang)
            if fam is None:
                fam = families[lang] = family(lang)
            self.family[path] = fam
            self.dirs[path.rsplit("/", 1)[0] if "/" in path else ""].append(path)
            self.exports[path] = fx.exports
            for s in fx.symbols:
                qn = s.qualified_name
                by_qn[qn].append(s)
                by_file_qn[(path, qn)].append(s)
                if s.kind == "module":
                    file_module.setdefault(path, qn)
                    continue
                name = s.name
                by_name[name].append(s)
                if s.parent:
                    members[(s.parent, name)].append(s)
            for r in fx.references:
                pc = r.extra.get("param_call")
                if pc is not None and r.type not in (EXTENDS, IMPLEMENTS):
                    try:
                        param_calls[ParamCall.parse(pc).owner].append(r)
                    except HintError:  # counted as bad_hint when the reference is resolved
                        continue

    def structures(self) -> dict[str, dict[Any, Any] | set[Any]]:
        """The look-up structures by attribute name: every public dict or set attribute
        (``by_qn``, ``by_name``, ``members``, ``exports``, ``files``, ``bases``,
        ``param_calls`` ...; a subclass's own too). What the recording table traces and
        what a refresh diffs (``codegraph.indexer.affected.contributions``)."""
        return {k: v for k, v in vars(self).items() if not k.startswith("_") and isinstance(v, dict | set)}

    def begin(self, file: str | None, inheritance: bool = False) -> None:
        """The lookups that follow are made for a reference of ``file`` (in the inheritance
        pass when ``inheritance``). A no-op here; ``codegraph.indexer.affected`` records
        them to know which files a later change can affect (docs/DESIGN.md#refresh)."""

    def bases_final(self, final: bool) -> None:
        """``bases`` / ``external_bases`` are complete (``link_bases`` done) when ``final``,
        being built when not: a table may keep look-ups that walk them only meanwhile."""

    def note(self, key: tuple[str, Any]) -> None:
        """The current reference depends on ``key`` (a derived fact such as
        ``("subclasses", qn)``); a no-op here, recorded by ``codegraph.indexer.affected``."""

    # Hooks of the resolution over two processes (codegraph.indexer.resolve_split): the
    # recording table keeps per-file keys and a position; a plain table has neither.
    def begin_quiet(self, file: str | None, inheritance: bool = False) -> None:
        """``begin`` that records nothing itself (the split replays the ``begin`` sequence)."""

    def cursor(self) -> Any:
        """What ``begin`` records into now (``set_cursor`` puts it back)."""
        return None

    def set_cursor(self, cursor: Any) -> None:
        """Record into ``cursor`` (from ``cursor()``) until the next ``begin``."""

    def split_keys(self, files: list[str]) -> Any:
        """The keys recorded for ``files`` (picklable), for ``merge_keys`` in another process."""
        return None

    def merge_keys(self, keys: Any) -> None:
        """Add keys from ``split_keys`` of another process's copy of this table."""

    # -- lookups ---------------------------------------------------------------
    def types(self, qn: str) -> list[SymbolRecord]:
        return [s for s in self.by_qn.get(qn, ()) if s.kind in TYPE_KINDS]

    def member(self, owner_qn: str, member: str, skip_self: bool = False) -> list[SymbolRecord]:
        """``member`` declared on ``owner_qn`` or, breadth-first, on its bases."""
        queue, seen = [owner_qn], {owner_qn}
        depth = 0
        while queue and depth <= MAX_CHAIN:
            nxt: list[str] = []
            for owner in queue:
                if not (skip_self and owner == owner_qn):
                    found = self.members.get((owner, member))
                    if found:
                        return found
                for b in self.bases.get(owner, ()):
                    if b not in seen:
                        seen.add(b)
                        nxt.append(b)
            queue, depth = nxt, depth + 1
        return []

    def module_files(self, paths: list[str], attrs: list[str]) -> list[str]:
        """Files of the module(s) reached from the first existing file of ``paths`` by the
        attribute chain ``attrs``: each name is an export bound to a module
        (``{"modules"}``: ``import x as name``), a ``from`` import of a module, or a
        submodule of a package. Several when a name is bound conditionally
        (``os.path`` is ``posixpath`` or ``ntpath``); [] when a step is not a module."""
        cur = [p for p in paths if p in self.files][:1]
        for name in attrs:
            nxt: list[str] = []
            for path in cur:
                for f in self._module_of(path, name, 0):
                    if f not in nxt:
                        nxt.append(f)
            cur = nxt
            if not cur:
                break
        return cur

    def _module_of(self, path: str, name: str, depth: int) -> list[str]:
        if depth > MAX_CHAIN:
            return []
        target = self.exports.get(path, {}).get(name)
        if target is not None:
            if "modules" in target:
                found = [next(p for p in group if p in self.files) for group in target["modules"]
                         if any(p in self.files for p in group)]
                if found:
                    return found
            if "from" in target:
                src = next((p for p in target["from"] if p in self.files), None)
                if src is not None:
                    orig = target.get("name", name)
                    sub = self._submodule(src, orig)
                    if sub or src == path:
                        return sub
                    return self._module_of(src, orig, depth + 1)
        return self._submodule(path, name)

    def _submodule(self, path: str, name: str) -> list[str]:
        if not path.endswith(("/__init__.py", "/__init__.pyi")):
            return []
        d = path.rsplit("/", 1)[0]
        for cand in (f"{d}/{name}.py", f"{d}/{name}/__init__.py", f"{d}/{name}.pyi", f"{d}/{name}/__init__.pyi"):
            if cand in self.files:
                return [cand]
        return []

    def owner_has_external_base(self, owner_qn: str) -> bool:
        """True when ``owner_qn`` or one of its in-repo bases has an unresolved base."""
        queue, seen = [owner_qn], {owner_qn}
        while queue:
            cur = queue.pop()
            if cur in self.external_bases:
                return True
            for b in self.bases.get(cur, ()):
                if b not in seen and len(seen) < 64:
                    seen.add(b)
                    queue.append(b)
        return False

    def named(self, name: str, kinds: Any, fam: str | None) -> tuple[list[SymbolRecord], list[str]]:
        """The unique-name fallback's look-up: the symbols called ``name`` (of one of
        ``kinds``, a list, when given) declared in files of language family ``fam``, and
        their distinct qualified names sorted. Memoised (the same name is looked up from
        many files); the lists are shared, not to be mutated."""
        key = named_key(name, kinds, fam)
        found = self._named_memo.get(key) if key is not None else None
        if found is None:
            found = self._named(name, kinds, fam)
            if key is not None:
                self._named_memo[key] = found
        return found

    def _named(self, name: str, kinds: Any, fam: str | None) -> tuple[list[SymbolRecord], list[str]]:
        family = self.family
        matches = [s for s in self.by_name.get(name, ()) if (not kinds or s.kind in kinds) and family.get(s.file) == fam]
        return matches, sorted({s.qualified_name for s in matches})

    def export(self, paths: list[str], name: str) -> list[SymbolRecord]:
        """The symbol exported as ``name`` by the first existing file of ``paths``,
        following re-exports and ``export *`` (memoised; cycles cut)."""
        for path in paths:
            if path in self.files:
                return self._export_of(path, name, set())
        return []

    def _export_of(self, path: str, name: str, visiting: set[tuple[str, str]]) -> list[SymbolRecord]:
        """``_export_walk`` memoised; [] for an export being followed (``visiting``: a cycle) or
        past 64 hops, not memoised."""
        key = (path, name)
        found = self._export_memo.get(key)
        if found is None:
            if export_cut(key, visiting):
                return []
            found = self._export_memo[key] = self._export_walk(path, name, visiting)
        return found

    def _export_walk(self, path: str, name: str, visiting: set[tuple[str, str]]) -> list[SymbolRecord]:
        """What ``path`` exports as ``name``, the exports it follows looked up through
        ``_export_of``; ``(path, name)`` is in ``visiting`` meanwhile."""
        key = (path, name)
        visiting.add(key)
        found: list[SymbolRecord] = []
        exp = self.exports.get(path, {})
        target = exp.get(name)
        if target is not None:
            if "qn" in target:
                found = list(self.by_file_qn.get((path, target["qn"])) or self.by_qn.get(target["qn"], []))
            if not found and "from" in target:
                nxt = next((p for p in target["from"] if p in self.files), None)
                if nxt is not None:
                    found = self._export_of(nxt, target.get("name", name), visiting)
        if not found:
            module = self.file_module.get(path)
            if module is not None:
                found = list(self.members.get((module, name), ()))
        if not found:
            for group in exp.get("*", {}).get("from_all", []):
                nxt = next((p for p in group if p in self.files), None)
                if nxt is not None:
                    found = self._export_of(nxt, name, visiting)
                    if found:
                        break
        visiting.discard(key)
        return found


def named_key(name: str, kinds: Any, fam: str | None) -> tuple[str, tuple[str, ...], str | None] | None:
    """``SymbolTable.named``'s memo key; None (not memoised) for ``kinds`` that are not a
    list of strings (never from the extractors; tested as given)."""
    if not kinds:
        return (name, (), fam)
    if type(kinds) is list and all(type(k) is str for k in kinds):
        return (name, tuple(kinds), fam)
    return None


__all__ = ["MAX_CHAIN", "MAX_EXPORT_HOPS", "TYPE_KINDS", "SymbolTable", "export_cut", "named_key"]

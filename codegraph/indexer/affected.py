"""Refresh: re-resolve only the references a change can reach (docs/DESIGN.md#refresh).

A resolution runs on a ``TracingTable`` (``codegraph.indexer.tracing_table``): the
resolver's ``SymbolTable`` whose lookup structures (``by_qn``, ``by_name``, ``members``,
``exports``, ``files``, ``bases``, ``param_calls`` ... every public dict or set of the
table) record each key looked up, per file of the reference being resolved. These *dependency keys* are kept in the indexer
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
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegraph.core.models import StubRecord, stable_hash
from codegraph.indexer.boundaries import BoundaryLinks, link_boundaries
from codegraph.indexer.languages import link_repo
from codegraph.indexer.records import FileExtraction
from codegraph.indexer.resolve import Decision, Resolution, SymbolTable, link_bases, resolve_repo
from codegraph.indexer.state_deps import SEP, ResolveState, key_text
from codegraph.indexer.tracing_table import FileCounts, StubDict, TracingTable, cached_table

log = logging.getLogger(__name__)

STATE_VERSION = 1  # of the repo-level resolution state below; another value forces a full resolution
_LINK_LANGS_ANY = frozenset({"go"})  # every change feeds the repo-wide link pass (implicit interfaces)
_LINK_LANGS_PATHS = frozenset({"javascript", "typescript", "tsx"})  # added / removed files do
# Repo-wide link passes that read every file's references (Go interfaces, the JS/TS module
# map, JVM injection): a repo with one of these languages reads all references up front.
_EAGER_LANGS = _LINK_LANGS_ANY | _LINK_LANGS_PATHS | frozenset({"java", "kotlin"})


# -- what changed ------------------------------------------------------------------------
def contributions(repo: str, extractions: list[FileExtraction]) -> dict[tuple[str, Any], Any]:
    """(structure, key) -> value for the table entries these files make."""
    out: dict[tuple[str, Any], Any] = {}
    for tag, val in SymbolTable(repo, extractions).structures().items():
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
    table = cached_table(repo, all_fx, state)
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
    pos = stubs.pos if isinstance(stubs, StubDict) else {}
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
    stubs = StubDict(table)
    counts = FileCounts(table)
    res = Resolution(stubs=stubs, counts=counts)
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

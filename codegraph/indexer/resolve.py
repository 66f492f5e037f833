"""Resolution: turn extracted References into Edges or UnresolvedSymbol stubs.

Rules (docs/DESIGN.md#resolution): the candidates an extractor listed are tried in order
(exact qualified name, a member looked up on a class and its bases, an export of a file
following re-exports, a file path); then, only where the extractor allowed it, the
unique (repo, name) match; else a stub. Several matches make an ``ambiguous`` stub:
never pick one arbitrarily. Overloads (same qualified name, several signature hashes)
are narrowed by argument count and literal argument types (``codegraph.indexer.overloads``);
when several remain they all receive the edge, labelled ``overload``. The unique-name
fallback never crosses language families (``languages.family``).

Works on the whole repository's extraction in memory (dict lookups only), so a full
re-resolution after any change costs seconds even for the standard library.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from codegraph.core.models import (
    CALLS,
    EXTENDS,
    IMPLEMENTS,
    IMPORTS,
    NAME_CONFIDENCE,
    REFERENCES,
    USES_TYPE,
    Edge,
    StubRecord,
    SymbolRecord,
    edge_key,
    file_uid,
    stub_target,
    stub_uid,
)
from codegraph.core.triage_model import ResolverDecision as Decision  # one definition (core, docs/DESIGN.md#users)
from codegraph.indexer.candidates import try_candidate
from codegraph.indexer.dispatch import link_overrides
from codegraph.indexer.hints import (
    NO_HINTS,
    Candidate,
    ExportMember,
    GoImport,
    HintError,
    Member,
    ParamCall,
    Pass,
    QualifiedName,
    RefHints,
    SuperMember,
    reference_hints,
)
from codegraph.indexer.overloads import choose
from codegraph.indexer.records import FileExtraction, Reference
from codegraph.indexer.resolve_memo import ExtraMemo
from codegraph.indexer.symbol_table import MAX_CHAIN, TYPE_KINDS, SymbolTable

log = logging.getLogger(__name__)

_INHERITANCE = (EXTENDS, IMPLEMENTS)


@dataclass(slots=True)
class Resolution:
    """Result of resolving one repository.

    ``edges``: evidence file -> edges whose evidence lies in that file.
    ``stubs``: stub uid -> StubRecord referenced by at least one edge.
    ``counts``: resolution label -> number of edges, plus ``missing``/``ambiguous``.
    """

    edges: dict[str, list[Edge]] = field(default_factory=dict)
    stubs: dict[str, StubRecord] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)


def _source_uid(table: SymbolTable, ref: Reference) -> str | None:
    if ref.source_kind == "file":
        return file_uid(table.repo, ref.file) if ref.file in table.files else None
    syms = table.by_file_qn.get((ref.file, ref.source_qualified_name)) or []
    if not syms:
        # Declared elsewhere (Rust `impl Trait for Type` far from `Type`): only a unique match.
        elsewhere = table.by_qn.get(ref.source_qualified_name) or []
        syms = elsewhere if len({s.uid for s in elsewhere}) == 1 else []
    if ref.source_signature_hash:
        syms = [s for s in syms if s.signature_hash == ref.source_signature_hash] or syms
    return syms[0].uid if syms else None


def _targets(table: SymbolTable, ref: Reference, hints: RefHints, family_of: Callable[[], str | None] | None = None,
             ) -> tuple[list[SymbolRecord] | list[str], str, StubRecord | None]:
    """(targets, resolution label, stub) for one reference. ``family_of``: the language family
    of the reference's file, asked only when the unique-name fallback is reached (default:
    the table's)."""
    inherited_from_outside = False
    for cand in hints.candidates:
        found, how = try_candidate(table, cand)
        if found:
            return found, how, None
        kind = type(cand)  # no hint kind has subclasses
        if kind is Member or kind is SuperMember:
            owner = cand.owner if kind is Member else cand.super_of  # type: ignore[union-attr]
            if owner and table.owner_has_external_base(owner):
                inherited_from_outside = True
        if (kind is Member or kind is ExportMember) and _typed_by_declared_type(table, cand):
            # The receiver's type is a type alias / interface of the repo that lacks the
            # member: a class elsewhere with a method of that name is not it.
            inherited_from_outside = True
    name = None if inherited_from_outside else ref.extra.get("name")
    if name:
        kinds = ref.extra.get("name_kinds")
        fam = family_of() if family_of is not None else table.family.get(ref.file)
        # Never across languages (JVM, JS/TS and C/C++ share among themselves).
        matches, distinct = table.named(name, kinds, fam)
        if len(distinct) == 1:
            return matches, "unique_name", None
        if len(distinct) > 1:
            return [], "stub", StubRecord(table.repo, ref.target_identifier, "ambiguous", len(distinct), distinct[:50])
    if ref.extra.get("optional"):
        return [], "", None
    return [], "stub", StubRecord(table.repo, ref.target_identifier, "missing", 0, [])


_DECLARED_TYPES = frozenset({"type", "interface"})
# What an annotation can name: a type, a TS type alias (kind ``type``) too; not a module.
ANNOTATED_KINDS = (TYPE_KINDS - {"module", "namespace"}) | {"type"}
# REFERENCES name a function, class or method used as a value (docs/DESIGN.md#graph-model): an
# import of a constant or a module handed around is not one.
NOT_REFERENCED = frozenset({"module", "variable", "constant", "field", "property"})


def _typed_by_declared_type(table: SymbolTable, cand: Candidate) -> bool:
    """A member candidate whose owner is a type alias / interface of the repo."""
    if isinstance(cand, Member):
        owners = table.by_qn.get(cand.owner, ())
    elif isinstance(cand, ExportMember):
        owners = table.export(list(cand.owner.files), cand.owner.export)
    else:
        return False
    return any(o.kind in _DECLARED_TYPES for o in owners)


def _lookup_keys(ref: Reference, hints: RefHints) -> list[str]:
    """Qualified names a stub's candidates named (``qn``, ``owner``+``member``), other
    than its target identifier: where another repository may declare it."""
    keys: list[str] = []
    for c in hints.candidates:
        match c:
            case QualifiedName(qn=qn):
                keys.append(qn)
            case Member(owner=owner, member=member):
                keys.append(f"{owner}.{member}")
            case GoImport(import_path=ip, qn=qn) if qn:
                keys.append(f"{ip}.{qn}")
            case GoImport(import_path=ip, owner=owner, member=member) if owner and member:
                keys.append(f"{ip}.{owner}.{member}")
    return [k for k in dict.fromkeys(keys) if k and k != ref.target_identifier][:6]


_BAD_HINTS = RefHints()  # a reference whose hints are malformed: resolved as with none


def _hints(ref: Reference) -> RefHints:
    """The reference's hints parsed; malformed ones give ``_BAD_HINTS`` (logged once per
    process, counted ``bad_hint`` by :func:`resolve_refs`): the reference still falls
    back to its name or a stub, as with no candidate."""
    try:
        return reference_hints(ref.extra)
    except HintError as e:
        global _BAD_LOGGED
        if not _BAD_LOGGED:
            _BAD_LOGGED = True
            log.warning("%s:%s: %s (first malformed resolution hint; counted as bad_hint)", ref.file, ref.line, e)
        return _BAD_HINTS


_BAD_LOGGED = False


def parsed_hints(refs: Iterable[Reference]) -> list[tuple[Reference, RefHints]]:
    """Each reference with its ``_hints``, parsed once per distinct target identifier and
    ``extra`` (``codegraph.indexer.resolve_memo``: references repeating one share its
    RefHints, which nothing mutates)."""
    return list(_with_hints(refs))


def _with_hints(refs: Iterable[Reference]) -> Iterator[tuple[Reference, RefHints]]:
    memo: ExtraMemo[str, RefHints] = ExtraMemo()
    get, put = memo.get, memo.put
    for r in refs:
        h = get(r.target_identifier, r.extra)
        if h is None:
            h = _hints(r)
            if h is NO_HINTS:
                h = RefHints()  # one object per distinct extra: resolve_refs keeps plans per object
            put(r.target_identifier, r.extra, h)
        yield r, h


def _split_hints(refs: Iterable[Reference]) -> tuple[list[tuple[Reference, RefHints]], list[tuple[Reference, RefHints]]]:
    """``parsed_hints`` of ``refs`` as (the EXTENDS / IMPLEMENTS references, the others),
    each in order: one pass."""
    inheritance: list[tuple[Reference, RefHints]] = []
    others: list[tuple[Reference, RefHints]] = []
    inh, oth = inheritance.append, others.append
    for item in _with_hints(refs):
        if item[0].type in _INHERITANCE:
            inh(item)
        else:
            oth(item)
    return inheritance, others


_PASSTHROUGH_EXTRA = ("names", "forwarding", "external", "url", "arity", "jsx", "callback", "alias", "dynamic", "type_only",
                      "inject")
_PASSTHROUGH_SET = frozenset(_PASSTHROUGH_EXTRA)


def link_bases(table: SymbolTable, extractions: list[FileExtraction]) -> None:
    """Resolve every EXTENDS / IMPLEMENTS reference into ``table.bases`` (and
    ``table.external_bases`` for a base not in the repo), before any member lookup."""
    table.bases_final(False)
    for fx in extractions:
        for ref in fx.references:
            if ref.type not in _INHERITANCE:
                continue
            table.begin(ref.file, True)
            found, _, _ = _targets(table, ref, _hints(ref))
            if not found:
                table.external_bases.add(ref.source_qualified_name)
            for t in found:
                if isinstance(t, SymbolRecord) and t.qualified_name != ref.source_qualified_name:
                    table.bases[ref.source_qualified_name].append(t.qualified_name)
    table.bases_final(True)


def resolve_repo(
    repo: str, extractions: list[FileExtraction], decisions: dict[str, Decision] | None = None, *,
    table: SymbolTable | None = None, only: set[str] | None = None, res: Resolution | None = None,
) -> Resolution:
    """Resolve every reference of one repository.

    ``extractions`` is the whole repository (unchanged files from the state cache,
    changed ones freshly extracted). ``decisions`` (target_identifier -> Decision) are
    triage decisions re-applied on every run. Returns a Resolution; never raises on
    unresolvable input (that is what stubs are for).

    For a refresh (``codegraph.indexer.affected``, docs/DESIGN.md#refresh): ``table`` is
    built from ``extractions`` by the caller, who ran ``link_bases`` on it; ``only`` limits
    the references resolved to those of these files (the table still holds every file);
    ``res`` is the Resolution filled in.

    With ``CODEGRAPH_RESOLVE_SPLIT=1``, many references are resolved by two processes, the
    files split between them (``codegraph.indexer.resolve_split``); the result is the same.
    """
    if table is None:
        table = SymbolTable(repo, extractions)
        link_bases(table, extractions)
    decisions = decisions or {}
    res = res if res is not None else Resolution()
    fxs = [fx for fx in extractions if only is None or fx.file.path in only]
    seen: set[tuple[str, str, str, str, int]] = set()
    passes: list[tuple[int, Reference, Pass, list[SymbolRecord]]]
    from codegraph.indexer import resolve_split  # noqa: PLC0415 (it imports this module)

    if resolve_split.worth_it(fxs, res):
        passes, others = resolve_split.resolve_split(table, repo, fxs, decisions, res, seen)
    else:
        # Hints parsed once per reference (codegraph.indexer.hints), dispatched on their types.
        # Inheritance first: member lookups on receivers walk the resolved bases.
        inheritance, others = _split_hints(r for fx in fxs for r in fx.references)
        passes = []
        resolve_refs(table, repo, inheritance + others, decisions, res, seen, passes, table.begin, None)
    param_calls = table.param_calls
    for _, ref, handed, values in passes:
        table.begin(ref.file)
        _link_parameter(table, handed, values, param_calls, res, seen)
    link_overrides(table, others, res, seen, _source_uid)  # self.m() may run a subclass's m
    return res


def resolve_refs(
    table: SymbolTable, repo: str, items: list[tuple[Reference, RefHints]], decisions: dict[str, Decision],
    res: Resolution, seen: set[tuple[str, str, str, str, int]],
    passes: list[tuple[int, Reference, Pass, list[SymbolRecord]]],
    begin: Callable[[str | None, bool], None], stub_sets: list[tuple[int, StubRecord]] | None,
) -> None:
    """Resolve ``items`` (references with their parsed hints, in order) into ``res``.

    ``seen``: keys of the edges added (each edge once); ``passes``: filled with the values
    handed to a callee's parameter, (item index, reference, hint, values), linked by the
    caller once every reference is resolved; ``begin``: the table's ``begin`` (or one that
    records nothing, ``codegraph.indexer.resolve_split``); ``stub_sets``: when given, each
    stub record set in ``res.stubs`` as (item index, record), the order the split replays.
    """
    edges = res.edges
    stubs = res.stubs
    param_calls = table.param_calls
    # A file's references mostly come from a few sources: each one is looked up once per
    # run of the file's references (what the look-up recorded is already in that file's
    # keys, codegraph.indexer.affected, so a hit needs nothing recorded again).
    sources: dict[tuple[str, str, str | None], str | None] = {}
    # What a reference resolves to (``_plan``) depends on its type, name and ``extra`` and,
    # when it falls back to the unique name, on its file's language family: kept for the
    # run with the keys it read (codegraph.indexer.resolve_memo).
    plans: dict[tuple[str, int], tuple[RefHints, list[_Shared]]] = {}
    has_param_calls = bool(param_calls)
    # Counts of the current run of one file's references, added to ``res.counts`` when the
    # run ends: once per label (a recording Counter's __setitem__ is Python code).
    tally: dict[str, int] = {}
    at: str | None = None
    at_inh = False
    begun = 0
    cur: Any = None  # the table's cursor for the current reference (``SymbolTable.cursor``)
    file_edges: list[Edge] | None = None  # edges[at] once the run's file has one
    for i, (ref, hints) in enumerate(items):
        rtype, file = ref.type, ref.file
        inh = rtype in _INHERITANCE
        if file != at or inh is not at_inh:
            if tally:
                _add_counts(res.counts, tally)  # before begin: counted for the run's file
            if file != at:
                sources.clear()
                file_edges = None
            at, at_inh, begun = file, inh, 0
        if begun < 2:
            # Every reference of a run begins the same: the second begin has done all that
            # later ones would (codegraph.indexer.affected: begin records the file's own
            # key into the current keys, so the first call records it into the last file's).
            begin(file, inh)
            begun += 1
            cur = table.cursor()
        if hints is _BAD_HINTS:  # counted after begin: a refresh counts them for the file
            tally["bad_hint"] = tally.get("bad_hint", 0) + 1
        elif hints.unknown:
            tally["unknown_hint"] = tally.get("unknown_hint", 0) + hints.unknown
        skey = (ref.source_kind, ref.source_qualified_name, ref.source_signature_hash)
        if skey in sources:
            src = sources[skey]
        else:
            src = sources[skey] = _source_uid(table, ref)
        if src is None:
            tally["dropped_no_source"] = tally.get("dropped_no_source", 0) + 1
            continue
        decision = decisions.get(ref.target_identifier) if decisions else None
        if decision is not None and decision.scoped:
            decision = decision.at(file, ref.line, src)
        if decision is not None and decision.action in ("external", "ignore"):
            label = f"decision_{decision.action}"
            tally[label] = tally.get(label, 0) + 1
            continue
        if decision is not None and decision.action == "resolve":
            targets: list[str] = [decision.symbol_uid]
            how = "exact"
            extra = _passthrough(ref)
            extra["decision"] = "resolve"
        else:
            # ``items`` share a RefHints only between references with the same target
            # identifier and equal ``extra`` (parsed_hints), the malformed ones excepted.
            pkey = (rtype, id(hints))
            kept = plans.get(pkey) if hints is not _BAD_HINTS else None
            shared = kept[1] if kept is not None and kept[0] is hints else None
            plan = None
            if shared is not None:
                for used, fam, p, keys in shared:
                    # Family asked through the table: recorded for this file as a computation would.
                    if used and fam != table.family.get(file):
                        continue
                    if keys and cur is not None:
                        cur |= keys
                    plan = p
                    break
            if plan is None:
                one = _shared_plan(table, repo, ref, hints, has_param_calls, cur)
                if shared is None:
                    plans[pkey] = (hints, [one])
                else:
                    shared.append(one)
                plan = one[2]
            targets, how, extra, stub, handed = plan
            if stub is not None:
                uid = targets[0]  # the stub's uid (_plan)
                # Read past a recording dict's ``get``: the plan's keys hold this look-up (_plan).
                prev = dict.get(stubs, uid)
                if prev is None or (stub.reason == "ambiguous" and prev.reason != "ambiguous"):
                    stubs[uid] = stub
                    if stub_sets is not None:
                        stub_sets.append((i, stub))
                tally[stub.reason] = tally.get(stub.reason, 0) + 1
            elif handed is not None:
                if handed:
                    passes.append((i, ref, hints.pass_, handed))  # type: ignore[arg-type]
                if ref.extra.get("pass_only"):
                    continue
            if not targets:
                continue
        line = ref.line
        for tgt in targets:
            if tgt == src:
                continue
            k = edge_key(rtype, src, tgt, file, line)
            if k in seen:
                continue
            seen.add(k)
            edge = Edge(rtype, src, tgt, file, line, how if how else "exact", dict(extra))
            if file_edges is None:
                file_edges = edges.setdefault(file, [])
            file_edges.append(edge)
            if how and how != "stub":
                tally[how] = tally.get(how, 0) + 1
    if tally:
        _add_counts(res.counts, tally)


def _add_counts(counts: Counter[str], tally: dict[str, int]) -> None:
    """``counts`` += ``tally`` in ``tally``'s order (first counted first, as one by one), emptied."""
    for k, v in tally.items():
        counts[k] += v
    tally.clear()


# What one reference resolves to, before the source and the edges: (target uids, label,
# extra of its edges, stub, values handed to a callee's parameter — None unless ``pass``).
_Plan = tuple[list[str], str, dict[str, Any], StubRecord | None, list[SymbolRecord] | None]


# A plan shared by the run: (the file's family was asked, that family, the plan, the keys its
# computation read but that one — the recording table's (structure, key) pairs; empty for a plain table).
_Shared = tuple[bool, str | None, _Plan, set[tuple[str, Any]]]


def _shared_plan(table: SymbolTable, repo: str, ref: Reference, hints: RefHints, has_param_calls: bool,
                 cur: Any) -> _Shared:
    """``_plan`` of ``ref`` with the keys its look-ups read recorded apart (the table's
    ``cursor`` moved to a set of its own; ``cur``, the reference's file's, gets them too) and
    its file's family asked through ``cur``: a later reference with the same plan in another
    file adds the keys and asks its own family."""
    inner: set[tuple[str, Any]] = set()
    asked: list[str | None] = []

    def family_of() -> str | None:
        table.set_cursor(cur)
        try:
            fam = table.family.get(ref.file)
        finally:
            table.set_cursor(inner)
        asked.append(fam)
        return fam

    table.set_cursor(inner)
    try:
        plan = _plan(table, repo, ref, hints, has_param_calls, family_of)
    finally:
        table.set_cursor(cur)
    if cur is not None:
        cur |= inner
    return bool(asked), asked[0] if asked else None, plan, inner


def _passthrough(ref: Reference) -> dict[str, Any]:
    """The keys of ``ref.extra`` its edges keep (``_PASSTHROUGH_EXTRA``, in that order)."""
    ex = ref.extra
    if ex.keys().isdisjoint(_PASSTHROUGH_SET):
        return {}
    return {k: ex[k] for k in _PASSTHROUGH_EXTRA if k in ex}


def _plan(table: SymbolTable, repo: str, ref: Reference, hints: RefHints, has_param_calls: bool,
          family_of: Callable[[], str | None]) -> _Plan:
    """The targets of ``ref`` (no triage decision applies) and its edges' label and extra:
    the same for every reference with the same type, target identifier and ``extra`` whose
    file is of the same family (``family_of``: asked only by the unique-name fallback)."""
    extra = _passthrough(ref)
    found, how, stub = _targets(table, ref, hints, family_of)
    targets: list[str]
    if stub is not None:
        # Every reference with this plan looks its stub up in ``res.stubs`` (resolve_refs):
        # the key that look-up reads is the plan's, recorded for each file that uses it.
        uid = stub.uid
        table.note(("stub", uid))
        extra["target_identifier"] = ref.target_identifier
        lookup = _lookup_keys(ref, hints)
        if lookup:  # qualified names the cross-repo pass may find in another repo
            extra["lookup"] = lookup
        if ref.extra.get("arg_types"):  # and how it may choose among overloads there
            extra["arg_types"] = ref.extra["arg_types"]
        return [uid], how, extra, stub, None
    if not found:
        return [], how, extra, None, None  # optional reference with nothing to link
    if hints.pass_ is not None:
        # A value handed to a callee: the callee's calls of that parameter get the edge
        # (resolve_repo); the REFERENCES edge itself is recorded where the value is named,
        # unless the hint says so (``pass_only``).
        syms = [s for s in found if isinstance(s, SymbolRecord) and s.kind != "module"]
        return [s.uid for s in syms], how, extra, None, syms if has_param_calls else []
    if how == "module_alias" and ref.type != IMPORTS:
        # The name as written (``os.path.join``) reaches a symbol of another
        # name (``posixpath.join``): kept so a query for the written name finds it.
        extra["written_as"] = ref.target_identifier
        targets = [s.uid for s in found if isinstance(s, SymbolRecord)]
    elif ref.type == IMPORTS or isinstance(found[0], str):
        # An import that names a class (Java/Kotlin/C#) links the declaring file.
        targets = sorted({file_uid(repo, p if isinstance(p, str) else p.file) for p in found})
    elif ref.type == REFERENCES:
        targets = [s.uid for s in found if isinstance(s, SymbolRecord) and s.kind not in NOT_REFERENCED]
    elif ref.type == USES_TYPE and how == "annotation":
        # An annotation names a type: a function or module of that name is not one.
        targets = [s.uid for s in found if isinstance(s, SymbolRecord) and s.kind in ANNOTATED_KINDS]
    else:
        syms = choose([s for s in found if isinstance(s, SymbolRecord)], ref.extra.get("arity"),
                      ref.extra.get("arg_types"))
        if len({s.signature_hash for s in syms}) > 1 and len({s.qualified_name for s in syms}) == 1:
            how = "overload"
        targets = [s.uid for s in syms]
        if how in NAME_CONFIDENCE:
            # One call, several overloads it may reach: each edge is one of n.
            extra["confidence"] = round(NAME_CONFIDENCE[how] / (len(targets) if how == "overload" else 1), 3)
    return targets, how, extra, None, None


def _link_parameter(table: SymbolTable, p: Pass, values: list[SymbolRecord],
                    param_calls: dict[str, list[Reference]], res: Resolution,
                    seen: set[tuple[str, str, str, str, int]]) -> None:
    """``run(work)`` where ``run`` calls its parameter: CALLS run -> work, evidence at
    the parameter's call site, resolution ``parameter``. A class handed over is
    instantiated there: its ``__init__`` too (when it has one)."""
    callees: list[SymbolRecord] = []
    for cand in p.callee:
        found, _ = try_candidate(table, cand)
        if found:
            callees = [s for s in found if isinstance(s, SymbolRecord)]
            break
    for callee in callees:
        for pc_ref in param_calls.get(callee.qualified_name, ()):
            pc = ParamCall.parse(pc_ref.extra["param_call"])  # checked when the table was built
            if not ((p.kw is not None and pc.name == p.kw) or (p.index is not None and pc.index == p.index)):
                continue
            src = _source_uid(table, pc_ref)
            if src is None:
                continue
            for v in values:
                tgts = [v]
                if v.kind == "class":
                    tgts += table.member(v.qualified_name, "__init__")
                for t in tgts:
                    if t.uid == src:
                        continue
                    edge = Edge(CALLS, src, t.uid, pc_ref.file, pc_ref.line, "parameter", {})
                    k = edge.key()
                    if k not in seen:
                        seen.add(k)
                        res.edges.setdefault(pc_ref.file, []).append(edge)
                        res.counts["parameter"] += 1


__all__ = ["MAX_CHAIN", "TYPE_KINDS", "Decision", "Resolution", "SymbolTable", "link_bases", "resolve_repo", "stub_target", "stub_uid"]

"""Dispatch through ``self``: a call ``self.m()`` / ``cls.m()`` in class ``B`` may run
the override of ``m`` in any subclass of ``B`` (the object's class decides at run time),
so besides the edge to the method it resolved to, the call gets one CALLS edge to each
override declared on a class below ``B``, resolution ``dispatch`` (docs/DESIGN.md#resolution).

Class-hierarchy analysis restricted to the receiver the language guarantees: only
Python ``self`` / ``cls`` calls (the extractor's first candidate ``{"owner": B,
"member": m, "how": "self"}``; ``super().m()`` and ``B.m(self)`` name the implementation
and get nothing), only when the call resolved, only subclasses found through resolved
EXTENDS, never a name-mangled ``__m``. Nothing is guessed by name: an override is a
method of that name declared on a descendant class of ``B``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from codegraph.core.models import CALLS, Edge
from codegraph.indexer.hints import Member, RefHints
from codegraph.indexer.records import Reference

if TYPE_CHECKING:
    from codegraph.indexer.resolve import Resolution, SymbolTable

DISPATCH_FAMILIES = frozenset({"python"})


def link_overrides(table: SymbolTable, refs: Iterable[tuple[Reference, RefHints]], res: Resolution,
                   seen: set[tuple[str, str, str, str, int]],
                   source_uid: Callable[[SymbolTable, Reference], str | None]) -> None:
    """Add the ``dispatch`` edges of every ``self.m()`` call among ``refs`` (each with its
    parsed hints, ``codegraph.indexer.hints``) to ``res`` (``seen``: edge keys already
    added; ``source_uid``: the resolver's caller lookup)."""
    children: dict[str, list[str]] | None = None
    below: dict[str, list[str]] = {}
    for ref, hints in refs:
        if not may_dispatch(ref, hints):
            continue
        first = hints.candidates[0]
        assert isinstance(first, Member)
        member = first.member
        if member.startswith("__") and not member.endswith("__"):
            continue  # name-mangled: a subclass's __m is another attribute
        if table.family.get(ref.file) not in DISPATCH_FAMILIES:
            continue
        owner = first.owner
        table.begin(ref.file)
        resolved = table.member(owner, member)
        if not resolved:
            continue
        if children is None:
            children = defaultdict(list)
            for sub, bases in table.bases.items():
                for b in bases:
                    children[b].append(sub)
        subs = below.get(owner)
        if subs is None:
            subs = below[owner] = _descendants(owner, children)
        for c in (owner, *subs):  # for a refresh: a subclass added below any of them
            table.note(("subclasses", c))
        if not subs:
            continue
        src = source_uid(table, ref)
        if src is None:
            continue
        done = {s.uid for s in resolved}
        for sub in subs:
            for o in table.members.get((sub, member), ()):
                if o.uid in done or o.uid == src or o.kind not in ("method", "function"):
                    continue
                done.add(o.uid)
                edge = Edge(CALLS, src, o.uid, ref.file, ref.line, "dispatch", {})
                k = edge.key()
                if k not in seen:
                    seen.add(k)
                    res.edges.setdefault(ref.file, []).append(edge)
                    res.counts["dispatch"] += 1


def may_dispatch(ref: Reference, hints: RefHints) -> bool:
    """Is ``ref`` a ``self.m()`` / ``cls.m()`` call (its first candidate a ``self``
    member)? Decided from the reference alone: the references ``link_overrides`` reads
    may be filtered with it first (``codegraph.indexer.resolve_split``)."""
    if ref.type != CALLS or not hints.candidates:
        return False
    first = hints.candidates[0]
    return isinstance(first, Member) and first.how == "self"


def _descendants(qn: str, children: dict[str, list[str]]) -> list[str]:
    """Every class below ``qn`` (breadth-first, each once)."""
    out: list[str] = []
    seen = {qn}
    frontier = [qn]
    while frontier:
        nxt = []
        for c in frontier:
            for sub in children.get(c, ()):
                if sub not in seen:
                    seen.add(sub)
                    out.append(sub)
                    nxt.append(sub)
        frontier = nxt
    return out

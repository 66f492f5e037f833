"""One definition of each headline figure, and which way each count should move.

Every face that shows a count (the dashboard pages, ``codegraph stats``, ``codegraph
baseline``, the MCP ``stats`` tool) takes it from here, so the same graph gives the
same number everywhere (docs/DESIGN.md#faces):

- ``edges``: derived edges (CALLS, IMPORTS, ... every type but the structural
  IN_REPO / DECLARES), including those that end at an UnresolvedSymbol stub;
- ``stubs``: UnresolvedSymbol nodes (distinct unresolved targets);
- ``reference_edges``: CALLS / EXTENDS / IMPLEMENTS / USES_TYPE / INJECTS / IMPORTS edges,
  resolved or not; ``stub_references``: those of them that end at a stub;
- ``unresolved_pct``: 100 * stub_references / reference_edges (None without references);
- ``unsupported_files``: File nodes without an extractor plus the files of languages the
  indexer does not read, counted by extension at index time (Repo ``unsupported``).

Metric direction: ``LOWER_IS_BETTER`` lists the snapshot counts whose fall is progress
(a triager resolving stubs, a parser fix); every other count is better higher, so only
its fall is a regression (``regressions``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from codegraph.core.graph_store import GraphStore
from codegraph.core.models import (
    CALLS,
    EXTENDS,
    FILE,
    IMPLEMENTS,
    IMPORTS,
    INJECTS,
    STRUCTURAL_EDGES,
    STUB,
    SYMBOL,
    USES_TYPE,
)

REFERENCE_EDGES = (CALLS, EXTENDS, IMPLEMENTS, USES_TYPE, INJECTS, IMPORTS)
_PAGE = 5000

# Snapshot keys (core.baselines.flat_counts) whose fall is progress, never a drop.
LOWER_IS_BETTER = frozenset({"stubs", "stub_references", "unresolved_pct", "parse_errors", "partial_files",
                             "unsupported_files"})


def lower_is_better(key: str) -> bool:
    """True when a fall of the count ``key`` is an improvement (stubs, parse errors...)."""
    return key in LOWER_IS_BETTER


def direction(key: str) -> str:
    """"lower" or "higher": which way the count ``key`` should move."""
    return "lower" if lower_is_better(key) else "higher"


@dataclass(slots=True)
class Figures:
    """The headline figures of one repo or of all (see the module docstring)."""

    repos: int = 0
    files: int = 0
    symbols: int = 0
    edges: int = 0
    stubs: int = 0
    reference_edges: int = 0
    stub_references: int = 0
    parse_errors: int = 0
    partial_files: int = 0
    unsupported_files: int = 0
    edges_by_type: dict[str, int] = field(default_factory=dict)
    unsupported_by_extension: dict[str, int] = field(default_factory=dict)

    @property
    def resolved_references(self) -> int:
        return max(0, self.reference_edges - self.stub_references)

    @property
    def unresolved_pct(self) -> float | None:
        """Share of reference edges that end at a stub, in percent (2 decimals)."""
        if not self.reference_edges:
            return None
        return round(100 * self.stub_references / self.reference_edges, 2)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "resolved_references": self.resolved_references,
                "unresolved_pct": self.unresolved_pct}


def combine(parts: list[Figures]) -> Figures:
    """The figures of several repos (a workspace) from each repo's: every count adds up,
    so the shares (unresolved %) are of the sums, exactly as ``figures(store, None)`` is
    for every repo."""
    out = Figures()
    for f in parts:
        for name in ("repos", "files", "symbols", "edges", "stubs", "reference_edges", "stub_references",
                     "parse_errors", "partial_files", "unsupported_files"):
            setattr(out, name, getattr(out, name) + getattr(f, name))
        for attr in ("edges_by_type", "unsupported_by_extension"):
            d = getattr(out, attr)
            for k, v in getattr(f, attr).items():
                d[k] = d.get(k, 0) + v
    out.edges_by_type = dict(sorted(out.edges_by_type.items()))
    return out


def derived_edges(edge_counts: dict[str, int]) -> dict[str, int]:
    """The edge counts of GraphStore.counts() without the structural types."""
    return {k: v for k, v in edge_counts.items() if k not in STRUCTURAL_EDGES}


def stub_references(store: GraphStore, repo: str | None) -> dict[str, int]:
    """repo -> number of edges that end at an UnresolvedSymbol (counted by the store)."""
    direct = getattr(store, "stub_reference_counts", None)
    if direct is not None:  # one query (embedded); otherwise the ranked pages are summed
        return direct(repo)
    out: Counter[str] = Counter()
    offset = 0
    while True:
        part = store.stubs_ranked(repo, limit=_PAGE, offset=offset)
        for node, refs in part:
            out[node.repo] += refs
        if len(part) < _PAGE:
            return dict(out)
        offset += _PAGE


def unsupported_by_extension(store: GraphStore, repo: str | None) -> dict[str, int]:
    """Extension -> files of languages the indexer does not read (Repo ``unsupported``)."""
    out: Counter[str] = Counter()
    for r in store.repos():
        if repo and r.props.get("name") != repo:
            continue
        data = r.props.get("unsupported")
        if isinstance(data, dict):
            out.update({str(k): int(v) for k, v in data.items()})
    return dict(out)


def from_counts(counts: dict[str, Any], stub_refs: int, unsupported: dict[str, int], repos: int) -> Figures:
    """Figures from one GraphStore.counts() answer plus the two extra reads."""
    nodes, edges = counts.get("nodes", {}), derived_edges(counts.get("edges", {}))
    return Figures(
        repos=repos, files=nodes.get(FILE, 0), symbols=nodes.get(SYMBOL, 0), edges=sum(edges.values()),
        stubs=nodes.get(STUB, 0), reference_edges=sum(edges.get(t, 0) for t in REFERENCE_EDGES),
        stub_references=stub_refs, parse_errors=int(counts.get("parse_errors", 0)),
        partial_files=int(counts.get("partial_files", 0)),
        unsupported_files=int(counts.get("coverage", {}).get("unsupported", 0)) + sum(unsupported.values()),
        edges_by_type=dict(sorted(edges.items())), unsupported_by_extension=unsupported)


def figures(store: GraphStore, repo: str | None = None, counts: dict[str, Any] | None = None) -> Figures:
    """The figures of ``repo`` (None: every repo). ``counts`` may pass a GraphStore.counts()
    answer already read (the dashboard caches it)."""
    c = counts if counts is not None else store.counts(repo)
    repos = 1 if repo else sum(1 for _ in store.repos())
    return from_counts(c, sum(stub_references(store, repo).values()), unsupported_by_extension(store, repo), repos)


# ---------------------------------------------------------------------------- direction-aware comparison
@dataclass(slots=True)
class Drop:
    """A count that fell: ``baseline`` -> ``current``, ``percent`` of the baseline."""

    key: str
    baseline: int
    current: int
    percent: float
    disappeared: list[str] = field(default_factory=list)


def compare(base: dict[str, int], cur: dict[str, int], threshold_pct: float) -> list[Drop]:
    """Every count that fell by more than ``threshold_pct`` percent (or to zero), whatever
    its direction."""
    drops = []
    for k, b in sorted(base.items()):
        if not isinstance(b, int | float):
            continue
        c = cur.get(k, 0)
        if b > 0 and c < b and ((b - c) * 100.0 / b > threshold_pct or c == 0):
            drops.append(Drop(k, int(b), int(c), round((b - c) * 100.0 / b, 1)))
    return drops


def regressions(base: dict[str, int], cur: dict[str, int], threshold_pct: float) -> list[Drop]:
    """The drops that are bad news: counts that are better higher and fell by more than
    the threshold (a fall of stubs or parse errors is progress, not listed)."""
    return [d for d in compare(base, cur, threshold_pct) if not lower_is_better(d.key)]

"""The shapes an impact answer is made of (``ImpactResult`` and its parts).

Every caller carries its depth, the path that reaches it and the evidence file:line of
the edge; totals and shown counts make truncation explicit (docs/DESIGN.md#impact).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from codegraph.core.models import Node, Step

EMPTY_NOTICE = (
    "An empty or short answer means no supported relationship was found, not that nothing "
    "can break: dynamic dispatch, reflection, string-built calls and unsupported languages are invisible."
)


@dataclass(slots=True)
class NodeRef:
    """A node as answers show it."""

    uid: str
    label: str
    name: str
    qualified_name: str
    kind: str
    repo: str
    file: str
    line: int
    params: str | None = None  # parameter types of an overloadable callable (SymbolRecord.params)

    @staticmethod
    def of(n: Node) -> NodeRef:
        p = n.props
        return NodeRef(
            uid=n.uid, label=n.label, name=p.get("name") or n.display(),
            qualified_name=p.get("qualified_name") or n.display(), kind=p.get("kind") or n.label.lower(),
            repo=p.get("repo", ""), file=p.get("file") or p.get("path") or "", line=int(p.get("line") or 0),
            params=p.get("params"))


@dataclass(slots=True)
class Caller:
    """One node in the blast radius. ``path`` runs from this caller to the target
    (qualified names); ``via`` is the edge type; ``evidence_file``/``evidence_line``
    where the code shows it; ``resolution`` how that edge was resolved."""

    node: NodeRef
    depth: int
    path: list[str]
    via: str
    evidence_file: str
    evidence_line: int
    resolution: str
    is_test: bool = False
    sites: list[str] = field(default_factory=list)  # every "file:line" where it reaches the radius
    confidence: float = 1.0  # of the edge that reached it (models.edge_confidence; < 1 for name matches)


@dataclass(slots=True)
class EntryPoint:
    kind: str  # test | endpoint | page | consumer
    node: NodeRef
    depth: int
    reason: str


@dataclass(slots=True)
class Unresolved:
    """Stubs that share the target's name: call sites that might reach it but could
    not be linked (ambiguous or missing). The honest boundary of the answer."""

    target_identifier: str
    reason: str
    references: int


@dataclass(slots=True)
class ImpactResult:
    query: str
    depth: int
    targets: list[NodeRef]
    callers: list[Caller]
    entry_points: list[EntryPoint]
    tables: list[dict[str, Any]]
    unresolved: list[Unresolved]
    total_callers: int
    shown_callers: int
    truncated: bool
    steps: list[Step]
    freshness: list[dict[str, Any]]
    notice: str = EMPTY_NOTICE
    edge_types: list[str] = field(default_factory=list)
    # Files that import a reached symbol by name (symbol targets only; for file, table,
    # endpoint and topic targets importers are callers with via IMPORTS).
    importers: list[Caller] = field(default_factory=list)
    # Dispatch: base declarations whose callers were walked too, overrides to review.
    widened: list[dict[str, Any]] = field(default_factory=list)
    # Endpoint targets: what the handler calls (out CALLS, up to the depth).
    downstream: list[Caller] = field(default_factory=list)
    # Pages to re-check: {route, app, file, repo, depth, via, evidence}, nearest first.
    pages: list[dict[str, Any]] = field(default_factory=list)
    # Callers in the whole radius per repository (workspaces: where the blast lands).
    by_repo: dict[str, int] = field(default_factory=dict)
    # Edges below this confidence (models.edge_confidence) were not walked; 0 = every edge.
    min_confidence: float = 0.0

    @property
    def incomplete_reason(self) -> str | None:
        """Why the answer may miss callers because a run of a repo it covers did not
        finish (docs/hardening.md, "Completeness"), or None."""
        why = [f"{f['repo']}: {f['incomplete_reason']}" for f in self.freshness if f.get("incomplete")]
        return "; ".join(why) or None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        reason = self.incomplete_reason
        d["incomplete"], d["incomplete_reason"] = reason is not None, reason
        return d

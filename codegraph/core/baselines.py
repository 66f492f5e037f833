"""Count baselines: a CountSnapshot per repo after each run that changed the graph, and
the trend with drops flagged (DESIGN.md 'Graph model': CountSnapshot).

A snapshot's ``counts`` is a flat dict: ``files``, ``symbols``, ``stubs``,
``edges.<TYPE>``, ``files.<language>``, ``parse_errors``, ``partial_files``. The symbol
qualified names of each snapshot are kept (compressed) in the indexer state so that a
drop can list what disappeared.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from codegraph.core.graph_store import GraphStore
from codegraph.core.models import SNAPSHOT, STUB, SYMBOL, Node


def snapshot_uid(repo: str, taken_at: str) -> str:
    return f"snapshot|{repo}|{taken_at}"


def flat_counts(counts: dict[str, Any]) -> dict[str, int]:
    out = {
        "files": sum(counts["languages"].values()),
        "symbols": counts["nodes"].get(SYMBOL, 0),
        "stubs": counts["nodes"].get(STUB, 0),
        "parse_errors": counts["parse_errors"],
        "partial_files": counts["partial_files"],
    }
    out.update({f"edges.{k}": v for k, v in counts["edges"].items() if k not in ("IN_REPO", "DECLARES")})
    out.update({f"files.{k}": v for k, v in counts["languages"].items() if k})
    return out


def take_snapshot(graph: GraphStore, repo: str, commit: str | None, taken_at: str | None = None) -> Node:
    """Store a CountSnapshot of ``repo`` now; returns it."""
    at = taken_at or datetime.now(UTC).isoformat(timespec="microseconds")
    counts = flat_counts(graph.counts(repo))
    node = Node(snapshot_uid(repo, at), SNAPSHOT,
                {"repo": repo, "taken_at": at, "commit": commit, "counts": json.dumps(counts, sort_keys=True)})
    graph.upsert_nodes([node])
    return node


def snapshots(graph: GraphStore, repo: str) -> list[dict[str, Any]]:
    """Oldest first: {"taken_at", "commit", "counts": {...}}."""
    out = []
    for n in graph.nodes_by_label(SNAPSHOT, repo, limit=100000):
        c = n.props.get("counts")
        out.append({"taken_at": n.props["taken_at"], "commit": n.props.get("commit"),
                    "counts": json.loads(c) if isinstance(c, str) else (c or {})})
    return sorted(out, key=lambda s: s["taken_at"])


@dataclass(slots=True)
class Drop:
    key: str
    baseline: int
    current: int
    percent: float
    disappeared: list[str] = field(default_factory=list)


def compare(base: dict[str, int], cur: dict[str, int], threshold_pct: float) -> list[Drop]:
    """Counts that fell by more than ``threshold_pct`` percent (or to zero)."""
    drops = []
    for k, b in sorted(base.items()):
        c = cur.get(k, 0)
        if b > 0 and c < b and ((b - c) * 100.0 / b > threshold_pct or c == 0):
            drops.append(Drop(k, b, c, round((b - c) * 100.0 / b, 1)))
    return drops

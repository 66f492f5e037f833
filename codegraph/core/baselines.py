"""Count baselines: a CountSnapshot per repo after each run that changed the graph, and
the trend with drops flagged (docs/DESIGN.md#graph-model: CountSnapshot).

A snapshot's ``counts`` is a flat dict: ``files``, ``symbols``, ``stubs``,
``edges.<TYPE>``, ``files.<language>``, ``parse_errors``, ``partial_files``, and (from
snapshots taken by take_snapshot) ``stub_references`` and ``unsupported_files`` as
core.figures defines them. Which way each count should move, and which drops are
regressions, is core.figures' (``regressions``). The symbol
qualified names of each snapshot are kept (compressed) in the indexer state so that a
drop can list what disappeared.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from codegraph.core.figures import (
    Drop,
    compare,
    from_counts,
    regressions,
    stub_references,
    unsupported_by_extension,
)
from codegraph.core.graph_store import GraphStore
from codegraph.core.models import SNAPSHOT, STRUCTURAL_EDGES, STUB, SYMBOL, Node


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
    out.update({f"edges.{k}": v for k, v in counts["edges"].items() if k not in STRUCTURAL_EDGES})
    out.update({f"files.{k}": v for k, v in counts["languages"].items() if k})
    return out


def snapshot_counts(graph: GraphStore, repo: str, counts: dict[str, Any] | None = None) -> dict[str, int]:
    """The flat counts a CountSnapshot of ``repo`` records (module docstring); ``counts``:
    ``graph.counts(repo)`` when the caller already has it."""
    raw = counts if counts is not None else graph.counts(repo)
    fig = from_counts(raw, sum(stub_references(graph, repo).values()), unsupported_by_extension(graph, repo), 1)
    return flat_counts(raw) | {"stub_references": fig.stub_references, "unsupported_files": fig.unsupported_files}


def record_snapshot(graph: GraphStore, repo: str, commit: str | None, counts: dict[str, int], taken_at: str,
                    source: str = "index") -> Node:
    """Store a CountSnapshot with ``counts`` (counted elsewhere, e.g. on a past commit by
    the backfill) at ``taken_at``; ``source`` says where it came from ("index" |
    "backfill")."""
    node = Node(snapshot_uid(repo, taken_at), SNAPSHOT,
                {"repo": repo, "taken_at": taken_at, "commit": commit, "source": source,
                 "counts": json.dumps(counts, sort_keys=True)})
    graph.upsert_nodes([node])
    return node


def take_snapshot(graph: GraphStore, repo: str, commit: str | None, taken_at: str | None = None,
                  counts: dict[str, Any] | None = None) -> Node:
    """Store a CountSnapshot of ``repo`` now; returns it (``counts``: ``graph.counts(repo)``
    when the caller already has it)."""
    at = taken_at or datetime.now(UTC).isoformat(timespec="microseconds")
    return record_snapshot(graph, repo, commit, snapshot_counts(graph, repo, counts), at)


def snapshots(graph: GraphStore, repo: str) -> list[dict[str, Any]]:
    """Oldest first: {"taken_at", "commit", "counts": {...}}."""
    out = []
    for n in graph.nodes_by_label(SNAPSHOT, repo, limit=100000):
        c = n.props.get("counts")
        out.append({"taken_at": n.props["taken_at"], "commit": n.props.get("commit"),
                    "source": n.props.get("source") or "index",
                    "counts": json.loads(c) if isinstance(c, str) else (c or {})})
    return sorted(out, key=lambda s: s["taken_at"])


__all__ = ["Drop", "compare", "flat_counts", "record_snapshot", "regressions", "snapshot_counts", "snapshot_uid",
           "snapshots", "take_snapshot"]

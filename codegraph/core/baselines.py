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


def take_snapshot(graph: GraphStore, repo: str, commit: str | None, taken_at: str | None = None) -> Node:
    """Store a CountSnapshot of ``repo`` now; returns it."""
    at = taken_at or datetime.now(UTC).isoformat(timespec="microseconds")
    raw = graph.counts(repo)
    fig = from_counts(raw, sum(stub_references(graph, repo).values()), unsupported_by_extension(graph, repo), 1)
    counts = flat_counts(raw) | {"stub_references": fig.stub_references, "unsupported_files": fig.unsupported_files}
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


__all__ = ["Drop", "compare", "flat_counts", "regressions", "snapshot_uid", "snapshots", "take_snapshot"]

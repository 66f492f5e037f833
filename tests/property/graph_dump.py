"""A graph as comparable data: every node (uid, label, props) and every edge with its
properties, for one repo, with the repo name and per-run fields (timestamps, snapshots)
taken out, so an incremental index can be compared with a full one into a fresh home."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from codegraph.core.graph_store import GraphStore
from codegraph.core.models import ENDPOINT, FILE, REPO, STUB, SYMBOL, TABLE, TOPIC

LABELS = (REPO, FILE, SYMBOL, STUB, ENDPOINT, TABLE, TOPIC)
PER_RUN = {"last_imported_at", "last_checked_at"}  # Repo props that name when a run happened


def _norm(v: Any, repo: str) -> Any:
    text = json.dumps(v, sort_keys=True, default=str)
    return text.replace(f"|{repo}|", "|R|").replace(f'"{repo}"', '"R"').replace(f"|{repo}\"", '|R"')


def dump(graph: GraphStore, repo: str) -> tuple[dict[str, str], set[str]]:
    """(node uid -> normalised label+props, set of normalised edges)."""
    nodes: dict[str, str] = {}
    for label in LABELS:
        for n in graph.nodes_by_label(label, repo, limit=100_000):
            props = {k: v for k, v in n.props.items() if not (label == REPO and k in PER_RUN)}
            nodes[_norm(n.uid, repo)] = _norm([n.label, props], repo)
    uids = [n.uid for label in LABELS for n in graph.nodes_by_label(label, repo, limit=100_000)]
    edges: set[str] = set()
    for src, hits in graph.neighbours(uids, "out").items():
        for h in hits:
            e = h.edge
            edges.add(_norm([e.type, src, e.target, e.file, e.line, e.resolution, e.extra], repo))
    return nodes, edges


def diff(a: tuple[dict[str, str], set[str]], b: tuple[dict[str, str], set[str]]) -> list[str]:
    """Readable differences (incremental ``a`` vs full ``b``), empty when equal."""
    out: list[str] = []
    for uid in sorted(a[0].keys() - b[0].keys()):
        out.append(f"node only after the incremental run: {a[0][uid]}")
    for uid in sorted(b[0].keys() - a[0].keys()):
        out.append(f"node only after the full run: {b[0][uid]}")
    for uid in sorted(a[0].keys() & b[0].keys()):
        if a[0][uid] != b[0][uid]:
            out.append(f"node differs: {uid}\n  incremental {a[0][uid]}\n  full        {b[0][uid]}")
    out += [f"edge only after the incremental run: {e}" for e in sorted(a[1] - b[1])]
    out += [f"edge only after the full run: {e}" for e in sorted(b[1] - a[1])]
    return out


def assert_same_as_fresh_index(tmp: Path, graph: GraphStore, repo: str, root: Path, tag: str = "fresh") -> None:
    """``repo`` in ``graph`` equals a full index of ``root`` into a fresh embedded home
    (files ``<tag>.db`` and ``<tag>-state.db`` under ``tmp``)."""
    from codegraph.core.embedded_graph import EmbeddedGraphStore
    from codegraph.indexer.pipeline import index_repo
    from codegraph.indexer.state import StateStore

    fresh, fstate = EmbeddedGraphStore(tmp / f"{tag}.db"), StateStore(tmp / f"{tag}-state.db")
    try:
        index_repo(root, tag, fresh, None, fstate, workers=1)
        assert not diff(dump(graph, repo), dump(fresh, tag))
    finally:
        fstate.close()
        fresh.close()

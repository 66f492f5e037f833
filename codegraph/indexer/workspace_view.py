"""What the faces show of a workspace (CLI ``workspace list``, the dashboard's
Workspace page): its repos, what each provides, the cross-repo edges between them by
kind, and the client calls that matched no endpoint anywhere in the workspace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codegraph.core.graph_store import GraphStore
from codegraph.core.workspace import WorkspaceConfig
from codegraph.indexer.cross_repo import provides_of, report
from codegraph.indexer.state import StateStore


def workspace_overview(graph: GraphStore, state_db: Path, cfg: WorkspaceConfig, name: str) -> dict[str, Any]:
    """``{"name", "repos": [{"repo", "indexed", "provides", "identity", "edges_out": {kind: n},
    "unmatched_http", "unmatched": [...], "ambiguous", "ambiguous_items": [...]}],
    "links": [{"from", "to", "kind", "count"}]}``. Repos not indexed yet are listed with
    ``indexed: False``. Raises BadInput for an unknown workspace."""
    members = cfg.repos_of(name)
    nodes = {n.props.get("name", ""): n for n in graph.repos()}
    state = StateStore(state_db)
    try:
        repos, links = [], []
        provides = provides_of(graph, state, members)
        for r in members:
            node = nodes.get(r)
            rep = report(state, r) if node is not None else {}
            prov = provides.get(r)
            repos.append({
                "repo": r, "indexed": node is not None,
                "provides": sorted(prov.names) if prov else [], "identity": prov.identity if prov else [],
                "edges_out": rep.get("edges", {}), "unmatched_http": rep.get("unmatched_http_total", 0),
                "unmatched": rep.get("unmatched_http", []),
                "ambiguous": len(rep.get("ambiguous_http", [])) + len(rep.get("ambiguous_library", [])),
                "ambiguous_items": rep.get("ambiguous_http", []) + rep.get("ambiguous_library", [])})
            links += [{"from": r, **lk} for lk in rep.get("links", []) if lk["to"] in members]
    finally:
        state.close()
    return {"name": name, "repos": repos, "links": links}


__all__ = ["workspace_overview"]

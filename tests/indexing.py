"""Index a tree with the real pipeline into the stores a Settings opens (the embedded
backends in every caller): shared by the dashboard/browser shop (tests/dashboard/shop.py)
and the golden shop (tests/golden_shop.py)."""

from __future__ import annotations

from pathlib import Path

from codegraph.core.settings import Settings


def index_into(root: Path, repo: str, s: Settings, embed: bool = False) -> None:
    """Index ``root`` as ``repo`` into the stores of ``s`` (opened here, closed after, one
    worker); with ``embed`` also the embedding phase (needs the model folder)."""
    from codegraph.core.stores import open_graph_store, open_search_index
    from codegraph.indexer.pipeline import index_repo
    from codegraph.indexer.state import StateStore

    graph, search, state = open_graph_store(s), open_search_index(s), StateStore(s.state_db)
    try:
        index_repo(root, repo, graph, search, state, workers=1)
        if embed:
            from codegraph.core.embedder import Embedder
            from codegraph.indexer.embed_phase import run_embedding

            run_embedding(search, Embedder.from_settings(s), repo=repo)
    finally:
        state.close()
        search.close()
        graph.close()

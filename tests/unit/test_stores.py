"""The Stores session the faces share: lazy, shared, each store closed once, failures not cached."""

from __future__ import annotations

import pytest

from codegraph.core.errors import StoreUnavailable
from codegraph.core.settings import load_settings
from codegraph.core.stores import Stores


def test_opens_lazily_shares_and_closes_once(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEGRAPH_HOME", str(tmp_path))
    stores = Stores(load_settings(graph="embedded", search="embedded"))
    assert stores.opened == {"graph": False, "search": False, "embedder": False}
    graph = stores.graph
    assert stores.graph is graph and stores.opened["graph"] and not stores.opened["search"]
    assert graph.repos() == []
    closed: list[str] = []
    monkeypatch.setattr(graph, "close", lambda: closed.append("graph"))
    stores.close()
    stores.close()
    assert closed == ["graph"]  # once; the search index was never opened, so never closed
    assert stores.opened == {"graph": False, "search": False, "embedder": False}
    again = stores.graph  # a use after close opens afresh (a REST app restarted in-process)
    assert again is not graph
    stores.close()


def test_a_failed_open_is_not_cached() -> None:
    with Stores(load_settings(graph="bolt://127.0.0.1:9", neo4j_password="x")) as stores:
        for _ in range(2):
            with pytest.raises(StoreUnavailable):
                _ = stores.graph
        assert stores.opened["graph"] is False

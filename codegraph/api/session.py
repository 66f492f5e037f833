"""The stores one long-running face (the REST server) shares across requests.

Opened on first use, under a lock (requests run in worker threads; the backends are
thread-safe); a failed open is not cached, so a server started while Neo4j or
Elasticsearch is down answers 503 and recovers once it is back. Same attributes as the
CLI's per-command context (``settings``, ``graph``, ``search``, ``embedder``), which is
what ``codegraph.api.answers`` needs.
"""

from __future__ import annotations

import threading
from typing import Any

from codegraph.core.settings import Settings


class SharedStores:
    """Lazily opened GraphStore / SearchIndex / Embedder for ``settings``."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._graph: Any = None
        self._search: Any = None
        self._embedder: Any = None

    @property
    def graph(self) -> Any:
        with self._lock:
            if self._graph is None:
                from codegraph.core.stores import open_graph_store

                self._graph = open_graph_store(self.settings)
            return self._graph

    @property
    def search(self) -> Any:
        with self._lock:
            if self._search is None:
                from codegraph.core.stores import open_search_index

                self._search = open_search_index(self.settings)
            return self._search

    @property
    def embedder(self) -> Any:
        with self._lock:
            if self._embedder is None:
                from codegraph.core.embedder import Embedder

                self._embedder = Embedder.from_settings(self.settings)
            return self._embedder

    def close(self) -> None:
        with self._lock:
            for s in (self._graph, self._search):
                if s is not None:
                    s.close()
            self._graph = self._search = None

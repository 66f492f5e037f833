"""Backend factories: the one place that maps settings to a GraphStore / SearchIndex.

``CODEGRAPH_GRAPH``: ``embedded`` -> EmbeddedGraphStore(settings.graph_db);
``bolt://`` / ``neo4j://`` (and their ``+s`` / ``+ssc`` variants) -> Neo4jGraphStore.
``CODEGRAPH_SEARCH``: ``embedded`` -> EmbeddedSearchIndex(settings.search_db);
``http(s)://`` -> ElasticsearchIndex(url, settings.elastic_prefix).
Backends are imported lazily so that the embedded default never loads a server driver.
Errors: StoreUnavailable (unreachable server, naming the setting) or BadInput (a value
that is no known backend).

``Stores`` is the one session object the faces share (CLI command, MCP server, REST
API, dashboard): settings plus the graph store, search index and query embedder, each
opened on first use and closed once (docs/DESIGN.md#faces).
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from codegraph.core.errors import BadInput

if TYPE_CHECKING:
    from codegraph.core.embedder import Embedder
    from codegraph.core.graph_store import GraphStore
    from codegraph.core.search_index import SearchIndex
    from codegraph.core.settings import Settings

log = logging.getLogger(__name__)
_BOLT_SCHEMES = ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")


def open_graph_store(settings: Settings) -> GraphStore:
    """The GraphStore selected by ``settings.graph``; raises StoreUnavailable / BadInput."""
    target = settings.graph.strip()
    if target.lower() == "embedded":
        from codegraph.core.embedded_graph import EmbeddedGraphStore

        return EmbeddedGraphStore(settings.graph_db)
    if target.lower().startswith(_BOLT_SCHEMES):
        from codegraph.core.neo4j_graph import Neo4jGraphStore

        return Neo4jGraphStore(target, settings.neo4j_user, settings.neo4j_password.get_secret_value(),
                               settings.neo4j_database)
    raise BadInput(f"CODEGRAPH_GRAPH={target!r} is not a graph backend: use 'embedded' or bolt://host:7687")


def open_search_index(settings: Settings) -> SearchIndex:
    """The SearchIndex selected by ``settings.search``; raises StoreUnavailable / BadInput."""
    target = settings.search.strip()
    if target.lower() == "embedded":
        from codegraph.core.embedded_search import EmbeddedSearchIndex

        return EmbeddedSearchIndex(settings.search_db)
    if target.lower().startswith(("http://", "https://")):
        from codegraph.core.elastic_search import ElasticsearchIndex

        index = ElasticsearchIndex(target, settings.elastic_prefix)
        # The index template must exist before the first write creates an index.
        index.ensure_schema()
        return index
    raise BadInput(f"CODEGRAPH_SEARCH={target!r} is not a search backend: use 'embedded' or http://host:9200")


class Stores:
    """One session's stores, opened on first use and shared by every caller.

    ``graph``, ``search`` and ``embedder`` open lazily under a lock (MCP tools and the
    REST API run in worker threads; the backends are thread-safe); a failed open raises
    (StoreUnavailable / BadInput) and is not cached, so the next use tries again.
    ``close()`` closes each opened store exactly once (a second ``close`` does nothing;
    a use after it opens afresh, as a REST app restarted in the same process does).
    Usable as a context manager.
    """

    def __init__(self, settings: Settings | None = None) -> None:
        if settings is None:
            from codegraph.core.settings import load_settings

            settings = load_settings()
        self.settings: Settings = settings
        self._lock = threading.Lock()
        self._graph: GraphStore | None = None
        self._search: SearchIndex | None = None
        self._embedder: Embedder | None = None

    @property
    def graph(self) -> GraphStore:
        """The graph store (``open_graph_store``)."""
        with self._lock:
            if self._graph is None:
                log.debug("opening the graph store (%s)", self.settings.graph.split("://")[0])
                self._graph = open_graph_store(self.settings)
            return self._graph

    @property
    def search(self) -> SearchIndex:
        """The search index (``open_search_index``)."""
        with self._lock:
            if self._search is None:
                log.debug("opening the search index (%s)", self.settings.search.split("://")[0])
                self._search = open_search_index(self.settings)
            return self._search

    @property
    def embedder(self) -> Embedder:
        """The query embedder for the configured model (loads the model on first embed)."""
        with self._lock:
            if self._embedder is None:
                from codegraph.core.embedder import Embedder

                self._embedder = Embedder.from_settings(self.settings)
            return self._embedder

    def warm_embedder(self) -> threading.Thread:
        """Load the query model in a background thread when the search index holds
        vectors, so the first search of a long-running face (MCP server, REST API) does not
        pay the load (~0.7 s). Returns the (daemon) thread; a missing model, an index
        without vectors or a store that is down leave it a no-op (logged, never raised)."""

        def warm() -> None:
            try:
                emb = self.embedder
                if emb.available and not emb.loaded and self.search.has_vectors(None):
                    emb.load()
            except Exception as e:  # noqa: BLE001 - warming is best effort; the search itself reports
                log.info("query model not warmed: %s", e)

        t = threading.Thread(target=warm, name="codegraph-warm-model", daemon=True)
        t.start()
        return t

    @property
    def opened(self) -> dict[str, bool]:
        """Which stores are open now: {"graph": bool, "search": bool, "embedder": bool}."""
        return {"graph": self._graph is not None, "search": self._search is not None,
                "embedder": self._embedder is not None}

    def close(self) -> None:
        """Close the opened graph store and search index (each once)."""
        with self._lock:
            stores: list[Any] = [self._graph, self._search]
            self._graph = self._search = None  # the embedder holds no connection: kept
        for s in stores:
            if s is not None:
                s.close()

    def __enter__(self) -> Stores:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

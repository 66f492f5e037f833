"""Backend factories: the one place that maps settings to a GraphStore / SearchIndex.

``CODEGRAPH_GRAPH``: ``embedded`` -> EmbeddedGraphStore(settings.graph_db);
``bolt://`` / ``neo4j://`` (and their ``+s`` / ``+ssc`` variants) -> Neo4jGraphStore.
``CODEGRAPH_SEARCH``: ``embedded`` -> EmbeddedSearchIndex(settings.search_db);
``http(s)://`` -> ElasticsearchIndex(url, settings.elastic_prefix).
Backends are imported lazily so that the embedded default never loads a server driver.
Errors: StoreUnavailable (unreachable server, naming the setting) or BadInput (a value
that is no known backend).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codegraph.core.errors import BadInput

if TYPE_CHECKING:
    from codegraph.core.graph_store import GraphStore
    from codegraph.core.search_index import SearchIndex
    from codegraph.core.settings import Settings

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

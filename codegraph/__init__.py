"""CodeGraph Explorer: answers "what breaks if I change this?" from a code graph.

Subpackages (dependency arrows point one way, see docs/DESIGN.md#layout):
- ``codegraph.core``: domain model, settings, store protocols and backends, query engine.
- ``codegraph.indexer``: discovery, tree-sitter extraction, resolution, loading.
- ``codegraph.dashboard`` / ``codegraph.pages``: the Streamlit faces.
- ``codegraph.cli`` / ``codegraph.mcp_server``: entry points at the edge.
"""

__version__ = "0.1.0"

"""Core: domain model, settings, GraphStore/SearchIndex protocols and backends, queries.

Imports neither Streamlit nor tree-sitter (docs/DESIGN.md#layout).
"""

"""Content kinds of search (docs/DESIGN.md#search): each kind has its own index per
repo on every backend (embedded: its own SQLite file; Elasticsearch: ``<prefix>-<repo>-<kind>``),
so BM25 statistics of prose or config never mix with code.

- ``code``: functions, methods, classes, file sections (the indexer's chunks).
- ``schema``: SQL DDL tables with their columns (chunk kind ``table``), linked to the
  graph's Table node of the same name.
- ``config``: configuration properties (chunk kind ``property``): Spring
  ``application*.yml``/``.properties``, ``.env.example``, TOML/YAML settings; key, value, file:line.
- ``docs``: Markdown sections (chunk kind ``doc``), named by their heading path.
"""

from __future__ import annotations

from codegraph.core.errors import BadInput

CODE, SCHEMA, CONFIG, DOCS = "code", "schema", "config", "docs"
CONTENT_KINDS = (CODE, SCHEMA, CONFIG, DOCS)
CHUNK_KIND = {SCHEMA: "table", CONFIG: "property", DOCS: "doc"}  # the Chunk.kind of each non-code kind
_KIND_OF_CHUNK = {v: k for k, v in CHUNK_KIND.items()}


def content_kind(chunk_kind: str) -> str:
    """The content kind of a chunk from its ``Chunk.kind`` (code for every code kind)."""
    return _KIND_OF_CHUNK.get(chunk_kind, CODE)


def check_kinds(kinds: list[str] | None) -> list[str]:
    """``kinds`` validated (default: all, in CONTENT_KINDS order); BadInput names the known ones."""
    if not kinds:
        return list(CONTENT_KINDS)
    bad = [k for k in kinds if k not in CONTENT_KINDS]
    if bad:
        raise BadInput(f"unknown content kind(s) {', '.join(bad)}; known: {', '.join(CONTENT_KINDS)}")
    return [k for k in CONTENT_KINDS if k in kinds]


def kind_indexes(index: object, kinds: list[str] | None = None) -> list[tuple[str, object]]:
    """(kind, SearchIndex) for each wanted kind; an index without ``for_kind`` (a test
    double) serves code only."""
    out: list[tuple[str, object]] = []
    for kind in check_kinds(kinds):
        if kind == CODE:
            out.append((CODE, index))
        elif hasattr(index, "for_kind"):
            out.append((kind, index.for_kind(kind)))  # type: ignore[attr-defined]
    return out

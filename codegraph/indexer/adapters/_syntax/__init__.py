"""A small language-neutral view of the syntax the framework adapters read: calls,
string values (with interpolation holes), annotations/decorators and literal
collections, over tree-sitter trees of Python, JavaScript/TypeScript, Java, Go and
Kotlin (string values also for C#, Ruby, PHP and Rust).

Adapters match on these views instead of on each grammar's node types, so one rule
("``requests.get(url)`` is an HTTP GET") is written once per framework, not once per
grammar. Everything here is read-only and never raises on odd trees: an unknown shape
gives ``None`` or an empty list.

Adapters import this package as ``sx``; the views live in its modules: ``base``
(``Parts``, node tables, text/line), ``calls``, ``strings``, ``values`` (mappings,
constants, literal collections), ``annotations`` and ``imports``.
"""

from __future__ import annotations

from codegraph.indexer.adapters._syntax.annotations import (
    Annotated,
    Annotation,
    annotated,
    enclosing_call,
    walk_annotated,
)
from codegraph.indexer.adapters._syntax.base import _STRING_TYPES, JS_LANGS, Parts, _field, _query, captures, line, text
from codegraph.indexer.adapters._syntax.calls import Call, as_call, calls, chain
from codegraph.indexer.adapters._syntax.imports import ImportBinding, assigned_name, import_bindings
from codegraph.indexer.adapters._syntax.strings import (
    is_string,
    literal,
    literals_of,
    parts_text,
    string_parts,
    uri_template_holes,
)
from codegraph.indexer.adapters._syntax.values import constants, literal_nodes, mapping, substitute

__all__ = [
    "JS_LANGS", "_STRING_TYPES", "Annotated", "Annotation", "Call", "ImportBinding", "Parts", "_field", "_query",
    "annotated", "as_call", "assigned_name", "calls", "captures", "chain", "constants", "enclosing_call",
    "import_bindings", "is_string", "line", "literal", "literal_nodes", "literals_of", "mapping", "parts_text",
    "string_parts", "substitute", "text", "uri_template_holes", "walk_annotated",
]

"""Syntax views, shared ground: the ``Parts`` shape of a string value, per-grammar
node-type tables, cached queries and node text / line helpers.
"""


from __future__ import annotations

from functools import cache

from tree_sitter import Node as TSNode
from tree_sitter import Query, QueryCursor
from tree_sitter_language_pack import get_language

# A string value: ("lit", text) and ("hole", expression text) pieces, in order.
Parts = list[tuple[str, str]]

JS_LANGS = frozenset(("javascript", "typescript", "tsx"))

# Call nodes per grammar, captured in C by one query.
_CALL_QUERY = {
    "python": "(call) @c",
    "javascript": "(call_expression) @c (new_expression) @c",
    "typescript": "(call_expression) @c (new_expression) @c",
    "tsx": "(call_expression) @c (new_expression) @c",
    "java": "(method_invocation) @c (object_creation_expression) @c",
    "go": "(call_expression) @c",
    "kotlin": "(call_expression) @c",
}

# String-ish leaf expressions per grammar (composites such as ``a + b`` are built on top).
_STRING_TYPES = {
    "python": ("string", "concatenated_string"),
    "javascript": ("string", "template_string"),
    "typescript": ("string", "template_string"),
    "tsx": ("string", "template_string"),
    "java": ("string_literal",),
    "go": ("interpreted_string_literal", "raw_string_literal"),
    "kotlin": ("string_literal", "multiline_string_literal"),
    "csharp": ("string_literal", "verbatim_string_literal", "raw_string_literal", "interpolated_string_expression"),
    "ruby": ("string",),
    "php": ("string", "encapsed_string"),
    "rust": ("string_literal", "raw_string_literal"),
}
_LIT_CHILD = frozenset((
    "string_content", "string_fragment", "multiline_string_fragment", "interpreted_string_literal_content",
    "raw_string_literal_content", "escape_sequence", "string_value", "string_literal_content",
    "verbatim_string_literal_content", "raw_string_content", "interpolated_string_text",
))
_HOLE_CHILD = frozenset((
    "interpolation", "template_substitution", "interpolated_identifier", "interpolated_expression",
    "variable_name", "simple_variable", "dynamic_variable_name",
))
_PLUS_PARENTS = frozenset(("binary_expression", "binary_operator", "additive_expression"))


@cache
def _query(language: str, text: str) -> Query:
    return Query(get_language(language), text)  # type: ignore[arg-type]


def captures(language: str, query: str, root: TSNode) -> list[TSNode]:
    """Nodes captured by ``query`` (any capture name), in document order."""
    found = QueryCursor(_query(language, query)).captures(root)
    out = [n for nodes in found.values() for n in nodes]
    out.sort(key=lambda n: n.start_byte)
    return out


def text(node: TSNode | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def line(node: TSNode) -> int:
    return node.start_point[0] + 1


def _field(node: TSNode | None, name: str) -> TSNode | None:
    return node.child_by_field_name(name) if node is not None else None

"""The embedded graph's rows built from the records (codegraph.core.graph_rows) are the rows
the Node path writes: a symbol's props JSON from its template is the general encoder's text
for any values, a value of another type than its field's included."""

from __future__ import annotations

from dataclasses import fields, replace

from hypothesis import given
from hypothesis import strategies as st

from codegraph.core import graph_rows
from codegraph.core.graph_rows import file_row, node_row, props_json, symbol_row
from codegraph.core.models import FileRecord, SymbolRecord, scalar_props

_text = st.text(st.characters(codec="utf-8"), max_size=30)
_odd = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), _text,
                 st.builds(object))  # props_json writes str() of what json cannot


def _symbol(**kw: object) -> SymbolRecord:
    return SymbolRecord(**{"repo": "r", "qualified_name": "a.f", "signature_hash": "h", "name": "f",
                           "kind": "function", "language": "python", "language_kind": "function_definition",
                           "file": "a.py", "line": 1, "end_line": 2} | kw)


@given(st.builds(_symbol, repo=_text, qualified_name=_text, signature_hash=_text, name=_text, kind=_text,
                 language=_text, language_kind=_text, file=_text, line=st.integers(), end_line=st.integers(),
                 visibility=_text, content_hash=_text, signature=_text, docstring=_text,
                 parent=st.none() | _text, arity=st.none() | st.integers(), variadic=st.booleans(),
                 params=st.none() | _text))
def test_a_symbol_row_is_the_node_row(s: SymbolRecord) -> None:
    assert symbol_row(s) == node_row(s.to_node())


@given(st.sampled_from([f.name for f in fields(SymbolRecord)]), _odd)
def test_any_value_in_any_field_gives_the_general_text(name: str, value: object) -> None:
    s = replace(_symbol(), **{name: value})
    assert graph_rows.symbol_json(s) == props_json(scalar_props(s))


def test_the_template_is_in_use_and_knows_every_field() -> None:
    """A field added to SymbolRecord makes the template stand aside (this test then names it)."""
    assert tuple(f.name for f in fields(SymbolRecord)) == graph_rows.SYMBOL_FIELDS
    assert graph_rows.symbol_json is graph_rows._template_json


@given(st.builds(FileRecord, repo=_text, path=_text, language=_text, content_hash=_text, had_error=st.booleans(),
                 route=st.none() | _text, size_bytes=st.integers()))
def test_a_file_row_is_the_node_row(f: FileRecord) -> None:
    assert file_row(f) == node_row(f.to_node())

"""The Neo4j property map of a node (``neo4j_schema._flat``, docs/DESIGN.md#backends): which
props are stored as Neo4j properties and which ride in ``_json``, and that ``_props_of``
gives exactly the props back. ``_flat`` has a fast path (plain ``str`` values skip the type
checks, one shared JSON encoder); these tests hold it to the plain definition below."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from codegraph.core.models import Node
from codegraph.core.neo4j_schema import NATIVE_PROPS, _flat, _native, _props_of


def reference(n: Node) -> dict[str, Any]:
    """The definition: NATIVE_PROPS whose value Neo4j holds as itself, then ``uid``, then
    every other prop as ``json.dumps(..., ensure_ascii=False, default=str)``."""
    out = {k: v for k, v in n.props.items() if k in NATIVE_PROPS and _native(v)}
    other = {k: v for k, v in n.props.items() if not (k in NATIVE_PROPS and _native(v))}
    out["uid"] = n.uid
    if other:
        out["_json"] = json.dumps(other, ensure_ascii=False, default=str)
    return out


class Name(str):
    """A str subclass: stored natively (isinstance), but not by the plain-str shortcut."""


ODD: dict[str, Any] = {
    "repo": Name("r"), "name": None, "line": 2**63, "end_line": -(2**63), "number": 1.5, "title": True,
    "kind": ["a", "b"], "file": [1, "x"], "path": [], "url": b"raw", "signature": "def f(\u00e9, \ud800)",
    "docstring": "caf\u00e9", "extra": {"a": [1, {"b": None}]}, "arity": None, "candidates": ["x", "y"],
    "qualified_name": "pkg.mod.f", "state": float("inf"),
}

values = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
                   st.floats(allow_nan=False), st.text(max_size=8), st.builds(Name, st.text(max_size=4)),
                   st.lists(st.integers(), max_size=3), st.lists(st.text(max_size=3), max_size=3),
                   st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))
keys = st.sampled_from(sorted(NATIVE_PROPS) + ["signature", "docstring", "parent", "candidates", "extra"])


def test_odd_values_are_split_as_the_definition_says() -> None:
    n = Node("sym|r|pkg.mod.f|h", "Symbol", dict(ODD))
    got = _flat(n)
    assert got == reference(n)
    assert list(got) == list(reference(n))  # same order, so the same _json text
    assert "line" not in got and "repo" in got and got["kind"] == ["a", "b"]


@given(st.dictionaries(keys, values, max_size=12))
def test_flat_is_the_definition_and_props_of_inverts_it(props: dict[str, Any]) -> None:
    n = Node("sym|r|q|h", "Symbol", props)
    got = _flat(n)
    assert got == reference(n)
    assert got.get("_json") == reference(n).get("_json")
    back = _props_of(got)
    assert back.keys() == props.keys()
    for k, v in props.items():
        w = back[k]
        if isinstance(v, float) and math.isinf(v):
            assert w == v
        elif isinstance(v, bytes):
            assert w == str(v)
        else:
            assert w == v, k

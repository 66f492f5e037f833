"""The Elasticsearch client's serialiser (codegraph.core.elastic_search._Serializer):
orjson where it can, the client's stdlib encoder where orjson refuses, same JSON values."""

from __future__ import annotations

import json

import numpy as np

from codegraph.core.elastic_search import _Serializer


def test_same_values_as_the_stdlib_encoder() -> None:
    doc = {"text": "def f():\n    return 'é ✓'", "meta": {"line": 3, "name": "f"}, "n": [1, 2.5, None, True]}
    assert json.loads(_Serializer().dumps(doc)) == doc


def test_vectors_keep_every_float32_exactly() -> None:
    v = np.random.default_rng(1).normal(size=384).astype(np.float32)
    back = np.asarray(json.loads(_Serializer().dumps({"vector": v.astype(np.float64)}))["vector"], dtype=np.float32)
    assert np.array_equal(back, v)


def test_values_orjson_refuses_fall_back_to_the_stdlib() -> None:
    big = {"id": 2**70, "s": "x"}  # past 64 bits: orjson raises, the stdlib encodes it
    assert json.loads(_Serializer().dumps(big)) == big

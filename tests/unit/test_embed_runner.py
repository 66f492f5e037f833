"""The embedding hot loop (codegraph.core.embed_runner): token-budget batches, runs in
flight, and vectors equal to fastembed's own loop on the same session."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegraph.core.embed_runner import plan_batches
from codegraph.core.embedder import Embedder
from codegraph.core.model_source import PROJECT_MODEL

TEXTS = ["def place_order(cart): return cart.total()", "!!", "SELECT id FROM orders WHERE total > 10",
         "a much longer text " * 300, "", "class Cart:\n    items: list[Item]", "x"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 300), max_size=60), st.integers(1, 2000), st.integers(1, 40))
def test_batches_cover_every_text_once_sorted_within_budget(lengths: list[int], budget: int, rows: int) -> None:
    lens = np.array(lengths, dtype=np.int64)
    parts = plan_batches(lens, budget, rows)
    flat = [int(i) for p in parts for i in p]
    assert sorted(flat) == list(range(len(lengths)))
    assert [lens[i] for i in flat] == sorted(lengths)  # shortest first, so each batch pads little
    for p in parts:
        assert 1 <= len(p) <= rows
        assert len(p) == 1 or len(p) * int(lens[p].max()) <= budget


def test_batches_are_as_large_as_the_budget_allows() -> None:
    lens = np.array([10] * 20 + [100] * 4, dtype=np.int64)
    assert [len(p) for p in plan_batches(lens, 200, 16)] == [16, 4, 2, 2]
    assert [len(p) for p in plan_batches(lens, 50, 16)] == [5, 5, 5, 5, 1, 1, 1, 1]
    assert [len(p) for p in plan_batches(lens, 0, 16)] == [16, 8]  # 0: rows are the only limit


def test_runs_in_flight_depend_on_the_file_kind() -> None:
    # two one-text runs keep both cores busy; two batched runs oversubscribe them (bench_embed)
    assert Embedder(PROJECT_MODEL, "model_quantized.onnx").streams == 2
    assert Embedder(PROJECT_MODEL, "model.onnx").streams == 1
    assert Embedder(PROJECT_MODEL, "model.onnx", streams=3).streams == 3


@pytest.mark.parametrize("streams", [1, 2])
def test_runner_vectors_equal_fastembeds_loop(streams: int) -> None:
    emb = Embedder(PROJECT_MODEL, "model_quantized.onnx", threads=2, streams=streams)
    emb.load()
    assert emb._runner is not None, "fastembed's session/tokenizer were not found: the product runs its slow loop"
    ours = emb.embed(TEXTS)
    theirs = np.array(list(emb._model.embed(TEXTS, batch_size=1)))  # fastembed, one text per run
    assert ours.shape == (len(TEXTS), 384) and ours.dtype == np.float32
    assert np.allclose(ours, theirs, atol=1e-5)
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_a_padded_batch_gives_fastembeds_vectors_of_the_same_batch() -> None:
    # One batch holding every text, padded to the longest and masked: the runner's padding
    # and pooling must match fastembed's loop on the same batch (same padded input).
    emb = Embedder(PROJECT_MODEL, "model_quantized.onnx", threads=2, batch_dependent=False,
                   batch_size=len(TEXTS), token_budget=10**9)
    ours = emb.embed(TEXTS)
    theirs = np.array(list(emb._model.embed(TEXTS, batch_size=len(TEXTS))))
    assert np.allclose(ours, theirs, atol=1e-5)

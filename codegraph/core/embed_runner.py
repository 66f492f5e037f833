"""The embedding hot loop: one onnxruntime session fed directly (docs/DESIGN.md#search).

fastembed loads the model and its tokenizer (``codegraph.core.embedder``); this module
runs them without fastembed's per-batch work. A call tokenizes every text once (no
padding), sorts by token count, cuts batches by a token budget (rows x longest row, so a
batch of short texts holds more rows than a batch of long ones), and keeps ``streams``
model runs in flight on the one session (onnxruntime's ``run`` releases the GIL and may be
called from several threads). Mean pooling over the attention mask and L2 normalisation
follow the model card of all-MiniLM-L6-v2, as fastembed's pooled-normalised model does.

Why more than one run in flight: a run on one short text parallelises badly inside the
model (each operator is small), so the second core idles between operators; two runs
side by side keep both busy. A batch-dependent (dynamic int8) model is run one text per
run, so a text's vector never depends on its neighbours; its ``max_rows`` is 1.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

DIM = 384


def plan_batches(lengths: np.ndarray, token_budget: int, max_rows: int) -> list[np.ndarray]:
    """Text indices sorted by token count (stable), cut into batches whose rows x longest
    row stay within ``token_budget`` (a text longer than the budget runs alone; 0 = no
    limit) and hold at most ``max_rows`` rows. Returns index arrays covering every text once."""
    order = np.argsort(lengths, kind="stable")
    out: list[np.ndarray] = []
    start = 0
    n = len(order)
    max_rows = max(1, max_rows)
    while start < n:
        end = start + 1
        # sorted ascending: the last row of a batch is its longest
        while end < n and end - start < max_rows and (
                token_budget <= 0 or (end - start + 1) * int(lengths[order[end]]) <= token_budget):
            end += 1
        out.append(order[start:end])
        start = end
    return out


class OnnxRunner:
    """``embed(texts) -> (n, 384) float32`` unit vectors in input order, on ``session``
    (an onnxruntime InferenceSession) with ``tokenizer`` (a ``tokenizers.Tokenizer``; a
    copy without padding is used, truncation as configured). ``streams``: model runs in
    flight at once (>= 1)."""

    def __init__(self, session: Any, tokenizer: Any, streams: int = 2) -> None:
        from tokenizers import Tokenizer

        self.session = session
        self.tokenizer = Tokenizer.from_str(tokenizer.to_str())
        self.tokenizer.no_padding()
        self.inputs = {i.name for i in session.get_inputs()}
        self.streams = max(1, streams)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.streams, thread_name_prefix="codegraph-embed")
            return self._pool

    def token_lengths(self, texts: list[str]) -> tuple[list[Any], np.ndarray]:
        """(encodings, token count of each) after truncation."""
        encs = self.tokenizer.encode_batch(texts)
        return encs, np.fromiter((len(e.ids) for e in encs), dtype=np.int64, count=len(encs))

    def _run(self, encs: list[Any], lens: np.ndarray, part: np.ndarray, out: np.ndarray) -> None:
        width = int(lens[part[-1]])
        rows = len(part)
        if rows == 1:
            ids = np.asarray(encs[int(part[0])].ids, dtype=np.int64).reshape(1, -1)
            mask = np.ones_like(ids)
        else:
            ids = np.zeros((rows, width), dtype=np.int64)
            mask = np.zeros((rows, width), dtype=np.int64)
            for r, i in enumerate(part):
                n = int(lens[i])
                ids[r, :n] = encs[int(i)].ids
                mask[r, :n] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = self.session.run(None, feed)[0]  # (rows, width, 384)
        if rows == 1:
            pooled = hidden.mean(axis=1)
        else:
            m = mask.astype(np.float32)
            pooled = np.einsum("bsd,bs->bd", hidden, m) / m.sum(axis=1, keepdims=True)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        out[part] = pooled / np.maximum(norms, 1e-12)

    def embed(self, texts: list[str], token_budget: int, max_rows: int) -> np.ndarray:
        """Vectors of ``texts`` (see the class); batches per ``plan_batches``."""
        out = np.empty((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        encs, lens = self.token_lengths(texts)
        parts = plan_batches(lens, token_budget, max_rows)
        if self.streams == 1 or len(parts) == 1:
            for part in parts:
                self._run(encs, lens, part, out)
        else:
            for _ in self._executor().map(lambda p: self._run(encs, lens, p, out), parts):
                pass  # re-raises a run's error here
        return out

    def close(self) -> None:
        with self._pool_lock:
            if self._pool is not None:
                self._pool.shutdown(wait=False)
                self._pool = None

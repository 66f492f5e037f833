"""Sentence embeddings for search: all-MiniLM-L6-v2 as ONNX through fastembed, offline
by default (docs/DESIGN.md#search; models/all-MiniLM-L6-v2-onnx/README.md).

Which model: ``codegraph.core.model_source.resolve_model`` (CODEGRAPH_EMBED_MODEL_PATH,
then the project's int8 folder, then fastembed's named model from its cache). Int8 files
run one text per model run so that vectors do not depend on the batch (see the model
README). Nothing loads until the first ``embed`` (or ``load``); without a model
``available`` is False and ``reason`` is one line saying search is BM25-only.

fastembed loads the model and tokenizer; ``codegraph.core.embed_runner`` then runs that
session directly (texts sorted by token count; runs in flight by file kind, STREAMS_*),
which is what the bare model costs (bench/bench_embed.py compares the two).
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from codegraph.core.embed_runner import OnnxRunner
from codegraph.core.errors import CodegraphError
from codegraph.core.model_source import ModelChoice, download_allowed, resolve_model
from codegraph.core.query_cache import QueryVectorCache, model_key

# Set at import, before anything imports fastembed/huggingface_hub (they read it once):
# the product downloads no model unless CODEGRAPH_EMBED_DOWNLOAD=1 asks for it.
if not download_allowed():
    os.environ["HF_HUB_OFFLINE"] = "1"

DIM = 384
# Model runs in flight and token budget per run (rows x longest row; 0 = none), by file kind.
# Measured by bench/bench_embed.py on the idle 2-core machine (texts/s, bare session):
# fp32 16 rows one run at a time 99.3, 16 rows / 1,024 tokens / two in flight 78.8 (two runs
# of a batched model oversubscribe the cores); int8, one text per run, two in flight 103.2,
# one at a time 93.2 (a one-text run leaves a core idle between runs).
TOKEN_BUDGET = 0
STREAMS_BATCHED = 1
STREAMS_ONE_TEXT = 2
_REGISTER_LOCK = threading.Lock()
_REGISTERED: set[str] = set()


class EmbedderUnavailable(CodegraphError):
    """The embedding model cannot be loaded (missing or broken file)."""


def _custom_name(model_file: str) -> str:
    # fastembed knows sentence-transformers/all-MiniLM-L6-v2 already; a name of our own
    # per file lets the int8 file be chosen too.
    return f"codegraph/all-MiniLM-L6-v2-onnx/{model_file}"


def _register(model_file: str) -> str:
    """Register the local file with fastembed once per process; returns the name."""
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    name = _custom_name(model_file)
    with _REGISTER_LOCK:
        if name in _REGISTERED:
            return name
        known = {m["model"].lower() for m in TextEmbedding.list_supported_models()}
        if name.lower() not in known:
            TextEmbedding.add_custom_model(
                model=name,
                pooling=PoolingType.MEAN,
                normalization=True,
                sources=ModelSource(hf="local/all-MiniLM-L6-v2-onnx"),  # placeholder, never fetched
                dim=DIM,
                model_file=model_file,
            )
        _REGISTERED.add(name)
    return name


def _without_spinning(model: Any, path: Path, threads: int | None) -> bool:
    """Re-create fastembed's onnxruntime session with thread spinning off.

    onnxruntime's workers busy-wait after each run by default. On a small machine that
    also runs Elasticsearch / Neo4j / the dashboard, that steals the CPU the next store
    call needs: measured on 2 cores, query embedding + one Elasticsearch search took
    ~100 ms with spinning and ~16 ms without, and batch throughput did not drop.
    fastembed 0.9 exposes no option for it, so the session it built (model.model.model)
    is replaced by an identical one; if that attribute path ever changes, the default
    session stays and this returns False.
    """
    import onnxruntime as ort

    inner = getattr(model, "model", None)
    session = getattr(inner, "model", None)
    if not isinstance(session, ort.InferenceSession):
        return False
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if threads:
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = threads
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    so.add_session_config_entry("session.inter_op.allow_spinning", "0")
    inner.model = ort.InferenceSession(str(path), sess_options=so, providers=session.get_providers())
    return True


def _runner_of(model: Any, streams: int) -> OnnxRunner | None:
    """An OnnxRunner on the session and tokenizer fastembed loaded (model.model.model and
    model.model.tokenizer in fastembed 0.9, a mean-pooled normalised model); None when
    those attributes are not there (then fastembed's own embed runs)."""
    import onnxruntime as ort

    inner = getattr(model, "model", None)
    session = getattr(inner, "model", None)
    tokenizer = getattr(inner, "tokenizer", None)
    if not isinstance(session, ort.InferenceSession) or tokenizer is None or not hasattr(tokenizer, "to_str"):
        return None
    return OnnxRunner(session, tokenizer, streams)


class Embedder:
    """``embed(texts) -> (n, 384) float32`` unit vectors, in input order.

    ``folder`` None (and no ``name``) means no model: ``available`` is False and ``embed``
    raises EmbedderUnavailable. ``name``: fastembed's named model, loaded from its cache
    (see model_source). ``threads`` None or 0 lets onnxruntime use every core.
    ``batch_dependent``: dynamic-int8 files, embedded one text per run (default: the
    file name says "quantized"). ``batch_size``: most texts per model run and
    ``token_budget`` most tokens (rows x longest row) per run, 0 for no limit; ``streams``:
    runs in flight (default: two for a batch-dependent file, else one; see STREAMS_*).
    """

    dim = DIM

    def __init__(self, folder: Path | None, model_file: str = "model.onnx", threads: int | None = None,
                 batch_size: int = 16, name: str | None = None, missing_reason: str = "",
                 batch_dependent: bool | None = None, token_budget: int = TOKEN_BUDGET,
                 streams: int | None = None) -> None:
        self.folder = Path(folder) if folder is not None else None
        self.model_file = model_file
        self.name = name
        self.missing_reason = missing_reason
        self.batch_dependent = ("quantized" in model_file) if batch_dependent is None else batch_dependent
        # onnxruntime threads: the cores unless told (its own default counts physical
        # cores, which a VM may report as fewer than it can run)
        self.threads = threads or os.cpu_count() or None
        self.batch_size = batch_size
        self.token_budget = token_budget
        self.streams = streams or (STREAMS_ONE_TEXT if self.batch_dependent else STREAMS_BATCHED)
        self._runner: OnnxRunner | None = None
        self.load_seconds: float | None = None
        self.spinning_off = False
        self._model: Any = None
        self._error: str = ""
        self._lock = threading.Lock()
        self.query_cache: QueryVectorCache | None = None  # see embed_query

    @classmethod
    def from_settings(cls, settings: Any) -> Embedder:
        emb = cls.from_choice(resolve_model(settings), settings.embed_threads or None)
        emb.query_cache = QueryVectorCache(settings.home / "query_vectors.db")
        return emb

    @classmethod
    def from_choice(cls, choice: ModelChoice, threads: int | None = None) -> Embedder:
        return cls(choice.folder, choice.model_file or "model.onnx", threads, name=choice.name,
                   missing_reason=choice.reason)

    @property
    def available(self) -> bool:
        """True when the model file exists (or the named model was resolved) and has not
        failed to load (cheap: no load)."""
        if self._error:
            return False
        if self.name and self.folder is None:
            return True
        return self.folder is not None and (self.folder / self.model_file).is_file()

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def reason(self) -> str:
        """Why search is BM25-only; empty when the model is available."""
        if self._error:
            return f"search is BM25-only: {self._error}"
        if self.folder is None and not self.name:
            return self.missing_reason or ("search is BM25-only: no embedding model "
                                           "(set CODEGRAPH_EMBED_MODEL_PATH)")
        if self.folder is None:
            return ""
        if not (self.folder / self.model_file).is_file():
            return (f"search is BM25-only: no embedding model at {self.folder / self.model_file} "
                    "(set CODEGRAPH_EMBED_MODEL_PATH)")
        return ""

    def load(self) -> float:
        """Load the model now; returns seconds taken (0 when already loaded).
        Raises EmbedderUnavailable when there is no model or it does not load."""
        with self._lock:
            if self._model is not None:
                return 0.0
            if not self.available:
                raise EmbedderUnavailable(self.reason)
            t = time.perf_counter()
            try:
                from fastembed import TextEmbedding

                if self.folder is None:  # fastembed's named model, from its cache (or the hub if allowed)
                    self._model = TextEmbedding(model_name=self.name, threads=self.threads,
                                                local_files_only=not download_allowed())
                else:
                    name = _register(self.model_file)
                    self._model = TextEmbedding(model_name=name, specific_model_path=str(self.folder),
                                                threads=self.threads)
                    self.spinning_off = _without_spinning(self._model, self.folder / self.model_file,
                                                          self.threads)
                self._runner = _runner_of(self._model, self.streams)
            except Exception as e:  # onnxruntime/tokenizers/hub raise many types for a bad file
                where = self.folder / self.model_file if self.folder is not None else f"fastembed {self.name}"
                self._error = f"embedding model {where} did not load: {' '.join(str(e).split())[:200]}"
                raise EmbedderUnavailable(self.reason) from e
            self.load_seconds = time.perf_counter() - t
            return self.load_seconds

    def embed(self, texts: list[str], batch_size: int | None = None) -> np.ndarray:
        """(len(texts), 384) float32, L2-normalised, in input order; at most ``batch_size``
        texts (default ``self.batch_size``; always 1 for a batch-dependent int8 file, so a
        text's vector never depends on its neighbours) and ``token_budget`` tokens per model
        run. Texts are embedded sorted by token count, so each batch pads to similar
        lengths: the same vectors with the fp32 model, less padding work (give long lists
        for the full effect)."""
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        self.load()
        size = 1 if self.batch_dependent else (batch_size or self.batch_size)
        if self._runner is not None:
            return self._runner.embed(texts, self.token_budget, size)
        # fastembed's own loop (its session or tokenizer were not where _runner_of looks)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), DIM), dtype=np.float32)
        vecs = self._model.embed([texts[i] for i in order], batch_size=size)
        for pos, v in zip(order, vecs, strict=True):
            out[pos] = v
        return out

    def cached_query(self, text: str) -> np.ndarray | None:
        """The vector of a query embedded before (``query_cache``), without loading the
        model; None on a miss or without a cache."""
        if self.query_cache is None or not self.available:
            return None
        return self.query_cache.get(model_key(self.folder, self.model_file, self.name), text)

    def embed_query(self, text: str) -> np.ndarray:
        """(384,) float32 unit vector of one query; loads the model if needed and keeps
        the vector in ``query_cache`` for the next process."""
        vec = self.embed([text])[0]
        if self.query_cache is not None:
            self.query_cache.put(model_key(self.folder, self.model_file, self.name), text, vec)
        return vec


def measure_throughput(embedder: Embedder, texts: list[str], repeat: int = 1) -> dict[str, float]:
    """Raw embedding throughput on ``texts`` (model load excluded): {"texts", "seconds",
    "texts_per_s", "load_s"}."""
    load_s = embedder.load()
    embedder.embed(texts[: min(8, len(texts))])  # warm-up: first run allocates arenas
    t = time.perf_counter()
    for _ in range(repeat):
        embedder.embed(texts)
    secs = time.perf_counter() - t
    n = len(texts) * repeat
    return {"texts": n, "seconds": secs, "texts_per_s": n / secs if secs else 0.0, "load_s": load_s}

"""Which embedding model search uses: the resolution order (docs/DESIGN.md#search).

1. ``CODEGRAPH_EMBED_MODEL_PATH``: a folder of ONNX model + tokenizer files (``none``
   switches vectors off). A folder that holds no model file is reported, not skipped.
2. The project's own folder ``models/all-MiniLM-L6-v2-onnx`` (int8 ONNX, shipped in git).
3. fastembed's named model ``sentence-transformers/all-MiniLM-L6-v2`` from fastembed's
   cache (``FASTEMBED_CACHE_PATH``); fetched from the hub only when
   ``CODEGRAPH_EMBED_DOWNLOAD=1`` (off by default: the product never reaches out on its own).
4. None: search is BM25-only, and ``reason`` is the one line saying so.

``CODEGRAPH_EMBED_MODEL_FILE`` picks the file inside a folder; empty means ``model.onnx``
(fp32) when present, else ``model_quantized.onnx`` (int8). Resolution only looks at files:
nothing is loaded here.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[2]
PROJECT_MODEL = PROJECT_ROOT / "models" / "all-MiniLM-L6-v2-onnx"
NAMED_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# fastembed 0.9 serves the name above from this Hugging Face repository.
NAMED_MODEL_REPO = "qdrant/all-MiniLM-L6-v2-onnx"
MODEL_FILES = ("model.onnx", "model_quantized.onnx")  # preference order when none is set
DOWNLOAD_ENV = "CODEGRAPH_EMBED_DOWNLOAD"


@dataclass(frozen=True)
class ModelChoice:
    """Where vectors come from. ``source``: "env", "project", "fastembed" or "none".

    ``folder`` + ``model_file`` for a local folder; ``name`` for fastembed's named model;
    ``reason`` is empty when a model was found, else the BM25-only line."""

    source: str
    folder: Path | None = None
    model_file: str = ""
    name: str | None = None
    reason: str = ""

    @property
    def found(self) -> bool:
        return self.source != "none"

    def describe(self) -> str:
        """One line naming the model, e.g. for the Health page and logs."""
        if self.folder is not None:
            return f"{self.folder / self.model_file} ({self.source})"
        if self.name:
            return f"fastembed {self.name} (cache {fastembed_cache()})"
        return self.reason


def fastembed_cache() -> Path:
    """fastembed's cache folder (same rule as fastembed: FASTEMBED_CACHE_PATH, else tmp)."""
    return Path(os.getenv("FASTEMBED_CACHE_PATH") or Path(tempfile.gettempdir()) / "fastembed_cache")


def download_allowed() -> bool:
    return os.getenv(DOWNLOAD_ENV, "").strip().lower() in {"1", "true", "yes"}


def _named_model_cached() -> bool:
    """True when fastembed's cache holds an ONNX file of the named model (any layout)."""
    base = fastembed_cache()
    # Hugging Face layout, and fastembed's older tar layout.
    names = {("models--" + NAMED_MODEL_REPO.replace("/", "--")).lower(), "fast-all-minilm-l6-v2"}
    candidates = [p for p in base.iterdir() if p.name.lower() in names] if base.is_dir() else []
    return any(any(c.rglob("*.onnx")) for c in candidates)


def _pick_file(folder: Path, wanted: str) -> str | None:
    if wanted:
        return wanted if (folder / wanted).is_file() else None
    return next((f for f in MODEL_FILES if (folder / f).is_file()), None)


def resolve_model(settings: Any) -> ModelChoice:
    """The model for ``settings`` (``embed_model_path``, ``embed_model_file``), by the order above."""
    path = str(getattr(settings, "embed_model_path", "") or "").strip()
    wanted = str(getattr(settings, "embed_model_file", "") or "").strip()
    if path.lower() == "none":
        return ModelChoice("none", reason="search is BM25-only: the embedding model is switched off "
                                          "(CODEGRAPH_EMBED_MODEL_PATH=none)")
    if path:
        folder = Path(os.path.expanduser(path))
        file = _pick_file(folder, wanted)
        if file is None:
            what = folder / wanted if wanted else f"{folder} (no {' or '.join(MODEL_FILES)})"
            return ModelChoice("none", reason=f"search is BM25-only: no embedding model at {what} "
                                              "(CODEGRAPH_EMBED_MODEL_PATH)")
        return ModelChoice("env", folder=folder, model_file=file)
    file = _pick_file(PROJECT_MODEL, wanted)
    if file is not None:
        return ModelChoice("project", folder=PROJECT_MODEL, model_file=file)
    if _named_model_cached() or download_allowed():
        return ModelChoice("fastembed", name=NAMED_MODEL)
    return ModelChoice("none", reason=(
        f"search is BM25-only: no embedding model (not at {PROJECT_MODEL}, not in fastembed's cache "
        f"{fastembed_cache()}); set CODEGRAPH_EMBED_MODEL_PATH, or {DOWNLOAD_ENV}=1 to fetch {NAMED_MODEL}"))

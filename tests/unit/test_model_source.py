"""Which embedding model search uses (core/model_source.py): the order
CODEGRAPH_EMBED_MODEL_PATH -> the project's models/ folder -> fastembed's named model from
its cache -> BM25-only with one line. Each step is exercised with real files and a real load."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from codegraph.core import model_source
from codegraph.core.embedder import Embedder, EmbedderUnavailable
from codegraph.core.model_source import PROJECT_MODEL, resolve_model
from codegraph.core.settings import load_settings

MODEL_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"]


def _copy_folder(dst: Path, model_name: str = "model_quantized.onnx") -> Path:
    """A model folder of links to the project's files (nothing large copied)."""
    dst.mkdir(parents=True)
    for f in MODEL_FILES:
        (dst / f).symlink_to(PROJECT_MODEL / f)
    (dst / model_name).symlink_to(PROJECT_MODEL / "model_quantized.onnx")
    return dst


def test_the_project_ships_its_model_with_readme_and_licence() -> None:
    assert (PROJECT_MODEL / "model_quantized.onnx").stat().st_size > 20_000_000
    assert "Apache License" in (PROJECT_MODEL / "LICENSE").read_text()
    assert "Apache-2.0" in (PROJECT_MODEL / "README.md").read_text()


def test_default_is_the_project_folder_int8_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CODEGRAPH_EMBED_MODEL_PATH", raising=False)
    choice = resolve_model(load_settings(embed_model_path="", embed_model_file=""))
    assert (choice.source, choice.folder, choice.model_file) == ("project", PROJECT_MODEL, "model_quantized.onnx")
    emb = Embedder.from_choice(choice)
    assert emb.available and emb.batch_dependent


def test_env_path_comes_first_and_prefers_fp32_name(tmp_path: Path) -> None:
    folder = _copy_folder(tmp_path / "mine", model_name="model.onnx")
    choice = resolve_model(load_settings(embed_model_path=str(folder), embed_model_file=""))
    assert (choice.source, choice.folder, choice.model_file) == ("env", folder, "model.onnx")
    assert not Embedder.from_choice(choice).batch_dependent


def test_env_path_without_a_model_says_so_and_does_not_fall_through(tmp_path: Path) -> None:
    choice = resolve_model(load_settings(embed_model_path=str(tmp_path), embed_model_file=""))
    assert choice.source == "none" and str(tmp_path) in choice.reason and "\n" not in choice.reason
    off = resolve_model(load_settings(embed_model_path="none"))
    assert off.source == "none" and "switched off" in off.reason


def _no_project_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setattr(model_source, "PROJECT_MODEL", tmp_path / "no-project-model")
    cache = tmp_path / "fastembed-cache"
    cache.mkdir()
    monkeypatch.setenv("FASTEMBED_CACHE_PATH", str(cache))
    monkeypatch.delenv(model_source.DOWNLOAD_ENV, raising=False)
    return cache


def test_without_any_model_search_is_bm25_only_with_one_line(monkeypatch: pytest.MonkeyPatch,
                                                             tmp_path: Path) -> None:
    _no_project_model(monkeypatch, tmp_path)
    choice = resolve_model(load_settings(embed_model_path="", embed_model_file=""))
    emb = Embedder.from_choice(choice)
    assert choice.source == "none" and not emb.available
    assert emb.reason.startswith("search is BM25-only") and "\n" not in emb.reason
    with pytest.raises(EmbedderUnavailable, match="BM25-only"):
        emb.embed(["x"])


def test_fastembed_named_model_loads_from_its_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cache = _no_project_model(monkeypatch, tmp_path)
    # fastembed's Hugging Face cache layout for the named model (offline: local files only).
    rev = "0" * 40
    repo = cache / "models--Qdrant--all-MiniLM-L6-v2-onnx"
    _copy_folder(repo / "snapshots" / rev, model_name="model.onnx")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(rev)
    choice = resolve_model(load_settings(embed_model_path="", embed_model_file=""))
    assert (choice.source, choice.name) == ("fastembed", model_source.NAMED_MODEL)
    vec = Embedder.from_choice(choice, threads=1).embed(["parse a config file"])
    assert vec.shape == (1, 384) and abs(float(np.linalg.norm(vec[0])) - 1.0) < 1e-4


def test_int8_vectors_do_not_depend_on_the_batch() -> None:
    emb = Embedder(PROJECT_MODEL, "model_quantized.onnx", threads=1)
    texts = ["def place_order(cart): return cart.total()", "!!", "SELECT id FROM orders WHERE total > 10",
             "a much longer text " * 30]
    together = emb.embed(texts, batch_size=64)
    for i, t in enumerate(texts):
        alone = emb.embed([t])[0]
        assert np.array_equal(alone, together[i])

"""The SearchIndex protocol: meaning, behind one typed interface per backend.

Backends: ``embedded`` (sqlite FTS5 + float32 vectors with exact cosine in NumPy,
``codegraph.core.embedded_search``) and ``elasticsearch``
(``codegraph.core.elastic_search``). Fusion of BM25 and kNN happens in core
(``codegraph.core.retrieval``), identically for every backend.

BM25 fields: ``text`` (source), ``identifiers`` (split camelCase / snake_case / dotted
names), ``name`` (weight 3x) and ``qualified_name`` (weight 2x) - docs/DESIGN.md#search.
Errors: every method may raise ``StoreUnavailable``. ``bulk_load`` (below) wraps a load
of many chunks in the backend's full-load mode where it has one.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from codegraph.core.models import Chunk

if TYPE_CHECKING:  # only for annotations: BM25-only callers never import numpy
    import numpy as np


@runtime_checkable
class SearchIndex(Protocol):
    backend: str  # "embedded" | "elasticsearch"

    def ensure_schema(self) -> None: ...

    def close(self) -> None: ...

    def upsert_chunks(self, chunks: list[Chunk]) -> None:
        """Insert or replace chunks by chunk_id (BM25-searchable on return). A chunk
        whose content_hash is unchanged keeps its vector; a changed one loses it."""

    def delete_files(self, repo: str, paths: list[str]) -> int:
        """Delete every chunk of those files; returns chunks deleted."""

    def delete_chunks(self, repo: str, chunk_ids: list[str]) -> int:
        """Delete chunks by id (with their vectors); returns how many were asked to go."""

    def chunk_ids_by_file(self, repo: str, paths: list[str] | None = None) -> dict[str, list[str]]:
        """path -> chunk ids currently stored for that file (only ``paths`` when given)."""

    def bm25(self, query: str, k: int, repo: str | None = None) -> list[tuple[str, float]]:
        """Top-k (chunk_id, score) by BM25, best first."""

    def knn(self, vector: np.ndarray, k: int, repo: str | None = None) -> list[tuple[str, float]]:
        """Top-k (chunk_id, cosine similarity) by the 384-d vector, best first."""

    def get_chunks(self, chunk_ids: list[str]) -> dict[str, Chunk]: ...

    def has_vectors(self, repo: str | None = None) -> bool:
        """True when at least one chunk (of ``repo``) has a vector: a cheap look-up, so a
        search asks it before loading the embedding model."""

    def chunks_missing_vectors(self, repo: str | None = None, limit: int = 256) -> list[Chunk]:
        """Chunks with no vector yet (the resumable embedding phase reads these)."""

    def set_vectors(self, vectors: dict[str, np.ndarray]) -> None:
        """chunk_id -> float32 unit vector (384-d)."""

    def stats(self, repo: str | None = None) -> dict[str, Any]:
        """{"chunks": n, "with_vectors": n, "bytes": approximate size}."""

    def delete_repo(self, repo: str) -> None: ...


def bulk_load(index: SearchIndex, repo: str) -> AbstractContextManager[None]:
    """The backend's full-load mode for ``repo`` (Elasticsearch: refresh off and requests
    in flight until the block ends, codegraph.core.es_bulk), else a block that does
    nothing. Writes inside are searchable when the block ends."""
    fn = getattr(index, "bulk_load", None)
    return fn(repo) if fn is not None else nullcontext()

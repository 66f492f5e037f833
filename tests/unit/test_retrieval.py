"""Hybrid retrieval (codegraph.core.retrieval) and the embedding phase, on a real
embedded index of standard-library code with real embeddings from the shared model
folder (skipped only when that folder is absent)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from codegraph.core.embedded_search import EmbeddedSearchIndex
from codegraph.core.embedder import Embedder, EmbedderUnavailable
from codegraph.core.models import Chunk, FileImport, RepoRecord
from codegraph.core.query_cache import QueryVectorCache, model_key
from codegraph.core.retrieval import (
    NO_VECTORS,
    RRF_K,
    hybrid_search,
    identifier_field,
    identifier_words,
    query_terms,
    rrf_fuse,
)
from codegraph.core.settings import load_settings
from codegraph.indexer.chunks import chunks_for_file
from codegraph.indexer.embed_phase import run_embedding
from codegraph.indexer.records import FileExtraction
from tests.stdlib_source import extract_python, stdlib_files

FILES = ["json/decoder.py", "json/encoder.py", "shutil.py", "gzip.py", "csv.py", "base64.py", "textwrap.py",
         "heapq.py"]
REPO = "std"


# -- pure functions -----------------------------------------------------------------------


def test_rrf_fuse_sums_reciprocal_ranks() -> None:
    fused = dict(rrf_fuse([["a", "b", "c"], ["c", "a", "d"]]))
    assert fused["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert fused["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert fused["b"] == pytest.approx(1 / 62) and fused["d"] == pytest.approx(1 / 63)
    assert [c for c, _ in rrf_fuse([["a", "b", "c"], ["c", "a", "d"]])] == ["a", "c", "b", "d"]
    assert [c for c, _ in rrf_fuse([["x", "y"], []])] == ["x", "y"]
    assert rrf_fuse([[], []]) == []
    assert RRF_K == 60


def test_identifier_splitting() -> None:
    assert identifier_words("parseConfig") == ["parse", "config"]
    assert identifier_words("ParseConfig") == ["parse", "config"]
    assert identifier_words("parse_config") == ["parse", "config"]
    assert identifier_words("HTTPServerError") == ["http", "server", "error"]
    assert identifier_words("os.path.join") == ["os", "path", "join"]
    assert identifier_words("utf8Decode") == ["utf8", "decode"]
    assert identifier_words("berechneGröße") == ["berechne", "größe"]
    assert identifier_words("__init__") == ["init"]
    assert identifier_field(["ParseConfig", "run"]) == "parseconfig parse config run"
    assert query_terms("parse config") == ["parse", "config"]
    assert query_terms("where is parseConfig?") == ["where", "is", "parseconfig", "parse", "config"]
    assert query_terms('"); DROP -- *') == ["drop"]


# -- on a real index ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def model_embedder() -> Embedder:
    s = load_settings(embed_threads=2)
    e = Embedder.from_settings(s)
    if not e.available:
        pytest.skip(e.reason)
    return e


@pytest.fixture(scope="module")
def corpus() -> list[Chunk]:
    return [c for p, src in stdlib_files(FILES) for c in chunks_for_file(extract_python(REPO, p, src), src)]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, corpus: list[Chunk],
          model_embedder: Embedder) -> Iterator[EmbeddedSearchIndex]:
    ix = EmbeddedSearchIndex(tmp_path_factory.mktemp("retrieval") / "search.db")
    ix.upsert_chunks(corpus)
    report = run_embedding(ix, model_embedder, repo=REPO, batch_size=64)
    assert report["embedded"] == len(corpus) and report["remaining"] == 0
    yield ix
    ix.close()


def qns(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [h.chunk.qualified_name for h in result.hits]


def test_hybrid_finds_code_by_meaning(index: EmbeddedSearchIndex, model_embedder: Embedder) -> None:
    r = hybrid_search(index, model_embedder, "recursively duplicate a folder with all its files", k=5, repo=REPO)
    assert r.mode == "hybrid" and r.reason == ""
    assert qns(r)[0] == "shutil.copytree"
    r = hybrid_search(index, model_embedder, "delete a folder and everything inside", k=3, repo=REPO)
    assert qns(r)[0] == "shutil.rmtree"
    top = r.hits[0]
    # BM25 alone ranks rmtree lower; the vector side lifts it to the top.
    assert top.knn_rank == 1 and top.bm25_rank is not None and top.bm25_rank > 1
    r = hybrid_search(index, model_embedder, "wrap long paragraphs to a fixed width", k=3, repo=REPO)
    assert qns(r)[0] == "textwrap.wrap"
    r = hybrid_search(index, model_embedder, "compress data with gzip", k=3, repo=REPO)
    assert qns(r)[0] == "gzip.compress"


def test_hits_carry_ranks_fused_scores_and_timed_steps(index: EmbeddedSearchIndex, model_embedder: Embedder) -> None:
    model_embedder.load()
    r = hybrid_search(index, model_embedder, "priority queue pop smallest item", k=10, repo=REPO)
    assert len(r.hits) == 10
    bm = [c for c, _ in index.bm25("priority queue pop smallest item", 50, repo=REPO)]
    qv = model_embedder.embed(["priority queue pop smallest item"])[0]
    kn = [c for c, _ in index.knn(qv, 50, repo=REPO)]
    expected = rrf_fuse([bm, kn])[:10]
    assert [h.chunk.chunk_id for h in r.hits] == [c for c, _ in expected]
    for h, (_, score) in zip(r.hits, expected, strict=True):
        assert h.score == pytest.approx(score)
        assert h.bm25_rank == (bm.index(h.chunk.chunk_id) + 1 if h.chunk.chunk_id in bm else None)
        assert h.knn_rank == (kn.index(h.chunk.chunk_id) + 1 if h.chunk.chunk_id in kn else None)
    assert [s.name for s in r.steps] == ["bm25", "embed query", "knn", "fuse", "fetch chunks"]
    assert all(s.ms >= 0 for s in r.steps) and r.total_ms > 0
    d = r.to_dict()
    assert d["mode"] == "hybrid" and d["hits"][0]["chunk_id"] == r.hits[0].chunk.chunk_id


def test_graph_join_drops_hits_without_a_node(index: EmbeddedSearchIndex, model_embedder: Embedder,
                                              tmp_path: Path) -> None:
    from codegraph.core.embedded_graph import EmbeddedGraphStore

    graph = EmbeddedGraphStore(tmp_path / "graph.db")
    try:
        graph.ensure_schema()
        graph.upsert_repo(RepoRecord(name=REPO, path="/stdlib"))
        (path, src), = stdlib_files(["shutil.py"])
        fx: FileExtraction = extract_python(REPO, path, src)
        graph.import_files(REPO, [FileImport(fx.file, fx.symbols)])
        r = hybrid_search(index, model_embedder, "compress data with gzip", k=5, repo=REPO, graph=graph)
        assert r.hits and all(h.chunk.file == "shutil.py" for h in r.hits)
        assert r.dropped > 0
        assert r.steps[-1].name == "graph join"
    finally:
        graph.close()
    keep = {c.symbol_uid for c in index.get_chunks([c for c, _ in index.bm25("gzip", 200, repo=REPO)]).values()}
    seen: list[list[str]] = []

    def only_gzip(uids: list[str]) -> list[str]:
        seen.append(uids)
        return [u for u in uids if u in keep]

    r = hybrid_search(index, model_embedder, "compress data with gzip", k=5, repo=REPO, graph=only_gzip)
    assert len(seen) == 1  # one batch
    assert r.hits and all(h.chunk.symbol_uid in keep for h in r.hits)


def test_bm25_only_without_model_says_why(index: EmbeddedSearchIndex, tmp_path: Path) -> None:
    none = Embedder(None)
    r = hybrid_search(index, none, "copy a directory tree", k=5, repo=REPO)
    assert r.mode == "bm25-only" and "CODEGRAPH_EMBED_MODEL_PATH" in r.reason
    assert r.hits and all(h.knn_rank is None for h in r.hits) and "shutil.copytree" in qns(r)
    with pytest.raises(EmbedderUnavailable, match="BM25-only"):
        none.embed(["x"])
    missing = Embedder(tmp_path / "no-model-here")
    assert not missing.available and str(tmp_path / "no-model-here") in missing.reason
    broken_dir = tmp_path / "broken"
    broken_dir.mkdir()
    (broken_dir / "model.onnx").write_bytes(b"not an onnx file")
    broken = Embedder(broken_dir)
    r = hybrid_search(index, broken, "copy a directory tree", k=5, repo=REPO)
    assert r.mode == "bm25-only" and "did not load" in r.reason and r.hits
    assert not broken.available


def test_bm25_only_when_no_vectors_yet(tmp_path: Path, corpus: list[Chunk], model_embedder: Embedder) -> None:
    ix = EmbeddedSearchIndex(tmp_path / "search.db")
    try:
        ix.upsert_chunks(corpus[:40])
        r = hybrid_search(ix, model_embedder, "decode json", k=5, repo=REPO)
        assert r.mode == "bm25-only" and "embedding phase" in r.reason and r.hits
    finally:
        ix.close()


def test_embedder_vectors_are_unit_ordered_and_batch_independent(model_embedder: Embedder) -> None:
    texts = ["def place_order(cart): ...", "validate an order before saving", "x", "a much longer text " * 20]
    v = model_embedder.embed(texts)
    assert v.shape == (4, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-3)
    single = np.stack([model_embedder.embed([t])[0] for t in texts])
    assert np.allclose(v, single, atol=1e-4)  # fp32: sorting/batching does not change vectors
    assert model_embedder.embed([]).shape == (0, 384)


def test_embedding_phase_resumes_after_an_interrupted_run(tmp_path: Path, corpus: list[Chunk],
                                                          model_embedder: Embedder) -> None:
    ix = EmbeddedSearchIndex(tmp_path / "search.db")
    try:
        chunks = corpus[:48]
        ix.upsert_chunks(chunks)
        calls: list[dict] = []

        def die_after_two(p: dict) -> None:
            calls.append(p)
            if len(calls) == 2:
                raise KeyboardInterrupt  # as if the process were stopped here

        with pytest.raises(KeyboardInterrupt):
            run_embedding(ix, model_embedder, repo=REPO, batch_size=8, window=8, progress=die_after_two)
        assert ix.stats(REPO)["with_vectors"] == 16  # the two finished batches were kept
        assert [p["done"] for p in calls] == [8, 16] and calls[0]["total"] == 48
        report = run_embedding(ix, model_embedder, repo=REPO, batch_size=8, window=8)
        assert report["embedded"] == 48 - 16 and report["remaining"] == 0
        assert report["chunks_per_s"] > 0 and report["batches"] == 4
        # Vectors match a fresh embedding of the same texts.
        some = chunks[:3]
        fresh = model_embedder.embed([c.embed_text for c in some])
        for c, v in zip(some, fresh, strict=True):
            assert ix.knn(v, 1, repo=REPO)[0][0] == c.chunk_id
        assert run_embedding(ix, model_embedder, repo=REPO)["embedded"] == 0
    finally:
        ix.close()


# -- no model load without vectors; query vectors cached across processes -----------------


def test_no_vectors_means_no_model_load(tmp_path: Path, corpus: list[Chunk], model_embedder: Embedder) -> None:
    ix = EmbeddedSearchIndex(tmp_path / "search.db")
    try:
        ix.upsert_chunks(corpus)  # BM25 rows, no vectors yet
        emb = Embedder(model_embedder.folder, model_embedder.model_file, threads=2)
        r = hybrid_search(ix, emb, "recursively duplicate a folder", k=5, repo=REPO)
        assert r.mode == "bm25-only" and r.reason == NO_VECTORS
        assert not emb.loaded and "load model" not in [s.name for s in r.steps]
        assert qns(r)  # BM25 still answers
    finally:
        ix.close()


def test_query_vector_cache_skips_the_model_and_keeps_the_answer(
        index: EmbeddedSearchIndex, model_embedder: Embedder, tmp_path: Path) -> None:
    cache = QueryVectorCache(tmp_path / "qv.db")
    first = Embedder(model_embedder.folder, model_embedder.model_file, threads=2)
    first.query_cache = cache
    query = "read rows from a comma separated file"
    r1 = hybrid_search(index, first, query, k=10, repo=REPO)
    assert first.loaded and r1.mode == "hybrid"
    second = Embedder(model_embedder.folder, model_embedder.model_file, threads=2)  # a new process, in effect
    second.query_cache = cache
    r2 = hybrid_search(index, second, query, k=10, repo=REPO)
    assert not second.loaded
    assert [(h.chunk.chunk_id, h.bm25_rank, h.knn_rank) for h in r2.hits] == \
        [(h.chunk.chunk_id, h.bm25_rank, h.knn_rank) for h in r1.hits]
    assert [s.detail for s in r2.steps if s.name == "embed query"] == ["cached, model not loaded"]
    key = model_key(first.folder, first.model_file, first.name)
    np.testing.assert_array_equal(cache.get(key, query), first.embed([query])[0])
    assert cache.get(key + "-other-model", query) is None and cache.get(key, "never asked") is None


def test_query_vector_cache_keeps_at_most_max_entries(tmp_path: Path) -> None:
    cache = QueryVectorCache(tmp_path / "qv.db", max_entries=3)
    vec = np.ones(384, dtype=np.float32) / np.sqrt(384)
    for i in range(5):
        cache.put("m", f"q{i}", vec * (1 if i % 2 else -1))
    assert [cache.get("m", f"q{i}") is not None for i in range(5)] == [False, False, True, True, True]
    bad = QueryVectorCache(tmp_path / "not-a-dir" / "x.db")
    (tmp_path / "not-a-dir").write_text("a file where the folder should be")
    bad.put("m", "q", vec)  # an unusable cache never fails a search
    assert bad.get("m", "q") is None


def test_servers_warm_the_model_only_when_vectors_exist(tmp_path: Path, corpus: list[Chunk],
                                                         model_embedder: Embedder) -> None:
    from codegraph.core.stores import Stores

    settings = load_settings(home=tmp_path, graph="embedded", search="embedded", embed_threads=2,
                             embed_model_path=str(model_embedder.folder), embed_model_file=model_embedder.model_file)
    with Stores(settings) as stores:
        stores.search.upsert_chunks(corpus[:3])
        stores.warm_embedder().join(timeout=120)
        assert not stores.embedder.loaded  # no vectors: nothing to warm
        rng = np.random.default_rng(1)
        stores.search.set_vectors({c.chunk_id: rng.normal(size=384).astype(np.float32) for c in corpus[:3]})
        stores.warm_embedder().join(timeout=120)
        assert stores.embedder.loaded

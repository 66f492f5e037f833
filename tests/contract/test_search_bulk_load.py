"""Full loads of many chunks (``codegraph.core.search_index.bulk_load``): on every backend
the chunks are all searchable when the block ends; on Elasticsearch the index runs with
refresh off and an asynchronous translog only inside the block, and gets the defaults
back when the block ends by success, by an error, or (after a kill) at the next write.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from codegraph.core.models import Chunk, file_uid, stable_hash, symbol_uid
from codegraph.core.search_index import SearchIndex, bulk_load
from tests.services import elasticsearch_index, service_settings

ROOT = Path(__file__).resolve().parents[2]
_PREFIX = f"cgbulk{uuid.uuid4().hex[:6]}"


def chunks(repo: str, n: int, tag: str = "") -> list[Chunk]:
    out = []
    for i in range(n):
        qn = f"pkg.mod{i // 50}.func_{i}"
        text = f"def func_{i}(x):\n    return compute_{i % 7}(x) {tag}"
        out.append(Chunk(chunk_id=f"{repo}|pkg/mod{i // 50}.py|{qn}", repo=repo, file=f"pkg/mod{i // 50}.py",
                         kind="function", language="python", line=1, end_line=2, text=text,
                         embed_text=f"function {qn}", content_hash=stable_hash(text), qualified_name=qn,
                         name=f"func_{i}", symbol_uid=symbol_uid(repo, qn, ""), file_uid=file_uid(repo, "pkg")))
    return out


def es_index() -> SearchIndex:
    return elasticsearch_index(_PREFIX)


@pytest.fixture(params=("embedded", "elasticsearch"))
def index(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SearchIndex]:
    if request.param == "embedded":
        from codegraph.core.embedded_search import EmbeddedSearchIndex

        ix: SearchIndex = EmbeddedSearchIndex(tmp_path / "search.db")
    else:
        ix = es_index()
    yield ix
    ix.close()


@pytest.fixture
def repo(index: SearchIndex) -> Iterator[str]:
    name = f"bl-{uuid.uuid4().hex[:10]}"
    yield name
    index.delete_repo(name)


def teardown_module() -> None:
    settings = service_settings()
    if not settings.search.startswith(("http://", "https://")):
        return
    from elasticsearch import Elasticsearch

    client = Elasticsearch(settings.search).options(ignore_status=404)
    try:
        for name in client.indices.get(index=f"{_PREFIX}-*", allow_no_indices=True).body:
            client.indices.delete(index=name)
        for kind in ("code", "schema", "config", "docs"):
            client.indices.delete_index_template(name=f"{_PREFIX}-{kind}")
    finally:
        client.close()


def load_settings_of(ix: SearchIndex, repo: str) -> tuple[str, str]:
    """(refresh_interval, translog durability) of the repo's code index ('' = default)."""
    name = ix.index_name(repo)  # type: ignore[attr-defined]
    got = ix.client.indices.get_settings(index=name).body[name]["settings"]["index"]  # type: ignore[attr-defined]
    return str(got.get("refresh_interval", "")), str(got.get("translog", {}).get("durability", ""))


def test_a_bulk_load_leaves_every_chunk_searchable(index: SearchIndex, repo: str) -> None:
    data = chunks(repo, 4500)
    with bulk_load(index, repo):
        for i in range(0, len(data), 2000):
            index.upsert_chunks(data[i:i + 2000])
            if index.backend == "elasticsearch":
                assert load_settings_of(index, repo) == ("-1", "async")
    assert index.stats(repo)["chunks"] == 4500
    assert [cid for cid, _ in index.bm25("func_4321", 1, repo=repo)] == [data[4321].chunk_id]
    if index.backend == "elasticsearch":
        assert load_settings_of(index, repo) == ("", "")


def test_a_reload_keeps_the_vectors_of_unchanged_chunks(index: SearchIndex, repo: str) -> None:
    first = chunks(repo, 2500)
    index.upsert_chunks(first)
    rng = np.random.default_rng(1)
    index.set_vectors({c.chunk_id: rng.normal(size=384).astype(np.float32) for c in first[:10]})
    second = chunks(repo, 2500)
    second[0] = chunks(repo, 1, tag="changed")[0]  # content changed: its vector goes
    with bulk_load(index, repo):
        for i in range(0, len(second), 2000):
            index.upsert_chunks(second[i:i + 2000])
    assert index.stats(repo) == {**index.stats(repo), "chunks": 2500, "with_vectors": 9}
    missing = {c.chunk_id for c in index.chunks_missing_vectors(repo, limit=3000)}
    assert second[0].chunk_id in missing and not any(c.chunk_id in missing for c in first[1:10])


def test_an_error_inside_the_load_restores_the_settings_and_keeps_the_writes() -> None:
    ix = es_index()
    repo = f"bl-{uuid.uuid4().hex[:10]}"
    try:
        with pytest.raises(KeyError, match="stop half-way"), bulk_load(ix, repo):
            ix.upsert_chunks(chunks(repo, 3000))
            raise KeyError("stop half-way")
        assert load_settings_of(ix, repo) == ("", "")
        assert ix.stats(repo)["chunks"] == 3000  # written before the error, refreshed on the way out
    finally:
        ix.delete_repo(repo)
        ix.close()


KILLED_LOAD = """
import sys, time
from pathlib import Path
from codegraph.core.elastic_search import ElasticsearchIndex
from tests.contract.test_search_bulk_load import chunks
url, prefix, repo, ready = sys.argv[1:5]
ix = ElasticsearchIndex(url, prefix)
with ix.bulk_load(repo):
    ix.upsert_chunks(chunks(repo, 2500))
    ix._load.drain()  # the requests have reached the server
    Path(ready).write_text("loading")
    time.sleep(3600)
"""


def test_a_killed_load_is_repaired_by_the_next_writer(tmp_path: Path) -> None:
    ix = es_index()
    repo = f"bl-{uuid.uuid4().hex[:10]}"
    ready = tmp_path / "ready"
    proc = subprocess.Popen([sys.executable, "-c", KILLED_LOAD, ix.url, _PREFIX, repo, str(ready)],  # type: ignore[attr-defined]
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        deadline = time.monotonic() + 120
        while not ready.exists():
            assert proc.poll() is None, "the loading process died before it wrote"
            assert time.monotonic() < deadline, "the loading process never got to write"
            time.sleep(0.1)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert load_settings_of(ix, repo) == ("-1", "async")  # what the kill left behind
        # The next writer of the index (a new process: a new index object) puts the defaults back.
        again = es_index()
        again.upsert_chunks(chunks(repo, 1, tag="after the kill"))
        assert load_settings_of(again, repo) == ("", "")
        assert again.stats(repo)["chunks"] == 2500
        again.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        ix.delete_repo(repo)
        ix.close()


def test_the_pipeline_writes_more_than_one_batch_inside_bulk_load(tmp_path: Path) -> None:
    from contextlib import contextmanager

    from codegraph.core.embedded_search import EmbeddedSearchIndex
    from codegraph.indexer.apply import _write_search

    class Recording(EmbeddedSearchIndex):
        loads: list[tuple[str, int]] = []

        @contextmanager
        def bulk_load(self, repo: str) -> Iterator[None]:
            yield
            self.loads.append((repo, self.stats(repo)["chunks"]))

    ix = Recording(tmp_path / "search.db")
    try:
        _write_search(ix, "big", {}, chunks("big", 4001), [], lambda *a: None)
        _write_search(ix, "small", {}, chunks("small", 2000), [], lambda *a: None)
        assert Recording.loads == [("big", 4001)]  # one batch needs no load mode
    finally:
        ix.close()


def test_an_embedded_load_indexes_rows_updated_or_deleted_inside_it(tmp_path: Path) -> None:
    """The embedded index adds a load's new rows to FTS at its end: a chunk upserted twice,
    or deleted, inside the load is in FTS first (its triggers delete from FTS), and the
    index ends as the same calls outside a load leave it."""
    import sqlite3

    from codegraph.core.embedded_search import FTS_FIELDS, EmbeddedSearchIndex

    def run(ix: EmbeddedSearchIndex, load: bool) -> None:
        first, again = chunks("r", 30), chunks("r", 10, tag="edited")
        with bulk_load(ix, "r") if load else contextlib.nullcontext():
            ix.upsert_chunks(first)
            ix.upsert_chunks(again)  # rows of the load's first call, updated
            ix.delete_chunks("r", [first[20].chunk_id])
            ix.upsert_chunks(chunks("s", 5))

    out = []
    for load in (True, False):
        ix = EmbeddedSearchIndex(tmp_path / f"{load}.db")
        run(ix, load)
        ix.close()
        c = sqlite3.connect(tmp_path / f"{load}.db")
        for table, _ in FTS_FIELDS:
            c.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)")
        out.append([c.execute("SELECT rowid, chunk_id, text FROM chunks ORDER BY rowid").fetchall(),
                    c.execute("SELECT rowid FROM fts_text WHERE fts_text MATCH 'edited' ORDER BY rowid").fetchall()])
        c.close()
    assert out[0] == out[1] and len(out[0][1]) == 10


def test_an_error_inside_an_embedded_load_keeps_the_writes_before_it(tmp_path: Path) -> None:
    from codegraph.core.embedded_search import EmbeddedSearchIndex

    ix = EmbeddedSearchIndex(tmp_path / "search.db")
    try:
        with pytest.raises(KeyError, match="stop"), bulk_load(ix, "r"):
            ix.upsert_chunks(chunks("r", 30))
            raise KeyError("stop")
        assert [cid for cid, _ in ix.bm25("func_17", 1, repo="r")] == [chunks("r", 30)[17].chunk_id]
        with bulk_load(ix, "r"):  # the load ended: another may start
            ix.upsert_chunks(chunks("r", 31))
        assert ix.stats("r")["chunks"] == 31
    finally:
        ix.close()

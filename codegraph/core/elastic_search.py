"""Elasticsearch 8 SearchIndex (official ``elasticsearch`` client), docs/DESIGN.md#search.

Indices: one per repo and content kind, ``<prefix>-<repo slug>-<kind>``: ``code``
(chunks of source files: functions, methods, classes, file sections) and the kinds of
``codegraph.core.content`` (schema, config, docs; ``for_kind`` gives their index object).
No kind shares BM25 statistics with another. An index template ``<prefix>-<kind>`` gives
every index of a kind its mapping, so bulk writes may create indices on the fly.

Mapping: ``text`` (standard analyzer); ``identifiers``, ``name``, ``qualified_name``
(analyzer ``codegraph_identifier`` = standard tokenizer + lowercase) holding the
Python-split identifier words (``codegraph.core.retrieval.identifier_field``): the
integ-test distribution the project runs has no analysis-common module, so no
``word_delimiter_graph``/``pattern`` tokenizer, and splitting in Python keeps both
backends on the same terms. Keyword fields: repo, file, kind, language, chunk_id,
symbol_uid, file_uid, content_hash. ``vector``: dense_vector 384, cosine, HNSW on
float32 (not the int8 default, so that kNN agrees with the embedded backend).
``meta`` (not indexed) keeps the original name, qualified name, embed_text and lines.
BM25 = multi_match most_fields over name^3, qualified_name^2, identifiers, text.

Full loads (``bulk_load``, codegraph.core.es_bulk): refresh off and an asynchronous
translog while inside, bulk requests in flight across calls, one refresh at the end,
settings restored on leaving (also on error, and by the next writer after a kill).
Outside a load every write method refreshes explicitly, so its writes are searchable on
return; the index keeps the default periodic refresh.

Deletes by file search the ids then bulk-delete them: ``_delete_by_query`` lives in
the reindex module, which the integ-test distribution lacks. Transient errors (no
connection, timeouts, 429/502/503/504) are retried with tenacity; a server that does
not answer becomes StoreUnavailable naming CODEGRAPH_SEARCH.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

import numpy as np
from elasticsearch import (
    ApiError,
    ConnectionError,
    ConnectionTimeout,
    Elasticsearch,
    UnsupportedProductError,
    helpers,
)
from elasticsearch.helpers import BulkIndexError
from elasticsearch.serializer import JsonSerializer
from tenacity import retry, retry_if_exception, stop_after_attempt, wait_exponential

try:  # orjson is a dependency; a venv installed before it was added still works, slower
    from elasticsearch.serializer import OrjsonSerializer as _Fast
except ImportError:  # pragma: no cover
    _Fast = JsonSerializer  # type: ignore[misc,assignment]

from codegraph.core.errors import StoreUnavailable
from codegraph.core.es_bulk import DEFAULT_SETTINGS, LOAD_SETTINGS, BulkLoad, settings_left_by_a_load
from codegraph.core.models import Chunk
from codegraph.core.retrieval import chunk_terms, query_terms

DIM = 384
KIND = "code"
_PAGE = 5000  # hits per search page (below index.max_result_window = 10,000)
_BULK_CHUNK = 1000  # actions per bulk request (and at most _BULK_BYTES)
_BULK_BYTES = 20 * 1024 * 1024
# Only what the helper reads back per item (status, error, id for the message): the server
# encodes and the client parses a fraction of the full per-item answer.
_BULK_FILTER = "errors,items.*.status,items.*.error,items.*._id"
_BULK_IN_FLIGHT = 2  # bulk requests sent at once: one per core of the 2-core target machine
T = TypeVar("T")

_TRANSIENT_STATUS = {429, 502, 503, 504}

_ANALYSIS = {
    "analyzer": {
        "codegraph_identifier": {"type": "custom", "tokenizer": "standard", "filter": ["lowercase"]},
    }
}
_KEYWORDS = ("chunk_id", "repo", "file", "kind", "language", "content_hash", "symbol_uid", "file_uid")
_MAPPINGS: dict[str, Any] = {
    "dynamic": "strict",
    "properties": {
        **{k: {"type": "keyword"} for k in _KEYWORDS},
        "text": {"type": "text", "analyzer": "standard"},
        "identifiers": {"type": "text", "analyzer": "codegraph_identifier"},
        "name": {"type": "text", "analyzer": "codegraph_identifier"},
        "qualified_name": {"type": "text", "analyzer": "codegraph_identifier"},
        "meta": {"type": "object", "enabled": False},
        "vector": {
            "type": "dense_vector", "dims": DIM, "index": True, "similarity": "cosine",
            "index_options": {"type": "hnsw", "m": 16, "ef_construction": 100},
        },
    },
}
# BM25 needs term frequencies and norms only (no phrase queries): positions are not indexed.
for _f in ("text", "identifiers", "name", "qualified_name"):
    _MAPPINGS["properties"][_f]["index_options"] = "freqs"
_SOURCE_NO_VECTOR = {"excludes": ["vector"]}


class _Serializer(_Fast):
    """orjson for request and response bodies (bulk bodies and 384-float vectors encode
    several times faster than with the stdlib); a value orjson refuses (a lone surrogate
    in a decoded file, an int past 64 bits) falls back to the client's stdlib encoder."""

    def json_dumps(self, data: Any) -> bytes:
        try:
            return super().json_dumps(data)
        except TypeError:  # orjson.JSONEncodeError
            return JsonSerializer.json_dumps(self, data)


def _transient(e: BaseException) -> bool:
    if isinstance(e, ConnectionError | ConnectionTimeout):
        return True
    return isinstance(e, ApiError) and e.status_code in _TRANSIENT_STATUS


def doc_id(chunk_id: str) -> str:
    """Elasticsearch ``_id`` of a chunk: the chunk id, or a hash when it passes 512 bytes."""
    if len(chunk_id.encode("utf-8")) <= 512:
        return chunk_id
    return "sha1:" + hashlib.sha1(chunk_id.encode("utf-8")).hexdigest()


@functools.lru_cache(maxsize=4096)
def index_slug(repo: str) -> str:
    """A legal index-name part for a repo name: lower case, [a-z0-9_.-]; when that
    changes the name, 8 hex of its sha1 follow, so two repos never share an index."""
    slug = re.sub(r"[^a-z0-9_.-]+", "_", repo.lower()).strip("-_.+")[:150]
    if slug != repo or not slug:
        slug = f"{slug or 'repo'}-{hashlib.sha1(repo.encode('utf-8')).hexdigest()[:8]}"
    return slug


def _doc(c: Chunk) -> dict[str, Any]:
    name_terms, qn_terms, identifiers = chunk_terms(c)
    return {
        "chunk_id": c.chunk_id, "repo": c.repo, "file": c.file, "kind": c.kind, "language": c.language,
        "content_hash": c.content_hash, "symbol_uid": c.symbol_uid, "file_uid": c.file_uid,
        "text": c.text,
        "identifiers": identifiers,
        "name": name_terms,
        "qualified_name": qn_terms,
        "meta": {"name": c.name, "qualified_name": c.qualified_name, "embed_text": c.embed_text,
                 "line": c.line, "end_line": c.end_line},
    }


def _chunk(src: dict[str, Any]) -> Chunk:
    m = src.get("meta", {})
    return Chunk(
        chunk_id=src["chunk_id"], repo=src["repo"], file=src["file"], kind=src["kind"],
        language=src["language"], line=int(m.get("line", 0)), end_line=int(m.get("end_line", 0)),
        text=src.get("text", ""), embed_text=m.get("embed_text", ""), content_hash=src["content_hash"],
        qualified_name=m.get("qualified_name", ""), name=m.get("name", ""),
        symbol_uid=src.get("symbol_uid", ""), file_uid=src.get("file_uid", ""),
    )


class ElasticsearchIndex:
    """SearchIndex on an Elasticsearch 8 server at ``url``; indices named
    ``<prefix>-<repo slug>-code``. Every method raises StoreUnavailable when the server
    does not answer after retries."""

    backend = "elasticsearch"

    def __init__(self, url: str, prefix: str = "codegraph", request_timeout: float = 30.0,
                 attempts: int = 3, kind: str = KIND) -> None:
        self.url = url
        self.prefix = prefix.lower()
        self.kind = kind
        self._request_timeout = request_timeout
        self._kinds: dict[str, ElasticsearchIndex] = {}
        self.client = Elasticsearch(url, request_timeout=request_timeout, max_retries=0, retry_on_timeout=False,
                                    serializer=_Serializer())
        self._attempts = attempts
        self._ready: set[str] = set()  # indices known to exist with our mapping
        # _id -> index of chunks recently read, so that set_vectors after
        # chunks_missing_vectors (the embedding phase) needs no lookup round trip.
        self._where: dict[str, str] = {}
        self._load: BulkLoad | None = None  # inside bulk_load

    @classmethod
    def from_settings(cls, settings: Any) -> ElasticsearchIndex:
        return cls(settings.search, settings.elastic_prefix)

    # -- plumbing ---------------------------------------------------------------------
    def index_name(self, repo: str) -> str:
        return f"{self.prefix}-{index_slug(repo)}-{self.kind}"

    def _scope(self, repo: str | None) -> str:
        return self.index_name(repo) if repo is not None else f"{self.prefix}-*-{self.kind}"

    def for_kind(self, kind: str) -> ElasticsearchIndex:
        """The index object of another content kind on the same server (same prefix);
        its template is put on first use. ``code`` is this object."""
        if kind == self.kind:
            return self
        if kind not in self._kinds:
            other = ElasticsearchIndex(self.url, self.prefix, self._request_timeout, self._attempts, kind=kind)
            other.ensure_schema()
            self._kinds[kind] = other
        return self._kinds[kind]

    def _call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a client call with retries on transient errors; no answer ->
        StoreUnavailable with one readable line."""
        r = retry(
            retry=retry_if_exception(_transient),
            stop=stop_after_attempt(self._attempts),
            wait=wait_exponential(multiplier=0.25, max=4),
            reraise=True,
        )(fn)
        try:
            return r(*args, **kwargs)
        except (ConnectionError, ConnectionTimeout) as e:
            raise StoreUnavailable(
                f"Elasticsearch at {self.url} does not answer ({type(e).__name__}); "
                "start it with `make services` or set CODEGRAPH_SEARCH"
            ) from e
        except UnsupportedProductError as e:
            raise StoreUnavailable(
                f"the server at {self.url} is not Elasticsearch; check CODEGRAPH_SEARCH"
            ) from e
        except ApiError as e:
            if e.meta.headers.get("x-elastic-product") != "Elasticsearch":
                raise StoreUnavailable(
                    f"the server at {self.url} is not Elasticsearch (HTTP {e.status_code}); check CODEGRAPH_SEARCH"
                ) from e
            if e.status_code in (401, 403):
                raise StoreUnavailable(
                    f"Elasticsearch at {self.url} refused access (HTTP {e.status_code}): run it with "
                    "xpack.security.enabled=false or put credentials in CODEGRAPH_SEARCH (http://user:pass@host:9200)"
                ) from e
            if e.status_code in _TRANSIENT_STATUS:
                raise StoreUnavailable(
                    f"Elasticsearch at {self.url} is overloaded or unavailable (HTTP {e.status_code}); "
                    "check the server behind CODEGRAPH_SEARCH"
                ) from e
            raise

    def _search(self, index: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._call(
            self.client.search, index=index, ignore_unavailable=True, allow_no_indices=True, **body
        ).body

    def _scan(self, index: str, query: dict[str, Any], source: Any) -> Iterator[dict[str, Any]]:
        """Every hit of ``query`` sorted by chunk_id, paged with search_after."""
        after: list[Any] | None = None
        while True:
            body: dict[str, Any] = {"query": query, "size": _PAGE, "sort": [{"chunk_id": "asc"}], "_source": source}
            if after is not None:
                body["search_after"] = after
            hits = self._search(index, body)["hits"]["hits"]
            yield from hits
            if len(hits) < _PAGE:
                return
            after = hits[-1]["sort"]

    def _bulk(self, actions: list[dict[str, Any]], ignore_missing: bool = False) -> None:
        """Bulk write: requests of ``_BULK_CHUNK`` actions (at most ``_BULK_BYTES``), up
        to ``_BULK_IN_FLIGHT`` at once, each retried on 429 by the helper; ``ignore_missing``:
        a 404 item (document or index gone) is not an error. Actions of one call name
        distinct documents (callers dedupe by id), so their order does not matter.
        Raises RuntimeError naming the first rejected document."""
        if not actions:
            return
        parts = [actions[i:i + _BULK_CHUNK] for i in range(0, len(actions), _BULK_CHUNK)]

        def send(part: list[dict[str, Any]]) -> None:
            self._send(part, ignore_missing)
        if len(parts) == 1:
            send(parts[0])
        else:
            # The server indexes one request per write thread: two in flight keep both
            # cores busy, and the client encodes the next request while one is indexed.
            with ThreadPoolExecutor(_BULK_IN_FLIGHT, thread_name_prefix="codegraph-bulk") as pool:
                list(pool.map(send, parts))

    def _send(self, part: list[dict[str, Any]], ignore_missing: bool = False) -> None:
        """One bulk request through the helper (retried on 429, transient errors by _call).
        Raises RuntimeError naming the first rejected document."""
        try:
            self._call(
                helpers.bulk, self.client, part, chunk_size=_BULK_CHUNK, max_chunk_bytes=_BULK_BYTES,
                max_retries=3, initial_backoff=0.5, ignore_status=(404,) if ignore_missing else (),
                filter_path=_BULK_FILTER,
            )
        except BulkIndexError as e:
            first = e.errors[0] if e.errors else {}
            raise RuntimeError(f"Elasticsearch rejected {len(e.errors)} document(s); first: {str(first)[:300]}") from e

    def _refresh(self, indices: set[str]) -> None:
        if indices:
            self._call(self.client.indices.refresh, index=",".join(sorted(indices)), ignore_unavailable=True)

    def _locate(self, doc_ids: list[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        """_id -> (index, _source without vector) across every code index."""
        out: dict[str, tuple[str, dict[str, Any]]] = {}
        for i in range(0, len(doc_ids), _PAGE):
            part = doc_ids[i:i + _PAGE]
            res = self._search(self._scope(None), {
                "query": {"ids": {"values": part}}, "size": len(part), "_source": _SOURCE_NO_VECTOR,
            })
            for h in res["hits"]["hits"]:
                out[h["_id"]] = (h["_index"], h["_source"])
        return out

    def _remember(self, hits: list[dict[str, Any]]) -> None:
        if len(self._where) > 100_000:
            self._where.clear()
        for h in hits:
            self._where[h["_id"]] = h["_index"]

    def _ensure_index(self, index: str, loading: bool = False) -> bool:
        """Create ``index`` with codegraph's settings and mapping unless it exists; an
        existing index must have that mapping (a writer that skipped the template would
        have left dynamic mappings, on which kNN and keyword filters do not work). An
        existing index left with a load's settings (a killed ``bulk_load``) gets the
        defaults back and a refresh. True when this call created it (no document yet);
        ``loading``: it is created with the load's settings already (``bulk_load``: one
        cluster-state update instead of two)."""
        if index in self._ready:
            return False
        settings = self._settings() | LOAD_SETTINGS["index"] if loading else self._settings()
        try:
            self._call(self.client.indices.create, index=index, settings=settings, mappings=_MAPPINGS)
            self._ready.add(index)
            return True
        except ApiError as e:
            if e.status_code != 400 or "resource_already_exists" not in str(e):
                raise
            got = self._call(self.client.indices.get, index=index).body[index]
            props = got.get("mappings", {}).get("properties", {})
            if props.get("vector", {}).get("type") != "dense_vector" or props.get("chunk_id", {}).get(
                    "type") != "keyword":
                raise StoreUnavailable(
                    f"Elasticsearch index {index} was not created by codegraph (its mapping lacks the keyword and "
                    f"dense_vector fields): delete it (DELETE {self.url}/{index}) and index the repo again "
                    "(CODEGRAPH_SEARCH)"
                ) from e
            if settings_left_by_a_load(got.get("settings", {})) and (self._load is None or self._load.index != index):
                self._call(self.client.indices.put_settings, index=index, settings=DEFAULT_SETTINGS)
                self._refresh({index})
        self._ready.add(index)
        return False

    @staticmethod
    def _settings() -> dict[str, Any]:
        # One node: no replica. Refresh stays the default (every second, only while searched);
        # write methods refresh explicitly, and bulk_load turns it off for a full load.
        return {"number_of_shards": 1, "number_of_replicas": 0, "analysis": _ANALYSIS}

    # -- lifecycle --------------------------------------------------------------------
    def ensure_schema(self) -> None:
        """Put the index template for ``<prefix>-*-<kind>`` (idempotent)."""
        self._call(
            self.client.indices.put_index_template,
            name=f"{self.prefix}-{self.kind}",
            index_patterns=[f"{self.prefix}-*-{self.kind}"],
            priority=200,
            template={"settings": self._settings(), "mappings": _MAPPINGS},
        )

    def close(self) -> None:
        for other in self._kinds.values():
            other.close()
        self._kinds.clear()
        self.client.close()

    # -- writes -----------------------------------------------------------------------
    @contextmanager
    def bulk_load(self, repo: str) -> Iterator[None]:
        """A full load of ``repo``'s code index (codegraph.core.es_bulk): inside, refresh
        and per-request fsync are off and ``upsert_chunks`` returns once its requests are
        queued, so its chunks are searchable only when the block ends. On leaving (also by
        an exception) the queued requests are waited for, the index settings go back to the
        defaults and the index is refreshed; an error of a request is raised then."""
        index = self.index_name(repo)
        if self._load is not None:
            raise RuntimeError(f"bulk_load({repo!r}) inside bulk_load of {self._load.index}")
        created = self._ensure_index(index, loading=True)
        if not created:
            self._refresh({index})  # a killed load's last writes become visible to the look-ups
            self._call(self.client.indices.put_settings, index=index, settings=LOAD_SETTINGS)
        load = self._load = BulkLoad(index, empty=created)
        try:
            yield
            load.drain()
        finally:
            self._load = None
            load.close()
            # The refresh (the load's segments written: the larger part) runs while the
            # settings are put back; both are waited for, the settings' error raised first.
            with ThreadPoolExecutor(1, thread_name_prefix="codegraph-bulk-refresh") as pool:
                refreshed = pool.submit(self._refresh, {index})
                try:
                    self._call(self.client.indices.put_settings, index=index, settings=DEFAULT_SETTINGS)
                finally:
                    refreshed.result()

    def upsert_chunks(self, chunks: list[Chunk]) -> None:
        """Unchanged content_hash -> partial update (the stored vector stays); new or
        changed -> full index without a vector. Refreshes, so BM25 sees them on return
        (inside ``bulk_load``: when the load ends)."""
        if not chunks:
            return
        latest = {c.chunk_id: c for c in chunks}
        by_index: dict[str, list[Chunk]] = {}
        for c in latest.values():
            by_index.setdefault(self.index_name(c.repo), []).append(c)
        load = self._load
        for index, items in by_index.items():
            loading = load is not None and load.index == index
            new_index = self._ensure_index(index) or (loading and load.empty)  # type: ignore[union-attr]
            for i in range(0, len(items), _PAGE):
                part = items[i:i + _PAGE]
                ids = [doc_id(c.chunk_id) for c in part]
                old: dict[str, str] = {}
                res = {"hits": {"hits": []}} if new_index else self._search(index, {
                    "query": {"ids": {"values": ids}}, "size": len(ids), "_source": ["content_hash"],
                })  # an index created just now has no document to keep a vector of
                for h in res["hits"]["hits"]:
                    old[h["_id"]] = h["_source"].get("content_hash", "")
                actions: list[dict[str, Any]] = []
                for c, did in zip(part, ids, strict=True):
                    if old.get(did) == c.content_hash:
                        actions.append({"_op_type": "update", "_index": index, "_id": did, "doc": _doc(c)})
                    else:
                        actions.append({"_op_type": "index", "_index": index, "_id": did, "_source": _doc(c)})
                if loading:
                    for s in range(0, len(actions), _BULK_CHUNK):
                        load.submit(self._send, actions[s:s + _BULK_CHUNK])  # type: ignore[union-attr]
                else:
                    self._bulk(actions)
        self._refresh({i for i in by_index if load is None or i != load.index})

    def delete_files(self, repo: str, paths: list[str]) -> int:
        if not paths:
            return 0
        index = self.index_name(repo)
        ids = [h["_id"] for h in self._scan(
            index, {"bool": {"filter": [{"term": {"repo": repo}}, {"terms": {"file": paths}}]}}, False)]
        self._bulk([{"_op_type": "delete", "_index": index, "_id": i} for i in ids], ignore_missing=True)
        self._refresh({index})
        return len(ids)

    def delete_chunks(self, repo: str, chunk_ids: list[str]) -> int:
        if not chunk_ids:
            return 0
        index = self.index_name(repo)
        self._bulk([{"_op_type": "delete", "_index": index, "_id": doc_id(i)} for i in chunk_ids], ignore_missing=True)
        self._refresh({index})
        return len(chunk_ids)

    def set_vectors(self, vectors: dict[str, np.ndarray]) -> None:
        """chunk_id -> 384-d vector (normalised here). Ids not stored are ignored.
        Refreshes, so chunks_missing_vectors no longer returns them."""
        if not vectors:
            return
        bodies: dict[str, np.ndarray] = {}
        for cid, v in vectors.items():
            a = np.asarray(v, dtype=np.float32).reshape(-1)
            if a.shape != (DIM,):
                raise ValueError(f"vector for {cid} has shape {a.shape}, expected ({DIM},)")
            norm = float(np.linalg.norm(a))
            # float64: its text parses back to exactly this float32 (a float32's shortest text
            # parsed as a double and rounded could differ); orjson encodes the array itself.
            bodies[doc_id(cid)] = (a / norm if norm > 0 else a).astype(np.float64)
        where = {did: self._where[did] for did in bodies if did in self._where}
        unknown = [did for did in bodies if did not in where]
        if unknown:
            where.update({did: idx for did, (idx, _) in self._locate(unknown).items()})
        actions = [{"_op_type": "update", "_index": idx, "_id": did, "doc": {"vector": bodies[did]}}
                   for did, idx in where.items()]
        self._bulk(actions, ignore_missing=True)  # a chunk deleted meanwhile is skipped
        for did in where:
            self._where.pop(did, None)
        self._refresh(set(where.values()))

    def delete_repo(self, repo: str) -> None:
        """Delete the repo's index of this kind; from the code index, every kind's."""
        index = self.index_name(repo)
        self._call(self.client.indices.delete, index=index, ignore_unavailable=True)
        self._ready.discard(index)
        if self.kind == KIND:
            from codegraph.core.content import CONTENT_KINDS

            for kind in CONTENT_KINDS:
                if kind != KIND:
                    self.for_kind(kind).delete_repo(repo)

    # -- reads ------------------------------------------------------------------------
    def chunk_ids_by_file(self, repo: str, paths: list[str] | None = None) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        query: dict[str, Any] = {"term": {"repo": repo}}
        if paths is not None:
            if not paths:
                return {}
            query = {"bool": {"filter": [query, {"terms": {"file": paths}}]}}
        for h in self._scan(self.index_name(repo), query, ["file", "chunk_id"]):
            out.setdefault(h["_source"]["file"], []).append(h["_source"]["chunk_id"])
        return dict(sorted(out.items()))

    def bm25(self, query: str, k: int, repo: str | None = None) -> list[tuple[str, float]]:
        terms = query_terms(query)
        if not terms or k <= 0:
            return []
        q: dict[str, Any] = {"multi_match": {
            "query": " ".join(terms), "type": "most_fields",
            "fields": ["name^3", "qualified_name^2", "identifiers", "text"],
        }}
        if repo is not None:
            q = {"bool": {"must": q, "filter": [{"term": {"repo": repo}}]}}
        res = self._search(self._scope(repo), {
            "query": q, "size": k, "_source": ["chunk_id"],
            "sort": [{"_score": "desc"}, {"chunk_id": "asc"}], "track_scores": True,
        })
        return [(h["_source"]["chunk_id"], float(h["_score"])) for h in res["hits"]["hits"]]

    def knn(self, vector: np.ndarray, k: int, repo: str | None = None) -> list[tuple[str, float]]:
        """Top-k by HNSW over cosine; the score is turned back into cosine similarity
        (Elasticsearch reports (1 + cos) / 2)."""
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        if q.shape != (DIM,):
            raise ValueError(f"query vector has shape {q.shape}, expected ({DIM},)")
        if k <= 0:
            return []
        knn: dict[str, Any] = {
            "field": "vector", "query_vector": q.tolist(), "k": k, "num_candidates": min(10_000, max(100, 4 * k)),
        }
        if repo is not None:
            knn["filter"] = {"term": {"repo": repo}}
        res = self._search(self._scope(repo), {"knn": knn, "size": k, "_source": ["chunk_id"]})
        return [(h["_source"]["chunk_id"], 2.0 * float(h["_score"]) - 1.0) for h in res["hits"]["hits"]]

    def get_chunks(self, chunk_ids: list[str]) -> dict[str, Chunk]:
        if not chunk_ids:
            return {}
        found = self._locate([doc_id(c) for c in dict.fromkeys(chunk_ids)])
        return {src["chunk_id"]: _chunk(src) for _, src in found.values()}

    def has_vectors(self, repo: str | None = None) -> bool:
        """A count of documents with a vector that stops at the first one (terminate_after)."""
        q: dict[str, Any] = {"bool": {"filter": [{"exists": {"field": "vector"}}]}}
        if repo is not None:
            q["bool"]["filter"].append({"term": {"repo": repo}})
        res = self._call(self.client.count, index=self._scope(repo), query=q, terminate_after=1,
                         ignore_unavailable=True, allow_no_indices=True).body
        return int(res.get("count", 0)) > 0

    def chunks_missing_vectors(self, repo: str | None = None, limit: int = 256) -> list[Chunk]:
        q: dict[str, Any] = {"bool": {"must_not": [{"exists": {"field": "vector"}}]}}
        if repo is not None:
            q["bool"]["filter"] = [{"term": {"repo": repo}}]
        res = self._search(self._scope(repo), {
            "query": q, "size": limit, "sort": [{"repo": "asc"}, {"chunk_id": "asc"}], "_source": _SOURCE_NO_VECTOR,
        })
        self._remember(res["hits"]["hits"])
        return [_chunk(h["_source"]) for h in res["hits"]["hits"]]

    def stats(self, repo: str | None = None) -> dict[str, Any]:
        """{"chunks", "with_vectors", "bytes"}: bytes = primary store size of the indices."""
        scope = self._scope(repo)
        opts = {"index": scope, "ignore_unavailable": True, "allow_no_indices": True}
        total = self._call(self.client.count, **opts).body["count"]
        with_vec = self._call(self.client.count, query={"exists": {"field": "vector"}}, **opts).body["count"]
        try:
            st = self._call(self.client.indices.stats, index=scope, metric="store").body
            size = int(st.get("_all", {}).get("primaries", {}).get("store", {}).get("size_in_bytes", 0))
        except ApiError as e:
            if e.status_code != 404:
                raise
            size = 0
        return {"chunks": int(total), "with_vectors": int(with_vec), "bytes": size}

"""Embedded SearchIndex: Python's sqlite3 in WAL mode, FTS5 for BM25, float32 vectors
with exact cosine in NumPy (docs/DESIGN.md#search, docs/DESIGN.md#backends).

Layout (one file, ``settings.search_db``):
- ``chunks``: one row per chunk (the Chunk's fields) plus the indexed term columns
  ``name_terms``, ``qn_terms``, ``identifiers`` (identifier words, see
  ``codegraph.core.retrieval.identifier_field``) and ``has_vec``.
- ``fts_name``, ``fts_qn``, ``fts_ident``, ``fts_text``: one FTS5 external-content
  index per field; BM25 = 3 x name + 2 x qualified name + identifiers + text, each field
  scored with its own length statistics. Updates and deletes of ``chunks`` reach them by
  triggers; new rows are added by ``upsert_chunks`` in one ``INSERT ... SELECT`` per
  field (an AFTER INSERT trigger made FTS5 flush its pending terms on every row, about
  4x the CPU of the whole insert).
- ``vectors``: chunk_id -> 384 float32 (1,536 bytes), apart from ``chunks`` so that
  loading the kNN matrix does not read source text.
- ``vec_gen``: a per-repo counter bumped whenever vectors change; the cached kNN
  matrix of a repo is rebuilt when its counter moved (writes from other processes too).

Concurrency: one connection per thread; WAL lets readers run while another connection
writes (a reader sees the last committed state); writers take ``BEGIN IMMEDIATE`` and
wait up to 30 s for each other.
"""

from __future__ import annotations

import sqlite3
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codegraph.core.errors import StoreUnavailable
from codegraph.core.models import Chunk
from codegraph.core.retrieval import chunk_terms, query_terms
from codegraph.core.sqlite_rows import insert_rows

if TYPE_CHECKING:  # numpy is imported where vectors are touched: BM25-only calls never pay it
    import numpy as np

DIM = 384
SCHEMA_VERSION = 2  # 2: no AFTER INSERT triggers (upsert_chunks fills the FTS tables)
BM25_WEIGHTS = (3.0, 2.0, 1.0, 1.0)  # name, qualified_name, identifiers, text
_BATCH = 500  # rows per IN (...) list
_CACHE_ENTRIES = 4  # kNN matrices kept (one per repo scope)

_CHUNK_COLS = (
    "chunk_id", "repo", "file", "kind", "language", "line", "end_line", "text", "embed_text",
    "content_hash", "qualified_name", "name", "symbol_uid", "file_uid",
)
_SELECT_CHUNK = "SELECT " + ", ".join(_CHUNK_COLS) + " FROM chunks"

_SCHEMA_TEMPLATE = """
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id TEXT NOT NULL UNIQUE,
    repo TEXT NOT NULL,
    file TEXT NOT NULL,
    kind TEXT NOT NULL,
    language TEXT NOT NULL,
    line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    name TEXT NOT NULL,
    symbol_uid TEXT NOT NULL,
    file_uid TEXT NOT NULL,
    has_vec INTEGER NOT NULL DEFAULT 0,
    name_terms TEXT NOT NULL,
    qn_terms TEXT NOT NULL,
    identifiers TEXT NOT NULL,
    embed_text TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_repo_file ON chunks(repo, file);
CREATE INDEX IF NOT EXISTS chunks_missing_vec ON chunks(repo, chunk_id) WHERE has_vec = 0;
{fts}
CREATE TABLE IF NOT EXISTS vectors (
    chunk_id TEXT PRIMARY KEY,
    repo TEXT NOT NULL,
    vec BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS vectors_repo ON vectors(repo);
CREATE TABLE IF NOT EXISTS vec_gen (
    repo TEXT PRIMARY KEY,
    gen INTEGER NOT NULL
);
PRAGMA user_version = {version};
"""

# One FTS5 table per field, each with its own length statistics, so that a field's
# BM25 is computed as Elasticsearch computes it per field; the weighted sum of the four
# is multi_match "most_fields" with boosts. (One FTS5 table with bm25() column weights
# would share one document length across columns: a long body then drowns a name match.)
FTS_FIELDS = (("fts_name", "name_terms"), ("fts_qn", "qn_terms"), ("fts_ident", "identifiers"), ("fts_text", "text"))


def _fts_ddl() -> str:
    parts = []
    for table, col in FTS_FIELDS:
        parts.append(f"""CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING fts5(
    {col}, content='chunks', content_rowid='rowid', tokenize="unicode61 remove_diacritics 2"
);
DROP TRIGGER IF EXISTS {table}_ai;
CREATE TRIGGER IF NOT EXISTS {table}_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO {table}({table}, rowid, {col}) VALUES ('delete', old.rowid, old.{col});
END;
CREATE TRIGGER IF NOT EXISTS {table}_au AFTER UPDATE OF {col} ON chunks WHEN old.{col} IS NOT new.{col} BEGIN
    INSERT INTO {table}({table}, rowid, {col}) VALUES ('delete', old.rowid, old.{col});
    INSERT INTO {table}(rowid, {col}) VALUES (new.rowid, new.{col});
END;""")
    return "\n".join(parts)


_SCHEMA = _SCHEMA_TEMPLATE.format(fts=_fts_ddl(), version=SCHEMA_VERSION)

# (head, tail) of the row upsert: 17 values per row between them (sqlite_rows.insert_rows)
_UPSERT = ("""
INSERT INTO chunks (chunk_id, repo, file, kind, language, line, end_line, content_hash,
    qualified_name, name, symbol_uid, file_uid, name_terms, qn_terms, identifiers, embed_text, text)
VALUES""", """
ON CONFLICT(chunk_id) DO UPDATE SET
    repo = excluded.repo, file = excluded.file, kind = excluded.kind, language = excluded.language,
    line = excluded.line, end_line = excluded.end_line, qualified_name = excluded.qualified_name,
    name = excluded.name, symbol_uid = excluded.symbol_uid, file_uid = excluded.file_uid,
    name_terms = excluded.name_terms, qn_terms = excluded.qn_terms, identifiers = excluded.identifiers,
    embed_text = excluded.embed_text, text = excluded.text,
    has_vec = CASE WHEN chunks.content_hash = excluded.content_hash THEN chunks.has_vec ELSE 0 END,
    content_hash = excluded.content_hash
""")


def _batches(items: Sequence[Any], size: int = _BATCH) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def _qmarks(n: int) -> str:
    return ",".join("?" * n)


def _row_to_chunk(row: Sequence[Any]) -> Chunk:
    return Chunk(**dict(zip(_CHUNK_COLS, row, strict=True)))


def _fts_query(query: str) -> str:
    """An FTS5 MATCH expression: the query's terms OR-ed, each quoted (so that FTS5
    syntax characters in the query are plain text)."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in query_terms(query))


def chunk_row(c: Chunk) -> tuple[Any, ...]:
    """The row ``_UPSERT`` takes for a chunk (term columns computed here)."""
    name_terms, qn_terms, identifiers = chunk_terms(c)
    return (
        c.chunk_id, c.repo, c.file, c.kind, c.language, c.line, c.end_line, c.content_hash,
        c.qualified_name, c.name, c.symbol_uid, c.file_uid, name_terms, qn_terms, identifiers,
        c.embed_text, c.text,
    )


def _add_to_fts(conn: sqlite3.Connection, top: int) -> None:
    """Index the chunk rows above rowid ``top`` (the ones inserted since) in every FTS
    table: one bulk insert per field, so FTS5 flushes its pending terms once."""
    for table, col in FTS_FIELDS:
        conn.execute(f"INSERT INTO {table}(rowid, {col}) SELECT rowid, {col} FROM chunks WHERE rowid > ?", (top,))


@dataclass(slots=True)
class _Bulk:
    """A ``bulk_load`` in progress: rows above rowid ``top`` are not in the FTS tables yet;
    ``pending``, the chunk ids upserted since (an update of one needs them there first)."""

    top: int
    pending: set[str] = field(default_factory=set)

    def flush(self, conn: sqlite3.Connection) -> None:
        if self.pending:
            _add_to_fts(conn, self.top)
            self.top = conn.execute("SELECT coalesce(max(rowid), 0) FROM chunks").fetchone()[0]
            self.pending.clear()


class EmbeddedSearchIndex:
    """SearchIndex over one SQLite file. ``path`` is created (with its folder) if
    missing. Raises StoreUnavailable (naming CODEGRAPH_HOME) when it cannot be opened."""

    backend = "embedded"

    def __init__(self, path: Path, kind: str = "code") -> None:
        self.path = Path(path)
        self.kind = kind
        self._kinds: dict[str, EmbeddedSearchIndex] = {}
        self._local = threading.local()
        self._conns: list[tuple[weakref.ref[threading.Thread], sqlite3.Connection]] = []
        self._conns_lock = threading.Lock()
        self._cache: OrderedDict[str | None, tuple[Any, list[str], np.ndarray]] = OrderedDict()
        self._cache_lock = threading.Lock()
        self.ensure_schema()

    @classmethod
    def from_settings(cls, settings: Any) -> EmbeddedSearchIndex:
        return cls(settings.search_db)

    # -- connections ------------------------------------------------------------------
    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30.0)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=30000")
            conn.execute("PRAGMA temp_store=MEMORY")
        except (OSError, sqlite3.Error) as e:
            raise StoreUnavailable(
                f"cannot open the embedded search index {self.path}: {e} (check CODEGRAPH_HOME)"
            ) from e
        self._local.conn = conn
        with self._conns_lock:
            # Threads come and go (Streamlit runs each session in its own): close the
            # connections of threads that have ended instead of leaking them.
            live = []
            for ref, c in self._conns:
                th = ref()
                if th is None or not th.is_alive():
                    c.close()
                else:
                    live.append((ref, c))
            live.append((weakref.ref(threading.current_thread()), conn))
            self._conns = live
        return conn

    @contextmanager
    def _write(self, fts_later: bool = False) -> Iterator[sqlite3.Connection]:
        """One write transaction; inside ``bulk_load``, part of the load's. A write there
        other than ``upsert_chunks``'s (``fts_later``) first brings the FTS tables up to
        date: its triggers delete from them."""
        conn = self._conn()
        bulk: _Bulk | None = getattr(self._local, "bulk", None)
        if bulk is not None:
            if not fts_later:
                bulk.flush(conn)
            yield conn
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as e:  # another writer held the lock past busy_timeout
            raise StoreUnavailable(f"the embedded search index {self.path} is busy ({e}); another indexer may be "
                                   "running (check CODEGRAPH_HOME)") from e
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _bump(self, conn: sqlite3.Connection, repos: set[str]) -> None:
        conn.executemany(
            "INSERT INTO vec_gen(repo, gen) VALUES (?, 1) ON CONFLICT(repo) DO UPDATE SET gen = gen + 1",
            [(r,) for r in sorted(repos)],
        )

    # -- lifecycle --------------------------------------------------------------------
    def ensure_schema(self) -> None:
        conn = self._conn()
        if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            return
        # Version 1 files had AFTER INSERT triggers; the schema drops them (DROP TRIGGER IF
        # EXISTS) and upsert_chunks adds new rows to the FTS tables itself.
        with self._write() as c:
            for stmt in _split_sql(_SCHEMA):
                c.execute(stmt)

    def for_kind(self, kind: str) -> EmbeddedSearchIndex:
        """The index of another content kind (codegraph.core.content): its own SQLite file
        beside this one (``search-<kind>.db``), so its BM25 statistics are its own. ``code``
        (this object's kind) is this object."""
        if kind == self.kind:
            return self
        if kind not in self._kinds:
            self._kinds[kind] = EmbeddedSearchIndex(self.path.with_name(f"{self.path.stem}-{kind}{self.path.suffix}"),
                                                    kind=kind)
        return self._kinds[kind]

    def close(self) -> None:
        for other in self._kinds.values():
            other.close()
        self._kinds.clear()
        with self._conns_lock:
            for _, c in self._conns:
                c.close()
            self._conns.clear()
        self._local = threading.local()
        with self._cache_lock:
            self._cache.clear()

    def release_for_fork(self) -> bool:
        """Before a child process made by ``fork`` writes this file
        (codegraph.indexer.search_writes): True after closing this thread's connection
        (it reopens on next use) when no other live thread has one open; False, and
        nothing closed, otherwise (SQLite: a connection must not cross a fork)."""
        me = threading.current_thread()
        with self._conns_lock:
            if any((th := ref()) is not None and th is not me and th.is_alive() for ref, _ in self._conns):
                return False
            for _, c in self._conns:
                c.close()
            self._conns.clear()
        self._local = threading.local()
        return True

    # -- writes -----------------------------------------------------------------------
    def upsert_chunks(self, chunks: list[Chunk]) -> None:
        if not chunks:
            return
        latest = {c.chunk_id: c for c in chunks}  # last one wins within a call
        items = list(latest.values())
        with self._write(fts_later=True) as conn:
            # Rows this call inserts get rowids above the largest one now (SQLite's rule
            # for tables without INTEGER PRIMARY KEY); rows it updates keep theirs, and
            # their FTS entries follow by the AFTER UPDATE triggers.
            bulk: _Bulk | None = getattr(self._local, "bulk", None)
            if bulk is not None:
                # Inside a load: the FTS tables get the new rows at its end, unless this call
                # updates one of them (its trigger would delete what FTS does not hold yet).
                if not bulk.pending.isdisjoint(latest):
                    bulk.flush(conn)
                bulk.pending.update(latest)
            top = conn.execute("SELECT coalesce(max(rowid), 0) FROM chunks").fetchone()[0] if bulk is None else 0
            dropped_repos: set[str] = set()
            for batch in _batches(items):
                ids = [c.chunk_id for c in batch]
                old = dict(conn.execute(
                    f"SELECT chunk_id, content_hash FROM chunks WHERE has_vec = 1 AND chunk_id IN ({_qmarks(len(ids))})",
                    ids,
                ).fetchall())
                changed = [c for c in batch if c.chunk_id in old and old[c.chunk_id] != c.content_hash]
                insert_rows(conn, *_UPSERT, [chunk_row(c) for c in batch])
                if changed:
                    conn.execute(
                        f"DELETE FROM vectors WHERE chunk_id IN ({_qmarks(len(changed))})",
                        [c.chunk_id for c in changed],
                    )
                    dropped_repos.update(c.repo for c in changed)
            if bulk is None:
                _add_to_fts(conn, top)
            if dropped_repos:
                self._bump(conn, dropped_repos)

    @contextmanager
    def bulk_load(self, repo: str) -> Iterator[None]:
        """A full load (``codegraph.core.search_index.bulk_load``) on this thread: every
        write inside is one transaction, and the rows ``upsert_chunks`` inserts reach the
        FTS tables once, when the block ends: one ``INSERT ... SELECT`` per field for the
        whole load instead of one per call (FTS5 writes fewer segments and merges less:
        ~14 % of the instructions of Django's search writes, 12,000 chunks in 7 calls).
        The chunks are searchable when the block ends; one that raises commits the writes
        made before the error (as each call committed its own outside a load)."""
        if getattr(self._local, "bulk", None) is not None:
            raise RuntimeError(f"bulk_load({repo!r}) inside another bulk_load of {self.path}")
        error: BaseException | None = None
        with self._write() as conn:
            bulk = self._local.bulk = _Bulk(conn.execute("SELECT coalesce(max(rowid), 0) FROM chunks").fetchone()[0])
            try:
                yield
            except BaseException as e:  # the writes before it are kept: committed below, then it is raised
                error = e
            finally:
                self._local.bulk = None
            bulk.flush(conn)
        if error is not None:
            raise error

    def delete_files(self, repo: str, paths: list[str]) -> int:
        deleted = 0
        with self._write() as conn:
            for batch in _batches(paths):
                where = f"repo = ? AND file IN ({_qmarks(len(batch))})"
                conn.execute(f"DELETE FROM vectors WHERE chunk_id IN (SELECT chunk_id FROM chunks WHERE {where})",
                             [repo, *batch])
                deleted += conn.execute(f"DELETE FROM chunks WHERE {where}", [repo, *batch]).rowcount
            if deleted:
                self._bump(conn, {repo})
        return deleted

    def delete_chunks(self, repo: str, chunk_ids: list[str]) -> int:
        deleted = 0
        with self._write() as conn:
            for batch in _batches(chunk_ids):
                q = _qmarks(len(batch))
                conn.execute(f"DELETE FROM vectors WHERE chunk_id IN ({q})", batch)
                deleted += conn.execute(f"DELETE FROM chunks WHERE repo = ? AND chunk_id IN ({q})",
                                        [repo, *batch]).rowcount
            if deleted:
                self._bump(conn, {repo})
        return deleted

    def set_vectors(self, vectors: dict[str, np.ndarray]) -> None:
        """chunk_id -> float32 384-d vector (normalised here again). Ids that no longer
        exist are ignored. Raises ValueError on a wrong shape."""
        import numpy as np

        if not vectors:
            return
        rows = []
        for cid, v in vectors.items():
            a = np.asarray(v, dtype=np.float32).reshape(-1)
            if a.shape != (DIM,):
                raise ValueError(f"vector for {cid} has shape {a.shape}, expected ({DIM},)")
            norm = float(np.linalg.norm(a))
            rows.append((cid, (a / norm if norm > 0 else a).astype("<f4").tobytes()))
        with self._write() as conn:
            repos: set[str] = set()
            for batch in _batches(rows):
                ids = [cid for cid, _ in batch]
                repo_of = dict(conn.execute(
                    f"SELECT chunk_id, repo FROM chunks WHERE chunk_id IN ({_qmarks(len(ids))})", ids
                ).fetchall())
                present = [(cid, repo_of[cid], blob) for cid, blob in batch if cid in repo_of]
                conn.executemany(
                    "INSERT INTO vectors(chunk_id, repo, vec) VALUES (?, ?, ?) "
                    "ON CONFLICT(chunk_id) DO UPDATE SET vec = excluded.vec, repo = excluded.repo",
                    present,
                )
                conn.executemany("UPDATE chunks SET has_vec = 1 WHERE chunk_id = ?", [(cid,) for cid, _, _ in present])
                repos.update(r for _, r, _ in present)
            if repos:
                self._bump(conn, repos)

    def delete_repo(self, repo: str) -> None:
        """Delete the repo's chunks of this kind; from the code index, every kind's."""
        with self._write() as conn:
            conn.execute("DELETE FROM vectors WHERE repo = ?", (repo,))
            conn.execute("DELETE FROM chunks WHERE repo = ?", (repo,))
            self._bump(conn, {repo})
        if self.kind == "code":
            from codegraph.core.content import CONTENT_KINDS

            for kind in CONTENT_KINDS:
                if kind != "code":
                    self.for_kind(kind).delete_repo(repo)

    # -- reads ------------------------------------------------------------------------
    def chunk_ids_by_file(self, repo: str, paths: list[str] | None = None) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        if paths is None:
            rows: Any = self._conn().execute(
                "SELECT file, chunk_id FROM chunks WHERE repo = ? ORDER BY file, chunk_id", (repo,))
        else:
            rows = [r for batch in _batches(paths) for r in self._conn().execute(
                f"SELECT file, chunk_id FROM chunks WHERE repo = ? AND file IN ({_qmarks(len(batch))}) "
                "ORDER BY file, chunk_id", [repo, *batch])]
        for path, cid in rows:
            out.setdefault(path, []).append(cid)
        return out

    def bm25(self, query: str, k: int, repo: str | None = None) -> list[tuple[str, float]]:
        """Top-k (chunk_id, score): score = sum over the four fields of weight x BM25
        of that field (FTS5's bm25() negated, so higher is better)."""
        match = _fts_query(query)
        if not match or k <= 0:
            return []
        union = " UNION ALL ".join(
            f"SELECT rowid AS r, -{w} * bm25({table}) AS s FROM {table} WHERE {table} MATCH ?"
            for (table, _), w in zip(FTS_FIELDS, BM25_WEIGHTS, strict=True)
        )
        sql = (f"SELECT c.chunk_id, sum(u.s) AS score FROM ({union}) u JOIN chunks c ON c.rowid = u.r"
               + (" WHERE c.repo = ?" if repo is not None else "")
               + " GROUP BY u.r ORDER BY score DESC, c.chunk_id LIMIT ?")
        args: list[Any] = [match] * len(FTS_FIELDS) + ([repo] if repo is not None else []) + [k]
        return [(cid, float(s)) for cid, s in self._conn().execute(sql, args)]

    def _generation(self, repo: str | None) -> Any:
        conn = self._conn()
        if repo is None:
            return tuple(conn.execute("SELECT repo, gen FROM vec_gen ORDER BY repo").fetchall())
        row = conn.execute("SELECT gen FROM vec_gen WHERE repo = ?", (repo,)).fetchone()
        return row[0] if row else 0

    def _matrix(self, repo: str | None) -> tuple[list[str], np.ndarray]:
        """(chunk ids, unit-row matrix (n, 384) float32) for the scope, cached until the
        scope's vec_gen counter moves. Read in one snapshot so ids and gen agree."""
        import numpy as np

        conn = self._conn()
        conn.execute("BEGIN")  # one read snapshot for the counter and the rows
        try:
            gen = self._generation(repo)
            with self._cache_lock:
                hit = self._cache.get(repo)
                if hit is not None and hit[0] == gen:
                    self._cache.move_to_end(repo)
                    return hit[1], hit[2]
            if repo is None:
                rows = conn.execute("SELECT chunk_id, vec FROM vectors ORDER BY chunk_id").fetchall()
            else:
                rows = conn.execute("SELECT chunk_id, vec FROM vectors WHERE repo = ? ORDER BY chunk_id",
                                    (repo,)).fetchall()
        finally:
            conn.execute("COMMIT")
        ids = [r[0] for r in rows]
        mat = (np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), DIM)
               if rows else np.zeros((0, DIM), dtype=np.float32))
        with self._cache_lock:
            self._cache[repo] = (gen, ids, mat)
            self._cache.move_to_end(repo)
            while len(self._cache) > _CACHE_ENTRIES:
                self._cache.popitem(last=False)
        return ids, mat

    def knn(self, vector: np.ndarray, k: int, repo: str | None = None) -> list[tuple[str, float]]:
        """Exact cosine top-k over the scope's stored vectors, best first."""
        import numpy as np

        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        if q.shape != (DIM,):
            raise ValueError(f"query vector has shape {q.shape}, expected ({DIM},)")
        ids, mat = self._matrix(repo)
        if not ids or k <= 0:
            return []
        norm = float(np.linalg.norm(q))
        sims = mat @ (q / norm if norm > 0 else q)
        k = min(k, len(ids))
        top = np.argpartition(-sims, k - 1)[:k] if k < len(ids) else np.arange(len(ids))
        top = top[np.lexsort((top, -sims[top]))]  # by similarity, then by position for ties
        return [(ids[i], float(sims[i])) for i in top]

    def get_chunks(self, chunk_ids: list[str]) -> dict[str, Chunk]:
        out: dict[str, Chunk] = {}
        conn = self._conn()
        for batch in _batches(list(dict.fromkeys(chunk_ids))):
            for row in conn.execute(f"{_SELECT_CHUNK} WHERE chunk_id IN ({_qmarks(len(batch))})", list(batch)):
                out[row[0]] = _row_to_chunk(row)
        return out

    def chunks_missing_vectors(self, repo: str | None = None, limit: int = 256) -> list[Chunk]:
        """Chunks with no vector, ordered by (repo, chunk_id) through a partial index."""
        if repo is None:
            rows = self._conn().execute(
                f"{_SELECT_CHUNK} WHERE has_vec = 0 ORDER BY repo, chunk_id LIMIT ?", (limit,))
        else:
            rows = self._conn().execute(
                f"{_SELECT_CHUNK} WHERE has_vec = 0 AND repo = ? ORDER BY repo, chunk_id LIMIT ?", (repo, limit))
        return [_row_to_chunk(r) for r in rows]

    def has_vectors(self, repo: str | None = None) -> bool:
        """One row of the vectors table (indexed by repo), never a scan."""
        row = (self._conn().execute("SELECT 1 FROM vectors WHERE repo = ? LIMIT 1", (repo,)) if repo is not None
               else self._conn().execute("SELECT 1 FROM vectors LIMIT 1")).fetchone()
        return row is not None

    def stats(self, repo: str | None = None) -> dict[str, Any]:
        """{"chunks", "with_vectors", "bytes"}: bytes = stored text + vectors (approximate)."""
        sql = "SELECT count(*), coalesce(sum(has_vec), 0), coalesce(sum(length(text) + length(embed_text)), 0) FROM chunks"
        row = (self._conn().execute(sql + " WHERE repo = ?", (repo,)) if repo is not None
               else self._conn().execute(sql)).fetchone()
        n, with_vec, text_bytes = (int(x) for x in row)
        return {"chunks": n, "with_vectors": with_vec, "bytes": text_bytes + with_vec * DIM * 4}


def _split_sql(script: str) -> list[str]:
    """Statements of a script whose triggers contain ';' inside BEGIN ... END."""
    out: list[str] = []
    buf: list[str] = []
    for line in script.strip().splitlines():
        buf.append(line)
        stmt = "\n".join(buf).strip()
        if stmt.endswith(";") and sqlite3.complete_statement(stmt):
            out.append(stmt)
            buf = []
    return out

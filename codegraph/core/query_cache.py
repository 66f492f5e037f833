"""Query-embedding cache: (model, query text) -> its 384-d vector, in a small SQLite file.

A CLI ``codegraph search`` is a new process each time; without this, every call loads the
embedding model (~0.7 s) to embed a few words. A query seen before (by any process on the
same ``CODEGRAPH_HOME``) gets its vector from here and the model is not loaded at all.

The key names the model file by path, size and modification time (or fastembed's model
name), so a new model never returns an old vector. Entries are the exact float32 vector
the model produced, so a cached answer equals an uncached one. At most ``max_entries``
rows are kept (least recently used go first). The cache is an optimisation only: any
SQLite error (read-only home, a locked or corrupt file) makes ``get`` miss and ``put`` do
nothing, never fail a search.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

DEFAULT_MAX_ENTRIES = 5_000
_SCHEMA = """
CREATE TABLE IF NOT EXISTS query_vectors (
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    vec BLOB NOT NULL,
    used REAL NOT NULL,
    PRIMARY KEY (model, text)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS query_vectors_used ON query_vectors(used);
"""


def model_key(folder: Path | None, model_file: str, name: str | None) -> str:
    """Identity of a model for the cache: ``path:size:mtime_ns`` of the file, else the name."""
    if folder is not None:
        path = Path(folder) / model_file
        try:
            st = path.stat()
        except OSError:
            return f"{path}:missing"
        return f"{path.resolve()}:{st.st_size}:{st.st_mtime_ns}"
    return f"fastembed:{name}"


class QueryVectorCache:
    """``get(model, text) -> float32 vector | None`` and ``put(model, text, vector)``.

    ``path``: the SQLite file (created with its folder on first ``put``)."""

    def __init__(self, path: Path, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        self.path = Path(path)
        self.max_entries = max_entries

    def _connect(self, create: bool) -> sqlite3.Connection | None:
        if not create and not self.path.is_file():
            return None
        if create:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=0.5)
        conn.executescript(_SCHEMA)
        return conn

    def get(self, model: str, text: str) -> Any | None:
        """The cached vector (float32, shape (384,)) or None; marks it used."""
        try:
            conn = self._connect(create=False)
            if conn is None:
                return None
            with conn:
                row = conn.execute("SELECT vec FROM query_vectors WHERE model = ? AND text = ?",
                                   (model, text)).fetchone()
                if row is not None:
                    conn.execute("UPDATE query_vectors SET used = ? WHERE model = ? AND text = ?",
                                 (time.time(), model, text))
            conn.close()
        except sqlite3.Error as e:
            log.debug("query-vector cache %s unreadable: %s", self.path, e)
            return None
        if row is None:
            return None
        import numpy as np

        return np.frombuffer(row[0], dtype="<f4").astype(np.float32)

    def put(self, model: str, text: str, vector: Any) -> None:
        """Store ``vector`` for (model, text); drops the least recently used rows beyond
        ``max_entries``."""
        import numpy as np

        blob = np.asarray(vector, dtype="<f4").reshape(-1).tobytes()
        try:
            conn = self._connect(create=True)
            assert conn is not None
            with conn:
                conn.execute("INSERT OR REPLACE INTO query_vectors (model, text, vec, used) VALUES (?, ?, ?, ?)",
                             (model, text, blob, time.time()))
                (n,) = conn.execute("SELECT count(*) FROM query_vectors").fetchone()
                if n > self.max_entries:
                    conn.execute("DELETE FROM query_vectors WHERE (model, text) IN (SELECT model, text "
                                 "FROM query_vectors ORDER BY used LIMIT ?)", (n - self.max_entries,))
            conn.close()
        except (sqlite3.Error, OSError) as e:
            log.debug("query-vector cache %s not written: %s", self.path, e)

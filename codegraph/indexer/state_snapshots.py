"""The names of each CountSnapshot kept in the indexer state (table ``snapshot_symbols``
of ``codegraph.indexer.state``; docs/DESIGN.md#refresh): a run's as the names added and
removed since the newest whole set before it, a backfill's as the whole set."""

from __future__ import annotations

import marshal
import sqlite3
import zlib

_DELTA = b"D1"  # snapshot_symbols row: zlib(marshal((full row's taken_at, added, removed))); else zlib of the names
# The last whole name set this process wrote or read, per (state file, repo): the next
# run's delta is taken against it without reading it back.
_FULL_NAMES: dict[tuple[str, str], tuple[str, frozenset[str]]] = {}


class SnapshotNames:
    """``StateStore``'s snapshot-name rows (its ``conn``, and ``_key``: the state file)."""

    conn: sqlite3.Connection
    _key: str

    def save_snapshot_symbols(self, repo: str, taken_at: str, qualified_names: list[str], *,
                              delta: bool = False) -> None:
        """Keep the set of ``qualified_names`` of the snapshot at ``taken_at``. ``delta``
        (the pipeline's runs): stored as the names added and removed since the newest full
        set before it, while those stay under a quarter of the set (every run writes one:
        a whole set is 0.66 MB before compression on the stdlib, and sorting + compressing
        it was most of a refresh's save); else, and always without ``delta``, the whole set."""
        with self.conn:
            self._snapshot_row(repo, taken_at, qualified_names, delta=delta)

    def _snapshot_row(self, repo: str, taken_at: str, qualified_names: list[str], *, delta: bool) -> None:
        names = set(qualified_names)
        row = self.conn.execute(
            "SELECT taken_at, symbols FROM snapshot_symbols WHERE repo=? AND taken_at<? ORDER BY taken_at DESC "
            "LIMIT 1", (repo, taken_at)).fetchone() if delta else None
        blob = None
        if row is not None:
            base_at = row[0] if row[1][:2] != _DELTA else marshal.loads(zlib.decompress(row[1][2:]))[0]
            base = self._full_names(repo, base_at)
            if base is not None:
                added, removed = names - base, base - names
                if len(added) + len(removed) <= len(names) // 4:
                    blob = _DELTA + zlib.compress(marshal.dumps((base_at, sorted(added), sorted(removed)), 4), 1)
        if blob is None:
            blob = zlib.compress("\n".join(names).encode(), 1)
            if delta:
                _FULL_NAMES[(self._key, repo)] = (taken_at, frozenset(names))
        self.conn.execute("INSERT OR REPLACE INTO snapshot_symbols VALUES (?,?,?)", (repo, taken_at, blob))

    def _full_names(self, repo: str, taken_at: str) -> frozenset[str] | None:
        """The names of a whole (not delta) row, from this process's cache when it wrote or read it last."""
        hit = _FULL_NAMES.get((self._key, repo))
        if hit is not None and hit[0] == taken_at:
            return hit[1]
        row = self.conn.execute(
            "SELECT symbols FROM snapshot_symbols WHERE repo=? AND taken_at=?", (repo, taken_at)).fetchone()
        if row is None or row[0][:2] == _DELTA:
            return None
        names = frozenset(zlib.decompress(row[0]).decode().split("\n")) - {""}
        _FULL_NAMES[(self._key, repo)] = (taken_at, names)
        return names

    def snapshot_symbols(self, repo: str, taken_at: str) -> set[str] | None:
        """The qualified names of the snapshot at ``taken_at``; None when none were kept
        (or the whole set a delta row refers to is gone)."""
        row = self.conn.execute(
            "SELECT symbols FROM snapshot_symbols WHERE repo=? AND taken_at=?", (repo, taken_at)).fetchone()
        if row is None:
            return None
        if row[0][:2] != _DELTA:
            return set(zlib.decompress(row[0]).decode().split("\n")) - {""}
        base_at, added, removed = marshal.loads(zlib.decompress(row[0][2:]))
        base = self._full_names(repo, base_at)
        return None if base is None else (set(base) - set(removed)) | set(added)


__all__ = ["SnapshotNames"]

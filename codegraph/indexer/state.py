"""Indexer state: what the last successful run saw, per repo and file.

Kept in its own sqlite file (``CODEGRAPH_HOME/state.db``) apart from the stores, so it
works the same for every backend. Per file: content hash, the extraction (marshal form, see ``encode``)
(so unchanged files never re-parse, yet the whole repo can be re-resolved), and a hash
of the file's resolved edges (so only files whose edges changed are rewritten).
Written only after a run succeeded (docs/DESIGN.md#refresh).

An extraction is stored in two parts so a refresh decodes only what it needs: the *head*
(``file_state.extraction``: file record, symbols, exports, framework records, and the
references the symbol table and the base-class pass read — EXTENDS / IMPLEMENTS and
parameter calls) for every file, the full reference list (``file_refs``) only for the
files resolved again (``StateStore.fill_references``). What each file's last
resolution looked up is kept per file and inverted, key -> files, in shards
(``codegraph.indexer.state_deps``): a refresh reads the shards of the keys it asks for
and rewrites the shards of the keys that changed. ``repo_format`` holds the layout a
repo's rows were written in: an older one (or an unreadable row) makes the next run a
full rebuild with one message; an unreadable state file is moved aside. The snapshot
names' rows are ``codegraph.indexer.state_snapshots``.
"""

from __future__ import annotations

import json
import marshal
import sqlite3
import weakref
import zlib
from collections.abc import Callable
from dataclasses import dataclass, fields, is_dataclass
from datetime import UTC, datetime
from functools import cache
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codegraph.core.errors import CodegraphError
from codegraph.core.models import EXTENDS, IMPLEMENTS, FileRecord, SymbolRecord
from codegraph.indexer import state_deps
from codegraph.indexer.records import FileExtraction, Reference
from codegraph.indexer.state_snapshots import SnapshotNames

if TYPE_CHECKING:
    from codegraph.indexer.discover import FileStat
    from codegraph.indexer.state_deps import ResolveState

SCHEMA = """
CREATE TABLE IF NOT EXISTS repo_state (
  repo TEXT PRIMARY KEY, root TEXT, extractor_version TEXT, fingerprint TEXT, commit_sha TEXT, updated_at TEXT
);
CREATE TABLE IF NOT EXISTS file_state (
  repo TEXT, path TEXT, content_hash TEXT, edges_hash TEXT, extraction BLOB,
  PRIMARY KEY (repo, path)
);
CREATE TABLE IF NOT EXISTS snapshot_symbols (
  repo TEXT, taken_at TEXT, symbols BLOB, PRIMARY KEY (repo, taken_at)
);
CREATE TABLE IF NOT EXISTS resolve_index (
  repo TEXT, shard INTEGER, keys BLOB, PRIMARY KEY (repo, shard)
);
CREATE TABLE IF NOT EXISTS resolve_shards (
  repo TEXT PRIMARY KEY, shards INTEGER, keys INTEGER
);
CREATE TABLE IF NOT EXISTS resolve_files (
  repo TEXT, path TEXT, counts TEXT, deps BLOB, PRIMARY KEY (repo, path)
);
CREATE TABLE IF NOT EXISTS resolve_repo (
  repo TEXT PRIMARY KEY, blob BLOB
);
CREATE TABLE IF NOT EXISTS file_refs (
  repo TEXT, path TEXT, refs BLOB, PRIMARY KEY (repo, path)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS repo_format (
  repo TEXT PRIMARY KEY, format INTEGER
);
CREATE TABLE IF NOT EXISTS file_stat (
  repo TEXT, path TEXT, size INTEGER, mtime_ns INTEGER, ctime_ns INTEGER, ino INTEGER, seen_ns INTEGER,
  PRIMARY KEY (repo, path)
) WITHOUT ROWID;
"""
# file_stat: the stat of each file when a run last read it, and when that run started
# (seen_ns, time.time_ns() before any stat). A file whose stat still matches, and whose
# mtime and ctime are older than seen_ns - RACY_NS, is not read again (``trusted_stats``).
RACY_NS = 2_000_000_000  # 2 s: an edit in the same timestamp tick as the read (coarse or FAT clocks) still shows
# file_refs: every reference of a file whose head (file_state.extraction) is in the split
# form (prefix M2); repo_format: the layout of a repo's rows (STATE_FORMAT).
# 1: whole extraction in file_state (marshal M1 or zlib JSON); 2: head + file_refs, one
# resolve_deps row per (key, path); 3: the dependency index in shards (resolve_index)
STATE_FORMAT = 3
# resolve_files / resolve_index / resolve_shards / resolve_repo: per file the lookups its
# references made in the last resolution and its resolution counts, the same lookups
# inverted (key -> paths, in shards: codegraph.indexer.state_deps), and the repo's
# base-class map, stub records and totals (codegraph.indexer.affected; docs/DESIGN.md#refresh).
_LEGACY_TABLES = ("resolve_deps",)  # layout 2's inverted index: dropped by a full save


@dataclass(slots=True)
class RepoState:
    repo: str
    root: str
    extractor_version: str
    fingerprint: str
    commit_sha: str | None
    updated_at: str


def _plain(obj: Any) -> Any:
    """JSON-ready copy of records (what ``dataclasses.asdict`` gives, without its deep
    copies of every leaf: asdict was the main process's largest cost of saving state)."""
    names = _FIELD_NAMES.get(type(obj))
    if names is None and is_dataclass(obj) and not isinstance(obj, type):
        names = _FIELD_NAMES[type(obj)] = tuple(f.name for f in fields(obj))
    if names is not None:
        return {n: _plain(getattr(obj, n)) for n in names}
    if isinstance(obj, list | tuple):
        return [_plain(x) for x in obj]
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    return obj


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


@cache  # dataclasses.fields() per call was half of saving a full index's state
def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


@cache
def _getter(cls: type) -> attrgetter[Any]:
    """A record's field values as one tuple in ``_names`` order (every record class has
    several fields: attrgetter of one name would return the bare value)."""
    return attrgetter(*_names(cls))


_MARSHAL = b"M1"  # blob prefix of the marshal form; the JSON form is a zlib stream (first byte 0x78)
_HEAD = b"M2"  # head of the split form: the full reference list is in file_refs


def encode_blob(blob: dict[str, Any]) -> bytes:
    """The repo-level resolution blob as stored: prefix M1 and a marshal of the plain
    values (lists, dicts, str, int). Written every run: marshal takes 0.5 ms on the stdlib's
    blob where zlib JSON took 9 (and 5.5 to read back)."""
    return _MARSHAL + marshal.dumps(blob, 4)


def decode_blob(data: bytes) -> dict[str, Any]:
    """``encode_blob``'s form, or the zlib JSON one older states hold."""
    out = marshal.loads(data[2:]) if data[:2] == _MARSHAL else json.loads(zlib.decompress(data))
    if not isinstance(out, dict):
        raise ValueError("not a resolution blob")
    return out


class StateCorrupt(CodegraphError):
    """A stored row cannot be decoded; the run that met it rebuilds the repo."""


def head_reference(r: Reference) -> bool:
    """Is ``r`` read before the files to resolve are known (the table's parameter calls,
    the base-class pass)? Those references are kept in every file's head."""
    return r.type in (EXTENDS, IMPLEMENTS) or "param_call" in r.extra


def _rows(refs: list[Reference]) -> list[tuple[Any, ...]]:
    return list(map(_getter(Reference), refs))


def encode(fx: FileExtraction) -> bytes:
    """One file's whole extraction as one blob (format 1: a marshal of field-value tuples
    with the field names, so a changed record class still decodes by name; zlib JSON
    when a value is not a plain type). ``encode_split`` is what the state writes now."""
    try:
        f = fx.file
        return _MARSHAL + marshal.dumps((
            _names(FileRecord), _names(SymbolRecord), _names(Reference),
            _getter(FileRecord)(f), list(map(_getter(SymbolRecord), fx.symbols)),
            _rows(fx.references), fx.framework, fx.exports, fx.errors), 4)
    except ValueError:  # an object marshal cannot write
        return zlib.compress(json.dumps(_plain(fx), ensure_ascii=False, separators=(",", ":")).encode(), 1)


def encode_split(fx: FileExtraction) -> tuple[bytes, bytes | None]:
    """(head, references) as stored: the head is ``encode``'s form with only the head
    references (``head_reference``) and prefix M2, the second blob a marshal of every
    reference's field tuple in order. (``encode(fx)``, None) when marshal cannot write a
    value."""
    try:
        f = fx.file
        refs = marshal.dumps((_names(Reference), _rows(fx.references)), 4)
        head = _HEAD + marshal.dumps((
            _names(FileRecord), _names(SymbolRecord), _names(Reference),
            _getter(FileRecord)(f), list(map(_getter(SymbolRecord), fx.symbols)),
            _rows([r for r in fx.references if head_reference(r)]), fx.framework, fx.exports, fx.errors), 4)
        return head, refs
    except ValueError:
        return encode(fx), None


def _build(cls: type, names: tuple[str, ...], rows: list[tuple[Any, ...]]) -> list[Any]:
    if names == _names(cls):
        return [cls(*r) for r in rows]
    known = set(_names(cls))  # a field added or dropped since the state was written
    return [cls(**{n: v for n, v in zip(names, r, strict=True) if n in known}) for r in rows]


def decode_references(blob: bytes) -> list[Reference]:
    """The reference list of ``encode_split``'s second blob."""
    names, rows = marshal.loads(blob)
    return _build(Reference, names, rows)


def decode(blob: bytes) -> FileExtraction:
    """An extraction from ``encode``'s blob, or the head of ``encode_split``'s (its
    references are then only the head references)."""
    if blob[:2] in (_MARSHAL, _HEAD):
        fn, sn, rn, f, syms, refs, framework, exports, errors = marshal.loads(blob[2:])
        return FileExtraction(file=_build(FileRecord, fn, [f])[0], symbols=_build(SymbolRecord, sn, syms),
                              references=_build(Reference, rn, refs), framework=framework, exports=exports,
                              errors=errors)
    d = json.loads(zlib.decompress(blob))
    return FileExtraction(
        file=FileRecord(**d["file"]),
        symbols=[SymbolRecord(**s) for s in d["symbols"]],
        references=[Reference(**r) for r in d["references"]],
        framework=d.get("framework", []),
        exports=d.get("exports", {}),
        errors=d.get("errors", []),
    )


# Decoded extractions of this process, keyed by (state file, repo, path) with the
# stored head's hash and whether only the head references are there yet: a long-running
# `watch` or dashboard process decodes a file's records once, not on every refresh.
_DECODED: dict[tuple[str, str, str], list[Any]] = {}  # [hash, FileExtraction, partial]


def _decode_or_raise(repo: str, path: str, blob: bytes, fn: Any = decode) -> Any:
    try:
        return fn(blob)
    except Exception as e:  # any damage to a row (marshal, zlib, JSON, a record class)
        raise StateCorrupt(f"the indexer state of {repo}:{path} cannot be read ({type(e).__name__})") from e


_OPEN: weakref.WeakSet[StateStore] = weakref.WeakSet()  # stores of this process with a connection open


class StateStore(SnapshotNames):
    """``notice``: one line when the state file could not be opened and was moved aside."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._key = str(path.resolve())
        self.path = path
        self.notice: str | None = None
        try:
            self._open(path)
        except sqlite3.DatabaseError as e:  # not a database, or damaged: keep it, start a new one
            aside = path.with_name(f"{path.name}.unreadable-{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}")
            path.replace(aside)
            for suffix in ("-wal", "-shm"):
                side = path.with_name(path.name + suffix)
                if side.exists():
                    side.replace(aside.with_name(aside.name + suffix))
            self.notice = (f"the indexer state {path} could not be read ({e}); moved to {aside.name}, "
                           "every repository is parsed again in full")
            self._open(path)

    def _open(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, timeout=60, check_same_thread=False)
        try:
            self.conn.execute("PRAGMA journal_mode=WAL")
            # As the stores: no fsync per commit (a lost last commit only makes the next run
            # repeat work: the pipeline checks the graph's file hashes against the state).
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.executescript(SCHEMA)
        except sqlite3.DatabaseError:
            self.conn.close()
            raise
        _OPEN.add(self)

    def release_for_fork(self) -> bool:
        """Before a child made by ``fork`` writes this file (``codegraph.indexer.state_writes``):
        True after closing this store's connection (``reopen`` opens it again; using it
        before raises ``sqlite3.ProgrammingError``) when no other store of this process has
        the file open; False, and nothing closed, otherwise (SQLite: a connection must not
        cross a fork, and the child must not find the file open in its process)."""
        if any(s is not self and s._key == self._key for s in list(_OPEN)):
            return False
        self.close()
        return True

    def reopen(self) -> None:
        """Open the connection ``release_for_fork`` closed (the file's rows as committed now)."""
        if self not in _OPEN:
            self._open(self.path)

    def stale_format(self, repo: str) -> bool:
        """True when the repo's rows were written in an older layout (STATE_FORMAT)."""
        row = self.conn.execute("SELECT format FROM repo_format WHERE repo=?", (repo,)).fetchone()
        return row is None or row[0] != STATE_FORMAT

    def repo(self, repo: str) -> RepoState | None:
        row = self.conn.execute(
            "SELECT repo,root,extractor_version,fingerprint,commit_sha,updated_at FROM repo_state WHERE repo=?",
            (repo,)).fetchone()
        return RepoState(*row) if row else None

    def repos(self) -> list[RepoState]:
        rows = self.conn.execute(
            "SELECT repo,root,extractor_version,fingerprint,commit_sha,updated_at FROM repo_state ORDER BY repo")
        return [RepoState(*r) for r in rows]

    def file_hashes(self, repo: str) -> dict[str, tuple[str, str]]:
        """path -> (content_hash, edges_hash)."""
        rows = self.conn.execute("SELECT path, content_hash, edges_hash FROM file_state WHERE repo=?", (repo,))
        return {r[0]: (r[1], r[2] or "") for r in rows}

    def trusted_stats(self, repo: str) -> dict[str, FileStat]:
        """path -> (size, mtime_ns, ctime_ns, inode) under which a run read the file whose
        content hash the state holds, for the files changed more than RACY_NS before that run
        started: a file showing the same stat now has that content. Files changed within
        RACY_NS of the read are left out (an edit in the same clock tick as the read keeps
        mtime and size), so they are read again."""
        rows = self.conn.execute(
            "SELECT path, size, mtime_ns, ctime_ns, ino FROM file_stat WHERE repo=? AND mtime_ns < seen_ns - ? "
            "AND ctime_ns < seen_ns - ?", (repo, RACY_NS, RACY_NS))
        return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows}

    def extractions(self, repo: str, paths: list[str] | None = None, *,
                    heads: bool = False) -> dict[str, FileExtraction]:
        """path -> stored extraction (of ``paths``, default every file). ``heads``: the
        references may be only the head references (``head_reference``) until
        ``fill_references`` is called for the file. Raises StateCorrupt."""
        if paths is None:
            rows = self.conn.execute("SELECT path, extraction FROM file_state WHERE repo=?", (repo,))
            out = {r[0]: self._decode(repo, r[0], r[1]) for r in rows}
        else:
            out = {}
            for i in range(0, len(paths), 500):
                part = paths[i:i + 500]
                rows = self.conn.execute(
                    f"SELECT path, extraction FROM file_state WHERE repo=? AND path IN ({','.join('?' * len(part))})",
                    (repo, *part))
                out.update({r[0]: self._decode(repo, r[0], r[1]) for r in rows})
        if not heads:
            self.fill_references(repo, list(out.values()))
        return out

    def _decode(self, repo: str, path: str, blob: bytes) -> FileExtraction:
        key, h = (self._key, repo, path), hash(blob)
        hit = _DECODED.get(key)
        if hit is not None and hit[0] == h:
            return hit[1]
        fx = _decode_or_raise(repo, path, blob)
        _DECODED[key] = [h, fx, blob[:2] == _HEAD]
        return fx

    def fill_references(self, repo: str, extractions: list[FileExtraction]) -> list[FileExtraction]:
        """Give the extractions read with ``heads=True`` their whole reference list (in
        place); returns those that changed. Others (fresh, already whole) are left alone.
        Raises StateCorrupt when a head has no reference row or the row is damaged."""
        todo: dict[str, FileExtraction] = {}
        for fx in extractions:
            hit = _DECODED.get((self._key, repo, fx.file.path))
            if hit is not None and hit[2] and hit[1] is fx:
                todo[fx.file.path] = fx
        paths = list(todo)
        found: set[str] = set()
        for i in range(0, len(paths), 500):
            part = paths[i:i + 500]
            for path, blob in self.conn.execute(
                    f"SELECT path, refs FROM file_refs WHERE repo=? AND path IN ({','.join('?' * len(part))})",
                    (repo, *part)):
                todo[path].references = _decode_or_raise(repo, path, blob, decode_references)
                _DECODED[(self._key, repo, path)][2] = False
                found.add(path)
        missing = sorted(set(paths) - found)
        if missing:
            raise StateCorrupt(f"the indexer state of {repo}:{missing[0]} has no reference row")
        return list(todo.values())

    def save(
        self,
        state: RepoState,
        changed: dict[str, FileExtraction],
        removed: list[str],
        edges_hashes: dict[str, str],
        resolution: ResolveState | None = None,
        stats: dict[str, tuple[int, int, int, int, int]] | None = None,
        before_commit: Callable[[], None] | None = None,
        snapshot: tuple[str, list[str]] | None = None,
    ) -> None:
        """Record a successful run in one transaction (with what the resolution looked up,
        when given). ``stats``: path -> (size, mtime_ns, ctime_ns, inode, seen_ns) of the files
        this run read and hashed (``trusted_stats``); a changed or removed file without one
        loses its stored stat (its content hash came from elsewhere, e.g. a JSONL load).
        ``before_commit``: called with every row written, before the commit; what it
        raises rolls the transaction back (``codegraph.indexer.state_writes``). ``snapshot``:
        (taken_at, qualified names) of the run's CountSnapshot, kept as
        ``save_snapshot_symbols(..., delta=True)`` keeps it, in the same transaction."""
        stats = stats or {}
        with self.conn:
            self.conn.executemany("DELETE FROM file_stat WHERE repo=? AND path=?",
                                  [(state.repo, p) for p in [*removed, *changed] if p not in stats])
            self.conn.executemany("INSERT OR REPLACE INTO file_stat VALUES (?,?,?,?,?,?,?)",
                                  [(state.repo, p, *st) for p, st in stats.items()])
            if resolution is not None:
                self._save_resolution(state.repo, resolution)
            self.conn.execute(
                "INSERT OR REPLACE INTO repo_state VALUES (?,?,?,?,?,?)",
                (state.repo, state.root, state.extractor_version, state.fingerprint, state.commit_sha,
                 state.updated_at))
            self.conn.executemany(
                "DELETE FROM file_state WHERE repo=? AND path=?", [(state.repo, p) for p in removed])
            self.conn.executemany(
                "DELETE FROM file_refs WHERE repo=? AND path=?", [(state.repo, p) for p in [*removed, *changed]])
            rows = [(p, fx, *encode_split(fx)) for p, fx in changed.items()]
            self.conn.executemany(
                "INSERT OR REPLACE INTO file_state VALUES (?,?,?,?,?)",
                [(state.repo, p, fx.file.content_hash, edges_hashes.get(p, ""), head) for p, fx, head, _ in rows])
            self.conn.executemany("INSERT INTO file_refs VALUES (?,?,?)",
                                  [(state.repo, p, refs) for p, _, _, refs in rows if refs is not None])
            self.conn.execute("INSERT OR REPLACE INTO repo_format VALUES (?,?)", (state.repo, STATE_FORMAT))
            self.conn.executemany(
                "UPDATE file_state SET edges_hash=? WHERE repo=? AND path=?",
                [(h, state.repo, p) for p, h in edges_hashes.items() if p not in changed])
            if snapshot is not None:
                self._snapshot_row(state.repo, *snapshot, delta=True)
            if before_commit is not None:
                before_commit()

    def _save_resolution(self, repo: str, rs: ResolveState) -> None:
        c = self.conn
        fwd, inv = rs.texts()
        if rs.full:
            c.execute("DELETE FROM resolve_index WHERE repo=?", (repo,))
            c.execute("DELETE FROM resolve_files WHERE repo=?", (repo,))
            for table in _LEGACY_TABLES:  # inside the transaction: DELETE began it
                c.execute(f"DROP TABLE IF EXISTS {table}")
            n = state_deps.shard_count(len(inv))
            self._write_index(repo, inv, n)
        else:
            # Only the shards of the keys that differ: a file resolved again mostly looks up
            # what it did last time.
            gone = [*rs.files, *rs.removed]
            was = self.resolve_file_deps(repo, gone)
            drop: list[tuple[str, str]] = []
            add: list[tuple[str, str]] = []
            for p in gone:
                old, now = set(was.get(p, ())), set(fwd.get(p, ()))
                drop.extend((k, p) for k in old - now)
                add.extend((k, p) for k in now - old)
            self._update_index(repo, drop, add)
            c.executemany("DELETE FROM resolve_files WHERE repo=? AND path=?", [(repo, p) for p in gone])
        c.executemany("INSERT INTO resolve_files VALUES (?,?,?,?)",
                      [(repo, p, json.dumps(counts), state_deps.encode_keys(fwd[p]))
                       for p, (_, counts) in rs.files.items()])
        c.execute("INSERT OR REPLACE INTO resolve_repo VALUES (?,?)", (repo, encode_blob(rs.blob)))

    def _write_index(self, repo: str, inv: dict[str, list[str]], n: int) -> None:
        """Every shard of the repo's index (key text -> paths) in ``n`` shards."""
        self.conn.execute("INSERT OR REPLACE INTO resolve_shards VALUES (?,?,?)", (repo, n, len(inv)))
        self.conn.executemany("INSERT INTO resolve_index VALUES (?,?,?)",
                              [(repo, i, state_deps.encode_shard(part)) for i, part in state_deps.split(inv, n).items()])

    def _update_index(self, repo: str, drop: list[tuple[str, str]], add: list[tuple[str, str]]) -> None:
        """Remove and add (key text, path) pairs, rewriting only the shards they fall in;
        all of them, in more shards, when refreshes grew the index past twice the keys its
        shard count is sized for (``state_deps.shard_count``)."""
        if not (drop or add):
            return
        n, keys = self._shards(repo) or (1, 0)  # (no index yet: a full save comes first)
        touched: dict[int, tuple[list[tuple[str, str]], list[tuple[str, str]]]] = {}
        for pairs, side in ((drop, 0), (add, 1)):
            for pair in pairs:
                touched.setdefault(state_deps.shard_of(pair[0], n), ([], []))[side].append(pair)
        parts = dict(self._index_rows(repo, list(touched)))
        for i, (d, a) in touched.items():
            keys += state_deps.update(parts.setdefault(i, {}), d, a)
        if state_deps.shard_count(keys) > 2 * n:
            whole = dict(self._index_rows(repo, list(range(n))))
            whole.update(parts)
            self.conn.execute("DELETE FROM resolve_index WHERE repo=?", (repo,))
            self._write_index(repo, {k: ps for part in whole.values() for k, ps in part.items()},
                              state_deps.shard_count(keys))
            return
        self.conn.execute("INSERT OR REPLACE INTO resolve_shards VALUES (?,?,?)", (repo, n, keys))
        self.conn.executemany("INSERT OR REPLACE INTO resolve_index VALUES (?,?,?)",
                              [(repo, i, state_deps.encode_shard(parts[i])) for i in touched])

    def _shards(self, repo: str) -> tuple[int, int] | None:
        """(shards, distinct keys) of the repo's index, None without one."""
        row = self.conn.execute("SELECT shards, keys FROM resolve_shards WHERE repo=?", (repo,)).fetchone()
        return None if row is None else (int(row[0]), int(row[1]))

    def _index_rows(self, repo: str, shards: list[int]) -> list[tuple[int, dict[str, list[str]]]]:
        """(shard, key text -> paths) of the stored ``shards``. Raises StateCorrupt."""
        out = []
        for i in range(0, len(shards), 500):
            part = shards[i:i + 500]
            out.extend((k, _decode_or_raise(repo, f"(dependency shard {k})", b, state_deps.decode_shard))
                       for k, b in self.conn.execute(
                           f"SELECT shard, keys FROM resolve_index WHERE repo=? AND shard IN "
                           f"({','.join('?' * len(part))})", (repo, *part)))
        return out

    def resolve_blob(self, repo: str) -> dict[str, Any] | None:
        """The repo-level resolution state of the last run, or None (codegraph.indexer.affected).
        Raises StateCorrupt when the row cannot be decoded."""
        row = self.conn.execute("SELECT blob FROM resolve_repo WHERE repo=?", (repo,)).fetchone()
        return _decode_or_raise(repo, "(resolution)", row[0], decode_blob) if row else None

    def resolve_dependents(self, repo: str, keys: list[str]) -> set[str]:
        """Paths whose last resolution looked up one of ``keys`` (texts, ``key_text``):
        read from the shards of those keys only. Raises StateCorrupt."""
        layout = self._shards(repo) if keys else None
        if layout is None:
            return set()
        n = layout[0]
        by: dict[int, list[str]] = {}
        for k in keys:
            by.setdefault(state_deps.shard_of(k, n), []).append(k)
        out: set[str] = set()
        for i, part in self._index_rows(repo, list(by)):
            for k in by[i]:
                out.update(part.get(k, ()))
        return out

    def _resolve_rows(self, repo: str, paths: list[str], col: str) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = []
        paths = list(paths)
        for i in range(0, len(paths), 500):
            part = paths[i:i + 500]
            out.extend(self.conn.execute(
                f"SELECT path, {col} FROM resolve_files WHERE repo=? AND path IN ({','.join('?' * len(part))})",
                (repo, *part)))
        return out

    def resolve_file_deps(self, repo: str, paths: list[str]) -> dict[str, list[str]]:
        """path -> the lookup keys (texts) its last resolution made, sorted. Raises StateCorrupt."""
        return {p: sorted(_decode_or_raise(repo, p, b, state_deps.decode_keys))
                for p, b in self._resolve_rows(repo, paths, "deps")}

    def resolve_counts(self, repo: str, paths: set[str] | list[str]) -> dict[str, dict[str, int]]:
        """path -> resolution counts of its references in the last run."""
        return {p: json.loads(c) for p, c in self._resolve_rows(repo, list(paths), "counts")}

    def forget(self, repo: str) -> None:
        with self.conn:
            self.conn.execute("DELETE FROM file_state WHERE repo=?", (repo,))
            self.conn.execute("DELETE FROM repo_state WHERE repo=?", (repo,))
            for table in ("resolve_index", "resolve_shards", "resolve_files", "resolve_repo", "file_refs",
                          "repo_format", "file_stat"):
                self.conn.execute(f"DELETE FROM {table} WHERE repo=?", (repo,))

    def close(self) -> None:
        self.conn.close()
        _OPEN.discard(self)

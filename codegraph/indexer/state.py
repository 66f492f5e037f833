"""Indexer state: what the last successful run saw, per repo and file.

Kept in its own sqlite file (``CODEGRAPH_HOME/state.db``) apart from the stores, so it
works the same for every backend. Per file: content hash, the extraction (marshal form, see ``encode``)
(so unchanged files never re-parse, yet the whole repo can be re-resolved), and a hash
of the file's resolved edges (so only files whose edges changed are rewritten).
Written only after a run succeeded (docs/DESIGN.md#refresh).
"""

from __future__ import annotations

import json
import marshal
import sqlite3
import zlib
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codegraph.core.models import FileRecord, SymbolRecord
from codegraph.indexer.records import FileExtraction, Reference

if TYPE_CHECKING:
    from codegraph.indexer.affected import ResolveState

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
CREATE TABLE IF NOT EXISTS resolve_deps (
  repo TEXT, key TEXT, path TEXT, PRIMARY KEY (repo, key, path)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS resolve_files (
  repo TEXT, path TEXT, counts TEXT, deps BLOB, PRIMARY KEY (repo, path)
);
CREATE TABLE IF NOT EXISTS resolve_repo (
  repo TEXT PRIMARY KEY, blob BLOB
);
"""
# resolve_deps / resolve_files / resolve_repo: the lookups each file's references made in
# the last resolution, its resolution counts, and the repo's base-class map, stub records
# and totals (codegraph.indexer.affected; docs/DESIGN.md#refresh).
_KEYS_SEP = "\x1e"


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


def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


_MARSHAL = b"M1"  # blob prefix of the marshal form; the JSON form is a zlib stream (first byte 0x78)


def encode(fx: FileExtraction) -> bytes:
    """One file's extraction as stored: a marshal of field-value tuples (with the field
    names, so a changed record class still decodes by name) — several times faster to
    write and read than JSON. Falls back to zlib JSON when a value is not a plain type."""
    try:
        f = fx.file
        return _MARSHAL + marshal.dumps((
            _names(FileRecord), _names(SymbolRecord), _names(Reference),
            tuple(getattr(f, n) for n in _names(FileRecord)),
            [tuple(getattr(s, n) for n in _names(SymbolRecord)) for s in fx.symbols],
            [tuple(getattr(r, n) for n in _names(Reference)) for r in fx.references],
            fx.framework, fx.exports, fx.errors), 4)
    except ValueError:  # an object marshal cannot write
        return zlib.compress(json.dumps(_plain(fx), ensure_ascii=False, separators=(",", ":")).encode(), 1)


def _build(cls: type, names: tuple[str, ...], rows: list[tuple[Any, ...]]) -> list[Any]:
    if names == _names(cls):
        return [cls(*r) for r in rows]
    known = set(_names(cls))  # a field added or dropped since the state was written
    return [cls(**{n: v for n, v in zip(names, r, strict=True) if n in known}) for r in rows]


def decode(blob: bytes) -> FileExtraction:
    if blob[:2] == _MARSHAL:
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
# compressed blob's hash: a long-running `watch` or dashboard process decodes a file's
# records once, not on every refresh.
_DECODED: dict[tuple[str, str, str], tuple[int, FileExtraction]] = {}


class StateStore:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._key = str(path.resolve())
        self.conn = sqlite3.connect(path, timeout=60, check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.executescript(SCHEMA)

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

    def extractions(self, repo: str, paths: list[str] | None = None) -> dict[str, FileExtraction]:
        if paths is None:
            rows = self.conn.execute("SELECT path, extraction FROM file_state WHERE repo=?", (repo,))
            return {r[0]: self._decode(repo, r[0], r[1]) for r in rows}
        out: dict[str, FileExtraction] = {}
        for i in range(0, len(paths), 500):
            part = paths[i:i + 500]
            rows = self.conn.execute(
                f"SELECT path, extraction FROM file_state WHERE repo=? AND path IN ({','.join('?' * len(part))})",
                (repo, *part))
            out.update({r[0]: self._decode(repo, r[0], r[1]) for r in rows})
        return out

    def _decode(self, repo: str, path: str, blob: bytes) -> FileExtraction:
        key, h = (self._key, repo, path), hash(blob)
        hit = _DECODED.get(key)
        if hit is not None and hit[0] == h:
            return hit[1]
        fx = decode(blob)
        _DECODED[key] = (h, fx)
        return fx

    def save(
        self,
        state: RepoState,
        changed: dict[str, FileExtraction],
        removed: list[str],
        edges_hashes: dict[str, str],
        resolution: ResolveState | None = None,
    ) -> None:
        """Record a successful run in one transaction (with what the resolution looked up,
        when given)."""
        with self.conn:
            if resolution is not None:
                self._save_resolution(state.repo, resolution)
            self.conn.execute(
                "INSERT OR REPLACE INTO repo_state VALUES (?,?,?,?,?,?)",
                (state.repo, state.root, state.extractor_version, state.fingerprint, state.commit_sha,
                 state.updated_at))
            self.conn.executemany(
                "DELETE FROM file_state WHERE repo=? AND path=?", [(state.repo, p) for p in removed])
            self.conn.executemany(
                "INSERT OR REPLACE INTO file_state VALUES (?,?,?,?,?)",
                [(state.repo, p, fx.file.content_hash, edges_hashes.get(p, ""), encode(fx))
                 for p, fx in changed.items()])
            self.conn.executemany(
                "UPDATE file_state SET edges_hash=? WHERE repo=? AND path=?",
                [(h, state.repo, p) for p, h in edges_hashes.items() if p not in changed])

    def _save_resolution(self, repo: str, rs: ResolveState) -> None:
        c = self.conn
        if rs.full:
            c.execute("DELETE FROM resolve_deps WHERE repo=?", (repo,))
            c.execute("DELETE FROM resolve_files WHERE repo=?", (repo,))
        else:
            gone = [*rs.files, *rs.removed]
            for p, keys in self.resolve_file_deps(repo, gone).items():
                c.executemany("DELETE FROM resolve_deps WHERE repo=? AND key=? AND path=?", [(repo, k, p) for k in keys])
            c.executemany("DELETE FROM resolve_files WHERE repo=? AND path=?", [(repo, p) for p in gone])
        c.executemany("INSERT OR IGNORE INTO resolve_deps VALUES (?,?,?)",
                      [(repo, k, p) for p, (keys, _) in rs.files.items() for k in keys])
        c.executemany("INSERT INTO resolve_files VALUES (?,?,?,?)",
                      [(repo, p, json.dumps(counts), zlib.compress(_KEYS_SEP.join(keys).encode(), 1))
                       for p, (keys, counts) in rs.files.items()])
        c.execute("INSERT OR REPLACE INTO resolve_repo VALUES (?,?)",
                  (repo, zlib.compress(json.dumps(rs.blob, separators=(",", ":")).encode(), 1)))

    def resolve_blob(self, repo: str) -> dict[str, Any] | None:
        """The repo-level resolution state of the last run, or None (codegraph.indexer.affected)."""
        row = self.conn.execute("SELECT blob FROM resolve_repo WHERE repo=?", (repo,)).fetchone()
        return json.loads(zlib.decompress(row[0])) if row else None

    def resolve_dependents(self, repo: str, keys: list[str]) -> set[str]:
        """Paths whose last resolution looked up one of ``keys``."""
        out: set[str] = set()
        for i in range(0, len(keys), 500):
            part = keys[i:i + 500]
            out.update(r[0] for r in self.conn.execute(
                f"SELECT DISTINCT path FROM resolve_deps WHERE repo=? AND key IN ({','.join('?' * len(part))})",
                (repo, *part)))
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
        """path -> the lookup keys its last resolution made."""
        return {p: [k for k in zlib.decompress(b).decode().split(_KEYS_SEP) if k]
                for p, b in self._resolve_rows(repo, paths, "deps")}

    def resolve_counts(self, repo: str, paths: set[str] | list[str]) -> dict[str, dict[str, int]]:
        """path -> resolution counts of its references in the last run."""
        return {p: json.loads(c) for p, c in self._resolve_rows(repo, list(paths), "counts")}

    def save_snapshot_symbols(self, repo: str, taken_at: str, qualified_names: list[str]) -> None:
        blob = zlib.compress("\n".join(sorted(set(qualified_names))).encode(), 6)
        with self.conn:
            self.conn.execute("INSERT OR REPLACE INTO snapshot_symbols VALUES (?,?,?)", (repo, taken_at, blob))

    def snapshot_symbols(self, repo: str, taken_at: str) -> set[str] | None:
        row = self.conn.execute(
            "SELECT symbols FROM snapshot_symbols WHERE repo=? AND taken_at=?", (repo, taken_at)).fetchone()
        return set(zlib.decompress(row[0]).decode().split("\n")) - {""} if row else None

    def forget(self, repo: str) -> None:
        with self.conn:
            self.conn.execute("DELETE FROM file_state WHERE repo=?", (repo,))
            self.conn.execute("DELETE FROM repo_state WHERE repo=?", (repo,))
            for table in ("resolve_deps", "resolve_files", "resolve_repo"):
                self.conn.execute(f"DELETE FROM {table} WHERE repo=?", (repo,))

    def close(self) -> None:
        self.conn.close()

"""Embedded GraphStore on Python's sqlite3 (WAL mode): the zero-setup default backend.

Two tables: ``nodes`` (uid, label, repo, a few indexed key columns, JSON props) and
``edges`` (type, source uid, target uid, evidence file/line, resolution, JSON extra).
Readers use their own connection per thread, so a read never waits for a write (WAL).
Semantics are those of ``codegraph.core.graph_store.GraphStore``; the contract tests
run the same module against this backend and Neo4j.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import Any

from codegraph.core import wal_checkpoint
from codegraph.core.errors import StoreUnavailable, Unsupported
from codegraph.core.graph_rows import EdgeRow, edge_rows, file_row, node_row, symbol_row
from codegraph.core.models import (
    DECLARES,
    DERIVED_EDGES,
    FILE,
    IN_REPO,
    REPO,
    STUB,
    SYMBOL,
    Edge,
    EdgeHit,
    FileDiff,
    FileImport,
    Node,
    RepoRecord,
    file_uid,
    repo_uid,
    uid_kind,
)
from codegraph.core.sqlite_rows import insert_rows

SCHEMA = """
CREATE TABLE IF NOT EXISTS nodes (
  uid TEXT PRIMARY KEY,
  label TEXT NOT NULL,
  repo TEXT NOT NULL,
  name TEXT,
  qualified_name TEXT,
  path TEXT,
  props TEXT NOT NULL
);
DROP INDEX IF EXISTS nodes_label_repo;
CREATE INDEX IF NOT EXISTS nodes_label_repo_lang ON nodes(label, repo, json_extract(props,'$.language'));
CREATE INDEX IF NOT EXISTS nodes_repo_path ON nodes(repo, path);
CREATE INDEX IF NOT EXISTS nodes_qn ON nodes(qualified_name);
CREATE INDEX IF NOT EXISTS nodes_name ON nodes(name);
"""
# nodes_label_repo_lang (it replaced nodes_label_repo) covers the GROUP BY queries of
# ``counts``, which every run makes once (docs/DESIGN.md#refresh).
EDGES = """
CREATE TABLE IF NOT EXISTS edges (
  id INTEGER PRIMARY KEY,
  type TEXT NOT NULL,
  source TEXT NOT NULL,
  target TEXT NOT NULL,
  repo TEXT NOT NULL,
  file TEXT NOT NULL DEFAULT '',
  line INTEGER NOT NULL DEFAULT 0,
  resolution TEXT NOT NULL DEFAULT '',
  extra TEXT NOT NULL DEFAULT '{}',
  UNIQUE(source, type, target, file, line)
);
CREATE INDEX IF NOT EXISTS edges_target ON edges(target, type);
CREATE INDEX IF NOT EXISTS edges_repo_type_file ON edges(repo, type, file);
"""
# Three indexes per edge row (docs/DESIGN.md#backends): the key, led by the source (it
# serves every look-up by source: neighbours "out", the structural deletes, prune), the
# target's (neighbours "in": callers, impact), and (repo, type, file) for the per-file
# deletes of a run (repo, type IN, file IN) and the per-type GROUP BY of ``counts``.
# Layout 1 (user_version 0) had the key led by the type plus (source, type), (repo, file)
# and (repo, type): five, each ~1 us of CPU per edge written and ~6 MB on the stdlib.
LAYOUT = 2  # PRAGMA user_version of graph.db
_EDGE_COLS = "id,type,source,target,repo,file,line,resolution,extra"

_DERIVED = tuple(DERIVED_EDGES)
_DERIVED_SQL = ",".join("?" * len(_DERIVED))
BATCH = 500  # uids per IN (...) list
FILES_PER_TX = 200  # import_files: files per write transaction


def _chunks(seq: Sequence[Any], n: int = BATCH) -> Iterator[Sequence[Any]]:
    for i in range(0, len(seq), n):
        yield seq[i:i + n]


def _q(n: int) -> str:
    return ",".join("?" * n)


def _statements(script: str) -> list[str]:
    return [st.strip() for st in script.split(";") if st.strip()]


_SOURCE, _TARGET = itemgetter(1), itemgetter(2)  # of an edge row
_INSERT_EDGE = "INSERT OR IGNORE INTO edges(type,source,target,repo,file,line,resolution,extra) VALUES"
_UPSERT_NODE = ("INSERT INTO nodes(uid,label,repo,name,qualified_name,path,props) VALUES",
                "ON CONFLICT(uid) DO UPDATE SET label=excluded.label, repo=excluded.repo, name=excluded.name, "
                "qualified_name=excluded.qualified_name, path=excluded.path, props=excluded.props")
_INSERT_EDGE_CHECKED = ("INSERT OR IGNORE INTO edges(type,source,target,repo,file,line,resolution,extra) "
                        "SELECT ?1,?2,?3,?4,?5,?6,?7,?8 WHERE EXISTS(SELECT 1 FROM nodes WHERE uid=?2) "
                        "AND EXISTS(SELECT 1 FROM nodes WHERE uid=?3)")


def _to_node(row: sqlite3.Row | tuple[Any, ...]) -> Node:
    return Node(row[0], row[1], json.loads(row[2]))


def _to_edge(row: sqlite3.Row | tuple[Any, ...]) -> Edge:
    extra = row[6]
    return Edge(row[0], row[1], row[2], row[3], row[4], row[5], json.loads(extra) if extra and extra != "{}" else {})


class EmbeddedGraphStore:
    """GraphStore on one sqlite file. ``path`` is created with its folder if missing.

    Raises StoreUnavailable (naming CODEGRAPH_HOME) when the file cannot be opened.
    """

    backend = "embedded"

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._local = threading.local()
        self._write_lock = threading.RLock()  # re-entered by a write after commit_run inside atomic
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.ensure_schema()
        except (OSError, sqlite3.Error) as e:
            raise StoreUnavailable(f"cannot open the embedded graph at {self.path}: {e} (check CODEGRAPH_HOME)") from e

    # -- connections ------------------------------------------------------------
    def _conn(self) -> sqlite3.Connection:
        c = getattr(self._local, "conn", None)
        if c is None:
            c = sqlite3.connect(self.path, timeout=60, isolation_level=None, check_same_thread=False)
            c.execute("PRAGMA journal_mode=WAL")
            c.execute("PRAGMA synchronous=NORMAL")
            c.execute("PRAGMA foreign_keys=OFF")
            c.execute("PRAGMA cache_size=-65536")
            # SQLite's own lower() folds ASCII only: find_nodes would miss "Ελληνικά".
            c.create_function("lower", 1, lambda v: v.lower() if isinstance(v, str) else v, deterministic=True)
            self._local.conn = c
        return c

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        c = self._conn()
        if getattr(self._local, "in_run", False):  # inside atomic(): part of the run's transaction
            yield c
            return
        with self._write_lock:
            c.execute("BEGIN IMMEDIATE")
            self._local.live = set()
            try:
                yield c
            except BaseException:
                self._local.live = None
                c.execute("ROLLBACK")
                raise
            self._local.live = None
            c.execute("COMMIT")

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """One transaction for a whole run (docs/hardening.md, "Completeness"): every write
        of this thread inside the block is part of it, other connections keep reading the
        last committed graph until it commits, and a run that raises or is killed leaves
        the graph as it was. Nested calls join the outer one."""
        if getattr(self._local, "in_run", False):
            yield
            return
        c = self._conn()
        with self._write_lock:
            c.execute("BEGIN IMMEDIATE")
            self._local.in_run = True
            self._local.live = set()
            try:
                yield
            except BaseException:
                if self._local.in_run:  # not when commit_run ended it already
                    self._local.in_run = False
                    self._local.live = None
                    c.execute("ROLLBACK")
                raise
            if self._local.in_run:
                self._local.in_run = False
                self._local.live = None
                c.execute("COMMIT")

    def commit_run(self, checkpoint: bool = True) -> None:
        """Commit the run's transaction (``atomic``) of this thread now, before its block
        ends: the rest of the block writes in transactions of its own. Nothing when no run
        is open. The pipeline commits the graph here before the indexer state
        (docs/DESIGN.md#refresh). ``checkpoint=False``: the commit only appends to the WAL
        (committed, readers see it) and leaves copying it into the database file to
        ``checkpoint()``; by default SQLite's autocheckpoint does it inside the COMMIT."""
        if getattr(self._local, "in_run", False):
            self._local.in_run = False
            self._local.live = None
            c = self._conn()
            if checkpoint:
                c.execute("COMMIT")
                return
            c.execute("PRAGMA wal_autocheckpoint=0")
            try:
                c.execute("COMMIT")
            finally:
                c.execute("PRAGMA wal_autocheckpoint=1000")  # SQLite's default again

    def checkpoint(self) -> None:
        """Copy the committed WAL into the database file, then truncate it if nobody reads
        or writes (``codegraph.core.wal_checkpoint.checkpoint``, on a connection of its own,
        so any thread may call it). Raises sqlite3.Error as the PASSIVE checkpoint does."""
        wal_checkpoint.checkpoint(self.path)

    def ensure_schema(self) -> None:
        """Create the tables, or bring a file of an older layout to ``LAYOUT`` in one
        transaction (the edges copied into the new table, ids and rows as they were)."""
        c = self._conn()
        if c.execute("PRAGMA user_version").fetchone()[0] == LAYOUT:
            return
        with self._write_lock:
            c.execute("BEGIN IMMEDIATE")
            try:
                if c.execute("PRAGMA user_version").fetchone()[0] != LAYOUT:  # or another process did it
                    self._create(c)
            except BaseException:
                c.execute("ROLLBACK")
                raise
            c.execute("COMMIT")

    @staticmethod
    def _create(c: sqlite3.Connection) -> None:
        for stmt in _statements(SCHEMA):
            c.execute(stmt)
        table, *indexes = _statements(EDGES)
        old = c.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='edges'").fetchone()
        if old:  # layout 1: its table and five indexes go, after their rows were copied
            c.execute("ALTER TABLE edges RENAME TO edges_layout1")
        c.execute(table)
        if old:
            c.execute(f"INSERT INTO edges({_EDGE_COLS}) SELECT {_EDGE_COLS} FROM edges_layout1 ORDER BY id")
            c.execute("DROP TABLE edges_layout1")
        for stmt in indexes:
            c.execute(stmt)
        c.execute(f"PRAGMA user_version={LAYOUT}")

    def close(self) -> None:
        c = getattr(self._local, "conn", None)
        if c is not None:
            c.close()
            self._local.conn = None

    # -- writes -----------------------------------------------------------------
    # ``self._local.live``: the uids of the nodes this thread's open write transaction
    # upserted and has not deleted since (None outside one). The transaction holds the
    # write lock, so no other connection can delete them meanwhile: an edge between two
    # of them needs no look-up of its ends (``_insert_edges``; the two look-ups were ~1.6
    # of the ~10 us of CPU an edge row costs).
    def upsert_repo(self, repo: RepoRecord) -> None:
        with self._tx() as c:
            self._upsert(c, [node_row(repo.to_node())])

    def _upsert(self, c: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
        """Insert or update node rows (``_node_row``'s shape)."""
        insert_rows(c, *_UPSERT_NODE, rows)
        live = getattr(self._local, "live", None)
        if live is not None:
            live.update([r[0] for r in rows])

    def _insert_edges(self, c: sqlite3.Connection, rows: list[EdgeRow]) -> int:
        """Insert edge rows (type, source, target, repo, file, line, resolution, extra JSON)
        whose two ends exist (the others are left out, as a row whose key exists is):
        the number inserted. Rows go in in their order (runs of rows with both ends known,
        and runs of others, each with its statement)."""
        live = getattr(self._local, "live", None) or ()
        before = c.total_changes
        if live and live.issuperset(map(_SOURCE, rows)) and live.issuperset(map(_TARGET, rows)):
            # Every end live (a full index): the one run the grouping below makes, no call per row.
            insert_rows(c, _INSERT_EDGE, "", rows)
            return c.total_changes - before
        for known, run in groupby(rows, key=lambda r: r[1] in live and r[2] in live):
            if known:
                insert_rows(c, _INSERT_EDGE, "", list(run))
            else:
                c.executemany(_INSERT_EDGE_CHECKED, run)
        return c.total_changes - before

    def _delete_nodes(self, c: sqlite3.Connection, uids: Sequence[str]) -> int:
        n = 0
        for part in _chunks(list(uids)):
            q = _q(len(part))
            c.execute(f"DELETE FROM edges WHERE source IN ({q})", part)
            c.execute(f"DELETE FROM edges WHERE target IN ({q})", part)
            n += c.execute(f"DELETE FROM nodes WHERE uid IN ({q})", part).rowcount
        live = getattr(self._local, "live", None)
        if live is not None:
            live.difference_update(uids)
        return n

    def import_files(self, repo: str, files: list[FileImport],
                     progress: Callable[[int, int], None] | None = None) -> dict[str, FileDiff]:
        # Phase 1 upserts every file of the call, phase 2 deletes what none declares: a
        # symbol that moved between two files of the call keeps its node and its incoming
        # edges whatever the order of the files (docs/DESIGN.md#import).
        by_path = {fi.file.path: fi for fi in files}  # a path given twice: the last one wins
        items = list(by_path.values())
        ruid = repo_uid(repo)
        existing: dict[str, set[str]] = {p: set() for p in by_path}
        # ``+label``: by (repo, path) (nodes_repo_path), not (label, repo), which read every
        # symbol of the repo per call: quadratic over a stream load (Django ~0.04 CPU s).
        for paths in _chunks(list(by_path)):
            for uid, path in self._conn().execute(
                    f"SELECT uid, path FROM nodes WHERE +label=? AND repo=? AND path IN ({_q(len(paths))})",
                    (SYMBOL, repo, *paths)):
                existing[path].add(uid)
        wanted: dict[str, set[str]] = {}  # path -> uids of the symbols it declares (the rows' own)
        for start in range(0, len(items), FILES_PER_TX):
            part = items[start:start + FILES_PER_TX]
            paths = [fi.file.path for fi in part]
            fuids = [file_uid(fi.file.repo, fi.file.path) for fi in part]
            rows: list[tuple[Any, ...]] = []
            edges: list[EdgeRow] = []
            for fi, fuid in zip(part, fuids, strict=True):
                path = fi.file.path
                rows.append(file_row(fi.file))
                syms = list(map(symbol_row, fi.symbols))
                rows += syms
                wanted[path] = {r[0] for r in syms}
                edges.append((IN_REPO, fuid, ruid, repo, path, 0, "", "{}"))
                edges += [(DECLARES, fuid, r[0], repo, path, s.line, "", "{}")
                          for s, r in zip(fi.symbols, syms, strict=True)]
            # The part's files at once, rows in the order one file at a time wrote them:
            # their derived edges go (resolution writes them again), their nodes are
            # upserted, their IN_REPO / DECLARES edges replaced.
            with self._tx() as c:
                c.execute(f"DELETE FROM edges WHERE repo=? AND file IN ({_q(len(paths))}) AND type IN ({_DERIVED_SQL})",
                          (repo, *paths, *_DERIVED))
                self._upsert(c, rows)
                c.execute(f"DELETE FROM edges WHERE source IN ({_q(len(fuids))}) AND type IN (?,?)",
                          (*fuids, IN_REPO, DECLARES))
                self._insert_edges(c, edges)
            if progress:
                progress(min(start + FILES_PER_TX, len(items)), len(items))
        declared = set().union(*wanted.values()) if wanted else set()
        gone = sorted({u for olds in existing.values() for u in olds} - declared)
        if gone:
            with self._tx() as c:
                self._delete_nodes(c, gone)
        return {p: FileDiff(added=len(wanted[p] - existing[p]), updated=len(wanted[p] & existing[p]),
                            removed=len(existing[p] - declared)) for p in by_path}

    def remove_files(self, repo: str, paths: list[str]) -> int:
        removed = 0
        with self._tx() as c:
            for part in _chunks(paths):
                q = _q(len(part))
                uids = [r[0] for r in c.execute(
                    f"SELECT uid FROM nodes WHERE repo=? AND path IN ({q}) AND label IN (?,?)",
                    (repo, *part, FILE, SYMBOL))]
                c.execute(f"DELETE FROM edges WHERE repo=? AND file IN ({q}) AND type IN ({_DERIVED_SQL})",
                          (repo, *part, *_DERIVED))
                removed += sum(1 for u in uids if uid_kind(u) == "file")
                self._delete_nodes(c, uids)
        return removed

    def upsert_nodes(self, nodes: list[Node]) -> None:
        with self._tx() as c:
            self._upsert(c, [node_row(n) for n in nodes])

    def replace_edges(self, repo: str, files: list[str], edges: list[Edge]) -> int:
        with self._tx() as c:
            for part in _chunks(files):
                c.execute(f"DELETE FROM edges WHERE repo=? AND file IN ({_q(len(part))}) AND type IN ({_DERIVED_SQL})",
                          (repo, *part, *_DERIVED))
            return self._insert_edges(c, edge_rows(repo, edges))

    def delete_nodes(self, uids: list[str]) -> int:
        with self._tx() as c:
            return self._delete_nodes(c, uids)

    def prune_unreferenced(self, repo: str, labels: Iterable[str]) -> int:
        labels = list(labels)
        with self._tx() as c:
            uids = [r[0] for r in c.execute(
                f"SELECT uid FROM nodes n WHERE repo=? AND label IN ({_q(len(labels))}) "
                "AND NOT EXISTS(SELECT 1 FROM edges WHERE target=n.uid) "
                "AND NOT EXISTS(SELECT 1 FROM edges WHERE source=n.uid)", (repo, *labels))]
            return self._delete_nodes(c, uids)

    def delete_edges(self, keys: list[tuple[str, str, str, str, int]]) -> int:
        with self._tx() as c:
            before = c.total_changes
            c.executemany("DELETE FROM edges WHERE type=? AND source=? AND target=? AND file=? AND line=?",
                          [tuple(k) for k in keys])
            return c.total_changes - before

    def replace_cross_repo_edges(self, repo: str, remove: list[Edge], create: list[Edge]) -> int:
        with self._tx() as c:
            c.execute("DELETE FROM edges WHERE repo=? AND resolution='cross_repo'", (repo,))
            c.executemany("DELETE FROM edges WHERE type=? AND source=? AND target=? AND file=? AND line=?",
                          [e.key() for e in remove])
            return self._insert_edges(c, edge_rows(repo, create))

    def delete_repo(self, repo: str) -> None:
        with self._tx() as c:
            # Edges other repos hold into this one (cross-repo links) go too: no dangling edge.
            c.execute("DELETE FROM edges WHERE repo=?", (repo,))
            c.execute("DELETE FROM edges WHERE target IN (SELECT uid FROM nodes WHERE repo=?)", (repo,))
            c.execute("DELETE FROM edges WHERE source IN (SELECT uid FROM nodes WHERE repo=?)", (repo,))
            c.execute("DELETE FROM nodes WHERE repo=?", (repo,))
            live = getattr(self._local, "live", None)
            if live is not None:
                live.clear()

    # -- reads ------------------------------------------------------------------
    def _select_nodes(self, where: str, params: Sequence[Any]) -> list[Node]:
        return [_to_node(r) for r in self._conn().execute(f"SELECT uid,label,props FROM nodes WHERE {where}", params)]

    def get_nodes(self, uids: list[str]) -> dict[str, Node]:
        out: dict[str, Node] = {}
        for part in _chunks(list(dict.fromkeys(uids))):
            for n in self._select_nodes(f"uid IN ({_q(len(part))})", part):
                out[n.uid] = n
        return out

    def _symbols_by(self, column: str, keys: list[str], repo: str | None) -> dict[str, list[Node]]:
        out: dict[str, list[Node]] = defaultdict(list)
        for part in _chunks(list(dict.fromkeys(keys))):
            where = f"label=? AND {column} IN ({_q(len(part))})" + (" AND repo=?" if repo else "")
            params = [SYMBOL, *part] + ([repo] if repo else [])
            for n in self._select_nodes(where + " ORDER BY uid", params):
                out[n.props[column]].append(n)
        return dict(out)

    def symbols_by_qualified_name(self, qualified_names: list[str], repo: str | None = None) -> dict[str, list[Node]]:
        return self._symbols_by("qualified_name", qualified_names, repo)

    def symbols_by_name(self, names: list[str], repo: str | None = None) -> dict[str, list[Node]]:
        return self._symbols_by("name", names, repo)

    def nodes_in_files(self, repo: str, paths: list[str]) -> dict[str, list[Node]]:
        out: dict[str, list[Node]] = defaultdict(list)
        for part in _chunks(list(dict.fromkeys(paths))):
            # ``+label``: by (repo, path), as import_files looks them up
            for n in self._select_nodes(f"+label=? AND repo=? AND path IN ({_q(len(part))})", [SYMBOL, repo, *part]):
                out[n.props["file"]].append(n)
        for v in out.values():
            v.sort(key=lambda n: (n.props.get("line", 0), n.uid))
        return dict(out)

    def find_nodes(self, text: str, labels: list[str] | None = None, repo: str | None = None, limit: int = 20) -> list[Node]:
        t = text.strip().lower()
        if not t:
            return []
        esc = t.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        labels = labels or [SYMBOL, FILE, STUB, "Endpoint", "Table", "Topic"]
        cond = f"label IN ({_q(len(labels))})" + (" AND repo=?" if repo else "")
        params: list[Any] = [*labels] + ([repo] if repo else [])
        # Paths match on File nodes only: a symbol whose file path contains the text is
        # not a match for it (its file is).
        sql = f"""
        WITH cand AS (
          SELECT uid, label, props, lower(name) AS lname, lower(qualified_name) AS lqn,
                 CASE WHEN label='File' THEN lower(path) END AS lpath
          FROM nodes WHERE {cond.replace('?', '{}')})
        SELECT uid,label,props, CASE
          WHEN lname=:t OR lqn=:t OR lpath=:t THEN 0
          WHEN lqn LIKE :suffix ESCAPE '\\' OR lpath LIKE :suffix ESCAPE '\\' THEN 1
          WHEN lname LIKE :prefix ESCAPE '\\' OR lqn LIKE :prefix ESCAPE '\\' OR lpath LIKE :prefix ESCAPE '\\' THEN 2
          ELSE 3 END AS rank
        FROM cand WHERE lname LIKE :sub ESCAPE '\\' OR lqn LIKE :sub ESCAPE '\\' OR lpath LIKE :sub ESCAPE '\\'
        ORDER BY rank, length(coalesce(lqn, lpath, lname)), uid LIMIT :limit"""
        named = {f"p{i}": v for i, v in enumerate(params)}
        sql = sql.format(*[f":p{i}" for i in range(len(params))])
        rows = self._conn().execute(sql, {
            "t": t, "suffix": f"%.{esc}" if "." in t or "/" in t else f"%/{esc}",
            "prefix": f"{esc}%", "sub": f"%{esc}%", "limit": limit, **named})
        return [_to_node(r[:3]) for r in rows]

    def neighbours(
        self, uids: list[str], direction: str, edge_types: list[str] | None = None, limit_per_node: int | None = None
    ) -> dict[str, list[EdgeHit]]:
        if direction not in ("in", "out"):
            raise ValueError("direction must be 'in' or 'out'")
        key, other = ("target", "source") if direction == "in" else ("source", "target")
        out: dict[str, list[EdgeHit]] = defaultdict(list)
        types_sql = f" AND e.type IN ({_q(len(edge_types))})" if edge_types else ""
        # One Node per uid: a caller with many call sites comes back once per edge, and
        # decoding its props once per edge was most of a wide impact walk's time.
        seen: dict[str, Node] = {}
        for part in _chunks(list(dict.fromkeys(uids))):
            rows = self._conn().execute(
                f"SELECT e.type,e.source,e.target,e.file,e.line,e.resolution,e.extra, n.uid,n.label,n.props "
                f"FROM edges e JOIN nodes n ON n.uid=e.{other} WHERE e.{key} IN ({_q(len(part))}){types_sql} "
                f"ORDER BY e.{key}, e.file, e.line, n.uid",
                [*part, *(edge_types or [])])
            for r in rows:
                anchor = r[2] if direction == "in" else r[1]
                hits = out[anchor]
                if limit_per_node is None or len(hits) < limit_per_node:
                    node = seen.get(r[7])
                    if node is None:
                        node = seen[r[7]] = _to_node(r[7:])
                    hits.append(EdgeHit(_to_edge(r[:7]), node))
        return dict(out)

    def file_hashes(self, repo: str) -> dict[str, str]:
        rows = self._conn().execute(
            "SELECT path, json_extract(props,'$.content_hash') FROM nodes WHERE label=? AND repo=?", (FILE, repo))
        return {r[0]: r[1] or "" for r in rows}

    def repos(self) -> list[Node]:
        return self._select_nodes("label=? ORDER BY uid", [REPO])

    def nodes_by_label(self, label: str, repo: str | None = None, limit: int = 1000, offset: int = 0) -> list[Node]:
        where = "label=?" + (" AND repo=?" if repo else "")
        return self._select_nodes(where + " ORDER BY uid LIMIT ? OFFSET ?",
                                  [label] + ([repo] if repo else []) + [limit, offset])

    def stubs_ranked(self, repo: str | None = None, limit: int = 50, offset: int = 0) -> list[tuple[Node, int]]:
        where = "n.label=?" + (" AND n.repo=?" if repo else "")
        rows = self._conn().execute(
            f"SELECT n.uid,n.label,n.props,(SELECT count(*) FROM edges e WHERE e.target=n.uid) AS refs "
            f"FROM nodes n WHERE {where} ORDER BY refs DESC, n.uid LIMIT ? OFFSET ?",
            [STUB] + ([repo] if repo else []) + [limit, offset])
        return [(_to_node(r[:3]), r[3]) for r in rows]

    def stub_reference_counts(self, repo: str | None = None) -> dict[str, int]:
        """repo -> edges ending at an UnresolvedSymbol of that repo (0 for a repo whose
        stubs no edge reaches): what summing ``stubs_ranked``'s pages gives, in one query."""
        w, p = (" AND n.repo=?", [repo]) if repo else ("", [])
        return dict(self._conn().execute(
            f"SELECT n.repo, count(e.target) FROM nodes n LEFT JOIN edges e ON e.target=n.uid WHERE n.label=?{w} "
            "GROUP BY n.repo", [STUB, *p]).fetchall())

    def counts(self, repo: str | None = None) -> dict[str, Any]:
        c = self._conn()
        w, p = (" WHERE repo=?", [repo]) if repo else ("", [])
        # Per label on the (label, repo, ...) index: a GROUP BY on repo read every row of it
        # (13 -> 3 ms on the stdlib's 21k nodes).
        nodes = {k: v for k, v in c.execute(
            f"SELECT l.label, (SELECT count(*) FROM nodes n WHERE n.label=l.label{' AND n.repo=?' if repo else ''}) "
            "FROM (SELECT DISTINCT label FROM nodes) l", p).fetchall() if v}
        edges = dict(c.execute(f"SELECT type, count(*) FROM edges{w} GROUP BY type", p).fetchall())
        fw = " AND repo=?" if repo else ""
        langs = dict(c.execute(
            f"SELECT json_extract(props,'$.language'), count(*) FROM nodes WHERE label=?{fw} GROUP BY 1", [FILE, *p]))
        sym_langs = dict(c.execute(
            f"SELECT json_extract(props,'$.language'), count(*) FROM nodes WHERE label=?{fw} GROUP BY 1",
            [SYMBOL, *p]))
        status = dict(c.execute(
            f"SELECT json_extract(props,'$.coverage_status'), count(*) FROM nodes WHERE label=?{fw} GROUP BY 1",
            [FILE, *p]))
        errors = c.execute(
            f"SELECT count(*) FROM nodes WHERE label=?{fw} AND json_extract(props,'$.had_error')", [FILE, *p]
        ).fetchone()[0]
        return {"nodes": nodes, "edges": edges, "languages": langs, "symbols_by_language": sym_langs,
                "coverage": status, "parse_errors": errors, "partial_files": status.get("partial", 0)}

    def verify(self, repo: str | None = None) -> dict[str, int]:
        c = self._conn()
        fw, p = (" AND n.repo=?", [repo]) if repo else ("", [])
        orphan_files = c.execute(
            f"SELECT count(*) FROM nodes n WHERE n.label=?{fw} AND NOT EXISTS("
            "SELECT 1 FROM edges e WHERE e.source=n.uid AND e.type=?)", [FILE, *p, IN_REPO]).fetchone()[0]
        orphan_symbols = c.execute(
            f"SELECT count(*) FROM nodes n WHERE n.label=?{fw} AND NOT EXISTS("
            "SELECT 1 FROM edges e WHERE e.target=n.uid AND e.type=?)", [SYMBOL, *p, DECLARES]).fetchone()[0]
        ew, ep = (" AND e.repo=?", [repo]) if repo else ("", [])
        dangling = c.execute(
            f"SELECT count(*) FROM edges e WHERE (NOT EXISTS(SELECT 1 FROM nodes WHERE uid=e.source) "
            f"OR NOT EXISTS(SELECT 1 FROM nodes WHERE uid=e.target)){ew}", ep).fetchone()[0]
        return {"orphan_files": orphan_files, "orphan_symbols": orphan_symbols, "dangling_edges": dangling}

    def run_cypher(self, query: str, params: dict[str, Any], limit: int) -> tuple[list[dict[str, Any]], int]:
        raise Unsupported(
            "raw Cypher needs Neo4j: the embedded graph has no Cypher engine "
            "(run `make services` and set CODEGRAPH_GRAPH=bolt://127.0.0.1:7687)")

"""GraphStore on a Neo4j 5 server over Bolt (``CODEGRAPH_GRAPH=bolt://host:7687``).

Storage layout:
- every node has the label ``Entity`` (unique ``uid``) plus its own label from
  ``models.NODE_LABELS``; key and lookup properties (``NATIVE_PROPS``) are real Neo4j
  properties (for Cypher and indexes), the rest (signature, docstring, nested dicts,
  ``None``...) is JSON in ``_json``, so every backend returns exactly the props it was given;
- every edge is a relationship of its ``models.EDGE_TYPES`` type with ``repo``, ``file``,
  ``line``, ``resolution`` and ``extra`` (JSON string; both left out when empty); derived edges are found by their
  evidence (``repo``, ``file``) through one relationship index per type.

Writes run in explicit write transactions retried with exponential backoff (tenacity) on
transient errors only; reads run in read transactions. ``import_files`` applies the
file-scoped diff of docs/DESIGN.md#import to a whole import, many files per transaction, in
two phases (upsert everything, then delete what no file declares; see ``import_files``). A server that does not answer raises StoreUnavailable
naming CODEGRAPH_GRAPH; a failed transaction is rolled back whole, so nothing stored is lost.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

import neo4j
from neo4j.exceptions import (
    AuthError,
    ClientError,
    DriverError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from codegraph.core import neo4j_load
from codegraph.core.cypher_guard import READ_PROCEDURES, check_read_only
from codegraph.core.errors import BadInput, ReadOnlyViolation, StoreUnavailable
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
    repo_uid,
)

T = TypeVar("T")
ENTITY = "Entity"  # shared label of every node: one uid constraint serves every lookup
ROWS_PER_QUERY = 5000  # UNWIND batch size: big enough to amortise a round trip, small for the heap
SYMBOLS_PER_TX = 5000  # import_files: files are grouped until this many symbols per transaction
FILES_PER_TX = 500
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# (label, key properties) of the composite uniqueness constraints (docs/DESIGN.md#graph-model).
NODE_KEYS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (REPO, ("name",)),
    (FILE, ("repo", "path")),
    (SYMBOL, ("repo", "qualified_name", "signature_hash")),
    (STUB, ("repo", "target_identifier")),
    ("Endpoint", ("repo", "method", "path_template")),
    ("Table", ("repo", "name")),
    ("Topic", ("repo", "name")),
    ("Issue", ("repo", "number")),
    ("CountSnapshot", ("repo", "taken_at")),
)
FULLTEXT_INDEX = "codegraph_names"


def _schema_statements() -> list[str]:
    s = [f"CREATE CONSTRAINT entity_uid IF NOT EXISTS FOR (n:{ENTITY}) REQUIRE n.uid IS UNIQUE",
         f"CREATE INDEX entity_repo IF NOT EXISTS FOR (n:{ENTITY}) ON (n.repo)"]
    for label, keys in NODE_KEYS:
        props = ", ".join(f"n.{k}" for k in keys)
        s.append(f"CREATE CONSTRAINT {label.lower()}_key IF NOT EXISTS FOR (n:{label}) REQUIRE ({props}) IS UNIQUE")
    s += [
        f"CREATE INDEX symbol_repo_name IF NOT EXISTS FOR (n:{SYMBOL}) ON (n.repo, n.name)",
        f"CREATE INDEX symbol_repo_file IF NOT EXISTS FOR (n:{SYMBOL}) ON (n.repo, n.file)",
        f"CREATE INDEX symbol_name IF NOT EXISTS FOR (n:{SYMBOL}) ON (n.name)",
        f"CREATE INDEX symbol_qualified_name IF NOT EXISTS FOR (n:{SYMBOL}) ON (n.qualified_name)",
        f"CREATE FULLTEXT INDEX {FULLTEXT_INDEX} IF NOT EXISTS FOR (n:{SYMBOL}|{FILE}) "
        "ON EACH [n.name, n.qualified_name, n.path]",
    ]
    # Derived edges are deleted by evidence (repo, file) on every re-import.
    s += [f"CREATE INDEX rel_{t.lower()}_evidence IF NOT EXISTS FOR ()-[r:{t}]-() ON (r.repo, r.file)"
          for t in DERIVED_EDGES]
    return s


def _ident(name: str) -> str:
    """A label or relationship type, checked because Cypher cannot take them as parameters."""
    if not _IDENT.match(name):
        raise ValueError(f"not a valid label or relationship type: {name!r}")
    return name


def _chunks(seq: Sequence[T], n: int = ROWS_PER_QUERY) -> Iterator[Sequence[T]]:
    for i in range(0, len(seq), n):
        yield seq[i:i + n]


def _native(v: Any) -> bool:
    """True for values Neo4j stores as a property (scalars, non-empty homogeneous lists)."""
    if isinstance(v, bool | str | float):
        return True
    if isinstance(v, int):
        return -(2**63) <= v < 2**63
    if isinstance(v, list) and v:
        kinds = {type(x) for x in v}
        return len(kinds) == 1 and kinds <= {str, int, float, bool}
    return False


# Properties stored as real Neo4j properties (keys, lookups, counts, Cypher filters).
# Every other prop (signature, docstring, candidates, nested counts, None values...) rides
# in one JSON string ``_json``: each stored property costs write time, and the bulk-load
# goal is tens of thousands of rows per second on two cores.
NATIVE_PROPS = frozenset({
    "repo", "name", "qualified_name", "signature_hash", "path", "file", "line", "end_line", "kind",
    "language", "content_hash", "had_error", "coverage_status", "is_test", "route", "app",
    "target_identifier", "reason", "candidate_count", "method", "path_template", "framework", "broker",
    "number", "title", "state", "url", "taken_at", "commit", "last_commit_sha", "last_imported_at",
    "last_checked_at", "extractor_version",
})


def _flat(n: Node) -> dict[str, Any]:
    """The property map written for ``n``: ``uid``, the NATIVE_PROPS that Neo4j can hold
    as themselves, and everything else as JSON in ``_json`` (see ``_props_of``)."""
    out: dict[str, Any] = {}
    other: dict[str, Any] = {}
    for k, v in n.props.items():
        if k in NATIVE_PROPS and _native(v):
            out[k] = v
        else:
            other[k] = v
    out["uid"] = n.uid
    if other:
        out["_json"] = json.dumps(other, ensure_ascii=False, default=str)
    return out


def _props_of(p: dict[str, Any]) -> dict[str, Any]:
    """Inverse of ``_flat``: exactly the Node.props that were written."""
    out = {k: v for k, v in p.items() if k not in ("uid", "_json")}
    if "_json" in p:
        out.update(json.loads(p["_json"]))
    return out


def _edge_props(repo: str, e: Edge) -> dict[str, Any]:
    # Empty resolution / extra are left out (read back as "" / {}): fewer property writes.
    p: dict[str, Any] = {"repo": repo, "file": e.file, "line": e.line}
    if e.resolution:
        p["resolution"] = e.resolution
    if e.extra:
        p["extra"] = json.dumps(e.extra, ensure_ascii=False, default=str)
    return p


# Node columns returned by read queries: uid, label, exact props.
_NODE_COLS = "n.uid AS uid, [l IN labels(n) WHERE l <> '" + ENTITY + "'][0] AS label, properties(n) AS props"


def _node(uid: str, label: str | None, props: dict[str, Any] | None) -> Node:
    return Node(uid, label or "", _props_of(props or {}))


def _is_transient(e: BaseException) -> bool:
    # ServiceUnavailable is left out on purpose: a dead server must fail fast, not after
    # a minute of backoff. SessionExpired covers a connection lost mid-transaction.
    return isinstance(e, TransientError | SessionExpired)


def _first_line(e: BaseException) -> str:
    """The server's message without its caret diagram: first line, at most 300 characters."""
    msg = getattr(e, "message", None) or str(e)
    line = next((x.strip() for x in str(msg).splitlines() if x.strip()), "")
    return (line[:300] + "...") if len(line) > 300 else line


def _one_line(e: BaseException) -> str:
    msg = " ".join(str(e).split())
    return (msg[:300] + "...") if len(msg) > 300 else msg


# -- read-only guard for run_cypher: layer 1 is the client tokeniser (cypher_guard), layer 2
# the server's own plan of the query (_check_plan), layer 3 the hardened server settings.
_PLAN_REFUSED = ("LoadCSV", "Show", "Terminate", "Administration", "Transaction", "Create", "Merge",
                 "Delete", "DetachDelete", "Set", "Remove", "Foreach")


def _plan_operators(plan: Any) -> Iterator[tuple[str, str]]:
    """(operator type, details) of every operator in an EXPLAIN plan, root first."""
    yield str(plan.get("operatorType", "")), str((plan.get("args") or {}).get("Details") or "")
    for child in plan.get("children") or []:
        yield from _plan_operators(child)


def check_plan(query_type: str | None, plan: Any, database: str) -> None:
    """Refuse (ReadOnlyViolation) a query whose server-side plan is not a plain read:
    query type other than ``r``, an operator that loads, shows, terminates, administers or
    writes, an operator on another database, or a procedure outside READ_PROCEDURES."""
    if query_type != "r":
        raise ReadOnlyViolation(f"refused by the server's plan: query type {query_type!r} is not a read")
    for op, details in _plan_operators(plan or {}):
        name, _, db = op.partition("@")
        if db and db != database:
            raise ReadOnlyViolation(f"refused by the server's plan: {name} runs on database {db}")
        if name.startswith(_PLAN_REFUSED):
            raise ReadOnlyViolation(f"refused by the server's plan: it has a {name} step")
        if name == "ProcedureCall":
            proc = details.split("(", 1)[0].strip().strip("`").lower()
            if not any(proc.startswith(p) if p.endswith(".") else proc == p for p in READ_PROCEDURES):
                raise ReadOnlyViolation(f"refused by the server's plan: procedure {proc} is not on the read-only list")


def _strip_internal(v: Any) -> Any:
    """Drop ``_json`` (the non-native props as one JSON string) from raw query results."""
    if isinstance(v, dict):
        return {k: _strip_internal(x) for k, x in v.items() if k != "_json"}
    if isinstance(v, list | tuple):
        return [_strip_internal(x) for x in v]
    return v


class Neo4jGraphStore:
    """GraphStore on Neo4j 5. ``uri`` like ``bolt://127.0.0.1:7687``.

    Raises StoreUnavailable (naming CODEGRAPH_GRAPH) when the server cannot be reached or
    refuses the credentials. ``files_per_tx``/``symbols_per_tx`` bound how many files
    ``import_files`` diffs per transaction (1 gives one transaction per file).
    """

    backend = "neo4j"

    def __init__(self, uri: str, user: str = "neo4j", password: str = "", database: str = "neo4j",
                 *, files_per_tx: int = FILES_PER_TX, symbols_per_tx: int = SYMBOLS_PER_TX,
                 connection_timeout: float = 5.0) -> None:
        self.uri = uri
        self.database = database
        self.files_per_tx = max(1, files_per_tx)
        self.symbols_per_tx = max(1, symbols_per_tx)
        self._user = user
        self._retry = Retrying(retry=retry_if_exception(_is_transient), reraise=True,
                               wait=wait_exponential(multiplier=0.1, max=5), stop=stop_after_attempt(6))
        try:
            self._driver = neo4j.GraphDatabase.driver(
                uri, auth=(user, password), connection_timeout=connection_timeout,
                max_transaction_retry_time=0, liveness_check_timeout=30, notifications_min_severity="OFF")
        except (ValueError, DriverError) as e:  # malformed URI
            raise StoreUnavailable(f"CODEGRAPH_GRAPH={uri} is not a usable Neo4j address: {_one_line(e)}") from e
        try:
            self._call(lambda: self._driver.verify_connectivity())
            self.ensure_schema()
        except BaseException:
            self._driver.close()
            raise

    # -- plumbing ---------------------------------------------------------------
    def _unavailable(self, e: BaseException) -> StoreUnavailable:
        if isinstance(e, AuthError):
            return StoreUnavailable(
                f"Neo4j at {self.uri} (CODEGRAPH_GRAPH) refused user {self._user!r}: check "
                "CODEGRAPH_NEO4J_USER / CODEGRAPH_NEO4J_PASSWORD (make services writes them to .codegraph/services.env)")
        if isinstance(e, ClientError) and "DatabaseNotFound" in (e.code or ""):
            return StoreUnavailable(f"Neo4j at {self.uri} (CODEGRAPH_GRAPH) has no database {self.database!r}: "
                                    "check CODEGRAPH_NEO4J_DATABASE")
        return StoreUnavailable(
            f"Neo4j at {self.uri} is not answering ({type(e).__name__}: {_one_line(e)}); start it with "
            "`make services` or point CODEGRAPH_GRAPH at a running server")

    def _call(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` with retries on transient errors; map connection failures."""
        try:
            return self._retry(fn)
        except (ServiceUnavailable, SessionExpired, AuthError, OSError) as e:
            raise self._unavailable(e) from e
        except ClientError as e:
            if "DatabaseNotFound" in (e.code or "") or "Security" in (e.code or ""):
                raise self._unavailable(e) from e
            raise
        except DriverError as e:
            raise self._unavailable(e) from e

    def _write(self, work: Callable[[neo4j.Transaction], T]) -> T:
        """Run ``work`` in one write transaction (all or nothing), retried when transient."""
        def attempt() -> T:
            with self._driver.session(database=self.database, default_access_mode=neo4j.WRITE_ACCESS) as s:
                tx = s.begin_transaction()
                try:
                    out = work(tx)
                    tx.commit()
                    return out
                finally:
                    if not tx.closed():
                        tx.rollback()
        return self._call(attempt)

    def _read(self, query: str, **params: Any) -> list[neo4j.Record]:
        """All records of ``query`` from one read transaction."""
        def attempt() -> list[neo4j.Record]:
            with (self._driver.session(database=self.database, default_access_mode=neo4j.READ_ACCESS) as s,
                  s.begin_transaction() as tx):
                return list(tx.run(query, params))
        return self._call(attempt)

    # -- lifecycle --------------------------------------------------------------
    def ensure_schema(self) -> None:
        def attempt() -> None:
            with self._driver.session(database=self.database) as s:
                existing = {r["name"] for r in s.run("SHOW INDEXES YIELD name RETURN name")}
                existing |= {r["name"] for r in s.run("SHOW CONSTRAINTS YIELD name RETURN name")}
                # Schema commands cannot share a transaction with each other: one each.
                for stmt in _schema_statements():
                    name = stmt.split()[2] if stmt.split()[1] in ("CONSTRAINT", "INDEX") else stmt.split()[3]
                    if name in existing:
                        continue
                    try:
                        s.run(stmt).consume()
                    except ClientError as e:
                        # Another process created the same rule between SHOW and CREATE.
                        if "AlreadyExists" not in (e.code or ""):
                            raise
                s.run("CALL db.awaitIndexes(300)").consume()
        self._call(attempt)

    def close(self) -> None:
        self._driver.close()

    # -- writes -----------------------------------------------------------------
    @staticmethod
    def _upsert(tx: neo4j.Transaction, nodes: Iterable[Node]) -> None:
        by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for n in nodes:
            by_label[_ident(n.label)].append({"uid": n.uid, "p": _flat(n)})
        for label, rows in by_label.items():
            for part in _chunks(rows):
                tx.run(f"UNWIND $rows AS row MERGE (n:{ENTITY} {{uid: row.uid}}) SET n:{label}, n = row.p",
                       rows=list(part)).consume()

    @staticmethod
    def _create_edges(tx: neo4j.Transaction, repo: str, edges: Iterable[Edge], merge: bool) -> int:
        """Create edges whose endpoints exist; ``merge`` skips ones already stored."""
        if not merge:  # plain CREATE: parameters as parallel lists (codegraph.core.neo4j_load)
            return neo4j_load.create_edges(tx, repo, edges, ROWS_PER_QUERY)
        by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for e in edges:
            by_type[_ident(e.type)].append({"s": e.source, "t": e.target, "p": _edge_props(repo, e)})
        created = 0
        for etype, rows in by_type.items():
            if merge:
                q = (f"UNWIND $rows AS e MATCH (a:{ENTITY} {{uid: e.s}}) MATCH (b:{ENTITY} {{uid: e.t}}) "
                     f"MERGE (a)-[r:{etype} {{file: e.p.file, line: e.p.line}}]->(b) "
                     "ON CREATE SET r = e.p")
            else:
                q = (f"UNWIND $rows AS e MATCH (a:{ENTITY} {{uid: e.s}}) MATCH (b:{ENTITY} {{uid: e.t}}) "
                     f"CREATE (a)-[r:{etype}]->(b) SET r = e.p")
            for part in _chunks(rows):
                created += tx.run(q, rows=list(part)).consume().counters.relationships_created
        return created

    @staticmethod
    def _delete_derived(tx: neo4j.Transaction, repo: str, files: Sequence[str]) -> int:
        """Delete the derived edges of ``repo`` whose evidence is in ``files``."""
        if not files:
            return 0
        # One subquery per type so that each uses its (repo, file) relationship index.
        parts = " ".join(
            f"CALL {{ MATCH ()-[r:{t}]->() WHERE r.repo = $repo AND r.file IN $files DELETE r }}"
            for t in DERIVED_EDGES)
        deleted = 0
        for part in _chunks(list(files)):
            deleted += tx.run(parts + " RETURN 1", repo=repo, files=list(part)).consume() \
                .counters.relationships_deleted
        return deleted

    @staticmethod
    def _detach_delete(tx: neo4j.Transaction, uids: Sequence[str]) -> int:
        n = 0
        for part in _chunks(list(uids)):
            n += tx.run(f"UNWIND $uids AS u MATCH (n:{ENTITY} {{uid: u}}) DETACH DELETE n",
                        uids=list(part)).consume().counters.nodes_deleted
        return n

    def upsert_repo(self, repo: RepoRecord) -> None:
        self._write(lambda tx: self._upsert(tx, [repo.to_node()]))

    def import_files(self, repo: str, files: list[FileImport],
                     progress: Callable[[int, int], None] | None = None) -> dict[str, FileDiff]:
        """File-scoped diff of a whole import (docs/DESIGN.md#import), several files per
        transaction: first every file of the call is upserted (its derived edges and
        DECLARES replaced), then the symbols these files held that no file of the call
        declares are detach-deleted. A symbol that moves between two files of the call
        keeps its node and incoming edges whatever the order or the batch of the files.
        ``progress(done, total)`` is called after each transaction."""
        by_path = {fi.file.path: fi for fi in files}  # a path given twice: the last one wins
        items = list(by_path.values())
        existing: dict[str, set[str]] = {p: set() for p in by_path}
        for part in _chunks(list(by_path)):
            for r in self._read(f"UNWIND $paths AS p MATCH (s:{SYMBOL}) WHERE s.repo = $repo AND s.file = p "
                                "RETURN p, s.uid AS uid", paths=list(part), repo=repo):
                existing[r["p"]].add(r["uid"])
        # Nothing of the repo stored yet: CREATE, not MERGE (codegraph.core.neo4j_load).
        new = bool(items) and not any(existing.values()) and neo4j_load.repo_is_new(self._read, repo)
        owner = neo4j_load.owners(items) if new else {}
        later: list[tuple[str, str, int]] = []

        def write(b: list[tuple[int, FileImport]]) -> None:
            if new:
                later.extend(self._write(lambda tx: neo4j_load.create_batch(tx, repo, b, owner, _flat, ROWS_PER_QUERY)))
            else:
                self._write(lambda tx: self._import_batch(tx, repo, [fi for _, fi in b]))
        batch: list[tuple[int, FileImport]] = []
        size = done = 0
        for i, fi in enumerate(items):
            if batch and (len(batch) >= self.files_per_tx or size + len(fi.symbols) > self.symbols_per_tx):
                write(batch)
                done += len(batch)
                if progress:
                    progress(done, len(items))
                batch, size = [], 0
            batch.append((i, fi))
            size += len(fi.symbols)
        if batch:
            write(batch)
            if progress:
                progress(len(items), len(items))
        if later:  # DECLARES of a symbol uid from the files that did not keep its props
            paths = {fi.file.uid: fi.file.path for fi in items}
            self._write(lambda tx: neo4j_load.create_declares(tx, repo, later, paths, ROWS_PER_QUERY))
        wanted = {p: {s.uid for s in fi.symbols} for p, fi in by_path.items()}
        declared = set().union(*wanted.values()) if wanted else set()
        gone = sorted({u for olds in existing.values() for u in olds} - declared)
        if gone:
            self._write(lambda tx: self._detach_delete(tx, gone))
        return {p: FileDiff(added=len(wanted[p] - existing[p]), updated=len(wanted[p] & existing[p]),
                            removed=len(existing[p] - declared)) for p in by_path}

    def _import_batch(self, tx: neo4j.Transaction, repo: str, batch: list[FileImport]) -> None:
        paths = [fi.file.path for fi in batch]
        self._delete_derived(tx, repo, paths)
        file_nodes = [fi.file.to_node() for fi in batch]
        self._upsert(tx, [*file_nodes, *(s.to_node() for fi in batch for s in fi.symbols)])
        fuids = [n.uid for n in file_nodes]
        for part in _chunks(fuids):
            tx.run(f"UNWIND $uids AS u MATCH (:{ENTITY} {{uid: u}})-[r:{IN_REPO}|{DECLARES}]->() DELETE r",
                   uids=list(part)).consume()
        structural = [Edge(IN_REPO, n.uid, repo_uid(repo), n.props["path"]) for n in file_nodes]
        structural += [Edge(DECLARES, fi.file.uid, s.uid, fi.file.path, s.line) for fi in batch for s in fi.symbols]
        self._create_edges(tx, repo, structural, merge=False)

    def remove_files(self, repo: str, paths: list[str]) -> int:
        def work(tx: neo4j.Transaction) -> int:
            removed = 0
            self._delete_derived(tx, repo, paths)
            for part in _chunks(list(dict.fromkeys(paths))):
                tx.run(f"UNWIND $paths AS p MATCH (s:{SYMBOL}) WHERE s.repo = $repo AND s.file = p DETACH DELETE s",
                       paths=list(part), repo=repo).consume()
                removed += tx.run(
                    f"UNWIND $paths AS p MATCH (f:{FILE}) WHERE f.repo = $repo AND f.path = p DETACH DELETE f",
                    paths=list(part), repo=repo).consume().counters.nodes_deleted
            return removed
        return self._write(work)

    def upsert_nodes(self, nodes: list[Node]) -> None:
        if nodes:
            self._write(lambda tx: self._upsert(tx, nodes))

    def replace_edges(self, repo: str, files: list[str], edges: list[Edge]) -> int:
        replaced = set(files)
        # The same edge key twice in the input is stored once, as the embedded store does.
        unique = list({e.key(): e for e in reversed(edges)}.values())[::-1]
        fresh = [e for e in unique if e.file in replaced]
        others = [e for e in unique if e.file not in replaced]

        def work(tx: neo4j.Transaction) -> int:
            self._delete_derived(tx, repo, files)
            # Evidence files just cleared cannot hold a duplicate: plain CREATE is safe there.
            return self._create_edges(tx, repo, fresh, merge=False) + self._create_edges(tx, repo, others, merge=True)
        return self._write(work)

    def delete_edges(self, keys: list[tuple[str, str, str, str, int]]) -> int:
        by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for etype, src, dst, file, line in keys:
            by_type[_ident(etype)].append({"s": src, "t": dst, "f": file, "l": line})

        def work(tx: neo4j.Transaction) -> int:
            n = 0
            for etype, rows in by_type.items():
                for part in _chunks(rows):
                    n += tx.run(f"UNWIND $rows AS e MATCH (a:{ENTITY} {{uid: e.s}})-[r:{etype}]->(b:{ENTITY} {{uid: e.t}}) "
                                "WHERE r.file = e.f AND r.line = e.l DELETE r",
                                rows=list(part)).consume().counters.relationships_deleted
            return n
        return self._write(work) if keys else 0

    def delete_nodes(self, uids: list[str]) -> int:
        return self._write(lambda tx: self._detach_delete(tx, uids)) if uids else 0

    def prune_unreferenced(self, repo: str, labels: Iterable[str]) -> int:
        labels = [_ident(lb) for lb in labels]
        if not labels:
            return 0
        cond = " OR ".join(f"n:{lb}" for lb in labels)

        def work(tx: neo4j.Transaction) -> int:
            return tx.run(f"MATCH (n:{ENTITY}) WHERE n.repo = $repo AND ({cond}) AND NOT (n)--() DELETE n",
                          repo=repo).consume().counters.nodes_deleted
        return self._write(work)

    def replace_cross_repo_edges(self, repo: str, remove: list[Edge], create: list[Edge]) -> int:
        gone: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for e in remove:
            gone[_ident(e.type)].append({"s": e.source, "t": e.target, "f": e.file, "l": e.line})

        def work(tx: neo4j.Transaction) -> int:
            # Every cross-repo edge starts at a node of ``repo``: expand from the repo's nodes
            # (entity_repo index) instead of scanning each relationship type.
            tx.run(f"MATCH (a:{ENTITY} {{repo: $repo}})-[r]->() WHERE r.repo = $repo AND r.resolution = 'cross_repo' "
                   "DELETE r", repo=repo).consume()
            for etype, rows in gone.items():
                for part in _chunks(rows):
                    tx.run(f"UNWIND $rows AS e MATCH (a:{ENTITY} {{uid: e.s}})-[r:{etype}]->(b:{ENTITY} {{uid: e.t}}) "
                           "WHERE r.file = e.f AND r.line = e.l DELETE r", rows=list(part)).consume()
            return self._create_edges(tx, repo, create, merge=True)
        return self._write(work)

    def delete_repo(self, repo: str) -> None:
        # In bounded transactions: a big repo would not fit one transaction in a small heap.
        def work(tx: neo4j.Transaction) -> int:
            return tx.run(f"MATCH (n:{ENTITY}) WHERE n.repo = $repo WITH n LIMIT 10000 DETACH DELETE n",
                          repo=repo).consume().counters.nodes_deleted
        while self._write(work):
            pass

    # -- reads ------------------------------------------------------------------
    def _nodes(self, query: str, **params: Any) -> list[Node]:
        return [_node(r["uid"], r["label"], r["props"]) for r in self._read(query, **params)]

    def get_nodes(self, uids: list[str]) -> dict[str, Node]:
        out: dict[str, Node] = {}
        for part in _chunks(list(dict.fromkeys(uids))):
            for n in self._nodes(f"UNWIND $uids AS u MATCH (n:{ENTITY} {{uid: u}}) RETURN {_NODE_COLS}",
                                 uids=list(part)):
                out[n.uid] = n
        return out

    def _symbols_by(self, prop: str, keys: list[str], repo: str | None) -> dict[str, list[Node]]:
        out: dict[str, list[Node]] = defaultdict(list)
        cond = " AND n.repo = $repo" if repo else ""
        for part in _chunks(list(dict.fromkeys(keys))):
            for r in self._read(f"UNWIND $keys AS k MATCH (n:{SYMBOL}) WHERE n.{prop} = k{cond} "
                                f"RETURN k, {_NODE_COLS} ORDER BY n.uid", keys=list(part), repo=repo):
                out[r["k"]].append(_node(r["uid"], r["label"], r["props"]))
        return dict(out)

    def symbols_by_qualified_name(self, qualified_names: list[str], repo: str | None = None) -> dict[str, list[Node]]:
        return self._symbols_by("qualified_name", qualified_names, repo)

    def symbols_by_name(self, names: list[str], repo: str | None = None) -> dict[str, list[Node]]:
        return self._symbols_by("name", names, repo)

    def nodes_in_files(self, repo: str, paths: list[str]) -> dict[str, list[Node]]:
        out: dict[str, list[Node]] = defaultdict(list)
        for part in _chunks(list(dict.fromkeys(paths))):
            for r in self._read(f"UNWIND $paths AS p MATCH (n:{SYMBOL}) WHERE n.repo = $repo AND n.file = p "
                                f"RETURN p, {_NODE_COLS} ORDER BY p, n.line, n.uid", paths=list(part), repo=repo):
                out[r["p"]].append(_node(r["uid"], r["label"], r["props"]))
        return dict(out)

    def find_nodes(self, text: str, labels: list[str] | None = None, repo: str | None = None, limit: int = 20) -> list[Node]:
        t = text.strip().lower()
        if not t:
            return []
        labels = [_ident(lb) for lb in (labels or [SYMBOL, FILE, STUB, "Endpoint", "Table", "Topic"])]
        cond = " OR ".join(f"n:{lb}" for lb in labels)
        repo_cond = " AND n.repo = $repo" if repo else ""
        suffix = f".{t}" if ("." in t or "/" in t) else f"/{t}"
        # Same ranking as the embedded store: exact, qualified/path suffix, prefix, substring;
        # paths match on File nodes only, as there.
        q = (f"MATCH (n:{ENTITY}) WHERE ({cond}){repo_cond} "
             "WITH n, n.name AS name, n.qualified_name AS qn, CASE WHEN n:File THEN n.path ELSE null END AS path "
             "WITH n, name, qn, path, toLower(coalesce(name, '')) AS lname, toLower(coalesce(qn, '')) AS lqn, "
             "toLower(coalesce(path, '')) AS lpath "
             "WHERE lname CONTAINS $t OR lqn CONTAINS $t OR lpath CONTAINS $t "
             "WITH n, name, qn, path, CASE "
             "WHEN lname = $t OR lqn = $t OR lpath = $t THEN 0 "
             "WHEN lqn ENDS WITH $suffix OR lpath ENDS WITH $suffix THEN 1 "
             "WHEN lname STARTS WITH $t OR lqn STARTS WITH $t OR lpath STARTS WITH $t THEN 2 "
             "ELSE 3 END AS rank "
             f"RETURN {_NODE_COLS} ORDER BY rank, size(coalesce(qn, path, name)), n.uid LIMIT $limit")
        return self._nodes(q, t=t, suffix=suffix, repo=repo, limit=limit)

    def neighbours(
        self, uids: list[str], direction: str, edge_types: list[str] | None = None, limit_per_node: int | None = None
    ) -> dict[str, list[EdgeHit]]:
        if direction not in ("in", "out"):
            raise ValueError("direction must be 'in' or 'out'")
        rel = "r:" + "|".join(_ident(t) for t in edge_types) if edge_types else "r"
        pattern = f"(a)<-[{rel}]-(n)" if direction == "in" else f"(a)-[{rel}]->(n)"
        out: dict[str, list[EdgeHit]] = defaultdict(list)
        lim = "" if limit_per_node is None else "[..$lim]"
        q = (f"UNWIND $uids AS u MATCH (a:{ENTITY} {{uid: u}}) MATCH {pattern} "
             "WITH u, r, n ORDER BY r.file, r.line, n.uid "
             f"WITH u, collect({{r: r, n: n}}){lim} AS hits UNWIND hits AS h WITH u, h.r AS r, h.n AS n "
             f"RETURN u, type(r) AS type, r.file AS file, r.line AS line, r.resolution AS resolution, "
             f"r.extra AS extra, {_NODE_COLS}")
        for part in _chunks(list(dict.fromkeys(uids))):
            for r in self._read(q, uids=list(part), lim=limit_per_node):
                node = _node(r["uid"], r["label"], r["props"])
                src, dst = (node.uid, r["u"]) if direction == "in" else (r["u"], node.uid)
                edge = Edge(r["type"], src, dst, r["file"] or "", r["line"] or 0, r["resolution"] or "",
                            json.loads(r["extra"]) if r["extra"] else {})
                out[r["u"]].append(EdgeHit(edge, node))
        return dict(out)

    def file_hashes(self, repo: str) -> dict[str, str]:
        rows = self._read(f"MATCH (n:{FILE}) WHERE n.repo = $repo RETURN n.path AS p, n.content_hash AS h", repo=repo)
        return {r["p"]: r["h"] or "" for r in rows}

    def repos(self) -> list[Node]:
        return self._nodes(f"MATCH (n:{REPO}) RETURN {_NODE_COLS} ORDER BY n.uid")

    def nodes_by_label(self, label: str, repo: str | None = None, limit: int = 1000, offset: int = 0) -> list[Node]:
        cond = " WHERE n.repo = $repo" if repo else ""
        return self._nodes(f"MATCH (n:{_ident(label)}){cond} RETURN {_NODE_COLS} ORDER BY n.uid SKIP $offset LIMIT $limit",
                           repo=repo, offset=offset, limit=limit)

    def stubs_ranked(self, repo: str | None = None, limit: int = 50, offset: int = 0) -> list[tuple[Node, int]]:
        cond = " WHERE n.repo = $repo" if repo else ""
        rows = self._read(f"MATCH (n:{STUB}){cond} WITH n, COUNT {{ (n)<--() }} AS refs "
                          f"RETURN {_NODE_COLS}, refs ORDER BY refs DESC, n.uid SKIP $offset LIMIT $limit",
                          repo=repo, offset=offset, limit=limit)
        return [(_node(r["uid"], r["label"], r["props"]), r["refs"]) for r in rows]

    def counts(self, repo: str | None = None) -> dict[str, Any]:
        where = " WHERE n.repo = $repo" if repo else ""
        nodes = {r["label"]: r["n"] for r in self._read(
            f"MATCH (n:{ENTITY}){where} WITH [l IN labels(n) WHERE l <> '{ENTITY}'][0] AS label "
            "RETURN label, count(*) AS n", repo=repo) if r["label"]}
        if repo:
            # Each edge is counted once from its source node; the filter keeps the repo's own.
            edges = {r["t"]: r["n"] for r in self._read(
                f"MATCH (n:{ENTITY})-[r]->() WHERE n.repo = $repo AND r.repo = $repo RETURN type(r) AS t, count(*) AS n",
                repo=repo)}
        else:
            edges = {r["t"]: r["n"] for r in self._read("MATCH ()-[r]->() RETURN type(r) AS t, count(*) AS n")}
        files = self._read(
            f"MATCH (n:{FILE}){where} RETURN n.language AS lang, n.coverage_status AS status, "
            "coalesce(n.had_error, false) AS err, count(*) AS n", repo=repo)
        langs: dict[str, int] = defaultdict(int)
        status: dict[str, int] = defaultdict(int)
        errors = 0
        for r in files:
            langs[r["lang"]] += r["n"]
            status[r["status"]] += r["n"]
            errors += r["n"] if r["err"] else 0
        sym_langs = {r["lang"]: r["n"] for r in self._read(
            f"MATCH (n:{SYMBOL}){where} RETURN n.language AS lang, count(*) AS n", repo=repo)}
        return {"nodes": nodes, "edges": edges, "languages": dict(langs), "symbols_by_language": sym_langs,
                "coverage": dict(status), "parse_errors": errors, "partial_files": status.get("partial", 0)}

    def verify(self, repo: str | None = None) -> dict[str, int]:
        cond = " AND n.repo = $repo" if repo else ""
        r = self._read(
            f"CALL {{ MATCH (n:{FILE}) WHERE NOT (n)-[:{IN_REPO}]->(){cond} RETURN count(n) AS f }} "
            f"CALL {{ MATCH (n:{SYMBOL}) WHERE NOT (n)<-[:{DECLARES}]-(){cond} RETURN count(n) AS s }} "
            "RETURN f, s", repo=repo)[0]
        # A relationship cannot outlive its nodes in Neo4j: there are never dangling edges.
        return {"orphan_files": r["f"], "orphan_symbols": r["s"], "dangling_edges": 0}

    def run_cypher(self, query: str, params: dict[str, Any], limit: int) -> tuple[list[dict[str, Any]], int]:
        """Raw read-only Cypher: (first ``limit`` rows as dicts, total row count).

        Refused before sending (ReadOnlyViolation) when it holds a write or admin clause;
        then run in a read transaction with a 30 s timeout. ``$repo`` is always bound
        (None when ``params`` has none).
        """
        check_read_only(query)
        bound = {"repo": None, **params}

        def attempt() -> tuple[list[dict[str, Any]], int]:
            rows: list[dict[str, Any]] = []
            total = 0
            with self._driver.session(database=self.database, default_access_mode=neo4j.READ_ACCESS) as s:
                summary = s.run("EXPLAIN " + query, bound).consume()
                check_plan(summary.query_type, summary.plan, summary.database or self.database)
                with s.begin_transaction(timeout=30) as tx:
                    for rec in tx.run(query, bound):
                        total += 1
                        if total <= limit:
                            rows.append(_strip_internal(rec.data()))
            return rows, total
        try:
            return self._call(attempt)
        except ClientError as e:
            code = e.code or ""
            if any(k in code for k in ("AccessMode", "ForbiddenOnReadOnly", "ExternalResource", "Procedure",
                                       "NotSystemDatabase", "UnsupportedAdministration", "Security")):
                raise ReadOnlyViolation(f"refused by the server: {_first_line(e)}") from e
            raise BadInput(f"the server refused the query: {_first_line(e)}") from e

    # -- run lock (codegraph.indexer.runlock) -----------------------------------------
    def acquire_run_lock(self, repo: str, owner: str, stale_hours: float) -> str | None:
        """Take ``repo``'s run lock for ``owner`` (``host:pid:nonce``): None when taken,
        else who holds it. A lock of a dead process on this host, or older than
        ``stale_hours``, is replaced. The lock node has no ``repo`` property and no
        entity label, so no count or query of the repo sees it."""
        import os
        import socket

        def live(holder: str) -> bool:
            host, _, rest = holder.partition(":")
            pid = rest.split(":", 1)[0]
            if host != socket.gethostname() or not pid.isdigit():
                return True  # another machine's run: trust the age limit only
            try:
                os.kill(int(pid), 0)
            except ProcessLookupError:
                return False
            except PermissionError:
                return True
            return True

        def attempt() -> str | None:
            with self._driver.session(database=self.database) as s:
                s.run("CREATE CONSTRAINT codegraph_run_lock IF NOT EXISTS "
                      "FOR (l:CodegraphRunLock) REQUIRE l.lock_repo IS UNIQUE").consume()
                try:
                    s.run("CREATE (l:CodegraphRunLock {lock_repo: $repo, owner: $owner, since: datetime()})",
                          repo=repo, owner=owner).consume()
                    return None
                except ClientError as e:
                    if "ConstraintValidationFailed" not in (e.code or ""):
                        raise
                rec = s.run("MATCH (l:CodegraphRunLock {lock_repo: $repo}) "
                            "RETURN l.owner AS owner, duration.between(l.since, datetime()).hours AS hours",
                            repo=repo).single()
                if rec is None:
                    return attempt()
                holder, hours = rec["owner"], rec["hours"] or 0
                if live(holder) and hours < stale_hours:
                    return f"{holder} (for {hours} h)"
                s.run("MATCH (l:CodegraphRunLock {lock_repo: $repo, owner: $old}) SET l.owner = $owner, "
                      "l.since = datetime()", repo=repo, old=holder, owner=owner).consume()
                again = s.run("MATCH (l:CodegraphRunLock {lock_repo: $repo}) RETURN l.owner AS owner",
                              repo=repo).single()
                return None if again is not None and again["owner"] == owner else f"{again and again['owner']}"
        return self._call(attempt)

    def release_run_lock(self, repo: str, owner: str) -> None:
        """Drop ``repo``'s run lock if ``owner`` still holds it."""
        self._write(lambda tx: tx.run("MATCH (l:CodegraphRunLock {lock_repo: $repo, owner: $owner}) DELETE l",
                                      repo=repo, owner=owner).consume())

    def ping(self) -> None:
        """Raise StoreUnavailable unless the server answers a trivial query."""
        self._read("RETURN 1 AS ok")


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

Modules by job: ``neo4j_schema`` (layout, schema, row mapping), ``neo4j_session`` (driver,
retries, transactions), ``neo4j_write`` (write path), ``neo4j_read`` (read path),
``neo4j_load`` (first load of a repo); this module adds the raw read-only Cypher of
``run_cypher`` (client guard, then the server's plan: ``check_plan``) and the run lock.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import neo4j
from neo4j.exceptions import (
    ClientError,
)

from codegraph.core.cypher_guard import READ_PROCEDURES, check_read_only
from codegraph.core.errors import BadInput, ReadOnlyViolation
from codegraph.core.neo4j_read import Neo4jReads
from codegraph.core.neo4j_schema import (  # noqa: F401
    ENTITY,
    FILES_PER_TX,
    NATIVE_PROPS,
    ROWS_PER_QUERY,
    SYMBOLS_PER_TX,
    _strip_internal,
)
from codegraph.core.neo4j_session import _first_line
from codegraph.core.neo4j_write import Neo4jWrites

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


class Neo4jGraphStore(Neo4jWrites, Neo4jReads):
    """GraphStore on Neo4j 5. ``uri`` like ``bolt://127.0.0.1:7687``.

    Raises StoreUnavailable (naming CODEGRAPH_GRAPH) when the server cannot be reached or
    refuses the credentials. ``files_per_tx``/``symbols_per_tx`` bound how many files
    ``import_files`` diffs per transaction (1 gives one transaction per file).
    """

    backend = "neo4j"

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


__all__ = ["ENTITY", "FILES_PER_TX", "NATIVE_PROPS", "ROWS_PER_QUERY", "SYMBOLS_PER_TX", "Neo4jGraphStore", "check_plan",
           "check_read_only"]

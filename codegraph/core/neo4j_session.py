"""The Neo4j driver session of ``Neo4jGraphStore`` (docs/DESIGN.md#backends): connecting,
schema creation, write transactions retried with exponential backoff (tenacity) on transient
errors only, read transactions, and the one-line StoreUnavailable naming CODEGRAPH_GRAPH when the
server does not answer or refuses the credentials.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

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

from codegraph.core.errors import StoreUnavailable
from codegraph.core.neo4j_schema import FILES_PER_TX, OBSOLETE_SCHEMA, SYMBOLS_PER_TX, T, _schema_statements


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


class Neo4jSession:
    """Driver, retries and transactions shared by the write and read paths (module docstring)."""

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
                indexes = {r["name"] for r in s.run("SHOW INDEXES YIELD name RETURN name")}
                constraints = {r["name"] for r in s.run("SHOW CONSTRAINTS YIELD name RETURN name")}
                existing = indexes | constraints
                for kind, name in OBSOLETE_SCHEMA:  # left by an earlier version: each costs every insert
                    if name in (constraints if kind == "CONSTRAINT" else indexes - constraints):
                        # Bounded: a drop waits for the writers of that label; if they hold it
                        # longer, the next open drops it (the index only costs time, not results).
                        with contextlib.suppress(ClientError, TransientError):
                            s.run(neo4j.Query(f"DROP {kind} {name} IF EXISTS", timeout=10)).consume()
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

    def ping(self) -> None:
        """Raise StoreUnavailable unless the server answers a trivial query."""
        self._read("RETURN 1 AS ok")

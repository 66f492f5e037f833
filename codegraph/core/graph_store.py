"""The GraphStore protocol: structure, behind one typed interface per backend.

Every method takes lists and returns dicts or lists: one round trip per hop, never one
per node (docs/DESIGN.md#backends). Backends: ``embedded``
(sqlite3, ``codegraph.core.embedded_graph``) and ``neo4j`` (``codegraph.core.neo4j_graph``).
All pass ``tests/contract/test_graph_contract.py``.

Errors: every method may raise ``StoreUnavailable`` when the backend does not answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol, runtime_checkable

from codegraph.core.models import Edge, EdgeHit, FileDiff, FileImport, Node, RepoRecord


@runtime_checkable
class GraphStore(Protocol):
    backend: str  # "embedded" | "neo4j"

    # -- lifecycle --------------------------------------------------------------
    def ensure_schema(self) -> None:
        """Create constraints/indexes idempotently."""

    def close(self) -> None: ...

    # -- writes -----------------------------------------------------------------
    def upsert_repo(self, repo: RepoRecord) -> None:
        """Create or update the Repo node (properties replaced by ``repo``'s)."""

    def import_files(self, repo: str, files: list[FileImport],
                     progress: Callable[[int, int], None] | None = None) -> dict[str, FileDiff]:
        """File-scoped diff of a whole import (docs/DESIGN.md#import): pass every changed file
        of a run in one call; the store batches transactions itself.

        Phase 1, per file: delete the outgoing derived edges whose evidence is in this
        file; upsert its symbols in place (key = qualified_name + signature_hash) so
        incoming edges from other files survive; (re)create File, IN_REPO and DECLARES.
        Phase 2, after every file: delete the symbols these files held that no file of
        the call declares. So a symbol moving between two files of the call keeps its
        node and incoming edges whatever the order or batch of the two files. A path
        given twice: the last one wins. ``progress(done, total)`` after each transaction.
        Returns path -> FileDiff (``removed`` counts symbols really deleted).
        """

    def remove_files(self, repo: str, paths: list[str]) -> int:
        """Delete the files, their symbols and every edge touching them. Returns the
        number of files removed."""

    def upsert_nodes(self, nodes: list[Node]) -> None:
        """Create or update non-file nodes (stubs, endpoints, tables, topics, issues,
        snapshots) by uid; properties are replaced."""

    def replace_edges(self, repo: str, files: list[str], edges: list[Edge]) -> int:
        """Delete every derived edge of ``repo`` whose evidence ``file`` is in
        ``files``, then create ``edges`` (whose endpoints must exist; edges to missing
        nodes are skipped and counted out). Returns the number created."""

    def delete_edges(self, keys: list[tuple[str, str, str, str, int]]) -> int:
        """Delete single edges by ``Edge.key()`` = (type, source uid, target uid, evidence
        file, line); keys that match nothing are ignored. Returns the number deleted."""

    def delete_nodes(self, uids: list[str]) -> int:
        """Detach-delete nodes by uid (used for issues, decisions, snapshots)."""

    def prune_unreferenced(self, repo: str, labels: Iterable[str]) -> int:
        """Delete nodes of ``labels`` in ``repo`` that no edge touches (stubs whose
        callers resolved, tables nobody reads...). Returns the number deleted."""

    def replace_cross_repo_edges(self, repo: str, remove: list[Edge], create: list[Edge]) -> int:
        """One transaction: delete every edge of ``repo`` whose resolution is
        ``cross_repo``, delete the ``remove`` edges (by key: type, source, target, file,
        line), then create ``create`` (edges to missing nodes are skipped). Used by the
        cross-repo link pass (docs/DESIGN.md#workspaces). Returns the number created."""

    def delete_repo(self, repo: str) -> None:
        """Remove everything of ``repo``, including edges other repos hold into it."""

    # -- reads ------------------------------------------------------------------
    def get_nodes(self, uids: list[str]) -> dict[str, Node]:
        """uid -> Node for the uids that exist."""

    def symbols_by_qualified_name(self, qualified_names: list[str], repo: str | None = None) -> dict[str, list[Node]]:
        """qualified_name -> Symbol nodes (several for overloads; all repos unless given)."""

    def symbols_by_name(self, names: list[str], repo: str | None = None) -> dict[str, list[Node]]:
        """bare name -> Symbol nodes."""

    def nodes_in_files(self, repo: str, paths: list[str]) -> dict[str, list[Node]]:
        """path -> Symbol nodes declared in that file, ordered by line."""

    def find_nodes(self, text: str, labels: list[str] | None = None, repo: str | None = None, limit: int = 20) -> list[Node]:
        """Case-insensitive name / qualified name / path match for pickers: exact
        matches first, then prefix, then substring."""

    def neighbours(
        self, uids: list[str], direction: str, edge_types: list[str] | None = None, limit_per_node: int | None = None
    ) -> dict[str, list[EdgeHit]]:
        """uid -> edges in ``direction`` ("in": edges pointing at uid, hit.node is the
        source; "out": hit.node is the target), filtered by ``edge_types``."""

    def file_hashes(self, repo: str) -> dict[str, str]:
        """path -> content_hash of every File of ``repo`` in the graph."""

    def repos(self) -> list[Node]:
        """Every Repo node."""

    def nodes_by_label(self, label: str, repo: str | None = None, limit: int = 1000, offset: int = 0) -> list[Node]:
        """Nodes of one label, ordered by uid, paginated."""

    def stubs_ranked(self, repo: str | None = None, limit: int = 50, offset: int = 0) -> list[tuple[Node, int]]:
        """UnresolvedSymbol nodes with the number of edges pointing at them, most first."""

    def counts(self, repo: str | None = None) -> dict[str, Any]:
        """{"nodes": {label: n}, "edges": {type: n}, "languages": {lang: files},
        "parse_errors": n, "partial_files": n, "symbols_by_language": {lang: n}}."""

    def verify(self, repo: str | None = None) -> dict[str, int]:
        """{"orphan_files": files with no IN_REPO, "orphan_symbols": symbols with no
        DECLARES, "dangling_edges": edges to missing nodes (embedded only)}."""

    def run_cypher(self, query: str, params: dict[str, Any], limit: int) -> tuple[list[dict[str, Any]], int]:
        """Raw read-only Cypher (Neo4j only): (rows up to ``limit``, total rows).
        Raises Unsupported on backends without Cypher, ReadOnlyViolation on writes."""

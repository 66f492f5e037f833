"""The write path of ``Neo4jGraphStore`` (docs/DESIGN.md#import): upserts, the file-scoped
diff of ``import_files`` (two phases: upsert everything, then delete what no file declares; the
first load of a repo through ``neo4j_load``), edge replacement by evidence file, deletions.
Every call is one or more explicit write transactions: all or nothing.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import neo4j

from codegraph.core import neo4j_load
from codegraph.core.models import (
    DECLARES,
    DERIVED_EDGES,
    FILE,
    IN_REPO,
    SYMBOL,
    Edge,
    FileDiff,
    FileImport,
    Node,
    RepoRecord,
    repo_uid,
)
from codegraph.core.neo4j_schema import (
    EDGES_PER_QUERY,
    ENTITY,
    FIRST_LOAD_WRITERS,
    ROWS_PER_QUERY,
    _chunks,
    _edge_props,
    _flat,
    _ident,
)
from codegraph.core.neo4j_session import Neo4jSession


class Neo4jWrites(Neo4jSession):
    """GraphStore write methods (module docstring)."""

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
            return neo4j_load.create_edges(tx, repo, edges, EDGES_PER_QUERY)
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
        batches: list[list[tuple[int, FileImport]]] = [[]]
        size = 0
        for i, fi in enumerate(items):
            if batches[-1] and (len(batches[-1]) >= self.files_per_tx or size + len(fi.symbols) > self.symbols_per_tx):
                batches.append([])
                size = 0
            batches[-1].append((i, fi))
            size += len(fi.symbols)
        batches = [b for b in batches if b]
        if new:
            later = self._create_batches(repo, batches, owner, progress, len(items))
        else:
            done = 0
            for b in batches:
                self._write(lambda tx, b=b: self._import_batch(tx, repo, [fi for _, fi in b]))
                done += len(b)
                if progress:
                    progress(done, len(items))
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

    def _create_batches(self, repo: str, batches: list[list[tuple[int, FileImport]]], owner: dict[str, int],
                        progress: Callable[[int, int], None] | None, total: int) -> list[tuple[str, str, int]]:
        """First load: one CREATE transaction per batch (codegraph.core.neo4j_load), written by
        ``FIRST_LOAD_WRITERS`` sessions at once. The batches of a first load share no node (each
        symbol uid is created by the batch of its owner, the extra DECLARES come after every
        batch), so their transactions do not wait on each other, and while the server writes and
        commits one batch the next one's parameters are built and sent by the other writer.
        ``progress`` counts batches in order. When one fails, the batches not started are
        cancelled and its error is raised once the running ones end (a first load is not one
        transaction: the Repo node stays 'running' until the run completes). Returns the DECLARES
        left for ``create_declares``."""
        def write(b: list[tuple[int, FileImport]]) -> list[tuple[str, str, int]]:
            this = neo4j_load.prepare_batch(b, owner, _flat, ROWS_PER_QUERY)
            self._write(lambda tx: neo4j_load.create_batch(tx, repo, this))
            return this.later

        later: list[tuple[str, str, int]] = []
        done = 0
        todo = iter(batches)
        with ThreadPoolExecutor(FIRST_LOAD_WRITERS) as pool:
            # One batch queued behind each writer, so a writer that ends picks the next at once.
            pending: deque[tuple[int, Future[list[tuple[str, str, int]]]]] = deque()

            def top_up() -> None:
                while len(pending) < 2 * FIRST_LOAD_WRITERS and (b := next(todo, None)) is not None:
                    pending.append((len(b), pool.submit(write, b)))
            top_up()
            try:
                while pending:
                    n, fut = pending.popleft()
                    later.extend(fut.result())
                    top_up()
                    done += n
                    if progress:
                        progress(done, total)
            except BaseException:
                for _, f in pending:
                    f.cancel()
                raise
        return later

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

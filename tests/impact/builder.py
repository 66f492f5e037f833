"""A small hand-built graph for impact tests: files, symbols, boundary nodes and edges,
written through the GraphStore batch API exactly as the indexer writes them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from codegraph.core.graph_store import GraphStore
from codegraph.core.impact import ImpactResult
from codegraph.core.models import (
    ENDPOINT,
    TABLE,
    TOPIC,
    Edge,
    FileImport,
    FileRecord,
    Node,
    RepoRecord,
    SymbolRecord,
    endpoint_uid,
    file_uid,
    stable_hash,
    table_uid,
    topic_uid,
)


def _language(path: str) -> str:
    return {"py": "python", "ts": "typescript", "tsx": "typescript", "java": "java"}[path.rsplit(".", 1)[-1]]


@dataclass
class Graph:
    """Collects one repo's files, symbols, nodes and edges; ``save`` writes them."""

    store: GraphStore
    repo: str
    files: dict[str, FileRecord] = field(default_factory=dict)
    symbols: dict[str, list[SymbolRecord]] = field(default_factory=dict)
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)

    def file(self, path: str, **props: Any) -> str:
        """A File (``route``, ``is_test``... as FileRecord fields); returns its uid."""
        if path not in self.files:
            self.files[path] = FileRecord(self.repo, path, _language(path), stable_hash(path), **props)
            self.symbols[path] = []
        return file_uid(self.repo, path)

    def sym(self, path: str, qn: str, kind: str = "function", parent: str | None = None, line: int = 0,
            params: str = "()") -> str:
        """A Symbol declared in ``path``; returns its uid."""
        self.file(path)
        line = line or 1 + 10 * len(self.symbols[path])
        name = qn.rsplit(".", 1)[-1]
        rec = SymbolRecord(self.repo, qn, stable_hash(kind, qn, params), name, kind, _language(path), "definition",
                           path, line, line + 5, parent=parent, signature=f"{name}{params}")
        self.symbols[path].append(rec)
        return rec.uid

    def uid_of(self, qn: str) -> str:
        """The uid of a symbol added before by qualified name."""
        return next(s.uid for lst in self.symbols.values() for s in lst if s.qualified_name == qn)

    def table(self, name: str) -> str:
        uid = table_uid(self.repo, name)
        self.nodes.append(Node(uid, TABLE, {"repo": self.repo, "name": name}))
        return uid

    def endpoint(self, method: str, path: str) -> str:
        uid = endpoint_uid(self.repo, method, path)
        self.nodes.append(Node(uid, ENDPOINT, {"repo": self.repo, "method": method, "path_template": path,
                                               "framework": "fastapi"}))
        return uid

    def topic(self, name: str) -> str:
        uid = topic_uid(self.repo, name)
        self.nodes.append(Node(uid, TOPIC, {"repo": self.repo, "name": name}))
        return uid

    def edge(self, etype: str, source: str, target: str, file: str, line: int, resolution: str = "exact",
             **extra: Any) -> None:
        self.edges.append(Edge(etype, source, target, file, line, resolution, dict(extra)))

    def save(self) -> None:
        self.store.upsert_repo(RepoRecord(self.repo, f"/src/{self.repo}", last_commit_sha="abc"))
        self.store.import_files(self.repo, [FileImport(f, self.symbols[p]) for p, f in self.files.items()])
        if self.nodes:
            self.store.upsert_nodes(self.nodes)
        # Each edge is stored under the repo of its evidence file's graph (its source's repo).
        self.store.replace_edges(self.repo, list(self.files), self.edges)


def callers(res: ImpactResult) -> set[tuple[int, str, str]]:
    """(depth, via, qualified name or path) of every caller shown."""
    return {(c.depth, c.via, c.node.qualified_name) for c in res.callers}


def importers(res: ImpactResult) -> set[tuple[int, str]]:
    return {(c.depth, c.node.qualified_name) for c in res.importers}


def entries(res: ImpactResult) -> set[tuple[str, str, int]]:
    return {(e.kind, e.node.qualified_name, e.depth) for e in res.entry_points}

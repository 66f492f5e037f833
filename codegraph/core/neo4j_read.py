"""The read path of ``Neo4jGraphStore`` (docs/DESIGN.md#backends): batch lookups by uid,
qualified name, name and file, full-text search, neighbours, listings, counts and the
integrity check, each in a read transaction.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from codegraph.core.models import (
    DECLARES,
    FILE,
    IN_REPO,
    REPO,
    STUB,
    SYMBOL,
    Edge,
    EdgeHit,
    Node,
)
from codegraph.core.neo4j_schema import _NODE_COLS, ENTITY, _chunks, _ident, _node
from codegraph.core.neo4j_session import Neo4jSession


class Neo4jReads(Neo4jSession):
    """GraphStore read methods (module docstring)."""

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
        # Each neighbour's properties once per anchor, not once per edge: a caller with
        # many call sites came back with its whole props map per call site.
        q = (f"UNWIND $uids AS u MATCH (a:{ENTITY} {{uid: u}}) MATCH {pattern} "
             "WITH u, r, n ORDER BY r.file, r.line, n.uid "
             f"WITH u, collect({{r: r, n: n}}){lim} AS hits "
             "UNWIND hits AS h WITH u, hits, collect(DISTINCT h.n) AS ns "
             "RETURN u, [h IN hits | [type(h.r), h.r.file, h.r.line, h.r.resolution, h.r.extra, h.n.uid]] AS edges, "
             f"[n IN ns | {{uid: n.uid, label: [l IN labels(n) WHERE l <> '{ENTITY}'][0], props: properties(n)}}] "
             "AS nodes")
        for part in _chunks(list(dict.fromkeys(uids))):
            for r in self._read(q, uids=list(part), lim=limit_per_node):
                nodes = {m["uid"]: _node(m["uid"], m["label"], m["props"]) for m in r["nodes"]}
                hits = out[r["u"]]
                for etype, file, line, resolution, extra, nuid in r["edges"]:
                    node = nodes[nuid]
                    src, dst = (nuid, r["u"]) if direction == "in" else (r["u"], nuid)
                    edge = Edge(etype, src, dst, file or "", line or 0, resolution or "",
                                json.loads(extra) if extra else {})
                    hits.append(EdgeHit(edge, node))
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

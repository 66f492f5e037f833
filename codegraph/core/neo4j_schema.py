"""Neo4j storage layout (docs/DESIGN.md#backends): batch sizes, the node keys and indexes the
schema creates (``_schema_statements``), and how a Node / Edge maps to rows: native props
(``NATIVE_PROPS``) as real properties, the rest as JSON in ``_json`` (``_flat`` / ``_node``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

from codegraph.core.models import (
    DERIVED_EDGES,
    FILE,
    REPO,
    STUB,
    SYMBOL,
    Edge,
    Node,
)

T = TypeVar("T")


ENTITY = "Entity"  # shared label of every node: one uid constraint serves every lookup


ROWS_PER_QUERY = 5000  # UNWIND batch size: big enough to amortise a round trip, small for the heap


# Edges per CREATE query (neo4j_load.create_edges): each query looks every distinct endpoint
# uid up once, so the more edges share a query, the fewer index seeks. 60,000 CALLS among
# 20,000 symbols (bench/bench_backends.py): server CPU for the edges 1.75 s at 5,000 edges
# per query with a seek per endpoint, 1.33 s with one seek per distinct uid, 1.19 s at 20,000,
# 1.12 s at 60,000. The query's own memory is its parameter lists (a few MB).
EDGES_PER_QUERY = 50_000


SYMBOLS_PER_TX = 5000  # import_files: files are grouped until this many symbols per transaction


FILES_PER_TX = 500


# Sessions writing the batches of a first load at once (Neo4jWrites._create_batches): on two
# cores one writer left a core idle while the server ran each batch's queries and commit.
FIRST_LOAD_WRITERS = 2


_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


# (label, key properties) of the composite uniqueness constraints (docs/DESIGN.md#graph-model).
# Symbol has none of its own: its uid is built from exactly its key (models.symbol_uid), so the
# Entity uid constraint already keeps one node per key, and a second composite index on the
# most numerous label cost ~0.2 of ~1.6 server CPU-s per 20,000 symbols written.
NODE_KEYS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (REPO, ("name",)),
    (FILE, ("repo", "path")),
    (STUB, ("repo", "target_identifier")),
    ("Endpoint", ("repo", "method", "path_template")),
    ("Table", ("repo", "name")),
    ("Topic", ("repo", "name")),
    ("Issue", ("repo", "number")),
    ("CountSnapshot", ("repo", "taken_at")),
)


# Indexes and constraints earlier versions created and this one drops (``ensure_schema``):
# every index is updated on each insert, and these served no query of the product.
# - symbol_key: see NODE_KEYS;
# - symbol_repo_name (repo, name): a name look-up in a repo uses symbol_name and filters the
#   symbols of that name on repo (reads by name are rare next to symbol inserts);
# - codegraph_names: a full-text (Lucene) index on Symbol/File names that no read used
#   (find_nodes ranks by CONTAINS); it cost ~0.25 of ~1.6 server CPU-s per 20,000 symbols.
OBSOLETE_SCHEMA: tuple[tuple[str, str], ...] = (
    ("CONSTRAINT", "symbol_key"), ("INDEX", "symbol_repo_name"), ("INDEX", "codegraph_names"))


def _schema_statements() -> list[str]:
    s = [f"CREATE CONSTRAINT entity_uid IF NOT EXISTS FOR (n:{ENTITY}) REQUIRE n.uid IS UNIQUE",
         f"CREATE INDEX entity_repo IF NOT EXISTS FOR (n:{ENTITY}) ON (n.repo)"]
    for label, keys in NODE_KEYS:
        props = ", ".join(f"n.{k}" for k in keys)
        s.append(f"CREATE CONSTRAINT {label.lower()}_key IF NOT EXISTS FOR (n:{label}) REQUIRE ({props}) IS UNIQUE")
    s += [
        f"CREATE INDEX symbol_repo_file IF NOT EXISTS FOR (n:{SYMBOL}) ON (n.repo, n.file)",
        f"CREATE INDEX symbol_name IF NOT EXISTS FOR (n:{SYMBOL}) ON (n.name)",
        f"CREATE INDEX symbol_qualified_name IF NOT EXISTS FOR (n:{SYMBOL}) ON (n.qualified_name)",
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


# One encoder for every JSON property (json.dumps with options builds a new encoder per call).
_JSON = json.JSONEncoder(ensure_ascii=False, default=str)


def to_json(value: Any) -> str:
    """The JSON text stored for ``_json`` and an edge's ``extra``: the same text as
    ``json.dumps(value, ensure_ascii=False, default=str)`` (non-ASCII kept, unknown types as str)."""
    return _JSON.encode(value)


def _flat(n: Node) -> dict[str, Any]:
    """The property map written for ``n``: ``uid``, the NATIVE_PROPS that Neo4j can hold
    as themselves, and everything else as JSON in ``_json`` (see ``_props_of``)."""
    out: dict[str, Any] = {}
    other: dict[str, Any] = {}
    for k, v in n.props.items():
        # A plain str (most native values) skips _native's checks; anything else asks it.
        if k in NATIVE_PROPS and (type(v) is str or _native(v)):
            out[k] = v
        else:
            other[k] = v
    out["uid"] = n.uid
    if other:
        out["_json"] = to_json(other)
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
        p["extra"] = to_json(e.extra)
    return p


# Node columns returned by read queries: uid, label, exact props.
_NODE_COLS = "n.uid AS uid, [l IN labels(n) WHERE l <> '" + ENTITY + "'][0] AS label, properties(n) AS props"


def _node(uid: str, label: str | None, props: dict[str, Any] | None) -> Node:
    return Node(uid, label or "", _props_of(props or {}))


def _strip_internal(v: Any) -> Any:
    """Drop ``_json`` (the non-native props as one JSON string) from raw query results."""
    if isinstance(v, dict):
        return {k: _strip_internal(x) for k, x in v.items() if k != "_json"}
    if isinstance(v, list | tuple):
        return [_strip_internal(x) for x in v]
    return v

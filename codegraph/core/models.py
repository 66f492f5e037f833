"""Domain model shared by the indexer, the stores and the faces.

Node and edge semantics follow docs/DESIGN.md#graph-model. Every node has a ``uid``: a
deterministic string built from its composite key (repo first), so all backends name
the same node the same way and batch APIs can be keyed by it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from operator import attrgetter
from typing import Any, TypeVar

_T = TypeVar("_T")

def pickled_by_fields(cls: type[_T]) -> type[_T]:
    """Class decorator for a slots dataclass whose objects cross to other processes by
    the thousand (the extraction workers' results): pickled as ``(cls, field values)``,
    unpickled by one constructor call. Python's slots-dataclass ``__getstate__`` /
    ``__setstate__`` call ``fields()`` and ``setattr`` per object in Python: on the standard
    library's extraction results unpickling (in the indexer's main process) takes about
    half the CPU this way. Every field must be an ``__init__`` parameter (checked here)."""
    fs = fields(cls)  # type: ignore[arg-type]
    if not all(f.init for f in fs):
        raise TypeError(f"{cls.__name__}: pickled_by_fields needs every field in __init__")
    values = attrgetter(*(f.name for f in fs))

    def __reduce__(self: Any) -> tuple[Any, tuple[Any, ...]]:
        v = values(self)
        return type(self), (v if isinstance(v, tuple) else (v,))

    cls.__reduce__ = __reduce__  # type: ignore[method-assign,assignment]
    return cls


# Node labels (docs/DESIGN.md#graph-model).
REPO = "Repo"
FILE = "File"
SYMBOL = "Symbol"
STUB = "UnresolvedSymbol"
ENDPOINT = "Endpoint"
TABLE = "Table"
TOPIC = "Topic"
ISSUE = "Issue"
SNAPSHOT = "CountSnapshot"
DECISION = "TriageDecision"  # a triage decision on stubs (codegraph.core.triage), kept across re-index
NODE_LABELS = (REPO, FILE, SYMBOL, STUB, ENDPOINT, TABLE, TOPIC, ISSUE, SNAPSHOT, DECISION)

# Edge types.
IN_REPO = "IN_REPO"
DECLARES = "DECLARES"
CALLS = "CALLS"
IMPORTS = "IMPORTS"
IMPLEMENTS = "IMPLEMENTS"
EXTENDS = "EXTENDS"
INJECTS = "INJECTS"
USES_TYPE = "USES_TYPE"
REFERENCES = "REFERENCES"  # a function / class used as a value (passed, stored, returned)
EXPOSES = "EXPOSES"
CALLS_HTTP = "CALLS_HTTP"
PRODUCES = "PRODUCES"
CONSUMES = "CONSUMES"
READS = "READS"
WRITES = "WRITES"
TOUCHES = "TOUCHES"
MENTIONS = "MENTIONS"
STRUCTURAL_EDGES = (IN_REPO, DECLARES)
DERIVED_EDGES = (
    CALLS, IMPORTS, IMPLEMENTS, EXTENDS, INJECTS, USES_TYPE, REFERENCES, EXPOSES, CALLS_HTTP,
    PRODUCES, CONSUMES, READS, WRITES, TOUCHES, MENTIONS,
)
EDGE_TYPES = STRUCTURAL_EDGES + DERIVED_EDGES
# The edge types an impact walk follows by default (docs/DESIGN.md#impact): every face's
# default and its help text come from this one tuple. REFERENCES: code that hands a
# function around (passes, stores, returns it) breaks with it too.
CALLER_EDGES = (CALLS, REFERENCES, EXTENDS, IMPLEMENTS, USES_TYPE, INJECTS, IMPORTS, CALLS_HTTP, CONSUMES)

# How a reference was resolved; shown as confidence in answers (strongest first).
RESOLUTIONS = (
    "exact",          # the code named the qualified name
    "import",         # followed an import / alias
    "self",           # self./this./cls. inside the class, or super()
    "dispatch",       # self.m() in a class may run the override of m in a subclass
    "receiver_type",  # the receiver's type is visible in the code
    "same_module",    # a name defined in the same module / file
    "module_alias",   # a module bound to another name (os.path -> posixpath)
    "dynamic_import",  # a module named by a string: importlib.import_module("m"), a function returning it
    "value_flow",     # a name / container / attribute / return value holding the target
    "parameter",      # a function passed as an argument, called by the callee
    "return_type",    # a receiver typed by a function's return annotation
    "annotation",     # a type named in an annotation, generic argument or cast
    "protocol",       # for / with / next() reaching __iter__ / __enter__ / ...
    "injection",      # dependency injection (FastAPI Depends, constructor injection)
    "unique_name",    # the only symbol of that name in the repo
    "overload",       # one of several overloads of the named member
    "cross_repo",     # missed in its repo, found in what another repo of the workspace provides
    "stub",           # not resolved: target is an UnresolvedSymbol
)
# Confidence of an edge found by name, stored in ``Edge.extra["confidence"]`` (0..1):
# ``unique_name`` may be a library's method of the same name; ``overload`` is divided by
# the number of overloads the call could reach. Every other resolution is certain (1.0).
NAME_CONFIDENCE = {"unique_name": 0.5, "overload": 1.0}


def edge_confidence(e: Edge) -> float:
    """0..1: the stored confidence, else 1.0 (``stub`` edges are 0: they reach nothing)."""
    if e.resolution == "stub":
        return 0.0
    c = e.extra.get("confidence") if e.extra else None
    return float(c) if isinstance(c, int | float) else NAME_CONFIDENCE.get(e.resolution, 1.0)


def _sha1(data: bytes = b"") -> Any:
    """``hashlib.sha1(data)``. hashlib loads OpenSSL's libcrypto (~2 ms), which queries never
    need: imported at the first hash, after which this name is hashlib's own sha1."""
    global _sha1
    from hashlib import sha1

    _sha1 = sha1
    return sha1(data)


def stable_hash(*parts: str) -> str:
    """16 hex chars of sha1 over the parts; used for content and signature hashes."""
    # Each part then \x1f, encoded at once (the same bytes as part by part; none: no bytes).
    joined = "\x1f".join(parts) + "\x1f" if parts else ""
    return _sha1(joined.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def file_hash(data: bytes) -> str:
    """A file's ``content_hash`` as the indexer stores it: 16 hex chars of sha1 of its bytes
    (the one definition: pipeline, JSONL load and the audit compare files with it)."""
    return _sha1(data).hexdigest()[:16]


# -- uids: built by the *_uid functions below, read back only by these ----------------------
def parse_uid(uid: str) -> tuple[str, str, str]:
    """(kind, repo, rest) of a uid: ``sym|r|qn|sig`` -> ("sym", "r", "qn|sig"),
    ``file|r|a/b.py`` -> ("file", "r", "a/b.py"), ``stub|r|t`` -> ("stub", "r", "t"),
    ``repo|r`` -> ("repo", "r", ""). An unknown shape gives ("", "", uid)."""
    kind, sep, tail = uid.partition("|")
    if not sep:
        return "", "", uid
    repo, _, rest = tail.partition("|")
    return kind, repo, rest


def uid_kind(uid: str) -> str:
    """``sym``, ``file``, ``stub``, ``repo``, ``endpoint``, ``table``, ``topic``, ``issue``... or ""."""
    return parse_uid(uid)[0]


def file_path_of(uid: str) -> str | None:
    """The repo-relative path a File uid names, None for other uids."""
    kind, _, rest = parse_uid(uid)
    return rest if kind == "file" else None


def stub_target(uid: str) -> str:
    """The target identifier of a stub uid (``stub|r|os.getcwd`` -> ``os.getcwd``); other
    uids are returned unchanged."""
    kind, _, rest = parse_uid(uid)
    return rest if kind == "stub" else uid


def symbol_qn_of(uid: str) -> str | None:
    """The qualified name a Symbol uid names, None for other uids."""
    kind, _, rest = parse_uid(uid)
    return rest.rsplit("|", 1)[0] if kind == "sym" else None


def repo_uid(name: str) -> str:
    return f"repo|{name}"


def file_uid(repo: str, path: str) -> str:
    return f"file|{repo}|{path}"


def symbol_uid(repo: str, qualified_name: str, signature_hash: str) -> str:
    return f"sym|{repo}|{qualified_name}|{signature_hash}"


def stub_uid(repo: str, target_identifier: str) -> str:
    return f"stub|{repo}|{target_identifier}"


def endpoint_uid(repo: str, method: str, path_template: str) -> str:
    return f"endpoint|{repo}|{method.upper()} {path_template}"


def table_uid(repo: str, name: str) -> str:
    return f"table|{repo}|{name}"


def topic_uid(repo: str, name: str) -> str:
    return f"topic|{repo}|{name}"


def issue_uid(repo: str, number: int) -> str:
    return f"issue|{repo}|{number}"


@dataclass(slots=True)
class Node:
    """Any graph node: ``label`` is one of NODE_LABELS, ``props`` its properties.

    ``props`` always holds ``repo`` and the label's key properties (docs/DESIGN.md#graph-model).
    """

    uid: str
    label: str
    props: dict[str, Any] = field(default_factory=dict)

    @property
    def repo(self) -> str:
        return self.props.get("repo", "")

    def display(self) -> str:
        """Short human name: qualified name, path, target or name."""
        p = self.props
        return (
            p.get("qualified_name") or p.get("path") or p.get("target_identifier")
            or (f"{p.get('method', '')} {p.get('path_template', '')}".strip() if self.label == ENDPOINT else None)
            or p.get("name") or p.get("title") or self.uid
        )


@dataclass(slots=True)
class Edge:
    """A typed edge between two node uids, with its evidence (docs/DESIGN.md#graph-model: every derived
    edge keeps ``file`` and ``line``). ``file`` is repo-relative; ``line`` is 1-based.

    ``resolution`` is one of RESOLUTIONS for reference edges, "" for structural ones.
    ``extra`` is JSON-serialisable (imported names, URL literal, candidates...).
    """

    type: str
    source: str
    target: str
    file: str = ""
    line: int = 0
    resolution: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def key(self) -> tuple[str, str, str, str, int]:
        return edge_key(self.type, self.source, self.target, self.file, self.line)


def edge_key(type_: str, source: str, target: str, file: str, line: int) -> tuple[str, str, str, str, int]:
    """An edge's identity (``Edge.key``): edges with one key are one edge. The resolver
    checks it before it builds the Edge."""
    return (type_, source, target, file, line)


@dataclass(slots=True)
class Step:
    """One step of an answer (impact, search, audit) and its wall-clock milliseconds."""

    name: str
    ms: float
    detail: str = ""


@dataclass(slots=True)
class EdgeHit:
    """One step of a neighbour query: the edge and the node at its other end."""

    edge: Edge
    node: Node


_SCALAR_FIELDS: dict[type, tuple[str, ...]] = {}


def scalar_props(record: Any) -> dict[str, Any]:
    """``asdict(record)`` for records whose fields all hold scalars (str, int, bool,
    None): the same dict without asdict's recursive copies, which were most of the cost
    of loading a repository's symbols."""
    names = _SCALAR_FIELDS.get(type(record))
    if names is None:
        names = _SCALAR_FIELDS[type(record)] = tuple(f.name for f in fields(record))
    return {n: getattr(record, n) for n in names}


@pickled_by_fields
@dataclass(slots=True)
class FileRecord:
    """A File node's properties (docs/DESIGN.md#graph-model)."""

    repo: str
    path: str
    language: str
    content_hash: str
    had_error: bool = False
    coverage_status: str = "full"  # full | partial | error
    route: str | None = None
    app: str | None = None
    is_test: bool = False
    size_bytes: int = 0
    line_count: int = 0

    @property
    def uid(self) -> str:
        return file_uid(self.repo, self.path)

    def to_node(self) -> Node:
        return Node(self.uid, FILE, scalar_props(self))


@pickled_by_fields
@dataclass(slots=True)
class SymbolRecord:
    """A Symbol node's properties. Key: (repo, qualified_name, signature_hash).

    ``signature_hash`` hashes kind + qualified name + parameter list (not the body), so
    editing a body keeps the node; ``content_hash`` hashes the body text. ``line`` and
    ``end_line`` are 1-based and inclusive. ``signature`` and ``docstring`` feed search.
    """

    repo: str
    qualified_name: str
    signature_hash: str
    name: str
    kind: str  # module | class | interface | struct | enum | trait | function | method | field | variable
    language: str
    language_kind: str  # the grammar's node type, e.g. function_definition
    file: str
    line: int
    end_line: int
    visibility: str = "public"  # public | protected | private | internal
    content_hash: str = ""
    signature: str = ""
    docstring: str = ""
    parent: str | None = None  # qualified name of the enclosing class/module, if any
    arity: int | None = None  # parameter count where the language has overloads; None = unknown
    variadic: bool = False  # last parameter takes any number of arguments
    # Parameter types as the extractor wrote them into the signature hash (Java, Kotlin,
    # C#, C++: languages with overloads), e.g. "int,int"; names one overload in a target
    # ``qn(params)`` (codegraph.core.overloads). None elsewhere.
    params: str | None = None

    @property
    def uid(self) -> str:
        return symbol_uid(self.repo, self.qualified_name, self.signature_hash)

    def to_node(self) -> Node:
        return Node(self.uid, SYMBOL, scalar_props(self))


@dataclass(slots=True)
class StubRecord:
    """An UnresolvedSymbol: a reference the resolver could not place.

    ``reason`` is ``missing`` (no symbol of that name) or ``ambiguous`` (several; the
    resolver never picks one). ``candidates`` lists the qualified names when ambiguous.
    """

    repo: str
    target_identifier: str
    reason: str
    candidate_count: int = 0
    candidates: list[str] = field(default_factory=list)

    @property
    def uid(self) -> str:
        return stub_uid(self.repo, self.target_identifier)

    def to_node(self) -> Node:
        # asdict's props, written out: asdict deep-copies field by field (~15 us a stub,
        # 2,500-4,000 stubs on a full index, in the run's serial tail).
        return Node(self.uid, STUB, {"repo": self.repo, "target_identifier": self.target_identifier,
                                     "reason": self.reason, "candidate_count": self.candidate_count,
                                     "candidates": list(self.candidates)})


@dataclass(slots=True)
class RepoRecord:
    name: str
    path: str
    last_commit_sha: str | None = None
    last_imported_at: str | None = None  # ISO-8601 UTC; graph changed
    last_checked_at: str | None = None   # ISO-8601 UTC; every run
    extractor_version: str = ""
    unsupported: dict[str, int] = field(default_factory=dict)  # extension -> files with no extractor
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> files not indexed
    # Completeness (docs/hardening.md, "Completeness"): "running" from a run's first graph
    # write until its last one, then "complete". A run that died leaves "running", and
    # the commit / import time above stay those of the last complete run.
    run_state: str = "complete"
    run_started_at: str | None = None
    run_owner: str | None = None  # host:pid of the run that set run_state

    @property
    def uid(self) -> str:
        return repo_uid(self.name)

    def to_node(self) -> Node:
        return Node(self.uid, REPO, asdict(self) | {"repo": self.name})


@dataclass(slots=True)
class FileImport:
    """One file's desired state for the file-scoped diff (docs/DESIGN.md#import)."""

    file: FileRecord
    symbols: list[SymbolRecord]


@dataclass(slots=True)
class FileDiff:
    """What the file-scoped diff did to one file."""

    added: int = 0
    updated: int = 0
    removed: int = 0


@pickled_by_fields
@dataclass(slots=True)
class Chunk:
    """A search unit: a function/method, class, or file section, with real source text.

    ``embed_text`` is the compact text that is embedded (signature, docstring, first
    lines); ``text`` is what BM25 indexes and what answers show. ``symbol_uid`` or
    ``file_uid`` tie the chunk to its graph node (a hit without one is dropped).
    """

    chunk_id: str
    repo: str
    file: str
    kind: str  # function | method | class | section
    language: str
    line: int
    end_line: int
    text: str
    embed_text: str
    content_hash: str
    qualified_name: str = ""
    name: str = ""
    symbol_uid: str = ""
    file_uid: str = ""
    # BM25 term fields (name, qualified name, identifiers in the text), computed by the
    # indexer's extraction workers so the main process does not split identifiers; None:
    # the store computes them on write (codegraph.core.retrieval.chunk_terms). Not stored.
    terms: tuple[str, str, str] | None = field(default=None, compare=False, repr=False)


def location(file: str | None, line: int | None) -> str:
    """Where a node is, for people: ``file:line``, ``file`` when it has no line (a page
    file, line 0), "" when it has no file (tables, endpoints, topics)."""
    if not file:
        return ""
    return f"{file}:{line}" if line else file

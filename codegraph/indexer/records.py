"""The extraction contract: what an extractor emits for one file (DESIGN.md
'Extraction contract'). Serialised as JSONL by ``codegraph extract`` (one record per
line, ``"type"`` first), read back by ``codegraph load``.

A ``Reference`` is an *unresolved* relationship as the code states it. The resolver
(``codegraph.indexer.resolve``) turns references into ``Edge``s or stubs using the whole
repository's symbol table. Its ``extra`` carries the resolution hints:

``extra["candidates"]``: ordered list, tried first to last, the first that exists wins:
    ``{"qn": "pkg.mod.f", "how": "import"}`` - an exact qualified name
    ``{"owner": "pkg.mod.C", "member": "run", "how": "receiver_type"}`` - a member looked
        up on class ``owner`` and then on its resolved base classes (EXTENDS), in order
    ``{"path": "src/a.ts", "how": "import"}`` - a file (IMPORTS edges)
    ``{"file": ["a/b.ts", "a/b/index.ts"], "export": "default", "how": "import"}`` - the
        first existing file's export of that name, following re-exports (see ``exports``)
    ``{"module_chain": {"file": [...], "attrs": ["path", "join"]}, "how": "module_alias"}``
        - from the first existing file, every attr but the last names a module (an
        export ``{"modules"}``, a ``from`` import of a module, a submodule); the last is an
        export of the module(s) reached (``os.path.join`` -> ``posixpath.join``). With
        ``"to_file": true`` every attr is a module and the files are the targets (IMPORTS).
        Edges resolved so keep ``extra["written_as"]`` (the name as written).
``extra["name"]``: bare name for the fallback "unique (repo, name) match"; absent or
    None when the fallback must not apply (e.g. the call goes through an import of a
    module that is not in the repo: that is an external reference, a ``missing`` stub).
``extra["name_kinds"]``: symbol kinds the fallback may match (e.g. ["method"]).
``extra["optional"]``: True when no stub should be created if nothing matches (e.g. the
    ``__init__`` edge of a constructor call on a class without one).
``extra["names"]``, ``extra["forwarding"]``: for IMPORTS, the imported names and whether
    the import re-exports them (barrels).

``FileExtraction.exports`` maps a name a module exports to where it lives:
    ``{"qn": "pkg.x.f"}`` (defined here, or bound to a local symbol, incl. ``default``)
    ``{"from": ["pkg/x.py", "pkg/x/__init__.py"], "name": "f"}`` (re-export / barrel)
    key ``"*"``: ``{"from_all": [[paths of module 1], [paths of module 2]]}`` (``export *``)
    ``{"modules": [[paths of module 1], ...]}``: the name is bound to a module (Python
        ``import posixpath as path``, ``from . import sub``); one path list per binding
Python ``__init__.py`` files use the same map for names they import and so re-export.

``source_qualified_name`` is a Symbol's qualified name (a module symbol for module-level
code), or for IMPORTS the importing file's path with ``source_kind == "file"``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import IO, Any

from codegraph.core.errors import BadInput
from codegraph.core.models import FileRecord, SymbolRecord

SCHEMA_VERSION = 1


@dataclass(slots=True)
class Reference:
    type: str  # CALLS | IMPORTS | EXTENDS | IMPLEMENTS | USES_TYPE | INJECTS
    source_qualified_name: str
    target_identifier: str  # as written in the code, e.g. "Parser.run", "os.path.join"
    file: str
    line: int
    source_signature_hash: str = ""  # empty: any symbol of that qualified name in file
    source_kind: str = "symbol"  # symbol | file
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class FileExtraction:
    """Everything extracted from one file. ``framework`` holds the framework records
    (endpoint, http_call, table_access, topic_access, route) as plain dicts."""

    file: FileRecord
    symbols: list[SymbolRecord] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    framework: list[dict[str, Any]] = field(default_factory=list)
    exports: dict[str, dict[str, Any]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def write_jsonl(out: IO[str], header: dict[str, Any], files: list[FileExtraction]) -> int:
    """Write a header record then each file's records; returns records written."""
    n = 0

    def emit(rec_type: str, payload: dict[str, Any]) -> None:
        nonlocal n
        out.write(json.dumps({"type": rec_type, **payload}, ensure_ascii=False) + "\n")
        n += 1

    emit("header", {"schema_version": SCHEMA_VERSION, **header})
    for fx in files:
        emit("file_meta", asdict(fx.file))
        for s in fx.symbols:
            emit("symbol", asdict(s))
        for r in fx.references:
            rel = asdict(r)
            rel["rel_type"] = rel.pop("type")  # "type" names the record kind on every line
            emit("relationship", rel)
        for name, target in fx.exports.items():
            emit("export", {"file": fx.file.path, "name": name, "target": target})
        for fr in fx.framework:
            emit(fr["type"], {k: v for k, v in fr.items() if k != "type"})
    return n


@dataclass(slots=True)
class JsonlProblem:
    line: int
    reason: str


def read_jsonl(lines: IO[str]) -> tuple[dict[str, Any], list[FileExtraction], list[JsonlProblem]]:
    """Parse a JSONL extraction. Malformed lines are reported (line number, reason) and
    skipped; the rest loads. Raises BadInput when the header is missing or its
    schema_version is newer than this reader."""
    header: dict[str, Any] | None = None
    files: dict[str, FileExtraction] = {}
    problems: list[JsonlProblem] = []
    for no, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
            rtype = rec.pop("type")
            if rtype == "header":
                header = rec
                if int(rec.get("schema_version", 0)) > SCHEMA_VERSION:
                    raise BadInput(f"schema_version {rec['schema_version']} is newer than {SCHEMA_VERSION}")
            elif rtype == "file_meta":
                fr = FileRecord(**rec)
                files[fr.path] = FileExtraction(file=fr)
            elif rtype == "symbol":
                s = SymbolRecord(**rec)
                files[s.file].symbols.append(s)
            elif rtype == "relationship":
                rec["type"] = rec.pop("rel_type")
                r = Reference(**rec)
                files[r.file].references.append(r)
            elif rtype == "export":
                f = files[rec["file"]]
                f.exports[rec["name"]] = dict(rec["target"])
            else:
                files[rec["file"]].framework.append({"type": rtype, **rec})
        except BadInput:
            raise
        except KeyError as e:
            problems.append(JsonlProblem(no, f"refers to a file with no file_meta before it or lacks {e}"))
        except (ValueError, TypeError) as e:
            problems.append(JsonlProblem(no, f"{type(e).__name__}: {str(e)[:200]}"))
    if header is None:
        raise BadInput("no header record: not a codegraph extraction file")
    return header, list(files.values()), problems


def iter_record_types(fx: FileExtraction) -> Iterator[str]:
    yield "file_meta"
    yield from ("symbol" for _ in fx.symbols)
    yield from ("relationship" for _ in fx.references)

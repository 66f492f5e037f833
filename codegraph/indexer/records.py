"""The extraction contract: what an extractor emits for one file
(docs/DESIGN.md#extraction-contract). Serialised as JSONL by ``codegraph extract`` (one record per
line, ``"type"`` first), read back by ``codegraph load``.

A ``Reference`` is an *unresolved* relationship as the code states it. The resolver
(``codegraph.indexer.resolve``) turns references into ``Edge``s or stubs using the whole
repository's symbol table. Its ``extra`` carries the resolution hints:

``extra["candidates"]``: ordered list of candidates, tried first to last, the first that
    exists wins; ``extra["pass"]`` / ``extra["param_call"]``: value hand-over hints. Their
    shapes (one dataclass per kind, ``parse_hint`` / ``to_dict``) are defined once in
    ``codegraph.indexer.hints``; the resolver dispatches on those types. Edges resolved
    through a ``module_chain`` keep ``extra["written_as"]`` (the name as written).
``extra["name"]``: bare name for the fallback "unique (repo, name) match"; absent or
    None when the fallback must not apply (e.g. the call goes through an import of a
    module that is not in the repo: that is an external reference, a ``missing`` stub).
``extra["name_kinds"]``: symbol kinds the fallback may match (e.g. ["method"]).
``extra["optional"]``: True when no stub should be created if nothing matches (e.g. the
    ``__init__`` edge of a constructor call on a class without one).
``extra["names"]``, ``extra["forwarding"]``: for IMPORTS, the imported names and whether
    the import re-exports them (barrels).
``extra["pass_only"]``: a ``pass`` hint's reference makes no REFERENCES edge of its own.

``FileExtraction.exports`` maps a name a module exports to where it lives:
    ``{"qn": "pkg.x.f"}`` (defined here, or bound to a local symbol, incl. ``default``)
    ``{"from": ["pkg/x.py", "pkg/x/__init__.py"], "name": "f"}`` (re-export / barrel)
    key ``"*"``: ``{"from_all": [[paths of module 1], [paths of module 2]]}`` (``export *``)
    ``{"modules": [[paths of module 1], ...]}``: the name is bound to a module (Python
        ``import posixpath as path``, ``from . import sub``); one path list per binding
    ``"returns"`` (next to ``qn``): what that function returns, a list of owners
        ``{"owner": qn}`` / ``{"owner_export": {"file", "export"}}`` (``hints.parse_owner``;
        read for ``returns_of`` candidates)
Python ``__init__.py`` files use the same map for names they import and so re-export.

``source_qualified_name`` is a Symbol's qualified name (a module symbol for module-level
code), or for IMPORTS the importing file's path with ``source_kind == "file"``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import IO, TYPE_CHECKING, Any, get_type_hints

from codegraph.core.errors import BadInput
from codegraph.core.models import FileRecord, SymbolRecord, pickled_by_fields
from codegraph.core.paths import safe_relpath
from codegraph.indexer.hints import HintError, parse_owner, reference_hints

if TYPE_CHECKING:
    from pydantic import ValidationError

SCHEMA_VERSION = 1


@pickled_by_fields
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


@pickled_by_fields
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
    """Write a header record, each file's records, then the closing ``end`` record
    (``files``: file_meta records written, ``records``: lines before it). Returns the
    records written, the closing one included. A reader takes a file without the closing
    record as truncated (docs/extraction-format.md)."""
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
    emit("end", {"files": len(files), "records": n})
    return n


@dataclass(slots=True)
class JsonlProblem:
    line: int
    reason: str


@dataclass(slots=True)
class JsonlRun:
    """One JSONL extraction as read. ``end`` is the closing record (None: truncated);
    ``file_lines`` the line of each file's file_meta; ``tainted`` the files with a
    malformed line among their records (their extraction may be incomplete);
    ``outside`` the (line, path) of records whose path leaves the repo root."""

    header: dict[str, Any]
    files: list[FileExtraction]
    problems: list[JsonlProblem]
    end: dict[str, Any] | None = None
    file_lines: dict[str, int] = field(default_factory=dict)
    tainted: set[str] = field(default_factory=set)
    outside: list[tuple[int, str]] = field(default_factory=list)
    outside_files: int = 0  # file_meta records among ``outside``

    @property
    def complete(self) -> bool:
        """The closing record is there and every file it counts was read (or refused as
        outside the root). A malformed file_meta leaves the run incomplete: the file it
        described is unknown, so nothing may be deleted on its account."""
        return self.end is not None and self.end.get("files") == len(self.files) + self.outside_files


class _Strict:
    """Strict pydantic validation of a record dataclass: a pydantic model with the same
    fields (types exact, unknown keys refused) checks the dict, then the dataclass is built."""

    def __init__(self, cls: type) -> None:
        from pydantic import ConfigDict, Field, create_model

        hints = get_type_hints(cls)
        spec: dict[str, Any] = {}
        for f in fields(cls):
            if f.default is not MISSING:
                spec[f.name] = (hints[f.name], f.default)
            elif f.default_factory is not MISSING:
                spec[f.name] = (hints[f.name], Field(default_factory=f.default_factory))
            else:
                spec[f.name] = (hints[f.name], ...)
        self.cls = cls
        self.model = create_model(f"{cls.__name__}Check", __config__=ConfigDict(strict=True, extra="forbid"), **spec)

    def __call__(self, rec: dict[str, Any]) -> Any:
        return self.cls(**dict(self.model.model_validate(rec)))


_CHECKS: list[_Strict] = []


def _checks() -> list[_Strict]:
    """The three record checks, built on the first JSONL read: pydantic's import and the
    models cost ~0.25 s, which every indexer start-up (a refresh from the CLI) would pay."""
    if not _CHECKS:
        _CHECKS.extend([_Strict(FileRecord), _Strict(SymbolRecord), _Strict(Reference)])
    return _CHECKS


def _pydantic_reason(e: ValidationError) -> str:
    first = e.errors()[0]
    where = ".".join(str(x) for x in first.get("loc", ())) or "record"
    return f"{where}: {first.get('msg', 'invalid')}"


def read_jsonl(lines: IO[str]) -> tuple[dict[str, Any], list[FileExtraction], list[JsonlProblem]]:
    """(header, files, problems) of :func:`read_jsonl_run`."""
    run = read_jsonl_run(lines)
    return run.header, run.files, run.problems


def read_jsonl_run(lines: IO[str]) -> JsonlRun:
    """Parse a JSONL extraction. A malformed line (not JSON, not an object, a field of
    the wrong type, a path outside the repo root, a record before its file_meta) is
    reported (line number, reason) and skipped; the rest is read. Raises BadInput when
    the header is missing or its schema_version is newer than this reader."""
    from pydantic import ValidationError

    check_file, check_symbol, check_ref = _checks()
    header: dict[str, Any] | None = None
    files: dict[str, FileExtraction] = {}
    run = JsonlRun({}, [], [])
    last_file: str | None = None
    for no, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
            if not isinstance(rec, dict):
                raise ValueError(f"a JSON {type(rec).__name__}, not an object")
            rtype = rec.pop("type", None)
            if not isinstance(rtype, str):
                raise ValueError("no \"type\" string")
            path = rec.get("path") if rtype == "file_meta" else rec.get("file")
            if rtype not in ("header", "end"):
                bad = safe_relpath(path)
                if bad is not None:
                    if isinstance(path, str) and path:
                        run.outside.append((no, path))
                        run.outside_files += rtype == "file_meta"
                    raise ValueError(bad)
            if rtype == "header":
                header = rec
                try:
                    version = int(rec.get("schema_version", 0))
                except (TypeError, ValueError):
                    raise BadInput(f"line {no}: schema_version {rec.get('schema_version')!r} is not a number") from None
                if version > SCHEMA_VERSION:
                    raise BadInput(f"schema_version {rec['schema_version']} is newer than {SCHEMA_VERSION}")
            elif rtype == "end":
                run.end = rec
            elif rtype == "file_meta":
                fr = check_file(rec)
                files[fr.path] = FileExtraction(file=fr)
                run.file_lines[fr.path] = no
                last_file = fr.path
            elif rtype == "symbol":
                s = check_symbol(rec)
                files[s.file].symbols.append(s)
            elif rtype == "relationship":
                rec["type"] = rec.pop("rel_type", None)
                r = check_ref(rec)
                reference_hints(r.extra)  # a malformed hint refuses the line (HintError)
                files[r.file].references.append(r)
            elif rtype == "export":
                f = files[rec["file"]]
                if not isinstance(rec.get("name"), str) or not isinstance(rec.get("target"), dict):
                    raise ValueError("export needs a string name and an object target")
                returns = rec["target"].get("returns", [])
                if not isinstance(returns, list):
                    raise HintError("export returns: must be a list")
                for owner in returns:
                    parse_owner(owner)
                f.exports[rec["name"]] = dict(rec["target"])
            else:
                if "line" in rec and (not isinstance(rec["line"], int) or isinstance(rec["line"], bool)):
                    raise ValueError("line is not an integer")
                files[rec["file"]].framework.append({"type": rtype, **rec})
            continue
        except BadInput:
            raise
        except KeyError as e:
            reason = f"refers to a file with no file_meta before it or lacks {e}"
        except ValidationError as e:
            reason = _pydantic_reason(e)
        except HintError as e:
            reason = f"resolution hint: {e}"
        except (ValueError, TypeError, RecursionError) as e:
            reason = f"{type(e).__name__}: {str(e)[:200]}"
        run.problems.append(JsonlProblem(no, reason))
        if last_file is not None:
            run.tainted.add(last_file)
    if header is None:
        raise BadInput("no header record: not a codegraph extraction file")
    run.header, run.files = header, list(files.values())
    return run


def iter_record_types(fx: FileExtraction) -> Iterator[str]:
    yield "file_meta"
    yield from ("symbol" for _ in fx.symbols)
    yield from ("relationship" for _ in fx.references)

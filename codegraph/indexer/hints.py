"""Resolution hints, typed (docs/DESIGN.md#resolution).

A ``Reference`` (``codegraph.indexer.records``) carries its hints in ``extra`` as plain
JSON (that is what the JSONL contract stores and what the extractors build). This module
is the one definition of their shapes: a frozen dataclass per kind, :func:`parse_hint`
(dict -> hint) at the boundary, ``to_dict()`` (hint -> dict) for writing. The resolver
dispatches on these types, never on which key a dict happens to hold.

Candidates (``extra["candidates"]``, tried first to last, the first that exists wins):

=====================  ===============================================================
dict                   hint
=====================  ===============================================================
``{"qn"}``             :class:`QualifiedName` - an exact qualified name
``{"path"}``           :class:`FilePath` - a file (IMPORTS edges)
``{"dir"}``            :class:`Directory` - every file of a folder
``{"file","export"}``  :class:`FileExport` - the first existing file's export of that
                       name, following re-exports and ``export *``
``{"module_chain"}``   :class:`ModuleChain` - attrs walked through module bindings from
                       the first existing file, the last one an export (or, ``to_file``,
                       every attr a module and the files the answer)
``{"owner","member"}`` :class:`Member` - a member of class ``owner`` or of its bases
``{"super_of",...}``   :class:`SuperMember` - a member of the bases of ``super_of`` only
``{"owner_export",..}``:class:`ExportMember` - a member of the class a file exports
``{"returns_of",...}`` :class:`ReturnMember` - a member of what an exported function
                       returns (its export's ``returns``: owners, see :func:`parse_owner`)
``{"returns_of_method"``:class:`MethodReturnMember` - a member of what a method returns
  ``: {owner, method}}``  (the export ``Class.method`` of its module: ``returns``)
``{"module_of_call"``  :class:`ModuleOfCall` - ``attrs`` walked from the module an exported
  ``: {file, export,``  function returns (its export's ``module_param`` picks the argument
  ``args}, "attrs"}``   whose module files are the start), the last attr an export
                       (with ``member``: that member of the class exported)
``{"go_import",...}``  :class:`GoImport` - a Go placeholder ``languages.go.link_repo``
                       rewrites once go.mod is known; as such it matches nothing
anything else          :class:`UnknownHint` - kept (and written back) as it came; matches
                       nothing and is counted (``unknown_hint``) by the resolver
=====================  ===============================================================

Every candidate has ``how``: the resolution label of an edge it yields (default ``exact``).
Where several keys are present the first row of the table that fits wins (the order the
resolver always applied).

Other hints: ``extra["pass"]`` (:class:`Pass`: a value handed to a callee at a position
or keyword) and ``extra["param_call"]`` (:class:`ParamCall`: the code calls a parameter).
:func:`reference_hints` parses all of one reference's at once (:class:`RefHints`).

Errors: a dict of a known kind whose fields have the wrong type (``{"qn": 5}``, ``owner``
without ``member``) raises :class:`HintError` (a ``ValueError``; the JSONL reader reports
the line). Extractors may build hints with these classes and write ``to_dict()``
(``to_dicts`` for a list).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, TypeVar

DEFAULT_HOW = "exact"
_T = TypeVar("_T")


class HintError(ValueError):
    """A hint of a known kind with fields of the wrong type; the message names the field."""


def _str(d: Mapping[str, Any], key: str, kind: str) -> str:
    v = d.get(key)
    if type(v) is not str:
        raise _wrong(kind, key, v)
    return v


def _strs(d: Mapping[str, Any], key: str, kind: str) -> tuple[str, ...]:
    v = d.get(key)
    if type(v) is list or type(v) is tuple:
        for x in v:
            if type(x) is not str:
                break
        else:
            return tuple(v)
    raise HintError(f"{kind} hint: {key!r} must be a list of strings")


def _opt_int(d: Mapping[str, Any], key: str, kind: str) -> int | None:
    v = d.get(key)
    if v is None or (isinstance(v, int) and not isinstance(v, bool)):
        return v
    raise HintError(f"{kind} hint: {key!r} must be an integer or null")


def _opt_str(d: Mapping[str, Any], key: str, kind: str) -> str | None:
    v = d.get(key)
    if v is None or isinstance(v, str):
        return v
    raise HintError(f"{kind} hint: {key!r} must be a string or null")


@dataclass(frozen=True, slots=True)
class ExportRef:
    """The export ``export`` of the first existing file of ``files``
    (``{"file": [...], "export": name}``)."""

    files: tuple[str, ...]
    export: str

    def to_dict(self) -> dict[str, Any]:
        return {"file": list(self.files), "export": self.export}

    @staticmethod
    def parse(d: Any, kind: str) -> ExportRef:
        if type(d) is not dict and not isinstance(d, Mapping):  # the exact type first: an ABC check is slow
            raise HintError(f"{kind} hint: must be an object with 'file' and 'export'")
        return _EXPORT_REF(_strs(d, "file", kind), _str(d, "export", kind))


@dataclass(frozen=True, slots=True)
class QualifiedName:
    qn: str
    how: str = DEFAULT_HOW

    def to_dict(self) -> dict[str, Any]:
        return {"qn": self.qn, "how": self.how}


@dataclass(frozen=True, slots=True)
class FilePath:
    path: str
    how: str = DEFAULT_HOW

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "how": self.how}


@dataclass(frozen=True, slots=True)
class Directory:
    dir: str
    how: str = DEFAULT_HOW

    def to_dict(self) -> dict[str, Any]:
        return {"dir": self.dir, "how": self.how}


@dataclass(frozen=True, slots=True)
class FileExport:
    files: tuple[str, ...]
    export: str
    how: str = DEFAULT_HOW

    def to_dict(self) -> dict[str, Any]:
        return {"file": list(self.files), "export": self.export, "how": self.how}


@dataclass(frozen=True, slots=True)
class ModuleChain:
    files: tuple[str, ...]
    attrs: tuple[str, ...]
    to_file: bool = False
    how: str = DEFAULT_HOW

    def to_dict(self) -> dict[str, Any]:
        mc: dict[str, Any] = {"file": list(self.files), "attrs": list(self.attrs)}
        if self.to_file:
            mc["to_file"] = True
        return {"module_chain": mc, "how": self.how}


@dataclass(frozen=True, slots=True)
class Member:
    owner: str
    member: str
    how: str = DEFAULT_HOW

    def to_dict(self) -> dict[str, Any]:
        return {"owner": self.owner, "member": self.member, "how": self.how}


@dataclass(frozen=True, slots=True)
class SuperMember:
    super_of: str
    member: str
    how: str = DEFAULT_HOW

    def to_dict(self) -> dict[str, Any]:
        return {"super_of": self.super_of, "member": self.member, "how": self.how}


@dataclass(frozen=True, slots=True)
class ExportMember:
    owner: ExportRef
    member: str
    how: str = DEFAULT_HOW

    def to_dict(self) -> dict[str, Any]:
        return {"owner_export": self.owner.to_dict(), "member": self.member, "how": self.how}


@dataclass(frozen=True, slots=True)
class ReturnMember:
    function: ExportRef
    member: str
    how: str = DEFAULT_HOW

    def to_dict(self) -> dict[str, Any]:
        return {"returns_of": self.function.to_dict(), "member": self.member, "how": self.how}


@dataclass(frozen=True, slots=True)
class MethodReturnMember:
    """``{"returns_of_method": {"owner" | "owner_export", "method"}, "member"}``: a member of
    what method ``method`` of that class returns (the export ``Class.method`` of the
    module declaring the method: ``returns``, see :func:`parse_owner`)."""

    owner: str | ExportRef
    method: str
    member: str
    how: str = DEFAULT_HOW

    def to_dict(self) -> dict[str, Any]:
        return {"returns_of_method": {**owner_to_dict(self.owner), "method": self.method}, "member": self.member,
                "how": self.how}


@dataclass(frozen=True, slots=True)
class ModuleArg:
    """A string-literal argument of a call that spells a module: its position (``index``)
    or keyword (``kw``), the files of that module and of its top-level package (``top``,
    for a function returning ``__import__(name)``; the module's own files when undotted)."""

    index: int | None
    kw: str | None
    files: tuple[str, ...]
    top: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"index": self.index} if self.index is not None else {"kw": self.kw}
        d["file"] = list(self.files)
        if self.top != self.files:
            d["top"] = list(self.top)
        return d

    @staticmethod
    def parse(d: Any) -> ModuleArg:
        if not isinstance(d, Mapping):
            raise HintError("module_of_call hint: each of 'args' must be an object")
        files = _strs(d, "file", "module_of_call")
        return ModuleArg(_opt_int(d, "index", "module_of_call"), _opt_str(d, "kw", "module_of_call"), files,
                         _strs(d, "top", "module_of_call") if "top" in d else files)

    def fits(self, index: int, name: str) -> bool:
        """Is this the argument given for parameter ``name`` at position ``index``?"""
        return self.index == index if self.index is not None else self.kw == name


@dataclass(frozen=True, slots=True)
class ModuleOfCall:
    """``{"module_of_call": {"file", "export", "args": [...]}, "attrs": [...], "member"?}``:
    what ``attrs`` names in the module the exported function returns when called with
    these literal arguments (its export's ``module_param``: ``{"index", "name", "top"}``)."""

    function: ExportRef
    args: tuple[ModuleArg, ...]
    attrs: tuple[str, ...]
    member: str | None = None
    how: str = DEFAULT_HOW

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"module_of_call": {**self.function.to_dict(), "args": [a.to_dict() for a in self.args]},
                             "attrs": list(self.attrs)}
        if self.member is not None:
            d["member"] = self.member
        d["how"] = self.how
        return d


@dataclass(frozen=True, slots=True)
class GoImport:
    """``{"go_import": path, "go_qn": name}`` or ``{"go_import", "go_owner", "member"}``."""

    import_path: str
    qn: str | None = None
    owner: str | None = None
    member: str | None = None
    how: str = DEFAULT_HOW

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"go_import": self.import_path}
        if self.qn is not None:
            d["go_qn"] = self.qn
        if self.owner is not None:
            d["go_owner"] = self.owner
        if self.member is not None:
            d["member"] = self.member
        d["how"] = self.how
        return d


@dataclass(frozen=True, slots=True)
class UnknownHint:
    """A candidate of no known shape, kept as it came (``raw``)."""

    raw: Mapping[str, Any] = field(hash=False)
    how: str = DEFAULT_HOW

    def to_dict(self) -> dict[str, Any]:
        return dict(self.raw)


def _positional(cls: type[_T]) -> Callable[..., _T]:
    """``cls(*values)`` for a frozen slotted dataclass given every field, in order: the object
    made by ``object.__new__`` with its slots set through their descriptors, not by the generated
    ``__init__`` (one ``object.__setattr__`` call per field, about twice the cost). The same
    object (equal, same hash and repr); for the kinds ``parse_hint`` makes per candidate."""
    new = object.__new__
    sets = tuple(getattr(cls, f.name).__set__ for f in fields(cls))  # type: ignore[arg-type]
    if len(sets) == 2:
        a, b = sets

        def make2(x: Any, y: Any) -> _T:
            o = new(cls)
            a(o, x)
            b(o, y)
            return o
        return make2
    if len(sets) == 3:
        a, b, c = sets

        def make3(x: Any, y: Any, z: Any) -> _T:
            o = new(cls)
            a(o, x)
            b(o, y)
            c(o, z)
            return o
        return make3
    a, b, c, d = sets

    def make4(x: Any, y: Any, z: Any, w: Any) -> _T:
        o = new(cls)
        a(o, x)
        b(o, y)
        c(o, z)
        d(o, w)
        return o
    return make4


_QN, _PATH, _DIR = _positional(QualifiedName), _positional(FilePath), _positional(Directory)
_FILE_EXPORT, _CHAIN, _MEMBER = _positional(FileExport), _positional(ModuleChain), _positional(Member)
_SUPER, _EXPORT_MEMBER, _EXPORT_REF = _positional(SuperMember), _positional(ExportMember), _positional(ExportRef)

Candidate = (QualifiedName | FilePath | Directory | FileExport | ModuleChain | Member | SuperMember
             | ExportMember | ReturnMember | MethodReturnMember | ModuleOfCall | GoImport | UnknownHint)


def parse_hint(d: Mapping[str, Any]) -> Candidate:
    """One candidate dict -> its hint (module docstring table; first fitting row wins).
    Raises HintError for a known kind with wrongly typed fields."""
    # Runs for every candidate of a repository at each resolution (the standard library:
    # ~90,000), hence the exact-type tests written out (JSON never yields subclasses).
    if type(d) is not dict and not isinstance(d, Mapping):
        raise HintError(f"a candidate must be an object, not {type(d).__name__}")
    how = d.get("how", DEFAULT_HOW)
    if type(how) is not str:
        raise _wrong("", "how", how)
    if "qn" in d:
        v = d["qn"]
        if type(v) is str:
            return _QN(v, how)
        raise _wrong("qn", "qn", v)
    if "path" in d:
        v = d["path"]
        if type(v) is str:
            return _PATH(v, how)
        raise _wrong("path", "path", v)
    if "dir" in d:
        v = d["dir"]
        if type(v) is str:
            return _DIR(v, how)
        raise _wrong("dir", "dir", v)
    if "file" in d and "export" in d:
        return _FILE_EXPORT(_strs(d, "file", "file/export"), _str(d, "export", "file/export"), how)
    if "module_chain" in d:
        mc = d["module_chain"]
        if type(mc) is not dict and not isinstance(mc, Mapping):
            raise HintError("module_chain hint: must be an object with 'file' and 'attrs'")
        return _CHAIN(_strs(mc, "file", "module_chain"), _strs(mc, "attrs", "module_chain"),
                           bool(mc.get("to_file")), how)
    if "owner" in d:
        v, member = d["owner"], d.get("member")
        if type(v) is str and type(member) is str:
            return _MEMBER(v, member, how)
        raise _wrong("owner", "owner" if type(v) is not str else "member", v if type(v) is not str else member)
    if "super_of" in d:
        return _SUPER(_str(d, "super_of", "super_of"), _str(d, "member", "super_of"), how)
    if "owner_export" in d:
        return _EXPORT_MEMBER(ExportRef.parse(d["owner_export"], "owner_export"), _str(d, "member", "owner_export"),
                              how)
    if "returns_of" in d:
        return ReturnMember(ExportRef.parse(d["returns_of"], "returns_of"), _str(d, "member", "returns_of"), how)
    if "returns_of_method" in d:
        rm = d["returns_of_method"]
        if type(rm) is not dict and not isinstance(rm, Mapping):
            raise HintError("returns_of_method hint: must be an object with an owner and 'method'")
        return MethodReturnMember(parse_owner(rm), _str(rm, "method", "returns_of_method"),
                                  _str(d, "member", "returns_of_method"), how)
    if "module_of_call" in d:
        mc = d["module_of_call"]
        args = mc.get("args") if isinstance(mc, Mapping) else None
        if not isinstance(args, (list, tuple)):
            raise HintError("module_of_call hint: must be an object with 'file', 'export' and 'args'")
        return ModuleOfCall(ExportRef.parse(mc, "module_of_call"), tuple(ModuleArg.parse(a) for a in args),
                            _strs(d, "attrs", "module_of_call"), _opt_str(d, "member", "module_of_call"), how)
    if "go_import" in d:
        return GoImport(_str(d, "go_import", "go_import"), _opt_str(d, "go_qn", "go_import"),
                        _opt_str(d, "go_owner", "go_import"), _opt_str(d, "member", "go_import"), how)
    return UnknownHint(dict(d), how)


def _wrong(kind: str, key: str, v: Any) -> HintError:
    return HintError(f"{kind + ' ' if kind else ''}hint: {key!r} must be a string, not {type(v).__name__}")


def parse_owner(d: Any) -> str | ExportRef:
    """One entry of an export's ``returns`` list: ``{"owner": qn}`` -> the qualified name,
    ``{"owner_export": {"file", "export"}}`` -> an ExportRef. Raises HintError otherwise."""
    if isinstance(d, Mapping):
        if "owner" in d:
            return _str(d, "owner", "returns")
        if "owner_export" in d:
            return ExportRef.parse(d["owner_export"], "returns")
    raise HintError("returns entry: must be {'owner': qn} or {'owner_export': {...}}")


def owner_to_dict(owner: str | ExportRef) -> dict[str, Any]:
    """The ``returns`` entry of :func:`parse_owner`'s answer."""
    return {"owner": owner} if isinstance(owner, str) else {"owner_export": owner.to_dict()}


@dataclass(frozen=True, slots=True)
class Pass:
    """A value handed to a callee (``callee``: candidates) at position ``index`` or keyword ``kw``."""

    callee: tuple[Candidate, ...]
    index: int | None = None
    kw: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"callee": to_dicts(self.callee), "index": self.index, "kw": self.kw}

    @staticmethod
    def parse(d: Any) -> Pass:
        if type(d) is not dict and not isinstance(d, Mapping):
            raise HintError("pass hint: must be an object")
        callee = d.get("callee", ())
        if not isinstance(callee, (list, tuple)):
            raise HintError("pass hint: 'callee' must be a list of candidates")
        return Pass(tuple(parse_hint(c) for c in callee), _opt_int(d, "index", "pass"), _opt_str(d, "kw", "pass"))


@dataclass(frozen=True, slots=True)
class ParamCall:
    """The code calls parameter ``name`` (position ``index``) of function ``owner``."""

    owner: str
    name: str
    index: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"owner": self.owner, "index": self.index, "name": self.name}

    @staticmethod
    def parse(d: Any) -> ParamCall:
        if type(d) is not dict and not isinstance(d, Mapping):
            raise HintError("param_call hint: must be an object")
        return ParamCall(_str(d, "owner", "param_call"), _str(d, "name", "param_call"),
                         _opt_int(d, "index", "param_call"))


@dataclass(slots=True)
class RefHints:
    """Every resolution hint of one reference, parsed (a bundle built per reference at
    each resolution, so not frozen: frozen construction costs 3x)."""

    candidates: tuple[Candidate, ...] = ()
    pass_: Pass | None = None
    param_call: ParamCall | None = None
    unknown: int = 0  # candidates of no known shape (UnknownHint) among ``candidates``


NO_HINTS = RefHints()


def reference_hints(extra: Mapping[str, Any]) -> RefHints:
    """Parse a reference's ``extra`` (candidates, pass, param_call). Raises HintError,
    naming where (``candidates[2]: ...``), when one is malformed."""
    cands = extra.get("candidates", ())
    if type(cands) is not list and not isinstance(cands, (list, tuple)):
        raise HintError("candidates: must be a list")
    try:
        parsed = tuple(map(parse_hint, cands))
    except HintError as e:
        at = next(i for i, c in enumerate(cands) if _fails(c))
        raise HintError(f"candidates[{at}]: {e}") from None
    # Written for speed (every reference of a repository, at each resolution): an unknown
    # candidate is rare, so first whether there is one (the scan runs in C), positional fields.
    unknown = [*map(type, parsed)].count(UnknownHint) if UnknownHint in map(type, parsed) else 0
    p = extra.get("pass")
    pc = extra.get("param_call")
    if p is None and pc is None:
        return RefHints(parsed, None, None, unknown) if parsed else NO_HINTS
    try:
        pass_ = None if p is None else Pass.parse(p)
    except HintError as e:
        raise HintError(f"pass: {e}") from None
    return RefHints(parsed, pass_, None if pc is None else ParamCall.parse(pc), unknown)


def _fails(c: Any) -> bool:
    try:
        parse_hint(c)
    except HintError:
        return True
    return False


def to_dicts(hints: Iterable[Candidate]) -> list[dict[str, Any]]:
    """Candidates as the ``extra["candidates"]`` list an extractor writes."""
    return [h.to_dict() for h in hints]


__all__ = ["DEFAULT_HOW", "NO_HINTS", "Candidate", "Directory", "ExportMember", "ExportRef", "FileExport", "FilePath",
           "GoImport", "HintError", "Member", "ModuleArg", "ModuleChain", "ModuleOfCall", "ParamCall", "Pass", "QualifiedName", "RefHints",
           "MethodReturnMember", "ReturnMember", "SuperMember", "UnknownHint", "owner_to_dict", "parse_hint", "parse_owner",
           "reference_hints", "to_dicts"]

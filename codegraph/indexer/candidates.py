"""What one candidate of a reference names (docs/DESIGN.md#resolution): the candidate rules
of ``codegraph.indexer.resolve`` — an exact qualified name, a file path or folder, a file's
export following re-exports, a chain of module bindings, a member of a class and its bases
(given by name, as an export, as what a function or method returns, as a module a call
returns). The hint kinds: ``codegraph.indexer.hints``; the look-ups: ``SymbolTable``.
"""

from __future__ import annotations

from codegraph.core.models import SymbolRecord
from codegraph.indexer.hints import (
    Candidate,
    Directory,
    ExportMember,
    ExportRef,
    FileExport,
    FilePath,
    HintError,
    Member,
    MethodReturnMember,
    ModuleChain,
    ModuleOfCall,
    QualifiedName,
    ReturnMember,
    SuperMember,
    parse_owner,
)
from codegraph.indexer.symbol_table import SymbolTable


def class_owners(table: SymbolTable, owner: str | ExportRef) -> list[str]:
    """Qualified names of a class given by name or as a file's export."""
    if isinstance(owner, str):
        return [owner]
    return [s.qualified_name for s in table.export(list(owner.files), owner.export)]


def try_candidate(table: SymbolTable, cand: Candidate) -> tuple[list[SymbolRecord] | list[str], str]:
    """Symbols (or file paths, for path/dir candidates) a candidate names, with its label
    (docs/DESIGN.md#resolution; the hint kinds: ``codegraph.indexer.hints``)."""
    how = cand.how
    # Most candidates are a path or a qualified name, and most of them fail (Python imports
    # list every spelling of a module): those two are answered before the match's chain of
    # class tests (no hint kind has subclasses, so the type says the case).
    kind = type(cand)
    if kind is FilePath:
        return ([cand.path] if cand.path in table.files else []), how  # type: ignore[union-attr]
    if kind is QualifiedName:
        return list(table.by_qn.get(cand.qn, ())), how  # type: ignore[union-attr]
    owners: list[str]
    match cand:
        case Directory(dir=d):
            return sorted(table.dirs.get(d.rstrip("/"), ())), how
        case FileExport(files=files, export=export):
            return table.export(list(files), export), how
        case ModuleChain(files=files, attrs=attrs, to_file=to_file):
            # The attrs but the last walk module bindings; the last is an export of the
            # module(s) reached. ``to_file``: every attr is a module, the files are the
            # answer (``import os.path``).
            if to_file:
                return table.module_files(list(files), list(attrs)), how
            out: list[SymbolRecord] = []
            for f in table.module_files(list(files), list(attrs[:-1])):
                out.extend(s for s in table.export([f], attrs[-1]) if s not in out)
            return out, how
        case Member(owner=owner):
            owners = [owner]
        case SuperMember(super_of=owner):
            owners = [owner]
        case ExportMember(owner=oe):
            owners = class_owners(table, oe)
        case ReturnMember(function=fn_ref):
            # A method of what that function returns, as its module's export map says
            # (``returns``: owner entries, ``hints.parse_owner``).
            owners = []
            for fn in table.export(list(fn_ref.files), fn_ref.export):
                for r in table.exports.get(fn.file, {}).get(fn.name, {}).get("returns", ()):
                    try:
                        owners.extend(class_owners(table, parse_owner(r)))
                    except HintError:  # the JSONL reader refuses these; an extractor bug otherwise
                        continue
        case MethodReturnMember(owner=owner, method=method):
            # A method of what that method returns: the export ``Class.method`` of the
            # module declaring it (found on the class or its bases).
            owners = []
            for cls in class_owners(table, owner):
                for fn in table.member(cls, method):
                    key = f"{(fn.parent or '').rsplit('.', 1)[-1]}.{fn.name}"
                    for r in table.exports.get(fn.file, {}).get(key, {}).get("returns", ()):
                        try:
                            owners.extend(class_owners(table, parse_owner(r)))
                        except HintError:
                            continue
        case ModuleOfCall():
            return module_of_call(table, cand), how
        case _:  # GoImport placeholders (rewritten by languages.go.link_repo) and unknown shapes
            return [], how
    for owner in owners:
        found = table.member(owner, cand.member, skip_self=isinstance(cand, SuperMember))
        if found:
            return found, how
    return [], how


def module_of_call(table: SymbolTable, cand: ModuleOfCall) -> list[SymbolRecord]:
    """What ``attrs`` (then ``member``) names in the module the function returns: the
    function's export says which parameter names the module (``module_param``); the call's
    literal argument for it gives the module's files (docs/DESIGN.md#resolution)."""
    out: list[SymbolRecord] = []
    if not cand.attrs:
        return out
    for fn in table.export(list(cand.function.files), cand.function.export):
        mp = table.exports.get(fn.file, {}).get(fn.name, {}).get("module_param")
        if not isinstance(mp, dict) or not isinstance(mp.get("index"), int) or not isinstance(mp.get("name"), str):
            continue
        arg = next((a for a in cand.args if a.fits(mp["index"], mp["name"])), None)
        if arg is None:
            continue
        for f in table.module_files(list(arg.top if mp.get("top") else arg.files), list(cand.attrs[:-1])):
            for s in table.export([f], cand.attrs[-1]):
                found = table.member(s.qualified_name, cand.member) if cand.member else [s]
                out.extend(x for x in found if x not in out)
    return out


__all__ = ["class_owners", "module_of_call", "try_candidate"]

"""Which call sites of a stub a triage decision covers (docs/DESIGN.md#users: Triager).

A decision covers every call site of its stub unless it is *scoped*: to calling files
(``app/service.py``), folders (``app/legacy``: the folder and everything below it) and
single call sites. A single call site is its evidence file and line plus the uid of the
calling symbol (or file), so an edit that moves the call to another line, or another
caller at that line, is no longer covered: that call site becomes a stub again, never an
edge guessed from a line number.

Stored on the decision node as JSON (``Scope.to_json``: ``{"files": [...], "folders":
[...], "sites": [[file, line, source uid], ...]}``; ``""`` for a decision on every call
site). Read by ``codegraph.core.triage`` when deciding and undoing, by
``load_decisions`` for the resolver (``ResolverDecision.scoped``), and by the faces to
count what a scoped decision would touch (``Scope.select``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Protocol

from codegraph.core.errors import BadInput


class _Site(Protocol):
    file: str
    line: int
    source_uid: str


def _path(text: str, what: str = "folder") -> str:
    """``./app/legacy/`` -> ``app/legacy``; refuses the repo root and paths leaving it."""
    parts = [p for p in PurePosixPath(text.strip().replace("\\", "/")).parts if p not in (".", "/")]
    if not parts:
        raise BadInput(f"a {what} scope needs a {what} inside the repo (e.g. app/legacy); for every call site "
                       "give no scope")
    if ".." in parts:
        raise BadInput(f"{what} {text!r} leaves the repo root")
    return "/".join(parts)


@dataclass(frozen=True, slots=True)
class Scope:
    """Calling files, folders and single call sites ``(file, line, source uid)``; empty =
    every call site. ``sites`` given with an empty source uid are bound to the calling
    symbols found at that file:line when the decision is made (``bind``)."""

    files: tuple[str, ...] = ()
    folders: tuple[str, ...] = ()
    sites: tuple[tuple[str, int, str], ...] = field(default_factory=tuple)

    @staticmethod
    def of(files: Iterable[str] = (), folders: Iterable[str] = (),
           sites: Iterable[str | tuple[str, int] | tuple[str, int, str]] = ()) -> Scope:
        """Normalised scope from what a person typed: ``sites`` as ``"path:line"`` or
        tuples. Raises BadInput for a path leaving the repo or a site without a line."""
        parsed: list[tuple[str, int, str]] = []
        for s in sites:
            if isinstance(s, str):
                path, _, line = s.strip().rpartition(":")
                if not path or not line.isdigit() or int(line) < 1:
                    raise BadInput(f"a call site is FILE:LINE (e.g. app/service.py:7), not {s!r}")
                parsed.append((_path(path, "file"), int(line), ""))
            else:
                parsed.append((_path(s[0], "file"), int(s[1]), str(s[2]) if len(s) > 2 else ""))  # type: ignore[misc]
        return Scope(tuple(sorted({_path(f, "file") for f in files})), tuple(sorted({_path(f) for f in folders})),
                     tuple(sorted(set(parsed))))

    @property
    def everything(self) -> bool:
        return not (self.files or self.folders or self.sites)

    def covers(self, file: str, line: int, source: str) -> bool:
        """True when the call site at ``file``:``line`` from ``source`` (uid) is in scope."""
        if self.everything:
            return True
        if file in self.files:
            return True
        if any(file == d or file.startswith(d + "/") for d in self.folders):
            return True
        return any(f == file and ln == line and (not src or src == source) for f, ln, src in self.sites)

    def select(self, sites: Iterable[Any]) -> list[Any]:
        """The call sites (anything with ``file``, ``line``, ``source_uid``) in scope."""
        return [s for s in sites if self.covers(s.file, s.line, s.source_uid)]

    def bind(self, sites: Iterable[_Site]) -> Scope:
        """Sites given as file:line only get the calling symbols now at that file:line.
        Raises BadInput for a file:line with no call site of the stub."""
        if all(src for _, _, src in self.sites):
            return self
        now = list(sites)
        bound: set[tuple[str, int, str]] = set()
        for f, ln, src in self.sites:
            if src:
                bound.add((f, ln, src))
                continue
            found = {(s.file, s.line, s.source_uid) for s in now if s.file == f and s.line == ln}
            if not found:
                raise BadInput(f"no unresolved call site of this stub at {f}:{ln}")
            bound |= found
        return Scope(self.files, self.folders, tuple(sorted(bound)))

    def label(self) -> str:
        """``every call site`` / ``file app/a.py`` / ``folder app/legacy`` / ``2 call sites`` ..."""
        if self.everything:
            return "every call site"
        parts = []
        if self.files:
            parts.append(("file " if len(self.files) == 1 else f"{len(self.files)} files: ") + ", ".join(self.files))
        if self.folders:
            parts.append(("folder " if len(self.folders) == 1 else f"{len(self.folders)} folders: ")
                         + ", ".join(f + "/" for f in self.folders))
        if self.sites:
            parts.append(f"call site {self.sites[0][0]}:{self.sites[0][1]}" if len(self.sites) == 1
                         else f"{len(self.sites)} call sites")
        return "; ".join(parts)

    def to_json(self) -> str:
        if self.everything:
            return ""
        return json.dumps({"files": list(self.files), "folders": list(self.folders),
                           "sites": [list(s) for s in self.sites]})

    def to_dict(self) -> dict[str, Any]:
        return {"files": list(self.files), "folders": list(self.folders),
                "sites": [{"file": f, "line": ln, "source_uid": src} for f, ln, src in self.sites]}

    @staticmethod
    def from_json(text: str | None) -> Scope:
        if not text:
            return Scope()
        d = json.loads(text) if isinstance(text, str) else dict(text)
        return Scope(tuple(d.get("files") or ()), tuple(d.get("folders") or ()),
                     tuple((str(f), int(ln), str(src)) for f, ln, src in d.get("sites") or ()))


EVERYTHING = Scope()

"""Data behind the Triage page, free of Streamlit: candidates ranked with reasons, the
builtin / standard-library verdict, and the preview of what a decision changes.

Ranking (evidence from the call sites, never a guess by name alone):
- *imports*: the share of calling files that import the candidate's file (an IMPORTS edge
  from the calling file to it);
- *same package*: the share of calling files in the candidate's folder;
- *same repo* as the stub.
A candidate no calling file imports and in no calling folder keeps its place but says so.

Builtin verdict: a one-word or receiver-called target (``get``, ``append``) on Python call
sites whose name is a method of a builtin type (dict, list, str, set, bytes ...) is most
likely that method (``d.get(k)``): the page offers "builtin" (an external decision with
library ``builtins``) before any same-named symbol.
"""

from __future__ import annotations

import builtins
from collections import Counter
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from codegraph.core.graph_store import GraphStore
from codegraph.core.models import IMPORTS, file_uid
from codegraph.core.triage import CallSite, Candidate

CONFIRM_ABOVE = 50  # call sites: a decision touching more asks for confirmation
_BUILTIN_TYPES = (dict, list, str, set, frozenset, tuple, bytes, bytearray, int, float, complex)


@dataclass(slots=True)
class Ranked:
    candidate: Candidate
    score: float
    reasons: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Preview:
    """What a decision on one stub changes: ``call_sites`` edges move, from ``callers``
    distinct calling symbols in ``files`` files; each of those callers' impact answers
    (and the answers of the target it is resolved to) change."""

    call_sites: int
    callers: int
    files: int


def builtin_owners(target: str) -> list[str]:
    """Builtin types that have a method named like the target (``get`` -> ``dict``),
    ``["builtins"]`` for a builtin function (``len``), [] for a dotted module path
    (``os.path.join``), a dunder or an unknown name."""
    head, _, name = target.rpartition(".")
    if (head and head not in ("self", "cls")) or not name or name.startswith("__"):
        return []
    if callable(getattr(builtins, name, None)):
        return ["builtins"]
    return [t.__name__ for t in _BUILTIN_TYPES if callable(getattr(t, name, None))]


def builtin_verdict(target: str, sites: list[CallSite]) -> str | None:
    """A sentence when the stub is most likely a builtin method or function called from
    Python, else None."""
    langs = Counter(s.language for s in sites)
    if sites and langs.get("python", 0) < len(sites) / 2:
        return None
    owners = builtin_owners(target)
    if not owners:
        return None
    if owners == ["builtins"]:
        return f"`{target}` is a Python builtin function: these call sites reach the interpreter, not this code."
    return (f"`{target.rsplit('.', 1)[-1]}` is a method of {', '.join(owners[:4])}: on Python call sites with an "
            "unknown receiver it is most likely that builtin method, not a symbol of this code.")


def rank(store: GraphStore, candidates: list[Candidate], sites: list[CallSite], repo: str) -> list[Ranked]:
    """``candidates`` ordered by the evidence in the calling files (module docstring)."""
    files = sorted({s.file for s in sites if s.file})
    if not candidates:
        return []
    imports: dict[str, set[str]] = {}
    if files:
        hits = store.neighbours([file_uid(repo, f) for f in files], "out", [IMPORTS])
        for f in files:
            imports[f] = {h.node.uid for h in hits.get(file_uid(repo, f), [])}
    folders = Counter(str(PurePosixPath(f).parent) for f in files)
    out = []
    for c in candidates:
        target_file = file_uid(c.repo, c.file)
        imp = sum(1 for f in files if target_file in imports.get(f, set()))
        same_pkg = folders.get(str(PurePosixPath(c.file).parent), 0)
        reasons = []
        if imp:
            reasons.append(f"imported by {imp} of {len(files)} calling file(s)")
        if same_pkg:
            reasons.append(f"same package as {same_pkg} calling file(s)")
        if c.repo == repo:
            reasons.append("same repo")
        if not imp and not same_pkg:
            reasons.append("no calling file imports it or shares its package")
        score = (2 * imp + same_pkg) / max(1, len(files)) + (0.01 if c.repo == repo else 0)
        out.append(Ranked(c, round(score, 3), reasons))
    out.sort(key=lambda r: (-r.score, r.candidate.qualified_name))
    return out


def preview(sites: list[CallSite]) -> Preview:
    return Preview(len(sites), len({s.source_uid for s in sites}), len({(s.repo, s.file) for s in sites}))

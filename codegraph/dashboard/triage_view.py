"""Data behind the Triage page, free of Streamlit: candidates ranked with reasons, the
builtin / standard-library verdict, and the preview of what a decision changes.

Ranking (evidence from the call sites, never a guess by name alone; what is stored and
what is read instead: ``codegraph.dashboard.triage_evidence``):
- *receiver type*, per call site: a method of the type the extractor recorded for the
  receiver, of one of its base types, or of a subtype (+3 times the share of call sites);
  a method of an unrelated type where the receiver's type is known (-1 times that share);
  "receiver type unknown" when nothing was recorded;
- *imports*: the share of calling files that import the candidate's file (an IMPORTS edge
  from the calling file to it), counted twice;
- *same package*: the share of calling files in the candidate's folder;
- *arity*: the share of call sites (with a known argument count) the candidate's
  parameters fit; fitting none costs 1;
- *same repo* as the stub (+0.01, a tie-break).
Equal scores keep qualified-name order. Every candidate lists its reasons.

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
from codegraph.dashboard.triage_evidence import ancestors, params, receiver_owners, site_arity

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


def rank(store: GraphStore, candidates: list[Candidate], sites: list[CallSite], repo: str, *, target: str = "",
         root: str | None = None) -> list[Ranked]:
    """``candidates`` ordered by the evidence in the call sites (module docstring).
    ``target``: the stub's target identifier (its receiver type, its last segment for
    reading argument counts); ``root``: the calling repo's checkout (Python argument counts)."""
    files = sorted({s.file for s in sites if s.file})
    if not candidates:
        return []
    imports: dict[str, set[str]] = {}
    if files:
        hits = store.neighbours([file_uid(repo, f) for f in files], "out", [IMPORTS])
        for f in files:
            imports[f] = {h.node.uid for h in hits.get(file_uid(repo, f), [])}
    folders = Counter(str(PurePosixPath(f).parent) for f in files)
    site_owners = [receiver_owners(target, s) for s in sites] if target else []
    owners = set().union(*site_owners) if site_owners else set()
    types = ancestors(store, owners | {c.parent for c in candidates if c.parent})
    # Per call site: the receiver types recorded there that are types in the graph.
    typed = [{o: types[o] for o in so if o in types} for so in site_owners]
    typed = [t for t in typed if t]
    counts = [n for n in site_arity(root, sites, target).values() if n is not None] if target else []
    out = []
    for c in candidates:
        target_file = file_uid(c.repo, c.file)
        imp = sum(1 for f in files if target_file in imports.get(f, set()))
        same_pkg = folders.get(str(PurePosixPath(c.file).parent), 0)
        reasons: list[str] = []
        score = 0.0
        recv, why = _receiver(c, typed, len(sites), types.get(c.parent, {c.parent}), owners - set(types))
        score += recv
        reasons.append(why)
        if imp:
            reasons.append(f"imported by {imp} of {len(files)} calling file(s)")
        if same_pkg:
            reasons.append(f"same package as {same_pkg} calling file(s)")
        if not imp and not same_pkg:
            reasons.append("no calling file imports it or shares its package")
        fit, why = _arity(c, counts)
        score += fit
        reasons.append(why)
        if c.repo == repo:
            reasons.append("same repo")
        score += (2 * imp + same_pkg) / max(1, len(files)) + (0.01 if c.repo == repo else 0)
        out.append(Ranked(c, round(score, 3), reasons))
    out.sort(key=lambda r: (-r.score, r.candidate.qualified_name))
    return out


def _receiver(c: Candidate, typed: list[dict[str, set[str]]], n: int, own: set[str],
              outside: set[str]) -> tuple[float, str]:
    """Score and reason from the receiver types recorded per call site (``typed``: one
    dict per call site with a receiver type in the graph -> that type and its bases)."""
    if not typed:
        if outside:
            return 0.0, f"receiver typed as {', '.join(sorted(outside))} (not a type in the graph)"
        return 0.0, "receiver type unknown at these call sites"
    how: dict[str, str] = {}
    hits = 0
    for receivers in typed:
        for o, bases in sorted(receivers.items()):
            if c.parent == o:
                how.setdefault("member of the receiver type", o)
            elif c.parent in bases:
                how.setdefault(f"member of {c.parent}, a base type of the receiver type", o)
            elif c.parent and o in own:
                how.setdefault(f"member of {c.parent}, a subtype of the receiver type", o)
            else:
                continue
            hits += 1
            break
    names = sorted({o for r in typed for o in r})
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    at = "" if len(typed) == n else f" at {len(typed)} of {n} call site(s)"
    if not hits:
        return -len(typed) / n, f"not a member of the receiver type {shown} or its base types{at}"
    (first, o), = list(how.items())[:1]
    more = "" if hits == len(typed) else f"; {len(typed) - hits} other typed call site(s) name another type"
    sub = " (may be what runs)" if "subtype" in first else ""
    return 3 * hits / n - (len(typed) - hits) / n, f"{first} {o}{sub}{at}{more}"


def _arity(c: Candidate, counts: list[int]) -> tuple[float, str]:
    """Score and reason from the call sites' argument counts against the candidate's parameters."""
    if not counts:
        return 0.0, "argument counts unknown at these call sites"
    p = params(c)
    if p is None:
        return 0.0, "parameter count unknown"
    fit = sum(1 for n in counts if p.fits(n))
    passed = ", ".join(str(n) for n in sorted(set(counts)))
    why = f"takes {p.text()}: fits {fit} of {len(counts)} call site(s) (they pass {passed})"
    return (fit / len(counts)) - (1.0 if fit == 0 else 0.0), why


def preview(sites: list[CallSite]) -> Preview:
    return Preview(len(sites), len({s.source_uid for s in sites}), len({(s.repo, s.file) for s in sites}))

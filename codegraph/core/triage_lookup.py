"""What a triager looks at for a stub (docs/DESIGN.md#users): the ranked stub list, the
call sites into a stub, the symbols it might be and the libraries it might come from, and
looking a symbol up by uid or qualified name. Read-only; the decisions themselves are
``codegraph.core.triage``, which re-exports everything here."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Any

from codegraph.core.errors import BadInput, TargetNotFound
from codegraph.core.graph_store import GraphStore
from codegraph.core.models import IMPORTS, SYMBOL, Node, stub_uid, uid_kind

_SEPARATORS = re.compile(r"::|->|[.#/\\]")
_RECEIVERS = {"self", "this", "cls", "super", "Self", "$this", "base", "static", "parent"}


@dataclass(slots=True)
class StubRow:
    """A stub as the triage list shows it. ``references``: edges pointing at it."""

    uid: str
    repo: str
    target_identifier: str
    reason: str
    references: int
    candidate_count: int
    candidates: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"uid": self.uid, "repo": self.repo, "target_identifier": self.target_identifier,
                "reason": self.reason, "references": self.references, "candidate_count": self.candidate_count,
                "candidates": list(self.candidates)}


@dataclass(slots=True)
class CallSite:
    """One edge into a stub: who refers to it, where (repo-relative file, 1-based line).
    What the extractor stored of the call: ``arity`` (arguments passed; JVM languages and
    C/C++ only, None otherwise), ``lookup`` (qualified names its receiver-typed candidates
    named, ``Owner.member``)."""

    source_uid: str
    source: str
    kind: str
    repo: str
    file: str
    line: int
    edge_type: str
    language: str = ""
    arity: int | None = None
    lookup: tuple[str, ...] = ()


@dataclass(slots=True)
class Candidate:
    """A symbol the stub might be. ``why``: how it was found."""

    uid: str
    qualified_name: str
    kind: str
    repo: str
    file: str
    line: int
    end_line: int
    why: str
    language: str = ""
    signature: str = ""
    arity: int | None = None  # parameters, where the language has overloads (models.Symbol)
    variadic: bool = False
    parent: str = ""  # qualified name of the owner (class of a method)


@dataclass(slots=True)
class LibraryGuess:
    name: str
    why: str


@dataclass(slots=True)
class Candidates:
    symbols: list[Candidate]
    libraries: list[LibraryGuess]


def last_segment(target: str) -> str:
    """``self.repo.save()`` -> ``save``; ``Foo::bar`` -> ``bar``."""
    parts = [p for p in _SEPARATORS.split(re.sub(r"\(.*$", "", target)) if p]
    return parts[-1] if parts else target


def _normalise(target: str) -> str:
    """Separators as dots, receiver prefixes (self., this.) dropped."""
    parts = [p for p in _SEPARATORS.split(re.sub(r"\(.*$", "", target)) if p]
    while len(parts) > 1 and parts[0] in _RECEIVERS:
        parts = parts[1:]
    return ".".join(parts)


def stub_rows(graph: GraphStore, repo: str | None = None, limit: int = 50, offset: int = 0) -> list[StubRow]:
    """Stubs ranked by how many edges (call sites, imports...) point at them."""
    rows = []
    for n, refs in graph.stubs_ranked(repo, limit=limit, offset=offset):
        p = n.props
        rows.append(StubRow(n.uid, n.repo, str(p.get("target_identifier", "")), str(p.get("reason", "")), int(refs),
                            int(p.get("candidate_count") or 0), list(p.get("candidates") or [])))
    return rows


def call_sites(graph: GraphStore, stub_uids: list[str], limit_per_stub: int | None = None) -> dict[str, list[CallSite]]:
    """stub uid -> the edges into it (by file, line)."""
    out: dict[str, list[CallSite]] = {}
    for uid, hits in graph.neighbours(stub_uids, "in", limit_per_node=limit_per_stub).items():
        out[uid] = [CallSite(h.node.uid, h.node.display(), str(h.node.props.get("kind") or h.node.label.lower()),
                             h.node.repo, h.edge.file, h.edge.line, h.edge.type, str(h.node.props.get("language", "")),
                             _int(h.edge.extra.get("arity")), tuple(h.edge.extra.get("lookup") or ()))
                    for h in hits]
    return out


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _candidate(n: Node, why: str) -> Candidate:
    p = n.props
    return Candidate(n.uid, str(p.get("qualified_name", "")), str(p.get("kind", "")), n.repo, str(p.get("file", "")),
                     int(p.get("line") or 0), int(p.get("end_line") or p.get("line") or 0), why,
                     str(p.get("language", "")), str(p.get("signature") or ""), _int(p.get("arity")),
                     bool(p.get("variadic")), str(p.get("parent") or ""))


def candidates(graph: GraphStore, stub: Node, limit: int = 20) -> Candidates:
    """Symbols the stub might be and libraries it might come from.

    Same repo: the resolver's own list for an ambiguous stub, else the symbols named like
    the target's last segment (qualified-name suffix matches first). Other repos: the
    same qualified name, then the same name. Libraries: the target's top-level module
    (``requests.get`` -> ``requests``), said to be the standard library when Python's is.
    """
    repo = stub.repo
    target = str(stub.props.get("target_identifier", ""))
    norm, last = _normalise(target), last_segment(target)
    seen: set[str] = set()
    out: list[Candidate] = []

    def add(nodes: list[Node], why: str, suffix_why: str | None = None) -> None:
        # Qualified-name suffix matches (``store.save`` -> ``app.store.save``) go first.
        for n in sorted(nodes, key=lambda n: (not _suffix(n, norm), n.props.get("qualified_name", ""), n.uid)):
            if n.uid not in seen and n.label == SYMBOL:
                seen.add(n.uid)
                out.append(_candidate(n, suffix_why if suffix_why and _suffix(n, norm) else why))

    listed = [str(c) for c in stub.props.get("candidates") or []]
    if listed:
        found = graph.symbols_by_qualified_name(listed, repo)
        add([n for qn in listed for n in found.get(qn, [])], "listed by the resolver (ambiguous)")
    same = graph.symbols_by_name([last], repo).get(last, [])
    add(same, "same name in this repo", "qualified name ends with the target, this repo")
    elsewhere = graph.symbols_by_qualified_name([norm]).get(norm, []) if norm else []
    add([n for n in elsewhere if n.repo != repo], "same qualified name in another repo")
    named = graph.symbols_by_name([last]).get(last, [])
    add([n for n in named if n.repo != repo][: limit * 2], "same name in another repo",
        "qualified name ends with the target, another repo")
    return Candidates(out[:limit], _libraries(graph, stub))


def _libraries(graph: GraphStore, stub: Node) -> list[LibraryGuess]:
    """The target's top-level module as a library name: for a dotted target, or for a
    one-word target that is imported (an IMPORTS edge points at the stub)."""
    target = str(stub.props.get("target_identifier", ""))
    parts = [p for p in _SEPARATORS.split(target) if p]
    if not parts or parts[0] in _RECEIVERS:
        return []
    top = parts[0]
    if len(parts) == 1:
        hits = graph.neighbours([stub.uid], "in", [IMPORTS], limit_per_node=1).get(stub.uid, [])
        if not hits:
            return []
        why = "imported here but not part of the repo"
    else:
        imported = graph.get_nodes([stub_uid(stub.repo, top)])
        why = "imported here but not part of the repo" if imported else "top-level module of the target"
    if top in sys.stdlib_module_names:
        why = "a Python standard library module"
    return [LibraryGuess(top, why)]


def _suffix(n: Node, norm: str) -> bool:
    # Only a dotted target says more than its last segment does.
    qn = str(n.props.get("qualified_name", ""))
    return "." in norm and (qn == norm or qn.endswith("." + norm))


def find_symbol(graph: GraphStore, text: str, prefer_repo: str | None = None) -> Node:
    """The one Symbol ``text`` names: a uid, or a qualified name (``prefer_repo`` first).
    Raises TargetNotFound, or BadInput when several symbols match (the message lists
    their uids to pass instead)."""
    text = text.strip()
    if uid_kind(text) == "sym":
        n = graph.get_nodes([text]).get(text)
        if n is None or n.label != SYMBOL:
            raise TargetNotFound(f"no symbol with uid {text!r}")
        return n
    found = graph.symbols_by_qualified_name([text]).get(text, [])
    if prefer_repo and any(n.repo == prefer_repo for n in found):
        found = [n for n in found if n.repo == prefer_repo]
    if not found:
        last = last_segment(text)
        named = graph.symbols_by_name([last], prefer_repo).get(last, []) if prefer_repo else []
        named = named or graph.symbols_by_name([last]).get(last, [])
        hints = list(dict.fromkeys(str(n.props.get("qualified_name", "")) for n in named))[:5]
        more = f"; symbols named {last!r}: {', '.join(hints)}" if hints else ""
        raise TargetNotFound(f"no symbol with qualified name {text!r}{more}")
    if len(found) > 1:
        listed = "; ".join(f"{n.uid} ({n.props.get('file')}:{n.props.get('line')})" for n in found[:10])
        raise BadInput(f"{len(found)} symbols are named {text!r} (overloads or several repos); pass one uid: {listed}")
    return found[0]


def repos_with_stub(graph: GraphStore, target: str) -> list[str]:
    """Repos that have a stub with exactly this target identifier."""
    names = [str(r.props.get("name")) for r in graph.repos()]
    found = graph.get_nodes([stub_uid(r, target) for r in names])
    return sorted(n.repo for n in found.values())

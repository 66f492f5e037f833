"""The stored shape of a triage decision (docs/DESIGN.md#users: Triager): the decision node
(``TriageDecision``, its properties are listed in ``codegraph.core.triage``), what the
resolver reads for one target (``ResolverDecision``), and the small helpers both use.
``codegraph.core.triage`` re-exports everything here."""

from __future__ import annotations

import fnmatch
import getpass
import json
import os
import re
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

from codegraph.core.models import DECISION, Edge, Node
from codegraph.core.triage_scope import Scope

_WILDCARDS = re.compile(r"[*?\[]")


@dataclass(slots=True)
class ResolverDecision:
    """What ``resolve_repo`` reads for one target identifier (the resolver's ``Decision``:
    ``codegraph.indexer.resolve`` imports this class; defined in core so that core never
    imports the indexer). ``action`` is resolve | external | ignore, or
    ``none`` (no effect; forces a re-resolution after an undo). ``scoped``: decisions
    on some call sites of the target only, ``(scope, decision)`` oldest first, checked
    before this one (``at``); the scope has ``covers(file, line, source_uid)``."""

    target_identifier: str
    action: str
    symbol_uid: str = ""
    library: str = ""
    scoped: list[tuple[Any, ResolverDecision]] = field(default_factory=list)

    def at(self, file: str, line: int, source: str) -> ResolverDecision:
        """The decision for one call site: the oldest scoped one covering it, else this one."""
        for scope, d in self.scoped:
            if scope.covers(file, line, source):
                return d
        return self


@dataclass(slots=True)
class TriageDecision:
    """One stored decision (see the module docstring for its node properties)."""

    repo: str
    key: str
    action: str
    decided_at: str
    target_identifier: str = ""
    pattern: str = ""
    symbol_uid: str = ""
    symbol_qualified_name: str = ""
    symbol_repo: str = ""
    library: str = ""
    decided_by: str = ""
    note: str = ""
    targets: list[str] = field(default_factory=list)
    evidence: dict[str, dict[str, Any]] = field(default_factory=dict)
    undone_at: str = ""
    undone_by: str = ""
    scope: Scope = field(default_factory=Scope)  # stored as JSON (Scope.to_json); empty = every call site
    journal: str = ""  # JSON; only older versions wrote it, during an undo of a resolve (see _recover)
    status: str = ""  # active | undone | stale (resolve target gone); computed, not stored

    @property
    def uid(self) -> str:
        return decision_uid(self.repo, self.key, self.decided_at)

    @property
    def active(self) -> bool:
        return not self.undone_at

    @property
    def call_sites(self) -> int:
        """Edges the decision took away from stubs (as recorded)."""
        return sum(len(ev.get("edges", ())) for ev in self.evidence.values())

    def to_node(self) -> Node:
        p = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("evidence", "status", "scope")}
        # Key order kept: restored edges must equal what the resolver writes, byte for byte.
        p["evidence"] = json.dumps(self.evidence, ensure_ascii=False)
        p["scope"] = self.scope.to_json()
        return Node(self.uid, DECISION, p)

    @staticmethod
    def from_node(n: Node) -> TriageDecision:
        p = dict(n.props)
        ev = p.pop("evidence", "") or "{}"
        scope = Scope.from_json(p.pop("scope", "") or "")
        names = {f.name for f in fields(TriageDecision)} - {"status", "scope"}
        d = TriageDecision(**{k: v for k, v in p.items() if k in names})
        d.evidence = json.loads(ev) if isinstance(ev, str) else dict(ev)
        d.targets = list(d.targets or [])
        d.scope = scope
        return d

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (no evidence edges, their count instead)."""
        return {"uid": self.uid, "repo": self.repo, "key": self.key, "action": self.action,
                "target_identifier": self.target_identifier, "pattern": self.pattern,
                "symbol_uid": self.symbol_uid, "symbol_qualified_name": self.symbol_qualified_name,
                "symbol_repo": self.symbol_repo, "library": self.library, "decided_by": self.decided_by,
                "decided_at": self.decided_at, "note": self.note, "targets": list(self.targets),
                "call_sites": self.call_sites, "undone_at": self.undone_at, "undone_by": self.undone_by,
                "status": self.status or ("active" if self.active else "undone"),
                "scope": self.scope.to_dict(), "scope_label": self.scope.label()}


# ---------------------------------------------------------------------------- helpers
def decision_uid(repo: str, key: str, decided_at: str) -> str:
    return f"decision|{repo}|{key}|{decided_at}"


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def default_user() -> str:
    """Who decides, when nobody says: CODEGRAPH_USER, else the login name."""
    try:
        return os.environ.get("CODEGRAPH_USER") or getpass.getuser()
    except Exception:  # no login name in some containers
        return "unknown"


def is_pattern(text: str) -> bool:
    """True when ``text`` holds an fnmatch wildcard (``*``, ``?``, ``[``)."""
    return bool(_WILDCARDS.search(text))


def matches(pattern: str, target: str) -> bool:
    """fnmatch (case-sensitive); ``X.*`` also matches ``X`` (the module itself)."""
    if fnmatch.fnmatchcase(target, pattern):
        return True
    return pattern.endswith(".*") and not is_pattern(pattern[:-2]) and target == pattern[:-2]


def _parse_time(iso: str | None) -> datetime | None:
    if not iso:
        return None
    try:
        t = datetime.fromisoformat(iso)
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def _edge_dict(e: Edge) -> dict[str, Any]:
    return {"type": e.type, "source": e.source, "file": e.file, "line": e.line, "resolution": e.resolution,
            "extra": e.extra}


def _stub_edge(d: dict[str, Any], target_uid: str) -> Edge:
    return Edge(d["type"], d["source"], target_uid, d.get("file", ""), int(d.get("line") or 0),
                d.get("resolution") or "stub", dict(d.get("extra") or {}))



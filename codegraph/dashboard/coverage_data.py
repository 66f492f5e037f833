"""Rows behind the Coverage page, built through the GraphStore protocol only.

- ``file_rows``: one row per File (repo, path, language, status, folder);
- ``reference_rows``: per (repo, language of the referring code), how many reference
  edges were resolved and how many point at an UnresolvedSymbol stub. Resolved counts
  need every outgoing reference edge, read in batches (``neighbours``), so callers
  cache the answer per graph version.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

from codegraph.core.figures import REFERENCE_EDGES as _REFS
from codegraph.core.figures import stub_references
from codegraph.core.graph_store import GraphStore
from codegraph.core.models import (
    FILE,
    STUB,
    SYMBOL,
)

PAGE = 5000
BATCH = 2000
REFERENCE_EDGES = list(_REFS)
__all__ = ["REFERENCE_EDGES", "file_rows", "folder_of", "reference_rows", "reference_totals", "repo_summary",
           "status_of", "stub_references"]


def _all(store: GraphStore, label: str, repo: str | None) -> list[Any]:
    out: list[Any] = []
    offset = 0
    while True:
        part = store.nodes_by_label(label, repo, limit=PAGE, offset=offset)
        out.extend(part)
        if len(part) < PAGE:
            return out
        offset += PAGE


def folder_of(path: str, depth: int) -> str:
    parts = PurePosixPath(path).parts[:-1]
    return "/".join(parts[:depth]) if parts else "(top level)"


STATUSES = ("full", "partial", "error", "unsupported")


def status_of(props: dict[str, Any]) -> str:
    """The File's coverage_status: full | partial (some constructs skipped, e.g. around a
    syntax error) | error (nothing extracted) | unsupported (no extractor)."""
    return str(props.get("coverage_status") or "full")


def file_rows(store: GraphStore, repo: str | None) -> list[dict[str, Any]]:
    rows = []
    for n in _all(store, FILE, repo):
        p = n.props
        path = str(p.get("path", ""))
        rows.append({"repo": n.repo, "path": path, "language": p.get("language") or "?",
                     "extension": PurePosixPath(path).suffix.lower() or "(none)", "status": status_of(p),
                     "parse_error": bool(p.get("had_error")), "is_test": bool(p.get("is_test")),
                     "lines": int(p.get("line_count") or 0)})
    return rows


def reference_rows(store: GraphStore, repo: str | None,
                   progress: Callable[[float], None] | None = None) -> list[dict[str, Any]]:
    """[{repo, language, resolved, unresolved, ratio}] by the language of the code that
    holds the reference; ``ratio`` = unresolved / (resolved + unresolved)."""
    tick = progress or (lambda _f: None)
    resolved: Counter[tuple[str, str]] = Counter()
    unresolved: Counter[tuple[str, str]] = Counter()
    files = _all(store, FILE, repo)
    lang_of_file = {(f.repo, f.props.get("path")): f.props.get("language") or "?" for f in files}
    repo_of = {n.uid: n.repo for n in files} | {n.uid: n.repo for n in _all(store, SYMBOL, repo)}
    sources = list(repo_of)
    for i in range(0, len(sources), BATCH):
        hits = store.neighbours(sources[i:i + BATCH], "out", REFERENCE_EDGES)
        for src, lst in hits.items():
            src_repo = repo_of.get(src, "")
            for h in lst:
                key = (src_repo, lang_of_file.get((src_repo, h.edge.file), "?"))
                if h.node.label == STUB:
                    unresolved[key] += 1
                else:
                    resolved[key] += 1
        tick(min(1.0, (i + BATCH) / max(1, len(sources))))
    rows = []
    for key in sorted(set(resolved) | set(unresolved)):
        r, u = resolved[key], unresolved[key]
        rows.append({"repo": key[0], "language": key[1], "resolved": r, "unresolved": u,
                     "ratio": round(u / (r + u), 4) if r + u else 0.0})
    return rows


def reference_totals(edge_counts: dict[str, int], unresolved: int) -> tuple[int, int]:
    """(resolved, unresolved) reference edges of one repo from GraphStore.counts()'s
    ``edges`` (which include the edges that end at stubs)."""
    total = sum(edge_counts.get(t, 0) for t in REFERENCE_EDGES)
    return max(0, total - unresolved), unresolved


def repo_summary(files: list[dict[str, Any]], refs: dict[str, tuple[int, int]]) -> list[dict[str, Any]]:
    """Per repo: files, parse errors / partial / failed / unsupported files and the share
    of unresolved references, worst first (what needs attention). ``refs``: repo ->
    (resolved, unresolved)."""
    by_repo: dict[str, Counter[str]] = {}
    for f in files:
        c = by_repo.setdefault(f["repo"], Counter())
        c[f["status"]] += 1
        c["parse_error"] += bool(f.get("parse_error"))
        c["problem"] += bool(f.get("parse_error")) or f["status"] in ("partial", "error")
    rows = []
    for repo, c in by_repo.items():
        total = sum(v for k, v in c.items() if k in STATUSES)
        resolved, unresolved = refs.get(repo, (0, 0))
        rows.append({"repo": repo, "files": total, "parse errors": c["parse_error"], "partial": c["partial"],
                     "failed": c["error"], "unsupported": c["unsupported"],
                     "problem files %": round(100 * c["problem"] / total, 2) if total else 0.0,
                     "unresolved refs": unresolved,
                     "unresolved %": round(100 * unresolved / (resolved + unresolved), 2)
                     if resolved + unresolved else 0.0})
    rows.sort(key=lambda r: (-r["problem files %"] - r["unresolved %"], r["repo"]))
    return rows

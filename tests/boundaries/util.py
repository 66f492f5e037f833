"""Helpers for exact-edge boundary tests: extract, link, resolve and link boundaries of a
fixture tree in memory, and name edge ends readably."""

from __future__ import annotations

from pathlib import Path

from codegraph.indexer.boundaries import BoundaryLinks, link_boundaries
from codegraph.indexer.records import FileExtraction
from codegraph.indexer.resolve import Resolution, resolve_repo
from tests.helpers import extract_tree

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "boundaries"


def link_tree(root: Path, repo: str = "fx") -> tuple[list[FileExtraction], Resolution, BoundaryLinks]:
    from codegraph.indexer.languages import link_repo

    fxs = extract_tree(root, repo)
    link_repo(fxs, root)
    res = resolve_repo(repo, fxs)
    return fxs, res, link_boundaries(repo, fxs, res, root)


def end(uid: str) -> str:
    """sym|repo|qn|sig -> qn; file|repo|path -> path; endpoint|repo|GET /x -> GET /x;
    table|repo|t -> t; topic|repo|t -> t; stub|repo|x -> stub:x."""
    kind, _, rest = uid.partition("|")
    _, _, rest = rest.partition("|")
    if kind == "sym":
        return rest.rsplit("|", 1)[0]
    if kind == "stub":
        return f"stub:{rest}"
    return rest


def boundary_edges(root: Path, types: tuple[str, ...] | None = None) -> set[tuple[str, str, str]]:
    """Exact set of boundary edges as (type, source, target)."""
    _, _, links = link_tree(root)
    return {(e.type, end(e.source), end(e.target)) for es in links.edges.values() for e in es
            if not types or e.type in types}


def unplaced(root: Path) -> set[tuple[str, int, str]]:
    _, _, links = link_tree(root)
    return {(u["file"], u["line"], u["reason"]) for u in links.unplaced}

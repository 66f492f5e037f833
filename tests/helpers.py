"""Helpers for exact-edge fixture tests: extract + resolve a fixture tree in memory."""

from __future__ import annotations

from pathlib import Path

from codegraph.core.models import Edge
from codegraph.indexer.discover import discover
from codegraph.indexer.extract import extract_many
from codegraph.indexer.languages import link_repo
from codegraph.indexer.records import FileExtraction
from codegraph.indexer.resolve import Resolution, resolve_repo


def extract_tree(root: Path, repo: str = "fx") -> list[FileExtraction]:
    d = discover(Path(root), use_git=False)
    return list(extract_many(repo, [(f.path, f.language, f.abs_path) for f in d.files], workers=1))


def resolve_tree(root: Path, repo: str = "fx") -> tuple[list[FileExtraction], Resolution]:
    fxs = extract_tree(root, repo)
    link_repo(fxs, Path(root))
    return fxs, resolve_repo(repo, fxs)


def _end(uid: str) -> str:
    """sym|repo|qn|sig -> qn; file|repo|path -> path; stub|repo|t -> stub:t."""
    kind, _, rest = uid.partition("|")
    _, _, rest = rest.partition("|")
    if kind == "sym":
        return rest.rsplit("|", 1)[0]
    if kind == "stub":
        return f"stub:{rest}"
    return rest


def all_edges(root: Path, repo: str = "fx") -> list[Edge]:
    _, res = resolve_tree(root, repo)
    return [e for edges in res.edges.values() for e in edges]


def edge_set(root: Path, repo: str = "fx", types: tuple[str, ...] | None = None) -> set[tuple[str, str, str]]:
    """Exact set of resolved edges as (type, source, target): symbols by qualified name,
    files by path, stubs as ``stub:<target_identifier>``."""
    return {(e.type, _end(e.source), _end(e.target)) for e in all_edges(root, repo) if not types or e.type in types}


def edge_set_with_resolution(
    root: Path, repo: str = "fx", types: tuple[str, ...] | None = None
) -> set[tuple[str, str, str, str]]:
    """Like edge_set, plus the resolution label (import, self, receiver_type...)."""
    return {
        (e.type, _end(e.source), _end(e.target), e.resolution)
        for e in all_edges(root, repo) if not types or e.type in types
    }

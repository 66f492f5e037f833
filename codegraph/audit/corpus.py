"""The audit's text side: the repository's indexed files as they are on disk, by language family,
stripped of comments and strings (``codegraph.audit.text``; in worker processes for large
repos). Changed, generated and unreadable files are left out of both sides and counted."""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from codegraph.audit.text import FAMILY, generated_reason, strip_code
from codegraph.core.errors import BadInput, TargetNotFound
from codegraph.core.graph_store import GraphStore
from codegraph.core.models import (
    FILE,
    file_hash,
    repo_uid,
)
from codegraph.core.paths import contained
from codegraph.indexer.workers import worker_pool

POOL_MIN_FILES = 64  # below this, stripping in-process is faster than starting workers


# -- files on disk ------------------------------------------------------------------------

content_hash = file_hash  # a file's hash as the indexer stores it (models.file_hash)


@dataclass(slots=True)
class _File:
    path: str
    language: str
    coverage: str
    text: str
    is_test: bool = False
    stripped: str | None = None
    method: str = ""


class _Corpus:
    """The repo's indexed files as they are on disk, by language family. Files whose
    content changed since indexing (hash differs), generated files and unreadable ones
    are left out of both sides and counted."""

    def __init__(self, store: GraphStore, repo: str, families: set[str]) -> None:
        repo_node = store.get_nodes([repo_uid(repo)]).get(repo_uid(repo))
        if repo_node is None:
            raise TargetNotFound(f"no repository named {repo!r} in the graph")
        root = Path(repo_node.props.get("path") or "")
        if not root.is_dir():
            raise BadInput(f"repository {repo!r} was indexed from {root}, which is not a folder on this machine")
        self.repo = repo
        self.root = root
        self.families = set(families)
        self.files: dict[str, _File] = {}
        self.excluded: dict[str, str] = {}
        self.counts: Counter[str] = Counter()
        offset = 0
        while True:
            page = store.nodes_by_label(FILE, repo, limit=5000, offset=offset)
            for n in page:
                p = n.props
                lang = p.get("language", "")
                if FAMILY.get(lang) not in families:
                    continue
                path = p.get("path", "")
                inside = contained(root, path)  # a graph path may not lead out of the checkout
                if inside is None:
                    self._exclude(path, "outside the checkout")
                    continue
                try:
                    data = inside.read_bytes()
                except OSError:
                    self._exclude(path, "missing or unreadable on disk")
                    continue
                if p.get("content_hash") and content_hash(data) != p["content_hash"]:
                    self._exclude(path, "changed since indexing")
                    continue
                text = data.decode("utf-8", "replace")
                if generated_reason(path, text):
                    self._exclude(path, "generated")
                    continue
                self.files[path] = _File(path, lang, p.get("coverage_status", "full"), text, bool(p.get("is_test")))
                self.counts["scanned"] += 1
            if len(page) < 5000:
                break
            offset += 5000

    def _exclude(self, path: str, why: str) -> None:
        self.excluded[path] = why
        self.counts[f"excluded: {why}"] += 1

    def stripped(self, f: _File) -> str:
        if f.stripped is None:
            f.stripped, f.method = strip_code(f.text, f.language)
            self.counts[f"stripped by {f.method}"] += 1
        return f.stripped

    def strip_all(self, files: list[_File]) -> None:
        """Strip many files at once, in a process pool when there are enough of them
        (Python's tokenize is pure Python: about 0.1 s per 1,000-line file)."""
        todo = [f for f in files if f.stripped is None]
        workers = min(os.cpu_count() or 1, 8)
        if len(todo) < POOL_MIN_FILES or workers < 2:
            for f in todo:
                self.stripped(f)
            return
        with worker_pool(workers) as pool:
            for f, (text, method) in zip(todo, pool.map(strip_code, [f.text for f in todo], [f.language for f in todo],
                                                        chunksize=8), strict=True):
                f.stripped, f.method = text, method
                self.counts[f"stripped by {method}"] += 1

    def line(self, path: str, line: int, stripped: bool = False) -> str | None:
        f = self.files.get(path)
        if f is None:
            return None
        lines = (self.stripped(f) if stripped else f.text).split("\n")
        return lines[line - 1] if 0 < line <= len(lines) else None

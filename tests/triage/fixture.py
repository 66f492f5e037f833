"""A small Python repository written by the triage tests, indexed with the real
pipeline (index_repo) into any GraphStore, plus backend-neutral edge dumps.

Unresolved references it produces (stubs): ``save`` (``repo.save(...)`` on an unknown
receiver, 2 call sites), ``requests`` (imported twice), ``requests.get`` (2),
``requests.post`` (1), ``helper_missing`` (1).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.graph_store import GraphStore
from codegraph.core.models import DERIVED_EDGES, FILE, ISSUE, SYMBOL
from codegraph.indexer.pipeline import IndexSummary, index_repo
from codegraph.indexer.state import StateStore

FILES: dict[str, str] = {
    "app/__init__.py": '"""The app."""\n',
    "app/store.py": '''"""Persistence."""


def save(record):
    """Persist a record."""
    return dict(record)


def load(key):
    return {"key": key}
''',
    "app/audit.py": '''"""Audit trail."""


def save(event):
    return [event]
''',
    "app/service.py": '''"""Orders."""
import requests
from app import store


def place(repo, order):
    repo.save(order)
    requests.get("http://example.invalid/a")
    return store.save(order)


def cancel(repo, order):
    repo.save(order)
    requests.post("http://example.invalid/b", json=order)
    helper_missing(order)
''',
    "app/client.py": '''"""HTTP client."""
import requests


def fetch(url):
    return requests.get(url)
''',
}


@dataclass(slots=True)
class Tree:
    root: Path
    repo: str
    graph: GraphStore
    state: StateStore

    def index(self) -> IndexSummary:
        """One index run as `codegraph index` does it: decisions loaded from the graph."""
        from codegraph.core.triage import load_decisions

        return index_repo(self.root, self.repo, self.graph, None, self.state, workers=1,
                          decisions=load_decisions(self.graph, self.repo))  # type: ignore[arg-type]

    def write(self, rel: str, text: str) -> None:
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


def write_tree(root: Path) -> Path:
    for rel, text in FILES.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


@contextmanager
def home_tree(base: Path) -> Iterator[tuple[Path, Tree]]:
    """The fixture tree under ``base/src`` (repo ``app``, not indexed yet) with embedded
    stores in a new ``base/home``, as a CODEGRAPH_HOME; the stores close on exit."""
    home = base / "home"
    home.mkdir()
    graph, state = EmbeddedGraphStore(home / "graph.db"), StateStore(home / "state.db")
    try:
        yield home, Tree(write_tree(base / "src"), "app", graph, state)
    finally:
        state.close()
        graph.close()


EdgeRow = tuple[str, str, str, str, int, str, str]


def _all(graph: GraphStore, label: str, repo: str) -> list[Any]:
    out, offset = [], 0
    while True:
        part = graph.nodes_by_label(label, repo, limit=1000, offset=offset)
        out += part
        if len(part) < 1000:
            return out
        offset += 1000


def derived_edges(graph: GraphStore, repo: str) -> set[EdgeRow]:
    """Every derived edge whose source is a File, Symbol or Issue of ``repo`` (through
    the protocol, so it works on every backend); extra as sorted JSON."""
    sources = [n.uid for label in (FILE, SYMBOL, ISSUE) for n in _all(graph, label, repo)]
    out: set[EdgeRow] = set()
    for lst in graph.neighbours(sources, "out", list(DERIVED_EDGES)).values():
        for h in lst:
            e = h.edge
            out.add((e.type, e.source, e.target, e.file, e.line, e.resolution, json.dumps(e.extra, sort_keys=True)))
    return out


def stubs(graph: GraphStore, repo: str) -> dict[str, int]:
    """target identifier -> references."""
    return {str(n.props["target_identifier"]): c for n, c in graph.stubs_ranked(repo, limit=1000)}

"""A refresh that re-resolves only the affected files keeps the ``dispatch`` edges of
``self.m()`` calls equal to a full index when a subclass override appears or goes in
another file (the calling file changes nothing; docs/DESIGN.md#refresh)."""

from __future__ import annotations

from pathlib import Path

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore
from tests.property.graph_dump import diff, dump

BASE = "class Base:\n    def run(self):\n        self.step()\n\n    def step(self):\n        pass\n"
SUB = "from base import Base\n\n\nclass Sub(Base):\n    def step(self):\n        pass\n"
SUB_NO_OVERRIDE = "from base import Base\n\n\nclass Sub(Base):\n    def other(self):\n        pass\n"
OTHER = "def helper():\n    pass\n"


def _dispatch(graph: EmbeddedGraphStore, repo: str) -> set[tuple[str, str]]:
    """(caller, callee) qualified names of the ``dispatch`` CALLS edges."""
    syms = {n.uid: n.props["qualified_name"] for n in graph.nodes_by_label("Symbol", repo, limit=10_000)}
    return {(syms[src], syms.get(h.edge.target, h.edge.target))
            for src, hits in graph.neighbours(list(syms), "out").items() for h in hits
            if h.edge.type == "CALLS" and h.edge.resolution == "dispatch"}


def test_subclass_added_changed_and_removed_elsewhere(tmp_path: Path) -> None:
    root = tmp_path / "src"
    root.mkdir()
    (root / "base.py").write_text(BASE)
    (root / "other.py").write_text(OTHER)
    graph = EmbeddedGraphStore(tmp_path / "g.db")
    state = StateStore(tmp_path / "s.db")
    try:
        index_repo(root, "d", graph, None, state, workers=1)
        steps = [("sub.py", SUB, {("base.Base.run", "sub.Sub.step")}),
                 ("sub.py", SUB_NO_OVERRIDE, set()),
                 ("sub.py", SUB, {("base.Base.run", "sub.Sub.step")}),
                 ("sub.py", None, set())]
        for i, (name, text, want) in enumerate(steps):
            if text is None:
                (root / name).unlink()
            else:
                (root / name).write_text(text)
            s = index_repo(root, "d", graph, None, state, workers=1)
            assert s.resolved_files < s.files  # the partial path, not a full re-resolution
            full = EmbeddedGraphStore(tmp_path / f"full{i}.db")
            fstate = StateStore(tmp_path / f"fs{i}.db")
            try:
                index_repo(root, f"f{i}", full, None, fstate, workers=1)
                assert not diff(dump(graph, "d"), dump(full, f"f{i}"))
                assert _dispatch(graph, "d") == want
            finally:
                fstate.close()
                full.close()
    finally:
        state.close()
        graph.close()

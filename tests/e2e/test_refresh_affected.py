"""A refresh resolves only what the change can reach (docs/DESIGN.md#refresh): the exact
number of files resolved for edits of a three-file tree, and the same graph as before
the change where nothing reached a caller. Equality with a full index on random edits is
the property test's (tests/property/test_refresh_affected.py)."""

from __future__ import annotations

from pathlib import Path

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore

A = "def f():\n    return 0\n\n\ndef g():\n    return 1\n"
B = "from a import f\n\n\ndef use():\n    return f()\n"
C = "def h():\n    return 2\n"


def _callers(graph: EmbeddedGraphStore, repo: str) -> set[tuple[str, str]]:
    out = set()
    for src, hits in graph.neighbours([n.uid for n in graph.nodes_by_label("Symbol", repo, limit=100)], "out",
                                      ["CALLS"]).items():
        out.update((src.split("|")[2], h.edge.target.split("|")[2]) for h in hits if h.edge.target.startswith("sym|"))
    return out


def test_only_the_files_a_change_reaches_are_resolved(tmp_path: Path) -> None:
    root = tmp_path / "src"
    root.mkdir()
    for name, text in (("a.py", A), ("b.py", B), ("c.py", C)):
        (root / name).write_text(text)
    graph = EmbeddedGraphStore(tmp_path / "g.db")
    state = StateStore(tmp_path / "s.db")
    try:
        s = index_repo(root, "r", graph, None, state, workers=1)
        assert s.resolved_files == 3
        assert _callers(graph, "r") == {("b.use", "a.f")}
        (root / "c.py").write_text(C + "\n\ndef k():\n    return h()\n")  # nobody imports c
        s = index_repo(root, "r", graph, None, state, workers=1)
        assert (s.changed, s.resolved_files) == (1, 1)
        assert _callers(graph, "r") == {("b.use", "a.f"), ("c.k", "c.h")}
        (root / "a.py").write_text(A + "\n\ndef extra():\n    return 3\n")  # b reads a's `f` only
        s = index_repo(root, "r", graph, None, state, workers=1)
        assert s.resolved_files == 1
        (root / "a.py").write_text(A.replace("def f", "def f2"))  # b's import of `f` now misses
        s = index_repo(root, "r", graph, None, state, workers=1)
        assert s.resolved_files == 2
        assert _callers(graph, "r") == {("c.k", "c.h")}
        (root / "a.py").write_text(A)  # back: b resolves to a.f again
        s = index_repo(root, "r", graph, None, state, workers=1)
        assert s.resolved_files == 2 and _callers(graph, "r") == {("b.use", "a.f"), ("c.k", "c.h")}
        (root / "c.py").write_text((root / "c.py").read_text() + "# touched\n")
        s = index_repo(root, "r", graph, None, state, workers=1, full_resolve=True)
        # every file resolved: only the edited one's edges are written, the others' were already right
        assert (s.resolved_files, s.edges_rewritten_files) == (3, 1)
    finally:
        state.close()
        graph.close()

"""A repo new to the graph is loaded while the pool extracts (``pipeline._StreamLoad``):
the graph and search index equal those of a load after extraction, and a run that fails
during extraction leaves the graph as it was (the run's transaction)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.embedded_search import EmbeddedSearchIndex
from codegraph.core.models import repo_uid
from codegraph.indexer import pipeline
from codegraph.indexer.state import StateStore
from tests.property.graph_dump import diff, dump


def _tree(root: Path) -> Path:
    for i in range(45):  # above the 32 files that use the pool
        body = f"from pkg.m{(i + 1) % 45} import f{(i + 1) % 45}_0\n\n"
        body += "".join(f"def f{i}_{j}(x):\n    return f{i}_{max(j - 1, 0)}(x) + f{(i + 1) % 45}_0(x)\n\n"
                        for j in range(4))
        body += f"class C{i}:\n    def run(self):\n        return f{i}_3(self)\n"
        (root / "pkg").mkdir(parents=True, exist_ok=True)
        (root / "pkg" / f"m{i}.py").write_text(body)
    (root / "pkg" / "__init__.py").write_text("")
    return root


def _index(src: Path, home: Path) -> tuple[pipeline.IndexSummary, EmbeddedGraphStore]:
    g, s, st = EmbeddedGraphStore(home / "graph.db"), EmbeddedSearchIndex(home / "search.db"), StateStore(
        home / "state.db")
    try:
        return pipeline.index_repo(src, "r", g, s, st, workers=2, pages={"pkg/m3.py": "/m3"}), g
    finally:
        s.close()
        st.close()


def test_loading_during_extraction_stores_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = _tree(tmp_path / "src")
    streamed, g1 = _index(src, tmp_path / "streamed")
    assert "load during extract" in streamed.timings
    monkeypatch.setattr(pipeline, "STREAM_LOAD", False)
    after, g2 = _index(src, tmp_path / "after")
    assert "load during extract" not in after.timings
    assert streamed.symbols == after.symbols > 200 and streamed.edges == after.edges > 300
    a, b = dump(g1, "r"), dump(g2, "r")
    assert diff(a, b) == []
    assert any('"/m3"' in v for v in a[0].values())  # the explicit page route reached the streamed File node
    # A second run of the same tree is a refresh (the repo is in the graph): no streaming.
    again, _ = _index(src, tmp_path / "streamed")
    assert "load during extract" not in again.timings and again.changed == 0
    g1.close()
    g2.close()


def _boom(args: tuple[str, str, str, str, bool]) -> object:
    if args[1].endswith("m40.py"):
        raise RuntimeError("extractor crashed")
    return _real_job(args)


_real_job = pipeline._extract_job


def test_a_run_that_fails_during_extraction_leaves_the_graph_as_it_was(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    src = _tree(tmp_path / "src")
    monkeypatch.setattr(pipeline, "STREAM_BATCH", 5)  # batches are imported before the failure
    monkeypatch.setattr(pipeline, "_extract_job", _boom)  # the pool forks: its workers see it too
    with pytest.raises(RuntimeError, match="extractor crashed"):
        _index(src, tmp_path / "home")
    g = EmbeddedGraphStore(tmp_path / "home" / "graph.db")
    try:
        assert g.file_hashes("r") == {}
        assert g.get_nodes([repo_uid("r")]) == {}  # not even the "running" Repo node
        assert sum(g.counts("r")["nodes"].values()) == 0
    finally:
        g.close()

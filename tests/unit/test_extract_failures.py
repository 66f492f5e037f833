"""An extractor that raises costs one file, never the run: the file is marked ``error``,
the traceback is logged at DEBUG by codegraph.indexer.extract, and the run's summary
counts the failure (docs/DESIGN.md#logging)."""

from __future__ import annotations

import logging
import types
from pathlib import Path

import pytest

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.indexer import extract
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore


def _broken(repo: str, path: str, source: bytes):
    raise RecursionError("grammar blew up")


def test_failure_is_logged_with_traceback_and_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    root = tmp_path / "src"
    root.mkdir()
    (root / "ok.py").write_text("def f():\n    return 1\n")
    (root / "bad.py").write_text("def g():\n    return 2\n")
    real = extract.extractor_for

    def extractor_for(language: str):
        mod = real(language)
        return types.SimpleNamespace(extract=lambda repo, path, source: _broken(repo, path, source)
                                     if path == "bad.py" else mod.extract(repo, path, source))

    monkeypatch.setattr(extract, "extractor_for", extractor_for)
    graph, state = EmbeddedGraphStore(tmp_path / "g.db"), StateStore(tmp_path / "s.db")
    with caplog.at_level(logging.DEBUG, logger="codegraph.indexer.extract"):
        s = index_repo(root, "r", graph, None, state, workers=1)
    state.close()
    assert s.extract_failures == 1 and s.files == 2
    assert [m for m in s.messages if m.startswith("bad.py")] == ["bad.py: extractor failed: RecursionError: grammar blew up"]
    [rec] = [r for r in caplog.records if r.name == "codegraph.indexer.extract"]
    assert rec.levelno == logging.DEBUG and "bad.py" in rec.getMessage()
    assert rec.exc_info is not None and rec.exc_info[0] is RecursionError
    files = {n.props["path"]: n.props["coverage_status"] for n in graph.nodes_by_label("File", "r")}
    assert files == {"ok.py": "full", "bad.py": "error"}
    graph.close()

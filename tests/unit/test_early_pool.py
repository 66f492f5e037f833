"""A run that extracts every file starts its worker pool while the tree is walked
(``pipeline._EarlyPool``, ``discover(many=...)``) and extracts with that pool; a small
tree or a refresh starts none early; the stores are those of a run without it."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegraph.indexer import pipeline, workers
from codegraph.indexer.discover import discover
from tests.property.graph_dump import diff, dump
from tests.unit.test_stream_load import _index, _tree


def _record_pools(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, bool]]:
    made: list[tuple[int, bool]] = []

    def pool(n: int, warm: bool = False):  # type: ignore[no-untyped-def]
        made.append((n, warm))
        return workers.worker_pool(n, warm)

    monkeypatch.setattr(pipeline, "worker_pool", pool)
    return made


def test_a_first_index_extracts_with_the_pool_started_during_the_walk(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    src = _tree(tmp_path / "src")
    made = _record_pools(monkeypatch)
    early, g1 = _index(src, tmp_path / "early")
    assert made == [(2, True)]  # started by discover, then used: no second pool
    again, _ = _index(src, tmp_path / "early")  # a refresh with nothing changed starts no pool
    assert again.changed == 0 and made == [(2, True)]
    monkeypatch.setattr(pipeline, "POOL_MIN_FILES", 10_000)  # no early start, no pool: the main process extracts
    alone, g2 = _index(src, tmp_path / "alone")
    assert made == [(2, True)]
    assert early.symbols == alone.symbols > 200 and early.edges == alone.edges > 300
    assert diff(dump(g1, "r"), dump(g2, "r")) == []
    g1.close()
    g2.close()


def test_a_small_tree_starts_no_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for i in range(5):
        (src / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    made = _record_pools(monkeypatch)
    s, g = _index(src, tmp_path / "home")
    assert s.symbols >= 5 and made == []
    g.close()


def test_discover_calls_many_once_when_enough_paths_are_found(tmp_path: Path) -> None:
    for d in range(4):
        (tmp_path / f"d{d}").mkdir()
        for i in range(5):
            (tmp_path / f"d{d}" / f"m{i}.py").write_text("x = 1\n")
    calls: list[int] = []
    found = discover(tmp_path, use_git=False, many=(7, lambda: calls.append(1)))
    assert len(found.files) == 20 and calls == [1]
    discover(tmp_path, use_git=False, many=(21, lambda: calls.append(2)))
    assert calls == [1]


def test_a_warmed_pool_extracts_as_the_main_process(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import os\n\ndef f(p):\n    return os.path.join(p, 'SELECT a FROM t')\n")
    job = ("r", "a.py", "python", str(tmp_path / "a.py"), True)
    with workers.worker_pool(2, warm=True) as pool:
        (fx, chunks), = pipeline.extract_pooled(pool, [job])
    want, want_chunks = pipeline._extract_job(job)
    assert fx == want and list(chunks) == want_chunks and [c.terms for c in chunks] == [c.terms for c in want_chunks]

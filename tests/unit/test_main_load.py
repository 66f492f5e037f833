"""The main process's own work in a full index, outside resolution: what it imports before
the early pool starts, when the triage decisions are read, the embedded graph's symbol
look-ups, edge batches whose ends are all known, and the WAL truncation of the checkpoint
beside the run's end."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from codegraph.core.completeness import commit_run, run_transaction
from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.embedded_search import EmbeddedSearchIndex
from codegraph.core.models import (
    CALLS,
    Edge,
    FileImport,
    FileRecord,
    RepoRecord,
    StubRecord,
    SymbolRecord,
    file_uid,
)
from codegraph.indexer import pipeline, workers
from codegraph.indexer.state import StateStore
from tests.unit.test_stream_load import _tree

ROOT = Path(__file__).resolve().parents[2]


def test_the_pipeline_module_leaves_the_post_extraction_half_to_later() -> None:
    code = ("import sys, codegraph.indexer.pipeline as p\n"
            "late = ['codegraph.indexer.apply', 'codegraph.indexer.affected', 'codegraph.indexer.resolve', "
            "'codegraph.core.triage', 'pathspec']\n"
            "print(sorted(m for m in late if m in sys.modules))\n"
            "print(p.IndexSummary.__module__, p.apply_extractions.__module__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout.splitlines()
    assert out == ["[]", "codegraph.indexer.apply codegraph.indexer.apply"]
    with pytest.raises(AttributeError):
        pipeline.no_such_name  # noqa: B018


def test_the_decisions_function_is_called_once_after_the_pool_started(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    src = _tree(tmp_path / "src")
    events: list[str] = []

    def pool(n: int, warm: bool = False):  # type: ignore[no-untyped-def]
        events.append("pool")
        return workers.worker_pool(n, warm)

    def decisions() -> None:
        events.append("decisions")

    monkeypatch.setattr(pipeline, "worker_pool", pool)
    home = tmp_path / "home"
    g, s, st = EmbeddedGraphStore(home / "graph.db"), EmbeddedSearchIndex(home / "search.db"), StateStore(
        home / "state.db")
    try:
        summary = pipeline.index_repo(src, "r", g, s, st, workers=2, decisions=decisions)
    finally:
        for store in (g, s, st):
            store.close()
    assert events == ["pool", "decisions"]
    assert summary.symbols > 200 and summary.edges > 300


def _sym(path: str, name: str, line: int) -> SymbolRecord:
    return SymbolRecord(repo="r", qualified_name=f"{path[:-3]}.{name}", signature_hash="h", name=name,
                        kind="function", language="python", language_kind="function_definition", file=path,
                        line=line, end_line=line + 1)


def _files(n: int) -> list[FileImport]:
    return [FileImport(FileRecord(repo="r", path=f"m{i}.py", language="python", content_hash=f"c{i}"),
                       [_sym(f"m{i}.py", f"f{j}", j * 3 + 1) for j in range(3)]) for i in range(n)]


def test_the_symbol_look_ups_of_a_file_import_go_by_repo_and_path(tmp_path: Path) -> None:
    g = EmbeddedGraphStore(tmp_path / "graph.db")
    g.ensure_schema()
    g.import_files("r", _files(4))
    seen: list[str] = []
    g._conn().set_trace_callback(seen.append)
    diffs = g.import_files("r", _files(5))
    assert g.nodes_in_files("r", ["m1.py"])["m1.py"][0].props["name"] == "f0"
    g._conn().set_trace_callback(None)
    lookups = [q for q in seen if q.startswith("SELECT") and "path IN" in q]
    assert len(lookups) == 2  # import_files' and nodes_in_files'
    for q in lookups:
        plan = " ".join(str(r[3]) for r in g._conn().execute(f"EXPLAIN QUERY PLAN {q}"))
        assert "nodes_repo_path" in plan, plan
    assert [(d.added, d.updated, d.removed) for d in diffs.values()] == [(0, 3, 0)] * 4 + [(3, 0, 0)]
    g.close()


def test_an_edge_batch_keeps_only_edges_whose_ends_exist(tmp_path: Path) -> None:
    g = EmbeddedGraphStore(tmp_path / "graph.db")
    g.ensure_schema()
    stub = StubRecord(repo="r", target_identifier="os.getcwd", reason="missing")
    src, dst = _sym("m0.py", "f0", 1).uid, _sym("m1.py", "f1", 4).uid

    def edge(target: str, line: int) -> Edge:
        return Edge(CALLS, src, target, "m0.py", line, "exact", {})

    with run_transaction(g):
        g.upsert_repo(RepoRecord("r", str(tmp_path)))
        g.import_files("r", _files(2))
        g.upsert_nodes([stub.to_node()])
        assert g.replace_edges("r", ["m0.py"], [edge(dst, 1), edge(stub.uid, 2)]) == 2  # every end live
        # One end unknown: that edge is left out, the others go in, in order.
        assert g.replace_edges("r", ["m0.py"], [edge(dst, 1), edge("sym|r|missing|h", 2), edge(stub.uid, 3)]) == 2
        commit_run(g)
    rows = g._conn().execute("SELECT target, line FROM edges WHERE type=? ORDER BY id", (CALLS,)).fetchall()
    assert rows == [(dst, 1), (stub.uid, 3)]
    # Outside a run nothing is live: the ends are looked up, the same edges result.
    assert g.replace_edges("r", ["m0.py"], [edge(dst, 1), edge("sym|r|missing|h", 2), edge(stub.uid, 3)]) == 2
    assert g._conn().execute("SELECT target, line FROM edges WHERE type=? ORDER BY id", (CALLS,)).fetchall() \
        == [(dst, 1), (stub.uid, 3)]
    assert file_uid("r", "m0.py") in g.get_nodes([file_uid("r", "m0.py")])
    g.close()


def _wal(g: EmbeddedGraphStore) -> int:
    return os.path.getsize(f"{g.path}-wal")


def test_the_checkpoint_truncates_the_wal_unless_someone_reads(tmp_path: Path) -> None:
    g = EmbeddedGraphStore(tmp_path / "graph.db")
    g.ensure_schema()
    with run_transaction(g):
        g.import_files("r", _files(20))
        commit_run(g, checkpoint=False)
    assert _wal(g) > 0
    reader = sqlite3.connect(g.path, isolation_level=None)
    reader.execute("BEGIN")
    assert reader.execute("SELECT count(*) FROM nodes").fetchone() == (80,)  # a read transaction stays open
    g.checkpoint()  # copies what it can, does not wait for the reader, leaves the WAL
    assert _wal(g) > 0
    reader.execute("COMMIT")
    reader.close()
    g.checkpoint()
    assert _wal(g) == 0
    assert g.counts("r")["nodes"] == {"File": 20, "Symbol": 60}
    g.close()

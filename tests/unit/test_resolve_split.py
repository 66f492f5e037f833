"""Resolution over two processes (``codegraph.indexer.resolve_split``, on with
CODEGRAPH_RESOLVE_SPLIT=1) gives exactly what one
process gives: every edge in the same order, the same stub records (order, reason, where each
was set), counts per file, dependency keys per file, boundary links, the state blob. Checked on
real code (this product's own package, about 150 Python files) split at every reference count,
with the order-dependent cases present in both halves; an error in the child re-raises in the
run, a child that vanished raises ``ResolveChildLost``."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

from codegraph.indexer import affected, resolve_split, tracing_table
from codegraph.indexer.languages import link_repo
from codegraph.indexer.pipeline import extract_tree
from codegraph.indexer.records import FileExtraction
from codegraph.indexer.state import StateStore

pytestmark = pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(),
                                reason="no fork on this platform")
PKG = Path(__file__).resolve().parents[2] / "codegraph"


@pytest.fixture(scope="module")
def extractions() -> list[FileExtraction]:
    _, fxs, _ = extract_tree(PKG, "cg", workers=2)
    fxs.sort(key=lambda fx: fx.file.path)
    link_repo(fxs, PKG)
    return fxs


def _resolve(fxs: list[FileExtraction], split_at: int, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Every output of a full ``resolve_and_link``, in order."""
    monkeypatch.setenv("CODEGRAPH_RESOLVE_SPLIT", "1")
    monkeypatch.setattr(resolve_split, "SPLIT_AT_LEAST", split_at)
    tracing_table._TABLES.clear()
    with tempfile.TemporaryDirectory() as d:
        st = StateStore(Path(d) / "state.db")
        try:
            r = affected.resolve_and_link("cg", fxs, {fx.file.path: fx for fx in fxs}, [], set(), st, None, PKG,
                                          full=True)
        finally:
            st.close()
    (table, _), = tracing_table._TABLES.values()
    return {
        "edges": [(f, [(e.key(), e.resolution, repr(sorted(e.extra.items()))) for e in es]) for f, es in r.res.edges.items()],
        "stubs": [(u, repr(s)) for u, s in r.res.stubs.items()],
        "stub positions": sorted(r.res.stubs.pos.items()),  # type: ignore[attr-defined]
        "counts": sorted(r.res.counts.items()),
        "counts per file": sorted((f, list(c.items())) for f, c in r.res.counts.per_file.items() if c),  # type: ignore
        "stubs written": [repr(s) for s in r.stubs],
        "state files": sorted((p, r.state.keys(p), sorted(c.items())) for p, (_, c) in r.state.files.items()),
        "state blob": repr(r.state.blob),
        "links": repr((r.links.nodes, r.links.edges, r.links.unplaced, r.links.counts)),
        "table keys": sorted((p, sorted(map(repr, ks))) for p, ks in dict.items(table.deps)),
        "table position": table.pos,
    }


def test_split_gives_what_one_process_gives(extractions: list[FileExtraction], monkeypatch: pytest.MonkeyPatch) -> None:
    halves: list[resolve_split._Half] = []  # the run's, then the child's
    real_half, real_receive = resolve_split._resolve_half, resolve_split._receive

    def half(*a: Any) -> resolve_split._Half:
        halves.append(real_half(*a))  # in the child too, where the list is a copy
        return halves[-1]

    def receive(*a: Any) -> resolve_split._Half:
        halves.append(real_receive(*a))
        return halves[-1]

    one = _resolve(extractions, 10**12, monkeypatch)
    monkeypatch.setattr(resolve_split, "_resolve_half", half)
    monkeypatch.setattr(resolve_split, "_receive", receive)
    two = _resolve(extractions, 1, monkeypatch)
    assert len(halves) == 2, "the resolution was not split"
    for k in one:
        assert one[k] == two[k], k
    # The child's half holds the order-dependent cases the merge puts in order: stub
    # records, files whose first edge is an inheritance edge, values handed to parameters,
    # self.m() calls (dispatch), dependency keys.
    mine, theirs = halves
    assert theirs.stubs and theirs.passes and theirs.dispatch and theirs.deps
    assert any(es[0].type in ("EXTENDS", "IMPLEMENTS") for es in theirs.edges.values())
    # Stub uids set in both halves: which record is kept depends on the merge order.
    assert {st.uid for _, st in mine.stubs} & {st.uid for _, st in theirs.stubs}


def test_an_error_in_the_child_re_raises(extractions: list[FileExtraction], monkeypatch: pytest.MonkeyPatch) -> None:
    real = resolve_split._resolve_half

    def half(table: Any, repo: str, fxs: list[FileExtraction], lo: int, *a: Any) -> Any:
        if lo > 0:  # the child's half
            raise ValueError("broken hint table")
        return real(table, repo, fxs, lo, *a)

    monkeypatch.setattr(resolve_split, "_resolve_half", half)
    with pytest.raises(ValueError, match="broken hint table"):
        _resolve(extractions, 1, monkeypatch)


def test_a_vanished_child_fails_the_run(extractions: list[FileExtraction], monkeypatch: pytest.MonkeyPatch) -> None:
    real = resolve_split._resolve_half

    def half(table: Any, repo: str, fxs: list[FileExtraction], lo: int, *a: Any) -> Any:
        if lo > 0:
            os._exit(3)
        return real(table, repo, fxs, lo, *a)

    monkeypatch.setattr(resolve_split, "_resolve_half", half)
    with pytest.raises(resolve_split.ResolveChildLost, match="exit code 3"):
        _resolve(extractions, 1, monkeypatch)


def test_few_references_stay_in_the_process(extractions: list[FileExtraction], monkeypatch: pytest.MonkeyPatch) -> None:
    from codegraph.indexer.resolve import Resolution

    monkeypatch.setenv("CODEGRAPH_RESOLVE_SPLIT", "1")
    small = extractions[:3]
    assert sum(len(fx.references) for fx in small) < resolve_split.SPLIT_AT_LEAST
    assert not resolve_split.worth_it(small, Resolution())
    assert resolve_split.worth_it(extractions * 40, Resolution())


def test_off_unless_the_environment_asks(extractions: list[FileExtraction], monkeypatch: pytest.MonkeyPatch) -> None:
    from codegraph.indexer.resolve import Resolution

    for value in (None, "0", ""):
        if value is None:
            monkeypatch.delenv("CODEGRAPH_RESOLVE_SPLIT", raising=False)
        else:
            monkeypatch.setenv("CODEGRAPH_RESOLVE_SPLIT", value)
        assert not resolve_split.worth_it(extractions * 40, Resolution())

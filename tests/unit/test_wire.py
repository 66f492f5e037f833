"""The form a worker's result crosses the pipe in (``codegraph.indexer.wire``) gives back
the same extraction and chunks, BM25 terms included, as the objects that were sent."""

from __future__ import annotations

import pickle
from fractions import Fraction

from codegraph.indexer import wire
from codegraph.indexer.pipeline import _extract_job, extract_pooled
from codegraph.indexer.workers import worker_pool

SOURCE = '''"""A module."""
import os
from .base import Base, __version__

URL = "/api/v1"


class Shop(Base):
    """Sells things."""

    def price(self, item: "Item", n: int = 1) -> float:
        return os.path.join(item.name, str(n)) and 1.5 * n


def naïve(x):  # non-ASCII text in names and chunks
    return Shop().price(x)
'''


def _same(a, b) -> None:
    (fx, chunks), (fx2, chunks2) = a, b
    chunks, chunks2 = list(chunks), list(chunks2)
    assert fx2 == fx and chunks2 == chunks
    assert [c.terms for c in chunks2] == [c.terms for c in chunks]  # terms are left out of Chunk equality
    assert [type(r) for r in fx2.references] == [type(r) for r in fx.references]


def test_an_extraction_and_its_chunks_come_back_equal(tmp_path) -> None:
    (tmp_path / "shop.py").write_text(SOURCE, encoding="utf-8")
    fx, chunks = _extract_job(("r", "shop.py", "python", str(tmp_path / "shop.py"), True))
    assert fx.symbols and fx.references and chunks and all(c.terms for c in chunks)
    blob = wire.encode(fx, chunks)
    assert blob[:1] == b"W"
    _same((fx, chunks), wire.decode(blob))
    _same((fx, chunks), pickle.loads(pickle.dumps((fx, chunks))))  # what the wire form replaces


def test_a_value_marshal_cannot_write_crosses_pickled(tmp_path) -> None:
    (tmp_path / "shop.py").write_text(SOURCE, encoding="utf-8")
    fx, chunks = _extract_job(("r", "shop.py", "python", str(tmp_path / "shop.py"), True))
    fx.references[0].extra["odd"] = Fraction(1, 3)  # not a plain type
    blob = wire.encode(fx, chunks)
    assert blob[:1] != b"W"
    back, _ = wire.decode(blob)
    assert back.references[0].extra["odd"] == Fraction(1, 3) and back == fx


def test_pooled_extraction_gives_the_jobs_results_in_order(tmp_path) -> None:
    jobs = []
    for i in range(12):
        (tmp_path / f"m{i}.py").write_text(SOURCE.replace("Shop", f"Shop{i}"), encoding="utf-8")
        jobs.append(("r", f"m{i}.py", "python", str(tmp_path / f"m{i}.py"), i % 2 == 0))
    jobs.append(("r", "gone.py", "python", str(tmp_path / "gone.py"), True))  # unreadable: an error record
    with worker_pool(2) as pool:
        got = list(extract_pooled(pool, jobs))
    assert len(got) == len(jobs)
    for job, result in zip(jobs, got, strict=True):
        _same(_extract_job(job), result)
    assert got[-1][0].file.had_error and not got[-1][1]


def _extracted(tmp_path, name: str) -> tuple:
    (tmp_path / f"{name}.py").write_text(SOURCE.replace("Shop", name), encoding="utf-8")
    return _extract_job(("r", f"{name}.py", "python", str(tmp_path / f"{name}.py"), True))


def test_chunks_stay_in_wire_form_until_read(tmp_path) -> None:
    """The main process counts and gathers chunks without building them (wire.py): only the
    first read of an item builds them, all of them, in the order they were gathered."""
    results = [_extracted(tmp_path, f"M{i}") for i in range(3)]
    gathered = wire.WireChunks()
    for fx, chunks in results[:2]:
        _, back = wire.decode(wire.encode(fx, chunks))
        gathered.extend(back)
    gathered.extend(results[2][1])  # chunks made in this process (a run without a pool)
    gathered.extend(wire.decode(wire.encode(results[0][0], []))[1])  # a file without chunks
    want = [c for _, chunks in results for c in chunks]
    assert len(gathered) == len(want)
    assert sum(isinstance(p, bytes) for p in gathered._parts) == 2  # len and extend built nothing
    assert gathered[0] == want[0] and not any(isinstance(p, bytes) for p in gathered._parts)
    assert list(gathered) == want and gathered[1:3] == want[1:3]
    assert [c.terms for c in gathered] == [c.terms for c in want]


def test_a_pickled_result_gives_the_same_chunks(tmp_path) -> None:
    fx, chunks = _extracted(tmp_path, "Odd")
    fx.references[0].extra["odd"] = Fraction(1, 3)
    _, back = wire.decode(wire.encode(fx, chunks))
    assert len(back) == len(chunks) and list(back) == chunks

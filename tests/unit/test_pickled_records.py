"""Extraction results cross from the worker processes to the indexer by pickle
(``codegraph.core.models.pickled_by_fields``): every field, ``Chunk.terms`` (left out
of ``==``) included, must come back, as the same classes."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from codegraph.core.models import pickled_by_fields
from codegraph.indexer.pipeline import _extract_job
from tests.stdlib_source import stdlib_files


def test_a_real_files_extraction_and_chunks_come_back_whole(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (path, src), = stdlib_files(["json/decoder.py"])
    f = tmp_path / "decoder.py"
    f.write_text(src, encoding="utf-8")
    fx, chunks = _extract_job(("std", path, "python", str(f), True))
    assert fx.symbols and fx.references and chunks
    back_fx, back_chunks = pickle.loads(pickle.dumps((fx, chunks), protocol=pickle.HIGHEST_PROTOCOL))
    assert back_fx == fx
    assert [type(x) for x in back_fx.symbols + back_fx.references] == [type(x) for x in fx.symbols + fx.references]
    assert back_chunks == chunks
    assert [c.terms for c in back_chunks] == [c.terms for c in chunks] and all(c.terms for c in chunks)
    for a, b in zip([fx.file, *fx.symbols, *fx.references, *chunks],
                    [back_fx.file, *back_fx.symbols, *back_fx.references, *back_chunks], strict=True):
        assert type(a) is type(b)
        assert [getattr(a, f.name) for f in dataclasses.fields(a)] == [getattr(b, f.name) for f in dataclasses.fields(b)]


def test_a_field_outside_init_is_refused() -> None:
    @dataclasses.dataclass(slots=True)
    class Derived:
        a: int
        b: int = dataclasses.field(init=False, default=0)

    with pytest.raises(TypeError, match="every field in __init__"):
        pickled_by_fields(Derived)


def test_a_one_field_class_round_trips() -> None:
    @dataclasses.dataclass(slots=True)
    class One:
        a: list[int]

    pickled_by_fields(One)
    globals()["One"] = One  # pickle finds classes by module-level name
    One.__qualname__ = "One"
    assert pickle.loads(pickle.dumps(One([1, 2]))) == One([1, 2])

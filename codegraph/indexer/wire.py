"""What an extraction worker sends the indexer's main process for one file: its
``FileExtraction`` and search chunks as one ``marshal`` blob (docs/DESIGN.md#extraction-contract).

Records cross as tuples of field values in class field order (the record classes are
the same code on both sides of the pipe), built back by one constructor call each.
Against pickling the objects (``models.pickled_by_fields``) this is about half the CPU
on both sides: the workers' ``dumps`` and the main process's ``loads``, which runs
beside the stream load while the workers extract. A value marshal cannot write (not a
plain type) sends that file pickled instead: the result is the same objects either way.
"""

from __future__ import annotations

import marshal
import pickle
from dataclasses import fields
from functools import cache
from operator import attrgetter
from typing import Any

from codegraph.core.models import Chunk, FileRecord, SymbolRecord
from codegraph.indexer.records import FileExtraction, Reference

_MARSHAL = b"W"  # blob prefix; anything else is a pickle (protocol 5 starts with 0x80)


@cache
def _row(cls: type) -> Any:
    """Field values of a record as one tuple, in field order (every record class here has
    more than one field, so attrgetter always returns a tuple)."""
    return attrgetter(*(f.name for f in fields(cls)))


def encode(fx: FileExtraction, chunks: list[Chunk]) -> bytes:
    """One file's extraction and chunks as sent to the main process."""
    try:
        return _MARSHAL + marshal.dumps((
            _row(FileRecord)(fx.file), list(map(_row(SymbolRecord), fx.symbols)),
            list(map(_row(Reference), fx.references)), fx.framework, fx.exports, fx.errors,
            list(map(_row(Chunk), chunks))), 4)
    except ValueError:  # an object marshal cannot write
        return pickle.dumps((fx, chunks), pickle.HIGHEST_PROTOCOL)


def decode(blob: bytes) -> tuple[FileExtraction, list[Chunk]]:
    """``encode``'s (extraction, chunks)."""
    if blob[:1] != _MARSHAL:
        fx, chunks = pickle.loads(blob)
        return fx, chunks
    f, syms, refs, framework, exports, errors, chunks = marshal.loads(memoryview(blob)[1:])
    return (FileExtraction(FileRecord(*f), [SymbolRecord(*s) for s in syms], [Reference(*r) for r in refs],
                           framework, exports, errors),
            [Chunk(*c) for c in chunks])

"""What an extraction worker sends the indexer's main process for one file: its
``FileExtraction`` and search chunks as one ``marshal`` blob (docs/DESIGN.md#extraction-contract).

Records cross as tuples of field values in class field order (the record classes are
the same code on both sides of the pipe), built back by one constructor call each.
Against pickling the objects (``models.pickled_by_fields``) this is about half the CPU
on both sides: the workers' ``dumps`` and the main process's ``loads``, which runs
beside the stream load while the workers extract. A value marshal cannot write (not a
plain type) sends that file pickled instead: the result is the same objects either way.

Blob layout: ``W``, the length of the head (4 bytes, little-endian), the head (the
extraction's records and the number of chunks), then the chunks' own marshal. The main
process decodes the head only: the chunks stay bytes in a ``WireChunks`` until the
search writes read them, in their forked child (codegraph.indexer.search_writes) when
they run there. The main process itself never reads chunk text (~70 % of the bytes).
"""

from __future__ import annotations

import marshal
import pickle
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import fields
from functools import cache
from operator import attrgetter
from typing import Any, overload

from codegraph.core.models import Chunk, FileRecord, SymbolRecord
from codegraph.indexer.records import FileExtraction, Reference

_MARSHAL = b"W"  # blob prefix; anything else is a pickle (protocol 5 starts with 0x80)
_HEAD = 4  # bytes of the head's length


@cache
def _row(cls: type) -> Any:
    """Field values of a record as one tuple, in field order (every record class here has
    more than one field, so attrgetter always returns a tuple)."""
    return attrgetter(*(f.name for f in fields(cls)))


class WireChunks(Sequence[Chunk]):
    """Search chunks, some still in their wire form (a marshal of field tuples): built into
    ``Chunk`` objects, all at once and in order, on the first read of an item; ``len``
    and ``extend`` do not build them."""

    __slots__ = ("_parts", "_n")

    def __init__(self, chunks: Iterable[Chunk] = ()) -> None:
        self._parts: list[bytes | list[Chunk]] = []
        self._n = 0
        self.extend(chunks)

    def _add_wire(self, n: int, data: bytes) -> None:
        if n:
            self._parts.append(data)
            self._n += n

    def extend(self, chunks: Iterable[Chunk]) -> None:
        """Append ``chunks`` (another WireChunks keeps its wire parts as they are)."""
        if isinstance(chunks, WireChunks):
            self._parts += chunks._parts
            self._n += chunks._n
            return
        part = list(chunks)
        if part:
            self._parts.append(part)
            self._n += len(part)

    def _built(self) -> list[Chunk]:
        if len(self._parts) != 1 or not isinstance(self._parts[0], list):
            out: list[Chunk] = []
            for part in self._parts:
                out += part if isinstance(part, list) else [Chunk(*c) for c in marshal.loads(part)]
            self._parts = [out]
        return self._parts[0] if self._parts else []

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> Chunk: ...

    @overload
    def __getitem__(self, i: slice) -> list[Chunk]: ...

    def __getitem__(self, i: int | slice) -> Chunk | list[Chunk]:
        return self._built()[i]

    def __iter__(self) -> Iterator[Chunk]:
        return iter(self._built())


def encode(fx: FileExtraction, chunks: list[Chunk]) -> bytes:
    """One file's extraction and chunks as sent to the main process."""
    try:
        head = marshal.dumps((
            _row(FileRecord)(fx.file), list(map(_row(SymbolRecord), fx.symbols)),
            list(map(_row(Reference), fx.references)), fx.framework, fx.exports, fx.errors, len(chunks)), 4)
        body = marshal.dumps(list(map(_row(Chunk), chunks)), 4)
    except ValueError:  # an object marshal cannot write
        return pickle.dumps((fx, chunks), pickle.HIGHEST_PROTOCOL)
    return b"".join((_MARSHAL, len(head).to_bytes(_HEAD, "little"), head, body))


def decode(blob: bytes) -> tuple[FileExtraction, WireChunks]:
    """``encode``'s (extraction, chunks); the chunks are built when first read."""
    out = WireChunks()
    if blob[:1] != _MARSHAL:
        fx, chunks = pickle.loads(blob)
        out.extend(chunks)
        return fx, out
    n = int.from_bytes(blob[1:1 + _HEAD], "little")
    view = memoryview(blob)
    f, syms, refs, framework, exports, errors, count = marshal.loads(view[1 + _HEAD:1 + _HEAD + n])
    out._add_wire(count, blob[1 + _HEAD + n:])
    return (FileExtraction(FileRecord(*f), [SymbolRecord(*s) for s in syms], [Reference(*r) for r in refs],
                           framework, exports, errors), out)

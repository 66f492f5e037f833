"""The indexer state's dependency index: which files' last resolution looked up which
symbol-table key (recorded by ``codegraph.indexer.affected``; docs/DESIGN.md#refresh), as
a run hands it to the save (``ResolveState``) and in the forms stored.

One relation (key text -> paths) is kept twice, both written in the save's transaction
(``StateStore.save``):

- forward, per file (``resolve_files.deps``): a marshal of the file's key texts, each once,
  in no set order (``encode_keys``); what a refresh reads of the files it resolves again;
- inverted, in *shards* (``resolve_index``): the repo's key texts split by a stable hash
  (crc32 of the UTF-8 bytes modulo the repo's shard count, ``resolve_shards``, with its
  number of keys), each shard one marshal dict key text -> paths (``encode_shard``). A
  look-up reads only the shards of its keys; a refresh's save rewrites only the shards of
  the keys whose files changed (all of them, in more shards, once refreshes have doubled
  the keys the count was made for; a full save sizes it again).

A shard keeps the texts themselves, so two keys sharing a shard never mix: the dependents
of a key are exactly the files that looked it up. Layout 2 kept the inverted index as one
row per (key, path) — 97,000 rows on Django, about half of a full index's state save
(~0.3 CPU s of inserts and the pages of their index at the commit); the shards are 512
rows of marshal blobs (~0.05 CPU s to split and write).
"""

from __future__ import annotations

import marshal
import zlib
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

SEP = "\x1f"  # between the parts of a key's text
SHARD_KEYS = 128  # distinct keys a shard is sized for (512: a one-file stdlib refresh read ~15 shards of ~33 KB, 4 ms)
MAX_SHARDS = 4096


def key_text(key: tuple[str, Any]) -> str:
    """One dependency key as stored: structure and key parts joined by U+001F."""
    tag, k = key
    return tag + SEP + (SEP.join(map(str, k)) if isinstance(k, tuple) else str(k))


@dataclass(slots=True)
class ResolveState:
    """Per-file dependency keys and counts (for ``files``), and the repo-level blob.

    A file's keys are the (structure, key) pairs its look-ups recorded (the table's own
    set: nothing is recorded after the resolution) or their texts (``key_text``);
    ``keys`` and ``texts`` give the texts as stored. The texts are made by the save, which
    may run in a child beside the edge writes (``codegraph.indexer.state_writes``)."""

    files: dict[str, tuple[Collection[Any], dict[str, int]]] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)
    full: bool = False  # replace every row of the repo
    blob: dict[str, Any] = field(default_factory=dict)

    def keys(self, path: str) -> list[str]:
        """``path``'s dependency keys as stored (``key_text``), sorted."""
        return sorted({_text(key) for key in self.files[path][0]})

    def texts(self) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        """(path -> its key texts (``key_text``), each once, in no set order; key text ->
        the paths that looked it up) for every file of ``files``: what ``StateStore.save``
        writes. (A text made per pair is cheaper than a memo of the key tuples: a tuple's
        hash is not cached.)"""
        fwd: dict[str, list[str]] = {}
        inv: dict[str, list[str]] = {}
        for path, (keys, _) in self.files.items():
            out: list[str] = []
            add = out.append
            for key in keys:  # _text, inlined: ~97,000 keys on Django
                if type(key) is str:
                    t = key
                else:
                    tag, k = key
                    if type(k) is str:
                        t = tag + SEP + k
                    elif type(k) is tuple and len(k) == 2 and type(k[0]) is str and type(k[1]) is str:
                        t = tag + SEP + k[0] + SEP + k[1]
                    else:
                        t = key_text(key)
                paths = inv.get(t)
                if paths is None:
                    inv[t] = [path]
                elif paths[-1] is path:  # another key of this file with the same text
                    continue
                else:
                    paths.append(path)
                add(t)
            fwd[path] = out
        return fwd, inv


def _text(key: Any) -> str:
    """``key_text`` of a recorded key, or the key itself when it is a text already: the
    two common shapes (a string key, a pair of strings) written out."""
    if type(key) is str:
        return key
    tag, k = key
    if type(k) is str:
        return tag + SEP + k
    if type(k) is tuple and len(k) == 2 and type(k[0]) is str and type(k[1]) is str:
        return tag + SEP + k[0] + SEP + k[1]
    return key_text(key)


def shard_count(keys: int) -> int:
    """Shards for an index of ``keys`` distinct keys: the smallest power of two giving at
    most ``SHARD_KEYS`` a shard (1 to ``MAX_SHARDS``)."""
    n = 1
    while n * SHARD_KEYS < keys and n < MAX_SHARDS:
        n *= 2
    return n


def shard_of(text: str, shards: int) -> int:
    """The shard of a key text: the same in every process (unlike ``hash``)."""
    return zlib.crc32(text.encode("utf-8", "surrogatepass")) % shards


def split(inv: dict[str, list[str]], shards: int) -> dict[int, dict[str, list[str]]]:
    """The shards of an inverted index (key text -> paths), empty ones left out."""
    out: dict[int, dict[str, list[str]]] = {}
    for text, paths in inv.items():
        part = out.get(i := shard_of(text, shards))
        if part is None:
            out[i] = {text: paths}
        else:
            part[text] = paths
    return out


def encode_shard(part: dict[str, list[str]]) -> bytes:
    """One shard as stored: a marshal of key text -> paths (a path object repeated within
    the shard is written once: marshal's references)."""
    return marshal.dumps(part, 4)


def decode_shard(blob: bytes) -> dict[str, list[str]]:
    out = marshal.loads(blob)
    if not isinstance(out, dict):
        raise ValueError("not a dependency shard")
    return out


def encode_keys(texts: list[str]) -> bytes:
    """A file's key texts as stored (forward view; no compression: a marshal of 4.3 MB of
    Django's texts takes 0.013 s, a zlib of them 0.04)."""
    return marshal.dumps(texts, 4)


def decode_keys(blob: bytes) -> list[str]:
    out = marshal.loads(blob)
    if not isinstance(out, list):
        raise ValueError("not a key list")
    return out


def update(part: dict[str, list[str]], drop: Iterable[tuple[str, str]], add: Iterable[tuple[str, str]]) -> int:
    """Remove the (key text, path) pairs ``drop`` from a shard and add ``add`` (in place);
    a key left without paths goes. Returns the change in the shard's number of keys."""
    before = len(part)
    for text, path in drop:
        paths = part.get(text)
        if paths is not None and path in paths:
            paths.remove(path)
            if not paths:
                del part[text]
    for text, path in add:
        paths = part.setdefault(text, [])
        if path not in paths:
            paths.append(path)
    return len(part) - before


__all__ = ["MAX_SHARDS", "SEP", "SHARD_KEYS", "ResolveState", "decode_keys", "decode_shard", "encode_keys",
           "encode_shard", "key_text", "shard_count", "shard_of", "split", "update"]

"""The embedded graph's rows (codegraph.core.embedded_graph, docs/DESIGN.md#backends): node
rows ``(uid, label, repo, name, qualified_name, path, props JSON)`` and edge rows ``(type,
source, target, repo, file, line, resolution, extra JSON)``, built straight from the records
where the indexer has them (no ``Node`` in between).

JSON text is what ``json.JSONEncoder(ensure_ascii=False, default=str)`` writes (props;
extras without ``default``), key order the dict's / the record's field order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import fields
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from typing import Any

from codegraph.core.models import (
    FILE,
    SYMBOL,
    Edge,
    FileRecord,
    Node,
    SymbolRecord,
    file_uid,
    scalar_props,
    symbol_uid,
)

EdgeRow = tuple[str, str, str, str, str, int, str, str]


def _encoder(default: Callable[[Any], Any] | None) -> Callable[[Any], str]:
    """``json.JSONEncoder(ensure_ascii=False, default=default).encode`` of a dict, the same
    text, with the C encoder made once: ``encode`` makes a new one per call (and a dict of
    the containers it saw, for a cycle no props or extra can have), ~40 % of the ~100k
    encodings of a full index. Without the C module (PyPy), ``encode`` itself."""
    from json.encoder import c_make_encoder  # type: ignore[attr-defined]

    if c_make_encoder is None:
        return json.JSONEncoder(ensure_ascii=False, default=default).encode
    make = c_make_encoder(None, default or json.JSONEncoder().default, encode_basestring, None, ": ", ", ", False,
                          False, True)
    join = "".join
    return lambda obj: join(make(obj, 0))


props_json = _encoder(str)
extra_json = _encoder(None)


def node_row(n: Node) -> tuple[Any, ...]:
    p = n.props
    path = p.get("path") if n.label == FILE else p.get("file")
    return (n.uid, n.label, p.get("repo", ""), p.get("name"), p.get("qualified_name"), path, props_json(p))


def edge_rows(repo: str, edges: Iterable[Edge]) -> list[EdgeRow]:
    return [(e.type, e.source, e.target, repo, e.file, e.line, e.resolution, extra_json(e.extra) if e.extra else "{}")
            for e in edges]


def file_row(f: FileRecord) -> tuple[Any, ...]:
    """``node_row(f.to_node())`` (a File has no name or qualified name)."""
    return (file_uid(f.repo, f.path), FILE, f.repo, None, None, f.path, props_json(scalar_props(f)))


def symbol_row(s: SymbolRecord) -> tuple[Any, ...]:
    """``node_row(s.to_node())``."""
    return (symbol_uid(s.repo, s.qualified_name, s.signature_hash), SYMBOL, s.repo, s.name, s.qualified_name, s.file,
            symbol_json(s))


# A symbol's props JSON from a template of its keys: ~4 instead of ~8 us a symbol (the C
# encoder spends most of a dict's time on its 18 keys), the stdlib's 20k symbols ~0.08 CPU s.
# Written for SymbolRecord's fields as they are (SYMBOL_FIELDS); the template is used only
# while they are.
SYMBOL_FIELDS = ("repo", "qualified_name", "signature_hash", "name", "kind", "language", "language_kind", "file",
                 "line", "end_line", "visibility", "content_hash", "signature", "docstring", "parent", "arity",
                 "variadic", "params")
_SYMBOL_TEMPLATE = "{" + ", ".join(f"{encode_basestring(k)}: %s" for k in SYMBOL_FIELDS) + "}"
_int = int.__repr__  # json's text of an int (and of an int subclass); TypeError for anything else


def _num(v: Any) -> str:
    return "true" if v is True else "false" if v is False else _int(v)


def _template_json(s: SymbolRecord) -> str:
    """``props_json(scalar_props(s))``, the same text. A value not of its field's type
    (encode_basestring and int.__repr__ raise TypeError on it) takes the general encoder."""
    p, a, pa = s.parent, s.arity, s.params
    try:
        return _SYMBOL_TEMPLATE % (
            encode_basestring(s.repo), encode_basestring(s.qualified_name), encode_basestring(s.signature_hash),
            encode_basestring(s.name), encode_basestring(s.kind), encode_basestring(s.language),
            encode_basestring(s.language_kind), encode_basestring(s.file), _num(s.line), _num(s.end_line),
            encode_basestring(s.visibility), encode_basestring(s.content_hash), encode_basestring(s.signature),
            encode_basestring(s.docstring), "null" if p is None else encode_basestring(p),
            "null" if a is None else _num(a), _num(s.variadic), "null" if pa is None else encode_basestring(pa))
    except TypeError:
        return props_json(scalar_props(s))


def _general_json(s: SymbolRecord) -> str:
    return props_json(scalar_props(s))


symbol_json = _template_json if tuple(f.name for f in fields(SymbolRecord)) == SYMBOL_FIELDS else _general_json

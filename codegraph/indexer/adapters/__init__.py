"""Framework adapters: per-file records for what crosses a process boundary.

``extract_framework(language, path, source, fx)`` returns plain dict records (the
extraction contract's framework records, ``codegraph.indexer.records``):

- ``endpoint``     {method, path, framework, at, handler?, router?}: a route a server exposes
- ``http_mount``   {prefix, framework, target?, module?, export?, router?, scope?}: a router
                   mounted under a prefix (Express ``app.use``, FastAPI ``include_router``,
                   Flask ``register_blueprint``, Django ``include``, Nest ``setGlobalPrefix``)
- ``http_call``    {method|None, url, parts, client, base?}: a client call with its URL pieces
- ``topic_access`` {topic, access: produce|consume, client, at}
- ``table_access`` {table|model, access: read|write|model, via, at}: SQL literal, ORM use or
                   (``access == "model"``) an ORM class/variable that maps to a table

Every record has ``type``, ``file`` and ``line`` (1-based evidence); ``at`` is the line
used to find the enclosing symbol (a decorated function's ``def`` line, not its
decorator's). ``codegraph.indexer.boundaries`` turns records into nodes and edges.

Adapters are cheap to skip: a file whose bytes contain none of an adapter's trigger
strings is never parsed for it, and the tree is parsed at most once per file.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any

from tree_sitter import Node as TSNode

from codegraph.indexer.adapters import _syntax as sx
from codegraph.indexer.records import FileExtraction

Record = dict[str, Any]

# Languages whose syntax the call/annotation view understands; others get SQL literals only.
CODE_LANGS = frozenset(("python", "javascript", "typescript", "tsx", "java", "kotlin", "go"))


class FileCtx:
    """One file as the adapters see it: bytes, a lazily parsed tree, its calls and
    annotations (computed once, shared by every adapter)."""

    def __init__(self, language: str, path: str, source: bytes, fx: FileExtraction | None = None) -> None:
        self.language = language
        self.path = path
        self.source = source
        self.fx = fx
        self.lower = source.lower()

    def has(self, *needles: bytes) -> bool:
        return any(n in self.source for n in needles)

    def has_ci(self, *needles: bytes) -> bool:
        """Case-insensitive ``has`` (needles given in lower case)."""
        return any(n in self.lower for n in needles)

    @cached_property
    def root(self) -> TSNode:
        from codegraph.indexer.treesitter import parse

        return parse(self.language, self.source).root_node

    @cached_property
    def calls(self) -> list[sx.Call]:
        return list(sx.calls(self.language, self.root))

    @cached_property
    def annotated(self) -> list[sx.Annotated]:
        return list(sx.walk_annotated(sx.annotated(self.language, self.root)))

    @cached_property
    def imports(self) -> dict[str, sx.ImportBinding]:
        return sx.import_bindings(self.language, self.root)

    @cached_property
    def consts(self) -> dict[str, str]:
        return sx.constants(self.language, self.root)

    def parts(self, node: TSNode | None) -> sx.Parts | None:
        """String pieces of ``node`` with same-file string constants substituted."""
        p = sx.string_parts(self.language, node)
        if p is None and node is not None and node.type in ("identifier", "member_expression", "attribute",
                                                            "field_access", "selector_expression",
                                                            "simple_identifier", "navigation_expression"):
            p = [("hole", sx.text(node))]
        return sx.substitute(p, self.consts) if p is not None else None

    def literal(self, node: TSNode | None) -> str | None:
        p = self.parts(node)
        if p is None or any(k == "hole" for k, _ in p):
            return None
        return "".join(v for _, v in p)

    def literals(self, node: TSNode | None) -> list[str]:
        one = self.literal(node)
        if one is not None:
            return [one]
        out: list[str] = []
        for v in sx.literal_nodes(self.language, node):
            lit = self.literal(v)
            if lit is not None:
                out.append(lit)
        return out

    def record(self, rtype: str, line: int, **fields: Any) -> Record:
        return {"type": rtype, "file": self.path, "line": line, **fields}


def _adapters() -> list[Callable[[FileCtx], list[Record]]]:
    from codegraph.indexer.adapters import http_client, http_server, kafka, orm, sql_tables

    return [http_server.extract, http_client.extract, kafka.extract, orm.extract, sql_tables.extract]


def extract_framework(language: str, path: str, source: bytes, fx: FileExtraction | None = None) -> list[Record]:
    """Framework records of one file (see module doc). Never parses a file that holds
    none of the adapters' trigger strings. May raise on a grammar bug; the caller
    (``extract_source``) turns that into a message in ``fx.errors``."""
    ctx = FileCtx(language, path, source, fx)
    out: list[Record] = []
    for adapter in _adapters():
        out.extend(adapter(ctx))
    return out


__all__ = ["CODE_LANGS", "FileCtx", "Record", "extract_framework"]

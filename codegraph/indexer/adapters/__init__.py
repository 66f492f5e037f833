"""Framework adapters: per-file records for what crosses a process boundary.

``extract_framework(language, path, source, fx)`` returns plain dict records (the
extraction contract's framework records, ``codegraph.indexer.records``):

- ``endpoint``     {method, path, framework, at, handler?, router?}: a route a server exposes
- ``http_mount``   {prefix, framework, target?, module?, export?, router?, scope?}: a router
                   mounted under a prefix (Express ``app.use``, FastAPI ``include_router``,
                   Flask ``register_blueprint``, Django ``include``, Nest ``setGlobalPrefix``)
- ``http_call``    {method|None, url, parts, client, base?, hole_imports?}: a client call with
                   its URL pieces; ``hole_imports`` says where an imported base constant lives
- ``topic_access`` {topic, access: produce|consume, client, at}
- ``table_access`` {table|model, access: read|write|model, via, at}: SQL literal, ORM use or
                   (``access == "model"``) an ORM class/variable that maps to a table
- ``const``        {name, parts, hole_imports?}: a URL-like module constant other files may
                   import to build client URLs (``export const API = `${BASE}/api/v1```)

Every record has ``type``, ``file`` and ``line`` (1-based evidence); ``at`` is the line
used to find the enclosing symbol (a decorated function's ``def`` line, not its
decorator's). ``codegraph.indexer.boundaries`` turns records into nodes and edges.

Adapters are cheap to skip: a file whose bytes contain none of an adapter's trigger
strings is never parsed for it, and the tree is parsed at most once per file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache, cached_property
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
        """The calls any adapter looks at (by last name, see ``call_name_re``)."""
        return list(sx.calls(self.language, self.root, call_name_re()))

    @cached_property
    def annotated(self) -> list[sx.Annotated]:
        return list(sx.walk_annotated(sx.annotated(self.language, self.root)))

    @cached_property
    def imports(self) -> dict[str, sx.ImportBinding]:
        return sx.import_bindings(self.language, self.root)

    @cached_property
    def consts(self) -> dict[str, sx.Parts]:
        return sx.constants(self.language, self.root)

    def hole_imports(self, parts: sx.Parts) -> dict[str, dict[str, Any]]:
        """Holes that name an imported binding (``API_BASE`` from ``$lib/constants``):
        where the import is, so the link pass can read the constant from its module."""
        out: dict[str, dict[str, Any]] = {}
        for kind, val in parts:
            if kind == "hole" and val.isidentifier():
                b = self.imports.get(val)
                if b is not None and b.name not in ("*", "default"):
                    out[val] = {"line": b.line, "name": b.name, "spec": b.spec}
        return out

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


@cache
def call_name_re() -> str:
    """One regex over the call names every adapter declares (``CALL_NAMES``, and
    ``CALL_PREFIXES`` for open-ended families such as Spring Data ``findBy...``)."""
    from codegraph.indexer.adapters import http_client, http_server, kafka, orm, sql_tables

    names: set[str] = set()
    prefixes: set[str] = set()
    for mod in (http_server, http_client, kafka, orm, sql_tables):
        names |= set(getattr(mod, "CALL_NAMES", ()))
        prefixes |= set(getattr(mod, "CALL_PREFIXES", ()))
    alt = "|".join(sorted(re.escape(n) for n in names))
    pre = "|".join(sorted(re.escape(p) for p in prefixes))
    return f"^(?:{alt})$" + (f"|^(?:{pre})" if pre else "")


def _adapters() -> list[Callable[[FileCtx], list[Record]]]:
    from codegraph.indexer.adapters import http_client, http_server, kafka, orm, sql_tables

    return [http_server.extract, http_client.extract, kafka.extract, orm.extract, sql_tables.extract]


# A constant whose value starts like a URL or a path, or is empty ('' as a base URL).
_EXPORTED_CONST = re.compile(rb"export\s+const\s+\w+\s*(?::\s*\w+\s*)?=\s*(?:`\$\{|[`'\"](?:https?://|/|[`'\"]))")
_PY_CONST_TAIL = rb"[A-Z_][A-Z0-9_]*\s*(?::\s*\w+\s*)?=\s*[fFrRuU]?['\"](?:https?://|/|\{|['\"])"
_PY_CONST = re.compile(rb"(?m)^" + _PY_CONST_TAIL)
# The same after a newline: a literal first character lets the regex engine skip to the
# line starts (a (?m)^ search tries every byte: ~5x the time on the standard library).
_PY_CONST_LINE = re.compile(rb"\n" + _PY_CONST_TAIL)
# Any of these in the bytes (ctx.has of them, the same answer): one regex finds their
# common "= " and tries the rest there, where eight substring searches each scanned the
# file for a pair of common characters (0.15 -> 0.01 CPU s over the stdlib).
_PY_CONST_GATE = re.compile(b"|".join(map(re.escape, (
    b"= '/", b'= "/', b"= 'http", b'= "http', b"= ''", b'= ""', b"= f'", b'= f"'))))
_CONST_EXPORT_QUERY = {
    "javascript": "(program (export_statement (lexical_declaration (variable_declarator "
                  "name: (identifier) @n value: [(string) (template_string)] @v))))",
    "python": "(module (assignment left: (identifier) @n right: (string) @v)) "
              "(module (expression_statement (assignment left: (identifier) @n right: (string) @v)))",
}


def const_records(ctx: FileCtx) -> list[Record]:
    """``const`` records: URL-like string constants a module offers to importers
    (``export const API = `${BASE}/api/v1```, Python ``API_URL = "..."``), so a client
    URL built from an imported base can be completed at link time."""
    lang = ctx.language
    if lang in sx.JS_LANGS:
        if b"export const" not in ctx.source or not _EXPORTED_CONST.search(ctx.source):
            return []
        q = _CONST_EXPORT_QUERY["javascript"]
    elif lang == "python":
        if _PY_CONST_GATE.search(ctx.source) is None \
                or not (_PY_CONST.match(ctx.source) or _PY_CONST_LINE.search(ctx.source)):
            return []
        q = _CONST_EXPORT_QUERY["python"]
    else:
        return []
    out: list[Record] = []
    for node in sx.captures(lang, q, ctx.root):
        if node.type != "identifier":
            continue
        name = sx.text(node)
        raw = ctx.consts.get(name)
        if raw is None:
            continue
        parts = sx.substitute(raw, {k: v for k, v in ctx.consts.items() if k != name})
        # URL-like values, and empty ones (`BASE = ''` makes `${BASE}/api` a rooted path).
        url_like = any(k == "lit" and ("/" in v or "://" in v) for k, v in parts)
        if not url_like and not all(k == "lit" and not v for k, v in parts):
            continue
        rec: Record = ctx.record("const", sx.line(node), name=name, parts=[list(p) for p in parts])
        imports = ctx.hole_imports(parts)
        if imports:
            rec["hole_imports"] = imports
        out.append(rec)
    return out


def extract_framework(language: str, path: str, source: bytes, fx: FileExtraction | None = None) -> list[Record]:
    """Framework records of one file (see module doc). Never parses a file that holds
    none of the adapters' trigger strings. May raise on a grammar bug; the caller
    (``extract_source``) turns that into a message in ``fx.errors``."""
    ctx = FileCtx(language, path, source, fx)
    out: list[Record] = []
    for adapter in _adapters():
        out.extend(adapter(ctx))
    out.extend(const_records(ctx))
    return out


__all__ = ["CODE_LANGS", "FileCtx", "Record", "extract_framework"]

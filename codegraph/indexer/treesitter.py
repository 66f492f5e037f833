"""Shared tree-sitter helpers for the extractors: parsing, text, hashes, coverage.

Parsers come from tree-sitter-language-pack (0.13.x ships grammars offline).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from operator import attrgetter
from pathlib import Path

from tree_sitter import Node as TSNode
from tree_sitter import Parser, Query, QueryCursor, Tree
from tree_sitter_language_pack import get_language, get_parser

from codegraph.core.models import file_hash, stable_hash

QUERIES_DIR = Path(__file__).parent / "queries"


@cache
def parser_for(language: str) -> Parser:
    return get_parser(language)  # type: ignore[arg-type]


# (language, source, tree) of the last parse: the framework adapters parse the very bytes
# object the language extractor just parsed (codegraph.indexer.adapters.FileCtx.root).
_last_parse: tuple[str, bytes, Tree] | None = None


def parse(language: str, source: bytes) -> Tree:
    """The tree of ``source``. The same bytes *object* parsed again right after (the
    adapters after the extractor) get the same tree: trees are read-only here (nothing
    calls ``Tree.edit``), and holding ``source`` keeps its identity from being reused."""
    global _last_parse
    last = _last_parse
    if last is not None and last[1] is source and last[0] == language:
        return last[2]
    tree = parser_for(language).parse(source)
    _last_parse = (language, source, tree)
    return tree


_INHERITS = "; inherits:"


def query_text(folder: str, name: str, _seen: tuple[str, ...] = ()) -> str:
    """The text of ``queries/<folder>/<name>.scm`` with what it inherits in front.

    A first line ``; inherits: a, b`` (the nvim-treesitter convention) puts the texts of
    ``queries/a/<name>.scm`` and ``queries/b/<name>.scm`` (themselves expanded) before the
    file's own patterns, so grammars that share node types (JavaScript, TypeScript, TSX)
    keep the shared patterns once. Raises ``ValueError`` on an inheritance cycle."""
    if folder in _seen:
        raise ValueError(f"query inheritance cycle: {' -> '.join((*_seen, folder))}")
    own = (QUERIES_DIR / folder / f"{name}.scm").read_text(encoding="utf-8")
    first, _, _ = own.partition("\n")
    if not first.startswith(_INHERITS):
        return own
    parents = [p.strip() for p in first[len(_INHERITS):].split(",") if p.strip()]
    return "".join(query_text(p, name, (*_seen, folder)) + "\n" for p in parents) + own


@cache
def query_for(language: str, name: str) -> Query:
    """Compile ``queries/<language>/<name>.scm`` (patterns kept as data files; see
    ``query_text`` for ``; inherits:``)."""
    return Query(get_language(language), query_text(language, name))  # type: ignore[arg-type]


def captures(language: str, name: str, node: TSNode) -> dict[str, list[TSNode]]:
    """Run a stored query over ``node``: capture name -> nodes."""
    return QueryCursor(query_for(language, name)).captures(node)


_START = attrgetter("start_byte")
_END = attrgetter("end_byte")


def document_order(nodes: list[TSNode]) -> list[TSNode]:
    """``nodes`` sorted by (start byte, -end byte): outer node first on a tie, equal spans
    in their given order. Two stable sorts with C-level keys order exactly as that
    two-part key does, without a Python call and a tuple per node."""
    nodes = sorted(nodes, key=_END, reverse=True)
    nodes.sort(key=_START)
    return nodes


# (language, query name, node, its captures in document order) of the last
# ``document_captures``: the framework adapters read the Python extractor's call
# captures of the very tree it just walked (codegraph.indexer.adapters._syntax.calls).
_last_captures: tuple[str, str, TSNode, dict[str, list[TSNode]]] | None = None


def document_captures(language: str, name: str, node: TSNode) -> dict[str, list[TSNode]]:
    """``captures`` with each capture's nodes in ``document_order``. The same dict for the
    same query over the same node asked again (the lists are shared: read them only)."""
    global _last_captures
    last = _last_captures
    if last is not None and last[1] == name and last[0] == language and last[2] == node:
        return last[3]
    caps = {k: document_order(v) for k, v in captures(language, name, node).items()}
    _last_captures = (language, name, node, caps)
    return caps


def text(node: TSNode | None) -> str:
    if node is None:
        return ""
    return node.text.decode("utf-8", "replace") if node.text is not None else ""


def line(node: TSNode) -> int:
    """1-based start line."""
    return node.start_point[0] + 1


def end_line(node: TSNode) -> int:
    """1-based inclusive end line."""
    return node.end_point[0] + 1


def signature_hash(kind: str, qualified_name: str, params: str) -> str:
    """Independent of the body: kind + qualified name + whitespace-normalised params."""
    return stable_hash(kind, qualified_name, " ".join(params.split()))


def content_hash(body: bytes | str) -> str:
    """``stable_hash`` of the text: of ``body`` decoded (errors replaced) when bytes."""
    if isinstance(body, bytes):
        if body.isascii():
            # stable_hash hashes the part's UTF-8 bytes then the separator: for ASCII bytes
            # those are the bytes themselves, so skip decoding and re-encoding them.
            return file_hash(body + b"\x1f")
        return stable_hash(body.decode("utf-8", "replace"))
    return stable_hash(body)


def iter_errors(root: TSNode) -> Iterator[TSNode]:
    """ERROR and MISSING nodes, outermost first (skips descending into ERROR nodes)."""
    if not root.has_error:
        return
    stack = [root]
    while stack:
        n = stack.pop()
        if n.is_error or n.is_missing:
            yield n
            continue
        stack.extend(c for c in reversed(n.children) if c.has_error or c.is_missing)


def coverage(root: TSNode) -> tuple[bool, str, list[str]]:
    """(had_error, coverage_status, messages). ``partial`` when error nodes cover at
    most half of the file's lines, ``error`` beyond that or when nothing parsed."""
    errs = list(iter_errors(root))
    if not errs:
        return False, "full", []
    total = max(1, root.end_point[0] + 1)
    bad = sum(e.end_point[0] - e.start_point[0] + 1 for e in errs)
    msgs = [f"line {e.start_point[0] + 1}: {'missing ' + e.type if e.is_missing else 'syntax error'}" for e in errs[:20]]
    status = "error" if bad * 2 > total or root.named_child_count == 0 else "partial"
    return True, status, msgs

"""Shared machinery of the capture-sweep extractors (C/C++, PHP, Ruby, Rust).

Each of them runs one stored query (``queries/<lang>/tags.scm``), sorts the captures in
document order and sweeps them twice with a stack of scopes keyed by end byte: first to
define symbols (a definition node opens a scope), then to emit references from inside
the scope that owns them. The helpers here are that common skeleton; what a capture
means stays in the language module.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from tree_sitter import Node as TSNode

from codegraph.core.models import FileRecord, SymbolRecord
from codegraph.indexer import treesitter as ts

# (start byte, -end byte, index within its capture, capture name, node): sorting gives
# document order, outer before inner; the running index keeps nodes out of comparisons.
Event = tuple[int, int, int, str, TSNode]


class _Ranged(Protocol):
    end: int  # byte offset where the scope stops owning code (exclusive)


S = TypeVar("S", bound=_Ranged)


def norm(s: str) -> str:
    """Whitespace runs collapsed to one space, ends stripped."""
    return " ".join(s.split())


def document_order(caps: Mapping[str, Sequence[TSNode]]) -> list[Event]:
    """Every captured node as an ``Event``, in document order (outer before inner)."""
    events = [(n.start_byte, -n.end_byte, i, name, n) for name, nodes in caps.items() for i, n in enumerate(nodes)]
    events.sort()
    return events


def define_sweep(events: Iterable[Event], file_scope: S, scope_of: dict[int, S],
                 visit: Callable[[str, TSNode, S], S | None]) -> None:
    """First sweep: ``visit(capture, node, innermost scope)`` for every event; a scope it
    returns is recorded in ``scope_of[node.id]`` and owns the events up to its end."""
    stack = [file_scope]
    for start, _, _, cap, node in events:
        while stack[-1].end <= start:
            stack.pop()
        new = visit(cap, node, stack[-1])
        if new is not None:
            scope_of[node.id] = new
            stack.append(new)


def reference_sweep(events: Iterable[Event], file_scope: S, scope_of: Mapping[int, S],
                    opened: Callable[[TSNode, S, S], None],
                    handlers: Mapping[str, Callable[[TSNode, S], None]]) -> None:
    """Second sweep: a node that opened a scope in the first sweep enters it again and
    gets ``opened(node, its scope, enclosing scope)``; any other event goes to the
    handler of its capture name, ``handler(node, innermost scope)``, if there is one."""
    stack = [file_scope]
    for start, _, _, cap, node in events:
        while stack[-1].end <= start:
            stack.pop()
        sc = stack[-1]
        new = scope_of.get(node.id)
        if new is not None:
            stack.append(new)
            opened(node, new, sc)
            continue
        h = handlers.get(cap)
        if h is not None:
            h(node, sc)


def file_record(repo: str, path: str, language: str, src: bytes, root: TSNode,
                is_test: bool) -> tuple[FileRecord, list[str]]:
    """The File record of a parsed file and its syntax-error messages."""
    had_error, status, msgs = ts.coverage(root)
    fr = FileRecord(
        repo=repo, path=path, language=language, content_hash=ts.content_hash(src),
        had_error=had_error, coverage_status=status, is_test=is_test,
        size_bytes=len(src), line_count=root.end_point[0] + 1,
    )
    return fr, msgs


def path_module_symbol(fr: FileRecord, language_kind: str, root: TSNode) -> SymbolRecord:
    """The ``module`` symbol named by the file's path, owner of top-level code."""
    return SymbolRecord(
        repo=fr.repo, qualified_name=fr.path, signature_hash=ts.signature_hash("module", fr.path, ""),
        name=posixpath.basename(fr.path), kind="module", language=fr.language, language_kind=language_kind,
        file=fr.path, line=1, end_line=root.end_point[0] + 1, content_hash=fr.content_hash,
    )


def head_signature(src: bytes, node: TSNode, head_end: int | None = None) -> str:
    """The declaration up to ``head_end`` (default: its body, else all of it),
    whitespace-collapsed, at most 300 characters."""
    if head_end is None:
        body = node.child_by_field_name("body")
        head_end = body.start_byte if body is not None else node.end_byte
    return norm(src[node.start_byte:head_end].decode("utf-8", "replace"))[:300]


def keep_once(seen: dict[tuple[str, str], SymbolRecord], symbols: list[SymbolRecord],
              s: SymbolRecord) -> SymbolRecord:
    """Add ``s`` unless a symbol with its (qualified name, signature hash) is already in
    the file (the same definition under two preprocessor / cfg branches, a class reopened
    twice): then that first one is returned and ``s`` is dropped."""
    key = (s.qualified_name, s.signature_hash)
    first = seen.get(key)
    if first is not None:
        return first
    seen[key] = s
    symbols.append(s)
    return s


def ref_extra(candidates: list[dict[str, Any]], name: str | None, name_kinds: list[str] | None,
              optional: bool, extra: Mapping[str, Any]) -> dict[str, Any]:
    """Resolution hints of a Reference (``records.Reference.extra``): candidates, the
    name fallback (with its kinds) when given, ``optional`` when set, then ``extra``."""
    ex: dict[str, Any] = {"candidates": candidates}
    if name:
        ex["name"] = name
        if name_kinds:
            ex["name_kinds"] = name_kinds
    if optional:
        ex["optional"] = True
    ex.update(extra)
    return ex

"""The extraction skeleton every tree-sitter extractor is built on (docs/DESIGN.md#extraction-contract).

A language module runs its stored query (``queries/<lang>/tags.scm``) once per file; the
C side of tree-sitter walks the tree and hands back only the nodes that matter. Then:

1. ``document_order(captures)`` sorts them into ``Event`` tuples, outer before inner;
2. a ``ScopeStack`` keyed by end byte tells for every event which scope (file, class,
   callable, ...) owns it; ``sweep`` / ``define_sweep`` / ``reference_sweep`` walk the
   events once or twice (define first, then references), calling the language's handler
   for each capture name;
3. a ``Builder`` collects the file's records: the File record, a ``module`` symbol that
   owns top-level code, symbols kept once per (qualified name, signature hash), and
   ``Reference``s with their resolution hints (``hints``).

What a capture means stays in the language's rule module; this module knows no grammar.
Type-directed helpers shared by Go / Java / Kotlin / C# are in ``typed.py`` and
``class_based.py``.
"""

from __future__ import annotations

import bisect
import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar

from tree_sitter import Node as TSNode

from codegraph.core.models import FileRecord, SymbolRecord
from codegraph.indexer import treesitter as ts
from codegraph.indexer.records import FileExtraction, Reference

# (start byte, -end byte, index within its capture, capture name, node): sorting gives
# document order, outer before inner; the running index keeps nodes out of comparisons.
Event = tuple[int, int, int, str, TSNode]


class Ranged(Protocol):
    end: int  # byte offset where the scope stops owning code (exclusive)


S = TypeVar("S", bound=Ranged)


def norm(s: str) -> str:
    """Whitespace runs collapsed to one space, ends stripped."""
    return " ".join(s.split())


def document_order(caps: Mapping[str, Sequence[TSNode]]) -> list[Event]:
    """Every captured node as an ``Event``, in document order (outer before inner).
    tree-sitter's capture lists are not in document order."""
    events = [(n.start_byte, -n.end_byte, i, name, n) for name, nodes in caps.items() for i, n in enumerate(nodes)]
    events.sort()
    return events


def query_events(language: str, root: TSNode, query: str = "tags") -> list[Event]:
    """The captures of ``queries/<language>/<query>.scm`` over ``root`` in document order."""
    return document_order(ts.captures(language, query, root))


# -- scopes ---------------------------------------------------------------------------

class ScopeStack(Generic[S]):
    """Open scopes, innermost last. The bottom one (the file) is never popped; a scope
    is popped once an event starts at or after its ``end``."""

    def __init__(self, bottom: S) -> None:
        self.stack: list[S] = [bottom]

    def at(self, start: int) -> S:
        """The innermost scope still open at byte ``start`` (pops finished ones)."""
        st = self.stack
        while len(st) > 1 and st[-1].end <= start:
            st.pop()
        return st[-1]

    def push(self, scope: S) -> None:
        self.stack.append(scope)


def sweep(events: Iterable[Event], stack: ScopeStack[S], handlers: Mapping[str, Callable[[TSNode, S], S | None]]) -> None:
    """One sweep: ``handler(node, innermost scope)`` for every event whose capture has a
    handler; a scope the handler returns is pushed and owns the events up to its end
    (a handler may also push on ``stack`` itself)."""
    for start, _, _, cap, node in events:
        h = handlers.get(cap)
        if h is not None:
            new = h(node, stack.at(start))
            if new is not None:
                stack.push(new)


def define_sweep(events: Iterable[Event], file_scope: S, scope_of: dict[int, S],
                 visit: Callable[[str, TSNode, S], S | None]) -> None:
    """First of two sweeps: ``visit(capture, node, innermost scope)`` for every event; a
    scope it returns is recorded in ``scope_of[node.id]`` and owns the events up to its end."""
    stack = ScopeStack(file_scope)
    for start, _, _, cap, node in events:
        new = visit(cap, node, stack.at(start))
        if new is not None:
            scope_of[node.id] = new
            stack.push(new)


def reference_sweep(events: Iterable[Event], file_scope: S, scope_of: Mapping[int, S],
                    opened: Callable[[TSNode, S, S], None],
                    handlers: Mapping[str, Callable[[TSNode, S], None]]) -> None:
    """Second sweep: a node that opened a scope in the first sweep enters it again and
    gets ``opened(node, its scope, enclosing scope)``; any other event goes to the
    handler of its capture name, ``handler(node, innermost scope)``, if there is one."""
    stack = ScopeStack(file_scope)
    for start, _, _, cap, node in events:
        sc = stack.at(start)
        new = scope_of.get(node.id)
        if new is not None:
            stack.push(new)
            opened(node, new, sc)
            continue
        h = handlers.get(cap)
        if h is not None:
            h(node, sc)


# -- records --------------------------------------------------------------------------

def text_lines(src: bytes) -> int:
    """Lines of a text as an editor counts them: a last line without newline counts, an
    empty text has none."""
    return src.count(b"\n") + (0 if not src or src.endswith(b"\n") else 1)


def file_record(repo: str, path: str, language: str, src: bytes, root: TSNode, is_test: bool,
                line_count: int | None = None) -> tuple[FileRecord, list[str]]:
    """The File record of a parsed file and its syntax-error messages. ``src`` gives the
    content hash and size; ``line_count`` defaults to the rows the syntax tree spans."""
    had_error, status, msgs = ts.coverage(root)
    fr = FileRecord(
        repo=repo, path=path, language=language, content_hash=ts.content_hash(src),
        had_error=had_error, coverage_status=status, is_test=is_test, size_bytes=len(src),
        line_count=root.end_point[0] + 1 if line_count is None else line_count,
    )
    return fr, msgs


def module_symbol(fr: FileRecord, root: TSNode, qn: str | None = None, *, name: str | None = None,
                  sig_key: str = "", language_kind: str | None = None, end_line: int | None = None,
                  visibility: str = "public", signature: str = "", docstring: str = "") -> SymbolRecord:
    """The file's ``module`` symbol, owner of top-level code. Defaults: named by the
    file's path (``qn``) and its base name (``name``), the root node's type, up to the
    last row of the tree. ``sig_key`` goes into the signature hash (e.g. the path, where
    two files can share a module name)."""
    qn = fr.path if qn is None else qn
    return SymbolRecord(
        repo=fr.repo, qualified_name=qn, signature_hash=ts.signature_hash("module", qn, sig_key),
        name=posixpath.basename(fr.path) if name is None else name, kind="module", language=fr.language,
        language_kind=root.type if language_kind is None else language_kind, file=fr.path, line=1,
        end_line=max(1, root.end_point[0] + 1) if end_line is None else end_line, visibility=visibility,
        content_hash=fr.content_hash, signature=signature, docstring=docstring,
    )


def head_signature(src: bytes, node: TSNode, head_end: int | None = None) -> str:
    """The declaration up to ``head_end`` (default: its body, else all of it),
    whitespace-collapsed, at most 300 characters."""
    if head_end is None:
        body = node.child_by_field_name("body")
        head_end = body.start_byte if body is not None else node.end_byte
    return norm(src[node.start_byte:head_end].decode("utf-8", "replace"))[:300]


def hints(candidates: list[dict[str, Any]], name: str | None = None, name_kinds: list[str] | None = None,
          optional: bool = False, extra: Mapping[str, Any] | None = None, *,
          name_always: bool = False) -> dict[str, Any]:
    """Resolution hints of a Reference (``records.Reference.extra``, docs/DESIGN.md#resolution):
    the candidates tried in order, the name fallback (with its kinds) when allowed,
    ``optional`` (no stub when nothing matches), then ``extra``. ``name_always`` writes
    ``"name"`` even when there is no fallback (``null``; the Go/JVM/.NET records do)."""
    ex: dict[str, Any] = {"candidates": candidates}
    if name or name_always:
        ex["name"] = name
        if name_kinds:
            ex["name_kinds"] = name_kinds
    if optional:
        ex["optional"] = True
    if extra:
        ex.update(extra)
    return ex


class Comments:
    """A file's comment nodes sorted by position, for doc-comment look-ups by bisection
    (a sibling walk per definition would cost O(n) each)."""

    def __init__(self, nodes: Iterable[TSNode]) -> None:
        self.nodes = sorted(nodes, key=lambda n: n.start_byte)
        self.starts = [c.start_byte for c in self.nodes]

    def nearest_before(self, anchor: TSNode) -> TSNode | None:
        """The last comment that starts before ``anchor``."""
        i = bisect.bisect_left(self.starts, anchor.start_byte) - 1
        return self.nodes[i] if i >= 0 else None

    def run_above(self, anchor: TSNode, *, same_row: bool = True) -> list[TSNode]:
        """The comments on consecutive lines right above ``anchor``, top first; with
        ``same_row`` a comment ending on the anchor's own row (``/* a */ int f``) counts."""
        i = bisect.bisect_left(self.starts, anchor.start_byte) - 1
        row = anchor.start_point[0]
        out: list[TSNode] = []
        while i >= 0:
            c = self.nodes[i]
            end_row = c.end_point[0]
            if end_row < row - 1 or c.end_byte > anchor.start_byte or (not same_row and end_row != row - 1):
                break
            out.append(c)
            row = c.start_point[0]
            i -= 1
        out.reverse()
        return out


class Builder:
    """Collects one file's records (``self.fx``, a ``FileExtraction``).

    ``symbols`` / ``references`` are the lists of ``fx``; ``keep`` adds a symbol once per
    (qualified name, signature hash): the same definition under two preprocessor / cfg
    branches, or a class reopened twice in a file, is one symbol (the first).
    """

    def __init__(self, repo: str, path: str, language: str, src: bytes, root: TSNode, *, is_test: bool,
                 line_count: int | None = None) -> None:
        self.repo, self.path, self.language, self.root = repo, path, language, root
        fr, msgs = file_record(repo, path, language, src, root, is_test, line_count)
        self.fx = FileExtraction(file=fr, errors=msgs)
        self.symbols = self.fx.symbols
        self.references = self.fx.references
        self._seen: dict[tuple[str, str], SymbolRecord] = {}

    def module(self, qn: str | None = None, **props: Any) -> SymbolRecord:
        """Add the file's ``module`` symbol (``module_symbol``'s keywords) and return it."""
        return self.keep(module_symbol(self.fx.file, self.root, qn, **props))

    def keep(self, s: SymbolRecord) -> SymbolRecord:
        """Add ``s`` unless the file has a symbol of its key already; returns the one kept."""
        key = (s.qualified_name, s.signature_hash)
        first = self._seen.get(key)
        if first is not None:
            return first
        self._seen[key] = s
        self.symbols.append(s)
        return s

    def define(self, node: TSNode, kind: str, qn: str, name: str, *, sig_key: str = "", visibility: str = "public",
               parent: str | None = None, signature: str = "", docstring: str = "") -> SymbolRecord:
        """Add a symbol declared by ``node`` (lines, grammar kind and content hash from it);
        ``sig_key`` (parameter types, ...) goes into the signature hash with kind and qn."""
        return self.keep(SymbolRecord(
            repo=self.repo, qualified_name=qn, signature_hash=ts.signature_hash(kind, qn, sig_key), name=name,
            kind=kind, language=self.language, language_kind=node.type, file=self.path, line=ts.line(node),
            end_line=ts.end_line(node), visibility=visibility, content_hash=ts.content_hash(node.text or b""),
            signature=signature, docstring=docstring, parent=parent,
        ))

    def reference(self, rtype: str, source_qn: str, source_sig: str, target: str, node: TSNode,
                  extra: dict[str, Any], source_kind: str = "symbol") -> Reference:
        """Add a Reference from the symbol (``source_kind="file"``: the file) at ``node``'s line."""
        r = Reference(rtype, source_qn, target, self.path, ts.line(node), source_sig, source_kind, extra)
        self.references.append(r)
        return r

    def file_reference(self, rtype: str, target: str, node: TSNode, extra: dict[str, Any]) -> Reference:
        """A File-sourced Reference (IMPORTS)."""
        return self.reference(rtype, self.path, "", target, node, extra, "file")

"""Search chunks of one extracted file (docs/DESIGN.md#search).

- one chunk per function / method, with its real source text (capped at MAX_TEXT chars);
- one per class-like symbol (class, interface, struct, enum, trait): the whole source
  when it fits, else header + docstring + one signature line per direct member (the
  members have chunks of their own);
- "section" chunks for code outside every function/method/class (imports, constants,
  script code), in pieces of at most SECTION_LINES lines.

``embed_text`` is deliberately compact (kind + qualified name + its words, signature,
docstring, first body lines) up to about EMBED_TOKENS model tokens: MiniLM's cost
grows with input length (about 8x more texts/s at <= 50 tokens than at 256 on 2
cores), and the name, signature and docstring carry most of what a natural-language
query asks for. The rest of the body still counts for BM25, which indexes ``text``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import islice

from codegraph.core.models import Chunk, SymbolRecord, stable_hash
from codegraph.core.retrieval import identifier_words
from codegraph.indexer.records import FileExtraction

MAX_TEXT = 4000  # chars of source kept per chunk (cut at a line end)
SECTION_LINES = 60  # lines of module-level code per section chunk
EMBED_TOKENS = 60  # approximate model tokens in embed_text
HEADER_CHARS = 1500  # of a large class's source before its first member
CLASS_KINDS = frozenset({"class", "interface", "struct", "enum", "trait"})
FUNCTION_KINDS = frozenset({"function", "method"})

# Roughly how BERT WordPiece counts: words, digit runs, each punctuation character.
_TOKEN_RE = re.compile(r"[^\W\d_]+|\d+|[^\w\s]|_")
_LONG_WORD_RE = re.compile(r"[^\W\d_]{7,}")  # the words of _TOKEN_RE that count more than one token
# The same two on ASCII-only text, where re.ASCII classes match in ~60 % of the time.
# On ASCII characters the classes agree, except that Unicode \s also holds \x1c-\x1f
# (tests/unit/test_term_fast_paths.py checks the counts agree on any ASCII text).
_TOKEN_ASCII_RE = re.compile(r"[A-Za-z]+|\d+|[^\w\s\x1c-\x1f]|_", re.ASCII)
# One match per token unit on ASCII text: a word of n letters costs 1 + (n - 1) // 6 ==
# ceil(n / 6) tokens, i.e. one per run of up to 6 of its letters; a digit run, a
# punctuation mark or ``_`` (in the class: not a letter, digit or space) is one.
# Counting matches is then all the arithmetic, in C (``subn`` builds no list).
_UNIT_ASCII_RE = re.compile(r"[A-Za-z]{1,6}|\d+|[^A-Za-z0-9\s\x1c-\x1f]", re.ASCII)
_ASCII_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def approx_tokens(text: str) -> int:
    """Approximate model token count: one per punctuation mark or digit run, one per
    word plus one per further 6 letters (WordPiece splits long and rare words; on
    stdlib embed texts this is within ~5% of the real count in total)."""
    if text.isascii():
        return _UNIT_ASCII_RE.subn("", text)[1]
    return len(_TOKEN_RE.findall(text)) + sum((len(t) - 1) // 6 for t in _LONG_WORD_RE.findall(text) if t[0].isalpha())


def _cap(text: str, limit: int = MAX_TEXT) -> str:
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit)
    return text[: cut if cut > 0 else limit]


def _take_tokens(lines: Iterable[str], budget: int, out: list[str]) -> int:
    """Append to ``out`` whole lines while they fit in ``budget`` tokens, and return the
    tokens they count; the line that does not fit is cut at a token boundary so some of
    it still counts. ``lines`` are whitespace-collapsed (``" ".join(raw.split())``, the
    form the embed text holds); an empty one is skipped."""
    spent = 0
    for line in lines:
        left = budget - spent
        if left < 1:  # no non-empty line fits (each counts at least one token)
            break
        if not line:
            continue
        if line.isascii():
            # Counting stops one unit past what is left: a long line costs no more than a short one.
            n = _UNIT_ASCII_RE.subn("", line, count=left + 1)[1]
            if n <= left:
                out.append(line)
                spent += n
                continue
            if left > 3:
                end, kept = _ascii_cut(line, left)
                if end:
                    out.append(line[:end])
                    spent += kept
            break
        n = approx_tokens(line)
        if n <= left:
            out.append(line)
            spent += n
            continue
        if left > 3:
            used, end, kept = 0, 0, 0
            for m in _TOKEN_RE.finditer(line):
                t = m.group(0)
                used += 1 + (len(t) - 1) // 6 if t[0].isalpha() else 1
                if used > left:
                    break
                end, kept = m.end(), used
            if end:  # a cut at a token's end: the prefix counts exactly the tokens kept
                out.append(line[:end])
                spent += kept
        break
    return spent


def _ascii_cut(line: str, left: int) -> tuple[int, int]:
    """(end, tokens) of the longest prefix of whole tokens of ``line`` (ASCII, spaces
    collapsed, more than ``left`` tokens) that counts at most ``left`` tokens."""
    m = next(islice(_UNIT_ASCII_RE.finditer(line), left - 1, None))  # the left-th unit
    end = m.end()
    if end == len(line) or line[end] not in _ASCII_LETTERS or line[m.start()] not in _ASCII_LETTERS:
        return end, left  # that unit ends a token
    # It ends inside a word, whose earlier units are all 6 letters long: keep the tokens
    # before the word, without the one space that may separate them from it.
    head = line[:m.start()]
    start = len(head.rstrip(_ASCII_LETTERS))
    kept = left - (end - start) // 6
    return (start - 1 if start and line[start - 1] == " " else start), kept


def _docstring_lines(doc: str, limit: int = 3) -> list[str]:
    """First paragraph of a docstring, at most ``limit`` lines, comment markers removed,
    whitespace collapsed."""
    out: list[str] = []
    for raw in doc.strip().strip("\"'").splitlines():
        line = raw.strip().lstrip("/*#").strip().rstrip("*/").strip()
        if not line:
            if out:
                break
            continue
        out.append(" ".join(line.split()))
        if len(out) >= limit:
            break
    return out


def embed_text_for(kind: str, qualified_name: str, name: str, signature: str, docstring: str,
                   body_lines: Iterable[str], budget: int = EMBED_TOKENS) -> str:
    """Compact text to embed: ``<kind> <qualified name> (<name words>)``, the signature,
    the docstring's first lines and the first body lines, within ``budget`` tokens.
    ``body_lines`` are whitespace-collapsed (``_body_after``, ``_collapsed``)."""
    words = " ".join(identifier_words(name)) if name else ""
    head = f"{kind} {qualified_name}".strip() + (f" ({words})" if words and words != name.lower() else "")
    parts = [head]
    budget -= approx_tokens(head)
    for group in ((" ".join(signature.split()),) if signature else (), _docstring_lines(docstring), body_lines):
        budget -= _take_tokens(group, budget, parts)
        if budget <= 3:
            break
    return "\n".join(parts)


def _chunk_id(repo: str, path: str, *rest: str) -> str:
    return "|".join((repo, path, *rest))


def _kind_of(sym: SymbolRecord) -> str:
    return "class" if sym.kind in CLASS_KINDS else sym.kind


def _norm(line: str) -> str:
    """A line without indentation, quotes and comment markers, spaces collapsed."""
    return " ".join(line.strip().strip("\"'`").lstrip("/*#").rstrip("*/").strip().split())


def _collapsed(lines: Iterable[str]) -> Iterator[str]:
    """Each line with its whitespace collapsed (the form embed_text_for takes), lazily."""
    for ln in lines:
        yield " ".join(ln.split())


_MARKS = "\"'`/*#"  # what _norm may strip from a line's start


def _body_after(lines: list[str], signature: str, docstring: str) -> Iterator[str]:
    """Source lines after the signature (however many lines it spans, decorators
    included), without the docstring's lines, whitespace collapsed. Lazy, the set-up
    included: embed_text_for reads only the first few (EMBED_TOKENS), and often none
    (the signature and docstring spend the budget); normalising every line of every
    body, or of every docstring, was ~15 % of the CPU of chunk building on the standard
    library."""
    sig_len = len("".join(signature.split()))
    seen, i = 0, 0
    while i < len(lines) and seen < sig_len:
        seen += len("".join(lines[i].split()))
        i += 1
    doc = {_norm(d) for d in docstring.splitlines()}
    for ln in islice(lines, max(i, 1), None):
        line = " ".join(ln.split())
        # _norm(ln) is the strips below on the collapsed line (whitespace only stops them);
        # a line that starts with none of _MARKS keeps its first character, so it is not
        # empty, and without a docstring only emptiness counts.
        if not line or ((doc or line[0] in _MARKS)
                        and ((n := line.strip("\"'`").lstrip("/*#").rstrip("*/").strip()) in doc or not n)):
            continue
        yield line


def _class_text(sym: SymbolRecord, src_lines: list[str], members: list[SymbolRecord]) -> str:
    """A large class: its header (source before the first member, capped), the
    docstring when the header lacks it, then one line per direct member."""
    first_member = min((m.line for m in members if m.line > sym.line), default=sym.end_line + 1)
    header = "\n".join(src_lines[sym.line - 1: max(sym.line, first_member - 1)])
    header = _cap(header, HEADER_CHARS)
    parts = [header]
    if sym.docstring and sym.docstring.strip()[:40] not in header:
        parts.append(sym.docstring.strip())
    indent = "    "
    for m in sorted(members, key=lambda s: s.line):
        sig = m.signature.strip() or (src_lines[m.line - 1].strip() if 0 < m.line <= len(src_lines) else m.name)
        parts.append(f"{indent}{' '.join(sig.split())}")
    return _cap("\n".join(parts))


def chunks_for_file(fx: FileExtraction, source: str) -> list[Chunk]:
    """Chunks of one file: functions/methods, classes, then sections, in line order.
    ``source`` is the file's decoded text (the extractor's input). Chunk ids are
    deterministic: ``repo|path|qualified_name|signature_hash`` for symbols,
    ``repo|path|section|<first line>`` for sections."""
    f = fx.file
    repo, path, language, f_uid = f.repo, f.path, f.language, f.uid  # the uid is built on each read
    src_lines = source.split("\n")
    n_lines = len(src_lines)
    chunks: list[Chunk] = []
    covered = bytearray(n_lines + 2)
    by_parent: dict[str, list[SymbolRecord]] = {}
    for s in fx.symbols:
        if s.parent:
            by_parent.setdefault(s.parent, []).append(s)
    module_syms = [s for s in fx.symbols if s.kind == "module"]

    for sym in sorted(fx.symbols, key=lambda s: (s.line, s.end_line)):
        if sym.kind not in FUNCTION_KINDS and sym.kind not in CLASS_KINDS:
            continue
        start = max(1, sym.line)
        end = min(n_lines, max(sym.end_line, start))
        if end >= start:
            covered[start:end + 1] = b"\x01" * (end - start + 1)
        lines = src_lines[start - 1:end]
        full = "\n".join(lines)
        kind = _kind_of(sym)
        if kind == "class" and len(full) > MAX_TEXT:
            text = _class_text(sym, src_lines, by_parent.get(sym.qualified_name, []))
            body: Iterable[str] = ()
        else:
            text = _cap(full)
            body = _body_after(lines, sym.signature, sym.docstring)
        signature = sym.signature or (lines[0].strip() if lines else "")
        embed = embed_text_for(kind, sym.qualified_name, sym.name, signature, sym.docstring, body)
        chunks.append(Chunk(
            chunk_id=_chunk_id(repo, path, sym.qualified_name, sym.signature_hash),
            repo=repo, file=path, kind=kind, language=language, line=start, end_line=end,
            text=text, embed_text=embed, content_hash=stable_hash(text, embed),
            qualified_name=sym.qualified_name, name=sym.name, symbol_uid=sym.uid, file_uid=f_uid,
        ))

    module = module_syms[0] if module_syms else None
    for start, end, lines in _sections(src_lines, covered):
        text = _cap("\n".join(lines))
        qn = module.qualified_name if module else ""
        head = f"module {qn}" if qn else f"file {f.path}"
        embed = embed_text_for("section", f"of {head}", "", "", "", _collapsed(lines))
        chunks.append(Chunk(
            chunk_id=_chunk_id(repo, path, "section", str(start)),
            repo=repo, file=path, kind="section", language=language, line=start, end_line=end,
            text=text, embed_text=embed, content_hash=stable_hash(text, embed),
            qualified_name=qn, name="", symbol_uid=module.uid if module else "", file_uid=f_uid,
        ))
    return chunks


def _sections(src_lines: list[str], covered: bytearray) -> list[tuple[int, int, list[str]]]:
    """(first line, last line, lines) of module-level code: the uncovered lines, in
    groups spanning at most SECTION_LINES lines of the file (a group skips the symbols
    between its runs), blank edges trimmed, and pieces with no letter or digit (closing
    braces, blank gaps between functions) left out."""
    runs: list[list[int]] = []  # maximal runs of uncovered lines, found by bytearray.find
    n = len(src_lines)
    ln = 1
    while ln <= n:
        first = covered.find(0, ln, n + 1)
        if first < 0:
            break
        after = covered.find(1, first, n + 1)
        if after < 0:
            after = n + 1
        runs.append(list(range(first, after)))
        ln = after

    def trimmed(run: list[int]) -> list[int]:
        while run and not src_lines[run[0] - 1].strip():
            run = run[1:]
        while run and not src_lines[run[-1] - 1].strip():
            run = run[:-1]
        return run

    pieces: list[list[int]] = []
    for run in runs:
        run = trimmed(run)
        if not any(any(ch.isalnum() for ch in src_lines[ln - 1]) for ln in run):
            continue
        for i in range(0, len(run), SECTION_LINES):
            part = trimmed(run[i:i + SECTION_LINES])
            if part:
                pieces.append(part)

    out: list[tuple[int, int, list[str]]] = []
    group: list[int] = []
    for piece in pieces:
        if group and piece[-1] - group[0] + 1 > SECTION_LINES:
            out.append((group[0], group[-1], [src_lines[ln - 1] for ln in group]))
            group = []
        group.extend(piece)
    if group:
        out.append((group[0], group[-1], [src_lines[ln - 1] for ln in group]))
    return [(a, b, lines) for a, b, lines in out if any(ch.isalnum() for ln in lines for ch in ln)]

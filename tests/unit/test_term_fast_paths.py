"""Fast paths of chunk building, each against what it replaced: they exist for speed
only, so one differing count or word would change embed texts, BM25 rows or hashes.
The ASCII paths of token counting (``chunks.approx_tokens``) and identifier finding
(``retrieval.identifiers_in``) give what the Unicode patterns give on any ASCII text;
``stable_hash`` encoding its parts at once."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from codegraph.core import retrieval
from codegraph.indexer import chunks

ASCII = st.text(alphabet=st.characters(max_codepoint=127), max_size=200)
# Unicode \s holds \x1c-\x1f, ASCII \s does not; the others are classes' edges.
EDGES = "".join(map(chr, range(0x1C, 0x20))) + "\t\v\f\r\n _$.9aZ#("


def unicode_tokens(text: str) -> int:
    return len(chunks._TOKEN_RE.findall(text)) + sum(
        (len(t) - 1) // 6 for t in chunks._LONG_WORD_RE.findall(text) if t[0].isalpha())


def unicode_identifiers(text: str, limit: int = 2000) -> list[str]:
    kept = [t for t in dict.fromkeys(retrieval._IDENT_RE.findall(text))
            if len(t) > 1 and t.lower() not in retrieval._KEYWORDS]
    return kept[:limit]


@settings(max_examples=400, deadline=None)
@given(ASCII)
@example("a\x1cb\x1d\x1e\x1f c")
@example(EDGES * 3)
@example("def parse_config(self, x1, _y, $z): return a.b.c + 12ab - reallylongword_x")
def test_ascii_text_counts_and_finds_as_the_unicode_patterns(text: str) -> None:
    assert text.isascii()
    assert chunks.approx_tokens(text) == unicode_tokens(text)
    assert retrieval.identifiers_in(text) == unicode_identifiers(text)


@given(st.text(max_size=80))
@example("naïve_größe = ünïcode + 1")
def test_non_ascii_text_keeps_the_unicode_patterns(text: str) -> None:
    assert chunks.approx_tokens(text) == unicode_tokens(text)
    assert retrieval.identifiers_in(text) == unicode_identifiers(text)


@given(st.lists(st.text(max_size=12), max_size=5))
@example([])
@example([""])
@example(["a\ud800", "\udc00b"])  # lone surrogates either side of the separator
def test_stable_hash_is_the_sha1_of_each_part_then_a_separator(parts: list[str]) -> None:
    import hashlib

    from codegraph.core.models import stable_hash

    h = hashlib.sha1()
    for p in parts:
        h.update(p.encode("utf-8", "surrogatepass"))
        h.update(b"\x1f")
    assert stable_hash(*parts) == h.hexdigest()[:16]


# -- chunk building and BM25 terms: each fast path against the code it replaced ------------

WORDY = st.text(alphabet=st.sampled_from("aAbZzqQ09_ .$#(\t\x1c" + "é"), max_size=60)


def reference_camel_words(part: str) -> list[str]:
    """The per-character case-change split (before the ASCII regex)."""
    words: list[str] = []
    start = 0
    for i in range(1, len(part)):
        prev, cur = part[i - 1], part[i]
        nxt = part[i + 1] if i + 1 < len(part) else ""
        if (cur.isupper() and (prev.islower() or prev.isdigit())) or (cur.isupper() and prev.isupper() and nxt.islower()):
            words.append(part[start:i])
            start = i
    words.append(part[start:])
    return [w for w in words if w]


def reference_words(identifier: str) -> tuple[str, ...]:
    out: dict[str, None] = {}
    for part in retrieval._PART_SPLIT_RE.split(identifier):
        for w in reference_camel_words(part):
            out[w.lower()] = None
    return tuple(out)


@settings(max_examples=400, deadline=None)
@given(st.one_of(ASCII, WORDY, st.text(max_size=30)))
@example("HTTPServerError")
@example("utf8Decode")
@example("aB1Cd")
@example("ABc")
@example("A")
@example("")
@example("berechneGröße")
@example("_1abc$Def.gHI_jKL")
@example("ABCD1e_aBCd.a1B2")
@example("x.y..z$$_")
def test_words_split_as_the_per_character_loop(identifier: str) -> None:
    assert retrieval._camel_words(identifier) == reference_camel_words(identifier)
    retrieval._words_of.cache_clear()
    assert retrieval._words_of(identifier) == reference_words(identifier)
    assert retrieval._split_words(identifier) == reference_words(identifier)  # the one-regex path
    low = identifier.lower()
    words = reference_words(identifier)
    want = (low, *words) if len(words) > 1 or (words and words[0] != low) else (low,)
    assert retrieval._terms_of(identifier) == want


@settings(max_examples=400, deadline=None)
@given(st.one_of(ASCII, WORDY, st.text(max_size=80)), st.sampled_from([1, 2, 3, 2000]))
@example("self.x = self.x or def_ if Foo.Bar_baz else None", 2000)
@example("a bb ccc bb a ccc", 2)
@example("0x1F a..bc 1.5e3 $x.y$ _ __init__ x1.yy.2z self.a.b", 3)
@example("aa.bb cc dd ee", 2)  # 14 characters > 2 * limit: the regex path, the limit cuts
@example("aa bb", 2)  # 5 characters: the word path
@example("aa bb cc", 2)  # 8 characters, 3 tokens: the regex path
def test_text_identifier_field_is_the_field_of_identifiers_in(text: str, limit: int) -> None:
    retrieval._TOKEN_TERMS.clear()
    want = retrieval.identifier_field(retrieval.identifiers_in(text, limit))
    assert retrieval.text_identifier_field(text, limit) == want
    assert retrieval.text_identifier_field(text, limit) == want  # from the filled cache too


def reference_take_tokens(lines: list[str], budget: int) -> tuple[list[str], int]:
    """_take_tokens before the ASCII unit pattern: a Python loop over every token."""
    out: list[str] = []
    spent = 0
    for raw in lines:
        line = " ".join(raw.split())
        if not line:
            continue
        n = unicode_tokens(line)
        if n <= budget - spent:
            out.append(line)
            spent += n
            continue
        if budget - spent > 3:
            used, end, kept = 0, 0, 0
            for m in chunks._TOKEN_RE.finditer(line):
                t = m.group(0)
                used += 1 + (len(t) - 1) // 6 if t[0].isalpha() else 1
                if used > budget - spent:
                    break
                end, kept = m.end(), used
            if end:
                out.append(line[:end])
                spent += kept
        break
    return out, spent


LINE = st.one_of(st.text(alphabet=st.sampled_from("abcdefgh XY_9.(\t\x1c"), max_size=80), ASCII,
                 st.text(max_size=40))


@settings(max_examples=600, deadline=None)
@given(st.lists(LINE, max_size=6), st.integers(min_value=-5, max_value=70))
@example(["abcdefghijklm nopqrstuvwxyz abc"], 4)
@example(["x abcdefghijklmnopqrstuvwxyz"], 4)
@example(["abcdef abcdefabcdef", "tail"], 4)
@example(["  ", "abcdefg", "(x)"], 5)
def test_take_tokens_cuts_as_the_token_loop(lines: list[str], budget: int) -> None:
    out: list[str] = []
    spent = chunks._take_tokens(iter([" ".join(ln.split()) for ln in lines]), budget, out)
    assert (out, spent) == reference_take_tokens(lines, budget)


@given(st.lists(LINE, max_size=8), st.text(max_size=10), st.text(max_size=60))
@example(["def f(x):", '    """Doc line."""', "    return x"], "def f(x):", "Doc line.")
def test_body_after_is_lazy_and_keeps_the_lines_outside_the_docstring(lines: list[str], signature: str,
                                                                      docstring: str) -> None:
    doc = {chunks._norm(d) for d in docstring.splitlines()}
    sig_len, seen, i = len("".join(signature.split())), 0, 0
    while i < len(lines) and seen < sig_len:
        seen += len("".join(lines[i].split()))
        i += 1
    want = [" ".join(ln.split()) for ln in lines[max(i, 1):] if (n := chunks._norm(ln)) and n not in doc]
    assert list(chunks._body_after(lines, signature, docstring)) == want


# -- embed_text_for against its definition before the collapsed-line form ----------------

def reference_docstring_lines(doc: str, limit: int = 3) -> list[str]:
    out: list[str] = []
    for raw in doc.strip().strip("\"'").splitlines():
        line = raw.strip().lstrip("/*#").strip().rstrip("*/").strip()
        if not line:
            if out:
                break
            continue
        out.append(line)
        if len(out) >= limit:
            break
    return out


def reference_body_after(lines: list[str], signature: str, docstring: str) -> list[str]:
    sig_len, seen, i = len("".join(signature.split())), 0, 0
    while i < len(lines) and seen < sig_len:
        seen += len("".join(lines[i].split()))
        i += 1
    doc = {chunks._norm(d) for d in docstring.splitlines()}
    return [ln for ln in lines[max(i, 1):] if (n := chunks._norm(ln)) and n not in doc]


def reference_embed_text(kind: str, qualified_name: str, name: str, signature: str, docstring: str,
                         body: list[str], budget: int = chunks.EMBED_TOKENS) -> str:
    """embed_text_for as it was: raw lines, each group cut by reference_take_tokens."""
    words = " ".join(reference_words(name)) if name else ""
    head = f"{kind} {qualified_name}".strip() + (f" ({words})" if words and words != name.lower() else "")
    parts = [head]
    budget -= unicode_tokens(head)
    for group in ([signature] if signature else [], reference_docstring_lines(docstring), body):
        taken, spent = reference_take_tokens(group, budget)
        parts.extend(taken)
        budget -= spent
        if budget <= 3:
            break
    return "\n".join(parts)


SOURCE_LINE = st.one_of(LINE, st.sampled_from(['    """Doc line."""', "    # note", "    '''", '"""', "#'#", " */",
                                               "    return parse_config(x)  # why", "", "    ", "* x *", "  #", "#  #", "`"]))


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(["function", "method", "class"]), st.text(max_size=30), st.one_of(WORDY, st.text(max_size=12)),
       st.one_of(LINE, st.just("")),
       st.one_of(st.just(""), st.text(max_size=120), st.lists(SOURCE_LINE, max_size=5).map("\n".join)),
       st.lists(SOURCE_LINE, max_size=12), st.integers(min_value=-5, max_value=70))
@example("method", "pkg.Mod.parse", "parseConfig", "def parse(self, x):", "Doc line.\n\nMore.",
         ["def parse(self, x):", '    """Doc line.', "", "    More.", '    """', "    # note", "    return x"], 60)
@example("function", "f", "f", "", "", ["def f():", "\t#'#", "  x\x1c=  1 ", "* x *"], 60)
def test_embed_text_is_the_text_of_the_raw_line_definition(kind: str, qualified_name: str, name: str,
                                                           signature: str, docstring: str, lines: list[str],
                                                           budget: int) -> None:
    want = reference_embed_text(kind, qualified_name, name, signature, docstring,
                                reference_body_after(lines, signature, docstring), budget)
    got = chunks.embed_text_for(kind, qualified_name, name, signature, docstring,
                                chunks._body_after(lines, signature, docstring), budget)
    assert got == want
    # a section's lines: every raw line, collapsed on the way
    assert chunks.embed_text_for("section", qualified_name, "", "", "", chunks._collapsed(lines), budget) == \
        reference_embed_text("section", qualified_name, "", "", "", lines, budget)


QUALIFIED = st.one_of(st.lists(st.one_of(WORDY, st.text(max_size=8)), max_size=5).map(".".join), WORDY, ASCII)


@settings(max_examples=600, deadline=None)
@given(QUALIFIED)
@example("asyncio.base_events.BaseEventLoop.run_until_complete")
@example("a.a")
@example("_._")
@example("")
@example("x.")
@example(".HTTPServer._x$y")
@example("pkg.größe.Straße")
def test_qualified_name_field_is_the_field_of_the_name_and_its_parts(qn: str) -> None:
    retrieval._words_of.cache_clear()
    want = retrieval.identifier_field([qn, *qn.split(".")]) if qn else ""
    assert retrieval.qn_field(qn) == want

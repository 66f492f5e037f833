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

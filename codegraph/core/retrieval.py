"""Hybrid retrieval in core: BM25 + kNN fused by reciprocal rank fusion, then joined to
the graph (docs/DESIGN.md#search). The same code runs for every SearchIndex backend.

Also home of the identifier analysis both backends index with (``identifier_words``,
``identifier_field``, ``query_terms``): splitting happens in Python, not in a backend
analyzer, so that SQLite FTS5 and Elasticsearch (whose integ-test distribution has no
``word_delimiter_graph``) see the same terms.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from typing import TYPE_CHECKING, Any, Protocol

from codegraph.core.errors import CodegraphError
from codegraph.core.models import (
    Chunk,
    Step,
)
from codegraph.core.search_index import SearchIndex
from codegraph.core.steps import StepTimer

if TYPE_CHECKING:
    from codegraph.core.graph_store import GraphStore

RRF_K = 60  # the constant of reciprocal rank fusion (Cormack et al.); 1/(60 + rank)

# Identifier-like tokens, dotted paths included (unicode letters allowed; `$` for JS).
_IDENT_RE = re.compile(r"[^\W\d][\w$]*(?:\.[^\W\d][\w$]*)*")
# The same tokens on ASCII-only text (\w and \d agree on ASCII characters): re.ASCII
# classes match in ~65 % of the time, and nearly every chunk of code is ASCII.
# Possessive (``*+``): nothing after a run can match what the run gave up, so no match
# changes, and sre keeps no backtracking state (~15 % less time over the stdlib's chunks).
_IDENT_ASCII_RE = re.compile(r"[A-Za-z_][\w$]*+(?:\.[A-Za-z_][\w$]*+)*+", re.ASCII)
_PART_SPLIT_RE = re.compile(r"[_.$]+")
# Words that every chunk of a language has: noise in the identifiers field.
_KEYWORDS = frozenset(
    "def class return self cls if else elif for while in is not and or import from as with try except "
    "finally raise pass none true false null nil undefined function const let var new this public "
    "private protected static void final int string bool boolean async await yield lambda package "
    "func go type struct interface extends implements fn pub mut impl use mod end begin do then the".split()
)


# The case changes _camel_words splits at, on ASCII text (where str.isupper, islower
# and isdigit are [A-Z], [a-z] and [0-9]): before an upper-case letter that follows a
# lower-case one or a digit, and before the last of a run of capitals followed by a
# lower-case letter (HTTPServer -> HTTP|Server).
_CAMEL_ASCII_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _camel_words(part: str) -> list[str]:
    """Split one underscore-free part at case changes: parseConfig -> parse, Config;
    HTTPServer -> HTTP, Server. Uses str.isupper/islower, so it works beyond ASCII."""
    if part[1:].islower():  # no upper-case letter after the first: no split (most identifiers)
        return [part]
    if part.isascii():
        return [w for w in _CAMEL_ASCII_RE.split(part) if w]
    words: list[str] = []
    start = 0
    n = len(part)
    for i in range(1, n):
        prev, cur = part[i - 1], part[i]
        nxt = part[i + 1] if i + 1 < n else ""
        if (cur.isupper() and (prev.islower() or prev.isdigit())) or (
            cur.isupper() and prev.isupper() and nxt.islower()
        ):
            words.append(part[start:i])
            start = i
    words.append(part[start:])
    return [w for w in words if w]


# The words of an identifier made only of ASCII letters, digits and ``_ . $``, one match
# each: the separators (_PART_SPLIT_RE) are never matched and _camel_words' case changes
# end a match: a run of capitals stops before its last one when a lower-case letter
# follows (HTTPServer -> HTTP, Server), and a lower-case letter or digit run ends before
# a capital. tests/unit/test_term_fast_paths.py checks it against the per-part split.
_WORD_ASCII_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]*+[a-z0-9]++|[A-Z]++", re.ASCII)
_PLAIN_ASCII_RE = re.compile(r"[\w$.]*+", re.ASCII)  # what _WORD_ASCII_RE may split (fullmatch)


@lru_cache(maxsize=1 << 16)
def _part_words(part: str) -> tuple[str, ...]:
    """Lower-case words of one part (no ``_ . $``), duplicates removed. Memoised apart
    from whole identifiers: dotted paths and qualified names (``self.parse``,
    ``pkg.mod.Class.method``) are mostly new, their parts mostly not."""
    return tuple(dict.fromkeys(w.lower() for w in _camel_words(part)))


@lru_cache(maxsize=1 << 17)
def _words_of(identifier: str) -> tuple[str, ...]:
    # Memoised: a repository repeats the same identifiers across thousands of chunks
    # (indexing the standard library split ~700k identifiers, most of them seen before).
    if identifier.isalnum():  # nothing to split at (\w is alphanumerics and "_")
        return _part_words(identifier)
    return _split_words(identifier)


def _split_words(identifier: str) -> tuple[str, ...]:
    """Lower-case words of ``identifier``, duplicates removed: one regex over a plain ASCII
    identifier (nearly all: this was ~4 us per new token in Python, ~1 now), else each
    ``_ . $``-separated part split by _camel_words."""
    if identifier.isascii() and _PLAIN_ASCII_RE.fullmatch(identifier):
        if identifier.islower():  # no capital, no case change: the words are the parts
            return tuple(dict.fromkeys(identifier.replace("_", " ").replace(".", " ").replace("$", " ").split()))
        return tuple(dict.fromkeys(" ".join(_WORD_ASCII_RE.findall(identifier)).lower().split()))
    return tuple(dict.fromkeys(chain.from_iterable(map(_part_words, _PART_SPLIT_RE.split(identifier)))))


def identifier_words(identifier: str) -> list[str]:
    """Lower-case words of one identifier: ``pkg.parse_config`` -> [pkg, parse, config];
    ``ParseConfig`` -> [parse, config]. Order kept, duplicates removed."""
    return list(_words_of(identifier))


def _terms_of(name: str) -> tuple[str, ...]:
    """The terms ``identifier_field`` gives one name: its lower case, then its words
    when the split says more. Not memoised itself (see _field_terms)."""
    return _terms_low(name, name.lower())


def _terms_low(name: str, low: str) -> tuple[str, ...]:
    """_terms_of(name), given ``low`` = name.lower()."""
    if name.isalnum() and name[1:].islower():  # one part, no case change: its one word is ``low``
        return (low,)
    words = _split_words(name)
    if len(words) > 1 or (words and words[0] != low):
        return (low, *words)
    return (low,)


_field_terms = lru_cache(maxsize=1 << 17)(_terms_of)


def identifier_field(names: Iterable[str]) -> str:
    """Indexable text for identifiers: each original (lower-cased) plus its words when
    the split says more, e.g. ``ParseConfig`` -> ``parseconfig parse config``."""
    return " ".join(dict.fromkeys(chain.from_iterable(map(_field_terms, filter(None, names)))))


def identifiers_in(text: str, limit: int = 2000) -> list[str]:
    """Distinct identifier-like tokens of ``text`` (language keywords left out), at most
    ``limit`` of them in order of first appearance."""
    # Distinct tokens first (a chunk repeats most of its identifiers), then the filter.
    tokens = (_IDENT_ASCII_RE if text.isascii() else _IDENT_RE).findall(text)
    kept = [t for t in dict.fromkeys(tokens) if len(t) > 1 and t.lower() not in _KEYWORDS]
    return kept[:limit]


def _kept_terms(token: str) -> tuple[str, ...]:
    """The terms ``identifier_field(identifiers_in(...))`` gives one token: ``()`` for a
    token ``identifiers_in`` leaves out (one character, a keyword), else ``_terms_of``
    (not the memoised _field_terms: most tokens are looked up in _TOKEN_TERMS only once)."""
    low = token.lower()
    return () if len(token) < 2 or low in _KEYWORDS else _terms_low(token, low)


class _TokenTerms(dict[str, tuple[str, ...]]):
    """word -> the terms ``identifier_field(identifiers_in(text))`` adds for the
    identifier tokens in it (_kept_terms of each, in order). A word is a token, or a
    run of ASCII identifier characters (``_WORD_BYTES``) that holds any number of them:
    ``os.path`` one, ``0x1F`` one (``x1F``), ``1.5`` none, ``a..b`` two. Filled on first
    look-up; emptied when it grows past MAX (the extraction workers are long-lived)."""

    MAX = 1 << 18

    def __missing__(self, word: str) -> tuple[str, ...]:
        if len(self) >= self.MAX:
            self.clear()
        # An ASCII identifier (about half the new words) is its one token; no regex needed.
        if word.isascii() and word.isidentifier():
            terms = _kept_terms(word)
        else:
            tokens = _IDENT_RE.findall(word)
            terms = _kept_terms(tokens[0]) if len(tokens) == 1 else tuple(chain.from_iterable(map(_kept_terms, tokens)))
        self[word] = terms
        return terms


_TOKEN_TERMS = _TokenTerms()

# Every byte that is not an ASCII identifier character (_IDENT_ASCII_RE's) -> a space.
_WORD_BYTES = bytes(b if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "_$.") else 0x20 for b in range(256))


def text_identifier_field(text: str, limit: int = 2000) -> str:
    """``identifier_field(identifiers_in(text, limit))``, the same string, with the
    filter and the split looked up once per distinct word and the rest in C (a chunk's
    text is the largest of its term fields; this was ~25 % of chunk building's CPU).

    On ASCII text the words are the runs of identifier characters (bytes.translate, then
    str.split: ~2.5x faster than the regex, which runs only on a new word): a token
    never spans two runs, and each run holds the tokens the regex finds in it, so the
    tokens in order are the words' tokens in order."""
    if text.isascii():
        # Tokens are apart by at least one character: a text of at most 2 * limit holds
        # at most ``limit`` of them, so the limit cannot cut (a chunk holds <= 4000 chars).
        if len(text) <= 2 * limit:
            words = dict.fromkeys(text.encode("ascii").translate(_WORD_BYTES).decode("ascii").split())
            return " ".join(dict.fromkeys(chain.from_iterable(map(_TOKEN_TERMS.__getitem__, words))))
        tokens = dict.fromkeys(_IDENT_ASCII_RE.findall(text))
    else:
        tokens = dict.fromkeys(_IDENT_RE.findall(text))
    if len(tokens) > limit:  # the limit may cut: count the kept ones as identifiers_in does
        return identifier_field(identifiers_in(text, limit))
    return " ".join(dict.fromkeys(chain.from_iterable(map(_TOKEN_TERMS.__getitem__, tokens))))


def chunk_terms(chunk: Chunk) -> tuple[str, str, str]:
    """The BM25 term fields of a chunk, the same on every backend: (name, qualified name
    with its dotted parts, identifiers of the text), each split by ``identifier_field``.
    ``chunk.terms`` when the indexer computed them already."""
    if chunk.terms is not None:
        return chunk.terms
    return (_name_field(chunk.name), qn_field(chunk.qualified_name), text_identifier_field(chunk.text))


def qn_field(qn: str) -> str:
    """``identifier_field([qn, *qn.split(".")])``, the same string: a qualified name is
    new (not memoised), its dotted parts mostly are not, so the name's words are its
    parts' memoised words (the split never crosses a ``.``) instead of a split of the
    whole name (that was ~60 % of this field's CPU)."""
    if not qn:
        return ""
    parts = qn.split(".")
    low = qn.lower()
    if len(parts) == 1:
        head = _terms_of(qn)
    else:
        words = tuple(dict.fromkeys(chain.from_iterable(map(_words_of, parts))))
        head = (low, *words) if len(words) > 1 or (words and words[0] != low) else (low,)
    return " ".join(dict.fromkeys(chain(head, chain.from_iterable(map(_field_terms, filter(None, parts))))))


@lru_cache(maxsize=1 << 16)
def _name_field(name: str) -> str:
    return identifier_field([name])  # names repeat (__init__, get, run, ...)


def query_terms(query: str) -> list[str]:
    """Lower-case search terms of a free-text query: every token, and for identifiers
    their split words (``parseConfig`` -> parseconfig, parse, config). Max 64 terms."""
    out: dict[str, None] = {}
    for m in re.finditer(r"[\w$.]+", query):
        tok = m.group(0).strip(".")
        if not tok:
            continue
        out[tok.lower()] = None
        for w in identifier_words(tok):
            out[w] = None
    return list(out)[:64]


# -- fusion and graph join ------------------------------------------------------------------


@dataclass(slots=True)
class SearchHit:
    """One fused hit. Ranks are 1-based; None when that retriever did not return it.
    ``score`` is the RRF score: sum of 1/(RRF_K + rank) over the retrievers."""

    chunk: Chunk
    score: float
    bm25_rank: int | None = None
    knn_rank: int | None = None
    bm25_score: float | None = None
    knn_similarity: float | None = None
    content: str = "code"  # content kind (codegraph.core.content): code | schema | config | docs


@dataclass(slots=True)
class SearchResult:
    """``mode`` is "hybrid" or "bm25-only" (then ``reason`` says why). ``dropped`` counts
    fused hits removed because their graph node does not exist."""

    query: str
    hits: list[SearchHit]
    mode: str
    reason: str = ""
    steps: list[Step] = field(default_factory=list)
    dropped: int = 0

    @property
    def total_ms(self) -> float:
        return sum(s.ms for s in self.steps)

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "mode": self.mode,
            "reason": self.reason,
            "dropped_without_graph_node": self.dropped,
            "steps": [{"name": s.name, "ms": round(s.ms, 2), "detail": s.detail} for s in self.steps],
            "hits": [
                {
                    "chunk_id": h.chunk.chunk_id, "repo": h.chunk.repo, "file": h.chunk.file,
                    "line": h.chunk.line, "end_line": h.chunk.end_line, "kind": h.chunk.kind,
                    "qualified_name": h.chunk.qualified_name, "content": h.content,
                    "symbol_uid": h.chunk.symbol_uid, "score": h.score,
                    "bm25_rank": h.bm25_rank, "knn_rank": h.knn_rank, "text": h.chunk.text,
                }
                for h in self.hits
            ],
        }


class QueryEmbedder(Protocol):
    """What hybrid_search needs of an embedder (``codegraph.core.embedder.Embedder``)."""

    @property
    def available(self) -> bool: ...

    @property
    def reason(self) -> str: ...

    @property
    def loaded(self) -> bool: ...

    def load(self) -> float: ...

    def embed(self, texts: list[str]) -> Any: ...

    def cached_query(self, text: str) -> Any | None:
        """A query's vector without loading the model (a cache), or None."""

    def embed_query(self, text: str) -> Any:
        """A query's vector (loading the model if needed)."""


# A graph join given as a function: uids in -> the subset that exists as graph nodes.
NodeFilter = Callable[[list[str]], Iterable[str]]


def rrf_fuse(rankings: list[list[str]], k: int = RRF_K) -> list[tuple[str, float]]:
    """Reciprocal rank fusion: id -> sum over rankings of 1/(k + rank), rank 1-based.
    Returns (id, score) best first; ties keep the order of first appearance."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, cid in enumerate(ranking, 1):
            scores[cid] = scores.get(cid, 0.0) + 1.0 / (k + rank)
    order = {cid: i for i, cid in enumerate(dict.fromkeys(c for r in rankings for c in r))}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))


def _graph_uid(chunk: Chunk) -> str:
    return chunk.symbol_uid or chunk.file_uid


def _existing(graph: GraphStore | NodeFilter, uids: list[str]) -> set[str]:
    get_nodes = getattr(graph, "get_nodes", None)
    if get_nodes is not None:
        return set(get_nodes(uids))
    return set(graph(uids))  # type: ignore[operator]


NO_VECTORS = "no vectors stored yet for this scope (run the embedding phase)"


def _any_vectors(index: SearchIndex, scopes: list[str | None]) -> bool:
    return any(index.has_vectors(r) for r in scopes)


def hybrid_search(
    index: SearchIndex,
    embedder: QueryEmbedder | None,
    query: str,
    k: int = 10,
    repo: str | None = None,
    graph: GraphStore | NodeFilter | None = None,
    candidates: int | None = None,
    repos: list[str] | None = None,
    kinds: list[str] | None = None,
) -> SearchResult:
    """Top ``k`` chunks for ``query``: BM25 top-N and kNN top-N (N = ``candidates``,
    default max(50, 5k)) fused by RRF (k=60), then, when ``graph`` is given (a GraphStore
    or a function uids -> existing uids), code hits whose symbol_uid (else file_uid) has no
    graph node are dropped, checked in one batch. Falls back to BM25 alone, saying why,
    when no embedder/model is available or the index holds no vectors for the scope.
    Model loading is its own step ("load model"), so "embed query" is the query's cost.
    ``repos`` (a workspace) searches each repository and fuses all their rankings by
    RRF, so no repository's score scale dominates. ``kinds``: content kinds to search
    (codegraph.core.content; default all): each kind's index ranks on its own and the
    rankings are fused by RRF, so code hits keep their order among themselves; schema,
    config and docs hits are file-backed and never dropped by the graph join. Raises
    StoreUnavailable from the index, BadInput for an unknown kind."""
    from codegraph.core.content import CODE, kind_indexes

    n = candidates or max(50, 5 * k)
    scopes: list[str | None] = list(repos) if repos is not None else [repo]
    sources = kind_indexes(index, kinds)  # [(kind, index)]
    timer = StepTimer()
    mode, reason = "hybrid", ""

    timer.restart()
    bm_lists = [(kind, ix.bm25(query, n, repo=r)) for kind, ix in sources for r in scopes]  # type: ignore[attr-defined]
    bm = [h for _, lst in bm_lists for h in lst]
    timer.mark("bm25", f"{len(bm)} hits")

    kn_lists: list[tuple[str, list[tuple[str, float]]]] = []
    kn: list[tuple[str, float]] = []
    if embedder is None:
        mode, reason = "bm25-only", "no embedder configured"
    elif not embedder.available:
        mode, reason = "bm25-only", embedder.reason
    elif not embedder.loaded and not _any_vectors(index, scopes):
        # Nothing to compare a query vector with: never load the model (~0.7 s) for it.
        mode, reason = "bm25-only", NO_VECTORS
    qv: Any = None
    if mode == "hybrid" and embedder is not None:
        timer.restart()
        qv = embedder.cached_query(query)
        if qv is not None:
            timer.mark("embed query", "cached, model not loaded")
        elif not embedder.loaded:
            timer.restart()
            try:
                embedder.load()
            except CodegraphError as e:  # a broken model file: answer from BM25, say why
                mode, reason = "bm25-only", str(e)
            timer.mark("load model", "once per process")
    if mode == "hybrid" and embedder is not None:
        if qv is None:
            timer.restart()
            qv = embedder.embed_query(query)
            timer.mark("embed query")
        timer.restart()
        kn_lists = [(kind, ix.knn(qv, n, repo=r)) for kind, ix in sources for r in scopes]  # type: ignore[attr-defined]
        kn = [h for _, lst in kn_lists for h in lst]
        timer.mark("knn", f"{len(kn)} hits")
        if not kn:
            mode, reason = "bm25-only", NO_VECTORS

    timer.restart()
    rankings = [[c for c, _ in lst] for _, lst in bm_lists + (kn_lists if kn else [])]
    fused = rrf_fuse(rankings)
    bm_rank = {c: (i, s) for _, lst in bm_lists for i, (c, s) in enumerate(lst, 1)}
    kn_rank = {c: (i, s) for _, lst in (kn_lists if kn else []) for i, (c, s) in enumerate(lst, 1)}
    kind_of = {c: kind for kind, lst in bm_lists + kn_lists for c, _ in lst}
    timer.mark("fuse", f"rrf k={RRF_K}, {len(fused)} candidates")

    timer.restart()
    chunks: dict[str, Chunk] = {}
    for kind, ix in sources:
        ids = [c for c, _ in fused if kind_of.get(c) == kind]
        if ids:
            chunks.update(ix.get_chunks(ids))  # type: ignore[attr-defined]
    timer.mark("fetch chunks", f"{len(chunks)} chunks")

    dropped = 0
    if graph is not None:
        timer.restart()
        code = {cid: ch for cid, ch in chunks.items() if kind_of.get(cid) == CODE}
        uids = sorted({_graph_uid(ch) for ch in code.values() if _graph_uid(ch)})
        present = _existing(graph, uids) if uids else set()
        gone = {cid for cid, ch in code.items() if _graph_uid(ch) not in present}
        dropped = len(gone)
        chunks = {cid: ch for cid, ch in chunks.items() if cid not in gone}
        timer.mark("graph join", f"{dropped} without graph node dropped")

    hits: list[SearchHit] = []
    for cid, score in fused:
        ch = chunks.get(cid)
        if ch is None:
            continue
        b, v = bm_rank.get(cid), kn_rank.get(cid)
        hits.append(SearchHit(
            chunk=ch, score=score,
            bm25_rank=b[0] if b else None, knn_rank=v[0] if v else None,
            bm25_score=b[1] if b else None, knn_similarity=v[1] if v else None,
            content=kind_of.get(cid, CODE),
        ))
        if len(hits) >= k:
            break
    return SearchResult(query=query, hits=hits, mode=mode, reason=reason, steps=timer.steps, dropped=dropped)

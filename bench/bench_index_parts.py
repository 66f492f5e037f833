"""Main-process parts of indexing the standard library, before vs after, in one run.

After the parallel extraction, the main process builds the BM25 rows of every chunk
(identifier splitting of names, qualified names and the identifiers in the code) and
encodes every file's extraction for the indexer state. This prints, for the standard
library's files (tests left out):
- BM25 rows: ``chunk_row`` for every chunk with identifier splitting memoised (after,
  cache cleared before each run, as in one index run) against the same code without the
  memo (before: the unwrapped functions);
- the same rows in the main process now that the extraction workers send each chunk's
  terms (after) against the old main-process work (before);
- state encoding: ``state.encode`` (after, the marshal form the state stores) against
  ``zlib(json(dataclasses.asdict))`` (before, the JSON form earlier states held); the check
  before timing is that ``state.decode`` gives every file's extraction back unchanged.
Runs alternate after/before ``--runs`` times; medians of CPU time (process time) and
the ratio after/before of the medians.

    .venv/bin/python bench/bench_index_parts.py [--runs 3] [--files 0]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import sysconfig
import time
import zlib
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codegraph.core import retrieval  # noqa: E402
from codegraph.core.embedded_search import chunk_row  # noqa: E402
from codegraph.indexer.chunks import chunks_for_file  # noqa: E402
from codegraph.indexer.extract import extract_source  # noqa: E402
from codegraph.indexer.state import decode, encode  # noqa: E402

TEST_PARTS = ("test", "tests", "idle_test", "site-packages")


def stdlib_sources(limit: int) -> list[tuple[str, bytes]]:
    root = Path(sysconfig.get_paths()["stdlib"])
    out = []
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root)
        if any(part in TEST_PARTS for part in rel.parts[:-1]):
            continue
        out.append((rel.as_posix(), p.read_bytes()))
    return out[:limit] if limit else out


def timed(fn: Callable[[], object]) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--files", type=int, default=0, help="first N files only (0 = all)")
    args = ap.parse_args()

    t = time.perf_counter()
    fxs, chunks = [], []
    for rel, data in stdlib_sources(args.files):
        fx = extract_source("stdlib", rel, "python", data)
        fxs.append(fx)
        chunks += chunks_for_file(fx, data.decode("utf-8", "replace"))
    print(f"standard library: {len(fxs)} files, {len(chunks)} chunks, "
          f"{sum(len(f.references) for f in fxs)} references (extracted in {time.perf_counter() - t:.1f} s)")

    memo_words, memo_terms, memo_parts = retrieval._words_of, retrieval._field_terms, retrieval._part_words
    text_field = retrieval.text_identifier_field

    def rows_after() -> None:
        memo_words.cache_clear()
        memo_terms.cache_clear()
        memo_parts.cache_clear()
        retrieval._name_field.cache_clear()
        retrieval._TOKEN_TERMS.clear()
        for c in chunks:
            chunk_row(c)

    def rows_before() -> None:  # no memo: the unwrapped functions, the text's field from identifiers_in
        retrieval._words_of, retrieval._field_terms = memo_words.__wrapped__, memo_terms.__wrapped__
        retrieval._part_words = memo_parts.__wrapped__
        retrieval.text_identifier_field = lambda text: retrieval.identifier_field(retrieval.identifiers_in(text))
        try:
            for c in chunks:
                chunk_row(c)
        finally:
            retrieval._words_of, retrieval._field_terms = memo_words, memo_terms
            retrieval._part_words, retrieval.text_identifier_field = memo_parts, text_field

    from dataclasses import replace

    from codegraph.core.retrieval import chunk_terms

    with_terms = [replace(c, terms=chunk_terms(c)) for c in chunks]  # as the extraction workers send them

    def rows_main_after() -> None:
        for c in with_terms:
            chunk_row(c)

    def state_after() -> None:
        for fx in fxs:
            encode(fx)

    def state_before() -> None:
        for fx in fxs:
            zlib.compress(json.dumps(asdict(fx), ensure_ascii=False, separators=(",", ":")).encode(), 1)

    # The forms differ (marshal vs JSON) since the state moved to marshal: what must hold is
    # that the stored form gives the extraction back.
    lost = [fx.file.path for fx in fxs if decode(encode(fx)) != fx]
    if lost:
        raise SystemExit(f"state.decode(state.encode(fx)) differs for {len(lost)} files, first {lost[0]}")
    print(f"runs: {args.runs} per side, alternating after/before; CPU seconds of this process\n")
    print(f"{'part':28} {'after s':>8} {'before s':>9} {'ratio':>6}")
    for name, after, before in (("BM25 rows (chunk_row)", rows_after, rows_before),
                                ("BM25 rows, main process", rows_main_after, rows_before),
                                ("state encoding", state_after, state_before)):
        a, b = [], []
        for _ in range(args.runs):
            a.append(timed(after))
            b.append(timed(before))
        ma, mb = statistics.median(a), statistics.median(b)
        print(f"{name:28} {ma:8.2f} {mb:9.2f} {ma / mb:6.2f}")


if __name__ == "__main__":
    main()

"""Extraction of many files: bytes -> FileExtraction, in a process pool.

One file's failure (a grammar crash, a decode problem) becomes a File with
coverage_status ``error`` and a message, never a failed run; the traceback is logged at
DEBUG and the run's summary counts the failures (docs/DESIGN.md#logging).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator
from operator import attrgetter
from pathlib import Path

from codegraph.core.models import FileRecord, stable_hash
from codegraph.indexer.languages import extractor_for
from codegraph.indexer.records import FileExtraction, Reference
from codegraph.indexer.workers import worker_pool

log = logging.getLogger(__name__)
# Messages (FileExtraction.errors) that mean the extractor or an adapter failed on the file.
FAILURE_PREFIXES = ("extractor failed:", "framework adapters failed:", "unreadable:")

EXTRACTOR_VERSION = "0.3.6"  # bump when any extraction rule changes: forces a full rebuild


def extract_source(repo: str, path: str, language: str, source: bytes) -> FileExtraction:
    """Extract one file's records; never raises."""
    mod = extractor_for(language)
    if mod is None:
        fr = FileRecord(repo, path, language, stable_hash(source.decode("utf-8", "replace")),
                        had_error=False, coverage_status="unsupported", size_bytes=len(source))
        return FileExtraction(file=fr, errors=[f"no extractor for {language} yet"])
    try:
        fx: FileExtraction = mod.extract(repo, path, source)
    except Exception as e:  # a grammar or rule bug must not stop the run
        log.debug("extractor for %s failed on %s", language, path, exc_info=True)
        fr = FileRecord(repo, path, language, stable_hash(source.decode("utf-8", "replace")),
                        had_error=True, coverage_status="error", size_bytes=len(source))
        return FileExtraction(file=fr, errors=[f"extractor failed: {type(e).__name__}: {e}"])
    try:
        from codegraph.indexer.adapters import extract_framework

        fx.framework.extend(extract_framework(language, path, source, fx))
    except Exception as e:  # an adapter bug costs the framework records of one file, not the file
        log.debug("framework adapters failed on %s", path, exc_info=True)
        fx.errors.append(f"framework adapters failed: {type(e).__name__}: {e}")
    # Query captures do not come back in a fixed order; a stable order keeps cached
    # extractions and JSONL output byte-identical across runs.
    _sort_references(fx.references)
    fx.file.size_bytes = len(source)
    if not fx.file.line_count:
        fx.file.line_count = source.count(b"\n") + (0 if source.endswith(b"\n") else 1)
    return fx


_REF_ORDER = attrgetter("line", "type", "target_identifier", "source_qualified_name")


def _sort_references(refs: list[Reference]) -> None:
    """Sort by (line, type, target, source, repr of the sorted extra): the repr, the costly
    part, is computed only where the first four tie (a stable sort by them, then each run
    of ties by the repr, orders exactly as the five-part key does)."""
    refs.sort(key=_REF_ORDER)
    i, n = 0, len(refs)
    while i < n:
        a = refs[i]
        j = i + 1
        while j < n and (b := refs[j]).line == a.line and b.type == a.type \
                and b.target_identifier == a.target_identifier and b.source_qualified_name == a.source_qualified_name:
            j += 1
        if j - i > 1:
            refs[i:j] = sorted(refs[i:j], key=lambda r: repr(sorted(r.extra.items())))
        i = j


def _work(args: tuple[str, str, str, str]) -> FileExtraction:
    repo, path, language, abs_path = args
    try:
        data = Path(abs_path).read_bytes()
    except OSError as e:
        fr = FileRecord(repo, path, language, "", had_error=True, coverage_status="error")
        return FileExtraction(file=fr, errors=[f"unreadable: {e}"])
    return extract_source(repo, path, language, data)


def failed(fx: FileExtraction) -> bool:
    """True when the extractor or an adapter failed on the file (or it was unreadable)."""
    return any(m.startswith(FAILURE_PREFIXES) for m in fx.errors)


def extract_many(
    repo: str,
    items: Iterable[tuple[str, str, Path]],
    workers: int = 0,
    progress: Callable[[FileExtraction], None] | None = None,
) -> Iterator[FileExtraction]:
    """Extract (path, language, abs_path) items; yields in input order. ``workers`` 0 =
    one process per core; 1 = in this process (tests, small trees)."""
    jobs = [(repo, p, lang, str(a)) for p, lang, a in items]
    n = workers or os.cpu_count() or 1
    if n <= 1 or len(jobs) < 32:
        for j in jobs:
            fx = _work(j)
            if progress:
                progress(fx)
            yield fx
        return
    with worker_pool(n) as pool:
        for fx in pool.map(_work, jobs, chunksize=16):
            if progress:
                progress(fx)
            yield fx

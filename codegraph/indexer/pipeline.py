"""``codegraph index``: discover -> extract (changed files only) -> load -> resolve ->
search chunks, then the resumable embedding phase.

The graph and BM25 answer queries as soon as ``index_repo`` returns; embedding runs
after (``codegraph.indexer.embed_phase``) with its own progress and can be resumed.
State is written only after the graph and the index were updated successfully.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codegraph.core.completeness import previous_run_unfinished, run_transaction
from codegraph.core.git import git_head
from codegraph.core.graph_store import GraphStore
from codegraph.core.models import Chunk, FileImport, file_hash, stable_hash
from codegraph.core.search_index import SearchIndex
from codegraph.indexer import wire
from codegraph.indexer.adapters.pages import assign_routes
from codegraph.indexer.discover import DiscoveredFile, discover
from codegraph.indexer.extract import EXTRACTOR_VERSION, extract_source
from codegraph.indexer.records import FileExtraction
from codegraph.indexer.state import StateCorrupt, StateStore
from codegraph.indexer.workers import worker_pool

if TYPE_CHECKING:
    from codegraph.indexer.apply import IndexSummary, LoadPlan, Progress, apply_extractions
    from codegraph.indexer.resolve import Decision

# The post-extraction half (codegraph.indexer.apply: load, resolve, link, save) and what it
# imports (the resolver, the linkers, the forked writers: ~0.12 CPU s without .pyc files)
# is imported by ``_index_repo`` once the early worker pool has started, not with this
# module: the workers never need it, and before the pool starts it delayed the workers.
# Its names are still importable from here (``__getattr__``).
_APPLY_NAMES = ("IndexSummary", "LoadPlan", "Progress", "apply_extractions")


def __getattr__(name: str) -> Any:
    if name in _APPLY_NAMES:
        from codegraph.indexer import apply

        return getattr(apply, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# The triage decisions of a run (index_repo): as they are, or a function that reads them.
Decisions = dict[str, "Decision"] | Callable[[], dict[str, "Decision"] | None] | None
POOL_MIN_FILES = 32  # fewer files to extract are extracted in the main process
STREAM_LOAD = True  # a repo new to the graph loads during extraction (_StreamLoad); tests compare both ways
STREAM_BATCH = 50  # files per import_files call of the stream load: what is left when the pool ends is the
# last batch, imported on the critical path (~1 ms a file; the per-call overhead is a few statements)


def config_fingerprint(extra: dict[str, Any] | None = None) -> str:
    """Changes when anything that shapes extraction output changes (forces a rebuild)."""
    return stable_hash(EXTRACTOR_VERSION, repr(sorted((extra or {}).items())))


def _extract_job(args: tuple[str, str, str, str, bool]) -> tuple[FileExtraction, list[Chunk]]:
    repo, path, language, abs_path, want_chunks = args
    try:
        with open(abs_path, "rb") as f:  # not Path.read_bytes: its Path and io layers cost more than the read
            data = f.read()
    except OSError as e:
        fx = extract_source(repo, path, language, b"")
        fx.file.had_error, fx.file.coverage_status = True, "error"
        fx.errors.append(f"unreadable: {e}")
        return fx, []
    return extract_bytes(repo, path, language, data, want_chunks)


def extract_bytes(repo: str, path: str, language: str, data: bytes, want_chunks: bool
                  ) -> tuple[FileExtraction, list[Chunk]]:
    """The extraction of one file's bytes and, with ``want_chunks``, its search chunks
    with their BM25 terms."""
    fx = extract_source(repo, path, language, data)
    fx.file.content_hash = file_hash(data)
    chunks: list[Chunk] = []
    if want_chunks:
        from codegraph.core.retrieval import chunk_terms
        from codegraph.indexer.chunks import chunks_for_file
        from codegraph.indexer.source_text import decode_source

        chunks = chunks_for_file(fx, decode_source(data, language))  # PEP 263 cookies honoured
        for c in chunks:  # BM25 terms split here, in parallel, not in the main process
            c.terms = chunk_terms(c)
    return fx, chunks


def _extract_wire(args: tuple[str, str, str, str, bool]) -> bytes:
    """``_extract_job`` in a worker process, its result in the form it crosses the pipe in."""
    return wire.encode(*_extract_job(args))


def extract_pooled(pool: Executor, jobs: list[tuple[str, str, str, str, bool]]
                   ) -> Iterator[tuple[FileExtraction, wire.WireChunks]]:
    """``_extract_job`` of each job, in order, run by ``pool``'s worker processes (results
    cross as ``codegraph.indexer.wire`` blobs, decoded here as they arrive; the chunks are
    built when first read)."""
    return map(wire.decode, pool.map(_extract_wire, jobs, chunksize=8))


def index_repo(
    root: Path,
    repo: str,
    graph: GraphStore,
    search: SearchIndex | None,
    state: StateStore,
    *,
    workers: int = 0,
    max_file_bytes: int = 1_000_000,
    decisions: Decisions = None,
    force: bool = False,
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    pages: dict[str, str] | None = None,
    progress: Progress | None = None,
    full_resolve: bool | None = None,
) -> IndexSummary:
    """Index (or refresh) one repository rooted at ``root`` under the name ``repo``.

    Only files whose content hash changed are parsed; removed files leave both stores;
    the whole repo is re-resolved from cached extractions so callers in unchanged files
    are relinked when definitions appear or vanish, and only files whose edges changed
    are rewritten. Raises StoreUnavailable when a store does not answer (state is then
    not written, so the next run repeats the work), FileNotFoundError for a bad root.
    ``full_resolve``: resolve every file even when only some can be affected (default:
    the environment variable ``CODEGRAPH_FULL_RESOLVE=1``; benches compare both ways).
    ``decisions``: the triage decisions the resolver applies, or a function returning
    them, called once after the walk (the early pool has started then; the CLI's
    ``triage_decisions`` imports the hint parser, ~0.04 CPU s the workers need not wait
    for), before the run writes anything to the graph.
    """
    if full_resolve is None:
        full_resolve = os.environ.get("CODEGRAPH_FULL_RESOLVE") == "1"
    # No cyclic GC during the run: with the repo's records in memory one full collection
    # costs a large part of a one-file refresh, and the run creates no cycles worth it.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    early = _EarlyPool()
    args: dict[str, Any] = dict(workers=workers, max_file_bytes=max_file_bytes, decisions=decisions, include=include,
                                exclude=exclude, pages=pages, progress=progress, full_resolve=full_resolve,
                                early=early)
    try:
        try:
            return _index_repo(root, repo, graph, search, state, force=force, **args)
        except StateCorrupt as e:  # a damaged state row: nothing of it is trusted, the stores are rewritten
            s = _index_repo(root, repo, graph, search, state, force=True, **args)
            s.messages.insert(0, f"{e}: every file re-parsed and relinked")
            return s
    finally:
        early.close()
        if gc_was_enabled:
            gc.enable()


def _index_repo(
    root: Path, repo: str, graph: GraphStore, search: SearchIndex | None, state: StateStore, *,
    workers: int, max_file_bytes: int, decisions: Decisions, force: bool,
    include: list[str] | None, exclude: list[str] | None, pages: dict[str, str] | None,
    progress: Progress | None, full_resolve: bool, early: _EarlyPool,
) -> IndexSummary:
    t0 = time.perf_counter()
    seen_ns = time.time_ns()  # before any file is looked at (StateStore.trusted_stats)
    tick = progress or (lambda *_: None)
    root = root.resolve()
    trusted = {} if force else state.trusted_stats(repo)
    prev = state.repo(repo)
    n = workers or os.cpu_count() or 1
    # A run that extracts every file starts its worker pool as soon as the walk has found
    # enough files to use it: the workers warm up while the tree is walked (workers.warm_up).
    many = (POOL_MIN_FILES, lambda: early.start(n)) \
        if n > 1 and (force or prev is None or prev.extractor_version != EXTRACTOR_VERSION) else None
    disc = discover(root, max_file_bytes=max_file_bytes, include=include, exclude=exclude, known=trusted, many=many)
    walked = time.perf_counter() - t0  # the "discover" phase: the imports and decisions below are not
    from codegraph.indexer.apply import IndexSummary, LoadPlan, _begin_run, apply_extractions  # see _APPLY_NAMES

    if callable(decisions):
        decisions = decisions()

    s = IndexSummary(repo=repo, root=str(root))
    s.skipped, s.unsupported = dict(disc.skipped), dict(disc.unsupported)
    s.skipped_folders = disc.skipped_folders
    s.timings["discover"] = walked

    fingerprint = config_fingerprint(
        {"max_file_bytes": max_file_bytes, "include": tuple(include or ()), "exclude": tuple(exclude or ()),
         "pages": tuple(sorted((pages or {}).items()))})
    rebuild = force or prev is None or prev.extractor_version != EXTRACTOR_VERSION or prev.fingerprint != fingerprint
    if not rebuild and previous_run_unfinished(graph, repo, prev.updated_at if prev else None):
        # A killed run left the graph part-written while the state still describes the run
        # before it: trust neither, rebuild (docs/hardening.md, "Completeness").
        rebuild = True
        s.messages.append("the previous run of this repo did not finish: every file re-parsed and relinked")
    if not rebuild and state.stale_format(repo):
        rebuild = True
        s.messages.append("the indexer state of this repo is in an older layout: every file re-parsed and relinked")
    if state.notice:
        s.messages.append(state.notice)
    s.full_rebuild = rebuild and prev is not None
    known = {} if rebuild else state.file_hashes(repo)

    # Hash the files whose stat is not the one a run read them under (docs/DESIGN.md#refresh).
    t = time.perf_counter()
    current: dict[str, DiscoveredFile] = {f.path: f for f in disc.files}
    changed: list[DiscoveredFile] = []
    stats: dict[str, tuple[int, int, int, int, int]] = {}  # of the files read now, for the state
    # The graph is checked too: a state file that outlived its graph (another backend,
    # a wiped store, a killed load) must not hide files the graph lacks.
    in_graph = graph.file_hashes(repo)
    for f in disc.files:
        if f.stat is not None and f.path in known and trusted.get(f.path) == f.stat:
            h = known[f.path][0]  # same stat as when its stored content was read
        elif f.path not in known and f.path not in in_graph:
            # In neither store (every file of a first index): changed whatever it holds, so
            # not read here; the extraction reads and hashes it (discover just opened it).
            if f.stat is not None:
                stats[f.path] = (*f.stat, seen_ns)
            changed.append(f)
            continue
        else:
            try:
                h = file_hash(f.abs_path.read_bytes())
            except OSError:
                s.skipped["unreadable"] = s.skipped.get("unreadable", 0) + 1
                continue
            if f.stat is not None:
                stats[f.path] = (*f.stat, seen_ns)
        if known.get(f.path, ("",))[0] != h or in_graph.get(f.path) != h:
            changed.append(f)
    removed = sorted((set(known) | set(in_graph)) - set(current))
    s.files, s.changed, s.removed, s.hashed = len(current), len(changed), len(removed), len(stats)
    s.unchanged = s.files - s.changed
    s.timings["hash"] = time.perf_counter() - t

    # Extract changed files in a process pool.
    t = time.perf_counter()
    fresh: dict[str, FileExtraction] = {}
    chunks = wire.WireChunks()  # kept in their wire form: the search writes build them (wire.py)
    # GC is off (index_repo): unpickling records from the pool is otherwise mostly GC time.
    jobs = [(repo, f.path, f.language, str(f.abs_path), search is not None) for f in changed]
    pooled = n > 1 and len(jobs) >= POOL_MIN_FILES
    with ExitStack() as run:
        started = loader = None
        if pooled and STREAM_LOAD and not known and not in_graph:
            # A repo new to the graph: its files are loaded while the pool extracts the
            # rest (the main process only waits there). The graph holds nothing of the repo
            # to diff against, so loading in batches is one whole import (docs/DESIGN.md#import).
            run.enter_context(run_transaction(graph))
            started = _begin_run(graph, s, root, repo, True)
            loader = _StreamLoad(graph, repo, assign_routes(set(current), pages), tick, len(jobs))
        if pooled:
            with early.take(n) as pool:
                for i, (fx, ch) in enumerate(extract_pooled(pool, jobs), 1):
                    fresh[fx.file.path] = fx
                    chunks.extend(ch)
                    if loader is not None:
                        loader.add(fx)
                    tick("extract", i, len(jobs))
        else:
            for i, j in enumerate(jobs, 1):
                fx, ch = _extract_job(j)
                fresh[fx.file.path] = fx
                chunks.extend(ch)
                tick("extract", i, len(jobs))
        if loader is not None:
            loader.flush()
            s.timings["load during extract"] = loader.seconds
        s.timings["extract"] = time.perf_counter() - t
        for path, route in (pages or {}).items():  # explicit page mapping from the project config
            if path in fresh:
                fresh[path].file.route = route
        plan = LoadPlan(s, root, repo, fresh, chunks, removed, set(current), known, fingerprint, t0,
                        decisions=decisions, rebuild=rebuild, progress=tick, pages=pages, full_resolve=full_resolve,
                        languages=frozenset(f.language for f in disc.files), stats=stats, started=started)
        if search is not None and hasattr(search, "for_kind"):
            # Schema, config and docs chunks, each kind in its own index (indexer/content.py),
            # once both stores committed, beside their WAL checkpoints.
            def content(s: IndexSummary) -> None:
                from codegraph.indexer.content import index_content

                t = time.perf_counter()
                s.content = index_content(root, repo, search, max_file_bytes, include=include, exclude=exclude,
                                          paths=disc.paths).to_dict()  # the tree as discover listed it
                s.timings["content"] = time.perf_counter() - t

            from codegraph.core.content import CHUNK_KIND

            plan.after = content
            plan.after_kinds = tuple(CHUNK_KIND)  # the non-code kinds, what index_content writes
        if started is None:
            run.enter_context(run_transaction(graph))  # embedded: readers see the last complete run until it commits
        s = apply_extractions(plan, graph, search, state)
    return s


class _EarlyPool:
    """The worker pool of a run that will extract every file, started (``start``, called
    by ``discover`` once it has found POOL_MIN_FILES paths) before the files to extract
    are known, so its workers warm up meanwhile. ``take`` hands it to the extraction
    (a new pool when none was started); ``close`` (index_repo, at the end of every run)
    shuts down a pool nobody took."""

    def __init__(self) -> None:
        self.pool: Executor | None = None

    def start(self, n: int) -> None:
        if self.pool is None:
            self.pool = worker_pool(n, warm=True)

    def take(self, n: int) -> Executor:
        pool, self.pool = self.pool, None
        return pool if pool is not None else worker_pool(n)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None


class _StreamLoad:
    """Imports extracted files into the graph in batches of STREAM_BATCH as the pool returns
    them, page routes set first as ``_apply`` sets them; ``seconds`` spent importing."""

    def __init__(self, graph: GraphStore, repo: str, routes: dict[str, tuple[str, str]], tick: Progress,
                 total: int) -> None:
        self.graph, self.repo, self.routes, self.tick, self.total = graph, repo, routes, tick, total
        self.batch: list[FileImport] = []
        self.done = 0
        self.seconds = 0.0

    def add(self, fx: FileExtraction) -> None:
        fx.file.route, fx.file.app = self.routes.get(fx.file.path, (None, None))
        self.batch.append(FileImport(fx.file, fx.symbols))
        if len(self.batch) >= STREAM_BATCH:
            self.flush()

    def flush(self) -> None:
        if not self.batch:
            return
        t = time.perf_counter()
        self.graph.import_files(self.repo, self.batch)
        self.done += len(self.batch)
        self.batch = []
        self.seconds += time.perf_counter() - t
        self.tick("load", self.done, self.total)


def default_repo_name(root: Path) -> str:
    return root.resolve().name or "root"


__all__ = ["IndexSummary", "LoadPlan", "apply_extractions", "default_repo_name", "extract_tree", "git_head", "index_repo",
           "load_extractions"]


def extract_tree(
    root: Path,
    repo: str,
    *,
    workers: int = 0,
    max_file_bytes: int = 1_000_000,
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    progress: Progress | None = None,
) -> tuple[dict[str, Any], list[FileExtraction], dict[str, Any]]:
    """Extract every file (no stores touched): (header, extractions, discovery report).
    The header is the JSONL contract's (``codegraph extract`` writes it)."""
    tick = progress or (lambda *_: None)
    root = root.resolve()
    disc = discover(root, max_file_bytes=max_file_bytes, include=include, exclude=exclude)
    jobs = [(repo, f.path, f.language, str(f.abs_path), False) for f in disc.files]
    out: list[FileExtraction] = []
    n = workers or os.cpu_count() or 1
    if n > 1 and len(jobs) >= POOL_MIN_FILES:
        with worker_pool(n) as pool:
            for i, (fx, _) in enumerate(extract_pooled(pool, jobs), 1):
                out.append(fx)
                tick("extract", i, len(jobs))
    else:
        for i, j in enumerate(jobs, 1):
            out.append(_extract_job(j)[0])
            tick("extract", i, len(jobs))
    header = {"extractor_version": EXTRACTOR_VERSION, "repo": repo, "root": str(root), "commit": git_head(root),
              "created_at": datetime.now(UTC).isoformat(timespec="seconds")}
    report = {"skipped": dict(disc.skipped), "unsupported": dict(disc.unsupported)}
    return header, out, report


def load_extractions(
    header: dict[str, Any],
    files: list[FileExtraction],
    graph: GraphStore,
    search: SearchIndex | None,
    state: StateStore,
    *,
    repo: str | None = None,
    decisions: dict[str, Decision] | None = None,
    progress: Progress | None = None,
) -> IndexSummary:
    """Load already-parsed extractions as one complete run (``codegraph.indexer.load``
    holds the rules: containment, what may be deleted)."""
    from codegraph.indexer.load import load_run
    from codegraph.indexer.records import JsonlRun

    run = JsonlRun(header, files, [], end={"files": len(files)},
                   file_lines={fx.file.path: 0 for fx in files})
    return load_run(run, graph, search, state, repo=repo, decisions=decisions, yes=True, progress=progress)

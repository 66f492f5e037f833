"""A run's post-extraction half (docs/DESIGN.md#import, #refresh): load the fresh
extractions into the graph, drop removed files, re-resolve, rewrite the edges whose
set changed, write search chunks beside it, then counts, snapshot, the Repo node, the
graph's commit and the indexer state.

``codegraph.indexer.pipeline`` (discover, hash, extract) builds the ``LoadPlan`` and calls
``apply_extractions``; ``codegraph.indexer.load`` does the same for a JSONL run.
State is written only after the graph and the search index were updated successfully.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from codegraph.core import wal_checkpoint
from codegraph.core.completeness import commit_run, running_record
from codegraph.core.git import git_head
from codegraph.core.graph_store import GraphStore
from codegraph.core.models import (
    ENDPOINT,
    IMPORTS,
    STRUCTURAL_EDGES,
    STUB,
    TABLE,
    TOPIC,
    Chunk,
    FileImport,
    RepoRecord,
    file_uid,
    stable_hash,
)
from codegraph.core.search_index import SearchIndex, bulk_load
from codegraph.indexer.adapters.pages import assign_routes
from codegraph.indexer.affected import partial_load_ok, resolve_and_link
from codegraph.indexer.cross_repo import save_client_calls
from codegraph.indexer.extract import EXTRACTOR_VERSION, failed
from codegraph.indexer.fork_guard import store_thread
from codegraph.indexer.languages import link_repo
from codegraph.indexer.records import FileExtraction
from codegraph.indexer.resolve import Decision
from codegraph.indexer.search_writes import fork_ok, start_forked, wait_forked
from codegraph.indexer.state import RepoState, StateStore
from codegraph.indexer.state_writes import ForkedSave, save_forked

log = logging.getLogger(__name__)
SEARCH_BATCH = 2000  # chunks per upsert_chunks call (one progress tick each)
Progress = Callable[[str, int, int], None]  # (phase, done, total)
LOAD_BATCH = 200  # files per import_files / replace_edges call


@dataclass(slots=True)
class IndexSummary:
    """What one run did. Counts are for the whole repo after the run unless named
    ``changed``/``removed``; timings in seconds."""

    repo: str
    root: str
    files: int = 0
    changed: int = 0
    unchanged: int = 0
    removed: int = 0
    hashed: int = 0  # files without a trusted stat (read to hash them, or new to both stores); the others kept theirs
    symbols: int = 0
    edges: int = 0  # derived edges, as core/figures.py counts them (every type but the structural ones)
    structural_edges: int = 0  # IN_REPO + DECLARES: file -> repo and file -> symbol, not relationships
    stubs: int = 0
    edges_rewritten_files: int = 0
    resolved_files: int = 0  # files whose references were resolved again (docs/DESIGN.md#refresh)
    chunks_written: int = 0
    parse_errors: int = 0
    partial_files: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    skipped_folders: list[str] = field(default_factory=list)  # the vendored / build folders left out
    unsupported: dict[str, int] = field(default_factory=dict)
    resolutions: dict[str, int] = field(default_factory=dict)
    full_rebuild: bool = False
    commit: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)
    content: dict[str, Any] = field(default_factory=dict)  # schema/config/docs chunks (indexer/content.py)
    # Cross-boundary links (docs/boundaries.md): client URLs that matched no endpoint or several,
    # the first of them listed (file, line, method, url, reason, candidates), and counts.
    unplaced_urls: int = 0
    # Files of this run whose extractor or adapters failed (traceback at DEBUG, see extract.py).
    extract_failures: int = 0
    unplaced: list[dict[str, Any]] = field(default_factory=list)
    boundaries: dict[str, int] = field(default_factory=dict)


def _edges_hash(edges: list[Any]) -> str:
    # An IMPORTS edge's resolved `symbols` (name-aware impact) change when a barrel far away
    # changes: they count, so the importer's edges are rewritten.
    return stable_hash(*sorted(
        f"{e.type}|{e.source}|{e.target}|{e.line}|{e.resolution}"
        + (f"|{sorted((e.extra.get('symbols') or {}).items())}" if e.type == IMPORTS else "") for e in edges))


def _quiet(phase: str, done: int, total: int) -> None:
    pass


@dataclass(slots=True)
class LoadPlan:
    """What one run applies to the stores (``apply_extractions``), built by ``index_repo``
    and ``load_jsonl``. Paths are repo-relative."""

    summary: IndexSummary  # filled in further by the run and returned
    root: Path
    repo: str
    fresh: dict[str, FileExtraction]  # path -> extraction of every changed file
    chunks: Sequence[Chunk]  # search chunks of the fresh files (wire.WireChunks: built when first read)
    removed: list[str]  # paths that left the repo
    current: set[str]  # every path of the repo after the run
    known: dict[str, tuple[str, str]]  # path -> (content hash, edges hash) from the state; {} on a rebuild
    fingerprint: str  # config fingerprint the state is saved with
    t0: float  # time.perf_counter() at the start of the run (for timings["total"])
    decisions: dict[str, Decision] | None = None  # triage decisions applied by the resolver
    rebuild: bool = False  # a full rebuild: every file is relinked
    progress: Progress = _quiet
    pages: dict[str, str] | None = None  # explicit path -> route of codegraph.toml (wins over conventions)
    full_resolve: bool = False  # resolve every file even when only some can be affected (benches compare)
    languages: frozenset[str] | None = None  # of every file after the run; None: not known (all references read)
    # path -> (size, mtime_ns, ctime_ns, inode, seen_ns) of the files this run read (StateStore.trusted_stats)
    stats: dict[str, tuple[int, int, int, int, int]] = field(default_factory=dict)
    # The run began before extraction and loaded the fresh files already (_StreamLoad):
    # what ``_begin_run`` returned then.
    started: _Started | None = None
    # Called with the summary after the graph and the state committed, while the WAL
    # checkpoints still run (index_repo: the content phase), before the run ends.
    after: Callable[[IndexSummary], None] | None = None
    # The search kinds ``after`` writes (``SearchIndex.for_kind``): a forked search-writes
    # child opens them first, so a new file's schema (a few fsyncs) is not made at the end.
    after_kinds: tuple[str, ...] = ()


@dataclass(slots=True)
class _Started:
    """A run's start in the graph (``_begin_run``): the Repo node before the run, the
    record it gets when the run completes, and the run's clock time."""

    repo_node: Any
    rec: RepoRecord
    now: str


def _begin_run(graph: GraphStore, s: IndexSummary, root: Path, repo: str, graph_changed: bool) -> _Started:
    """Write the Repo node of a starting run: until the last write of the run it says
    "running" and keeps the commit and import time of the last complete run
    (docs/hardening.md, "Completeness")."""
    now = datetime.now(UTC).isoformat(timespec="seconds")
    s.commit = s.commit or git_head(root)
    repo_node = graph.get_nodes([RepoRecord(repo, "").uid]).get(RepoRecord(repo, "").uid)
    rec = RepoRecord(
        name=repo, path=str(root), last_commit_sha=s.commit,
        last_imported_at=now if graph_changed or repo_node is None else repo_node.props.get("last_imported_at"),
        last_checked_at=now, extractor_version=EXTRACTOR_VERSION, unsupported=dict(s.unsupported),
        skipped=dict(s.skipped))
    graph.upsert_repo(running_record(rec, repo_node, now) if graph_changed or repo_node is None else rec)
    return _Started(repo_node, rec, now)


def apply_extractions(plan: LoadPlan, graph: GraphStore, search: SearchIndex | None, state: StateStore) -> IndexSummary:
    """Load the plan's fresh extractions, drop removed files, re-resolve the repo, update
    search, then write state. Returns ``plan.summary``. Raises StoreUnavailable when a
    store does not answer (state is then not written)."""
    # Search chunks (BM25 now, vectors later in the embedding phase) are written by a helper
    # thread while the graph is loaded and resolved: they depend on neither, and SQLite /
    # the Elasticsearch client release the GIL while they work, so the two overlap.
    # A full load into the embedded index writes from a forked child instead, off the GIL
    # (codegraph.indexer.search_writes); the helper thread then only waits for it.
    writer = ThreadPoolExecutor(1, thread_name_prefix="search-writes") if search is not None else None
    written = None
    if search is not None and writer is not None:
        def write(index: SearchIndex, tick: Progress) -> tuple[int, float]:
            return _write_search(index, plan.repo, plan.fresh, plan.chunks, plan.removed, tick)

        if fork_ok(search, len(plan.chunks), SEARCH_BATCH):
            def write_then_open(index: SearchIndex, tick: Progress) -> tuple[int, float]:
                out = write(index, tick)
                for kind in plan.after_kinds:  # made now, on the second core; reopened by ``after``
                    index.for_kind(kind).close()  # type: ignore[attr-defined]
                return out

            child = start_forked(search, write_then_open)
            written = writer.submit(wait_forked, *child, plan.progress)
        else:
            # In process: no fork of this run while it writes (codegraph.indexer.fork_guard).
            written = writer.submit(store_thread(write), search, plan.progress)
    try:
        return _apply(plan, graph, state, written)
    finally:
        if writer is not None:
            writer.shutdown(wait=True)  # a failed run still waits: no write may outlive the run


def _write_search(search: SearchIndex, repo: str, fresh: dict[str, FileExtraction], chunks: Sequence[Chunk],
                  removed: list[str], tick: Progress) -> tuple[int, float]:
    """Delete the removed files' and vanished chunks, upsert ``chunks``: (chunks written,
    seconds it took)."""
    t = time.perf_counter()
    if removed:
        search.delete_files(repo, removed)
    if fresh:
        # Only chunks that vanished from a changed file go: an unchanged function in an
        # edited file keeps its chunk id and content hash, hence its vector.
        keep = {c.chunk_id for c in chunks}
        existing = search.chunk_ids_by_file(repo, list(fresh))
        gone = [cid for p in fresh for cid in existing.get(p, ()) if cid not in keep]
        search.delete_chunks(repo, gone)
    # More than one batch: the backend's full-load mode (Elasticsearch: refresh off,
    # requests in flight across batches, one refresh at the end).
    with bulk_load(search, repo) if len(chunks) > SEARCH_BATCH else nullcontext():
        for i in range(0, len(chunks), SEARCH_BATCH):
            search.upsert_chunks(chunks[i:i + SEARCH_BATCH])
            tick("search", min(i + SEARCH_BATCH, len(chunks)), len(chunks))
    return len(chunks), time.perf_counter() - t


def _apply(plan: LoadPlan, graph: GraphStore, state: StateStore, written: Future[tuple[int, float]] | None
           ) -> IndexSummary:
    saver: list[ForkedSave] = []  # the state save forked beside the edge writes, when it is
    try:
        return _apply_run(plan, graph, state, written, saver)
    finally:
        for f in saver:
            f.close()  # rolls back when the run did not get to commit it; else waits for the child's end


def _apply_run(plan: LoadPlan, graph: GraphStore, state: StateStore, written: Future[tuple[int, float]] | None,
               saver: list[ForkedSave]) -> IndexSummary:
    s, root, repo, fresh = plan.summary, plan.root, plan.repo, plan.fresh
    removed, current, known, decisions = plan.removed, plan.current, plan.known, plan.decisions
    rebuild, tick, t0, pages = plan.rebuild, plan.progress, plan.t0, plan.pages
    graph_changed = bool(fresh or removed)
    snapshot: tuple[str, list[str]] | None = None  # (taken_at, qualified names) of the run's CountSnapshot

    # Load: file-scoped diff per changed file, removal of vanished files.
    t = time.perf_counter()
    started = plan.started or _begin_run(graph, s, root, repo, graph_changed)
    repo_node, rec, now = started.repo_node, started.rec, started.now
    routes = assign_routes(current, pages)  # page routes by file-system conventions + explicit mapping
    for p, fx in fresh.items():
        fx.file.route, fx.file.app = routes.get(p, (None, None))
    # Where each symbol of the changed and removed files was declared before this run: a
    # symbol that changes file keeps its uid, and the callers in unchanged files are
    # rewritten below whatever the store did with the node.
    before = {n.uid: p for p, ns in graph.nodes_in_files(repo, [*fresh, *removed]).items() for n in ns} \
        if fresh and known else {}
    # One whole import (every changed file, the store batches it), and only then the removed
    # files: a symbol that moved out of a deleted file is already declared elsewhere.
    if plan.started is None:  # else _StreamLoad imported them during extraction
        graph.import_files(repo, [FileImport(fx.file, fx.symbols) for fx in fresh.values()],
                           progress=lambda done, total: tick("load", done, total))
    if removed:
        graph.remove_files(repo, removed)
    moved_targets = {sym.uid for fx in fresh.values() for sym in fx.symbols
                     if sym.uid in before and before[sym.uid] != fx.file.path}
    s.timings["load"] = time.perf_counter() - t

    # Resolve the whole repo; rewrite edges of files whose edge set changed.
    t = time.perf_counter()
    unchanged_paths = [p for p in current if p not in fresh and p in known]
    # Heads only (symbols, exports, ...): references are read for the files resolved again.
    cached = state.extractions(repo, unchanged_paths, heads=partial_load_ok(plan.languages)) \
        if graph_changed or decisions else {}
    edges_hashes: dict[str, str] = {}
    all_fx: list[FileExtraction] = []
    resolved = None
    if graph_changed or decisions or rebuild:
        # Path order: what the resolver keeps of several stubs of one name does not depend
        # on which files this run parsed (codegraph.indexer.affected merges per file).
        all_fx = sorted([*cached.values(), *fresh.values()], key=lambda fx: fx.file.path)
        link_repo(all_fx, root if root.is_dir() else None)
        # Only the references a change can reach are resolved again (docs/DESIGN.md#refresh).
        resolved = resolve_and_link(repo, all_fx, fresh, removed, set(known), state, decisions,
                                    root if root.is_dir() else None, full=rebuild or not known or plan.full_resolve)
        res, links = resolved.res, resolved.links
        s.resolutions = resolved.totals
        s.resolved_files = len(resolved.files) if resolved.files is not None else len(all_fx)
        for p, es in links.edges.items():
            res.edges.setdefault(p, []).extend(es)
        save_client_calls(state, repo, links.unplaced)  # matched across repos by codegraph.indexer.cross_repo
        s.unplaced_urls = sum(1 for u in links.unplaced if u["kind"] == "http_call")
        s.unplaced = links.unplaced[:200]
        s.boundaries = dict(links.counts)
        rewrite: list[str] = []
        # An unchanged file whose page route changed (a page appeared next to it) is re-imported;
        # routes follow the set of paths, so only a run that added or removed files checks.
        paths_changed = rebuild or bool(removed) or any(p not in known for p in fresh)
        stale = [p for p in unchanged_paths if p in cached] if paths_changed else []
        stored = graph.get_nodes([file_uid(repo, p) for p in stale]) if stale else {}
        moved = []
        for p in stale:
            want = routes.get(p, (None, None))
            node = stored.get(file_uid(repo, p))
            if node is not None and (node.props.get("route"), node.props.get("app")) != want:
                cached[p].file.route, cached[p].file.app = want
                moved.append(cached[p])
        rewrite.extend(fx.file.path for fx in moved)
        moved_paths = {fx.file.path for fx in moved}
        unhashed: list[str] = []  # fresh files: rewritten whatever their hash, which only the state keeps
        for fx in all_fx:
            p = fx.file.path
            if resolved.files is not None and p not in resolved.files:
                continue  # not resolved again: its edges cannot have changed
            if p in fresh:  # never a moved path (those are unchanged files)
                unhashed.append(p)
                rewrite.append(p)
                continue
            h = _edges_hash(res.edges.get(p, []))
            edges_hashes[p] = h
            targets_moved = p not in fresh and any(e.target in moved_targets for e in res.edges.get(p, ()))
            if (p in fresh or known.get(p, ("", ""))[1] != h or targets_moved) and p not in moved_paths:
                rewrite.append(p)
        if graph_changed:  # the run's CountSnapshot: its time and names, saved with the state
            snapshot = (datetime.now(UTC).isoformat(timespec="microseconds"),
                        [sym.qualified_name for fx in all_fx for sym in fx.symbols])
        def hash_fresh(edges: dict[str, list[Any]] = res.edges) -> None:
            edges_hashes.update((p, _edges_hash(edges.get(p, []))) for p in unhashed)

        if save_forked(state, len(fresh) + s.resolved_files):
            # Every row of the state is known now: a child writes them while the edges go
            # into the graph, and commits after the graph (codegraph.indexer.state_writes);
            # it hashes the fresh files' edges first (~0.05 CPU s on the stdlib).
            saver.append(ForkedSave(state, _repo_state(plan, now), fresh, removed, edges_hashes, resolved.state,
                                    stats=plan.stats, snapshot=snapshot, prepare=hash_fresh))
        else:
            hash_fresh()
        # The graph's writes after the fork: the save (on the critical path of a full run)
        # starts as soon as its rows are known, and the graph gets them in the same order.
        if resolved.stubs:
            graph.upsert_nodes([st.to_node() for st in resolved.stubs])
        if links.nodes:
            graph.upsert_nodes(links.nodes)
        if moved:
            graph.import_files(repo, [FileImport(fx.file, fx.symbols) for fx in moved])
        for i in range(0, len(rewrite), LOAD_BATCH):
            part = rewrite[i:i + LOAD_BATCH]
            graph.replace_edges(repo, part, [e for p in part for e in res.edges.get(p, [])])
            tick("link", min(i + LOAD_BATCH, len(rewrite)), len(rewrite))
        graph.prune_unreferenced(repo, [STUB, ENDPOINT, TABLE, TOPIC])
        s.edges_rewritten_files = len(rewrite)
    s.timings["resolve+link"] = time.perf_counter() - t

    # Search chunks: the helper thread's writes must be complete before the state is saved.
    # "search" is the time the run waited for them, "search writes" their own duration.
    t = time.perf_counter()
    if written is not None:
        s.chunks_written, s.timings["search writes"] = written.result()
    s.timings["search"] = time.perf_counter() - t

    t = time.perf_counter()  # "save": counts, snapshot, the Repo node, the graph's commit, state
    counts = graph.counts(repo)  # once: the snapshot and the summary both read it
    if snapshot is not None:
        from codegraph.core.baselines import take_snapshot

        take_snapshot(graph, repo, s.commit, snapshot[0], counts=counts)
    if graph_changed or repo_node is None:
        graph.upsert_repo(rec)  # the run is complete: commit and import time are now this run's
    # The graph's run commits here while a forked save still writes its rows, and the state
    # commits after it: a run whose graph did not commit keeps the state it had; one killed
    # in between rebuilds (docs/DESIGN.md#refresh). A forked save's run (many files) leaves
    # both WAL checkpoints (~60 + ~30 MB on the stdlib, mostly fsync waits) to a process of
    # their own (codegraph.core.wal_checkpoint), started now so that it is up beside the
    # commits, and let go once both committed: every row is committed and readable then, and
    # the run need not wait for the disk.
    embedded = hasattr(graph, "checkpoint")  # a WAL of its own
    wal = [graph.path] if embedded else []  # type: ignore[attr-defined]
    ahead = wal_checkpoint.start([*wal, state.path]) if saver else None
    try:
        commit_run(graph, checkpoint=not (embedded and ahead is not None))
        _finish(plan, s, counts, state, saver, (_repo_state(plan, now), fresh, removed, edges_hashes,
                                                resolved.state if resolved is not None else None), snapshot, t,
                ahead)
    finally:  # no child outlives the run, also when the state save failed
        if ahead is not None:
            ahead.cancel()  # when the state did not commit (after go: nothing)
        for f in saver:
            f.close()
    s.timings["total"] = time.perf_counter() - t0
    log.info("indexed %s: %d files (%d parsed, %d removed, %d extraction failures), %d symbols, %d edges, "
             "%d stubs in %.2fs", repo, s.files, s.changed, s.removed, s.extract_failures, s.symbols, s.edges,
             s.stubs, s.timings["total"])
    return s


def _finish(plan: LoadPlan, s: IndexSummary, counts: dict[str, Any], state: StateStore, saver: list[ForkedSave],
            save: tuple[Any, ...], snapshot: tuple[str, list[str]] | None, t: float,
            ahead: wal_checkpoint.Checkpointer | None) -> None:
    """The state's commit (the forked child's, or the save in the process), the summary's
    counts, then ``plan.after``. After a forked save's commit, ``ahead`` may copy the WALs."""
    fresh = plan.fresh
    if saver:
        saver[0].commit()
        if ahead is not None:
            ahead.go()
    else:
        state.save(*save, stats=plan.stats, snapshot=snapshot)
    s.symbols = counts["nodes"].get("Symbol", 0)
    s.stubs = counts["nodes"].get(STUB, 0)
    s.edges = sum(v for k, v in counts["edges"].items() if k not in STRUCTURAL_EDGES)
    s.structural_edges = sum(counts["edges"].get(k, 0) for k in STRUCTURAL_EDGES)
    s.parse_errors, s.partial_files = counts["parse_errors"], counts["partial_files"]
    s.messages = (s.messages + [f"{p}: {m}" for p, fx in fresh.items() for m in fx.errors[:3]])[:50]
    s.extract_failures = sum(1 for fx in fresh.values() if failed(fx))
    s.timings["save"] = time.perf_counter() - t
    if plan.after is not None:
        plan.after(s)


def _repo_state(plan: LoadPlan, now: str) -> RepoState:
    return RepoState(plan.repo, str(plan.root), EXTRACTOR_VERSION, plan.fingerprint, plan.summary.commit, now)


__all__ = ["LOAD_BATCH", "SEARCH_BATCH", "IndexSummary", "LoadPlan", "Progress", "apply_extractions"]

"""``codegraph load``: a JSONL extraction into the stores, transactional per run.

docs/hardening.md, "Transactional loads" and "Containment":

- a run without its closing ``end`` record (truncated), or whose ``end`` counts more
  files than were read, changes nothing (:class:`TruncatedRun`) unless ``partial``; a
  partial load imports what is there and deletes nothing;
- a file with a malformed line among its records that the graph already holds is kept
  as it is (its new extraction may lack what that line described);
- files the graph holds but the run does not describe are deleted only when the run is
  complete, and more than ``max_delete_percent`` of the repo's files only with ``yes``
  (:class:`DeletionRefused` lists them otherwise);
- paths leaving the repo root are counted skips (``outside_root``) with file and line,
  and a source file is read for search chunks only when it resolves inside the root and
  its bytes hash to the record's ``content_hash``.
"""

from __future__ import annotations

import time
from pathlib import Path

from codegraph.core.completeness import previous_run_unfinished, run_transaction
from codegraph.core.errors import BadInput
from codegraph.core.graph_store import GraphStore
from codegraph.core.models import Chunk
from codegraph.core.paths import contained
from codegraph.core.search_index import SearchIndex
from codegraph.indexer.pipeline import (
    IndexSummary,
    LoadPlan,
    Progress,
    apply_extractions,
    config_fingerprint,
    file_hash,
)
from codegraph.indexer.records import FileExtraction, JsonlRun
from codegraph.indexer.resolve import Decision
from codegraph.indexer.state import StateStore

MAX_SOURCE_BYTES = 5_000_000  # larger sources get no search chunks on load


class TruncatedRun(BadInput):
    """The JSONL has no closing record (or fewer files than it counts): nothing changed."""


class DeletionRefused(BadInput):
    """The load would delete more of the repo's files than allowed without ``--yes``.
    ``paths`` lists them."""

    def __init__(self, message: str, paths: list[str]) -> None:
        super().__init__(message)
        self.paths = paths


def _listing(paths: list[str], n: int = 8) -> str:
    more = f" (+{len(paths) - n} more)" if len(paths) > n else ""
    return ", ".join(paths[:n]) + more


def planned_deletions(run: JsonlRun, in_graph: set[str], known: set[str], *, partial: bool) -> list[str]:
    """Files the load would delete: held by the graph or state, absent from a complete
    run. A partial or incomplete run deletes nothing."""
    if partial or not run.complete:
        return []
    return sorted((in_graph | known) - {fx.file.path for fx in run.files})


def load_run(
    run: JsonlRun,
    graph: GraphStore,
    search: SearchIndex | None,
    state: StateStore,
    *,
    repo: str | None = None,
    decisions: dict[str, Decision] | None = None,
    partial: bool = False,
    yes: bool = False,
    max_delete_percent: float = 20.0,
    source: str = "the JSONL",
    progress: Progress | None = None,
) -> IndexSummary:
    """Load ``run`` (see the module docstring); returns the pipeline's IndexSummary.

    Raises TruncatedRun / DeletionRefused (BadInput: one line, nothing changed),
    StoreUnavailable when a store does not answer."""
    t0 = time.perf_counter()
    header = run.header
    if not run.complete and not partial:
        if run.end is None:
            why = "has no closing record (truncated?)"
        else:
            why = f"closing record counts {str(run.end.get('files'))[:40]} files but {len(run.files)} were read"
            if run.outside_files:
                why += f" and {run.outside_files} refused as outside the repo root"
        raise TruncatedRun(f"{source} {why}: nothing was changed; --partial loads the files it holds "
                           "and deletes nothing")
    name = repo or (header.get("repo") if isinstance(header.get("repo"), str) and header.get("repo") else "repo")
    root_text = header.get("root") if isinstance(header.get("root"), str) else "."
    root = Path(root_text or ".")
    for fx in run.files:
        fx.file.repo = name
        for sym in fx.symbols:
            sym.repo = name
    skipped = {k: v for k, v in (header.get("skipped") or {}).items() if isinstance(v, int)} \
        if isinstance(header.get("skipped"), dict) else {}
    unsupported = {k: v for k, v in (header.get("unsupported") or {}).items() if isinstance(v, int)} \
        if isinstance(header.get("unsupported"), dict) else {}
    commit = header.get("commit") if isinstance(header.get("commit"), str) else None
    s = IndexSummary(repo=name, root=str(root), commit=commit, unsupported=unsupported, skipped=skipped)
    if run.outside:
        s.skipped["outside_root"] = s.skipped.get("outside_root", 0) + len(run.outside)
        s.messages.extend(f"{source} line {no}: {p[:200]} is outside the repo root, skipped"
                          for no, p in run.outside[:20])
    prev = state.repo(name)
    fingerprint = prev.fingerprint if prev else config_fingerprint({})
    known = state.file_hashes(name)
    in_graph = graph.file_hashes(name)
    if previous_run_unfinished(graph, name, prev.updated_at if prev else None):  # a killed run: redo all
        s.messages.append("the previous run of this repo did not finish: every file re-imported and relinked")
        known = {p: ("", "") for p in known}
    fresh: dict[str, FileExtraction] = {}
    for fx in run.files:
        p = fx.file.path
        if known.get(p, ("",))[0] == fx.file.content_hash and in_graph.get(p) == fx.file.content_hash:
            continue
        if p in run.tainted and p in in_graph:
            s.skipped["malformed_records"] = s.skipped.get("malformed_records", 0) + 1
            s.messages.append(f"{p} (line {run.file_lines.get(p)}): a malformed record among its lines; "
                              "kept as it was")
            continue
        fresh[p] = fx
    removed = planned_deletions(run, set(in_graph), set(known), partial=partial)
    if removed and not yes and len(removed) * 100 > max_delete_percent * max(len(in_graph), 1):
        raise DeletionRefused(
            f"refused: loading {source} would delete {len(removed)} of the {len(in_graph)} files of {name} "
            f"(above {max_delete_percent:g}%): {_listing(removed)}; nothing was changed; rerun with --yes "
            "to delete them", removed)
    current = {fx.file.path for fx in run.files} | (set(in_graph) if partial else set())
    chunks = _chunks(fresh, root, run, s, source) if search is not None else []
    s.files, s.changed, s.removed = len(current), len(fresh), len(removed)
    s.unchanged = s.files - s.changed
    tick = progress or (lambda *_: None)
    plan = LoadPlan(s, root, name, fresh, chunks, removed, current, known, fingerprint, t0, decisions=decisions,
                    progress=tick)
    with run_transaction(graph):  # embedded: readers see the last complete run until it commits
        return apply_extractions(plan, graph, search, state)


def _chunks(fresh: dict[str, FileExtraction], root: Path, run: JsonlRun, s: IndexSummary, source: str) -> list[Chunk]:
    """Search chunks of the fresh files whose sources are here, inside the root, and
    exactly the bytes that were extracted."""
    from codegraph.indexer.chunks import chunks_for_file
    from codegraph.indexer.source_text import decode_source

    msgs, skipped = s.messages, s.skipped
    try:
        base = root.resolve()
    except (OSError, RuntimeError):
        base = None
    if base is None or not base.is_dir():
        msgs.append(f"sources not found at {root}: graph loaded, search chunks not rebuilt")
        return []
    if base == Path(base.anchor):
        msgs.append(f"the header's root {root} is a file-system root: sources not read, search chunks not rebuilt")
        return []
    out: list[Chunk] = []
    for p, fx in fresh.items():
        line = run.file_lines.get(p)
        path = contained(base, p)
        if path is None:
            skipped["outside_root"] = skipped.get("outside_root", 0) + 1
            msgs.append(f"{source} line {line}: {p} resolves outside the repo root {base}, not read")
            continue
        try:
            if path.stat().st_size > MAX_SOURCE_BYTES:
                msgs.append(f"{p}: larger than {MAX_SOURCE_BYTES} bytes, no search chunks")
                continue
            data = path.read_bytes()
        except OSError:
            msgs.append(f"{p}: source not readable here, no search chunks")
            continue
        if file_hash(data) != fx.file.content_hash:
            msgs.append(f"{p}: source differs from the extraction (content_hash), no search chunks")
            continue
        out.extend(chunks_for_file(fx, decode_source(data, fx.file.language)))
    return out

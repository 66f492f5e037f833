"""Elasticsearch bulk writes, before vs after in one run: ``upsert_chunks`` of a full
load (new repo) and ``set_vectors`` (the embed phase's partial updates), chunks/s.

Chunks are real: the standard library's files (tests left out) through the real
extractor and chunker. "before" is ``codegraph/core/elastic_search.py`` as it was at
``--before`` (loaded from git under another module name, same client and server);
"after" is this checkout. Runs alternate after/before ``--runs`` times, each into a
fresh index, in batches of 2,000 chunks as the pipeline writes them (inside the module's
``bulk_load`` block when it has one, as the pipeline does for a load of more than one
batch; the time includes the block's end: queued requests, settings restored, refresh);
medians and the ratio after/before. ``--before`` takes a comma list of revisions (the
first is the ratio's "before"; each gets its own rows). Needs Elasticsearch (``make services`` writes .codegraph/services.env).

Chunks carry their BM25 terms (``Chunk.terms``) as the pipeline's extraction workers
compute them; a "before" module that ignores them computes them itself (that is part of
its cost). Besides wall-clock chunks/s, each figure is given per CPU-second of this
process plus the Elasticsearch server (its JVM found by pid), and the upsert per CPU-second of
each of the two: on the shared 2-core machine
wall clock follows the other load, CPU time much less. The 1-minute load average is
printed next to every run.

    .venv/bin/python bench/bench_es_bulk.py [--files 300] [--runs 3] [--before REF]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from codegraph.core.models import Chunk  # noqa: E402
from codegraph.core.proc_cpu import process_cpu  # noqa: E402
from codegraph.core.retrieval import chunk_terms  # noqa: E402
from codegraph.indexer.chunks import chunks_for_file  # noqa: E402
from codegraph.indexer.extract import extract_source  # noqa: E402
from tests.services import service_settings  # noqa: E402

BEFORE_DEFAULT = "40135e5,325fe7d"  # main before this session's bulk work, main before any bulk work
BATCH = 2000  # chunks per upsert_chunks call, as codegraph.indexer.pipeline writes them
TEST_PARTS = ("test", "tests", "idle_test", "site-packages")
REPO = "cg-esbulk"


def old_module(ref: str) -> Any:
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:codegraph/core/elastic_search.py"],
                         capture_output=True, text=True, check=True).stdout
    path = Path(tempfile.mkdtemp(prefix="cg-es-before-")) / "elastic_search_before.py"
    path.write_text(src, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("elastic_search_before", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def real_chunks(files: int) -> list[Chunk]:
    root = Path(sysconfig.get_paths()["stdlib"])
    out: list[Chunk] = []
    paths = [p for p in sorted(root.rglob("*.py"))
             if not any(part in TEST_PARTS for part in p.relative_to(root).parts[:-1])][:files]
    for p in paths:
        data = p.read_bytes()
        fx = extract_source(REPO, p.relative_to(root).as_posix(), "python", data)
        out += chunks_for_file(fx, data.decode("utf-8", "replace"))
    for c in out:
        c.terms = chunk_terms(c)  # as the extraction workers do (codegraph.indexer.pipeline)
    return out


def server_pid(url: str) -> str:
    """pid of the Elasticsearch JVM serving ``url`` when it runs on this machine ('' when
    not found): the node reports it (``_nodes/_local/process``); with a private server on
    another port next to the shared one, the first ``pgrep`` match was the wrong JVM."""
    import json
    import urllib.request

    try:
        with urllib.request.urlopen(f"{url}/_nodes/_local/process?filter_path=nodes.*.process.id", timeout=5) as r:
            nodes = json.load(r).get("nodes", {})
        pid = str(next(iter(nodes.values()))["process"]["id"])
    except (OSError, ValueError, StopIteration, KeyError):
        return ""
    return pid if Path(f"/proc/{pid}").exists() else ""


def server_cpu(pid: str) -> float:
    """CPU seconds of the server JVM so far (0 when unknown)."""
    return process_cpu(pid)


def cpu_now(pid: str) -> float:
    """CPU seconds of this process plus the server's so far (server 0 when unknown)."""
    return time.process_time() + server_cpu(pid)


def one_run(cls: Any, url: str, prefix: str, repo: str, chunks: list[Chunk],
            vectors: dict[str, np.ndarray], pid: str) -> tuple[float, float, float, float, float, float]:
    """(upsert chunks/s, set_vectors chunks/s, upsert chunks per CPU-second, set_vectors
    chunks per CPU-second, upsert chunks per client CPU-second, upsert chunks per server
    CPU-second) into a fresh index; CPU = this process + the server."""
    ix = cls(url, prefix)
    ix.ensure_schema()
    ix.delete_repo(repo)
    mine = chunks
    load = getattr(ix, "bulk_load", None)
    t, own, srv = time.perf_counter(), time.process_time(), server_cpu(pid)
    with load(repo) if load is not None else contextlib.nullcontext():
        for i in range(0, len(mine), BATCH):
            ix.upsert_chunks(mine[i:i + BATCH])
    wall, own, srv = time.perf_counter() - t, time.process_time() - own, server_cpu(pid) - srv
    cpu = own + srv
    t, c = time.perf_counter(), cpu_now(pid)
    items = list(vectors.items())
    for i in range(0, len(items), 256):  # the embed phase's batch
        ix.set_vectors(dict(items[i:i + 256]))
    vwall, vcpu = time.perf_counter() - t, cpu_now(pid) - c
    assert ix.stats(repo)["chunks"] == len(mine), "not every chunk was stored"
    ix.delete_repo(repo)
    ix.close()
    return (len(mine) / wall, len(items) / vwall, len(mine) / max(cpu, 1e-9), len(items) / max(vcpu, 1e-9),
            len(mine) / max(own, 1e-9), len(mine) / max(srv, 1e-9))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--before", default=BEFORE_DEFAULT)
    ap.add_argument("--vectors", type=int, default=5000, help="chunks given a vector in the set_vectors figure")
    args = ap.parse_args()
    settings = service_settings()
    if not settings.search.startswith("http"):
        print("Elasticsearch is not configured (run `make services`); nothing measured")
        return
    from codegraph.core.elastic_search import ElasticsearchIndex

    befores = [b.strip() for b in args.before.split(",") if b.strip()]
    sides = [("after", ElasticsearchIndex, "cgbench")] + [
        (f"before {b}", old_module(b).ElasticsearchIndex, f"cgbenchold{k}") for k, b in enumerate(befores)]
    chunks = real_chunks(args.files)
    rng = np.random.default_rng(3)
    repo = REPO
    vectors = {c.chunk_id: rng.normal(size=384).astype(np.float32) for c in chunks[: args.vectors]}
    print(f"{len(chunks)} real chunks from {args.files} standard-library files; {len(vectors)} vectors; "
          f"Elasticsearch {settings.search}; before = {befores[0]}")
    pid = server_pid(settings.search)
    res: dict[str, list[tuple[float, float, float, float, float, float]]] = {side: [] for side, _, _ in sides}
    for run in range(args.runs):
        order = sides if run % 2 == 0 else sides[::-1]  # no side always first
        for side, cls, prefix in order:
            r = one_run(cls, settings.search, prefix, repo, chunks, vectors, pid)
            res[side].append(r)
            print(f"run {run + 1} {side:14}: upsert {r[0]:7,.0f} chunks/s ({r[2]:7,.0f} per CPU-s; client "
                  f"{r[4]:7,.0f}, server {r[5]:7,.0f}), "
                  f"set_vectors {r[1]:6,.0f} chunks/s ({r[3]:6,.0f} per CPU-s); load average "
                  f"{os.getloadavg()[0]:.1f}", flush=True)
    print(f"runs: {args.runs} per side, alternating after/before; wall clock and CPU of this process + "
          f"the server{' (pid ' + pid + ')' if pid else ' (server pid not found: client CPU only)'}\n")
    names = ("upsert_chunks chunks/s (new)", "set_vectors chunks/s",
             "upsert_chunks chunks per CPU-s", "set_vectors chunks per CPU-s",
             "upsert_chunks per client CPU-s", "upsert_chunks per server CPU-s")
    for b_ref in befores:
        print(f"{'figure':40} {'after':>10} {'before':>10} {'ratio':>6}  (before = {b_ref})")
        for i, name in enumerate(names):
            a = statistics.median(r[i] for r in res["after"])
            b = statistics.median(r[i] for r in res[f"before {b_ref}"])
            print(f"{name:40} {a:10,.0f} {b:10,.0f} {a / b:6.2f}")
    print(f"load average (1 min) at the end: {os.getloadavg()[0]:.1f}")

if __name__ == "__main__":
    main()

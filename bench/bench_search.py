"""Search benchmark: embedder raw throughput, embedding-phase throughput, hybrid search
latency per backend. Prints figures; asserts nothing.

    .venv/bin/python bench/bench_search.py [--threads 2] [--files 40] [--queries 40]
                                           [--backends embedded,elasticsearch]

Corpus: search chunks of standard-library modules (real code), built with the ``ast``
helper of the tests. Elasticsearch is used when CODEGRAPH_SEARCH (or services.env)
points at a server; its bench indices use the prefix ``cgbench`` and are deleted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codegraph.core.embedded_search import EmbeddedSearchIndex  # noqa: E402
from codegraph.core.embedder import Embedder  # noqa: E402
from codegraph.core.models import Chunk  # noqa: E402
from codegraph.core.retrieval import hybrid_search  # noqa: E402
from codegraph.core.search_index import SearchIndex  # noqa: E402
from codegraph.core.settings import load_settings  # noqa: E402
from codegraph.indexer.chunks import chunks_for_file  # noqa: E402
from codegraph.indexer.embed_phase import run_embedding  # noqa: E402
from tests.stdlib_source import STDLIB, extract_python  # noqa: E402

QUERIES = [
    "parse JSON text into python objects", "copy a directory tree recursively", "compress data with gzip",
    "wrap long paragraphs to a fixed width", "priority queue pop smallest item", "encode bytes as base64",
    "delete a folder and everything inside", "read rows from a csv file", "format a date as a string",
    "parse command line arguments", "send an email message", "compute a hash of a file", "join path parts",
    "split a string into tokens", "open a url and read the response", "retry after a timeout",
    "load configuration from an ini file", "start a subprocess and wait for it", "lock for threads",
    "ParseConfig", "parse_args", "JSONDecoder", "copytree", "rmtree", "heappush", "TextWrapper",
    "validate an order before saving", "escape html characters", "random number between two values",
    "sort items by key", "decode a quoted printable string", "walk a directory", "temporary file",
    "log a warning message", "convert a string to an integer", "serialize objects with pickle",
    "match a shell wildcard pattern", "count occurrences of each element", "cache results of a function",
    "measure elapsed time",
]


def corpus(n_files: int) -> list[Chunk]:
    files = sorted(p for p in STDLIB.glob("*.py") if p.stat().st_size < 200_000)[:n_files]
    files += [STDLIB / "json" / "decoder.py", STDLIB / "json" / "encoder.py"]
    out: list[Chunk] = []
    for p in files:
        src = p.read_text(encoding="utf-8", errors="replace")
        try:
            fx = extract_python("bench", p.relative_to(STDLIB).as_posix(), src)
        except SyntaxError:
            continue
        out += chunks_for_file(fx, src)
    return out


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--files", type=int, default=40)
    ap.add_argument("--queries", type=int, default=len(QUERIES))
    ap.add_argument("--backends", default="embedded,elasticsearch")
    args = ap.parse_args()
    settings = load_settings(embed_threads=args.threads)
    emb = Embedder.from_settings(settings)
    if not emb.available:
        sys.exit(emb.reason)
    print(f"load average before: {os.getloadavg()}; cores: {os.cpu_count()}; threads: {args.threads}")
    chunks = corpus(args.files)
    print(f"corpus: {len(chunks)} chunks from stdlib")

    load_s = emb.load()
    texts = [c.embed_text for c in chunks]
    emb.embed(texts[:16])  # warm-up
    print(f"model load: {load_s:.2f}s (onnxruntime spinning off: {emb.spinning_off})")

    for backend in args.backends.split(","):
        ix: SearchIndex
        if backend == "embedded":
            ix = EmbeddedSearchIndex(Path(tempfile.mkdtemp()) / "search.db")
        else:
            if not settings.search.startswith("http"):
                print("elasticsearch: skipped (CODEGRAPH_SEARCH is not http://)")
                continue
            from codegraph.core.elastic_search import ElasticsearchIndex

            ix = ElasticsearchIndex(settings.search, "cgbench")
            ix.ensure_schema()
        ix.delete_repo("bench")
        t = time.perf_counter()
        for i in range(0, len(chunks), 2000):
            ix.upsert_chunks(chunks[i:i + 2000])
        print(f"[{backend}] upsert {len(chunks)} chunks: {time.perf_counter() - t:.1f}s")
        # Raw and phase alternate on the same chunks, 512 at a time, so that both see
        # the same machine load (other processes share the cores). Raw = one embed call
        # over the 512 texts (batches of 64), i.e. the embedder alone.
        raw_s = phase_s = embed_s = raw_cpu = phase_cpu = 0.0
        n_raw = n_phase = 0
        while batch := ix.chunks_missing_vectors(repo="bench", limit=512):
            t, c0 = time.perf_counter(), time.process_time()
            emb.embed([c.embed_text for c in batch], batch_size=64)
            raw_s += time.perf_counter() - t
            raw_cpu += time.process_time() - c0
            n_raw += len(batch)
            c0 = time.process_time()
            rep = run_embedding(ix, emb, repo="bench", batch_size=64, max_chunks=len(batch), window=512)
            phase_cpu += time.process_time() - c0
            phase_s += rep["seconds"]
            embed_s += rep["embed_seconds"]
            n_phase += rep["embedded"]
        raw, phase = n_raw / raw_s, n_phase / phase_s
        print(f"[{backend}] embedder raw: {raw:.1f} texts/s; embedding phase: {phase:.1f} chunks/s "
              f"= {phase / raw:.0%} of raw ({n_phase} chunks, batch 64; time inside the embedder "
              f"{embed_s / phase_s:.0%} of the phase; load average {os.getloadavg()[0]:.1f})")
        print(f"[{backend}] raw per CPU-second: {n_raw / raw_cpu:.1f} texts (x{args.threads} threads = "
              f"{args.threads * n_raw / raw_cpu:.1f} texts/s if the cores were free); phase per CPU-second: "
              f"{n_phase / phase_cpu:.1f} chunks = {(n_phase / phase_cpu) / (n_raw / raw_cpu):.0%} of raw "
              "(client-side CPU only: the Elasticsearch server's CPU is not counted)")
        qs = (QUERIES * 3)[: args.queries]
        hybrid_search(ix, emb, qs[0], k=10, repo="bench")  # warm caches (kNN matrix, connections)
        totals: list[float] = []
        per_step: dict[str, list[float]] = {}
        modes = set()
        for q in qs:
            t = time.perf_counter()
            r = hybrid_search(ix, emb, q, k=10, repo="bench")
            totals.append((time.perf_counter() - t) * 1000)
            modes.add(r.mode)
            for s in r.steps:
                per_step.setdefault(s.name, []).append(s.ms)
        steps = ", ".join(f"{k} p50 {statistics.median(v):.1f} / p95 {pct(v, 0.95):.1f}" for k, v in per_step.items())
        print(f"[{backend}] hybrid search over {len(chunks)} chunks, {len(qs)} queries, modes {sorted(modes)}: "
              f"p50 {statistics.median(totals):.1f} ms, p95 {pct(totals, 0.95):.1f} ms (model load excluded)")
        print(f"[{backend}] steps (ms): {steps}")
        ix.delete_repo("bench")
        if backend != "embedded":
            ix.client.indices.delete_index_template(name="cgbench-code")  # type: ignore[attr-defined]
        ix.close()
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

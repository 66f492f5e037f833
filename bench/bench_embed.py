"""Embedding figures in one run: the embedding phase's throughput against the model's raw
throughput on the same texts, for the fp32 and the int8 model files, and what int8 costs
in quality.

Corpus: the chunks of a fixed set of standard-library modules (real code through the real
extractor and chunker). For each model file:
- raw: ``Embedder.embed`` of every chunk's embed text in one call (model load excluded);
- phase: ``run_embedding`` into a fresh embedded index (reads, sorting, writes included);
- ratio phase / raw (the issue's goal: >= 0.90).
Quality of int8 against fp32: mean and minimum cosine between the two vectors of each
chunk, and recall@10 of kNN alone and of hybrid search on the labelled queries below
(each names the one symbol a person asking it wants).

    .venv/bin/python bench/bench_embed.py [--threads 2] [--fp32-folder DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from codegraph.core.embedded_search import EmbeddedSearchIndex  # noqa: E402
from codegraph.core.embedder import Embedder  # noqa: E402
from codegraph.core.model_source import PROJECT_ROOT  # noqa: E402
from codegraph.core.models import Chunk  # noqa: E402
from codegraph.core.retrieval import hybrid_search  # noqa: E402
from codegraph.indexer.chunks import chunks_for_file  # noqa: E402
from codegraph.indexer.embed_phase import run_embedding  # noqa: E402
from codegraph.indexer.extract import extract_source  # noqa: E402

REPO = "embbench"
MODULES = ["json/__init__.py", "json/decoder.py", "json/encoder.py", "shutil.py", "gzip.py", "csv.py", "base64.py",
           "textwrap.py", "heapq.py", "tempfile.py", "difflib.py", "fnmatch.py", "glob.py", "zipfile.py"]
# query -> the qualified name it asks for (labelled by hand from the modules' docs)
LABELS = {
    "recursively copy a directory tree": "shutil.copytree",
    "delete a folder and everything inside": "shutil.rmtree",
    "move a file or directory to another place": "shutil.move",
    "find an executable program on the PATH": "shutil.which",
    "create a zip or tar archive of a folder": "shutil.make_archive",
    "copy the permission bits of a file": "shutil.copymode",
    "wrap long paragraphs to a fixed width": "textwrap.wrap",
    "remove common leading whitespace from lines": "textwrap.dedent",
    "shorten text to fit with a placeholder": "textwrap.shorten",
    "add a prefix to the beginning of lines": "textwrap.indent",
    "compress bytes with gzip": "gzip.compress",
    "decompress gzip data": "gzip.decompress",
    "encode bytes as base64": "base64.b64encode",
    "decode base64 text to bytes": "base64.b64decode",
    "url safe base64 encoding": "base64.urlsafe_b64encode",
    "push an item onto a heap": "heapq.heappush",
    "pop the smallest item off the heap": "heapq.heappop",
    "the n largest elements of a collection": "heapq.nlargest",
    "merge several sorted inputs into one sorted output": "heapq.merge",
    "parse a JSON document from a string": "json.loads",
    "serialize an object to a JSON formatted string": "json.dumps",
    "read csv rows as dictionaries": "csv.DictReader",
    "write dictionaries as csv rows": "csv.DictWriter",
    "guess the dialect of a csv file": "csv.Sniffer.sniff",
    "create a temporary directory that is removed afterwards": "tempfile.TemporaryDirectory",
    "make a named temporary file": "tempfile.NamedTemporaryFile",
    "compare two sequences and show the differences as a unified diff": "difflib.unified_diff",
    "find close matches to a word": "difflib.get_close_matches",
    "match a filename against a shell wildcard pattern": "fnmatch.fnmatch",
    "list paths matching a pattern": "glob.glob",
    "read a member file out of a zip archive": "zipfile.ZipFile.read",
}


def corpus() -> list[Chunk]:
    root = Path(sysconfig.get_paths()["stdlib"])
    out: list[Chunk] = []
    for rel in MODULES:
        data = (root / rel).read_bytes()
        out += chunks_for_file(extract_source(REPO, rel, "python", data), data.decode("utf-8", "replace"))
    return out


def recall_at_10(ix: EmbeddedSearchIndex, emb: Embedder, knn_only: bool) -> float:
    hits = 0
    for query, qn in LABELS.items():
        if knn_only:
            qv = emb.embed([query])[0]
            got = ix.get_chunks([c for c, _ in ix.knn(qv, 10, repo=REPO)])
            names = [ch.qualified_name for ch in got.values()]
        else:
            names = [h.chunk.qualified_name for h in hybrid_search(ix, emb, query, k=10, repo=REPO).hits]
        hits += qn in names
    return hits / len(LABELS)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=0, help="onnxruntime threads (0 = all cores)")
    ap.add_argument("--fp32-folder", default=str(PROJECT_ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx"))
    ap.add_argument("--int8-folder", default=str(PROJECT_ROOT / "models" / "all-MiniLM-L6-v2-onnx"))
    args = ap.parse_args()
    chunks = corpus()
    qns = {c.qualified_name for c in chunks}
    missing = [qn for qn in LABELS.values() if qn not in qns]
    if missing:
        print(f"labels without a chunk (left out): {missing}")
        for q in [q for q, qn in LABELS.items() if qn in missing]:
            LABELS.pop(q)
    texts = [c.embed_text for c in chunks]
    print(f"corpus: {len(chunks)} chunks of {len(MODULES)} standard-library modules; {len(LABELS)} labelled "
          f"queries; threads {args.threads or 'all'}")
    vectors: dict[str, np.ndarray] = {}
    rows = []
    for label, folder, file in (("fp32", args.fp32_folder, "model.onnx"),
                                ("int8", args.int8_folder, "model_quantized.onnx")):
        emb = Embedder(Path(folder), file, threads=args.threads or None)
        if not emb.available:
            print(f"{label}: {emb.reason}")
            continue
        load = emb.load()
        emb.embed(texts[:8])  # warm-up
        t = time.perf_counter()
        vecs = emb.embed(texts)
        raw = len(texts) / (time.perf_counter() - t)
        vectors[label] = vecs
        with tempfile.TemporaryDirectory() as tmp:
            ix = EmbeddedSearchIndex(Path(tmp) / "search.db")
            ix.upsert_chunks(chunks)
            rep = run_embedding(ix, emb, repo=REPO)
            r_knn, r_hyb = recall_at_10(ix, emb, True), recall_at_10(ix, emb, False)
            ix.close()
        rows.append((label, load, raw, rep["chunks_per_s"], r_knn, r_hyb, emb.batch_dependent))
    print(f"\n{'model':6} {'load s':>7} {'raw texts/s':>12} {'phase chunks/s':>15} {'phase/raw':>10} "
          f"{'recall@10 knn':>14} {'recall@10 hybrid':>17}  batching")
    for label, load, raw, phase, r_knn, r_hyb, one in rows:
        print(f"{label:6} {load:7.2f} {raw:12.1f} {phase:15.1f} {phase / raw:10.2f} {r_knn:14.2f} {r_hyb:17.2f}  "
              + ("one text per run (batch-dependent int8)" if one else "64 per run, sorted by length"))
    if "fp32" in vectors and "int8" in vectors:
        cos = np.sum(vectors["fp32"] * vectors["int8"], axis=1)
        print(f"\nint8 vs fp32 cosine per chunk: mean {float(np.mean(cos)):.4f}, min {float(np.min(cos)):.4f}, "
              f"median {statistics.median(cos.tolist()):.4f}")


if __name__ == "__main__":
    main()

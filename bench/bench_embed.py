"""Embedding figures in one run: the embedding phase's throughput against the model's raw
throughput on the same texts, for the fp32 and the int8 model files, and what int8 costs
in quality.

Corpus: the chunks of a fixed set of standard-library modules (real code through the real
extractor and chunker). For each model file:
- ceiling: the bare model (onnxruntime session + tokenizer, no fastembed, no store), texts
  sorted by token count, every batch size of ``--batches``; the best one is the raw
  throughput (for int8, which the product runs one text per batch so a vector never
  depends on its neighbours, the batch-1 figure is printed too);
- product: ``Embedder.embed`` of every chunk's embed text in one call (model load excluded);
- phase: ``run_embedding`` into a fresh embedded index (reads, sorting, writes included);
- ratio phase / ceiling (the issue's goal: >= 0.90).
Throughput is texts per wall second and per CPU second of this process (all threads; the
machine is shared, so the CPU figure moves less with the load); the phase, the product
call and the ceiling run alternately ``--rounds`` times and the median is printed.
Quality of int8 against fp32: mean and minimum cosine between the two vectors of each
chunk, and recall@10 of kNN alone and of hybrid search on the labelled queries below
(each names the one symbol a person asking it wants).

    .venv/bin/python bench/bench_embed.py [--threads 2] [--rounds 3] [--fp32-folder DIR]
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


class BareModel:
    """The model file in an onnxruntime session of its own with the folder's tokenizer:
    what the embedding costs without anything around it (the ceiling)."""

    def __init__(self, folder: Path, model_file: str, threads: int) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        so = ort.SessionOptions()
        if threads:
            so.intra_op_num_threads = threads
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(str(folder / model_file), so, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tok.enable_truncation(max_length=256)
        self.tok.no_padding()  # tokenizer.json may pad to a fixed length; batches pad here, masked

    def embed(self, texts: list[str], batch: int) -> np.ndarray:
        encs = self.tok.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encs[i].ids))
        out = np.empty((len(texts), 384), dtype=np.float32)
        for s in range(0, len(order), batch):
            part = order[s:s + batch]
            width = max(len(encs[i].ids) for i in part)
            ids = np.zeros((len(part), width), dtype=np.int64)
            mask = np.zeros((len(part), width), dtype=np.int64)
            for row, i in enumerate(part):
                n = len(encs[i].ids)
                ids[row, :n], mask[row, :n] = encs[i].ids, 1
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self.inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            hidden = self.session.run(None, feed)[0]
            m = mask[..., None].astype(np.float32)
            pooled = (hidden * m).sum(1) / np.maximum(m.sum(1), 1e-9)
            out[part] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
        return out


def timed(fn, *args, **kw) -> tuple[tuple[float, float], object]:  # type: ignore[no-untyped-def]
    """((wall s, CPU s of this process), result) of ``fn(*args, **kw)``."""
    w, c = time.perf_counter(), time.process_time()
    out = fn(*args, **kw)
    return (time.perf_counter() - w, time.process_time() - c), out


def rate(n: int, xs: list[tuple[float, float]]) -> tuple[float, float]:
    """texts/s per wall second and per CPU second, from the median times."""
    return n / statistics.median(x[0] for x in xs), n / statistics.median(x[1] for x in xs)


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
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batches", default="1,8,16,32,64,128", help="batch sizes tried for the ceiling")
    ap.add_argument("--fp32-folder", default=str(PROJECT_ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx"))
    ap.add_argument("--int8-folder", default=str(PROJECT_ROOT / "models" / "all-MiniLM-L6-v2-onnx"))
    args = ap.parse_args()
    import os

    chunks = corpus()
    qns = {c.qualified_name for c in chunks}
    missing = [qn for qn in LABELS.values() if qn not in qns]
    if missing:
        print(f"labels without a chunk (left out): {missing}")
        for q in [q for q, qn in LABELS.items() if qn in missing]:
            LABELS.pop(q)
    texts = [c.embed_text for c in chunks]
    batches = [int(b) for b in args.batches.split(",")]
    print(f"corpus: {len(chunks)} chunks of {len(MODULES)} standard-library modules; {len(LABELS)} labelled "
          f"queries; threads {args.threads or 'all'}; load average {os.getloadavg()[0]:.1f}")
    vectors: dict[str, np.ndarray] = {}
    rows = []
    for label, folder, file in (("fp32", args.fp32_folder, "model.onnx"),
                                ("int8", args.int8_folder, "model_quantized.onnx")):
        emb = Embedder(Path(folder), file, threads=args.threads or None)
        if not emb.available:
            print(f"{label}: {emb.reason}")
            continue
        load = emb.load()
        bare = BareModel(Path(folder), file, args.threads)
        emb.embed(texts[:8])  # warm-up
        bare.embed(texts[:8], 8)
        ceil: dict[int, list[tuple[float, float]]] = {b: [] for b in batches}
        product: list[tuple[float, float]] = []
        phase: list[tuple[float, float]] = []
        with tempfile.TemporaryDirectory() as tmp:
            for r in range(args.rounds):
                for b in batches:
                    ceil[b].append(timed(bare.embed, texts, b)[0])
                took, vecs = timed(emb.embed, texts)
                product.append(took)
                vectors[label] = vecs  # type: ignore[assignment]
                ix = EmbeddedSearchIndex(Path(tmp) / f"search-{r}.db")
                ix.upsert_chunks(chunks)
                phase.append(timed(run_embedding, ix, emb, repo=REPO)[0])
                if r == args.rounds - 1:
                    r_knn, r_hyb = recall_at_10(ix, emb, True), recall_at_10(ix, emb, False)
                ix.close()
        n = len(texts)
        per_batch = {b: rate(n, v) for b, v in ceil.items()}
        best = max(per_batch, key=lambda b: per_batch[b][0])
        bare_vs_product = float(np.min(np.sum(bare.embed(texts, 1 if emb.batch_dependent else 64) * vectors[label],
                                              axis=1)))
        rows.append((label, load, per_batch, best, rate(n, product), rate(n, phase), r_knn, r_hyb, emb.batch_dependent,
                     bare_vs_product))
    print("\nthroughput, texts/s (wall | per CPU-second), median of", args.rounds, "rounds")
    print("| model | ceiling: bare model, best batch | ceiling at batch 1 | product embed() | phase "
          "| phase / ceiling (wall, CPU) | load s | recall@10 kNN | recall@10 hybrid | product batching |")
    print("| --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | --- |")
    for label, load, per_batch, best, prod, ph, r_knn, r_hyb, one, _ in rows:
        c, c1 = per_batch[best], per_batch.get(1, (float("nan"), float("nan")))
        print(f"| {label} | {c[0]:.1f} / {c[1]:.1f} (batch {best}) | {c1[0]:.1f} / {c1[1]:.1f} "
              f"| {prod[0]:.1f} / {prod[1]:.1f} | {ph[0]:.1f} / {ph[1]:.1f} "
              f"| {ph[0] / c[0]:.2f}, {ph[1] / c[1]:.2f} | {load:.2f} | {r_knn:.2f} | {r_hyb:.2f} "
              f"| {'one text per run (batch-dependent int8)' if one else '16 per run, sorted by length'} |")
    for label, _, per_batch, _, _, _, _, _, _, agree in rows:
        print(f"{label} ceiling by batch size (wall texts/s): "
              + ", ".join(f"{b}: {v[0]:.1f}" for b, v in per_batch.items())
              + f"; bare model vs product vectors: min cosine {agree:.4f}")
    if "fp32" in vectors and "int8" in vectors:
        cos = np.sum(vectors["fp32"] * vectors["int8"], axis=1)
        print(f"\nint8 vs fp32 cosine per chunk: mean {float(np.mean(cos)):.4f}, min {float(np.min(cos)):.4f}, "
              f"median {statistics.median(cos.tolist()):.4f}")


if __name__ == "__main__":
    main()

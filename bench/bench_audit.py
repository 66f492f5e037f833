"""Benchmark: accuracy audit of the Python extractor on this machine's standard library.

Indexes the stdlib (graph only, no search chunks, no embeddings) into a private
CODEGRAPH_HOME with the embedded backends (incrementally: a second run re-parses
nothing unless the extractor changed), then
audits a seeded sample of callables against plain text search (``codegraph.audit``)
and prints precision / recall per language with the disagreements classified.

    .venv/bin/python bench/bench_audit.py [--sample 200] [--seed 1] [--home DIR] [--json FILE]

The stdlib folder is ``sysconfig.get_paths()['stdlib']``; its test folders (``test/``,
``idlelib/idle_test``, ``lib2to3/tests``...) are included, ``site-packages`` is not
(discovery skips it). Figures, not assertions: nothing here fails on a low number.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import sysconfig
import time
from collections import Counter
from pathlib import Path

DEFAULT_HOME = Path("/tmp/codegraph-bench-audit")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sample", type=int, default=200, help="callables to audit")
    ap.add_argument("--seed", type=int, default=1, help="random seed of the sample")
    ap.add_argument("--home", type=Path, default=DEFAULT_HOME, help="CODEGRAPH_HOME to use (kept for re-runs)")
    ap.add_argument("--repo", default="stdlib", help="repository name in the graph")
    ap.add_argument("--reindex", action="store_true", help="re-parse every file even if unchanged")
    ap.add_argument("--examples", type=int, default=3, help="disagreements printed per category")
    ap.add_argument("--no-tests", action="store_true", help="sample only callables outside test files")
    ap.add_argument("--json", type=Path, default=None, help="also write the full report as JSON here")
    args = ap.parse_args()

    # Private, embedded stores: never the services configured in .codegraph/services.env.
    os.environ.update({"CODEGRAPH_HOME": str(args.home), "CODEGRAPH_GRAPH": "embedded",
                       "CODEGRAPH_SEARCH": "embedded", "CODEGRAPH_EMBED_MODEL_PATH": "none"})
    from codegraph.audit import audit
    from codegraph.core.settings import load_settings
    from codegraph.core.stores import open_graph_store
    from codegraph.indexer.pipeline import index_repo
    from codegraph.indexer.state import StateStore

    settings = load_settings()
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    graph = open_graph_store(settings)
    print(f"python {sys.version.split()[0]}, stdlib {stdlib}, CODEGRAPH_HOME {args.home}")

    # Incremental: a home that already holds the stdlib costs one hash pass, unless the
    # extractor changed since (then it is a full rebuild, as for any repo).
    t = time.perf_counter()
    state = StateStore(settings.state_db)
    s = index_repo(stdlib, args.repo, graph, None, state, workers=settings.workers or 0,
                   max_file_bytes=settings.max_file_bytes, force=args.reindex)
    state.close()
    what = "indexed" if s.changed or s.removed else "already indexed, unchanged:"
    print(f"{what} {s.files} files ({s.changed} parsed, {s.parse_errors} with parse errors, {s.partial_files} "
          f"partial), {s.symbols} symbols, {s.edges} edges, {s.stubs} stubs in {time.perf_counter() - t:.1f} s")
    if s.resolutions:
        print("  resolution: " + ", ".join(f"{k} {v}" for k, v in sorted(s.resolutions.items(), key=lambda kv: -kv[1])))
    counts = graph.counts(args.repo)
    files = graph.nodes_by_label("File", args.repo, limit=1_000_000)
    tests = sum(1 for f in files if _in_test_folder(f.props.get("path", "")))
    print(f"graph: {counts['nodes'].get('File', 0)} files ({tests} under test folders: included), "
          f"{counts['nodes'].get('Symbol', 0)} symbols, {counts['edges'].get('CALLS', 0)} CALLS edges")

    t = time.perf_counter()
    rep = audit(graph, repo=args.repo, sample=args.sample, seed=args.seed, include_tests=not args.no_tests)
    wall = time.perf_counter() - t
    scope = "outside test files" if args.no_tests else "test files included"
    print(f"\naudit of {len(rep.callables)} sampled callables (seed {args.seed}, {scope}) in {wall:.1f} s")
    print("  steps: " + ", ".join(f"{s.name} {s.ms / 1000:.1f} s" for s in rep.steps))
    print("  files: " + ", ".join(f"{k} {v}" for k, v in sorted(rep.files.items())))
    for lang, fig in rep.languages.items():
        s = fig.summary()
        print(f"\n[{lang}] {s['callables']} callables; callers: text {s['expected']}, graph {s['actual']}, "
              f"both {s['matched']}")
        print(f"  raw (text as truth):  precision {_pct(s['raw_precision'])}, recall {_pct(s['raw_recall'])}")
        j = s["judged"]
        print(f"  judged (classified):  precision {_pct(s['precision'])}, recall {_pct(s['recall'])}  "
              f"(TP {j['true_positive']}, FP {j['false_positive']}, FN {j['false_negative']}, "
              f"flagged {j['flagged']})")
        print(f"  flagged ambiguous stubs: {_pct(s['flagged_share'])} of the judged callers; recall counting "
              f"them as misses {_pct(s['recall_flagged_as_missed'])}; weighted 1/candidates they are "
              f"{s['flagged_expected']} callers, recall {_pct(s['recall_flagged_expected'])}")
        print(f"  callables with no caller on either side: "
              f"{sum(1 for c in rep.callables if c.language == lang and not c.expected and not c.actual)}")
        print(f"  per callable (macro):  raw precision {_pct(s['macro_raw_precision'])}, raw recall "
              f"{_pct(s['macro_raw_recall'])}; judged precision {_pct(s['macro_precision'])}, recall "
              f"{_pct(s['macro_recall'])}")
    print("\ndisagreements by class (callers):")
    for k, v in rep.categories.items():
        print(f"  {v:6d}  {k}")
    examples: dict[str, list[str]] = {}
    for c in rep.callables:
        for d in c.missed + c.extra:
            key = f"{d.side}: {d.verdict}: {d.category}"
            lst = examples.setdefault(key, [])
            if len(lst) < args.examples:
                s0 = d.sites[0]
                lst.append(f"{c.target} <- {d.caller} at {s0.file}:{s0.line}: {s0.snippet[:90]}  [{d.detail[:80]}]")
    print("\nexamples:")
    for k in rep.categories:
        print(f"  {k}")
        for line in examples.get(k, []):
            print(f"    {line}")
    res = Counter()
    for c in rep.callables:
        res.update(c.resolutions)
    print("\nresolution of the graph's edges to audited callables: "
          + ", ".join(f"{k} {v}" for k, v in res.most_common()))
    print(f"\n{rep.notice}")
    if args.json:
        args.json.write_text(json.dumps(rep.to_dict(), indent=1, default=str))
        print(f"full report: {args.json}")
    graph.close()
    return 0


def _in_test_folder(path: str) -> bool:
    parts = path.split("/")[:-1]
    return any(p in ("test", "tests", "idle_test") for p in parts)


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


if __name__ == "__main__":
    raise SystemExit(main())

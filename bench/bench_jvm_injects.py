"""INJECTS on real Java/Kotlin code (docs/DESIGN.md#injection): how many injection points
a tree has and where their edges go, with a sample to check by hand.

    .venv/bin/python bench/bench_jvm_injects.py TREE [TREE ...] [--sample 15]

Each TREE (e.g. a Spring application fetched at bench time, never committed) is
extracted, linked and resolved in memory (``tests.helpers.resolve_tree``). Prints per
tree: JVM files, INJECTS references, edges by injection point (field, method,
constructor, provider_parameter) and by target (a provider method, a class/interface),
references left without an edge (a library type nothing in the tree provides), and a
sample of edges with file:line. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.helpers import _end, resolve_tree  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trees", nargs="+", type=Path)
    ap.add_argument("--sample", type=int, default=15, help="edges to print per tree")
    args = ap.parse_args()
    for tree in args.trees:
        fxs, res = resolve_tree(tree)
        jvm = [fx for fx in fxs if fx.file.language in ("java", "kotlin")]
        refs = [r for fx in jvm for r in fx.references if r.type == "INJECTS"]
        kinds = {s.uid: s.kind for fx in jvm for s in fx.symbols}
        edges = [e for es in res.edges.values() for e in es if e.type == "INJECTS"]
        linked = {(e.file, e.line) for e in edges}
        print(f"tree {tree}: {len(jvm)} Java/Kotlin files, {len(refs)} INJECTS references, "
              f"{sum(1 for fx in jvm for r in fx.framework if r.get('type') == 'provider')} provider methods")
        print("  edges by injection point: " + ", ".join(
            f"{k} {v}" for k, v in sorted(Counter(e.extra.get("inject", "?") for e in edges).items())))
        print("  edges by target: " + ", ".join(
            f"{k} {v}" for k, v in sorted(Counter(
                "provider method" if kinds.get(e.target) == "method" else kinds.get(e.target, "other")
                for e in edges).items())))
        print(f"  references without an edge: {sum(1 for r in refs if (r.file, r.line) not in linked)}"
              f" (stubs made: {sum(1 for e in edges if e.target.startswith('stub|'))})")
        for e in sorted(edges, key=lambda e: (e.file, e.line))[:args.sample]:
            print(f"    {e.file}:{e.line}  {_end(e.source)} -> {_end(e.target)}  ({e.extra.get('inject')})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

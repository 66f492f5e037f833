"""Scored call-graph corpus: precision and recall per category, edge by edge.

Each ``cases/*.txt`` file holds snippets of one language family (Python, JS/TS, Java/Kotlin:
a file's language is its extension); a snippet is

    ### <category>/<name>
    --- <path>            (one or more files, written to a fresh folder)
    <source>
    # expect
    CALLS a.main -> a.f   (hand-written ground truth, one edge a line; none = no edge)

Every snippet is indexed with the real pipeline (discover, extract, repo link pass,
resolve: ``tests.helpers.resolve_tree``) and its resolved edges of the scored types
(CALLS, REFERENCES, USES_TYPE, INJECTS; stubs are not edges) are compared with the
ground truth as (type, source qualified name, target qualified name). A found edge not
in the truth is a false positive, a true edge not found a false negative.

    .venv/bin/python bench/recall/score.py [--only CATEGORY] [--show] [--json FILE]

Prints per category: snippets, true edges, found, precision, recall; then the totals.
Figures, not assertions: nothing here fails on a low number.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

SCORED = ("CALLS", "REFERENCES", "USES_TYPE", "INJECTS")


@dataclass
class Case:
    category: str
    name: str
    files: dict[str, str] = field(default_factory=dict)
    expect: set[tuple[str, str, str]] = field(default_factory=set)


def parse(path: Path) -> list[Case]:
    """Snippets of one corpus file (format in the module docstring)."""
    cases: list[Case] = []
    cur: Case | None = None
    fname: str | None = None
    in_expect = False
    for raw in path.read_text().splitlines():
        if raw.startswith("### "):
            cat, _, name = raw[4:].strip().partition("/")
            cur = Case(cat, name)
            cases.append(cur)
            fname, in_expect = None, False
        elif cur is None:
            continue
        elif raw.startswith("--- "):
            fname = raw[4:].strip()
            cur.files[fname] = ""
        elif raw.strip() == "# expect":
            in_expect = True
        elif in_expect:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            typ, _, rest = line.partition(" ")
            src, _, tgt = rest.partition("->")
            cur.expect.add((typ, src.strip(), tgt.strip()))
        elif fname is not None:
            cur.files[fname] += raw + "\n"
    return cases


def found_edges(case: Case) -> set[tuple[str, str, str]]:
    from tests.helpers import _end, all_edges

    with tempfile.TemporaryDirectory(prefix="cg-recall-") as d:
        root = Path(d)
        for name, text in case.files.items():
            p = root / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        out = set()
        for e in all_edges(root):
            if e.type in SCORED and not e.target.startswith("stub|"):
                out.add((e.type, _end(e.source), _end(e.target)))
        return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default=None, help="score only this category")
    ap.add_argument("--show", action="store_true", help="print every missed and extra edge")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures as JSON here")
    args = ap.parse_args()
    cases = [c for p in sorted((HERE / "cases").glob("*.txt")) for c in parse(p)]
    if args.only:
        cases = [c for c in cases if c.category == args.only]
    per: dict[str, dict[str, int]] = defaultdict(lambda: {"snippets": 0, "true": 0, "found": 0, "tp": 0})
    for c in cases:
        got = found_edges(c)
        tp = got & c.expect
        row = per[c.category]
        row["snippets"] += 1
        row["true"] += len(c.expect)
        row["found"] += len(got)
        row["tp"] += len(tp)
        if args.show and got != c.expect:
            for e in sorted(c.expect - got):
                print(f"  MISS  {c.category}/{c.name}: {' '.join(e)}")
            for e in sorted(got - c.expect):
                print(f"  EXTRA {c.category}/{c.name}: {' '.join(e)}")
    tot = {"snippets": 0, "true": 0, "found": 0, "tp": 0}
    print(f"{'category':<22}{'snippets':>9}{'true':>6}{'found':>7}{'precision':>11}{'recall':>8}")
    for cat in sorted(per):
        row = per[cat]
        for k in tot:
            tot[k] += row[k]
        print(_line(cat, row))
    print(_line("TOTAL", tot))
    if args.json:
        args.json.write_text(json.dumps({"categories": per, "total": tot}, indent=1))
    return 0


def _line(name: str, row: dict[str, int]) -> str:
    prec = row["tp"] / row["found"] if row["found"] else 1.0
    rec = row["tp"] / row["true"] if row["true"] else 1.0
    return f"{name:<22}{row['snippets']:>9}{row['true']:>6}{row['found']:>7}{prec:>10.1%}{rec:>8.1%}"


if __name__ == "__main__":
    raise SystemExit(main())

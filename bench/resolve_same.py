"""Does a change keep resolution identical? Extract trees once (this checkout), then resolve
the same extraction with this checkout and with another revision and compare the edges
(docs/DESIGN.md#resolution).

    .venv/bin/python bench/resolve_same.py                       # this machine's stdlib vs main
    .venv/bin/python bench/resolve_same.py --base HEAD~2 --root /tmp/js --root /tmp/shop

Each tree is extracted with ``codegraph extract`` (this checkout) into JSONL; each side then
reads that JSONL, runs the repo-wide link pass and ``resolve_repo`` in its own interpreter
(the other revision unpacked with ``git archive``, run with ``PYTHONPATH``, as in
``bench/extract_same.py``). Compared per tree: the resolved edges as (kind, source, target,
resolution), the same with evidence file:line and ``extra``, the stubs, and the resolution
counts. Prints the figures and the first differences; exit status 1 when anything differs.

``--extract-each``: each side extracts with its own code too, so the comparison is end to
end (an extractor change shows in the edges; without it both sides resolve this
checkout's extraction and only the resolver differs).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from extract_same import code_env, unpack

# Run in each side's interpreter: read the JSONL, link, resolve, write one JSON line per
# edge / stub and a last line of counts and seconds.
CHILD = r"""
import json, sys, time
from pathlib import Path
import codegraph
from codegraph.indexer.records import read_jsonl
from codegraph.indexer.languages import link_repo
from codegraph.indexer.resolve import resolve_repo
src, root, out = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
with open(src, encoding="utf-8") as f:
    header, files, problems = read_jsonl(f)
t = time.perf_counter()
link_repo(files, root)
res = resolve_repo(header["repo"], files)
secs = time.perf_counter() - t
with open(out, "w", encoding="utf-8") as f:
    for es in res.edges.values():
        for e in es:
            f.write(json.dumps(["edge", e.type, e.source, e.target, e.resolution, e.file, e.line, e.extra],
                               sort_keys=True) + "\n")
    for st in res.stubs.values():
        f.write(json.dumps(["stub", st.uid, st.reason, st.candidate_count, st.candidates]) + "\n")
    f.write(json.dumps(["meta", dict(res.counts), len(problems), secs, codegraph.__file__]) + "\n")
"""


def extract(root: Path, out: Path, repo: str, excludes: list[str], pythonpath: Path | None = None) -> None:
    args = [sys.executable, "-m", "codegraph", "extract", str(root), "-o", str(out), "--repo", repo]
    for x in excludes:
        args += ["--exclude", x]
    env = code_env(pythonpath)
    subprocess.run(args, check=True, env=env, stdout=subprocess.DEVNULL, cwd=out.parent)


def resolve(pythonpath: Path | None, jsonl: Path, root: Path, out: Path) -> dict:
    env = code_env(pythonpath)
    subprocess.run([sys.executable, "-c", CHILD, str(jsonl), str(root), str(out)], check=True, env=env, cwd=out.parent)
    edges, full, stubs = set(), set(), set()
    meta: list = []
    with out.open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row[0] == "edge":
                edges.add(tuple(row[1:5]))
                full.add(line.strip())
            elif row[0] == "stub":
                stubs.add(line.strip())
            else:
                meta = row
    if pythonpath and not Path(meta[4]).is_relative_to(pythonpath):
        raise SystemExit(f"the base revision's code was not picked up (codegraph from {meta[4]})")
    return {"edges": edges, "full": full, "stubs": stubs, "counts": meta[1], "problems": meta[2], "secs": meta[3]}


def compare(name: str, base: dict, here: dict, show: int) -> int:
    differ = 0
    for key in ("edges", "full", "stubs"):
        b, h = base[key], here[key]
        only_b, only_h = b - h, h - b
        label = {"edges": "edges (kind, source, target, resolution)", "full": "edges with file:line and extra",
                 "stubs": "stubs"}[key]
        print(f"  {label:42} base {len(b):7}  here {len(h):7}  only in base {len(only_b):5}  only here {len(only_h):5}")
        for x in sorted(map(str, only_b))[:show]:
            print(f"    - {x[:300]}")
        for x in sorted(map(str, only_h))[:show]:
            print(f"    + {x[:300]}")
        differ += len(only_b) + len(only_h)
    if base["counts"] != here["counts"]:
        keys = sorted(set(base["counts"]) | set(here["counts"]))
        print("  counts differ: " + ", ".join(f"{k} {base['counts'].get(k, 0)} -> {here['counts'].get(k, 0)}"
                                              for k in keys if base["counts"].get(k) != here["counts"].get(k)))
        differ += 1
    else:
        print(f"  counts identical ({sum(v for k, v in here['counts'].items())} in {len(here['counts'])} labels)")
    print(f"  JSONL problems: base {base['problems']}, here {here['problems']}; "
          f"link+resolve seconds: base {base['secs']:.2f}, here {here['secs']:.2f}")
    differ += base["problems"] != here["problems"]
    return differ


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="main", help="revision to compare against (default: main)")
    ap.add_argument("--root", type=Path, action="append", default=None,
                    help="tree to extract and resolve (repeat; default: this interpreter's standard library)")
    ap.add_argument("--exclude", action="append", default=None,
                    help="glob to leave out (repeat; default: test/ idlelib/ site-packages/ tests/)")
    ap.add_argument("--show", type=int, default=5, help="differences to print per kind")
    ap.add_argument("--keep", type=Path, default=None,
                    help="copy each side's resolved edges (JSON lines: edge / stub / meta) into this folder")
    ap.add_argument("--extract-each", action="store_true",
                    help="each side extracts with its own code (end to end), not only this checkout's extraction")
    args = ap.parse_args()
    roots = [r.resolve() for r in args.root or [Path(sysconfig.get_paths()["stdlib"])]]
    excludes = args.exclude if args.exclude is not None else ["test/", "idlelib/", "site-packages/", "tests/"]
    differ = 0
    with tempfile.TemporaryDirectory(prefix="resolve-same-") as tmp:
        t = Path(tmp)
        base_src = unpack(args.base, t)
        for i, root in enumerate(roots):
            jsonl = t / f"tree{i}.jsonl"
            t0 = time.perf_counter()
            extract(root, jsonl, f"same{i}", excludes)
            print(f"tree {root} (excluded: {', '.join(excludes) or 'nothing'}; extracted in "
                  f"{time.perf_counter() - t0:.1f} s)")
            base_jsonl = jsonl
            if args.extract_each:
                base_jsonl = t / f"tree{i}.base.jsonl"
                extract(root, base_jsonl, f"same{i}", excludes, base_src)
                print("  base extracted with its own code (--extract-each)")
            base = resolve(base_src, base_jsonl, root, t / f"base{i}.jsonl")
            here = resolve(None, jsonl, root, t / f"here{i}.jsonl")
            if args.keep is not None:
                args.keep.mkdir(parents=True, exist_ok=True)
                for side in ("base", "here"):
                    shutil.copy(t / f"{side}{i}.jsonl", args.keep / f"{side}{i}.jsonl")
            differ += compare(str(root), base, here, args.show)
    print("identical" if not differ else f"{differ} difference(s)")
    return 0 if not differ else 1


if __name__ == "__main__":
    raise SystemExit(main())

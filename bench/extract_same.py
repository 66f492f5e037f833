"""Does a change keep extraction identical? Extract the same tree with this checkout and
with another revision, and compare the JSONL records (docs/extraction-format.md).

    .venv/bin/python bench/extract_same.py                    # this machine's stdlib vs main
    .venv/bin/python bench/extract_same.py --base HEAD~3 --root ~/src/shop --exclude 'test/'

The other revision is unpacked with ``git archive`` into a temporary folder and run with
``PYTHONPATH`` pointing at it (nothing in the checkout changes). Records are compared
as sets of canonical JSON lines per record type; the header (creation time, extractor
version) and the closing ``end`` record are left out. Prints counts per type, the
number only in the base / only here, and the first differences; exit status 1 when
anything differs. Both runs use the same interpreter and installed packages.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP_TYPES = {"header", "end"}


def unpack(rev: str, dest: Path) -> Path:
    """The ``codegraph`` package of ``rev`` under ``dest`` (git archive, read-only)."""
    archive = dest / "rev.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", "-o", str(archive), rev, "codegraph"],
                   check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(dest / "src", filter="data")
    return dest / "src"


def extract(pythonpath: Path | None, root: Path, out: Path, excludes: list[str], repo: str) -> float:
    """Run ``codegraph extract`` with the code at ``pythonpath`` (None: this checkout);
    returns the wall-clock seconds."""
    code = pythonpath or ROOT
    args = [sys.executable, "-m", "codegraph", "extract", str(root), "-o", str(out), "--repo", repo]
    for x in excludes:
        args += ["--exclude", x]
    full_env = code_env(pythonpath)
    # Run from the output's folder: the working directory comes first on sys.path.
    where = subprocess.run([sys.executable, "-c", "import codegraph; print(codegraph.__file__)"], check=True,
                           env=full_env, capture_output=True, text=True, cwd=out.parent).stdout.strip()
    if not Path(where).is_relative_to(code):
        raise SystemExit(f"the code of {code} was not picked up (codegraph from {where})")
    t = time.perf_counter()
    subprocess.run(args, check=True, env=full_env, stdout=subprocess.DEVNULL, cwd=out.parent)
    return time.perf_counter() - t


def _base_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def code_env(pythonpath: Path | None) -> dict[str, str]:
    """The environment that runs the code at ``pythonpath`` (None: this checkout) first on
    ``PYTHONPATH``: the venv's editable install may point at another checkout."""
    return _base_env() | {"PYTHONPATH": str(pythonpath or ROOT)}


def records(path: Path) -> dict[str, set[str]]:
    """record type -> canonical JSON lines (sorted keys)."""
    out: dict[str, set[str]] = {}
    with path.open(encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            kind = rec.get("type", "?")
            if kind not in SKIP_TYPES:
                out.setdefault(kind, set()).add(json.dumps(rec, sort_keys=True, ensure_ascii=False))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="main", help="revision to compare against (default: main)")
    ap.add_argument("--root", type=Path, default=Path(sysconfig.get_paths()["stdlib"]),
                    help="tree to extract (default: this interpreter's standard library)")
    ap.add_argument("--exclude", action="append", default=None,
                    help="glob to leave out (repeat; default for the stdlib: test/ idlelib/ site-packages/)")
    ap.add_argument("--show", type=int, default=5, help="differences to print per type")
    args = ap.parse_args()
    excludes = args.exclude if args.exclude is not None else ["test/", "idlelib/", "site-packages/", "tests/"]
    with tempfile.TemporaryDirectory(prefix="extract-same-") as tmp:
        t = Path(tmp)
        base_src = unpack(args.base, t)
        base_s = extract(base_src, args.root, t / "base.jsonl", excludes, "same")
        here_s = extract(None, args.root, t / "here.jsonl", excludes, "same")
        base, here = records(t / "base.jsonl"), records(t / "here.jsonl")
    print(f"tree {args.root} (excluded: {', '.join(excludes) or 'nothing'})")
    print(f"extract seconds: base {base_s:.1f}, here {here_s:.1f}")
    differ = 0
    counts: Counter[str] = Counter()
    for kind in sorted(set(base) | set(here)):
        b, h = base.get(kind, set()), here.get(kind, set())
        only_b, only_h = b - h, h - b
        counts[kind] = len(h)
        print(f"{kind:14} base {len(b):8}  here {len(h):8}  only in base {len(only_b):6}  only here {len(only_h):6}")
        for line in sorted(only_b)[:args.show]:
            print(f"  - {line[:300]}")
        for line in sorted(only_h)[:args.show]:
            print(f"  + {line[:300]}")
        differ += len(only_b) + len(only_h)
    print("identical" if not differ else f"{differ} record(s) differ")
    return 0 if not differ else 1


if __name__ == "__main__":
    raise SystemExit(main())

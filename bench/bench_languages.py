"""Extractor throughput and resolution quality per language, on real code.

Runs every ``bench/sources/<language>.sh`` (each fetches real code from a package
registry into a cache folder and prints that folder), extracts every file of that
language in THIS process (so the rates are per core), resolves the lot as one repo and
prints one row per language:

    files, MB, parse+extract MB/s and files/s per core (CPU time of this process),
    symbols, references,
    resolved edges and the share that ends in a stub, calls resolved to a symbol vs to a
    stub (share of CALLS edges), parse-error ratio (files with an ERROR/MISSING node).

Usage: ``.venv/bin/python bench/bench_languages.py [language ...]`` (default: every
script). ``CODEGRAPH_BENCH_CACHE`` moves the cache (default /tmp/codegraph-bench);
``--max-mb N`` stops reading a language's files after N MB. Exit code 0 even when a
language has no extractor yet (its row says so).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from codegraph.indexer.extract import extract_source  # noqa: E402
from codegraph.indexer.languages import extractor_for, language_for, link_repo  # noqa: E402
from codegraph.indexer.records import FileExtraction  # noqa: E402
from codegraph.indexer.resolve import resolve_repo  # noqa: E402

SOURCES = Path(__file__).resolve().parent / "sources"


@dataclass
class Row:
    language: str
    files: int = 0
    bytes: int = 0
    seconds: float = 0.0
    symbols: int = 0
    references: int = 0
    calls_to_symbol: int = 0
    calls_to_stub: int = 0
    error_files: int = 0
    edges: int = 0
    edges_to_stub: int = 0
    note: str = ""


def fetch(script: Path) -> Path | None:
    """Run a sources script; its last stdout line is the folder."""
    try:
        out = subprocess.run(["bash", str(script)], check=True, capture_output=True, text=True, timeout=1800)
    except (subprocess.SubprocessError, OSError) as e:
        print(f"{script.name}: fetch failed: {e}", file=sys.stderr)
        return None
    lines = [ln for ln in out.stdout.splitlines() if ln.strip()]
    return Path(lines[-1].strip()) if lines else None


def files_of(root: Path, language: str, max_bytes: int) -> list[tuple[str, bytes]]:
    out: list[tuple[str, bytes]] = []
    total = 0
    for d, dirs, names in os.walk(root, followlinks=True):
        dirs.sort()
        for n in sorted(names):
            rel = os.path.relpath(os.path.join(d, n), root).replace(os.sep, "/")
            # A C++ tree's headers are .h files, which map to "c" by extension.
            if language_for(rel) not in ({"cpp", "c"} if language == "cpp" else {language}):
                continue
            try:
                data = Path(d, n).read_bytes()
            except OSError:
                continue
            out.append((rel, data))
            total += len(data)
            if total >= max_bytes:
                return out
    return out


def bench(language: str, root: Path, max_bytes: int) -> Row:
    row = Row(language)
    if extractor_for(language) is None:
        row.note = "no extractor yet"
        return row
    files = files_of(root, language, max_bytes)
    fxs: list[FileExtraction] = []
    # CPU time of this process: a per-core rate that other load on the machine does not skew.
    t = time.process_time()
    for rel, data in files:
        fxs.append(extract_source(language, rel, language_for(rel) or language, data))
    row.seconds = time.process_time() - t
    row.files = len(files)
    row.bytes = sum(len(d) for _, d in files)
    row.symbols = sum(len(fx.symbols) for fx in fxs)
    row.references = sum(len(fx.references) for fx in fxs)
    row.error_files = sum(1 for fx in fxs if fx.file.had_error)
    link_repo(fxs, root)
    res = resolve_repo(language, fxs)
    for edges in res.edges.values():
        for e in edges:
            row.edges += 1
            row.edges_to_stub += e.target.startswith("stub|")
            if e.type == "CALLS":
                if e.target.startswith("sym|"):
                    row.calls_to_symbol += 1
                elif e.target.startswith("stub|"):
                    row.calls_to_stub += 1
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("languages", nargs="*", help="languages to run (default: every bench/sources/*.sh)")
    ap.add_argument("--max-mb", type=float, default=50.0, help="per-language cap on source read (MB)")
    args = ap.parse_args()
    scripts = sorted(SOURCES.glob("*.sh"))
    if args.languages:
        scripts = [s for s in scripts if s.stem in args.languages]
    rows: list[Row] = []
    for s in scripts:
        root = fetch(s)
        if root is None or not root.is_dir():
            rows.append(Row(s.stem, note="fetch failed"))
            continue
        rows.append(bench(s.stem, root, int(args.max_mb * 1e6)))
    hdr = (f"{'language':<11}{'files':>7}{'MB':>8}{'MB/s':>7}{'files/s':>9}{'symbols':>9}{'refs':>9}"
           f"{'edges':>8}{'stub%':>7}{'calls->sym':>11}{'calls->stub':>12}{'resolved':>9}{'parse-err':>10}")
    print(hdr)
    for r in rows:
        if r.note:
            print(f"{r.language:<11}{r.note}")
            continue
        mb = r.bytes / 1e6
        calls = r.calls_to_symbol + r.calls_to_stub
        print(f"{r.language:<11}{r.files:>7}{mb:>8.2f}{mb / max(r.seconds, 1e-9):>7.2f}"
              f"{r.files / max(r.seconds, 1e-9):>9.0f}{r.symbols:>9}{r.references:>9}"
              f"{r.edges:>8}{r.edges_to_stub / max(r.edges, 1):>7.1%}"
              f"{r.calls_to_symbol:>11}{r.calls_to_stub:>12}{r.calls_to_symbol / max(calls, 1):>9.1%}"
              f"{r.error_files / max(r.files, 1):>10.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

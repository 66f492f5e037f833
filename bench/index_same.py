"""Does a change to the index pipeline keep the stores identical? Index a tree with this
checkout and with another revision, each a whole ``codegraph index --no-embed`` into its
own embedded CODEGRAPH_HOME, and compare what the stores hold (docs/DESIGN.md#backends).

    .venv/bin/python bench/index_same.py                     # this machine's stdlib vs main
    .venv/bin/python bench/index_same.py --base HEAD~1 --root /tmp/django/django

Compared: the graph's nodes (uid, label, key columns, props without the run's clock
fields) and edges (type, source, target, evidence file:line, resolution, extra); the search
index's chunk rows (every column, the BM25 term fields included) and, for a fixed list of
queries, the BM25 top 20 with their scores; FTS5's own ``integrity-check`` of each field
index; the indexer state's rows (extractions, resolution keys and counts, stats, the
snapshot's names; blobs decoded; the dependency index as its (key, path) pairs, whichever
layout stored it: rows of layout 2, shards of layout 3). The other revision runs from ``git archive`` with ``PYTHONPATH`` (as in
``bench/extract_same.py``). Prints counts, the first differences and ``identical`` or the
number of differences; exit status 1 when anything differs.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import sysconfig
import tempfile
import time
import zlib
from pathlib import Path

from extract_same import code_env, unpack

HERE = Path(__file__).resolve().parents[1]  # this checkout
DEFAULT_EXCLUDES = ["test/", "tests/", "idle_test/"]  # what `make demo` leaves out of the stdlib
CLOCK_PROPS = ("last_imported_at", "last_checked_at", "taken_at", "updated_at", "indexed_at")
QUERIES = [
    "parse a configuration file", "json loads", "HTTPServer", "open a socket connection", "read_csv",
    "thread pool executor submit", "compress data with zlib", "email message headers", "ArgumentParser add_argument",
    "decode base64", "tarfile extract members", "regular expression compile", "logging handler format",
    "asyncio event loop run", "datetime timezone", "sqlite3 connect cursor", "urlparse", "pickle dumps protocol",
    "os.path.join", "subprocess Popen communicate",
]


def index(pythonpath: Path | None, root: Path, home: Path, repo: str, excludes: list[str]) -> float:
    """Run ``codegraph index`` with the code at ``pythonpath`` (None: this checkout) into
    ``home``; returns the wall seconds. The code is put first on ``PYTHONPATH`` either way:
    the venv's own ``codegraph`` may be another checkout's (an editable install of the main
    tree, when this one is a worktree)."""
    env = code_env(pythonpath) | {"CODEGRAPH_HOME": str(home), "CODEGRAPH_GRAPH": "embedded",
                                  "CODEGRAPH_SEARCH": "embedded", "CODEGRAPH_EMBED_MODEL_PATH": "none"}
    code = pythonpath or HERE
    where = subprocess.run([sys.executable, "-c", "import codegraph; print(codegraph.__file__)"], check=True,
                           env=env, capture_output=True, text=True, cwd=home.parent).stdout.strip()
    if not Path(where).is_relative_to(code):
        raise SystemExit(f"the code of {code} was not picked up (codegraph from {where})")
    args = [sys.executable, "-m", "codegraph", "index", str(root), "--repo", repo, "--no-embed"]
    for x in excludes:
        args += ["-x", x]
    t = time.perf_counter()
    subprocess.run(args, check=True, env=env, stdout=subprocess.DEVNULL, cwd=home.parent)
    return time.perf_counter() - t


def dump(home: Path) -> dict[str, set[str] | list[str]]:
    """What the two embedded stores of ``home`` hold, as canonical JSON lines."""
    out: dict[str, set[str] | list[str]] = {}
    g = sqlite3.connect(home / "graph.db")
    nodes = set()
    for uid, label, repo, name, qn, path, props in g.execute(
            "SELECT uid, label, repo, name, qualified_name, path, props FROM nodes"):
        p = {k: v for k, v in json.loads(props).items() if k not in CLOCK_PROPS}
        if label == "CountSnapshot":  # its uid ends with the time it was taken
            uid = uid.rsplit("|", 1)[0]
        nodes.add(json.dumps([uid, label, repo, name, qn, path, p], sort_keys=True, ensure_ascii=False))
    out["graph nodes"] = nodes
    out["graph edges"] = {json.dumps([*row[:7], json.loads(row[7])], sort_keys=True, ensure_ascii=False) for row in
                          g.execute("SELECT type, source, target, repo, file, line, resolution, extra FROM edges")}
    g.close()
    s = sqlite3.connect(home / "search.db")
    cols = [r[1] for r in s.execute("PRAGMA table_info(chunks)")]
    out["search chunk rows"] = {json.dumps(dict(zip(cols, row, strict=True)), sort_keys=True, ensure_ascii=False)
                                for row in s.execute(f"SELECT {', '.join(cols)} FROM chunks")}
    sys.path.insert(0, str(HERE))
    from codegraph.core.embedded_search import EmbeddedSearchIndex

    idx = EmbeddedSearchIndex(home / "search.db")
    out["BM25 top 20 (id, score)"] = [json.dumps([q, idx.bm25(q, 20)]) for q in QUERIES]
    checks = []
    for table in ("fts_name", "fts_qn", "fts_ident", "fts_text"):
        try:
            s.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)")
            checks.append(f"{table} ok")
        except sqlite3.DatabaseError as e:
            checks.append(f"{table}: {e}")
    out["FTS5 integrity-check"] = checks
    idx.close()
    s.close()
    out.update(dump_state(home))
    return out


def dump_state(home: Path) -> dict[str, set[str]]:
    """The indexer state's rows (``codegraph.indexer.state``), blobs decoded with this
    checkout's readers, the run's clock columns left out."""
    from codegraph.indexer.state import _plain, decode, decode_blob, decode_references

    def j(v: object) -> str:
        return json.dumps(v, sort_keys=True, ensure_ascii=False, default=repr)

    st = sqlite3.connect(home / "state.db")
    out: dict[str, set[str]] = {}
    out["state file_state"] = {j([r, p, c, e, _plain(decode(b))]) for r, p, c, e, b in st.execute(
        "SELECT repo, path, content_hash, edges_hash, extraction FROM file_state")}
    out["state file_refs"] = {j([r, p, _plain(decode_references(b))]) for r, p, b in st.execute(
        "SELECT repo, path, refs FROM file_refs")}
    out["state resolve_deps"] = _dependency_pairs(st)
    out["state resolve_files"] = {j([r, p, json.loads(c), _file_keys(d)]) for r, p, c, d in st.execute(
        "SELECT repo, path, counts, deps FROM resolve_files")}
    out["state resolve_repo"] = {j([r, decode_blob(b)]) for r, b in st.execute("SELECT repo, blob FROM resolve_repo")}
    # The layout number (repo_format) is left out: a layout change differs there by construction.
    out["state repo rows"] = {j(list(row)) for row in st.execute(
        "SELECT repo, root, extractor_version, fingerprint, commit_sha FROM repo_state")} | \
        {j(["format row", r]) for (r,) in st.execute("SELECT repo FROM repo_format")}
    out["state file_stat"] = {j(list(row)) for row in st.execute(
        "SELECT repo, path, size, mtime_ns, ctime_ns, ino FROM file_stat")}
    out["state snapshot names"] = {j([r, sorted(set(zlib.decompress(b).decode().split("\n")) - {""})])
                                   for r, b in st.execute("SELECT repo, symbols FROM snapshot_symbols")}
    st.close()
    return out


def _dependency_pairs(st: sqlite3.Connection) -> set[str]:
    """The dependency index as (repo, key, path) lines, whichever layout wrote it: one row per
    pair (layout 2, table resolve_deps) or shards of key -> paths (layout 3, resolve_index,
    codegraph.indexer.state_deps). A key stored in a shard its hash does not name is listed
    as misplaced (a look-up would miss it), a pair stored twice as repeated."""
    from codegraph.indexer.state_deps import decode_shard, shard_of

    tables = {r[0] for r in st.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "resolve_index" not in tables:
        return {json.dumps(list(row), ensure_ascii=False) for row in st.execute(
            "SELECT repo, key, path FROM resolve_deps")}
    shards = dict(st.execute("SELECT repo, shards FROM resolve_shards"))
    out: set[str] = set()
    for repo, shard, blob in st.execute("SELECT repo, shard, keys FROM resolve_index"):
        for key, paths in decode_shard(blob).items():
            if shard_of(key, shards[repo]) != shard:
                out.add(json.dumps(["misplaced", repo, shard, key], ensure_ascii=False))
            if len(set(paths)) != len(paths):
                out.add(json.dumps(["repeated", repo, key, sorted(paths)], ensure_ascii=False))
            out.update(json.dumps([repo, key, p], ensure_ascii=False) for p in paths)
    return out


def _file_keys(blob: bytes) -> str:
    """A file's dependency keys, sorted and joined by U+001E, from either layout's form:
    zlib of the sorted texts joined (layout 2) or a marshal of the texts (layout 3)."""
    if blob[:1] == b"\x78":  # a zlib stream; a marshal list starts with "[" or its ref flag
        return zlib.decompress(blob).decode()
    from codegraph.indexer.state_deps import decode_keys

    return "\x1e".join(sorted(set(decode_keys(blob))))


def compare(base: dict, here: dict, show: int) -> int:
    differ = 0
    for key, b in base.items():
        h = here[key]
        if isinstance(b, list):  # ordered results
            diffs = [(x, y) for x, y in zip(b, h, strict=True) if x != y]
            print(f"  {key:28} {len(b):7} entries, {len(diffs)} differ")
            for x, y in diffs[:show]:
                print(f"    - {x[:300]}\n    + {y[:300]}")
            differ += len(diffs)
            continue
        only_b, only_h = b - h, h - b
        print(f"  {key:28} base {len(b):7}  here {len(h):7}  only in base {len(only_b):5}  only here {len(only_h):5}")
        for x in sorted(only_b)[:show]:
            print(f"    - {x[:300]}")
        for x in sorted(only_h)[:show]:
            print(f"    + {x[:300]}")
        differ += len(only_b) + len(only_h)
    return differ


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="main", help="revision to compare against (default: main)")
    ap.add_argument("--root", type=Path, default=Path(sysconfig.get_paths()["stdlib"]),
                    help="tree to index (default: this interpreter's standard library)")
    ap.add_argument("--exclude", action="append", default=None,
                    help=f"glob to leave out (repeat; default: {' '.join(DEFAULT_EXCLUDES)})")
    ap.add_argument("--show", type=int, default=5, help="differences to print per kind")
    args = ap.parse_args()
    excludes = args.exclude if args.exclude is not None else DEFAULT_EXCLUDES
    root = args.root.resolve()
    with tempfile.TemporaryDirectory(prefix="index-same-") as tmp:
        t = Path(tmp)
        base_src = unpack(args.base, t)
        (t / "base").mkdir()
        (t / "here").mkdir()
        base_s = index(base_src, root, t / "base", "same", excludes)
        here_s = index(None, root, t / "here", "same", excludes)
        print(f"tree {root} (excluded: {', '.join(excludes) or 'nothing'}); index wall s: base {args.base} "
              f"{base_s:.1f}, here {here_s:.1f}")
        differ = compare(dump(t / "base"), dump(t / "here"), args.show)
    print("identical" if not differ else f"{differ} difference(s)")
    return 0 if not differ else 1


if __name__ == "__main__":
    raise SystemExit(main())

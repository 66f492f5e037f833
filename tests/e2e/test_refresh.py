"""Incremental refresh equals a full re-index (docs/DESIGN.md#refresh): edit, rename, move and delete
files of real code across runs; a killed load is repaired by the next run; queries run
while a refresh writes; extract/load with malformed lines; registry; baselines."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

import pytest

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.embedded_search import EmbeddedSearchIndex
from codegraph.core.impact import impact
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore

STDLIB = Path(sysconfig.get_paths()["stdlib"])
CLI = [sys.executable, "-m", "codegraph"]
VOLATILE = {"last_imported_at", "last_checked_at", "taken_at", "path"}


def dump(graph: EmbeddedGraphStore, repo: str) -> tuple[set, set]:
    c = graph._conn()
    nodes = set()
    for uid, label, props in c.execute("SELECT uid,label,props FROM nodes WHERE repo=? AND label != 'CountSnapshot'",
                                       (repo,)):
        p = {k: v for k, v in json.loads(props).items() if k not in VOLATILE}
        nodes.add((uid, label, json.dumps(p, sort_keys=True)))
    edges = set(c.execute("SELECT type,source,target,file,line,resolution,extra FROM edges WHERE repo=?", (repo,)))
    return nodes, edges


def full_index(root: Path, tmp: Path) -> tuple[set, set]:
    g = EmbeddedGraphStore(tmp / "full.db")
    st = StateStore(tmp / "full-state.db")
    index_repo(root, "r", g, None, st, workers=1)
    out = dump(g, "r")
    st.close()
    g.close()
    shutil.rmtree(tmp, ignore_errors=True)
    return out


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    shutil.copytree(STDLIB / "email", root / "email", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(STDLIB / "textwrap.py", root / "textwrap.py")
    return root


def test_incremental_equals_full_reindex_across_edits(tree: Path, tmp_path: Path) -> None:
    graph = EmbeddedGraphStore(tmp_path / "inc.db")
    state = StateStore(tmp_path / "inc-state.db")
    run = lambda: index_repo(tree, "r", graph, None, state, workers=1)  # noqa: E731
    run()
    assert dump(graph, "r") == full_index(tree, tmp_path / "f0")
    # edit a body, delete a file, rename a file, move a module into a package, add a file
    wrap = tree / "textwrap.py"
    wrap.write_text(wrap.read_text().replace("def dedent(text):", "def dedent(text, extra=None):"))
    (tree / "email" / "quoprimime.py").unlink()
    (tree / "email" / "base64mime.py").rename(tree / "email" / "b64mime.py")
    (tree / "email" / "charset.py").rename(tree / "charset_moved.py")
    (tree / "newmod.py").write_text("from textwrap import dedent\n\ndef use():\n    return dedent('x')\n")
    s = run()
    assert s.changed == 4 and s.removed == 3  # edited + renamed + moved + new; deleted + 2 old names
    assert dump(graph, "r") == full_index(tree, tmp_path / "f1")
    assert graph.verify("r") == {"orphan_files": 0, "orphan_symbols": 0, "dangling_edges": 0}
    # and back again: the stubs created by the removals resolve once the files return
    (tree / "charset_moved.py").rename(tree / "email" / "charset.py")
    s = run()
    assert dump(graph, "r") == full_index(tree, tmp_path / "f2")
    state.close()


def test_killed_load_is_repaired_by_next_run(tree: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "CODEGRAPH_HOME": str(home), "CODEGRAPH_EMBED_MODEL_PATH": "none"}
    shutil.copytree(STDLIB / "json", tree / "json", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(STDLIB / "http", tree / "http", ignore=shutil.ignore_patterns("__pycache__"))
    proc = subprocess.Popen([*CLI, "index", str(tree), "--repo", "r", "--no-embed", "--workers", "1"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline and not (home / "graph.db").exists():
        time.sleep(0.05)
    time.sleep(0.8)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    out = subprocess.run([*CLI, "index", str(tree), "--repo", "r", "--no-embed", "--json"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    g = EmbeddedGraphStore(home / "graph.db")
    assert dump(g, "r") == full_index(tree, tmp_path / "f")
    assert g.verify("r") == {"orphan_files": 0, "orphan_symbols": 0, "dangling_edges": 0}


def test_queries_answer_while_a_refresh_writes(tree: Path, tmp_path: Path) -> None:
    graph = EmbeddedGraphStore(tmp_path / "g.db")
    state = StateStore(tmp_path / "s.db")
    index_repo(tree, "r", graph, None, state, workers=1)
    before = impact(graph, "textwrap.dedent", depth=3).total_callers
    for p in (tree / "email").glob("*.py"):
        p.write_text(p.read_text() + "\n# touched\n")
    errors: list[BaseException] = []
    answers: list[int] = []

    def reader() -> None:
        reader_graph = EmbeddedGraphStore(tmp_path / "g.db")
        try:
            while not done.is_set():
                answers.append(impact(reader_graph, "textwrap.dedent", depth=3).total_callers)
        except BaseException as e:  # noqa: BLE001 - surfaced below
            errors.append(e)

    done = threading.Event()
    t = threading.Thread(target=reader)
    t.start()
    try:
        s = index_repo(tree, "r", graph, None, state, workers=1)
    finally:
        done.set()
        t.join()
    assert not errors and answers and s.changed > 10
    assert impact(graph, "textwrap.dedent", depth=3).total_callers == before
    state.close()


def test_extract_then_load_reports_malformed_lines(tree: Path, tmp_path: Path) -> None:
    env = {**os.environ, "CODEGRAPH_HOME": str(tmp_path / "home"), "CODEGRAPH_EMBED_MODEL_PATH": "none"}
    out_file = tmp_path / "x.jsonl"
    r = subprocess.run([*CLI, "extract", str(tree), "--repo", "r", "-o", str(out_file)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = out_file.read_text().splitlines()
    assert json.loads(lines[0])["type"] == "header"
    lines.insert(5, "{not json")
    lines.insert(9, json.dumps({"type": "symbol", "file": "nowhere.py"}))
    out_file.write_text("\n".join(lines) + "\n")
    r = subprocess.run([*CLI, "load", str(out_file), "--json"], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["skipped_records"]["malformed_lines"] == 2
    assert {p["line"] for p in res["skipped_records"]["first"]} == {6, 10}
    g = EmbeddedGraphStore(tmp_path / "home" / "graph.db")
    direct = EmbeddedGraphStore(tmp_path / "d.db")
    st = StateStore(tmp_path / "ds.db")
    index_repo(tree, "r", direct, None, st, workers=1)
    assert dump(g, "r")[1] == dump(direct, "r")[1]  # same edges as indexing directly
    assert "Traceback" not in r.stderr


def test_registry_refresh_and_baseline_flags_a_drop(tree: Path, tmp_path: Path) -> None:
    env = {**os.environ, "CODEGRAPH_HOME": str(tmp_path / "home"), "CODEGRAPH_EMBED_MODEL_PATH": "none"}
    cfg = tmp_path / "codegraph.toml"
    cfg.write_text(f'[[repos]]\nname = "mail"\npath = "{tree}"\nexclude = ["textwrap.py"]\n')
    r = subprocess.run([*CLI, "refresh", "--config", str(cfg), "--no-embed", "--json"], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res[0]["ok"] and res[0]["summary"]["files"] == len(list((tree / "email").rglob("*.py")))
    # A new registry entry is picked up without other changes.
    other = tmp_path / "other"
    other.mkdir()
    (other / "m.py").write_text("def only():\n    pass\n")
    cfg.write_text(cfg.read_text() + f'\n[[repos]]\nname = "other"\npath = "{other}"\n')
    res = json.loads(subprocess.run([*CLI, "refresh", "--config", str(cfg), "--no-embed", "--json"], env=env,
                                    capture_output=True, text=True, timeout=300).stdout)
    assert [(x["repo"], x["summary"]["changed"]) for x in res] == [("mail", 0), ("other", 1)]
    # Deleting half the package drops the symbol count: baseline flags it and names what vanished.
    for p in sorted((tree / "email").glob("_[a-z]*.py")):
        p.unlink()
    subprocess.run([*CLI, "refresh", "--config", str(cfg), "--repo", "mail", "--no-embed"], env=env,
                   capture_output=True, text=True, timeout=300)
    r = subprocess.run([*CLI, "baseline", "--repo", "mail", "--threshold", "5", "--json"], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    rep = json.loads(r.stdout)[0]
    drops = {d["key"]: d for d in rep["drops"]}
    assert "symbols" in drops and drops["symbols"]["current"] < drops["symbols"]["baseline"]
    gone = drops["symbols"]["disappeared"]
    assert gone and all(q.startswith("email._") for q in gone)  # only the deleted private modules
    # A broken config is one readable line.
    cfg.write_text("[[repos]\nname=")
    r = subprocess.run([*CLI, "refresh", "--config", str(cfg)], env=env, capture_output=True, text=True)
    # The whole message is one line, full path included, however long the temp path is.
    lines = r.stderr.splitlines()
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert lines == [f"error: {cfg}: not valid TOML: Expected ']]' at the end of an array declaration "
                     "(at line 1, column 8)"], r.stderr


def test_search_chunks_follow_the_files(tree: Path, tmp_path: Path) -> None:
    graph = EmbeddedGraphStore(tmp_path / "g.db")
    search = EmbeddedSearchIndex(tmp_path / "s.db")
    state = StateStore(tmp_path / "st.db")
    index_repo(tree, "r", graph, search, state, workers=1)
    assert "textwrap.py" in search.chunk_ids_by_file("r")
    (tree / "textwrap.py").unlink()
    index_repo(tree, "r", graph, search, state, workers=1)
    assert "textwrap.py" not in search.chunk_ids_by_file("r")
    assert search.bm25("dedent", 5, "r") == [] or all(
        "textwrap" not in cid for cid, _ in search.bm25("dedent", 5, "r"))
    state.close()


def test_editing_one_function_keeps_the_other_vectors(tmp_path: Path) -> None:
    import numpy as np

    root = tmp_path / "src"
    root.mkdir()
    (root / "m.py").write_text("def alpha():\n    return 1\n\n\ndef beta():\n    return 2\n")
    graph = EmbeddedGraphStore(tmp_path / "g.db")
    search = EmbeddedSearchIndex(tmp_path / "s.db")
    state = StateStore(tmp_path / "st.db")
    index_repo(root, "r", graph, search, state, workers=1)
    ids = search.chunk_ids_by_file("r")["m.py"]
    search.set_vectors({cid: np.ones(384, dtype=np.float32) for cid in ids})
    (root / "m.py").write_text("def alpha():\n    return 1\n\n\ndef beta():\n    return 3\n\n\ndef gamma():\n    pass\n")
    index_repo(root, "r", graph, search, state, workers=1)
    missing = {c.qualified_name for c in search.chunks_missing_vectors("r")}
    assert "m.alpha" not in missing and {"m.beta", "m.gamma"} <= missing
    (root / "m.py").write_text("def alpha():\n    return 1\n")
    index_repo(root, "r", graph, search, state, workers=1)
    assert {c.qualified_name for c in search.get_chunks(search.chunk_ids_by_file("r")["m.py"]).values()
            if c.qualified_name} == {"m.alpha"}
    state.close()

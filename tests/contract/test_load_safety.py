"""Transactional, contained loads on both backends (docs/hardening.md, "Transactional
loads" and "Containment"): a truncated or partly invalid JSONL never deletes what it did
not describe, mass deletions need --yes, and paths leaving the repo root are counted
skips with their line numbers."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codegraph.core.embedded_search import EmbeddedSearchIndex
from codegraph.core.graph_store import GraphStore
from codegraph.indexer.load import DeletionRefused, TruncatedRun, load_run
from codegraph.indexer.pipeline import extract_tree, file_hash
from codegraph.indexer.records import read_jsonl_run, write_jsonl
from codegraph.indexer.state import StateStore

CLI = [sys.executable, "-m", "codegraph"]


def make_tree(root: Path, n: int = 10) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        callee = f"from m{i - 1} import f{i - 1}\n" if i else ""
        call = f"    return f{i - 1}()\n" if i else "    return 1\n"
        (root / f"m{i}.py").write_text(f"{callee}\n\ndef f{i}():\n{call}\n\ndef g{i}():\n    return f{i}()\n")
    return root


def jsonl(root: Path, repo: str, keep: int | None = None) -> str:
    header, files, report = extract_tree(root, repo, workers=1)
    files = sorted(files, key=lambda fx: fx.file.path)[:keep]
    buf = io.StringIO()
    write_jsonl(buf, {**header, **report}, files)
    return buf.getvalue()


def snapshot(store: GraphStore, repo: str) -> tuple[Any, Any]:
    c = store.counts(repo)
    return (c["nodes"], c["edges"]), store.file_hashes(repo)


def load(text: str, store: GraphStore, repo: str, state: StateStore, search: Any = None, **kw: Any) -> Any:
    return load_run(read_jsonl_run(io.StringIO(text)), store, search, state, repo=repo, **kw)


@pytest.fixture
def state(tmp_path: Path) -> StateStore:
    return StateStore(tmp_path / "state.db")


def test_truncated_jsonl_changes_nothing_unless_partial(store: GraphStore, repo: str, tmp_path: Path,
                                                        state: StateStore) -> None:
    """Why: a JSONL cut in half exited 0 and deleted the files missing from the tail."""
    text = jsonl(make_tree(tmp_path / "t"), repo)
    load(text, store, repo, state)
    before = snapshot(store, repo)
    assert len(before[1]) == 10
    lines = text.splitlines(keepends=True)
    half = "".join(lines[: len(lines) // 2])
    with pytest.raises(TruncatedRun) as e:
        load(half, store, repo, state)
    assert "nothing was changed" in str(e.value) and "\n" not in str(e.value)
    assert snapshot(store, repo) == before
    # A closing record that counts more files than were read is a truncation too.
    lying = half + json.dumps({"type": "end", "files": 10, "records": 9999}) + "\n"
    with pytest.raises(TruncatedRun):
        load(lying, store, repo, state)
    assert snapshot(store, repo) == before
    s = load(half, store, repo, state, partial=True)
    assert s.removed == 0 and set(store.file_hashes(repo)) == set(before[1])


def test_load_refuses_mass_deletion_without_yes_and_lists_it(store: GraphStore, repo: str, tmp_path: Path,
                                                            state: StateStore) -> None:
    tree = make_tree(tmp_path / "t")
    load(jsonl(tree, repo), store, repo, state)
    before = snapshot(store, repo)
    three = jsonl(tree, repo, keep=3)
    with pytest.raises(DeletionRefused) as e:
        load(three, store, repo, state)
    assert e.value.paths == sorted(f"m{i}.py" for i in range(10))[3:]
    assert "would delete 7 of the 10 files" in str(e.value) and "--yes" in str(e.value)
    assert snapshot(store, repo) == before
    s = load(three, store, repo, state, yes=True)
    assert s.removed == 7 and len(store.file_hashes(repo)) == 3
    # Below the threshold no --yes is needed: 1 of 3 is above 20%, 1 of 10 is not.
    load(jsonl(tree, repo), store, repo, state)
    nine = jsonl(tree, repo, keep=9)
    assert load(nine, store, repo, state).removed == 1


def test_malformed_record_keeps_that_file_as_it_was(store: GraphStore, repo: str, tmp_path: Path,
                                                   state: StateStore) -> None:
    """Why: a JSONL line that is valid JSON but not an object gave a traceback; a bad line
    must not make the loader drop the symbols it described."""
    tree = make_tree(tmp_path / "t")
    load(jsonl(tree, repo), store, repo, state)
    for i in (1, 2):
        (tree / f"m{i}.py").write_text((tree / f"m{i}.py").read_text() + f"\n\ndef h{i}():\n    return 2\n")
    lines = jsonl(tree, repo).splitlines()
    sym_m1 = next(k for k, x in enumerate(lines) if '"symbol"' in x and '"file": "m1.py"' in x)
    lines[sym_m1] = "[1, 2, 3]"
    run = read_jsonl_run(io.StringIO("\n".join(lines) + "\n"))
    assert [p.line for p in run.problems] == [sym_m1 + 1] and "not an object" in run.problems[0].reason
    s = load_run(run, store, None, state, repo=repo)
    assert s.skipped.get("malformed_records") == 1
    hashes = store.file_hashes(repo)
    assert hashes["m2.py"] == file_hash((tree / "m2.py").read_bytes())  # the clean change loaded
    assert hashes["m1.py"] != file_hash((tree / "m1.py").read_bytes())  # the tainted one kept as it was
    assert len(hashes) == 10


def test_paths_outside_the_root_are_counted_skips_with_their_line(store: GraphStore, repo: str, tmp_path: Path,
                                                                 state: StateStore) -> None:
    """Why: a record with file: ../../../../etc/passwd read that file into search chunks."""
    tree = make_tree(tmp_path / "t", 3)
    secret = tmp_path / "secret.txt"
    secret.write_text("def leaked_secret_token():\n    return 'hunter2'\n")
    (tree / "link.py").symlink_to(secret)
    lines = jsonl(tree, repo).splitlines()
    assert '"link.py"' not in "".join(lines)  # discovery never follows it; a hostile JSONL names it
    link = {"type": "file_meta", "repo": repo, "path": "link.py", "language": "python",
            "content_hash": file_hash(secret.read_bytes())}
    evil = {"type": "file_meta", "repo": repo, "path": "../../../../etc/passwd", "language": "python",
            "content_hash": "x"}
    evil_sym = {"type": "symbol", "repo": repo, "qualified_name": "passwd", "signature_hash": "s", "name": "passwd",
                "kind": "module", "language": "python", "language_kind": "module", "file": "/etc/passwd",
                "line": 1, "end_line": 3}
    lines[1:1] = [json.dumps(evil), json.dumps(evil_sym), json.dumps(link)]
    end = json.loads(lines[-1])
    end["files"] += 2
    lines[-1] = json.dumps(end)
    search = EmbeddedSearchIndex(tmp_path / "search.db")
    run = read_jsonl_run(io.StringIO("\n".join(lines) + "\n"))
    assert [(p.line, "outside" in p.reason or "climbs" in p.reason or "absolute" in p.reason)
            for p in run.problems] == [(2, True), (3, True)]
    s = load_run(run, store, search, state, repo=repo)
    assert s.skipped["outside_root"] == 3  # two records in the JSONL, one symlink on disk
    assert any("line 4: link.py resolves outside the repo root" in m for m in s.messages), s.messages
    assert "../../../../etc/passwd" not in store.file_hashes(repo)
    assert not search.bm25("leaked_secret_token hunter2 root", 10, repo=repo)
    assert search.bm25("f2", 10, repo=repo)  # the contained files were chunked


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "CODEGRAPH_HOME": str(tmp_path / "home"), "CODEGRAPH_EMBED_MODEL_PATH": "none"}


def test_cli_load_traversal_truncation_and_deletion_are_one_line_each(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "t")
    full = jsonl(tree, "cli")
    lines = full.splitlines()
    lines.insert(1, json.dumps({"type": "file_meta", "repo": "cli", "path": "../../../../etc/passwd",
                                "language": "python", "content_hash": "x"}))
    lines.insert(2, json.dumps(["valid", "json", "not", "an", "object"]))
    lines[-1] = json.dumps({**json.loads(lines[-1]), "files": 11})
    f = tmp_path / "x.jsonl"
    f.write_text("\n".join(lines) + "\n")
    r = subprocess.run([*CLI, "load", str(f), "--json"], env=_env(tmp_path), capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "skipped line 2" in r.stderr and "climbs out of the repo root" in r.stderr
    assert "skipped line 3" in r.stderr and "not an object" in r.stderr
    res = json.loads(r.stdout)
    assert res["skipped_records"]["outside_root"] == 1 and res["summary"]["skipped"]["outside_root"] == 1
    f.write_text("\n".join(full.splitlines()[:40]) + "\n")
    r = subprocess.run([*CLI, "load", str(f)], env=_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "no closing record" in r.stderr, r.stderr
    f.write_text(jsonl(tree, "cli", keep=2))
    r = subprocess.run([*CLI, "load", str(f)], env=_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    err_lines = r.stderr.splitlines()
    assert err_lines[0].startswith("8 file(s) of cli are not in x.jsonl and would be deleted: m2.py, m3.py")
    assert err_lines[1].startswith("error: refused: loading") and len(err_lines) == 2
    r = subprocess.run([*CLI, "load", str(f), "--yes", "--json"], env=_env(tmp_path), capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0 and json.loads(r.stdout)["summary"]["files"] == 2

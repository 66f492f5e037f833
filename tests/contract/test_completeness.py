"""Completeness, run locks and worker lifetime on both backends (docs/hardening.md,
"Completeness"). Each test names the "Why" it guards."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codegraph.core.graph_store import GraphStore
from codegraph.core.impact import impact
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.runlock import RepoBusy, repo_lock
from codegraph.indexer.state import StateStore
from tests.services import service_settings

CLI = [sys.executable, "-m", "codegraph"]
ROOT = Path(__file__).resolve().parents[2]


def tree(root: Path, n: int = 40) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "core.py").write_text("def loads(x):\n    return x\n")
    for i in range(n):
        (root / f"use{i}.py").write_text(f"from core import loads\n\n\ndef use{i}():\n    return loads({i})\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "one"],
                   check=True)
    return root


def env_for(store: GraphStore, tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "CODEGRAPH_EMBED_MODEL_PATH": "none", "CODEGRAPH_SEARCH": "embedded",
           "PYTHONPATH": str(ROOT)}
    if store.backend == "neo4j":
        s = service_settings()
        env.update(CODEGRAPH_HOME=str(tmp_path / "home"), CODEGRAPH_GRAPH=s.graph,
                   CODEGRAPH_NEO4J_USER=s.neo4j_user, CODEGRAPH_NEO4J_PASSWORD=s.neo4j_password.get_secret_value())
    else:
        home = Path(store.path).parent  # type: ignore[attr-defined]
        env.update(CODEGRAPH_HOME=str(home), CODEGRAPH_GRAPH="embedded")
    return env


def wait_for(path: Path, proc: subprocess.Popen[bytes], what: str) -> None:
    for _ in range(600):
        if path.exists():
            return
        assert proc.poll() is None, f"{what}: the helper exited with {proc.returncode}"
        time.sleep(0.2)
    proc.kill()
    pytest.fail(f"{what}: the helper never got there")


def test_a_killed_run_is_reported_incomplete_until_a_run_completes(store: GraphStore, repo: str,
                                                                  tmp_path: Path) -> None:
    """Why: after kill -9 during a load, impact gave 0 callers (complete: 4), verify passed
    and the Repo node showed a commit and import time as if complete. Embedded: the last
    complete run answers (one transaction per run). Neo4j: incomplete: true with the reason."""
    root = tree(tmp_path / "t")
    state = StateStore(tmp_path / "s.db")
    index_repo(root, repo, store, None, state, workers=1)
    state.close()
    good = impact(store, "core.loads", repo=repo, depth=2)
    assert good.total_callers == 40 and not good.to_dict()["incomplete"]
    repo_props = next(r.props for r in store.repos() if r.props.get("name") == repo)
    (root / "core.py").write_text("def loads(x):\n    return x\n\n\ndef dumps(x):\n    return x\n")
    subprocess.run(["git", "-C", str(root), "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qam", "two"],
                   check=True)
    env = {**env_for(store, tmp_path), "CODEGRAPH_HOME": str(tmp_path / "killed")} if store.backend == "neo4j" \
        else env_for(store, tmp_path)
    ready = tmp_path / "ready"
    proc = subprocess.Popen([sys.executable, "-m", "tests.contract.run_and_hang", "hang-in-link", str(root), repo,
                             str(ready)], env=env, cwd=ROOT)
    try:
        wait_for(ready, proc, "link phase")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    after = next(r.props for r in store.repos() if r.props.get("name") == repo)
    assert after["last_commit_sha"] == repo_props["last_commit_sha"]  # the last complete run's, not the killed one's
    assert after["last_imported_at"] == repo_props["last_imported_at"]
    res = impact(store, "core.loads", repo=repo, depth=2).to_dict()
    verify = subprocess.run([*CLI, "verify", "--repo", repo, "--json"], env=env_for(store, tmp_path),
                            capture_output=True, text=True, timeout=300, cwd=ROOT)
    if store.backend == "embedded":
        # The run was one transaction: the killed run left nothing, answers are the last complete run's.
        assert after == repo_props
        assert res["incomplete"] is False and res["total_callers"] == 40
        assert verify.returncode == 0, verify.stdout + verify.stderr
    else:
        # Neo4j answers from what was written, and says loudly that it is part of a run.
        assert after["run_state"] == "running"
        assert res["incomplete"] is True and "has not finished" in res["incomplete_reason"]
        assert verify.returncode == 1 and json.loads(verify.stdout)["incomplete_runs"] == 1, verify.stdout
        assert "has not finished" in verify.stderr
        r = subprocess.run([*CLI, "impact", "core.loads", "--repo", repo], env=env_for(store, tmp_path),
                           capture_output=True, text=True, timeout=300, cwd=ROOT)
        assert "INCOMPLETE" in r.stdout, r.stdout
    # The next complete run clears it.
    state = StateStore(tmp_path / "s.db")
    index_repo(root, repo, store, None, state, workers=1)
    state.close()
    done = impact(store, "core.loads", repo=repo, depth=2).to_dict()
    assert done["incomplete"] is False and done["total_callers"] == 40
    r = subprocess.run([*CLI, "verify", "--repo", repo], env=env_for(store, tmp_path), capture_output=True,
                       text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_second_concurrent_run_of_one_repo_refuses_with_one_line(store: GraphStore, repo: str,
                                                                  tmp_path: Path) -> None:
    """Why: two `index` runs of one repo name from two checkouts at once left a graph
    matching neither."""
    a, b = tree(tmp_path / "a", 3), tree(tmp_path / "b", 5)
    env = env_for(store, tmp_path)
    with repo_lock(store, repo):
        r = subprocess.run([*CLI, "index", str(b), "--repo", repo, "--no-embed", "--wait", "1"], env=env,
                           capture_output=True, text=True, timeout=300, cwd=ROOT)
        assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
        assert f"repo {repo} is being indexed or loaded by" in r.stderr and str(os.getpid()) in r.stderr
        with pytest.raises(RepoBusy), repo_lock(store, repo, wait=0):
            pass
        assert store.file_hashes(repo) == {}  # the refused run wrote nothing
    r = subprocess.run([*CLI, "index", str(a), "--repo", repo, "--no-embed"], env=env, capture_output=True,
                       text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert len(store.file_hashes(repo)) == 4


def test_a_lock_left_by_a_dead_process_is_taken_over(store: GraphStore, repo: str) -> None:
    if store.backend != "neo4j":
        pytest.skip("an flock dies with its process; only the lock node can outlive it")
    import socket

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    assert store.acquire_run_lock(repo, f"{socket.gethostname()}:{dead}:x", 12) is None  # type: ignore[attr-defined]
    with repo_lock(store, repo):
        pass
    store.release_run_lock(repo, f"{socket.gethostname()}:{dead}:x")  # type: ignore[attr-defined]


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        text = (task / "children").read_text() if (task / "children").exists() else ""
        out.extend(int(x) for x in text.split())
    return out


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_extraction_workers_die_with_their_parent(tmp_path: Path) -> None:
    """Why: extraction workers survived a kill -9 of their parent for over 30 minutes."""
    root = tree(tmp_path / "t", 40)
    env = {**os.environ, "CODEGRAPH_HOME": str(tmp_path / "home"), "CODEGRAPH_GRAPH": "embedded",
           "CODEGRAPH_SEARCH": "embedded", "PYTHONPATH": str(ROOT)}
    ready = tmp_path / "ready"
    proc = subprocess.Popen([sys.executable, "-m", "tests.contract.run_and_hang", "hang-in-extract", str(root), "w",
                             str(ready)], env=env, cwd=ROOT)
    wait_for(ready, proc, "extraction")
    workers: list[int] = []
    for _ in range(300):
        workers = _children(proc.pid)
        if len(workers) >= 2:
            break
        time.sleep(0.1)
    assert len(workers) >= 2, workers
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    for _ in range(300):  # the kernel signals at once; the parent-watch thread within a second
        if not any(_alive(w) for w in workers):
            break
        time.sleep(0.1)
    alive = [w for w in workers if _alive(w)]
    for w in alive:
        os.kill(w, signal.SIGKILL)
    assert not alive, f"workers {alive} outlived their parent"

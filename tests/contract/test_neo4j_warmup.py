"""The local Neo4j's start-up warm-up (scripts/services/neo4j/warmup.py, docs/DESIGN.md#scale)
writes its synthetic repository through codegraph's store and leaves nothing behind: no node
of its repo, and another repo's graph untouched. Runs against the configured server; skipped
(or failed under CODEGRAPH_REQUIRE_SERVICES) when Neo4j is not configured."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

from codegraph.core.models import FileImport, FileRecord, RepoRecord, stable_hash
from tests.services import service_settings, skip_or_fail

ROOT = Path(__file__).resolve().parents[2]
WARMUP = ROOT / "scripts" / "services" / "neo4j" / "warmup.py"


def test_the_warm_up_leaves_no_node_and_keeps_other_repos(tmp_path: Path) -> None:
    settings = service_settings()
    if not settings.graph.startswith(("bolt://", "neo4j://")):
        skip_or_fail("Neo4j not configured (CODEGRAPH_GRAPH is not bolt://; run `make services`)")
    from codegraph.core.neo4j_graph import Neo4jGraphStore

    password = settings.neo4j_password.get_secret_value()
    store = Neo4jGraphStore(settings.graph, settings.neo4j_user, password, settings.neo4j_database)
    other = f"wu-{uuid.uuid4().hex[:10]}"
    pw_file = tmp_path / "password"
    pw_file.write_text(password)
    try:
        store.upsert_repo(RepoRecord(other, "/r"))
        store.import_files(other, [FileImport(FileRecord(other, "a.py", "python", stable_hash("a")), [])])
        before = store.counts(other)
        out = subprocess.run([sys.executable, str(WARMUP), settings.graph, str(pw_file), "--rounds", "1",
                              "--files", "3"], capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stdout + out.stderr
        assert "warm-up round 1/1" in out.stdout
        left = store._read("MATCH (n:Entity) WHERE n.repo = $repo RETURN count(n) AS c", repo="__codegraph_warmup__")
        assert left[0]["c"] == 0
        assert store.counts(other) == before and before
    finally:
        store.delete_repo(other)
        store.close()


def test_jit_cpu_sums_the_compiler_threads_and_is_none_without_them(tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("warmup", WARMUP)
    assert spec and spec.loader
    warmup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(warmup)
    tick = os.sysconf("SC_CLK_TCK")

    def task(tid: int, name: str, utime: int, stime: int) -> None:
        d = tmp_path / "42" / "task" / str(tid)
        d.mkdir(parents=True)
        rest = " ".join(["S"] + ["0"] * 10 + [str(utime), str(stime)] + ["0"] * 30)
        (d / "stat").write_text(f"{tid} ({name}) {rest}\n")

    task(1, "java", 5 * tick, 0)
    task(2, "C2 CompilerThre", 2 * tick, tick)
    task(3, "C1 CompilerThre", tick, 0)
    task(4, "GC Thread#0", 7 * tick, 0)
    assert warmup.jit_cpu("42", tmp_path) == 4.0
    assert warmup.jit_cpu("", tmp_path) is None
    assert warmup.jit_cpu("43", tmp_path) is None  # no such process
    (tmp_path / "44" / "task" / "1").mkdir(parents=True)
    (tmp_path / "44" / "task" / "1" / "stat").write_text("1 (python) " + " ".join(["S"] + ["0"] * 40) + "\n")
    assert warmup.jit_cpu("44", tmp_path) is None  # not a JVM

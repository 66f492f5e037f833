"""The local Neo4j's start-up warm-up (scripts/services/neo4j/warmup.py, docs/DESIGN.md#scale)
writes its synthetic repository through codegraph's store and leaves nothing behind: no node
of its repo, and another repo's graph untouched. Runs against the configured server; skipped
(or failed under CODEGRAPH_REQUIRE_SERVICES) when Neo4j is not configured."""

from __future__ import annotations

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

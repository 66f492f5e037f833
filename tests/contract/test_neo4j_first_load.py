"""Neo4j first load (codegraph.core.neo4j_load): importing into a repo with nothing stored
takes the CREATE path; the graph it leaves must be exactly what the MERGE path leaves for
the same calls — nodes, labels, properties, relationships and their properties, counted
with repeats. Runs against the shared local server; skipped (or failed under
CODEGRAPH_REQUIRE_SERVICES) when Neo4j is not configured."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from codegraph.core import neo4j_load
from codegraph.core.errors import StoreUnavailable
from codegraph.core.models import FileImport, FileRecord, RepoRecord, SymbolRecord, stable_hash
from tests.services import service_settings, skip_or_fail


@pytest.fixture(scope="module")
def neo() -> Iterator[Any]:
    settings = service_settings()
    if not settings.graph.startswith(("bolt://", "neo4j://", "bolt+s://", "neo4j+s://")):
        skip_or_fail("Neo4j not configured (CODEGRAPH_GRAPH is not bolt://; run `make services`)")
    from codegraph.core.neo4j_graph import Neo4jGraphStore

    try:
        # Two files per transaction: the import spans several batches.
        st = Neo4jGraphStore(settings.graph, settings.neo4j_user, settings.neo4j_password.get_secret_value(),
                             settings.neo4j_database, files_per_tx=2)
    except StoreUnavailable as e:
        skip_or_fail(f"Neo4j unreachable: {e}")
        raise
    yield st
    st.close()


def sym(repo: str, path: str, qn: str, line: int, body: str = "", doc: str | None = None) -> SymbolRecord:
    name = qn.rsplit(".", 1)[-1]
    return SymbolRecord(repo=repo, qualified_name=qn, signature_hash=stable_hash("function", qn, "()"), name=name,
                        kind="function", language="python", language_kind="function_definition", file=path,
                        line=line, end_line=line + 2, content_hash=stable_hash(qn, body), signature=f"def {name}()",
                        docstring=doc, parent=qn.rsplit(".", 1)[0])


def imports(repo: str, edit: str = "") -> list[FileImport]:
    def f(path: str, *syms: SymbolRecord) -> FileImport:
        return FileImport(FileRecord(repo, path, "python", stable_hash(path, edit), line_count=10), list(syms))
    return [
        # pkg.shared is declared by two files and twice inside one: one node (props of its last
        # occurrence), one DECLARES per occurrence.
        f("pkg/a.py", sym(repo, "pkg/a.py", "pkg.a.one", 1, doc="First."), sym(repo, "pkg/a.py", "pkg.shared", 5),
          sym(repo, "pkg/a.py", "pkg.shared", 9, body="again")),
        f("pkg/b.py", sym(repo, "pkg/b.py", "pkg.b.two", 1, body=edit)),
        f("pkg/c.py", sym(repo, "pkg/c.py", "pkg.shared", 3, body="c wins", doc="From c.")),
        f("pkg/empty.py"),
        f("pkg/d.py", *(sym(repo, "pkg/d.py", f"pkg.d.f{i}", 1 + 3 * i, doc=f"d {i} é") for i in range(7))),
    ]


def dump(store: Any, repo: str) -> tuple[list[str], list[str]]:
    nodes = store._read("MATCH (n:Entity) WHERE n.repo = $repo RETURN n.uid AS u, labels(n) AS l, properties(n) AS p",
                        repo=repo)
    rels = store._read("MATCH (a:Entity)-[r]->(b:Entity) WHERE a.repo = $repo OR b.repo = $repo "
                       "RETURN type(r) AS t, a.uid AS a, b.uid AS b, properties(r) AS p", repo=repo)
    # The two runs use two repo names: compare with the name taken out.
    return (sorted(json.dumps([r["u"], sorted(r["l"]), r["p"]], sort_keys=True).replace(repo, "R") for r in nodes),
            sorted(json.dumps([r["t"], r["a"], r["b"], r["p"]], sort_keys=True).replace(repo, "R") for r in rels))


def both_paths(store: Any, monkeypatch: pytest.MonkeyPatch, steps: Any) -> tuple[Any, Any]:
    """dump after ``steps(repo)`` on the CREATE path (new repo), then on the MERGE path."""
    out = []
    for create in (True, False):
        repo = f"fl-{uuid.uuid4().hex[:10]}"
        with monkeypatch.context() as m:
            if not create:
                m.setattr(neo4j_load, "repo_is_new", lambda read, repo: False)
            try:
                steps(repo)
                out.append(dump(store, repo))
            finally:
                store.delete_repo(repo)
    return out[0], out[1]


def test_first_load_writes_what_merge_writes(neo: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[bool] = []
    real = neo4j_load.create_batch

    def spy(*a: Any, **k: Any) -> Any:
        calls.append(True)
        return real(*a, **k)
    monkeypatch.setattr(neo4j_load, "create_batch", spy)

    def steps(repo: str) -> None:
        neo.upsert_repo(RepoRecord(repo, "/r"))
        neo.import_files(repo, imports(repo))
    created, merged = both_paths(neo, monkeypatch, steps)
    assert calls, "the CREATE path was not taken for a new repo"
    assert created == merged
    nodes, rels = created
    assert len(nodes) == 1 + 5 + 10  # Repo, files, distinct symbols
    assert sum('"DECLARES"' in r for r in rels) == 12 and sum('"IN_REPO"' in r for r in rels) == 5
    shared = next(json.loads(n) for n in nodes if '"pkg.shared"' in n)
    assert json.loads(shared[2]["_json"])["docstring"] == "From c."  # the last occurrence's props


def test_first_load_without_a_repo_node_and_then_a_merge_reimport(neo: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def steps(repo: str) -> None:
        neo.import_files(repo, imports(repo))  # no Repo node: no IN_REPO, as MATCH + CREATE
        again = imports(repo, edit="v2")
        neo.import_files(repo, [again[1], again[4]])  # the repo is not new any more: MERGE path
    created, merged = both_paths(neo, monkeypatch, steps)
    assert created == merged
    assert not any('"IN_REPO"' in r for r in created[1])


def test_created_edges_store_only_the_properties_they_have(neo: Any) -> None:
    from codegraph.core.models import CALLS, Edge

    repo = f"fl-{uuid.uuid4().hex[:10]}"
    try:
        neo.upsert_repo(RepoRecord(repo, "/r"))
        fis = imports(repo)
        neo.import_files(repo, fis)
        one, two = fis[0].symbols[0], fis[1].symbols[0]
        neo.replace_edges(repo, ["pkg/a.py"], [
            Edge(CALLS, one.uid, two.uid, "pkg/a.py", 2),  # no resolution, no extra: neither stored
            Edge(CALLS, two.uid, one.uid, "pkg/a.py", 3, "unique_name", {"names": ["x"]})])
        got = sorted((r["p"] for r in neo._read(
            "MATCH (:Entity {repo: $repo})-[r:CALLS]->() RETURN properties(r) AS p", repo=repo)),
            key=lambda p: p["line"])
        assert got == [{"repo": repo, "file": "pkg/a.py", "line": 2},
                       {"repo": repo, "file": "pkg/a.py", "line": 3, "resolution": "unique_name",
                        "extra": json.dumps({"names": ["x"]})}]
        declares = neo._read("MATCH (f:File {repo: $repo, path: 'pkg/b.py'})-[r:DECLARES]->() RETURN properties(r) AS p",
                             repo=repo)
        assert [r["p"] for r in declares] == [{"repo": repo, "file": "pkg/b.py", "line": 1}]
    finally:
        neo.delete_repo(repo)


def test_ensure_schema_drops_what_an_earlier_version_created_and_keeps_the_rest(
        neo: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Indexes and constraints named in OBSOLETE_SCHEMA are dropped when a store opens (each
    one costs every insert); every index and constraint of the current schema stays. Probes
    on a label no data uses stand in for the real obsolete names on the shared server."""
    from codegraph.core import neo4j_session
    from codegraph.core.neo4j_schema import _schema_statements

    tag = uuid.uuid4().hex[:8]
    idx, con = f"ct_obsolete_index_{tag}", f"ct_obsolete_constraint_{tag}"
    monkeypatch.setattr(neo4j_session, "OBSOLETE_SCHEMA", (("INDEX", idx), ("CONSTRAINT", con)))

    def names() -> set[str]:
        with neo._driver.session(database=neo.database) as s:
            return ({r["name"] for r in s.run("SHOW INDEXES YIELD name RETURN name")}
                    | {r["name"] for r in s.run("SHOW CONSTRAINTS YIELD name RETURN name")})
    with neo._driver.session(database=neo.database) as s:
        s.run(f"CREATE INDEX {idx} IF NOT EXISTS FOR (n:CtObsoleteProbe) ON (n.a)").consume()
        s.run(f"CREATE CONSTRAINT {con} IF NOT EXISTS FOR (n:CtObsoleteProbe) REQUIRE n.b IS UNIQUE").consume()
    try:
        assert {idx, con} <= names()
        neo.ensure_schema()
        after = names()
        assert not {idx, con} & after
        current = {st.split()[2] if st.split()[1] in ("CONSTRAINT", "INDEX") else st.split()[3]
                   for st in _schema_statements()}
        assert current <= after
    finally:
        with neo._driver.session(database=neo.database) as s:
            s.run(f"DROP INDEX {idx} IF EXISTS").consume()
            s.run(f"DROP CONSTRAINT {con} IF EXISTS").consume()


def test_a_failing_first_load_batch_raises_and_the_batches_not_started_are_never_written(
        neo: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first load's batches are written by FIRST_LOAD_WRITERS sessions at once: when one
    fails, its error reaches the caller and no batch behind the ones already running starts."""
    from codegraph.core import neo4j_write

    real = neo4j_load.create_batch
    started: list[str] = []

    def failing(tx: Any, repo: str, batch: neo4j_load.Batch) -> None:
        paths = [p for _, ps in batch.files for p in ps]
        started.extend(paths)
        if "pkg/f00.py" in paths:
            raise ValueError("batch failed")
        real(tx, repo, batch)
    monkeypatch.setattr(neo4j_load, "create_batch", failing)
    monkeypatch.setattr(neo, "files_per_tx", 1)
    repo = f"fl-{uuid.uuid4().hex[:10]}"
    files = [FileImport(FileRecord(repo, f"pkg/f{i:02}.py", "python", stable_hash(str(i))),
                        [sym(repo, f"pkg/f{i:02}.py", f"pkg.f{i:02}.g", 1)]) for i in range(12)]
    try:
        neo.upsert_repo(RepoRecord(repo, "/r"))
        with pytest.raises(ValueError, match="batch failed"):
            neo.import_files(repo, files)
        # At most one batch queued behind each writer was submitted when the first one failed.
        assert "pkg/f00.py" in started and len(started) <= 2 * neo4j_write.FIRST_LOAD_WRITERS
        stored = {r["p"] for r in neo._read("MATCH (f:File) WHERE f.repo = $repo RETURN f.path AS p", repo=repo)}
        assert stored == set(started) - {"pkg/f00.py"}
    finally:
        neo.delete_repo(repo)

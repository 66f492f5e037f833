"""GraphStore contract: the same tests against every backend (embedded sqlite, Neo4j).

Each test gets its own repo name (fixture ``repo``) and deletes it afterwards, so the
shared Neo4j server can hold other data; no assertion looks across repos.
"""

from __future__ import annotations

import threading
import time

import pytest

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.errors import ReadOnlyViolation, StoreUnavailable, Unsupported
from codegraph.core.figures import stub_references
from codegraph.core.graph_store import GraphStore
from codegraph.core.models import (
    CALLS,
    DECLARES,
    EXTENDS,
    FILE,
    IMPORTS,
    IN_REPO,
    READS,
    REPO,
    SNAPSHOT,
    STUB,
    SYMBOL,
    TABLE,
    Edge,
    FileDiff,
    FileImport,
    FileRecord,
    Node,
    RepoRecord,
    StubRecord,
    SymbolRecord,
    file_uid,
    stable_hash,
    table_uid,
)
from tests.services import service_settings

# -- builders ---------------------------------------------------------------------------


def sym(repo: str, path: str, qn: str, line: int, *, params: str = "()", body: str = "pass",
        kind: str = "function", language: str = "python") -> SymbolRecord:
    name = qn.rsplit(".", 1)[-1]
    return SymbolRecord(repo=repo, qualified_name=qn, signature_hash=stable_hash(kind, qn, params), name=name,
                        kind=kind, language=language, language_kind="function_definition", file=path, line=line,
                        end_line=line + 2, content_hash=stable_hash(body), signature=f"def {name}{params}")


def frec(repo: str, path: str, *, language: str = "python", content: str = "", **kw: object) -> FileRecord:
    return FileRecord(repo=repo, path=path, language=language, content_hash=stable_hash(path, content), **kw)  # type: ignore[arg-type]


def fimp(repo: str, path: str, symbols: list[SymbolRecord], **kw: object) -> FileImport:
    return FileImport(frec(repo, path, **kw), symbols)


def call(src: SymbolRecord, dst: SymbolRecord | str, file: str, line: int, resolution: str = "exact",
         etype: str = CALLS, **extra: object) -> Edge:
    target = dst if isinstance(dst, str) else dst.uid
    return Edge(etype, src.uid, target, file, line, resolution, dict(extra))


def setup_repo(store: GraphStore, repo: str) -> None:
    store.upsert_repo(RepoRecord(repo, f"/src/{repo}", last_commit_sha="abc", extractor_version="1"))


def hit_keys(store: GraphStore, uid: str, direction: str, types: list[str] | None = None) -> set[tuple[str, str, str, int]]:
    """(type, other end uid, file, line) of the edges at ``uid``."""
    hits = store.neighbours([uid], direction, types).get(uid, [])
    return {(h.edge.type, h.node.uid, h.edge.file, h.edge.line) for h in hits}


def symbol_uids(store: GraphStore, repo: str) -> set[str]:
    return {n.uid for n in store.nodes_by_label(SYMBOL, repo, limit=100_000)}


# -- the file-scoped diff ------------------------------------------------------------------


def test_body_edit_keeps_node_and_incoming_edges(store: GraphStore, repo: str) -> None:
    setup_repo(store, repo)
    f, g = sym(repo, "a.py", "a.f", 1), sym(repo, "a.py", "a.g", 5)
    h = sym(repo, "b.py", "b.h", 1)
    assert store.import_files(repo, [fimp(repo, "a.py", [f, g]), fimp(repo, "b.py", [h])]) == {
        "a.py": FileDiff(added=2), "b.py": FileDiff(added=1)}
    assert store.replace_edges(repo, ["a.py", "b.py"], [call(h, f, "b.py", 2), call(g, f, "a.py", 6)]) == 2

    f2 = sym(repo, "a.py", "a.f", 2, body="return 42")  # body edit and moved one line down
    assert f2.uid == f.uid
    diff = store.import_files(repo, [fimp(repo, "a.py", [f2, g], content="v2")])
    assert diff == {"a.py": FileDiff(added=0, updated=2, removed=0)}

    node = store.get_nodes([f.uid])[f.uid]
    assert node.props["content_hash"] == stable_hash("return 42") and node.props["line"] == 2
    # The edge from another file survives; the one whose evidence is a.py is gone until the
    # relationship pass re-creates it.
    assert hit_keys(store, f.uid, "in", [CALLS]) == {(CALLS, h.uid, "b.py", 2)}
    assert hit_keys(store, f.uid, "in") == {(CALLS, h.uid, "b.py", 2), (DECLARES, file_uid(repo, "a.py"), "a.py", 2)}
    assert store.file_hashes(repo)["a.py"] == stable_hash("a.py", "v2")
    assert store.verify(repo) == {"orphan_files": 0, "orphan_symbols": 0, "dangling_edges": 0}


def test_deleted_function_removes_symbol_and_its_outgoing_edges(store: GraphStore, repo: str) -> None:
    setup_repo(store, repo)
    f, g = sym(repo, "a.py", "a.f", 1), sym(repo, "a.py", "a.g", 5)
    h, k = sym(repo, "b.py", "b.h", 1), sym(repo, "b.py", "b.k", 9)
    store.import_files(repo, [fimp(repo, "a.py", [f, g]), fimp(repo, "b.py", [h, k])])
    edges = [call(g, f, "a.py", 6), call(g, h, "a.py", 7), call(h, f, "b.py", 2), call(k, g, "b.py", 10)]
    assert store.replace_edges(repo, ["a.py", "b.py"], edges) == 4

    assert store.import_files(repo, [fimp(repo, "a.py", [f], content="g removed")]) == {
        "a.py": FileDiff(added=0, updated=1, removed=1)}
    assert store.get_nodes([g.uid]) == {}
    assert g.uid not in symbol_uids(store, repo)
    # b.h -> a.f (other file, surviving target) stays; everything out of g is gone, and so
    # is b.k -> g because g no longer exists.
    assert hit_keys(store, f.uid, "in", [CALLS]) == {(CALLS, h.uid, "b.py", 2)}
    assert hit_keys(store, h.uid, "in", [CALLS]) == set()
    assert hit_keys(store, k.uid, "out", [CALLS]) == set()
    c = store.counts(repo)
    assert c["nodes"] == {REPO: 1, FILE: 2, SYMBOL: 3}
    assert c["edges"] == {IN_REPO: 2, DECLARES: 3, CALLS: 1}
    assert store.verify(repo) == {"orphan_files": 0, "orphan_symbols": 0, "dangling_edges": 0}


def test_reimport_of_unchanged_input_changes_nothing(store: GraphStore, repo: str) -> None:
    setup_repo(store, repo)
    files = [fimp(repo, f"pkg/m{i}.py", [sym(repo, f"pkg/m{i}.py", f"pkg.m{i}.f{j}", 1 + 4 * j) for j in range(5)])
             for i in range(6)]
    syms = [s for fi in files for s in fi.symbols]
    edges = [call(syms[i], syms[(i * 7 + 3) % len(syms)], syms[i].file, syms[i].line + 1) for i in range(len(syms))]

    def load() -> dict[str, FileDiff]:
        diff = store.import_files(repo, files)
        store.replace_edges(repo, [fi.file.path for fi in files], edges)
        return diff

    first = load()
    assert all(d == FileDiff(added=5) for d in first.values())
    before = (store.counts(repo), symbol_uids(store, repo), store.file_hashes(repo),
              {s.uid: hit_keys(store, s.uid, "out") for s in syms}, store.get_nodes([s.uid for s in syms]))
    second = load()
    assert all(d == FileDiff(updated=5) for d in second.values())
    after = (store.counts(repo), symbol_uids(store, repo), store.file_hashes(repo),
             {s.uid: hit_keys(store, s.uid, "out") for s in syms}, store.get_nodes([s.uid for s in syms]))
    assert after == before
    assert before[0]["nodes"][SYMBOL] == 30 and before[0]["edges"][CALLS] == 30


def test_remove_files_deletes_file_symbols_and_every_touching_edge(store: GraphStore, repo: str) -> None:
    setup_repo(store, repo)
    f, g = sym(repo, "a.py", "a.f", 1), sym(repo, "b.py", "b.g", 1)
    t = Node(table_uid(repo, "orders"), TABLE, {"repo": repo, "name": "orders"})
    store.import_files(repo, [fimp(repo, "a.py", [f]), fimp(repo, "b.py", [g])])
    store.upsert_nodes([t])
    store.replace_edges(repo, ["a.py", "b.py"], [
        call(g, f, "b.py", 2), call(f, g, "a.py", 2), Edge(READS, f.uid, t.uid, "a.py", 3, "exact"),
        Edge(READS, g.uid, t.uid, "b.py", 3, "exact")])

    assert store.remove_files(repo, ["a.py", "never-there.py"]) == 1
    assert store.get_nodes([f.uid, file_uid(repo, "a.py")]) == {}
    assert set(store.file_hashes(repo)) == {"b.py"}
    assert hit_keys(store, g.uid, "out") == {(READS, t.uid, "b.py", 3)}
    assert hit_keys(store, g.uid, "in") == {(DECLARES, file_uid(repo, "b.py"), "b.py", 1)}
    assert hit_keys(store, t.uid, "in") == {(READS, g.uid, "b.py", 3)}
    assert store.counts(repo)["nodes"] == {REPO: 1, FILE: 1, SYMBOL: 1, TABLE: 1}
    assert store.remove_files(repo, []) == 0


# -- non-file nodes, edges ------------------------------------------------------------------


def test_stub_upsert_ranking_and_pruning(store: GraphStore, repo: str) -> None:
    setup_repo(store, repo)
    callers = [sym(repo, "a.py", f"a.c{i}", 1 + 3 * i) for i in range(4)]
    store.import_files(repo, [fimp(repo, "a.py", callers)])
    s_many = StubRecord(repo, "requests.get", "missing")
    s_amb = StubRecord(repo, "save", "ambiguous", 2, ["m.A.save", "m.B.save"])
    s_one = StubRecord(repo, "json.loads", "missing")
    s_none = StubRecord(repo, "os.getenv", "missing")
    store.upsert_nodes([x.to_node() for x in (s_many, s_amb, s_one, s_none)])
    edges = [call(c, s_many.uid, "a.py", c.line + 1, "stub") for c in callers]
    edges += [call(callers[0], s_amb.uid, "a.py", 9, "stub", candidates=["m.A.save", "m.B.save"]),
              call(callers[1], s_amb.uid, "a.py", 8, "stub"), call(callers[2], s_one.uid, "a.py", 7, "stub")]
    assert store.replace_edges(repo, ["a.py"], edges) == 7

    ranked = store.stubs_ranked(repo)
    assert [(n.uid, refs) for n, refs in ranked] == [
        (s_many.uid, 4), (s_amb.uid, 2), (s_one.uid, 1), (s_none.uid, 0)]
    assert ranked[1][0].props["candidates"] == ["m.A.save", "m.B.save"] and ranked[1][0].label == STUB
    assert [n.uid for n, _ in store.stubs_ranked(repo, limit=2, offset=1)] == [s_amb.uid, s_one.uid]
    # The snapshot's stub references: one query on the embedded store, the ranked pages summed elsewhere.
    assert stub_references(store, repo) == {repo: 7}
    if isinstance(store, EmbeddedGraphStore):
        assert store.stub_reference_counts(repo) == {repo: 7}
    amb_in = store.neighbours([s_amb.uid], "in")[s_amb.uid]
    assert {h.edge.line: h.edge.extra for h in amb_in} == {8: {}, 9: {"candidates": ["m.A.save", "m.B.save"]}}

    # Upsert replaces properties: the stub is now resolved as missing, candidates dropped.
    store.upsert_nodes([StubRecord(repo, "save", "missing").to_node()])
    assert store.get_nodes([s_amb.uid])[s_amb.uid].props == {
        "repo": repo, "target_identifier": "save", "reason": "missing", "candidate_count": 0, "candidates": []}

    # The callers of json.loads now resolve: the stub loses its only edge and is pruned
    # together with the never-referenced one; stubs still referenced stay.
    store.replace_edges(repo, ["a.py"], [e for e in edges if e.target != s_one.uid])
    assert store.prune_unreferenced(repo, [STUB]) == 2
    assert set(store.get_nodes([s_many.uid, s_amb.uid, s_one.uid, s_none.uid])) == {s_many.uid, s_amb.uid}
    assert store.prune_unreferenced(repo, [STUB, TABLE]) == 0
    assert stub_references(store, repo) == {repo: 6}
    store.replace_edges(repo, ["a.py"], [])
    assert stub_references(store, repo) == {repo: 0}  # stubs left, no edge reaches them


def test_upsert_nodes_roundtrips_props_exactly_and_delete_nodes(store: GraphStore, repo: str) -> None:
    snap = Node(f"snapshot|{repo}|2024-05-01T00:00:00Z", SNAPSHOT, {
        "repo": repo, "taken_at": "2024-05-01T00:00:00Z", "commit": None,
        "counts": {"nodes": {"Symbol": 12}, "edges": {"CALLS": 40}}, "languages": ["python", "go"],
        "ratio": 0.25, "flag": True, "empty": [], "mixed": [1, "a"]})
    store.upsert_nodes([snap])
    assert store.get_nodes([snap.uid]) == {snap.uid: snap}
    replaced = Node(snap.uid, SNAPSHOT, {"repo": repo, "taken_at": "2024-05-01T00:00:00Z", "counts": {}})
    store.upsert_nodes([replaced])
    assert store.get_nodes([snap.uid])[snap.uid].props == replaced.props
    assert store.nodes_by_label(SNAPSHOT, repo) == [replaced]
    assert store.delete_nodes([snap.uid, "snapshot|nope"]) == 1
    assert store.get_nodes([snap.uid]) == {}


def test_replace_edges_skips_missing_ends_dedupes_and_keeps_other_files(store: GraphStore, repo: str) -> None:
    setup_repo(store, repo)
    f, g = sym(repo, "a.py", "a.f", 1), sym(repo, "b.py", "b.g", 1)
    store.import_files(repo, [fimp(repo, "a.py", [f]), fimp(repo, "b.py", [g])])
    assert store.replace_edges(repo, ["b.py"], [call(g, f, "b.py", 2)]) == 1
    batch = [call(f, g, "a.py", 2), call(f, g, "a.py", 2), call(f, g, "a.py", 3),
             call(f, f"sym|{repo}|nowhere|0", "a.py", 4), Edge(IMPORTS, file_uid(repo, "a.py"), file_uid(repo, "b.py"),
                                                                "a.py", 1, "import", {"names": ["g"], "forwarding": False})]
    assert store.replace_edges(repo, ["a.py"], batch) == 3
    assert hit_keys(store, f.uid, "out") == {(CALLS, g.uid, "a.py", 2), (CALLS, g.uid, "a.py", 3)}
    assert hit_keys(store, g.uid, "out", [CALLS]) == {(CALLS, f.uid, "b.py", 2)}
    imp = store.neighbours([file_uid(repo, "a.py")], "out", [IMPORTS])[file_uid(repo, "a.py")]
    assert [(h.node.uid, h.edge.resolution, h.edge.extra) for h in imp] == [
        (file_uid(repo, "b.py"), "import", {"names": ["g"], "forwarding": False})]
    # An edge whose evidence file is not being replaced is added once, never twice.
    assert store.replace_edges(repo, [], [call(g, f, "b.py", 2)]) == 0
    assert store.counts(repo)["edges"][CALLS] == 3


@pytest.mark.parametrize("per_query", [2, 3, 50_000])
def test_replace_edges_with_shared_and_missing_ends_writes_exactly_the_edges_with_both_ends(
        store: GraphStore, repo: str, monkeypatch: pytest.MonkeyPatch, per_query: int) -> None:
    """Many edges share an endpoint (a caller's calls, a popular callee, a self-call), some
    have a missing source, target or both, interleaved; on Neo4j every query looks each
    distinct endpoint up once (``neo4j_load.create_edges``), with ``per_query`` edges per
    query so that the positions restart inside the batch. Exactly the edges with two
    stored ends are written, with their properties; no other edge, and none twice."""
    from codegraph.core import neo4j_write

    monkeypatch.setattr(neo4j_write, "EDGES_PER_QUERY", per_query)  # only the Neo4j path reads it
    setup_repo(store, repo)
    a, b, c = (sym(repo, "m.py", f"m.{n}", 1 + 3 * i) for i, n in enumerate("abc"))
    store.import_files(repo, [fimp(repo, "m.py", [a, b, c])])
    gone = f"sym|{repo}|m.gone|0"
    batch = [call(a, b, "m.py", 2), call(a, c, "m.py", 3, "unique_name", hint="x"), call(a, gone, "m.py", 4),
             call(a, a, "m.py", 5), Edge(CALLS, gone, b.uid, "m.py", 6, "exact"), call(b, c, "m.py", 7),
             Edge(CALLS, gone, f"sym|{repo}|m.other|0", "m.py", 8, "exact"), call(c, a, "m.py", 9),
             call(b, c, "m.py", 10), Edge(EXTENDS, c.uid, b.uid, "m.py", 11, "exact")]
    assert store.replace_edges(repo, ["m.py"], batch) == 7
    assert hit_keys(store, a.uid, "out") == {(CALLS, b.uid, "m.py", 2), (CALLS, c.uid, "m.py", 3),
                                             (CALLS, a.uid, "m.py", 5)}
    assert hit_keys(store, b.uid, "out") == {(CALLS, c.uid, "m.py", 7), (CALLS, c.uid, "m.py", 10)}
    assert hit_keys(store, c.uid, "out") == {(CALLS, a.uid, "m.py", 9), (EXTENDS, b.uid, "m.py", 11)}
    assert hit_keys(store, b.uid, "in", [CALLS, EXTENDS]) == {(CALLS, a.uid, "m.py", 2), (EXTENDS, c.uid, "m.py", 11)}
    hint = next(h.edge for h in store.neighbours([a.uid], "out")[a.uid] if h.edge.line == 3)
    assert (hint.resolution, hint.extra) == ("unique_name", {"hint": "x"})
    assert store.counts(repo)["edges"] == {IN_REPO: 1, DECLARES: 3, CALLS: 6, EXTENDS: 1}


# -- special input ------------------------------------------------------------------------


def test_unicode_identifiers_and_paths(store: GraphStore, repo: str) -> None:
    setup_repo(store, repo)
    path = "src/ünïcode/données_数据.py"
    names = ["größe_berechnen", "数据处理", "Ελληνικά", "emoji_🚀_launch", "naïve.Café"]
    syms = [sym(repo, path, f"données_数据.{n}", 1 + 3 * i) for i, n in enumerate(names)]
    stub = StubRecord(repo, "外部.函数", "missing")
    diff = store.import_files(repo, [fimp(repo, path, syms, content="ü")])
    assert diff == {path: FileDiff(added=5)}
    store.upsert_nodes([stub.to_node()])
    assert store.replace_edges(repo, [path], [call(syms[0], syms[1], path, 2), call(syms[1], stub.uid, path, 5, "stub")]) == 2

    got = store.get_nodes([s.uid for s in syms])
    assert {u: n.props for u, n in got.items()} == {s.uid: s.to_node().props for s in syms}
    assert store.symbols_by_name(["数据处理"], repo)["数据处理"][0].uid == syms[1].uid
    assert [n.uid for n in store.symbols_by_qualified_name(["données_数据.Café"], repo).get("données_数据.Café", [])] == []
    assert [n.uid for n in store.find_nodes("GRÖßE_berechnen", repo=repo, labels=[SYMBOL])] == [syms[0].uid]
    # Case folding is not only ASCII: an upper-case Greek name is found whatever the case typed.
    assert [n.uid for n in store.find_nodes("Ελληνικά", repo=repo, labels=[SYMBOL])] == [syms[2].uid]
    assert [n.uid for n in store.find_nodes("ελληνικ", repo=repo, labels=[SYMBOL])] == [syms[2].uid]
    assert [n.uid for n in store.find_nodes("🚀", repo=repo)] == [syms[3].uid]
    assert hit_keys(store, syms[1].uid, "out", [CALLS]) == {(CALLS, stub.uid, path, 5)}
    assert store.file_hashes(repo) == {path: stable_hash(path, "ü")}
    assert list(store.nodes_in_files(repo, [path])) == [path]
    assert store.remove_files(repo, [path]) == 1
    assert store.counts(repo)["nodes"] == {REPO: 1, STUB: 1}


def test_ten_thousand_symbol_batch(store: GraphStore, repo: str) -> None:
    setup_repo(store, repo)
    files = [fimp(repo, f"big/m{i:03}.py", [sym(repo, f"big/m{i:03}.py", f"big.m{i:03}.f{j:03}", 1 + 3 * j)
                                          for j in range(200)]) for i in range(50)]
    syms = [s for fi in files for s in fi.symbols]
    assert len(syms) == 10_000
    t0 = time.perf_counter()
    diff = store.import_files(repo, files)
    edges = [call(syms[i], syms[(i + 1) % len(syms)], syms[i].file, syms[i].line + 1) for i in range(len(syms))]
    assert store.replace_edges(repo, [fi.file.path for fi in files], edges) == 10_000
    elapsed = time.perf_counter() - t0
    assert sum(d.added for d in diff.values()) == 10_000 and len(diff) == 50
    c = store.counts(repo)
    assert c["nodes"] == {REPO: 1, FILE: 50, SYMBOL: 10_000}
    assert c["edges"] == {IN_REPO: 50, DECLARES: 10_000, CALLS: 10_000}
    assert c["symbols_by_language"] == {"python": 10_000}
    in_file = store.nodes_in_files(repo, ["big/m007.py"])["big/m007.py"]
    assert [n.props["line"] for n in in_file] == [1 + 3 * j for j in range(200)]
    assert store.verify(repo) == {"orphan_files": 0, "orphan_symbols": 0, "dangling_edges": 0}
    assert elapsed < 120, f"10k symbols + 10k edges took {elapsed:.1f}s"


# -- reads ------------------------------------------------------------------------------


def test_neighbours_in_out_with_type_filter_order_and_limit(store: GraphStore, repo: str) -> None:
    setup_repo(store, repo)
    base = sym(repo, "m.py", "m.Base", 1, kind="class")
    child = sym(repo, "m.py", "m.Child", 10, kind="class")
    a, b, c = (sym(repo, "z.py", "z.a", 1), sym(repo, "z.py", "z.b", 5), sym(repo, "y.py", "y.c", 1))
    store.import_files(repo, [fimp(repo, "m.py", [base, child]), fimp(repo, "z.py", [a, b]), fimp(repo, "y.py", [c])])
    store.replace_edges(repo, ["m.py", "z.py", "y.py"], [
        Edge(EXTENDS, child.uid, base.uid, "m.py", 10, "same_module"),
        call(b, base, "z.py", 7), call(a, base, "z.py", 2), call(c, base, "y.py", 3), call(a, base, "z.py", 3)])

    hits = store.neighbours([base.uid], "in", [CALLS])[base.uid]
    assert [(h.edge.source, h.edge.target, h.edge.file, h.edge.line) for h in hits] == [
        (c.uid, base.uid, "y.py", 3), (a.uid, base.uid, "z.py", 2), (a.uid, base.uid, "z.py", 3),
        (b.uid, base.uid, "z.py", 7)]
    assert all(h.edge.type == CALLS and h.edge.resolution == "exact" and h.node.label == SYMBOL for h in hits)
    assert hits[0].node.props == c.to_node().props
    assert hit_keys(store, base.uid, "in", [EXTENDS]) == {(EXTENDS, child.uid, "m.py", 10)}
    assert hit_keys(store, base.uid, "in", [EXTENDS, DECLARES]) == {
        (EXTENDS, child.uid, "m.py", 10), (DECLARES, file_uid(repo, "m.py"), "m.py", 1)}
    assert len(store.neighbours([base.uid], "in")[base.uid]) == 6
    limited = store.neighbours([base.uid, a.uid], "in", [CALLS], limit_per_node=2)
    assert [h.edge.line for h in limited[base.uid]] == [3, 2]
    assert a.uid not in limited  # nothing calls a
    out = store.neighbours([a.uid, child.uid, "sym|nope|x|0"], "out")
    assert set(out) == {a.uid, child.uid}
    assert [(h.edge.type, h.edge.source, h.node.uid, h.edge.line) for h in out[a.uid]] == [
        (CALLS, a.uid, base.uid, 2), (CALLS, a.uid, base.uid, 3)]
    assert hit_keys(store, file_uid(repo, "y.py"), "out") == {
        (IN_REPO, f"repo|{repo}", "y.py", 0), (DECLARES, c.uid, "y.py", 1)}
    with pytest.raises(ValueError):
        store.neighbours([a.uid], "sideways")


def test_find_nodes_ranks_exact_then_suffix_then_prefix_then_substring(store: GraphStore, repo: str) -> None:
    setup_repo(store, repo)
    exact = sym(repo, "m1.py", "util.parse", 1)
    suffix = sym(repo, "m2.py", "pkg.util.parse", 1)
    prefix_long = sym(repo, "m3.py", "util.parse_every_case", 1)
    prefix = sym(repo, "m4.py", "util.parser", 1)
    substring = sym(repo, "m5.py", "my_util.parse_x", 1)
    other = sym(repo, "m6.py", "unrelated.thing", 1)
    store.import_files(repo, [fimp(repo, s.file, [s]) for s in (exact, suffix, prefix_long, prefix, substring, other)])
    got = [n.uid for n in store.find_nodes("Util.Parse", repo=repo)]
    assert got == [exact.uid, suffix.uid, prefix.uid, prefix_long.uid, substring.uid]
    assert [n.uid for n in store.find_nodes("util.parse", repo=repo, limit=2)] == [exact.uid, suffix.uid]
    assert [n.uid for n in store.find_nodes("  ", repo=repo)] == []
    assert store.find_nodes("util.parse", repo=f"{repo}-other") == []

    # Files: exact path, then path suffix "/name", then substring; labels filter.
    assert [n.uid for n in store.find_nodes("m2.py", repo=repo, labels=[FILE])] == [file_uid(repo, "m2.py")]
    byname = store.find_nodes("thing", repo=repo, labels=[SYMBOL])
    assert [n.uid for n in byname] == [other.uid] and byname[0].props["qualified_name"] == "unrelated.thing"
    table = Node(table_uid(repo, "parse_log"), TABLE, {"repo": repo, "name": "parse_log"})
    store.upsert_nodes([table])
    assert [n.uid for n in store.find_nodes("PARSE_LOG", repo=repo)] == [table.uid]
    assert [n.uid for n in store.find_nodes("parse_log", repo=repo, labels=[SYMBOL])] == []


def test_lookups_by_name_qualified_name_file_label_and_repo(store: GraphStore, repo: str) -> None:
    setup_repo(store, repo)
    over1 = sym(repo, "o.py", "o.K.run", 3, params="(self)")
    over2 = sym(repo, "o.py", "o.K.run", 9, params="(self, n)")
    lone = sym(repo, "p.py", "p.run", 1)
    store.import_files(repo, [fimp(repo, "o.py", [over2, over1]), fimp(repo, "p.py", [lone])])
    by_qn = store.symbols_by_qualified_name(["o.K.run", "missing.q"], repo)
    assert set(by_qn) == {"o.K.run"} and {n.uid for n in by_qn["o.K.run"]} == {over1.uid, over2.uid}
    assert [n.uid for n in by_qn["o.K.run"]] == sorted([over1.uid, over2.uid])
    by_name = store.symbols_by_name(["run"], repo)
    assert {n.uid for n in by_name["run"]} == {over1.uid, over2.uid, lone.uid}
    assert store.symbols_by_name(["run"], f"{repo}-other") == {}
    assert {n.uid for n in store.symbols_by_qualified_name(["o.K.run"])["o.K.run"]} >= {over1.uid, over2.uid}
    in_files = store.nodes_in_files(repo, ["o.py", "p.py", "none.py"])
    assert [n.uid for n in in_files["o.py"]] == [over1.uid, over2.uid] and set(in_files) == {"o.py", "p.py"}
    page = store.nodes_by_label(SYMBOL, repo, limit=2)
    rest = store.nodes_by_label(SYMBOL, repo, limit=2, offset=2)
    assert [n.uid for n in page + rest] == sorted([over1.uid, over2.uid, lone.uid])
    assert repo in {n.props["name"] for n in store.repos()}
    store.upsert_repo(RepoRecord(repo, "/moved", last_imported_at="2024-01-01T00:00:00Z"))
    mine = [n for n in store.repos() if n.props["name"] == repo]
    assert len(mine) == 1 and mine[0].props["path"] == "/moved" and mine[0].props["last_commit_sha"] is None


def test_counts_and_coverage(store: GraphStore, repo: str) -> None:
    setup_repo(store, repo)
    store.import_files(repo, [
        fimp(repo, "a.py", [sym(repo, "a.py", "a.f", 1)]),
        fimp(repo, "b.py", [], had_error=True, coverage_status="error"),
        fimp(repo, "c.go", [sym(repo, "c.go", "c.F", 1, language="go"), sym(repo, "c.go", "c.G", 5, language="go")],
             language="go", coverage_status="partial"),
        fimp(repo, "d.go", [], language="go", coverage_status="partial", had_error=True),
    ])
    store.upsert_nodes([StubRecord(repo, "x.y", "missing").to_node()])
    c = store.counts(repo)
    assert c["nodes"] == {REPO: 1, FILE: 4, SYMBOL: 3, STUB: 1}
    assert c["edges"] == {IN_REPO: 4, DECLARES: 3}
    assert c["languages"] == {"python": 2, "go": 2}
    assert c["symbols_by_language"] == {"python": 1, "go": 2}
    assert c["parse_errors"] == 2 and c["partial_files"] == 2
    assert c["coverage"] == {"full": 1, "error": 1, "partial": 2}
    everywhere = store.counts()
    assert everywhere["nodes"][SYMBOL] >= 3 and everywhere["edges"][DECLARES] >= 3


def test_verify_reports_orphans(store: GraphStore, repo: str) -> None:
    # No Repo node: the files cannot get IN_REPO. A Symbol upserted on its own has no DECLARES.
    store.import_files(repo, [fimp(repo, "a.py", [sym(repo, "a.py", "a.f", 1)]), fimp(repo, "b.py", [])])
    store.upsert_nodes([sym(repo, "c.py", "c.lost", 1).to_node()])
    assert store.verify(repo) == {"orphan_files": 2, "orphan_symbols": 1, "dangling_edges": 0}
    setup_repo(store, repo)
    store.import_files(repo, [fimp(repo, "a.py", [sym(repo, "a.py", "a.f", 1)]), fimp(repo, "b.py", [])])
    assert store.verify(repo) == {"orphan_files": 0, "orphan_symbols": 1, "dangling_edges": 0}


def test_delete_repo_removes_everything_of_that_repo_only(store: GraphStore, repo: str) -> None:
    other = f"{repo}-b"
    try:
        for r in (repo, other):
            setup_repo(store, r)
            s1, s2 = sym(r, "a.py", "a.f", 1), sym(r, "a.py", "a.g", 4)
            store.import_files(r, [fimp(r, "a.py", [s1, s2])])
            store.replace_edges(r, ["a.py"], [call(s1, s2, "a.py", 2)])
        store.delete_repo(repo)
        assert store.counts(repo) == {"nodes": {}, "edges": {}, "languages": {}, "symbols_by_language": {},
                                      "coverage": {}, "parse_errors": 0, "partial_files": 0}
        assert store.counts(other)["edges"] == {IN_REPO: 1, DECLARES: 2, CALLS: 1}
        assert repo not in {n.props["name"] for n in store.repos()}
    finally:
        store.delete_repo(other)


# -- concurrency --------------------------------------------------------------------------


def test_read_runs_during_a_write_and_sees_whole_files(store: GraphStore, repo: str) -> None:
    """A reader is never blocked for the length of an import and never sees data go away."""
    setup_repo(store, repo)
    per_file = 50
    files = [fimp(repo, f"w/m{i:03}.py", [sym(repo, f"w/m{i:03}.py", f"w.m{i:03}.f{j}", 1 + 3 * j)
                                        for j in range(per_file)]) for i in range(120)]
    errors: list[BaseException] = []
    done = threading.Event()

    def writer() -> None:
        try:
            store.import_files(repo, files)
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)
        finally:
            done.set()

    seen: list[int] = []
    t = threading.Thread(target=writer)
    t.start()
    while not done.is_set():
        n = store.counts(repo)["nodes"].get(SYMBOL, 0)
        if not done.is_set():
            seen.append(n)
        time.sleep(0.005)
    t.join()
    assert not errors, errors
    assert seen, "no read completed while the import was running"
    assert seen == sorted(seen) and all(0 <= n <= per_file * 120 for n in seen), seen
    if store.backend == "embedded":
        # sqlite WAL readers see a snapshot, so never part of a file's transaction. Neo4j
        # is read-committed: one statement that overlaps a commit may count part of it.
        assert all(n % per_file == 0 for n in seen), f"a read saw part of a file: {seen}"
    assert store.counts(repo)["nodes"][SYMBOL] == per_file * 120


# -- raw Cypher and failures ----------------------------------------------------------------


def test_run_cypher_is_read_only_capped_and_neo4j_only(store: GraphStore, repo: str) -> None:
    setup_repo(store, repo)
    store.import_files(repo, [fimp(repo, "a.py", [sym(repo, "a.py", f"a.f{i}", 1 + i) for i in range(7)])])
    q = "MATCH (s:Symbol) WHERE s.repo = $repo RETURN s.name AS name ORDER BY name"
    if store.backend != "neo4j":
        with pytest.raises(Unsupported):
            store.run_cypher(q, {"repo": repo}, 5)
        return
    rows, total = store.run_cypher(q, {"repo": repo}, 5)
    assert rows == [{"name": f"f{i}"} for i in range(5)] and total == 7
    rows, _ = store.run_cypher("MATCH (s:Symbol {repo: $repo, name: 'f3'}) RETURN s", {"repo": repo}, 10)
    assert rows[0]["s"]["qualified_name"] == "a.f3" and "_json" not in rows[0]["s"]
    # A write word inside a string literal is data, not a clause.
    assert store.run_cypher("RETURN 'CREATE (x) DELETE y' AS s", {}, 1) == ([{"s": "CREATE (x) DELETE y"}], 1)
    for bad in (f"MATCH (s:Symbol {{repo: '{repo}'}}) DETACH DELETE s",
                "CREATE (:Symbol {repo: $repo, name: 'evil'})",
                "MATCH (s:Symbol) WHERE s.repo = $repo SET s.name = 'x'",
                "merge (n:X {a: 1}) return n",
                "LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l",
                "MATCH (s) CALL { WITH s REMOVE s.name } IN TRANSACTIONS RETURN 1",
                "UNWIND range(1, 3) AS i CALL { WITH i MATCH (n) RETURN n } IN TRANSACTIONS OF 2 ROWS RETURN 1",
                "CALL dbms.security.createUser('x', 'y', false)",
                "CALL apoc.create.node(['X'], {}) YIELD node RETURN node",
                "CALL db.createLabel('Evil')",
                "DROP INDEX entity_repo",
                "ALTER USER neo4j SET PASSWORD 'x'"):
        with pytest.raises(ReadOnlyViolation):
            store.run_cypher(bad, {"repo": repo}, 10)
    assert store.counts(repo)["nodes"] == {REPO: 1, FILE: 1, SYMBOL: 7}
    assert store.run_cypher("CALL db.labels() YIELD label RETURN count(label) AS n", {}, 1)[1] == 1


def test_neo4j_server_refuses_writes_even_past_the_guard(store: GraphStore, repo: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The read transaction is the second line of defence: with the clause check turned off,
    the server itself refuses the write and nothing changes."""
    if store.backend != "neo4j":
        pytest.skip("raw Cypher is Neo4j only")
    from codegraph.core import neo4j_graph

    monkeypatch.setattr(neo4j_graph, "check_read_only", lambda q: None)
    with pytest.raises(ReadOnlyViolation):
        store.run_cypher("CREATE (:Symbol {repo: $repo, name: 'evil'})", {"repo": repo}, 10)
    assert store.counts(repo)["nodes"] == {}


def test_unreachable_server_raises_store_unavailable_naming_the_setting(store: GraphStore) -> None:
    if store.backend != "neo4j":
        pytest.skip("only a server backend can be unreachable")
    from codegraph.core.neo4j_graph import Neo4jGraphStore

    t0 = time.perf_counter()
    with pytest.raises(StoreUnavailable) as err:
        Neo4jGraphStore("bolt://127.0.0.1:9", "neo4j", "x", connection_timeout=2)
    assert "CODEGRAPH_GRAPH" in str(err.value) and "\n" not in str(err.value)
    assert time.perf_counter() - t0 < 30
    from codegraph.core.settings import load_settings
    from codegraph.core.stores import open_graph_store

    with pytest.raises(StoreUnavailable) as err:
        open_graph_store(load_settings(graph="bolt://127.0.0.1:9"))
    assert "CODEGRAPH_GRAPH" in str(err.value)


def test_server_lost_after_open_raises_store_unavailable_on_reads_and_writes(store: GraphStore, repo: str) -> None:
    """A store whose server goes away answers every call with StoreUnavailable (one line,
    naming CODEGRAPH_GRAPH), and what was stored before is still there afterwards."""
    if store.backend != "neo4j":
        pytest.skip("only a server backend can go away")
    import neo4j

    from codegraph.core.neo4j_graph import Neo4jGraphStore

    settings = service_settings()
    lost = Neo4jGraphStore(settings.graph, settings.neo4j_user, settings.neo4j_password.get_secret_value())
    setup_repo(lost, repo)
    lost.import_files(repo, [fimp(repo, "a.py", [sym(repo, "a.py", "a.f", 1)])])
    lost._driver.close()  # what a dead server looks like to the store: nothing answers on the port
    lost._driver = neo4j.GraphDatabase.driver("bolt://127.0.0.1:9", auth=("neo4j", "x"), connection_timeout=2)
    calls = [lambda: lost.counts(repo), lambda: lost.get_nodes(["x"]),
             lambda: lost.import_files(repo, [fimp(repo, "a.py", [])]), lambda: lost.remove_files(repo, ["a.py"])]
    for fn in calls:
        with pytest.raises(StoreUnavailable) as err:
            fn()
        assert "CODEGRAPH_GRAPH" in str(err.value) and "\n" not in str(err.value)
    lost.close()
    assert store.counts(repo)["nodes"] == {REPO: 1, FILE: 1, SYMBOL: 1}


def test_wrong_password_raises_store_unavailable(store: GraphStore) -> None:
    if store.backend != "neo4j":
        pytest.skip("only a server backend has credentials")
    from codegraph.core.neo4j_graph import Neo4jGraphStore

    uri = store.uri  # type: ignore[attr-defined]
    with pytest.raises(StoreUnavailable) as err:
        Neo4jGraphStore(uri, "neo4j", "definitely-not-the-password")
    assert "CODEGRAPH_NEO4J_PASSWORD" in str(err.value) and "\n" not in str(err.value)


def test_read_only_guard_cases() -> None:
    """The clause check alone (no server): what passes and what is refused."""
    from codegraph.core.neo4j_graph import check_read_only

    for ok in ("MATCH (n:Symbol) WHERE n.name = 'SET' RETURN n",
               "MATCH (n) // DELETE in a comment\nRETURN n.created_at, n.`set`",
               "MATCH (n:Symbol) RETURN n.offset /* remove */ LIMIT 3",
               "CALL db.index.fulltext.queryNodes('codegraph_names', 'parse') YIELD node RETURN node",
               "MATCH p = (a)-[:CALLS*1..3]->(b) RETURN p"):
        check_read_only(ok)
    for bad in ("match (n) detach delete n", "MATCH (n) FOREACH (x IN [1] | SET n.a = x)",
                "USE system SHOW USERS", "CALL apoc.periodic.iterate('a', 'b', {})",
                "STOP DATABASE neo4j", "GRANT ROLE admin TO bob", "MATCH (n) REMOVE n:Symbol", "SHOW INDEXES"):
        with pytest.raises(ReadOnlyViolation):
            check_read_only(bad)


# -- order-independent whole imports ------------------------------------------------------


def _small_batches(store: GraphStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """One file per write transaction, so two files of one call land in different batches."""
    if store.backend == "neo4j":
        monkeypatch.setattr(store, "files_per_tx", 1)
    else:
        import codegraph.core.embedded_graph as eg

        monkeypatch.setattr(eg, "FILES_PER_TX", 1)


@pytest.mark.parametrize("order", ["old_file_first", "new_file_first"])
@pytest.mark.parametrize("batches", ["one_batch", "batch_per_file"])
def test_symbol_moving_between_files_keeps_incoming_edges(
        store: GraphStore, repo: str, order: str, batches: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if batches == "batch_per_file":
        _small_batches(store, monkeypatch)
    setup_repo(store, repo)
    helper, other = sym(repo, "a.go", "app.Helper", 3, language="go"), sym(repo, "a.go", "app.other", 9, language="go")
    main = sym(repo, "main.go", "app.main", 1, language="go")
    store.import_files(repo, [fimp(repo, "a.go", [helper, other]), fimp(repo, "b.go", []), fimp(repo, "main.go", [main])])
    store.replace_edges(repo, ["main.go"], [call(main, helper, "main.go", 2, "same_module")])

    moved = sym(repo, "b.go", "app.Helper", 1, language="go")
    assert moved.uid == helper.uid
    files = [fimp(repo, "a.go", [other], content="v2"), fimp(repo, "b.go", [moved], content="v2")]
    diff = store.import_files(repo, files if order == "old_file_first" else files[::-1])
    assert diff == {"a.go": FileDiff(added=0, updated=1, removed=0), "b.go": FileDiff(added=1, updated=0, removed=0)}
    node = store.get_nodes([helper.uid])[helper.uid]
    assert (node.props["file"], node.props["line"]) == ("b.go", 1)
    assert hit_keys(store, helper.uid, "in") == {(CALLS, main.uid, "main.go", 2), (DECLARES, file_uid(repo, "b.go"), "b.go", 1)}
    assert store.nodes_in_files(repo, ["a.go"])["a.go"] == [store.get_nodes([other.uid])[other.uid]]
    assert store.verify(repo) == {"orphan_files": 0, "orphan_symbols": 0, "dangling_edges": 0}


def test_symbol_of_a_removed_file_declared_again_keeps_its_edges(store: GraphStore, repo: str) -> None:
    # The pipeline's order for a moved file: import the new file, then remove the old one.
    setup_repo(store, repo)
    helper, main = sym(repo, "a.go", "app.Helper", 3, language="go"), sym(repo, "main.go", "app.main", 1, language="go")
    store.import_files(repo, [fimp(repo, "a.go", [helper]), fimp(repo, "main.go", [main])])
    store.replace_edges(repo, ["main.go"], [call(main, helper, "main.go", 2, "same_module")])
    store.import_files(repo, [fimp(repo, "lib/b.go", [sym(repo, "lib/b.go", "app.Helper", 3, language="go")])])
    assert store.remove_files(repo, ["a.go"]) == 1
    assert hit_keys(store, helper.uid, "in", [CALLS]) == {(CALLS, main.uid, "main.go", 2)}
    assert store.get_nodes([helper.uid])[helper.uid].props["file"] == "lib/b.go"


def test_symbol_no_file_declares_is_deleted_after_the_whole_import(
        store: GraphStore, repo: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _small_batches(store, monkeypatch)
    setup_repo(store, repo)
    f, g, h = sym(repo, "a.py", "a.f", 1), sym(repo, "a.py", "a.g", 5), sym(repo, "b.py", "b.h", 1)
    store.import_files(repo, [fimp(repo, "a.py", [f, g]), fimp(repo, "b.py", [h])])
    store.replace_edges(repo, ["b.py"], [call(h, g, "b.py", 2), call(h, f, "b.py", 3)])
    diff = store.import_files(repo, [fimp(repo, "b.py", [h], content="v2"), fimp(repo, "a.py", [f], content="v2")])
    assert diff["a.py"] == FileDiff(added=0, updated=1, removed=1)
    assert symbol_uids(store, repo) == {f.uid, h.uid}
    assert hit_keys(store, f.uid, "in", [CALLS]) == set()  # b.py's edges wait for the relationship pass
    assert store.verify(repo) == {"orphan_files": 0, "orphan_symbols": 0, "dangling_edges": 0}


def test_delete_edges_by_key_leaves_the_rest(store: GraphStore, repo: str) -> None:
    setup_repo(store, repo)
    f, g, h = sym(repo, "a.py", "a.f", 1), sym(repo, "a.py", "a.g", 5), sym(repo, "b.py", "b.h", 1)
    store.import_files(repo, [fimp(repo, "a.py", [f, g]), fimp(repo, "b.py", [h])])
    e1, e2, e3 = call(h, f, "b.py", 2), call(h, f, "b.py", 7), call(g, f, "a.py", 6, etype=IMPORTS)
    store.replace_edges(repo, ["a.py", "b.py"], [e1, e2, e3])
    assert store.delete_edges([e1.key(), (CALLS, g.uid, f.uid, "a.py", 6), (CALLS, "sym|nope", f.uid, "b.py", 2)]) == 1
    assert hit_keys(store, f.uid, "in", [CALLS, IMPORTS]) == {(CALLS, h.uid, "b.py", 7), (IMPORTS, g.uid, "a.py", 6)}
    assert store.delete_edges([]) == 0
    assert set(store.get_nodes([f.uid, g.uid, h.uid])) == {f.uid, g.uid, h.uid}


def test_delete_repo_removes_incoming_cross_repo_edges(store: GraphStore, repo: str) -> None:
    other = repo + "-client"
    try:
        setup_repo(store, repo)
        setup_repo(store, other)
        api = sym(repo, "api.py", "api.get_order", 1)
        client = sym(other, "web.py", "web.load", 1)
        store.import_files(repo, [fimp(repo, "api.py", [api])])
        store.import_files(other, [fimp(other, "web.py", [client])])
        assert store.replace_edges(other, ["web.py"], [call(client, api, "web.py", 3, etype="CALLS_HTTP")]) == 1
        store.delete_repo(repo)
        assert store.neighbours([client.uid], "out").get(client.uid, []) == []
        assert store.verify(other) == {"orphan_files": 0, "orphan_symbols": 0, "dangling_edges": 0}
        assert store.counts(other)["edges"] == {IN_REPO: 1, DECLARES: 1}
    finally:
        store.delete_repo(other)

"""Triage decisions through the core (codegraph.core.triage) on the fixture repository,
indexed with the real pipeline; every test runs on the embedded graph and on Neo4j
(where `make services` runs it). Edge sets are compared exactly."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from codegraph.core import issues, triage
from codegraph.core.errors import BadInput, TargetNotFound
from codegraph.core.impact import impact
from codegraph.core.models import issue_uid, stub_uid
from tests.triage.fixture import FILES, Tree, derived_edges, stubs
from tests.triage.issues_fixture import EXPORT

BASE_STUBS = {"requests": 2, "requests.get": 2, "save": 2, "helper_missing": 1, "requests.post": 1}


def fresh_index(tree: Tree, tmp: Path) -> set:
    """The derived edges a first index of the tree (no decision) gives, in a new store."""
    from codegraph.core.embedded_graph import EmbeddedGraphStore
    from codegraph.indexer.pipeline import index_repo
    from codegraph.indexer.state import StateStore

    g, st = EmbeddedGraphStore(tmp / "fresh.db"), StateStore(tmp / "fresh-state.db")
    try:
        index_repo(tree.root, tree.repo, g, None, st, workers=1)
        return derived_edges(g, tree.repo)
    finally:
        st.close()
        g.close()


def test_fixture_has_the_documented_stubs(tree: Tree) -> None:
    assert stubs(tree.graph, tree.repo) == BASE_STUBS


def test_resolve_moves_call_sites_and_survives_a_reindex_after_an_unrelated_edit(tree: Tree) -> None:
    g, repo = tree.graph, tree.repo
    before = derived_edges(g, repo)
    sym = triage.find_symbol(g, "app.store.save", repo)
    d = triage.resolve(g, repo, "save", sym.uid, by="ana", note="repo is the store")

    stub_edges = {e for e in before if e[2] == stub_uid(repo, "save")}
    assert {(e[1].split("|")[2], e[3], e[4]) for e in stub_edges} == {
        ("app.service.place", "app/service.py", 7), ("app.service.cancel", "app/service.py", 13)}
    moved = {(t, s, sym.uid, f, ln, "exact", json.dumps({"decision": "resolve"})) for t, s, _, f, ln, _, _ in stub_edges}
    expected = (before - stub_edges) | moved
    assert derived_edges(g, repo) == expected
    assert stubs(g, repo) == {k: v for k, v in BASE_STUBS.items() if k != "save"}
    assert (d.action, d.targets, d.call_sites, d.decided_by, d.note, d.status) == (
        "resolve", ["save"], 2, "ana", "repo is the store", "active")
    [logged] = triage.decision_list(g, repo)
    assert (logged.key, logged.symbol_qualified_name, logged.symbol_uid, logged.decided_by, logged.status) == (
        "save", "app.store.save", sym.uid, "ana", "active")
    assert logged.decided_at == d.decided_at

    tree.write("app/audit.py", FILES["app/audit.py"] + "\n\ndef purge(events):\n    return []\n")
    s = tree.index()
    assert (s.changed, s.resolutions.get("exact")) == (1, 2)
    assert derived_edges(g, repo) == expected  # the new function calls nothing
    assert stubs(g, repo) == {k: v for k, v in BASE_STUBS.items() if k != "save"}
    assert triage.find_symbol(g, "app.audit.purge", repo)
    assert [x.status for x in triage.decision_list(g, repo)] == ["active"]
    res = impact(g, "app.store.save", repo=repo, depth=1)
    assert {(c.node.qualified_name, c.evidence_line) for c in res.callers} == {
        ("app.service.place", 7), ("app.service.cancel", 13)}


def test_undo_restores_the_stub_and_its_edges_and_the_next_index_agrees(tree: Tree) -> None:
    g, repo = tree.graph, tree.repo
    # The symbol has other incoming edges (an import-resolved call, DECLARES, issue
    # mentions): undo must keep every one of them.
    issues.import_issues(g, repo, issues.parse_export(EXPORT))
    before = derived_edges(g, repo)
    stub_props = g.get_nodes([stub_uid(repo, "save")])[stub_uid(repo, "save")].props
    sym = triage.find_symbol(g, "app.store.save", repo)
    assert {e[1] for e in before if e[2] == sym.uid} == {
        triage.find_symbol(g, "app.service.place", repo).uid, issue_uid(repo, 1), issue_uid(repo, 2),
        issue_uid(repo, 4)}
    triage.resolve(g, repo, "save", sym.uid, by="ana")
    tree.index()  # the decision is re-applied by the resolver itself now
    assert stub_uid(repo, "save") not in g.get_nodes([stub_uid(repo, "save")])

    d = triage.undo(g, repo, "save", by="bo")
    assert (d.status, d.undone_by) == ("undone", "bo")
    assert derived_edges(g, repo) == before
    assert g.get_nodes([sym.uid])[sym.uid].props == sym.props
    assert g.verify(repo)["orphan_symbols"] == 0  # DECLARES re-created
    assert stubs(g, repo) == BASE_STUBS
    assert g.get_nodes([stub_uid(repo, "save")])[stub_uid(repo, "save")].props == stub_props
    assert triage.load_decisions(g, repo)["save"].action == "none"  # makes the next run re-resolve

    tree.index()
    assert derived_edges(g, repo) == before
    assert stubs(g, repo) == BASE_STUBS
    [logged] = triage.decision_list(g, repo)
    assert (logged.status, logged.undone_by, logged.decided_by) == ("undone", "bo", "ana")
    with pytest.raises(TargetNotFound):
        triage.undo(g, repo, "save")


def test_an_undo_interrupted_between_writes_is_finished_later(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    g, repo = tree.graph, tree.repo
    before = derived_edges(g, repo)
    sym = triage.find_symbol(g, "app.store.save", repo)
    triage.resolve(g, repo, "save", sym.uid)
    real = g.delete_edges

    def die(*_: object) -> int:
        raise RuntimeError("process killed")

    monkeypatch.setattr(g, "delete_edges", die)
    with pytest.raises(RuntimeError):
        triage.undo(g, repo, "save")
    # The symbol is never detached: it and its props survive the interruption.
    assert g.get_nodes([sym.uid])[sym.uid].props == sym.props
    monkeypatch.setattr(g, "delete_edges", real)
    [d] = triage.decision_list(g, repo)
    assert d.status == "active"  # the undo itself did not complete: do it again
    triage.undo(g, repo, "save")
    tree.index()
    assert derived_edges(g, repo) == before


def test_undo_of_a_resolve_keeps_the_symbols_other_edges(tree: Tree) -> None:
    g, repo = tree.graph, tree.repo
    sym = triage.find_symbol(g, "app.store.save", repo)
    others_in = {h.edge.key() for h in g.neighbours([sym.uid], "in")[sym.uid]}
    others_out = {h.edge.key() for h in g.neighbours([sym.uid], "out").get(sym.uid, [])}
    triage.resolve(g, repo, "save", sym.uid)
    triage.undo(g, repo, "save")
    assert {h.edge.key() for h in g.neighbours([sym.uid], "in")[sym.uid]} == others_in
    assert {h.edge.key() for h in g.neighbours([sym.uid], "out").get(sym.uid, [])} == others_out


def test_bulk_external_by_pattern_applies_to_later_stubs_and_undoes(tree: Tree, tmp_path: Path) -> None:
    g, repo = tree.graph, tree.repo
    before = derived_edges(g, repo)
    assert [n.props["target_identifier"] for n in triage.preview(g, repo, "requests.*")] == [
        "requests", "requests.get", "requests.post"]
    d = triage.mark_external(g, repo, "requests.*", "requests", by="ana")
    assert (sorted(d.targets), d.call_sites, d.library, d.pattern, d.target_identifier) == (
        ["requests", "requests.get", "requests.post"], 5, "requests", "requests.*", "")
    gone = {e for e in before if e[2] in {stub_uid(repo, t) for t in d.targets}}
    assert len(gone) == 5
    assert derived_edges(g, repo) == before - gone
    assert stubs(g, repo) == {"save": 2, "helper_missing": 1}
    assert {t: x.action for t, x in triage.load_decisions(g, repo).items()} == {
        "requests": "external", "requests.get": "external", "requests.post": "external"}

    tree.index()
    assert derived_edges(g, repo) == before - gone
    assert stubs(g, repo) == {"save": 2, "helper_missing": 1}

    # A target first seen after the decision: a stub for one run, then covered.
    tree.write("app/sync.py", 'import requests\n\n\ndef push(x):\n    return requests.patch("http://e.invalid", json=x)\n')
    tree.index()
    assert stubs(g, repo) == {"save": 2, "helper_missing": 1, "requests.patch": 1}
    assert triage.apply_pending(g, repo) == ["requests.patch"]
    assert stubs(g, repo) == {"save": 2, "helper_missing": 1}
    tree.index()
    assert stubs(g, repo) == {"save": 2, "helper_missing": 1}
    assert "requests.patch" in triage.load_decisions(g, repo)

    triage.undo(g, repo, "requests.*", by="bo")
    # The import in sync.py was never recorded (the resolver skipped it): it comes back
    # with the next index run, which re-resolves even though no file changed.
    assert stubs(g, repo) == {**BASE_STUBS, "requests.patch": 1}
    tree.index()
    assert stubs(g, repo) == {**BASE_STUBS, "requests": 3, "requests.patch": 1}
    assert derived_edges(g, repo) == fresh_index(tree, tmp_path)


def test_undo_skips_call_sites_of_files_changed_since_and_the_next_index_relinks(tree: Tree, tmp_path: Path) -> None:
    g, repo = tree.graph, tree.repo
    triage.ignore(g, repo, "requests.get")
    # client.py changes: its call to requests.get moves two lines down and a second one appears.
    tree.write("app/client.py", FILES["app/client.py"].replace(
        "def fetch(url):", "\n\ndef fetch(url):") + "\n\ndef head(url):\n    return requests.get(url)\n")
    tree.index()
    triage.undo(g, repo, "requests.get")
    # Only the unchanged file's call site is restored from the record (its line is still right).
    sites = triage.call_sites(g, [stub_uid(repo, "requests.get")])[stub_uid(repo, "requests.get")]
    assert [(s.file, s.line) for s in sites] == [("app/service.py", 8)]
    tree.index()
    sites = triage.call_sites(g, [stub_uid(repo, "requests.get")])[stub_uid(repo, "requests.get")]
    assert [(s.file, s.line) for s in sites] == [("app/client.py", 8), ("app/client.py", 12), ("app/service.py", 8)]
    assert derived_edges(g, repo) == fresh_index(tree, tmp_path)


def test_a_resolve_whose_symbol_disappears_goes_stale_and_the_stub_returns(tree: Tree) -> None:
    g, repo = tree.graph, tree.repo
    triage.resolve(g, repo, "save", triage.find_symbol(g, "app.audit.save", repo).uid)
    tree.write("app/audit.py", '"""Audit trail, emptied."""\n')
    tree.index()
    assert [d.status for d in triage.decision_list(g, repo)] == ["stale"]
    assert triage.load_decisions(g, repo)["save"].action == "none"
    tree.index()
    assert stubs(g, repo)["save"] == 2
    assert triage.apply_pending(g, repo) == []  # a stale decision is not applied again


def test_candidates_same_repo_other_repo_and_libraries(make_tree: Callable[..., Tree]) -> None:
    tree = make_tree()
    lib = make_tree({"lib/helpers.py": "def helper_missing(order):\n    return order\n"})
    g, repo = tree.graph, tree.repo
    stub = g.get_nodes([stub_uid(repo, "save")])[stub_uid(repo, "save")]
    ours = {repo, lib.repo}  # a shared Neo4j may hold other people's repos too
    c = triage.candidates(g, stub)
    assert [(x.qualified_name, x.repo, x.why) for x in c.symbols if x.repo in ours] == [
        ("app.audit.save", repo, "same name in this repo"), ("app.store.save", repo, "same name in this repo")]
    assert c.libraries == []
    get = g.get_nodes([stub_uid(repo, "requests.get")])[stub_uid(repo, "requests.get")]
    c = triage.candidates(g, get)
    assert [x for x in c.symbols if x.repo in ours] == []
    assert [(x.name, x.why) for x in c.libraries] == [("requests", "imported here but not part of the repo")]
    imp = g.get_nodes([stub_uid(repo, "requests")])[stub_uid(repo, "requests")]
    assert [x.name for x in triage.candidates(g, imp).libraries] == ["requests"]

    helper = g.get_nodes([stub_uid(repo, "helper_missing")])[stub_uid(repo, "helper_missing")]
    [other] = [x for x in triage.candidates(g, helper).symbols if x.repo in ours]
    assert (other.qualified_name, other.repo, other.why) == ("lib.helpers.helper_missing", lib.repo,
                                                             "same name in another repo")
    triage.resolve(g, repo, "helper_missing", other.uid)
    tree.index()
    cancel = triage.find_symbol(g, "app.service.cancel", repo).uid
    assert (("CALLS", cancel, other.uid, "app/service.py", 15, "exact", json.dumps({"decision": "resolve"}))
            in derived_edges(g, repo))


def test_decisions_refuse_bad_input(tree: Tree) -> None:
    g, repo = tree.graph, tree.repo
    sym = triage.find_symbol(g, "app.store.save", repo).uid
    with pytest.raises(BadInput, match="not a pattern"):
        triage.resolve(g, repo, "requests.*", sym)
    with pytest.raises(TargetNotFound, match="no unresolved symbol"):
        triage.resolve(g, repo, "nothing_like_this", sym)
    with pytest.raises(TargetNotFound, match="no symbol"):
        triage.resolve(g, repo, "save", "sym|nope|x|y")
    with pytest.raises(BadInput, match="library"):
        triage.mark_external(g, repo, "requests.*", " ")
    triage.ignore(g, repo, "requests.*")
    with pytest.raises(BadInput, match="already has a decision"):
        triage.ignore(g, repo, "requests.*")
    assert stubs(g, repo) == {"save": 2, "helper_missing": 1}


def test_find_symbol_by_qualified_name_or_uid(tree: Tree) -> None:
    g, repo = tree.graph, tree.repo
    n = triage.find_symbol(g, "app.store.save", repo)
    assert (n.props["qualified_name"], n.props["file"], n.props["line"]) == ("app.store.save", "app/store.py", 4)
    assert triage.find_symbol(g, n.uid).uid == n.uid
    with pytest.raises(TargetNotFound, match="symbols named 'save': app.audit.save, app.store.save"):
        triage.find_symbol(g, "store.saved.save", repo)


def test_find_symbol_asks_for_a_uid_when_several_repos_have_the_name(make_tree: Callable[..., Tree]) -> None:
    one, two = make_tree(), make_tree()
    with pytest.raises(BadInput, match="pass one uid"):
        triage.find_symbol(one.graph, "app.store.save")
    assert triage.find_symbol(one.graph, "app.store.save", two.repo).repo == two.repo


def test_resolver_decision_is_the_indexer_decision() -> None:
    from codegraph.indexer.resolve import Decision

    assert Decision is triage.ResolverDecision  # one definition of the concept


@pytest.mark.parametrize(("pattern", "target", "hit"), [
    ("requests.*", "requests.get", True), ("requests.*", "requests", True), ("requests.*", "requestsx.get", False),
    ("*.mock_*", "tests.mock_db", True), ("save", "save", True), ("save", "save2", False),
    ("Foo.?", "Foo.a", True), ("Foo.?", "Foo", False), ("[a-c]*", "bar", True), ("[a-c]*", "dar", False),
])
def test_pattern_matching(pattern: str, target: str, hit: bool) -> None:
    assert triage.matches(pattern, target) is hit


def test_last_segment_and_patterns() -> None:
    assert [triage.last_segment(t) for t in ("self.repo.save()", "Foo::bar", "a->b", "x#y", "save")] == [
        "save", "bar", "b", "y", "save"]
    assert triage.is_pattern("requests.*") and not triage.is_pattern("requests.get")

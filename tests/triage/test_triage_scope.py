"""Triage decisions on some call sites of a stub (codegraph.core.triage_scope): by single
call site, by calling file, by folder; re-applied by the resolver after a re-index, undone
alone, refused when they would take nothing. The fixture tree is indexed with the real
pipeline on the embedded graph and on Neo4j; edge sets are compared exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codegraph.core import triage
from codegraph.core.errors import BadInput, TargetNotFound
from codegraph.core.models import stub_uid
from codegraph.core.triage_scope import Scope
from tests.triage.fixture import FILES, Tree, derived_edges, stubs
from tests.triage.test_triage_core import BASE_STUBS, fresh_index

RESOLVED = json.dumps({"decision": "resolve"})


def _sites(tree: Tree, target: str) -> list[tuple[str, int]]:
    uid = stub_uid(tree.repo, target)
    return sorted((s.file, s.line) for s in triage.call_sites(tree.graph, [uid]).get(uid, []))


def test_resolve_one_call_site_keeps_the_other_on_the_stub_and_survives_a_reindex(tree: Tree) -> None:
    g, repo = tree.graph, tree.repo
    before = derived_edges(g, repo)
    sym = triage.find_symbol(g, "app.store.save", repo).uid
    place = triage.find_symbol(g, "app.service.place", repo).uid
    scope = Scope.of(sites=["app/service.py:7"])
    assert [(s.file, s.line) for s in triage.scoped_sites(g, repo, "save", scope)] == [("app/service.py", 7)]

    d = triage.resolve(g, repo, "save", sym, by="ana", scope=scope)
    assert (d.call_sites, d.scope.sites, d.scope.label()) == (1, (("app/service.py", 7, place),),
                                                              "call site app/service.py:7")
    [old] = [e for e in before if e[2] == stub_uid(repo, "save") and e[4] == 7]
    expected = (before - {old}) | {("CALLS", place, sym, "app/service.py", 7, "exact", RESOLVED)}
    assert derived_edges(g, repo) == expected
    assert stubs(g, repo) == {**BASE_STUBS, "save": 1}
    assert _sites(tree, "save") == [("app/service.py", 13)]
    [logged] = triage.decision_list(g, repo)
    assert logged.scope == d.scope  # stored durably in the decision node

    tree.write("app/audit.py", FILES["app/audit.py"] + "\n\ndef purge(events):\n    return []\n")
    tree.index()  # the resolver applies the scoped decision per call site
    assert derived_edges(g, repo) == expected
    assert stubs(g, repo) == {**BASE_STUBS, "save": 1}

    triage.undo(g, repo, "save", by="bo")
    assert derived_edges(g, repo) == before
    assert stubs(g, repo) == BASE_STUBS
    tree.index()
    assert derived_edges(g, repo) == before


def test_a_file_scope_covers_new_call_sites_in_that_file_and_undo_restores_them(tree: Tree, tmp_path: Path) -> None:
    g, repo = tree.graph, tree.repo
    before = derived_edges(g, repo)
    d = triage.mark_external(g, repo, "requests.get", "requests", scope=Scope.of(files=["app/client.py"]))
    assert (d.call_sites, d.scope.label()) == (1, "file app/client.py")
    gone = {e for e in before if e[2] == stub_uid(repo, "requests.get") and e[3] == "app/client.py"}
    assert len(gone) == 1 and derived_edges(g, repo) == before - gone
    assert _sites(tree, "requests.get") == [("app/service.py", 8)]

    # A second call in the scoped file is covered by the next run; service.py's stays a stub.
    tree.write("app/client.py", FILES["app/client.py"] + "\n\ndef head(url):\n    return requests.get(url)\n")
    tree.index()
    assert _sites(tree, "requests.get") == [("app/service.py", 8)]
    assert stubs(g, repo) == {**BASE_STUBS, "requests.get": 1}

    triage.undo(g, repo, "requests.get", scope=Scope.of(files=["app/client.py"]))
    tree.index()
    assert _sites(tree, "requests.get") == [("app/client.py", 6), ("app/client.py", 10), ("app/service.py", 8)]
    assert derived_edges(g, repo) == fresh_index(tree, tmp_path)


def test_a_folder_scope_and_the_targets_own_decision_stand_together(tree: Tree) -> None:
    g, repo = tree.graph, tree.repo
    tree.write("app/legacy/__init__.py", "")
    tree.write("app/legacy/old.py", "import requests\n\n\ndef pull(u):\n    return requests.get(u)\n")
    tree.index()
    assert _sites(tree, "requests.get") == [("app/client.py", 6), ("app/legacy/old.py", 5), ("app/service.py", 8)]
    legacy = triage.ignore(g, repo, "requests.get", scope=Scope.of(folders=["./app/legacy/"]))
    assert (legacy.call_sites, legacy.scope.folders) == (1, ("app/legacy",))
    assert _sites(tree, "requests.get") == [("app/client.py", 6), ("app/service.py", 8)]
    # The target's own decision takes the rest; the stub leaves the graph.
    rest = triage.mark_external(g, repo, "requests.get", "requests")
    assert rest.call_sites == 2
    assert "requests.get" not in stubs(g, repo)
    loaded = triage.load_decisions(g, repo)["requests.get"]
    assert (loaded.action, [x.action for _, x in loaded.scoped]) == ("external", ["ignore"])
    assert loaded.at("app/legacy/old.py", 5, "any").action == "ignore"
    assert loaded.at("app/client.py", 6, "any").action == "external"
    tree.index()
    assert "requests.get" not in stubs(g, repo)

    # Undo the folder decision: its call site goes to the target's own decision still standing.
    triage.undo(g, repo, "requests.get", uid=legacy.uid)
    assert "requests.get" not in stubs(g, repo)
    [own] = [d for d in triage.decision_list(g, repo, include_undone=False) if d.key == "requests.get"]
    assert own.uid == rest.uid and own.call_sites == 3
    triage.undo(g, repo, "requests.get")
    assert _sites(tree, "requests.get") == [("app/client.py", 6), ("app/legacy/old.py", 5), ("app/service.py", 8)]


def test_a_call_site_that_moves_is_no_longer_covered(tree: Tree) -> None:
    g, repo = tree.graph, tree.repo
    triage.ignore(g, repo, "requests.get", scope=Scope.of(sites=["app/client.py:6"]))
    assert _sites(tree, "requests.get") == [("app/service.py", 8)]
    # Two lines inserted above: the call is now at line 8, which the decision never saw.
    tree.write("app/client.py", FILES["app/client.py"].replace("def fetch(url):", "\n\ndef fetch(url):"))
    tree.index()
    assert _sites(tree, "requests.get") == [("app/client.py", 8), ("app/service.py", 8)]


def test_scoped_decisions_refuse_bad_input(tree: Tree) -> None:
    g, repo = tree.graph, tree.repo
    sym = triage.find_symbol(g, "app.store.save", repo).uid
    with pytest.raises(BadInput, match="not a pattern"):
        triage.ignore(g, repo, "requests.*", scope=Scope.of(files=["app/client.py"]))
    with pytest.raises(BadInput, match="no unresolved call site of this stub at app/service.py:99"):
        triage.resolve(g, repo, "save", sym, scope=Scope.of(sites=["app/service.py:99"]))
    with pytest.raises(BadInput, match="no unresolved call site of 'save' in file app/client.py"):
        triage.resolve(g, repo, "save", sym, scope=Scope.of(files=["app/client.py"]))
    with pytest.raises(BadInput, match="FILE:LINE"):
        Scope.of(sites=["app/service.py"])
    with pytest.raises(BadInput, match="leaves the repo root"):
        Scope.of(folders=["../elsewhere"])
    with pytest.raises(BadInput, match="inside the repo"):
        Scope.of(folders=["./"])
    triage.ignore(g, repo, "save", scope=Scope.of(files=["app/service.py"]))  # both call sites: the stub goes
    triage.ignore(g, repo, "requests.get", scope=Scope.of(files=["app/client.py"]))
    with pytest.raises(BadInput, match="already has a decision on file app/client.py"):
        triage.ignore(g, repo, "requests.get", scope=Scope.of(files=["app/client.py"]))
    with pytest.raises(TargetNotFound, match="on file app/nope.py"):
        triage.undo(g, repo, "save", scope=Scope.of(files=["app/nope.py"]))
    assert stubs(g, repo) == {k: v for k, v in {**BASE_STUBS, "requests.get": 1}.items() if k != "save"}

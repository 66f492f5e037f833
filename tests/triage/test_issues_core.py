"""Issues to code (codegraph.core.issues): export shapes, mention extraction, the exact
MENTIONS edges of a recorded export on the indexed fixture repository, re-import, and
the three queries. Runs on the embedded graph and on Neo4j where it is available. No
network: the live API path is driven by an injected fetcher."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from codegraph.core import issues
from codegraph.core.errors import BadInput, TargetNotFound
from codegraph.core.models import IN_REPO, MENTIONS, issue_uid, repo_uid
from tests.triage.fixture import Tree
from tests.triage.issues_fixture import COMMENTS, EXPORT, ISSUES


def sym(tree: Tree, qn: str) -> str:
    [n] = tree.graph.symbols_by_qualified_name([qn], tree.repo)[qn]
    return n.uid


def mention_edges(tree: Tree) -> set[tuple[int, str, str, bool, tuple[str, ...], int]]:
    """(issue number, target uid, resolution, ambiguous, where, line) of every MENTIONS edge."""
    nodes = issues.issue_nodes(tree.graph, tree.repo)
    out = set()
    for uid, hits in tree.graph.neighbours([n.uid for n in nodes], "out", [MENTIONS]).items():
        for h in hits:
            e = h.edge
            assert e.file == f"issue#{uid.rsplit('|', 1)[1]}" and e.line == 0
            out.add((int(uid.rsplit("|", 1)[1]), e.target, e.resolution, bool(e.extra.get("ambiguous")),
                     tuple(e.extra["where"]), int(e.extra.get("line", 0))))
    return out


def expected(tree: Tree) -> set[tuple[int, str, str, bool, tuple[str, ...], int]]:
    r = tree.repo
    return {
        (1, sym(tree, "app.store.save"), "unique_name", False, ("title",), 0),
        (1, f"file|{r}|app/store.py", "exact", False, ("body",), 4),
        (1, sym(tree, "app.service.place"), "unique_name", False, ("comment 1",), 0),
        (1, sym(tree, "app.audit.save"), "exact", False, ("comment 1",), 0),
        (2, sym(tree, "app.audit.save"), "", True, ("body",), 0),
        (2, sym(tree, "app.store.save"), "", True, ("body",), 0),
        (2, f"file|{r}|app/client.py", "exact", False, ("body",), 6),
        (3, sym(tree, "app.client.fetch"), "unique_name", False, ("comment 1",), 0),
        (4, sym(tree, "app.store.save"), "unique_name", False, ("title",), 0),
    }


# ---------------------------------------------------------------------------- parsing (no store)
def test_extract_mentions_reads_code_spans_and_paths_not_fenced_code() -> None:
    text = ("Calling `OrderService.place()` fails in `shop/orders.py:14`; ``Foo::bar`` and `None` and "
            "`codegraph index .` too. See https://github.com/o/r/blob/main/shop/store.py#L4, ./shop/api.py:3 "
            "and README.\n```\nsave(x)\n```\n~~~\n`hidden`\n~~~\n")
    got = [(m.text, m.kind, m.line) for m in issues.extract_mentions(text, "body")]
    assert got == [("OrderService.place", "identifier", 0), ("shop/orders.py", "path", 14),
                   ("Foo::bar", "identifier", 0), ("shop/store.py", "path", 4), ("shop/api.py", "path", 3)]


def test_export_shapes_inline_separate_by_number_and_flat_list() -> None:
    inline = issues.parse_export(ISSUES)
    assert [(i.number, i.state, len(i.comments), i.comment_count) for i in inline] == [
        (1, "open", 1, 1), (2, "closed", 0, 0), (3, "open", 0, 1), (4, "open", 0, 0)]
    assert (inline[0].labels, inline[0].author, inline[0].url) == (["bug"], "ana", "https://github.com/acme/app/issues/1")
    assert inline[1].labels == ["bug"] and inline[3].is_pull_request and inline[2].body == ""
    keyed = issues.parse_export(EXPORT)
    assert [c.body for c in keyed[2].comments] == ["Explain what `fetch` returns."]
    assert keyed[2].comments[0].author == "cy"
    flat = [{"issue_url": "https://api.github.com/repos/acme/app/issues/3", "body": "one", "user": {"login": "x"}},
            {"issue_number": 1, "body": "two"}]
    both = issues.parse_export({"issues": ISSUES, "comments": flat})
    assert [c.body for c in both[2].comments] == ["one"]
    assert [c.body for c in both[0].comments] == ["Also `place()` and `app.audit.save` look wrong.", "two"]
    separate = issues.parse_export(ISSUES, COMMENTS)  # a separate comments file
    assert [c.body for c in separate[2].comments] == ["Explain what `fetch` returns."]


@pytest.mark.parametrize(("data", "message"), [
    ({"items": []}, "expected a list of issues"),
    ([{"title": "no number"}], "no integer `number`"),
    ({"issues": [], "comments": {"x": []}}, "expected issue numbers"),
    ({"issues": [], "comments": [{"body": "orphan"}]}, "names no issue"),
    ("text", "expected a list of issues"),
])
def test_bad_exports_say_what_is_wrong(data: Any, message: str) -> None:
    with pytest.raises(BadInput, match=message):
        issues.parse_export(data)


def test_load_export_reads_files_and_reports_bad_json(tmp_path: Path) -> None:
    f, c = tmp_path / "issues.json", tmp_path / "comments.json"
    f.write_text(json.dumps(ISSUES), encoding="utf-8")
    c.write_text(json.dumps(COMMENTS), encoding="utf-8")
    assert [len(i.comments) for i in issues.load_export(f, c)] == [1, 0, 1, 0]
    f.write_text("[{", encoding="utf-8")
    with pytest.raises(BadInput, match="not valid JSON"):
        issues.load_export(f)


def test_fetch_follows_pages_and_joins_comments_without_network() -> None:
    calls: list[tuple[str, str | None]] = []
    pages = {
        "https://api.github.com/repos/acme/app/issues?state=all&per_page=100": (
            ISSUES[:2], {"link": '<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=2>; '
                                 'rel="last"'}),
        "https://api.github.com/x?page=2": (ISSUES[2:], {}),
        "https://api.github.com/repos/acme/app/issues/comments?per_page=100": (
            [{"issue_url": "https://api.github.com/repos/acme/app/issues/3", "body": "`fetch`"}], {}),
    }

    def get(url: str, headers: dict[str, str]) -> tuple[Any, dict[str, str]]:
        calls.append((url, headers.get("Authorization")))
        return copy.deepcopy(pages[url][0]), pages[url][1]

    got = issues.fetch_issues("acme/app", "t0k", get=get)
    assert [i.number for i in got] == [1, 2, 3, 4]
    assert [c.body for c in got[2].comments] == ["`fetch`"]
    assert [u for u, _ in calls] == list(pages) and {a for _, a in calls} == {"Bearer t0k"}
    with pytest.raises(BadInput, match="OWNER/NAME"):
        issues.fetch_issues("not a repo", get=get)


def test_github_token_from_env_then_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    assert issues.github_token(tmp_path) is None
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "secrets.toml").write_text('[github]\ntoken = "from-secrets"\n', encoding="utf-8")
    assert issues.github_token(tmp_path / "sub") == "from-secrets"
    monkeypatch.setenv("GITHUB_TOKEN", "from-env")
    assert issues.github_token(tmp_path) == "from-env"


# ---------------------------------------------------------------------------- import and queries
def test_import_links_issues_to_exactly_the_mentioned_code(tree: Tree) -> None:
    s = issues.import_issues(tree.graph, tree.repo, issues.parse_export(EXPORT), source="test")
    assert (s.issues, s.open, s.resolved, s.ambiguous, s.unresolved, s.edges) == (4, 3, 7, 1, 1, 9)
    assert mention_edges(tree) == expected(tree)
    n1 = tree.graph.get_nodes([issue_uid(tree.repo, 1)])[issue_uid(tree.repo, 1)]
    p = n1.props
    assert (p["title"], p["state"], p["labels"], p["author"], p["comment_count"], p["mentions"],
            p["unresolved_mentions"], p["url"]) == ("`store.save` drops fields", "open", ["bug"], "ana", 1, 4,
                                                    ["OrderThing"], "https://github.com/acme/app/issues/1")
    links = tree.graph.neighbours([issue_uid(tree.repo, n) for n in (1, 2, 3, 4)], "out", [IN_REPO])
    assert {u: [h.node.uid for h in hs] for u, hs in links.items()} == {
        issue_uid(tree.repo, n): [repo_uid(tree.repo)] for n in (1, 2, 3, 4)}


def test_reimport_replaces_only_that_issues_edges(tree: Tree) -> None:
    issues.import_issues(tree.graph, tree.repo, issues.parse_export(EXPORT))
    changed = copy.deepcopy(ISSUES[0])
    changed["body"] = "Nothing about files any more."
    changed["state"] = "closed"
    issues.import_issues(tree.graph, tree.repo, issues.parse_export([changed]))
    want = {e for e in expected(tree) if not (e[0] == 1 and e[1] == f"file|{tree.repo}|app/store.py")}
    assert mention_edges(tree) == want
    links = tree.graph.neighbours([issue_uid(tree.repo, 1)], "out", [IN_REPO])[issue_uid(tree.repo, 1)]
    assert len(links) == 1  # no duplicate IN_REPO
    assert tree.graph.get_nodes([issue_uid(tree.repo, 1)])[issue_uid(tree.repo, 1)].props["state"] == "closed"


def test_import_into_an_unknown_repo_fails(tree: Tree) -> None:
    with pytest.raises(TargetNotFound, match="not indexed"):
        issues.import_issues(tree.graph, "no-such-repo-here", issues.parse_export(ISSUES))


def test_issues_mentioning_a_symbol_and_a_file(tree: Tree) -> None:
    issues.import_issues(tree.graph, tree.repo, issues.parse_export(EXPORT))
    refs = issues.issues_mentioning(tree.graph, "app.store.save", tree.repo)
    assert [(r.number, r.state, r.ambiguous) for r in refs] == [(4, "open", False), (1, "open", False),
                                                                 (2, "closed", True)]
    assert [r.number for r in issues.issues_mentioning(tree.graph, "app.store.save", tree.repo, "open")] == [4, 1]
    # A file target counts mentions of the file and of what it declares.
    refs = issues.issues_mentioning(tree.graph, "file:app/store.py", tree.repo)
    assert sorted((r.number, r.mentioned) for r in refs) == [
        (1, "app.store.save"), (1, "app/store.py"), (2, "app.store.save"), (4, "app.store.save")]


def test_most_discussed_counts_issues_not_mentions(tree: Tree) -> None:
    issues.import_issues(tree.graph, tree.repo, issues.parse_export(EXPORT))
    rows = issues.most_discussed(tree.graph, tree.repo)
    assert [(r.name, r.issues, r.open_issues, r.ambiguous, r.numbers) for r in rows] == [
        ("app.store.save", 2, 2, 1, [4, 1]),
        ("app.audit.save", 1, 1, 1, [1]),
        ("app.client.fetch", 1, 1, 0, [3]),
        ("app.service.place", 1, 1, 0, [1]),
        ("app/store.py", 1, 1, 0, [1]),
        ("app/client.py", 1, 0, 0, [2]),  # its only issue is closed: after the open ones
    ]
    with_amb = issues.most_discussed(tree.graph, tree.repo, include_ambiguous=True)
    assert (with_amb[0].name, with_amb[0].issues) == ("app.store.save", 3)
    assert [r.name for r in issues.most_discussed(tree.graph, tree.repo, state="closed")] == ["app/client.py"]


def test_open_issues_in_the_blast_radius(tree: Tree) -> None:
    issues.import_issues(tree.graph, tree.repo, issues.parse_export(EXPORT))
    res = issues.issues_in_radius(tree.graph, "app.store.save", tree.repo, depth=3)
    assert [(r.number, r.mentioned, r.depth) for r in res.issues] == [
        (4, "app.store.save", 0), (1, "app.store.save", 0), (1, "app/store.py", 0), (1, "app.service.place", 1)]
    everything = issues.issues_in_radius(tree.graph, "app.store.save", tree.repo, depth=3, state=None)
    assert (2, "app.store.save", 0, True) in {(r.number, r.mentioned, r.depth, r.ambiguous) for r in everything.issues}
    with pytest.raises(TargetNotFound):
        issues.issues_in_radius(tree.graph, "no.such.thing", tree.repo)

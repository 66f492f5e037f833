"""Impact widening: a type found in several repos widens to its members in every repo."""

from __future__ import annotations

from pathlib import Path

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.impact import impact
from codegraph.core.impact.widening import widen
from codegraph.core.models import CALLS, Edge, FileImport, FileRecord, RepoRecord, SymbolRecord, stable_hash


def _sym(repo: str, qn: str, kind: str, line: int, parent: str | None = None) -> SymbolRecord:
    return SymbolRecord(repo=repo, qualified_name=qn, signature_hash=stable_hash(kind, qn), name=qn.rsplit(".", 1)[-1],
                        kind=kind, language="python", language_kind="x", file="app/order.py", line=line,
                        end_line=line + 1, content_hash="c", parent=parent)


def test_class_in_two_repos_widens_members_in_each(tmp_path: Path) -> None:
    g = EmbeddedGraphStore(tmp_path / "g.db")
    members = {}
    for repo in ("shop", "billing"):
        g.upsert_repo(RepoRecord(repo, f"/src/{repo}"))
        cls = _sym(repo, "app.order.Order", "class", 1)
        total = _sym(repo, "app.order.Order.total", "method", 2, parent="app.order.Order")
        caller = _sym(repo, "app.order.use", "function", 9)
        g.import_files(repo, [FileImport(FileRecord(repo, "app/order.py", "python", "h"), [cls, total, caller])])
        g.replace_edges(repo, ["app/order.py"], [Edge(CALLS, caller.uid, total.uid, "app/order.py", 10, "self")])
        members[repo] = total.uid
    targets = g.symbols_by_qualified_name(["app.order.Order"])["app.order.Order"]
    assert {t.repo for t in targets} == {"shop", "billing"}
    assert set(members.values()) <= {n.uid for n in widen(g, targets)}
    res = impact(g, "app.order.Order", depth=1)
    assert sorted((c.node.repo, c.node.qualified_name) for c in res.callers) == [
        ("billing", "app.order.use"), ("shop", "app.order.use")]
    g.close()

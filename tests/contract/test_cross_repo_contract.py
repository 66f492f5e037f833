"""Cross-repo rules (docs/DESIGN.md#workspaces) against every backend: the
hand-written workspace of tests/fixtures/workspace (a Python library, a Python API, a
TypeScript client, a Java consumer), each indexed as its own repository.

Repo names carry a per-test prefix (the Neo4j server is shared); every assertion names
the exact expected edge set, missed and extra both fail.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from codegraph.core.graph_store import GraphStore
from codegraph.core.impact import impact
from codegraph.core.workspace import Workspace, WorkspaceConfig
from codegraph.indexer import pipeline
from codegraph.indexer.cross_repo import link_workspace, report, unlink_repo
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "workspace"
NAMES = ("money-lib", "pay-api", "web-client", "ledger")


@dataclass
class Estate:
    store: GraphStore
    state: StateStore
    state_db: Path
    root: Path
    cfg: WorkspaceConfig
    name: dict[str, str]  # fixture name -> repo name in the graph

    def index(self, short: str) -> None:
        index_repo(self.root / short, self.name[short], self.store, None, self.state, workers=1)

    def link(self, only: list[str] | None = None) -> None:
        link_workspace(self.store, self.state, self.cfg, [self.name[s] for s in only] if only else None,
                       state_db=self.state_db)

    def short(self, uid: str) -> str:
        """sym|repo|qn|sig -> repo:qn; file|repo|p -> repo:p; endpoint/topic/stub likewise."""
        kind, repo, rest = uid.split("|", 2)
        back = {v: k for k, v in self.name.items()}
        if kind == "sym":
            rest = rest.rsplit("|", 1)[0]
        return f"{back.get(repo, repo)}:{'stub:' if kind == 'stub' else ''}{rest}"

    def cross_edges(self) -> set[tuple[str, str, str]]:
        out = set()
        for r in self.name.values():
            uids = [n.uid for label in ("Symbol", "File") for n in self.store.nodes_by_label(label, r, limit=10000)]
            for hits in self.store.neighbours(uids, "out").values():
                for h in hits:
                    if h.edge.resolution == "cross_repo":
                        out.add((h.edge.type, self.short(h.edge.source), self.short(h.edge.target)))
        return out


@pytest.fixture
def estate(store: GraphStore, tmp_path: Path) -> Iterator[Estate]:
    prefix = f"ws{uuid.uuid4().hex[:8]}-"
    root = tmp_path / "estate"
    shutil.copytree(FIXTURE, root)
    name = {n: prefix + n for n in NAMES}
    cfg = WorkspaceConfig([Workspace(prefix + "payments", list(name.values()))],
                          {name["pay-api"]: ["https://pay.internal", "${PAY_URL}"]})
    state_db = tmp_path / "state.db"
    state = StateStore(state_db)
    e = Estate(store, state, state_db, root, cfg, name)
    try:
        for n in NAMES:
            e.index(n)
        e.link()
        yield e
    finally:
        state.close()
        for r in name.values():
            store.delete_repo(r)


EXPECTED = {
    # library: pay-api imports and calls money-lib (through the package's re-export)
    ("IMPORTS", "pay-api:payapi/routes.py", "money-lib:src/moneylib/__init__.py"),
    ("IMPORTS", "pay-api:payapi/routes.py", "money-lib:src/moneylib/cents.py"),
    ("CALLS", "pay-api:payapi.routes.charge", "money-lib:moneylib.cents.to_cents"),
    ("CALLS", "pay-api:payapi.routes.list_payments", "money-lib:moneylib.cents.from_cents"),
    # http: relative path, ${PAY_URL} base and the absolute base URL of pay-api
    ("CALLS_HTTP", "web-client:src/api.listPayments", "pay-api:GET /pay/list"),
    ("CALLS_HTTP", "web-client:src/api.charge", "pay-api:POST /pay/charge"),
    ("CALLS_HTTP", "web-client:src/api.listFromGateway", "pay-api:GET /pay/list"),
    # kafka: one topic per name across the workspace, both directions
    ("PRODUCES", "pay-api:payapi.routes.charge", "ledger:payments"),
    ("CONSUMES", "ledger:com.acme.ledger.LedgerListener.onPayment", "pay-api:payments"),
    ("PRODUCES", "web-client:src/api.audit", "ledger:audit"),
    ("CONSUMES", "ledger:com.acme.ledger.LedgerListener.onAudit", "web-client:audit"),
}


def test_exact_cross_repo_edges(estate: Estate) -> None:
    assert estate.cross_edges() == EXPECTED
    assert estate.store.verify()["dangling_edges"] == 0


def test_ambiguous_and_unmatched_client_calls_are_reported(estate: Estate) -> None:
    rep = report(estate.state, estate.name["web-client"])
    assert [(a["url"], a["candidates"]) for a in rep["ambiguous_http"]] == [
        ("/health", sorted([f"{estate.name['ledger']}: GET /health", f"{estate.name['pay-api']}: GET /health"]))]
    assert [(u["url"], u["reason"]) for u in rep["unmatched_http"]] == [("/nowhere/at/all", "no_match")]
    assert rep["edges"] == {"http": 3, "kafka": 1}


def test_resolved_library_stubs_leave_the_dependant(estate: Estate) -> None:
    stubs = {n.props["target_identifier"] for n in estate.store.nodes_by_label("UnresolvedSymbol",
                                                                                estate.name["pay-api"])}
    assert not {s for s in stubs if s.startswith("moneylib")}
    assert "fastapi" in stubs  # a library outside the workspace stays a stub


def test_impact_crosses_repositories(estate: Estate) -> None:
    res = impact(estate.store, "moneylib.cents.to_cents", depth=4)
    reached = {(c.node.repo, c.node.qualified_name) for c in res.callers}
    assert (estate.name["pay-api"], "payapi.routes.charge") in reached
    assert (estate.name["web-client"], "src/api.charge") in reached  # through POST /pay/charge
    producer = impact(estate.store, "payapi.routes.charge", depth=3)
    assert (estate.name["ledger"], "com.acme.ledger.LedgerListener.onPayment") in {
        (c.node.repo, c.node.qualified_name) for c in producer.callers}
    topic = impact(estate.store, "topic:payments", depth=1)
    assert {(c.node.repo, c.node.qualified_name) for c in topic.callers if c.depth == 1} >= {
        (estate.name["pay-api"], "payapi.routes.charge"),
        (estate.name["ledger"], "com.acme.ledger.LedgerListener.onPayment")}


def test_relink_after_the_library_changes_without_reparsing_dependants(
        estate: Estate, monkeypatch: pytest.MonkeyPatch) -> None:
    cents = estate.root / "money-lib" / "src" / "moneylib" / "cents.py"
    original = cents.read_text()
    cents.write_text(original.replace("def from_cents", "def cents_to_amount"))
    estate.index("money-lib")

    def no_parse(*a: object, **k: object) -> None:
        raise AssertionError("a dependant was re-parsed")

    monkeypatch.setattr(pipeline, "extract_source", no_parse)
    estate.link()
    gone = ("CALLS", "pay-api:payapi.routes.list_payments", "money-lib:moneylib.cents.from_cents")
    assert estate.cross_edges() == EXPECTED - {gone}
    stubs = {n.props["target_identifier"] for n in estate.store.nodes_by_label("UnresolvedSymbol",
                                                                                estate.name["pay-api"])}
    assert "moneylib.cents.from_cents" in stubs  # the stub edge came back
    monkeypatch.undo()
    cents.write_text(original)
    estate.index("money-lib")
    estate.link()
    assert estate.cross_edges() == EXPECTED
    assert estate.store.verify()["dangling_edges"] == 0


def test_reindexing_the_dependant_keeps_its_cross_repo_edges(estate: Estate) -> None:
    routes = estate.root / "pay-api" / "payapi" / "routes.py"
    routes.write_text(routes.read_text() + "\n\ndef extra():\n    return to_cents(1)\n")
    estate.index("pay-api")
    estate.link([ "pay-api"])
    assert estate.cross_edges() == EXPECTED | {("CALLS", "pay-api:payapi.routes.extra", "money-lib:moneylib.cents.to_cents")}


def test_removing_a_repo_leaves_no_dangling_edge(estate: Estate) -> None:
    lib = estate.name["money-lib"]
    unlink_repo(estate.store, estate.state, estate.cfg, lib)
    estate.store.delete_repo(lib)
    assert {e for e in estate.cross_edges() if "money-lib:" in e[2]} == set()
    stubs = {n.props["target_identifier"] for n in estate.store.nodes_by_label("UnresolvedSymbol",
                                                                                estate.name["pay-api"])}
    assert {"moneylib", "moneylib.cents", "moneylib.to_cents", "moneylib.cents.from_cents"} <= stubs
    assert estate.store.verify()["dangling_edges"] == 0


def test_delete_repo_alone_drops_edges_of_other_repos_into_it(estate: Estate) -> None:
    estate.store.delete_repo(estate.name["pay-api"])
    assert estate.store.verify()["dangling_edges"] == 0
    assert not {e for e in estate.cross_edges() if "pay-api:" in e[1] or "pay-api:" in e[2]}


LANGS = Path(__file__).resolve().parents[1] / "fixtures" / "workspace_langs"


def test_library_edges_for_go_rust_csharp_npm_and_java(store: GraphStore, tmp_path: Path) -> None:
    """go.mod module path, Cargo crate name, C# namespace, npm name + exports sub-path and
    Java package, each provided by one repo and used by another: the exact cross-repo edges."""
    prefix = f"wl{uuid.uuid4().hex[:8]}-"
    shorts = ("golib", "goapp", "rlib", "rapp", "cslib", "csapp", "jlib", "japp", "javalib", "javaapp")
    name = {s: prefix + s for s in shorts}
    state = StateStore(tmp_path / "state.db")
    e = Estate(store, state, tmp_path / "state.db", LANGS, WorkspaceConfig([Workspace(prefix + "w", list(name.values()))]),
               name)
    try:
        for s in shorts:
            e.index(s)
        e.link()
        assert e.cross_edges() == {
            ("CALLS", "goapp:cmd.main", "golib:money.Round"),
            ("CALLS", "goapp:cmd.main", "golib:internal/fx.Rate"),
            ("CALLS", "rapp:main", "rlib:round"),
            ("CALLS", "rapp:main", "rlib:util::clamp"),
            ("CALLS", "csapp:Shop.App.Go", "cslib:Acme.Money.Calc.Round"),
            # npm: "@acme/jlib" is package.json "." (lib/index.js), "@acme/jlib/fmt" its "./fmt" export
            ("IMPORTS", "japp:src/app.ts", "jlib:lib/index.js"),
            ("IMPORTS", "japp:src/app.ts", "jlib:lib/fmt.js"),
            ("CALLS", "japp:src/app.run", "jlib:lib/index.compute"),
            ("CALLS", "japp:src/app.run", "jlib:lib/fmt.fmt"),
            # Java: the import names com.acme.util.Money, a class of javalib's package
            ("CALLS", "javaapp:com.shop.Shop.go", "javalib:com.acme.util.Money.round"),
            ("CALLS", "javaapp:com.shop.Shop.go", "javalib:com.acme.util.Money.cents"),
        }
        assert store.verify()["dangling_edges"] == 0
    finally:
        state.close()
        for r in name.values():
            store.delete_repo(r)

"""Every dashboard page, run with Streamlit's AppTest on the indexed shop repository.

Each test also checks that the page raised nothing (``at.exception``) and showed no
error line unless the test is about one.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard.conftest import APP, open_app
from tests.dashboard.shop import SAVE_CALLERS, Indexed, index_shop, write_shop

PAGES = ("overview.py", "search.py", "impact.py", "coverage.py", "health.py", "cypher.py")
App = Callable[..., AppTest]


def clean(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def table_with(at: AppTest, column: str) -> list[dict]:
    """Rows of the first dataframe that has ``column``."""
    for df in at.dataframe:
        if column in df.value.columns:
            return df.value.to_dict("records")
    raise AssertionError(f"no table with column {column!r}; tables: {[list(d.value.columns) for d in at.dataframe]}")


def text_of(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [c.value for c in at.code]
    parts += [x.value for x in (*at.info, *at.warning, *at.success)]
    return "\n".join(str(p) for p in parts)


# ---------------------------------------------------------------------------- every page
@pytest.mark.parametrize("page", PAGES)
def test_page_renders_without_exception(app: App, page: str) -> None:
    at = clean(app(page))
    assert at.title and at.title[0].value  # the page drew its heading, not an early failure


def _other_pages() -> list[str]:
    from codegraph.dashboard.app import PAGES as LISTED

    return [p.file for p in LISTED if p.file not in PAGES]


@pytest.mark.parametrize("page", _other_pages())
def test_pages_of_other_faces_raise_nothing(app: App, page: str) -> None:
    at = app(page)
    assert not at.exception, [e.value for e in at.exception]


def test_every_listed_page_exists_and_is_reachable() -> None:
    from codegraph.dashboard.app import PAGES as LISTED
    from codegraph.dashboard.app import PAGES_DIR

    assert [p.file for p in LISTED][:len(PAGES)] == list(PAGES)
    assert all((PAGES_DIR / p.file).is_file() for p in LISTED)
    assert sum(p.default for p in LISTED) == 1


# ---------------------------------------------------------------------------- overview
def test_overview_shows_counts_and_freshness(app: App, shop: Indexed) -> None:
    from codegraph.core.stores import open_graph_store

    g = open_graph_store(shop.settings)
    counts = g.counts("shop")
    g.close()
    at = clean(app())
    m = metrics(at)
    assert m["Repositories"] == "1"
    assert m["Files"] == "8"  # 7 Python files + the Ruby file; README.txt is not source
    assert m["Symbols"] == str(counts["nodes"]["Symbol"])
    assert int(m["Edges"]) == sum(v for k, v in counts["edges"].items() if k not in ("IN_REPO", "DECLARES")) > 0
    assert m["Parse errors"] == "1"
    repos = table_with(at, "commit")
    assert [r["repo"] for r in repos] == ["shop"]
    assert repos[0]["path"] == str(shop.root.resolve())
    assert repos[0]["imported"] != "never"
    edges = {r["type"]: r["edges"] for r in table_with(at, "type")}
    assert edges["CALLS"] == counts["edges"]["CALLS"]
    langs = {r["language"]: r["files"] for r in table_with(at, "language")}
    assert langs == {"python": 7, "ruby": 1}


def test_overview_empty_state_says_how_to_index(point_at: Callable[..., None], tmp_path: Path) -> None:
    point_at(tmp_path / "empty-home")
    at = clean(open_app())
    assert any("codegraph index PATH" in i.value for i in at.info)
    assert not at.metric


def test_repo_filter_in_sidebar_lists_repos(app: App) -> None:
    at = clean(app())
    sb = at.sidebar.selectbox[0]
    assert sb.options == ["All repositories", "shop"]
    sb.set_value("shop").run()
    clean(at)
    assert metrics(at)["Files"] == "8"


# ---------------------------------------------------------------------------- search
def test_search_finds_a_function_bm25_only(app: App) -> None:
    at = clean(app("search.py"))
    at.text_input(key="search_query").input("persist a record in the database").run()
    clean(at)
    heads = [m.value for m in at.markdown if m.value.startswith("**1.")]
    assert heads and "`shop.store.save`" in heads[0] and "shop/store.py:4" in heads[0]
    assert any("BM25-only" in w.value and "CODEGRAPH_EMBED_MODEL_PATH" in w.value for w in at.warning)
    # Source snippet with real line numbers and graph context (1 caller: OrderService.place).
    assert any("def save(record):" in c.value and c.value.lstrip().startswith("4") for c in at.code)
    assert any("BM25 rank 1" in c.value and "1 caller(s)" in c.value for c in at.caption)


def test_search_filters_by_content_kind(app: App) -> None:
    at = clean(app("search.py"))
    assert at.multiselect(key="search_kinds").value == ["code", "schema", "config", "docs"]
    at.multiselect(key="search_kinds").set_value(["code"]).run()
    at.text_input(key="search_query").input("persist a record in the database").run()
    clean(at)
    heads = [m.value for m in at.markdown if m.value.startswith("**")]
    assert heads and all(" · code: " in h for h in heads)
    at.multiselect(key="search_kinds").set_value(["docs"]).run()  # the shop has no Markdown
    clean(at)
    assert not [m.value for m in at.markdown if m.value.startswith("**1.")]
    assert any("No hit" in i.value for i in at.info)


def test_search_hit_opens_impact(app: App) -> None:
    at = clean(app("search.py"))
    at.text_input(key="search_query").input("persist a record in the database").run()
    at.button(key="search_impact_1").click().run()
    clean(at)
    assert at.title[0].value == "Impact"
    assert at.text_input(key="impact_target").value == "shop.store.save"
    assert {r["caller"] for r in table_with(at, "caller")} == SAVE_CALLERS


def test_search_hybrid_with_the_embedding_model(point_at: Callable[..., None],
                                                tmp_path_factory: pytest.TempPathFactory) -> None:
    from codegraph.core.settings import load_settings

    if load_settings(embed_model_path="").model_folder() is None:
        pytest.skip("no embedding model folder (models/all-MiniLM-L6-v2-onnx)")
    root = write_shop(tmp_path_factory.mktemp("shop-src-emb"))
    idx = index_shop(root, tmp_path_factory.mktemp("shop-home-emb"), embed=True)
    point_at(idx.home, model=True)
    at = clean(open_app("search.py"))
    at.text_input(key="search_query").input("write a record to the database").run()
    clean(at)
    assert not any("BM25-only" in w.value for w in at.warning)
    assert any("mode **hybrid**" in c.value for c in at.caption)
    heads = [m.value for m in at.markdown if m.value.startswith("**")]
    assert any("shop.store.save" in h for h in heads[:3]), heads
    assert any("kNN rank 1" in c.value for c in at.caption)


# ---------------------------------------------------------------------------- impact
def pick(at: AppTest, target: str) -> AppTest:
    at.text_input(key="impact_target").input(target).run()
    return clean(at)


def test_impact_picker_lists_every_match_with_kind_file_repo(app: App) -> None:
    at = pick(app("impact.py"), "save")
    ms = at.multiselect[0]
    labels = list(ms.options)  # AppTest exposes the formatted labels
    assert len(labels) == 2, labels
    assert any("shop.store.save" in o and "function" in o and "shop/store.py:4" in o and "shop" in o for o in labels)
    assert any("shop.audit.save" in o and "shop/audit.py:4" in o for o in labels)
    # A bare name preselects every match (README: "a bare name (every match, labelled)").
    assert len(ms.value) == 2
    assert {r["caller"] for r in table_with(at, "caller")} == SAVE_CALLERS | {"shop.audit.record_event"}
    # A qualified name preselects that one symbol.
    assert len(pick(at, "shop.store.save").multiselect[0].value) == 1


def test_impact_shows_callers_in_the_evidence_table(app: App) -> None:
    at = pick(app("impact.py"), "shop.store.save")
    rows = table_with(at, "caller")
    assert {r["caller"] for r in rows} == SAVE_CALLERS
    by = {r["caller"]: r for r in rows}
    assert by["shop.orders.OrderService.place"]["depth"] == 1
    assert by["shop.orders.OrderService.place"]["evidence"] == "shop/orders.py:14"
    assert by["shop.orders.OrderService.place"]["via"] == "CALLS"
    assert by["shop.api.create_order"]["depth"] == 2
    assert by["shop.api.bulk_create"]["depth"] == 3
    assert by["tests.test_orders.test_create_order"]["test"] is True
    assert by["shop.api.bulk_create"]["path"] == (
        "shop.api.bulk_create → shop.api.create_order → shop.orders.OrderService.place → shop.store.save")
    m = metrics(at)
    assert m["Callers"] == "4" and m["Entry points"] == "1" and m["Depth"] == "5"
    entries = table_with(at, "entry point")
    assert [(e["kind"], e["entry point"]) for e in entries] == [("test", "tests.test_orders.test_create_order")]
    assert any("Graph of **shop**" in c.value for c in at.caption)  # freshness
    labels = [b.label for b in at.get("download_button")]
    assert labels == ["Re-check list (Markdown)", "Re-check list (CSV)"]


def test_impact_narrowing_updates_counts(app: App) -> None:
    at = pick(app("impact.py"), "shop.store.save")
    at.toggle(key="impact_hide_tests").set_value(True).run()
    clean(at)
    assert {r["caller"] for r in table_with(at, "caller")} == SAVE_CALLERS - {"tests.test_orders.test_create_order"}
    at.slider(key="impact_depth").set_value(2).run()
    clean(at)
    assert {r["caller"] for r in table_with(at, "caller")} == {"shop.orders.OrderService.place",
                                                                "shop.api.create_order"}
    assert metrics(at)["Callers"] == "2"
    at.multiselect(key="impact_edges").set_value(["IMPORTS"]).run()
    clean(at)
    # A function has no importers of its own (IMPORTS joins files): nothing left to list.
    assert metrics(at)["Callers"] == "0"
    assert any("No caller found" in i.value for i in at.info)
    at.multiselect(key="impact_edges").set_value(["CALLS"]).run()
    clean(at)
    assert metrics(at)["Callers"] == "2"


def test_impact_truncation_banner(app: App) -> None:
    at = pick(app("impact.py"), "shop.store.save")
    at.number_input(key="impact_limit").set_value(20).run()  # the minimum: nothing cut on this repo
    assert not any("more exist" in w.value for w in at.warning)
    from codegraph.core.impact import impact
    from codegraph.core.settings import load_settings
    from codegraph.core.stores import open_graph_store
    from codegraph.dashboard.impact_view import merge

    g = open_graph_store(load_settings())
    res = impact(g, "shop.store.save", limit=2)
    g.close()
    assert merge([res]) is res and res.truncated and res.total_callers == 4 and res.shown_callers == 2


def test_impact_several_targets_together(app: App) -> None:
    at = pick(app("impact.py"), "save")
    ms = at.multiselect[0]
    ms.set_value(ms.value[:1]).run()
    clean(at)
    assert len(table_with(at, "caller")) in (1, 4)  # one of the two save functions
    ms.set_value(list(ms.options)).run()
    clean(at)
    callers = {r["caller"] for r in table_with(at, "caller")}
    assert callers == SAVE_CALLERS | {"shop.audit.record_event"}
    assert metrics(at)["Callers"] == "5"


def test_impact_node_details_show_source_and_edges(app: App, shop: Indexed) -> None:
    at = pick(app("impact.py"), "shop.store.save")
    detail = at.selectbox(key="impact_detail")
    uid = next(o for o in detail.options if "shop.api.create_order" in o)
    detail.set_value(uid).run()
    clean(at)
    codes = [c.value for c in at.code]
    assert any("def create_order(payload):" in c and c.lstrip().startswith("5") for c in codes)  # source, real lines
    assert any("return service.place(payload)" in c for c in codes)  # the evidence line
    txt = text_of(at)
    assert "depth **2**" in txt and "shop/api.py:7" in txt
    ins = table_with(at, "from")
    assert {(r["edge"], r["from"]) for r in ins} >= {("CALLS", "shop.api.bulk_create"),
                                                     ("CALLS", "tests.test_orders.test_create_order")}
    outs = table_with(at, "to")
    assert ("CALLS", "shop.orders.OrderService.place") in {(r["edge"], r["to"]) for r in outs}


def test_impact_unknown_target_says_so(app: App) -> None:
    at = pick(app("impact.py"), "no_such_symbol_anywhere")
    assert any("Nothing in the graph matches" in w.value for w in at.warning)
    at = pick(at, "table:nope")
    assert any("nothing in the graph matches 'table:nope'" in w.value for w in at.warning)


# ---------------------------------------------------------------------------- coverage, health, cypher
def _reference_oracle(shop: Indexed) -> tuple[int, int]:
    """(resolved, unresolved) reference edges of the shop, read straight from sqlite."""
    import sqlite3

    from codegraph.dashboard.coverage_data import REFERENCE_EDGES

    con = sqlite3.connect(shop.settings.graph_db)
    q = ",".join("?" * len(REFERENCE_EDGES))
    rows = con.execute(f"SELECT n.label = 'UnresolvedSymbol', count(*) FROM edges e JOIN nodes n ON n.uid = e.target "
                       f"WHERE e.type IN ({q}) GROUP BY 1", REFERENCE_EDGES).fetchall()
    con.close()
    got = dict(rows)
    return got.get(0, 0), got.get(1, 0)


def test_coverage_shows_problems_and_charts(app: App, shop: Indexed) -> None:
    at = clean(app("coverage.py"))
    m = metrics(at)
    # Every known extension has an extractor now; README.txt (a language the indexer does not
    # read) never enters the graph but counts as an unsupported file, as the chart shows.
    assert m["Files"] == "8" and m["Parse errors"] == "1" and m["Unsupported files"] == "1"
    resolved, unresolved = _reference_oracle(shop)
    assert unresolved > 0 and resolved > 0
    assert m["Unresolved references"] == f"{100 * unresolved / (resolved + unresolved):.1f} %"
    # files by language; problems by folder; README.txt by extension (recorded on the Repo node)
    assert len(at.get("plotly_chart")) == 3
    bad = table_with(at, "parse_error")
    assert [(r["path"], r["parse_error"]) for r in bad] == [("shop/broken.py", True)]
    repos = table_with(at, "unresolved %")
    assert [(r["repo"], r["files"], r["parse errors"], r["unresolved refs"]) for r in repos] == [
        ("shop", 8, 1, unresolved)]

    # The by-language share reads every reference edge: it runs when asked.
    at.button(key="coverage_lang_go").click().run()
    clean(at)
    charts = at.get("plotly_chart")
    assert len(charts) == 4
    spec = charts[1].proto.spec
    assert "Unresolved references by language" in spec and '"python"' in spec


def test_reference_rows_match_the_store(shop: Indexed) -> None:
    from codegraph.core.stores import open_graph_store
    from codegraph.dashboard.coverage_data import reference_rows, stub_references

    g = open_graph_store(shop.settings)
    try:
        rows = reference_rows(g, "shop")
        stubs = stub_references(g, None)
    finally:
        g.close()
    resolved, unresolved = _reference_oracle(shop)
    assert sum(r["resolved"] for r in rows) == resolved
    assert sum(r["unresolved"] for r in rows) == unresolved == stubs["shop"]
    assert {r["language"] for r in rows} <= {"python", "ruby"}


def test_health_reports_backends_model_and_sizes(app: App) -> None:
    at = clean(app("health.py"))
    ok = [s.value for s in at.success]
    assert any("`embedded` graph reachable" in s for s in ok) and any("`embedded` search reachable" in s for s in ok)
    assert any("BM25-only" in w.value and "CODEGRAPH_EMBED_MODEL_PATH" in w.value for w in at.warning)
    m = metrics(at)
    assert int(m["Chunks"]) > 0 and m["Repositories"] == "1"
    versions = {r["component"]: r["version"] for r in table_with(at, "component")}
    assert versions["streamlit"] != "not installed"


def test_cypher_console_on_embedded_says_it_needs_neo4j(app: App) -> None:
    at = clean(app("cypher.py"))
    assert any("needs Neo4j" in w.value and "CODEGRAPH_GRAPH=bolt://" in w.value for w in at.warning)
    assert not at.text_area  # no editor that can only fail


def test_unreachable_graph_is_one_readable_line(point_at: Callable[..., None], tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    point_at(tmp_path / "home")
    monkeypatch.setenv("CODEGRAPH_GRAPH", "bolt://127.0.0.1:9")  # nothing listens on the discard port
    for page in PAGES:
        at = open_app(page)
        assert not at.exception, (page, [e.value for e in at.exception])
        errors = [e.value for e in at.error]
        assert errors, page
        assert all("\n" not in e and "CODEGRAPH_GRAPH" in e and "Traceback" not in e for e in errors), (page, errors)


def test_secrets_configure_the_stores_and_env_wins(shop: Indexed, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from codegraph.core import settings

    for k in ("CODEGRAPH_HOME", "CODEGRAPH_GRAPH", "CODEGRAPH_SEARCH", "CODEGRAPH_EMBED_MODEL_PATH"):
        monkeypatch.delenv(k, raising=False)
    settings.get_settings.cache_clear()
    secrets = {"codegraph": {"home": str(shop.home), "graph": "embedded", "search": "embedded",
                             "embed_model_path": "none", "unknown_key": "ignored"}}
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.secrets.update(secrets)
    clean(at.run())
    assert metrics(at)["Files"] == "8"  # secrets beat .codegraph/services.env

    monkeypatch.setenv("CODEGRAPH_HOME", str(tmp_path / "other-home"))
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.secrets.update(secrets)
    clean(at.run())
    assert any("codegraph index PATH" in i.value for i in at.info)  # env beats secrets


def test_impact_deep_link_and_empty_pick(app: App) -> None:
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["target"] = "shop.api.create_order"
    at.run()
    at.switch_page("../pages/impact.py").run()
    clean(at)
    assert at.text_input(key="impact_target").value == "shop.api.create_order"
    assert {r["caller"] for r in table_with(at, "caller")} == {"shop.api.bulk_create",
                                                                "tests.test_orders.test_create_order"}
    at.multiselect[0].set_value([]).run()
    clean(at)
    assert any("Pick at least one match" in i.value for i in at.info) and not at.metric


def test_impact_name_only_stubs_use_points_to_triage(app: App) -> None:
    # `order.get("items")` in shop/orders.py is an unresolved call: no symbol named get exists.
    at = pick(app("impact.py"), "get")
    assert any("Nothing in the graph matches" in w.value for w in at.warning)
    assert any("1 unresolved call site(s)" in i.value and "`get` (1)" in i.value for i in at.info)


def test_impact_callees_direction(app: App) -> None:
    at = pick(app("impact.py"), "shop.api.create_order")
    at.segmented_control(key="impact_direction").set_value("callees").run()
    clean(at)
    rows = {r["caller"]: r["depth"] for r in table_with(at, "caller")}
    assert rows["shop.orders.OrderService.place"] == 1
    assert rows["shop.store.save"] == 2 and rows["shop.orders.OrderService.validate"] == 2
    assert any("callees**" in m.value for m in at.markdown)

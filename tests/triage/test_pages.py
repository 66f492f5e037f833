"""The Triage, Issues and Baselines pages with Streamlit's AppTest, on the fixture
repository indexed by the real pipeline into the embedded stores the dashboard reads
(CODEGRAPH_HOME). Every step also checks the page raised nothing and showed no error
line unless the step is about one."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from codegraph.core import triage
from codegraph.core.models import stub_uid
from tests.dashboard.conftest import open_app
from tests.triage.fixture import FILES, Tree, derived_edges, home_tree, stubs
from tests.triage.issues_fixture import EXPORT


def clean(at: AppTest, errors_ok: bool = False) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    if not errors_ok:
        assert not at.error, [e.value for e in at.error]
    return at


def table_with(at: AppTest, column: str) -> list[dict]:
    for df in at.dataframe:
        if column in df.value.columns:
            return df.value.to_dict("records")
    raise AssertionError(f"no table with column {column!r}: {[list(d.value.columns) for d in at.dataframe]}")


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


@pytest.fixture
def point_at(monkeypatch: pytest.MonkeyPatch) -> Callable[[Path], None]:
    """``point_at(home)``: the dashboard reads the embedded stores under ``home``."""
    from codegraph.core import settings
    from tests.dashboard.shop import dashboard_env

    def point(home: Path) -> None:
        for k, v in dashboard_env(home).items():
            monkeypatch.setenv(k, v)
        settings.get_settings.cache_clear()

    return point


@pytest.fixture
def site(tmp_path: Path, point_at: Callable[..., None]) -> Iterator[Tree]:
    """The fixture tree indexed into CODEGRAPH_HOME's embedded stores, dashboard pointed at it."""
    with home_tree(tmp_path) as (home, tree):
        point_at(home)
        tree.index()
        yield tree


@pytest.mark.parametrize("page", ["triage.py", "issues.py", "baselines.py"])
def test_pages_show_the_empty_state(page: str, point_at: Callable[..., None], tmp_path: Path) -> None:
    point_at(tmp_path / "empty-home")
    at = clean(open_app(page))
    assert at.title[0].value == page.removesuffix(".py").capitalize()
    assert any("codegraph index PATH" in i.value for i in at.info)


# ---------------------------------------------------------------------------- triage
def test_triage_decision_in_one_click_persists_after_a_reindex_and_undoes(site: Tree) -> None:
    g, repo = site.graph, site.repo
    at = clean(open_app("triage.py"))
    assert metrics(at)["Unresolved stubs"] == "5"
    rows = table_with(at, "references")
    assert [(r["target"], r["references"]) for r in rows[:3]] == [("requests", 2), ("requests.get", 2), ("save", 2)]

    at.selectbox(key="triage_pick").set_value(stub_uid(repo, "save")).run()
    clean(at)
    code = [c.value for c in at.code]
    assert any("> 7      repo.save(order)" in c for c in code), code  # the call sites, marked
    assert any("> 13      repo.save(order)" in c for c in code), code
    assert any("def save(record):" in c for c in code) and any("def save(event):" in c for c in code)
    labels = [m.value for m in at.markdown if m.value.startswith("`app.")]
    # Ranked by the calling file's evidence: app/service.py imports app.store, not app.audit.
    assert labels[0].startswith("`app.store.save`") and "imported by 1 of 1 calling file(s)" in labels[0]
    assert labels[1].startswith("`app.audit.save`") and "no calling file imports it" not in labels[1]
    assert "same package as 1 calling file(s)" in labels[1]

    at.text_input(key="triage_by").input("ana").run()
    at.text_input(key="triage_note").input("the repo is the store").run()
    at.button(key="triage_resolve_0").click().run()  # app.store.save
    clean(at)
    assert any("resolved to `app.store.save`" in s.value for s in at.success)
    assert metrics(at)["Unresolved stubs"] == "4"
    assert "save" not in stubs(g, repo)
    store_save = triage.find_symbol(g, "app.store.save", repo).uid
    moved = {(e[1].split("|")[2], e[4]) for e in derived_edges(g, repo) if e[2] == store_save and e[5] == "exact"}
    assert moved == {("app.service.place", 7), ("app.service.cancel", 13)}

    # The next day: an unrelated edit, a re-index; the page still shows the decision applied.
    site.write("app/audit.py", FILES["app/audit.py"] + "\n\ndef purge(events):\n    return []\n")
    site.index()
    at = clean(open_app("triage.py"))
    assert "save" not in [r["target"] for r in table_with(at, "references")]
    assert metrics(at)["Unresolved stubs"] == "4"
    [logged] = table_with(at, "target / pattern")
    assert (logged["target / pattern"], logged["action"], logged["to / library"], logged["by"], logged["status"],
            logged["call sites"], logged["note"]) == ("save", "resolve", "app.store.save", "ana", "active", 2,
                                                      "the repo is the store")

    at.button(key="triage_undo").click().run()
    clean(at)
    assert any(s.value.startswith("Undone: `save`") for s in at.success)
    assert stubs(g, repo)["save"] == 2
    assert metrics(at)["Unresolved stubs"] == "5"
    assert table_with(at, "target / pattern")[0]["status"] == "undone"


def test_triage_bulk_external_by_pattern_and_library_button(site: Tree) -> None:
    g, repo = site.graph, site.repo
    at = clean(open_app("triage.py"))
    at.text_input(key="triage_pattern").input("requests.*").run()
    clean(at)
    assert [r["target"] for r in table_with(at, "target")
            if r["target"] and str(r["target"]).startswith("requests")][:3] == ["requests", "requests.get",
                                                                                 "requests.post"]
    assert at.button(key="triage_bulk_apply").disabled  # external needs a library name
    at.text_input(key="triage_bulk_library").input("requests").run()
    at.button(key="triage_bulk_apply").click().run()
    clean(at)
    assert any("`requests.*` marked external (requests): 3 stub(s), 5 call site(s)" in s.value for s in at.success)
    assert stubs(g, repo) == {"save": 2, "helper_missing": 1}

    # One click on a library guess for a single target.
    at.selectbox(key="triage_pick").set_value(stub_uid(repo, "helper_missing")).run()
    at.button(key="triage_ignore").click().run()
    clean(at)
    assert stubs(g, repo) == {"save": 2}
    site.index()
    assert stubs(g, repo) == {"save": 2}


def test_triage_shows_an_error_line_for_a_refused_decision(site: Tree) -> None:
    at = clean(open_app("triage.py"))
    at.selectbox(key="triage_pick").set_value(stub_uid(site.repo, "save")).run()
    at.text_input(key="triage_other_symbol").input("no.such.symbol").run()
    at.button(key="triage_resolve_named").click().run()
    clean(at, errors_ok=True)
    assert [e.value for e in at.error] == ["no symbol with qualified name 'no.such.symbol'"]
    assert stubs(site.graph, site.repo)["save"] == 2


# ---------------------------------------------------------------------------- issues
def test_issues_page_imports_a_recorded_export_and_shows_mentions(site: Tree, tmp_path: Path) -> None:
    export = tmp_path / "issues.json"
    export.write_text(json.dumps(EXPORT), encoding="utf-8")
    at = clean(open_app("issues.py"))
    assert any("No issue imported yet" in i.value for i in at.info)
    at.text_input(key="issues_path").input(str(export)).run()
    at.button(key="issues_import").click().run()
    clean(at)
    assert any("Imported 4 issue(s) into **app** (3 open): 7 mention(s) resolved, 1 ambiguous, 1 not found"
               in s.value for s in at.success)
    m = metrics(at)
    assert (m["Issues"], m["Open"], m["Mentioning code"], m["Mentions not found"]) == ("4", "3", "4", "1")
    top = table_with(at, "open issues")
    assert (top[0]["symbol / file"], top[0]["issues"], top[0]["open issues"]) == ("app.store.save", 2, 2)

    at.text_input(key="issues_target").input("app.store.save").run()
    clean(at)
    rows = table_with(at, "ambiguous")
    assert [(r["#"], r["ambiguous"]) for r in rows] == [(4, False), (1, False)]  # open issues by default
    at.radio(key="issues_state").set_value("all").run()
    rows = table_with(clean(at), "ambiguous")
    assert [(r["#"], r["ambiguous"]) for r in rows] == [(4, False), (1, False), (2, True)]

    at.radio(key="issues_state").set_value("open").run()
    at.text_input(key="issues_radius_target").input("app.store.save").run()
    clean(at)
    radius = [r for df in at.dataframe if "depth" in df.value.columns for r in df.value.to_dict("records")]
    assert [(r["#"], r["mentions"], r["depth"]) for r in radius] == [
        (4, "app.store.save", 0), (1, "app.store.save", 0), (1, "app/store.py", 0), (1, "app.service.place", 1)]
    assert metrics(at)["Issues in the blast radius"] == "2"


def test_issues_page_reports_a_bad_file_in_one_line(site: Tree, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"items": []}', encoding="utf-8")
    at = clean(open_app("issues.py"))
    at.text_input(key="issues_path").input(str(bad)).run()
    at.button(key="issues_import").click().run()
    clean(at, errors_ok=True)
    assert [e.value for e in at.error] == ["expected a list of issues, or an object with an `issues` list"]


# ---------------------------------------------------------------------------- baselines
def test_baselines_flags_a_drop_with_what_disappeared(site: Tree) -> None:
    (site.root / "app" / "audit.py").unlink()
    triage.ignore(site.graph, site.repo, "helper_missing")  # stubs 5 -> 4: progress, not a drop
    site.index()
    at = clean(open_app("baselines.py"), errors_ok=True)
    timeline, drop = [e.value for e in at.error]
    assert timeline.startswith("Drops on the timeline: 5 count(s) fell by more than 5% at 1 run(s) (#2")
    # The ignored call site is an edge fewer (a real drop); the stub fewer is not flagged.
    assert drop == ("5 count(s) fell by more than 5% from the baseline: **edges** 11 → 10 (−9.1%); "
                    "**edges.CALLS** 7 → 6 (−14.3%); "
                    "**files** 5 → 4 (−20.0%); **files.python** 5 → 4 (−20.0%); **symbols** 11 → 9 (−18.2%)")
    assert metrics(at)["Stubs"] == "4"
    gone = table_with(at, "symbol")
    assert [r["symbol"] for r in gone] == ["app.audit", "app.audit.save"]
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    drop_traces = [t for c in charts for t in c["data"] if str(t.get("name", "")).startswith("drop > 5")]
    assert drop_traces and any("symbols: 11 → 9" in " ".join(t["hovertext"]) for t in drop_traces)
    assert any(s.get("type") == "line" for c in charts for s in c["layout"].get("shapes", []))  # the baseline
    assert [r["repo"] for r in table_with(at, "checked")] == ["app"]
    summary = table_with(at, "drops")
    assert summary[0]["repo"] == "app" and "symbols" in summary[0]["drops"]

    # A higher threshold clears the flag; the same counts stay charted.
    at.slider(key="baselines_threshold").set_value(25.0).run()
    clean(at)
    assert any("No count" in s.value for s in at.success)


def test_baselines_default_view_flags_a_drop_after_a_recovery(site: Tree) -> None:
    audit = (site.root / "app" / "audit.py").read_text()
    (site.root / "app" / "audit.py").unlink()
    site.index()  # run 2: a drop
    site.write("app/audit.py", audit)
    site.index()  # run 3: recovered
    at = clean(open_app("baselines.py"), errors_ok=True)
    # The default comparison (latest vs previous) is a recovery, yet the drop at run 2 stays flagged.
    assert any("No count" in s.value for s in at.success)
    [timeline] = [e.value for e in at.error]
    assert "at 1 run(s) (#2" in timeline
    rows = table_with(at, "fell %")
    assert {(r["run"].split()[0], r["count"], r["against"].split()[0]) for r in rows} >= {
        ("#2", "symbols", "previous"), ("#2", "files", "previous")}
    assert "#2" in table_with(at, "drops on the timeline")[0]["drops on the timeline"]
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    symbols = next(c for c in charts if c["layout"]["title"]["text"] == "Symbols")
    assert symbols["layout"]["xaxis"]["type"] == "category"
    assert [t["x"] for t in symbols["data"] if t.get("name", "").startswith("drop")][0][0].startswith("#2")


def test_triage_confirms_a_large_decision_and_offers_the_builtin_verdict(site: Tree) -> None:
    # 60 call sites of `cfg.get(...)` on an unknown receiver: the dict.get stub.
    site.write("app/settings.py", "def read(cfg):\n" + "".join(f"    cfg.get('k{i}')\n" for i in range(60)))
    site.index()
    at = clean(open_app("triage.py"))
    at.selectbox(key="triage_pick").set_value(stub_uid(site.repo, "get")).run()
    clean(at)
    assert any("Verdict: builtin / standard library" in i.value and "method of dict" in i.value for i in at.info)
    at.button(key="triage_builtin").click().run()
    clean(at)
    # Nothing changed yet: a confirmation with the preview of what changes.
    assert stubs(site.graph, site.repo)["get"] == 60
    [confirm] = [w.value for w in at.warning if w.value.startswith("Confirm:")]
    assert "**60 call sites**" in confirm and "**1 calling symbol(s)** in 1 file(s)" in confirm
    at.button(key="triage_cancel").click().run()
    clean(at)
    assert stubs(site.graph, site.repo)["get"] == 60 and not any(w.value.startswith("Confirm:") for w in at.warning)
    at.button(key="triage_builtin").click().run()
    at.button(key="triage_confirm").click().run()
    clean(at)
    assert "get" not in stubs(site.graph, site.repo)
    assert any("marked external (builtins)" in s.value for s in at.success)


def test_triage_undo_preselects_the_latest_decision(site: Tree) -> None:
    triage.ignore(site.graph, site.repo, "helper_missing")
    triage.mark_external(site.graph, site.repo, "requests.*", "requests")
    at = clean(open_app("triage.py"))
    undo = at.selectbox(key="triage_undo_pick")
    assert "requests.*" in str(undo.format_func(undo.value))
    at.button(key="triage_undo").click().run()
    clean(at)
    assert any(s.value.startswith("Undone: `requests.*`") for s in at.success)


def test_triage_queue_walks_the_stubs(site: Tree) -> None:
    at = clean(open_app("triage.py"))
    first = at.selectbox(key="triage_pick").value
    at.button(key="triage_next").click().run()
    clean(at)
    second = at.selectbox(key="triage_pick").value
    assert second != first and any("Stub 2 of 5" in c.value for c in at.caption)
    at.button(key="triage_prev").click().run()
    assert clean(at).selectbox(key="triage_pick").value == first


def test_triage_decides_for_a_calling_file_with_its_own_count_and_undoes_it(site: Tree) -> None:
    # 60 calls of `cfg.get` in settings.py and 3 in app/more/extra.py: only the chosen file's count matters.
    site.write("app/settings.py", "def read(cfg):\n" + "".join(f"    cfg.get('k{i}')\n" for i in range(60)))
    site.write("app/more/extra.py", "def more(cfg):\n" + "".join(f"    cfg.get('m{i}')\n" for i in range(3)))
    site.index()
    before = derived_edges(site.graph, site.repo)
    at = clean(open_app("triage.py"))
    at.selectbox(key="triage_pick").set_value(stub_uid(site.repo, "get")).run()
    at.radio(key="triage_scope").set_value("a calling file").run()
    at.selectbox(key="triage_scope_file").set_value("app/more/extra.py").run()
    clean(at)
    assert any("act on **file app/more/extra.py**: 3 call site(s) from 1 calling symbol(s) in 1 file(s), so 1 "
               "impact answer(s) change." in c.value for c in at.caption)
    at.button(key="triage_ignore").click().run()  # 3 call sites: no confirmation
    clean(at)
    assert stubs(site.graph, site.repo)["get"] == 60
    assert any(s.value.startswith("`get` on file app/more/extra.py ignored: 1 stub(s), 3 call site(s)")
               for s in at.success)
    [d] = triage.decision_list(site.graph, site.repo)
    assert (d.scope.files, d.call_sites) == (("app/more/extra.py",), 3)

    # The folder of settings.py holds 60 call sites of its own: confirmation counts those only.
    at.radio(key="triage_scope").set_value("a folder").run()
    at.selectbox(key="triage_scope_folder").set_value("app").run()
    at.button(key="triage_builtin").click().run()
    clean(at)
    [confirm] = [w.value for w in at.warning if w.value.startswith("Confirm:")]
    assert "on folder app/" in confirm and "**60 call sites**" in confirm
    at.button(key="triage_cancel").click().run()
    assert clean(at) and stubs(site.graph, site.repo)["get"] == 60

    # Chosen call sites: two of settings.py.
    at.radio(key="triage_scope").set_value("chosen call sites").run()
    pick = at.multiselect(key="triage_scope_sites")
    read = triage.find_symbol(site.graph, "app.settings.read", site.repo).uid
    assert len(pick.options) == 60 and "app/settings.py:2 · app.settings.read" in pick.options
    pick.set_value([f"app/settings.py:2|{read}", f"app/settings.py:3|{read}"]).run()
    at.button(key="triage_ignore").click().run()
    clean(at)
    assert stubs(site.graph, site.repo)["get"] == 58
    log = table_with(at, "scope")
    assert sorted(r["scope"] for r in log) == ["2 call sites", "file app/more/extra.py"]

    # Undo preselects the latest (the two call sites) and leaves the file decision alone.
    at.button(key="triage_undo").click().run()
    clean(at)
    assert stubs(site.graph, site.repo)["get"] == 60
    [left] = triage.decision_list(site.graph, site.repo, include_undone=False)
    assert left.scope.files == ("app/more/extra.py",)
    triage.undo(site.graph, site.repo, "get")
    assert derived_edges(site.graph, site.repo) == before

"""Coverage: how much of the code the graph really sees. Parse errors and partial files
by language and folder, unsupported files, and the share of references left unresolved
(stubs) by language; repos worst first."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pandas as pd
import plotly.express as px
import streamlit as st

from codegraph.core.figures import unsupported_by_extension
from codegraph.dashboard.common import (
    counts,
    current_key,
    current_scope,
    empty_state,
    figures_in,
    graph_store,
    graph_version,
    persistent,
    remember,
    run_page,
)
from codegraph.dashboard.coverage_data import (
    file_rows,
    folder_of,
    reference_rows,
    reference_totals,
    repo_summary,
    stub_references,
)
from codegraph.dashboard.figure_text import UNRESOLVED_HELP, UNSUPPORTED_HELP, pct

STATUS_COLOURS = {"full": "#54A24B", "partial": "#F58518", "error": "#E45756", "unsupported": "#BAB0AC"}


@st.cache_data(show_spinner="Reading files…", max_entries=16, ttl=3600)
def _files(key: str, version: str, repo: str | None) -> list[dict[str, Any]]:
    return file_rows(graph_store(), repo)


@st.cache_data(show_spinner="Counting unresolved references…", max_entries=16, ttl=3600)
def _stub_refs(key: str, version: str, repo: str | None) -> dict[str, int]:
    return stub_references(graph_store(), repo)


@st.cache_data(show_spinner="Reading every reference edge (about 20 s for the standard library with its tests)…",
               max_entries=16, ttl=3600)
def _refs_by_language(key: str, version: str, repo: str | None) -> list[dict[str, Any]]:
    return reference_rows(graph_store(), repo)


def _bar(df: pd.DataFrame, x: str, y: str, colour: str | None = None, title: str = "", **kw: Any) -> None:
    fig = px.bar(df, x=x, y=y, color=colour, title=title,
                 color_discrete_map=STATUS_COLOURS if colour == "status" else None, **kw)
    fig.update_layout(margin={"l": 10, "r": 10, "t": 40, "b": 10}, height=340, legend_title_text="")
    st.plotly_chart(fig, config={"displayModeBar": False})


def _by_language(key: str, version: str, scope: list[str] | None) -> None:
    """Unresolved share by language: exact, but it reads every reference edge, so it runs
    when asked and is then kept for this graph version."""
    flag = f"coverage_lang|{key}|{version}|{','.join(scope) if scope else ''}"
    if not st.session_state.get(flag):
        st.caption("Unresolved references by language need every reference edge read once.")
        if not st.button("Count by language", icon=":material/translate:", key="coverage_lang_go"):
            return
        st.session_state[flag] = True
    refs = pd.DataFrame([row for r in (scope or [None]) for row in _refs_by_language(key, version, r)])
    if refs.empty:
        st.caption("No reference edges yet.")
        return
    by = refs.groupby("language")[["resolved", "unresolved"]].sum().reset_index()
    by["unresolved %"] = (100 * by["unresolved"] / (by["resolved"] + by["unresolved"])).round(2)
    _bar(by.sort_values("unresolved %", ascending=False), "language", "unresolved %",
         title="Unresolved references by language (stubs / all references)", hover_data=["resolved", "unresolved"])


def body() -> None:
    st.title("Coverage")
    store = graph_store()
    if not store.repos():
        empty_state()
        return
    scope = current_scope()  # a repo, a workspace's repos, or None (all)
    key, version = current_key(), graph_version(store)
    files = pd.DataFrame([row for r in (scope or [None]) for row in _files(key, version, r)])
    if files.empty:
        empty_state("The graph has repositories but no files.")
        return
    stub_refs = {k: v for r in (scope or [None]) for k, v in _stub_refs(key, version, r).items()}
    refs = {r: reference_totals(counts(r).get("edges", {}), stub_refs.get(r, 0)) for r in sorted(set(files["repo"]))}
    f = figures_in(scope)

    st.subheader("Repositories, worst first")
    st.dataframe(repo_summary(files.to_dict("records"), refs), hide_index=True, key="coverage_repos")

    by_status = Counter(files["status"])
    m = st.columns(5)
    m[0].metric("Files", f.files)
    m[1].metric("Parse errors", int(files["parse_error"].sum()), help="Files whose parse tree has errors")
    m[2].metric("Partial", by_status["partial"], help=f"{by_status['error']} more file(s) yielded nothing at all")
    m[3].metric("Unsupported files", f.unsupported_files, help=UNSUPPORTED_HELP)
    m[4].metric("Unresolved references", pct(f.unresolved_pct), help=UNRESOLVED_HELP.format(f=f))

    left, right = st.columns(2)
    with left:
        by_lang = files.groupby(["language", "status"]).size().reset_index(name="files")
        _bar(by_lang, "language", "files", "status", "Files by language and coverage")
    with right:
        _by_language(key, version, scope)

    st.subheader("Problems by folder")
    persistent("coverage_depth", 1)
    depth = st.slider("Folder depth", 1, 4, key="coverage_depth")
    remember("coverage_depth")
    bad = files[files["status"].isin(["error", "partial"]) | files["parse_error"]].copy()
    if bad.empty:
        st.success("No file has a parse error or was only partly extracted.", icon=":material/check_circle:")
    else:
        bad["folder"] = [f"{r}:{folder_of(p, depth)}" if not scope or len(scope) > 1 else folder_of(p, depth)
                         for r, p in zip(bad["repo"], bad["path"], strict=True)]
        by_folder = bad.groupby(["folder", "status"]).size().reset_index(name="files")
        top = by_folder.groupby("folder")["files"].sum().nlargest(25).index
        _bar(by_folder[by_folder["folder"].isin(top)], "folder", "files", "status",
             "Files with parse errors or partial extraction (top 25 folders)")
        st.dataframe(bad[["repo", "path", "language", "status", "parse_error", "lines"]].sort_values(["status", "path"]),
                     hide_index=True, key="coverage_bad")

    st.subheader("Unsupported files")
    uns = files[files["status"] == "unsupported"]
    extra = _unsupported_from_repos(store, scope)
    if uns.empty and not extra:
        st.caption("Every file in the graph has an extractor.")
    if not uns.empty:
        by_ext = uns.groupby(["extension", "language"]).size().reset_index(name="files")
        _bar(by_ext.sort_values("files", ascending=False), "extension", "files", "language",
             "Files of a known language without an extractor yet")
    if extra:
        ext = pd.DataFrame([{"extension": k, "files": v} for k, v in extra.items()]).nlargest(30, "files")
        _bar(ext, "extension", "files", title="Files of languages the indexer does not read (counted at index time)")
    st.caption("Files of unknown extensions never enter the graph; `codegraph index` lists them by extension "
               "in its summary.")


def _unsupported_from_repos(store: Any, scope: list[str] | None) -> dict[str, int]:
    """Extension counts the indexer recorded on Repo nodes (``unsupported`` property) of the scope's repos."""
    out: Counter[str] = Counter()
    for r in scope or [None]:
        out.update(unsupported_by_extension(store, r))
    return dict(out)


run_page(body, what="The Coverage page")

"""Overview: which repositories are indexed, how fresh, how big, how well covered."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import streamlit as st

from codegraph.core.impact import freshness
from codegraph.core.models import ENDPOINT, FILE, STUB, SYMBOL, TABLE
from codegraph.dashboard.common import (
    age_text,
    counts,
    counts_in,
    current_key,
    current_scope,
    drift_note,
    empty_state,
    figures,
    figures_in,
    graph_store,
    graph_version,
    run_page,
    scope_label,
    settings,
    short_sha,
)
from codegraph.dashboard.figure_text import EDGES_HELP, STUBS_HELP, UNRESOLVED_HELP, UNSUPPORTED_HELP, pct
from codegraph.indexer import embed_state


def _repo_rows(fresh: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for f in fresh:
        c = counts(f["repo"])
        nodes, fig = c.get("nodes", {}), figures(f["repo"])
        rows.append({
            "repo": f["repo"], "commit": short_sha(f["commit"]),
            "imported": f["last_imported_at"] or "never", "imported age": age_text(f["last_imported_at"]),
            "checked": age_text(f["last_checked_at"]), "files": nodes.get(FILE, 0), "symbols": nodes.get(SYMBOL, 0),
            "edges": fig.edges, "stubs": nodes.get(STUB, 0), "unresolved %": fig.unresolved_pct,
            "parse errors": c.get("parse_errors", 0), "partial files": c.get("partial_files", 0), "path": f["path"],
        })
    return rows


@st.cache_data(show_spinner=False, max_entries=16, ttl=3600)
def _boundaries(key: str, version: str, repo: str | None) -> dict[str, list[tuple[str, str]]]:
    """Endpoints, tables and pages (label, Impact target) of the graph, for "Start here"."""
    store = graph_store()
    endpoints = [(n.display(), f"endpoint:{n.props.get('method', '')} {n.props.get('path_template', '')}".strip())
                 for n in store.nodes_by_label(ENDPOINT, repo, limit=200)]
    tables = [(str(n.props.get("name")), f"table:{n.props.get('name')}") for n in store.nodes_by_label(TABLE, repo,
                                                                                                        limit=200)]
    pages = []
    offset = 0
    while True:  # File nodes with a route (pages); read in pages of 5000
        part = store.nodes_by_label(FILE, repo, limit=5000, offset=offset)
        pages += [(f"{n.props.get('route')} ({n.props.get('path')})", f"file:{n.props.get('path')}")
                  for n in part if n.props.get("route")]
        if len(part) < 5000:
            break
        offset += 5000
    return {"Endpoints": sorted(endpoints), "Tables": sorted(tables), "Pages": sorted(pages)}


def _start_here(store: object, scope: list[str] | None) -> None:
    """What a newcomer should open first: the entry points, tables and pages, each a link
    to its blast radius on the Impact page (of the repos of ``scope``; None: all)."""
    key, version = current_key(), graph_version(graph_store())
    parts = [_boundaries(key, version, r) for r in (scope or [None])]
    found = {title: sorted(x for p in parts for x in p[title]) for title in parts[0]}
    if not any(found.values()):
        return
    st.subheader("Start here: entry points, tables and pages")
    cols = st.columns(3)
    for col, (title, items) in zip(cols, found.items(), strict=True):
        with col:
            st.markdown(f"**{title}** ({len(items)})")
            for label, target in items[:8]:
                st.markdown(f"- [{label}](impact?target={quote(target)})")
            if len(items) > 8:
                st.caption(f"… {len(items) - 8} more")


def body() -> None:
    st.title("Overview")
    store = graph_store()
    scope = current_scope()
    fresh = freshness(store, set(scope) if scope else None)
    if not fresh:
        empty_state()
        return
    c = counts_in(scope)
    f = figures_in(scope)
    nodes, derived = c.get("nodes", {}), f.edges_by_type
    st.caption(f"{scope_label(scope, len(fresh))} · {store.backend} graph")
    m = st.columns(4) + st.columns(4)  # two rows: eight labels in one row are cut off at 1400 px
    m[0].metric("Repositories", len(fresh))
    m[1].metric("Files", f.files)
    m[2].metric("Symbols", f.symbols)
    m[3].metric("Edges", f.edges, help=EDGES_HELP)
    m[4].metric("Unresolved stubs", f.stubs, help=STUBS_HELP)
    m[5].metric("Unresolved references", pct(f.unresolved_pct), help=UNRESOLVED_HELP.format(f=f))
    m[6].metric("Unsupported files", f.unsupported_files, help=UNSUPPORTED_HELP)
    m[7].metric("Parse errors", f.parse_errors, help=f"{f.partial_files} partial files")

    run = embed_state.read(settings().home)
    if run and run.get("status") == "running":
        done, total = int(run.get("done") or 0), int(run.get("total") or 0)
        st.progress(min(1.0, done / total) if total else 0.0,
                    text=embed_state.describe(run).capitalize() + " (vector search improves as it runs; Health has more)")
    for f in fresh:
        note = drift_note(f)
        if note:
            st.warning(note, icon=":material/history:")
    _start_here(store, scope)
    st.subheader("Repositories and freshness")
    st.dataframe(_repo_rows(fresh), hide_index=True, key="overview_repos")

    left, mid, right = st.columns(3)
    with left:
        st.subheader("Edges by type")
        rows = [{"type": k, "edges": v} for k, v in sorted(derived.items(), key=lambda kv: -kv[1])]
        if rows:
            st.dataframe(rows, hide_index=True)
        else:
            st.caption("No derived edges yet.")
    with mid:
        st.subheader("Files per language")
        langs = c.get("languages", {})
        sym = c.get("symbols_by_language", {})
        rows = [{"language": k or "?", "files": v, "symbols": sym.get(k, 0)}
                for k, v in sorted(langs.items(), key=lambda kv: -kv[1])]
        if rows:
            st.dataframe(rows, hide_index=True)
        else:
            st.caption("No files.")
    with right:
        st.subheader("Coverage")
        cov = c.get("coverage", {})
        rows = [{"status": k or "?", "files": v} for k, v in sorted(cov.items(), key=lambda kv: -kv[1])]
        rows += [{"status": "parse errors", "files": c.get("parse_errors", 0)},
                 {"status": "partial", "files": c.get("partial_files", 0)}] if not cov else []
        st.dataframe(rows, hide_index=True)
        st.caption("Details by language and folder on the Coverage page.")
    st.caption("Nodes by label: " + ", ".join(f"{k} {v}" for k, v in sorted(nodes.items())))


run_page(body, what="The Overview page")

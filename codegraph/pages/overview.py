"""Overview: which repositories are indexed, how fresh, how big, how well covered."""

from __future__ import annotations

from typing import Any

import streamlit as st

from codegraph.core.impact import freshness
from codegraph.core.models import FILE, STRUCTURAL_EDGES, STUB, SYMBOL
from codegraph.dashboard.common import (
    age_text,
    counts,
    current_repo,
    drift_note,
    empty_state,
    graph_store,
    run_page,
    short_sha,
)


def _repo_rows(fresh: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for f in fresh:
        c = counts(f["repo"])
        nodes, edges = c.get("nodes", {}), c.get("edges", {})
        rows.append({
            "repo": f["repo"], "commit": short_sha(f["commit"]),
            "imported": f["last_imported_at"] or "never", "imported age": age_text(f["last_imported_at"]),
            "checked": age_text(f["last_checked_at"]), "files": nodes.get(FILE, 0), "symbols": nodes.get(SYMBOL, 0),
            "edges": sum(v for k, v in edges.items() if k not in STRUCTURAL_EDGES), "stubs": nodes.get(STUB, 0),
            "parse errors": c.get("parse_errors", 0), "partial files": c.get("partial_files", 0), "path": f["path"],
        })
    return rows


def body() -> None:
    st.title("Overview")
    store = graph_store()
    repo = current_repo()
    fresh = freshness(store, {repo} if repo else None)
    if not fresh:
        empty_state()
        return
    c = counts(repo)
    nodes, edges = c.get("nodes", {}), c.get("edges", {})
    derived = {k: v for k, v in edges.items() if k not in STRUCTURAL_EDGES}
    st.caption(f"{'Repository ' + repo if repo else f'{len(fresh)} repositories'} · "
               f"{store.backend} graph")
    m = st.columns(6)
    m[0].metric("Repositories", len(fresh))
    m[1].metric("Files", nodes.get(FILE, 0))
    m[2].metric("Symbols", nodes.get(SYMBOL, 0))
    m[3].metric("Edges", sum(derived.values()), help="Derived edges (CALLS, IMPORTS, ...), without IN_REPO/DECLARES")
    m[4].metric("Unresolved stubs", nodes.get(STUB, 0))
    m[5].metric("Parse errors", c.get("parse_errors", 0), help=f"{c.get('partial_files', 0)} partial files")

    for f in fresh:
        note = drift_note(f)
        if note:
            st.warning(note, icon=":material/history:")
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

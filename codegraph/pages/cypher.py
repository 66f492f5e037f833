"""Cypher console: read-only Cypher against Neo4j, for questions no page answers yet.

Write clauses are refused by the store before anything is sent (ReadOnlyViolation);
on the embedded graph the page says plainly that Cypher needs Neo4j and how to get it.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from codegraph.core.errors import Unsupported
from codegraph.dashboard.common import (
    current_repo,
    current_scope,
    graph_store,
    persistent,
    remember,
    run_page,
    show_error,
)

# $repo: the sidebar's repo (null for all or a workspace); $repos: the repos it covers (null for all).
EXAMPLE = ("MATCH (s:Symbol)<-[c:CALLS]-(caller)\nWHERE $repos IS NULL OR s.repo IN $repos\n"
           "RETURN s.qualified_name AS symbol, count(c) AS callers\nORDER BY callers DESC LIMIT 25")
RESULT_KEY = "_cypher_result"


def _cell(v: Any) -> Any:
    if v is None or isinstance(v, (str, int, float, bool)):
        return v
    return json.dumps(v, default=str, ensure_ascii=False)


def _unsupported_reason(store: Any) -> str | None:
    """Why this backend has no Cypher, or None when it has (probed with a trivial query)."""
    try:
        store.run_cypher("RETURN 1 AS ok", {}, 1)
    except Unsupported as e:
        return str(e)
    return None


def body() -> None:
    st.title("Cypher console")
    store = graph_store()
    reason = _unsupported_reason(store)
    if reason:
        st.warning(f"Cypher console unavailable on the `{store.backend}` graph. {reason[0].upper()}{reason[1:]}.",
                   icon=":material/block:")
        st.caption(f"Current graph backend: `{store.backend}`. Everything else (Impact, Search, Coverage) works "
                   "on the embedded graph.")
        return
    st.caption("Read-only: write clauses (CREATE, MERGE, SET, DELETE, REMOVE, LOAD CSV, CALL …) are refused "
               "before anything is sent. `$repo` is bound to the repository chosen in the sidebar (or null), `$repos` to the "
               "repositories it covers, a workspace's too (or null for all).")
    persistent("cypher_query", EXAMPLE)
    persistent("cypher_limit", 200)
    with st.form("cypher_form"):
        query = st.text_area("Query", key="cypher_query", height=160)
        limit = int(st.number_input("Row limit", 1, 10000, key="cypher_limit"))
        run = st.form_submit_button("Run", icon=":material/play_arrow:", type="primary")
    remember("cypher_query", "cypher_limit")
    if run:
        st.session_state.pop(RESULT_KEY, None)
        try:
            with st.spinner("Running…"):
                rows, total = store.run_cypher(query, {"repo": current_repo(), "repos": current_scope()}, limit)
        except Exception as e:  # ReadOnlyViolation, syntax errors, a dead server: one line each
            show_error(e, "CODEGRAPH_GRAPH")
            return
        st.session_state[RESULT_KEY] = ([{k: _cell(v) for k, v in r.items()} for r in rows], total)
    if RESULT_KEY in st.session_state:
        rows, total = st.session_state[RESULT_KEY]
        st.caption(f"{len(rows)} of {total} row(s)")
        if rows:
            st.dataframe(rows, hide_index=True)


run_page(body, what="The Cypher console")

"""Search: hybrid (BM25 + vectors) search over code, SQL schema, config properties and
Markdown docs (filter by kind), each hit with its source and its graph context (callers,
callees, endpoints, tables; readers of a table or key); one click opens the blast radius
of a symbol or table on the Impact page."""

from __future__ import annotations

import streamlit as st

from codegraph.dashboard.common import (
    current_repo,
    current_scope,
    embedder,
    empty_state,
    graph_store,
    page_path,
    persistent,
    remember,
    run_page,
    search_index,
)
from codegraph.dashboard.source import code_language

SNIPPET_LINES = 18
GOTO_KEY = "impact_goto"  # read by the Impact page


def _numbered(text: str, first: int, max_lines: int = SNIPPET_LINES) -> tuple[str, int]:
    lines = text.splitlines()
    shown = lines[:max_lines]
    width = len(str(first + len(shown)))
    return "\n".join(f"{first + i:>{width}}  {ln}" for i, ln in enumerate(shown)), len(lines) - len(shown)


def _open_impact(target: str) -> None:
    st.session_state[GOTO_KEY] = target
    st.switch_page(page_path("impact.py"))


def body() -> None:
    st.title("Search")
    st.caption("Describe what the code does or type a name: BM25 over source and split identifiers plus "
               "vector similarity, fused by reciprocal rank fusion. Every hit exists in the graph.")
    store = graph_store()
    if not store.repos():
        empty_state()
        return
    repo = current_repo()
    persistent("search_query", "")
    persistent("search_k", 10)
    from codegraph.core.content import CONTENT_KINDS

    persistent("search_kinds", list(CONTENT_KINDS))
    c1, c2, c3 = st.columns([4, 2, 1])
    query = c1.text_input("Query", key="search_query", placeholder="validate an order before saving · parseConfig")
    kinds = c2.multiselect("Kinds", list(CONTENT_KINDS), key="search_kinds",
                           help="code, schema (SQL tables), config (properties), docs (Markdown sections)")
    k = int(c3.number_input("Hits", 1, 100, key="search_k"))
    remember("search_query", "search_k", "search_kinds")
    if not query.strip():
        st.info("Type words or a description, e.g. `read a config file` or `OrderService.place`.",
                icon=":material/search:")
        return

    from codegraph.core.retrieval import hybrid_search

    with st.spinner("Searching…"):
        scope = current_scope()
        res = hybrid_search(search_index(), embedder(), query, k=k, repo=repo, graph=store, kinds=kinds or None,
                            repos=scope if scope is not None and repo is None else None)
    if res.mode != "hybrid":
        why = (res.reason or "no embedding model").removeprefix("search is BM25-only: ")
        hint = "" if "CODEGRAPH_EMBED_MODEL_PATH" in why else " (check CODEGRAPH_EMBED_MODEL_PATH)"
        st.warning(f"BM25-only search, without vector similarity: {why}{hint}.", icon=":material/bolt:")
    st.caption(f"{len(res.hits)} hit(s) · mode **{res.mode}** · {res.total_ms:.0f} ms"
               + (f" · {res.dropped} hit(s) without a graph node dropped" if res.dropped else ""))
    if not res.hits:
        st.info("No hit. Try other words or a part of a name.", icon=":material/search_off:")
        return

    from codegraph.api.answers import context_line
    from codegraph.core.search_context import search_context

    contexts = search_context(store, search_index(), res.to_dict()["hits"])  # batched graph calls
    for i, (h, ctx) in enumerate(zip(res.hits, contexts, strict=True), 1):
        ch = h.chunk
        name = ch.qualified_name or ch.file
        with st.container(border=True):
            head, act = st.columns([6, 1])
            head.markdown(f"**{i}. `{name}`** · {h.content}: {ch.kind} · `{ch.file}:{ch.line}` · {ch.repo}")
            ranks = (f"score {h.score:.4f} · BM25 rank {h.bm25_rank or '–'} · kNN rank {h.knn_rank or '–'}")
            line = context_line({"context": ctx})
            if line:
                ranks += f" · {line}"
            head.caption(ranks)
            target = (ch.qualified_name if h.content == "code" else f"table:{ch.name}" if h.content == "schema"
                      else "")
            if target and act.button("Impact", key=f"search_impact_{i}", icon=":material/hub:",
                                     help=f"Open the blast radius of {target}"):
                _open_impact(target)
            text, more = _numbered(ch.text, ch.line)
            st.code(text, language=code_language(ch.language))
            if more:
                st.caption(f"… {more} more line(s) to {ch.file}:{ch.end_line}")
    with st.expander("Steps and timings"):
        st.dataframe([{"step": s.name, "ms": round(s.ms, 2), "detail": s.detail} for s in res.steps],
                     hide_index=True)


run_page(body, setting="CODEGRAPH_SEARCH", what="The Search page")

"""Health: are the backends reachable, is the embedding model there, which versions run,
how big are the stores. Each check stands alone: one failing never hides the others."""

from __future__ import annotations

import platform
import time
from importlib import metadata
from pathlib import Path
from typing import Any

import streamlit as st

from codegraph.dashboard.common import (
    counts,
    current_key,
    embedder,
    figures,
    graph_store,
    guard,
    search_index,
    settings,
)
from codegraph.dashboard.figure_text import EDGES_HELP
from codegraph.indexer import embed_state

PACKAGES = ("codegraph-explorer", "streamlit", "streamlit-agraph", "plotly", "neo4j", "elasticsearch", "fastembed",
            "onnxruntime", "numpy", "tree-sitter-language-pack")


def _version(pkg: str) -> str:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return "not installed"


def _mb(path: Path) -> str:
    try:
        size = path.stat().st_size
        wal = path.with_name(path.name + "-wal")
        size += wal.stat().st_size if wal.exists() else 0
    except OSError:
        return "missing"
    return f"{size / 1_000_000:.1f} MB"


@st.cache_data(show_spinner=False, ttl=5, max_entries=8)
def _stats(key: str) -> dict[str, Any]:
    # Short-lived: the embedding phase fills vectors without touching the graph version.
    return search_index().stats()


def _graph() -> None:
    st.subheader("Graph")
    with guard("CODEGRAPH_GRAPH"):
        t = time.perf_counter()
        store = graph_store()
        store.repos()  # one real round trip, even when the counts come from the cache
        ms = (time.perf_counter() - t) * 1000
        where = "" if settings().graph == store.backend else f" at {settings().graph}"
        st.success(f"`{store.backend}` graph reachable{where} · answered in {ms:.0f} ms",
                   icon=":material/check_circle:")
        nodes = counts().get("nodes", {})
        f = figures()
        c = st.columns(3)
        c[0].metric("Nodes", sum(nodes.values()))
        c[1].metric("Edges", f.edges, help=EDGES_HELP)
        c[2].metric("Repositories", f.repos)
        if store.backend == "embedded":
            s = settings()
            st.caption(f"graph.db {_mb(s.graph_db)} · state.db {_mb(s.state_db)} · under `{s.home}`")
        repos: list[dict[str, Any]] = [{"repo": r.props.get("name"), "extractor": r.props.get("extractor_version"),
                                        "path": r.props.get("path")} for r in store.repos()]
        if repos:
            st.dataframe(repos, hide_index=True)
        # verify() reads the whole graph (about 1 s on the standard library): on request.
        if st.button("Check integrity", icon=":material/fact_check:", key="health_verify"):
            with st.spinner("Checking orphans and dangling edges…"):
                v = store.verify()
            bad = {k: n for k, n in v.items() if n}
            if bad:
                st.warning("Integrity: " + ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in bad.items())
                           + " (see `codegraph verify`)", icon=":material/warning:")
            else:
                st.success("Integrity: no orphan files, orphan symbols or dangling edges.",
                           icon=":material/check_circle:")


def _search() -> None:
    st.subheader("Search index")
    with guard("CODEGRAPH_SEARCH"):
        t = time.perf_counter()
        idx = search_index()
        stats = _stats(current_key())
        ms = (time.perf_counter() - t) * 1000
        where = "" if settings().search == idx.backend else f" at {settings().search}"
        st.success(f"`{idx.backend}` search reachable{where} · stats in {ms:.0f} ms",
                   icon=":material/check_circle:")
        c = st.columns(3)
        c[0].metric("Chunks", stats.get("chunks", 0))
        c[1].metric("With vectors", stats.get("with_vectors", 0))
        c[2].metric("Size", f"{(stats.get('bytes') or 0) / 1_000_000:.1f} MB")
        missing = (stats.get("chunks") or 0) - (stats.get("with_vectors") or 0)
        run = embed_state.read(settings().home)
        if run and run.get("status") == "running":
            done, total = int(run.get("done") or 0), int(run.get("total") or 0)
            st.progress(min(1.0, done / total) if total else 0.0, text=embed_state.describe(run).capitalize())
            st.caption(f"Background embedding since {run.get('started_at')} (pid {run.get('pid')}); search stays "
                       "BM25 for chunks without a vector until it reaches them.")
        elif missing > 0:
            note = (f" The last run was {run.get('status')} at {run.get('done', 0):,} of {run.get('total', 0):,}."
                    if run and run.get("status") in ("interrupted", "failed") else "")
            st.caption(f"{missing} chunk(s) have no vector yet: run `codegraph embed` (search stays BM25 for them)."
                       + note)
        elif run and run.get("status") == "finished":
            st.caption(f"Embedding finished {run.get('updated_at')}: {int(run.get('done') or 0):,} chunks at "
                       f"{float(run.get('chunks_per_s') or 0):.1f} chunks/s.")


def _model() -> None:
    st.subheader("Embedding model")
    with guard("CODEGRAPH_EMBED_MODEL_PATH"):
        emb = embedder()
        folder = getattr(emb, "folder", None)
        if not emb.available:
            why = emb.reason or "No embedding model: search is BM25-only."
            if settings().embed_model_path.strip().lower() == "none":
                why = "search is BM25-only: the embedding model is switched off (CODEGRAPH_EMBED_MODEL_PATH=none)"
            st.warning(why, icon=":material/bolt:")
            return
        if emb.loaded:
            secs = getattr(emb, "load_seconds", None)
            st.success(f"Loaded from `{folder}`" + (f" in {secs:.1f} s" if secs else ""),
                       icon=":material/check_circle:")
        else:
            st.info(f"Available at `{folder}`, not loaded yet (it loads on the first search).",
                    icon=":material/info:")
            if st.button("Load it now", icon=":material/download:"):
                with st.spinner("Loading the embedding model…"):
                    emb.load()
                st.rerun()


def _versions() -> None:
    st.subheader("Versions")
    rows = [{"component": "python", "version": platform.python_version()}]
    rows += [{"component": p, "version": _version(p)} for p in PACKAGES]
    st.dataframe(rows, hide_index=True, height=35 * (len(rows) + 1) + 3)


def body() -> None:
    st.title("Health")
    left, right = st.columns(2)
    with left:
        _graph()
        _model()
    with right:
        _search()
        _versions()


with guard():
    body()

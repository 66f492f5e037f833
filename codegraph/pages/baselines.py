"""Baselines: per repository, files / symbols / stubs and edges by type over time (one
CountSnapshot per index run that changed the graph), with the chosen baseline drawn and
counts that dropped by more than a threshold flagged in red, with the symbols that
disappeared (stubs, parse errors and partial files falling is progress, not flagged); the unresolved trend; freshness of every repository. (Parse errors by
language and folder are on the Coverage page.)"""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from codegraph.core.baselines import snapshots
from codegraph.core.figures import REFERENCE_EDGES, Drop, regressions
from codegraph.core.impact import freshness
from codegraph.dashboard.common import (
    age_text,
    current_key,
    current_repo,
    empty_state,
    graph_store,
    graph_version,
    persistent,
    remember,
    run_page,
    settings,
    short_sha,
)

MAIN_KEYS = ("files", "symbols", "stubs", "parse_errors", "partial_files")
DROP_COLOUR = "#D62728"
MAX_GONE = 2000


@st.cache_data(show_spinner="Reading snapshots…", max_entries=64, ttl=3600)
def _snapshots(key: str, version: str, repo: str) -> list[dict[str, Any]]:
    return snapshots(graph_store(), repo)


def _gone(repo: str, before: str, after: str) -> list[str] | None:
    """Qualified names in snapshot ``before`` and not in ``after`` (the indexer state
    keeps them per snapshot), or None when the state does not have both lists."""
    path = settings().state_db
    if not path.is_file():
        return None
    from codegraph.indexer.state import StateStore

    state = StateStore(path)
    try:
        a, b = state.snapshot_symbols(repo, before), state.snapshot_symbols(repo, after)
    finally:
        state.close()
    return None if a is None or b is None else sorted(a - b)


def _label(s: dict[str, Any]) -> str:
    return f"{s['taken_at'][:19].replace('T', ' ')} · {short_sha(s.get('commit'))}"


def unresolved_point(counts: dict[str, int]) -> tuple[float | None, str]:
    """(value, meaning) of the unresolved trend for one snapshot: the share of reference
    edges that end at a stub when the snapshot counted those (``stub_references``),
    else stubs per 100 reference edges (what every snapshot has)."""
    refs = sum(counts.get(f"edges.{t}", 0) for t in REFERENCE_EDGES)
    if not refs:
        return None, ""
    if "stub_references" in counts:
        return round(100 * counts["stub_references"] / refs, 2), "unresolved references, % of reference edges"
    return round(100 * counts.get("stubs", 0) / refs, 2), "unresolved targets (stubs) per 100 reference edges"


def drops(base: dict[str, int], cur: dict[str, int], threshold: float) -> list[Drop]:
    """The regressions between two snapshots (core.figures: counts better when lower,
    such as stubs, never count as a drop; the CLI ``baseline`` uses the same rule)."""
    return regressions(base, cur, threshold)


def _frame(snaps: list[dict[str, Any]]) -> pd.DataFrame:
    rows = [{"taken_at": pd.Timestamp(s["taken_at"]), "key": k, "value": v, "commit": short_sha(s.get("commit"))}
            for s in snaps for k, v in s["counts"].items()]
    return pd.DataFrame(rows, columns=["taken_at", "key", "value", "commit"])


def _chart(df: pd.DataFrame, keys: list[str], title: str, base: dict[str, Any],
           flagged: list[tuple[dict[str, Any], Drop]], chart_key: str, threshold: float) -> None:
    part = df[df["key"].isin(keys)]
    if part.empty:
        st.caption(f"{title}: nothing counted yet.")
        return
    fig = go.Figure()
    for k in keys:
        line = part[part["key"] == k].sort_values("taken_at")
        if not line.empty:
            fig.add_scatter(x=line["taken_at"], y=line["value"], mode="lines+markers", name=k,
                            customdata=line["commit"], hovertemplate=f"{k}: %{{y}}<br>%{{x}}<br>%{{customdata}}")
    x0 = pd.Timestamp(base["taken_at"])
    fig.add_shape(type="line", x0=x0, x1=x0, y0=0, y1=1, yref="paper", line={"dash": "dash", "color": "#555"})
    fig.add_annotation(x=x0, y=1, yref="paper", text="baseline", showarrow=False, yanchor="bottom")
    marks = [(s, d) for s, d in flagged if d.key in keys]
    if marks:
        fig.add_scatter(x=[pd.Timestamp(s["taken_at"]) for s, _ in marks], y=[d.current for _, d in marks],
                        mode="markers", name=f"drop > {threshold:g}%",
                        marker={"color": DROP_COLOUR, "size": 13, "symbol": "x"},
                        hovertext=[f"{d.key}: {d.baseline} → {d.current} (−{d.percent}%)" for _, d in marks],
                        hoverinfo="text")
    fig.update_layout(title=title, margin={"l": 10, "r": 10, "t": 40, "b": 10}, height=340, legend_title_text="")
    st.plotly_chart(fig, config={"displayModeBar": False}, key=chart_key)


def _repo_section(repo: str, threshold: float) -> None:
    snaps = _snapshots(current_key(), graph_version(graph_store()), repo)
    if not snaps:
        st.caption(f"No snapshot of {repo} yet: one is taken by every index run that changes the graph.")
        return
    # Numbered: two runs in the same second at the same commit must stay apart.
    labels = [f"#{i} · {_label(s)}" for i, s in enumerate(snaps, 1)]
    base_key, cur_key = f"baselines_base|{repo}", f"baselines_cur|{repo}"
    persistent(base_key, labels[-2] if len(labels) > 1 else labels[0])
    persistent(cur_key, labels[-1])
    for k, default in ((base_key, labels[-2] if len(labels) > 1 else labels[0]), (cur_key, labels[-1])):
        if st.session_state.get(k) not in labels:
            st.session_state[k] = default
    c1, c2 = st.columns(2)
    base_label = c1.selectbox("Baseline", labels, key=base_key, help="The snapshot to compare against.")
    cur_label = c2.selectbox("Compared snapshot", labels, key=cur_key)
    remember(base_key, cur_key)
    base, cur = snaps[labels.index(base_label)], snaps[labels.index(cur_label)]
    st.caption(f"{len(snaps)} snapshot(s) of **{repo}**, the first {_label(snaps[0])}.")

    m = st.columns(4)
    for col, k in zip(m, ("files", "symbols", "stubs"), strict=False):
        col.metric(k.capitalize(), cur["counts"].get(k, 0), cur["counts"].get(k, 0) - base["counts"].get(k, 0),
                   delta_color="inverse" if k == "stubs" else "normal")
    edges_now = sum(v for k, v in cur["counts"].items() if k.startswith("edges."))
    edges_then = sum(v for k, v in base["counts"].items() if k.startswith("edges."))
    m[3].metric("Edges", edges_now, edges_now - edges_then)

    later = [s for s in snaps if s["taken_at"] > base["taken_at"]]
    flagged = [(s, d) for s in later for d in drops(base["counts"], s["counts"], threshold)]
    df = _frame(snaps)
    left, right = st.columns(2)
    with left:
        _chart(df, list(MAIN_KEYS), "Files, symbols, stubs", base, flagged, f"baselines_main|{repo}", threshold)
    with right:
        edge_keys = sorted({k for s in snaps for k in s["counts"] if k.startswith("edges.")})
        _chart(df, edge_keys, "Edges by type", base, flagged, f"baselines_edges|{repo}", threshold)

    fell = drops(base["counts"], cur["counts"], threshold) if cur["taken_at"] > base["taken_at"] else []
    if not fell:
        st.success(f"No count of {_label(cur)} fell by more than {threshold:g}% from the baseline.",
                   icon=":material/check_circle:")
    else:
        st.error(f"{len(fell)} count(s) fell by more than {threshold:g}% from the baseline: "
                 + "; ".join(f"**{d.key}** {d.baseline} → {d.current} (−{d.percent}%)" for d in fell),
                 icon=":material/trending_down:")
        gone = _gone(repo, base["taken_at"], cur["taken_at"])
        if gone is None:
            st.caption("The symbol lists of these snapshots are not in this machine's indexer state "
                       "(they are kept where the index ran), so what disappeared cannot be listed here.")
        else:
            with st.expander(f"What disappeared: {len(gone)} symbol(s)", expanded=True, icon=":material/delete:"):
                st.dataframe(pd.DataFrame({"symbol": gone[:MAX_GONE]}), hide_index=True, key=f"baselines_gone|{repo}")
                if len(gone) > MAX_GONE:
                    st.caption(f"First {MAX_GONE} shown; the download has all.")
                st.download_button("Download the list", "\n".join(gone) + "\n", f"{repo}-disappeared.txt",
                                   key=f"baselines_gone_dl|{repo}")

    points = [(pd.Timestamp(s["taken_at"]), *unresolved_point(s["counts"])) for s in snaps]
    points = [p for p in points if p[1] is not None]
    if points:
        fig = go.Figure(go.Scatter(x=[p[0] for p in points], y=[p[1] for p in points], mode="lines+markers",
                                   name="unresolved"))
        fig.update_layout(title=f"Unresolved trend: {points[-1][2]}", height=280,
                          margin={"l": 10, "r": 10, "t": 40, "b": 10})
        st.plotly_chart(fig, config={"displayModeBar": False}, key=f"baselines_unresolved|{repo}")
        st.caption("Per language and folder, and per reference, on the Coverage page.")


def _freshness_table(repos: set[str] | None) -> None:
    rows = []
    for f in freshness(graph_store(), repos):
        co = f.get("checkout") or {}
        stale = (co.get("changed_since") or []) + (co.get("uncommitted") or [])
        rows.append({"repo": f["repo"], "commit": short_sha(f["commit"]), "imported": age_text(f["last_imported_at"]),
                     "checked": age_text(f["last_checked_at"]),
                     "checkout": ("no checkout here" if not co else "matches the graph" if co.get("matches_graph")
                                  else f"{len(stale)} file(s) changed since"),
                     "path": f.get("path")})
    st.dataframe(rows, hide_index=True, key="baselines_freshness")


def body() -> None:
    st.title("Baselines")
    st.caption("Counts over time against a baseline: a drop larger than the threshold usually means files "
               "stopped parsing, a folder was excluded, or code was really deleted.")
    store = graph_store()
    names = sorted(str(r.props.get("name")) for r in store.repos())
    if not names:
        empty_state()
        return
    repo = current_repo()
    persistent("baselines_threshold", 5.0)
    threshold = float(st.slider("Flag drops larger than (%)", 0.0, 50.0, step=0.5, key="baselines_threshold"))
    remember("baselines_threshold")

    st.subheader("Freshness")
    _freshness_table({repo} if repo else None)

    if repo is None:
        st.subheader("Latest run against the previous one")
        summary = []
        for r in names:
            snaps = _snapshots(current_key(), graph_version(store), r)
            fell = drops(snaps[-2]["counts"], snaps[-1]["counts"], threshold) if len(snaps) > 1 else []
            summary.append({"repo": r, "snapshots": len(snaps), "latest": _label(snaps[-1]) if snaps else "none",
                            "drops": ", ".join(f"{d.key} −{d.percent}%" for d in fell) or "none"})
        st.dataframe(pd.DataFrame(summary).style.map(
            lambda v: f"color: {DROP_COLOUR}; font-weight: bold" if v != "none" else "", subset=["drops"]),
            hide_index=True, key="baselines_summary")
        repo = st.selectbox("Repository", names, key="baselines_repo")
    st.subheader(f"Counts of {repo}")
    _repo_section(repo, threshold)


run_page(body, what="The Baselines page")

"""Baselines: per repository, one small chart per count (files, symbols, edges, stubs,
unresolved share, parse errors; edges by type in an expander) over the runs on a
categorical axis labelled by commit or time (one CountSnapshot per index run that
changed the graph). Every run is compared with the one before and with the chosen
baseline, so a drop stays flagged in red where it happened even after a recovery, with
the symbols that disappeared; counts better lower (stubs, parse errors...) falling is
progress (core.figures). Freshness of every repository. (Parse errors by language and
folder are on the Coverage page.)"""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from codegraph.core.baselines import snapshots
from codegraph.core.figures import Drop, lower_is_better, regressions
from codegraph.core.impact import freshness
from codegraph.dashboard.baseline_data import (
    METRIC_TITLES,
    SMALL_METRICS,
    TimelineDrop,
    run_labels,
    series,
    timeline_drops,
    with_totals,
)
from codegraph.dashboard.common import (
    age_text,
    current_key,
    empty_state,
    graph_store,
    graph_version,
    page_start,
    persistent,
    remember,
    run_page,
    settings,
    short_sha,
)

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


def drops(base: dict[str, int], cur: dict[str, int], threshold: float) -> list[Drop]:
    """The regressions between two snapshots (core.figures: counts better when lower,
    such as stubs, never count as a drop; the CLI ``baseline`` uses the same rule)."""
    return [d for d in regressions(with_totals(base), with_totals(cur), threshold) if d.key != "unresolved_pct"]


def _small_chart(snaps: list[dict[str, Any]], labels: list[str], key: str, title: str, base: int,
                 marks: list[TimelineDrop], chart_key: str, threshold: float) -> None:
    """One metric on a categorical axis (one point per run), the baseline dashed, every
    drop of this metric marked where it happened."""
    ys = series(snaps, key)
    if all(v is None for v in ys):
        st.caption(f"{title}: not counted by these snapshots.")
        return
    fig = go.Figure()
    commits = [short_sha(s.get("commit")) + " · " + str(s["taken_at"])[:19].replace("T", " ") for s in snaps]
    fig.add_scatter(x=labels, y=ys, mode="lines+markers", name=title, customdata=commits,
                    hovertemplate="%{x}: %{y}<br>%{customdata}<extra></extra>", line={"color": "#4E79A7"})
    fig.add_shape(type="line", x0=labels[base], x1=labels[base], y0=0, y1=1, yref="paper",
                  line={"dash": "dash", "color": "#555"})
    fig.add_annotation(x=labels[base], y=1, yref="paper", text="baseline", showarrow=False, yanchor="bottom",
                       font={"size": 10})
    mine = [m for m in marks if m.key == key]
    if mine:
        fig.add_scatter(x=[labels[m.run] for m in mine], y=[m.after for m in mine], mode="markers",
                        name=f"drop > {threshold:g}%", marker={"color": DROP_COLOUR, "size": 13, "symbol": "x"},
                        hovertext=[f"{m.key}: {m.before} → {m.after} (−{m.percent}%) vs {m.kind} {labels[m.against]}"
                                   for m in mine], hoverinfo="text")
    fig.update_layout(title={"text": title, "font": {"size": 13}}, margin={"l": 10, "r": 10, "t": 34, "b": 10},
                      height=210, showlegend=False, xaxis={"type": "category"})
    st.plotly_chart(fig, config={"displayModeBar": False}, key=chart_key)


def _grid(snaps: list[dict[str, Any]], labels: list[str], keys: list[str], titles: dict[str, str], base: int,
          marks: list[TimelineDrop], repo: str, threshold: float, per_row: int = 3) -> None:
    for i in range(0, len(keys), per_row):
        cols = st.columns(per_row)
        for col, k in zip(cols, keys[i:i + per_row], strict=False):
            with col:
                _small_chart(snaps, labels, k, titles.get(k, k), base, marks, f"baselines_chart|{repo}|{k}", threshold)


def _drop_table(marks: list[TimelineDrop], labels: list[str]) -> None:
    st.dataframe(pd.DataFrame([{"run": labels[m.run], "against": f"{m.kind} {labels[m.against]}", "count": m.key,
                                "before": m.before, "after": m.after, "fell %": m.percent} for m in marks]),
                 hide_index=True, key="baselines_timeline_drops")


def _repo_section(repo: str, threshold: float) -> None:
    snaps = _snapshots(current_key(), graph_version(graph_store()), repo)
    if not snaps:
        st.caption(f"No snapshot of {repo} yet: one is taken by every index run that changes the graph "
                   "(`codegraph baseline backfill` records past commits).")
        return
    # Numbered: two runs in the same second at the same commit must stay apart.
    labels = [f"#{i} · {_label(s)}" for i, s in enumerate(snaps, 1)]
    axis = run_labels(snaps)
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
    bi = labels.index(base_label)
    base, cur = snaps[bi], snaps[labels.index(cur_label)]
    st.caption(f"{len(snaps)} snapshot(s) of **{repo}**, the first {_label(snaps[0])}.")

    m = st.columns(4)
    for col, k in zip(m, ("files", "symbols", "stubs"), strict=False):
        col.metric(k.capitalize(), cur["counts"].get(k, 0), cur["counts"].get(k, 0) - base["counts"].get(k, 0),
                   delta_color="inverse" if lower_is_better(k) else "normal")
    edges_now, edges_then = with_totals(cur["counts"])["edges"], with_totals(base["counts"])["edges"]
    m[3].metric("Edges", edges_now, edges_now - edges_then)

    marks = timeline_drops(snaps, bi, threshold)
    if marks:
        runs = sorted({axis[x.run] for x in marks})
        st.error(f"Drops on the timeline: {len(marks)} count(s) fell by more than {threshold:g}% at "
                 f"{len(runs)} run(s) ({', '.join(runs)}), against the run before or the baseline.",
                 icon=":material/trending_down:")
        _drop_table(marks, axis)
    _grid(snaps, axis, list(SMALL_METRICS), METRIC_TITLES, bi, marks, repo, threshold)
    # Drawn on request: a dozen more plotly charts cost the browser seconds on every visit.
    if st.toggle("Edges by type, one chart each", key=f"baselines_edge_charts|{repo}"):
        edge_keys = sorted({k for s in snaps for k in s["counts"] if k.startswith("edges.")})
        _grid(snaps, axis, edge_keys, {}, bi, marks, repo, threshold, per_row=4)

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
                       "(they are kept where the index or the backfill ran; backfills before this version kept "
                       "none), so what disappeared cannot be listed here.")
        else:
            with st.expander(f"What disappeared: {len(gone)} symbol(s)", expanded=True, icon=":material/delete:"):
                st.dataframe(pd.DataFrame({"symbol": gone[:MAX_GONE]}), hide_index=True, key=f"baselines_gone|{repo}")
                if len(gone) > MAX_GONE:
                    st.caption(f"First {MAX_GONE} shown; the download has all.")
                st.download_button("Download the list", "\n".join(gone) + "\n", f"{repo}-disappeared.txt",
                                   key=f"baselines_gone_dl|{repo}")
    st.caption("Unresolved references per language and folder are on the Coverage page.")


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
    start = page_start("Baselines", "Counts over time against a baseline: a drop larger than the threshold usually means files "
                       "stopped parsing, a folder was excluded, or code was really deleted.")
    if start is None:
        return
    store, names, scope = start  # scope: a repo, a workspace's repos, or None (all)
    if scope is not None:
        names = [n for n in names if n in scope]
    if not names:
        empty_state("No repository of this workspace is indexed yet.")
        return
    repo = names[0] if scope is not None and len(scope) == 1 else None
    persistent("baselines_threshold", 5.0)
    threshold = float(st.slider("Flag drops larger than (%)", 0.0, 50.0, step=0.5, key="baselines_threshold"))
    remember("baselines_threshold")

    st.subheader("Freshness")
    _freshness_table(set(scope) if scope else None)

    if repo is None:
        st.subheader("Drops: the latest run against the previous one, and anywhere on the timeline")
        summary = []
        for r in names:
            snaps = _snapshots(current_key(), graph_version(store), r)
            fell = drops(snaps[-2]["counts"], snaps[-1]["counts"], threshold) if len(snaps) > 1 else []
            axis = run_labels(snaps)
            marks = [m for m in timeline_drops(snaps, max(0, len(snaps) - 2), threshold) if m.kind == "previous"]
            summary.append({"repo": r, "snapshots": len(snaps), "latest": _label(snaps[-1]) if snaps else "none",
                            "drops": ", ".join(f"{d.key} −{d.percent}%" for d in fell) or "none",
                            "drops on the timeline": ", ".join(f"{axis[m.run]} {m.key} −{m.percent}%"
                                                               for m in marks) or "none"})
        st.dataframe(pd.DataFrame(summary).style.map(
            lambda v: f"color: {DROP_COLOUR}; font-weight: bold" if v != "none" else "",
            subset=["drops", "drops on the timeline"]),
            hide_index=True, key="baselines_summary")
        if st.session_state.get("baselines_repo") not in names:
            st.session_state.pop("baselines_repo", None)
        repo = st.selectbox("Repository", names, key="baselines_repo")
    st.subheader(f"Counts of {repo}")
    _repo_section(repo, threshold)


run_page(body, what="The Baselines page")

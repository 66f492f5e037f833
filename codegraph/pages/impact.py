"""Impact: the tech lead's page. Pick a target, see the blast radius as rings of callers,
narrow it, click a node to see its source and why it is there, export the re-check list.
"""

from __future__ import annotations

import streamlit as st

from codegraph.core.errors import TargetNotFound
from codegraph.core.impact import CALLER_EDGES, ImpactResult
from codegraph.core.models import SYMBOL
from codegraph.core.report import impact_csv, impact_markdown
from codegraph.dashboard import graph_view
from codegraph.dashboard.common import (
    age_text,
    current_key,
    current_repo,
    drift_note,
    empty_state,
    graph_store,
    graph_version,
    persistent,
    remember,
    run_page,
    settings,
    short_sha,
)
from codegraph.dashboard.impact_view import (
    caller_rows,
    candidates,
    default_pick,
    describe,
    edge_rows,
    endpoint_handlers,
    entry_rows,
    run_impact,
    step_rows,
    table_rows,
    targets_for,
    unresolved_rows,
)
from codegraph.dashboard.source import code_language, read_snippet

GOTO_KEY = "impact_goto"  # set by other pages (Search) to open Impact on a target
DETAIL_LINES = 30  # of a symbol's source in the details panel


@st.cache_data(show_spinner="Walking callers…", max_entries=64, ttl=3600)
def _impact(key: str, version: str, targets: tuple[tuple[str, str], ...], depth: int, edge_types: tuple[str, ...],
            include_tests: bool, limit: int, min_confidence: float = 0.0) -> ImpactResult:
    return run_impact(graph_store(), list(targets), depth, list(edge_types), include_tests, limit, min_confidence)


def _certain_only() -> float:
    """The "only certain edges" toggle as a minimum confidence (1.0 or 0)."""
    persistent("impact_certain", False)
    on = st.toggle("Only certain edges", key="impact_certain",
                   help="Leave out edges found by name only (unique_name) and calls that may reach one of several "
                        "overloads: every caller left is proven by an import, a type or the same module.")
    remember("impact_certain")
    return 1.0 if on else 0.0


def _controls() -> tuple[int, list[str], bool, str, int, int]:
    persistent("impact_depth", settings().impact_depth)
    persistent("impact_edges", list(CALLER_EDGES))
    persistent("impact_hide_tests", False)
    persistent("impact_colour", "kind")
    persistent("impact_limit", 500)
    persistent("impact_draw", 150)
    c1, c2, c3, c4 = st.columns([2, 4, 2, 2])
    depth = c1.slider("Depth (hops)", 1, 10, key="impact_depth", help="How many caller hops to walk from the target.")
    edges = c2.multiselect("Edge types", list(CALLER_EDGES), key="impact_edges",
                           help="Relationships followed towards callers. CALLS only = direct call chains.")
    hide_tests = c3.toggle("Hide tests", key="impact_hide_tests", help="Drop callers that are tests.")
    colour = c3.radio("Colour by", ["kind", "depth", "repo"], key="impact_colour", horizontal=True,
                      help="repo: one colour per repository, to see where a blast radius crosses repositories.")
    limit = int(c4.number_input("Callers to list", 20, 20000, step=100, key="impact_limit",
                                help="Totals always count every caller; this caps the tables and export."))
    draw = c4.slider("Callers to draw", 10, 400, key="impact_draw", help="Closest callers first.")
    remember("impact_depth", "impact_edges", "impact_hide_tests", "impact_colour", "impact_limit", "impact_draw")
    return depth, edges, hide_tests, colour, limit, draw


def _picker(store: object, repo: str | None) -> list:
    if GOTO_KEY in st.session_state:
        st.session_state["impact_target"] = st.session_state.pop(GOTO_KEY)
    persistent("impact_target", st.query_params.get("target", ""))
    text = st.text_input(
        "Target", key="impact_target", placeholder="OrderService.place · save · file:lib/order.py · table:orders",
        help="A qualified name, a bare name, or file: / table: / endpoint: / topic: followed by its name.")
    remember("impact_target")
    # The URL carries the target, so a blast radius can be shared as a link (?target=...).
    if text.strip():
        st.query_params["target"] = text.strip()
    elif "target" in st.query_params:
        del st.query_params["target"]
    if not text.strip():
        st.info("Type a symbol, file, table or endpoint to see what depends on it.", icon=":material/search:")
        return []
    try:
        cands = candidates(store, text, repo)  # type: ignore[arg-type]
    except TargetNotFound as e:
        st.warning(str(e), icon=":material/search_off:")
        return []
    if not cands:
        st.warning(f"Nothing in the graph matches `{text}`. Try a shorter name, or Search for it first.",
                   icon=":material/search_off:")
        return []
    by_uid = {n.uid: n for n in cands}
    picked: list[str] = st.multiselect(
        f"Matches ({len(cands)}): pick one or several (overloads are listed separately)", list(by_uid),
        default=default_pick(cands), format_func=lambda u: describe(by_uid[u]),
        key=f"impact_pick|{repo}|{text.strip()}")
    if not picked:
        st.info("Pick at least one match above.", icon=":material/touch_app:")
    return [by_uid[u] for u in picked]


def _summary(res: ImpactResult) -> None:
    m = st.columns(5)
    m[0].metric("Callers", res.total_callers, help=f"{res.shown_callers} listed below")
    m[1].metric("Entry points", len(res.entry_points))
    m[2].metric("Tables", len(res.tables))
    m[3].metric("Unresolved boundary", len(res.unresolved), help="Stubs sharing the target's name")
    m[4].metric("Depth", res.depth)
    if len(res.by_repo) > 1:  # a blast radius that crosses repositories (workspaces)
        st.caption("Callers per repository: " + " · ".join(f"**{r}** {n}" for r, n in sorted(res.by_repo.items())))
    if res.truncated or res.shown_callers < res.total_callers:
        st.warning(f"Showing {res.shown_callers} of {res.total_callers} callers: more exist than are listed. "
                   "Raise 'Callers to list', lower the depth or narrow the edge types.", icon=":material/warning:")
    for f in res.freshness:
        st.caption(f"Graph of **{f['repo']}** at commit `{short_sha(f['commit'])}`, imported "
                   f"{f['last_imported_at'] or 'never'} ({age_text(f['last_imported_at'])}), "
                   f"checked {age_text(f['last_checked_at'])}.")
        note = drift_note(f)
        if note:
            st.warning(note, icon=":material/history:")


def _exports(res: ImpactResult) -> None:
    name = "".join(ch if ch.isalnum() else "-" for ch in res.query)[:60].strip("-") or "impact"
    c1, c2, _ = st.columns([2, 2, 6])
    c1.download_button("Re-check list (Markdown)", impact_markdown(res), f"impact-{name}.md", "text/markdown",
                       icon=":material/download:", key="impact_md")
    c2.download_button("Re-check list (CSV)", impact_csv(res), f"impact-{name}.csv", "text/csv",
                       icon=":material/table:", key="impact_csv")


def _details(store: object, g: graph_view.ImpactGraph, res: ImpactResult, clicked: str | None) -> None:
    options = [n.id for n in g.nodes if n.role != "hidden"]
    if not options:
        return
    if clicked and clicked != st.session_state.get("_impact_clicked") and clicked in options:
        st.session_state["impact_detail"] = clicked
    st.session_state["_impact_clicked"] = clicked
    if st.session_state.get("impact_detail") not in options:
        st.session_state["impact_detail"] = options[0]
    labels = {n.id: n.title.split("\n")[0] for n in g.nodes}
    uid = st.selectbox("Node details (or click a node)", options, key="impact_detail",
                       format_func=lambda u: labels.get(u, u))
    node = store.get_nodes([uid]).get(uid)  # type: ignore[attr-defined]
    if node is None:
        st.caption("This node is no longer in the graph (re-indexed since?).")
        return
    p = node.props
    where = p.get("file") or p.get("path") or ""
    st.markdown(f"**{node.display()}** · {p.get('kind') or node.label} · `{where}:{p.get('line', '')}` · {node.repo}")
    caller = next((c for c in res.callers if c.node.uid == uid), None)
    if caller is not None:
        st.markdown(f"Why it is here: depth **{caller.depth}**, `{caller.via}` at "
                    f"`{caller.evidence_file}:{caller.evidence_line}` ({caller.resolution or 'n/a'}); "
                    f"path: {' → '.join(f'`{x}`' for x in caller.path)}")
    elif any(t.uid == uid for t in res.targets):
        st.markdown("This is a **target** of the query.")
    else:
        entry = next((e for e in res.entry_points if e.node.uid == uid), None)
        if entry is not None:
            st.markdown(f"Entry point ({entry.kind}): {entry.reason}")
    root = next((r.props.get("path") for r in store.repos() if r.props.get("name") == node.repo), None)  # type: ignore[attr-defined]
    lang = code_language(p.get("language"))
    if node.label == SYMBOL and p.get("line"):
        snip = read_snippet(root, p.get("file", ""), int(p["line"]), int(p.get("end_line") or p["line"]),
                            max_lines=DETAIL_LINES)
        st.caption(f"Source {p.get('file')}:{snip.first}-{snip.last}" + (f" ({snip.note})" if snip.note else "")
                   if snip.text else snip.note)
        if snip.text:
            st.code(snip.text, language=lang)
    if caller is not None and caller.evidence_file and caller.evidence_line:
        ev = read_snippet(root, caller.evidence_file, caller.evidence_line, caller.evidence_line, context=2,
                          mark=caller.evidence_line)
        st.caption(f"Evidence {caller.evidence_file}:{caller.evidence_line}" if ev.text else ev.note)
        if ev.text:
            st.code(ev.text, language=lang)
    ins, outs = edge_rows(store, uid, "in"), edge_rows(store, uid, "out")  # type: ignore[arg-type]
    st.caption(f"Incoming edges ({len(ins)})")
    if ins:
        st.dataframe(ins, hide_index=True, height=min(35 * len(ins) + 38, 240))
    st.caption(f"Outgoing edges ({len(outs)})")
    if outs:
        st.dataframe(outs, hide_index=True, height=min(35 * len(outs) + 38, 240))


def _tables(res: ImpactResult) -> None:
    st.subheader(f"Evidence: {res.shown_callers} of {res.total_callers} callers")
    if res.callers:
        st.dataframe(caller_rows(res), hide_index=True, key="impact_evidence", column_config={
            "depth": st.column_config.NumberColumn(width="small"),
            "test": st.column_config.CheckboxColumn(width="small"),
            "path": st.column_config.TextColumn(width="large"),
        })
    else:
        st.info("No caller found through the chosen edge types.", icon=":material/info:")
    c1, c2 = st.columns(2)
    with c1:
        st.subheader(f"Entry points ({len(res.entry_points)})")
        if res.entry_points:
            st.dataframe(entry_rows(res), hide_index=True)
        else:
            st.caption("None found: no endpoint, page, topic consumer or test reaches the target "
                       "through supported relationships.")
    with c2:
        st.subheader(f"Tables ({len(res.tables)})")
        if res.tables:
            st.dataframe(table_rows(res), hide_index=True)
        else:
            st.caption("None found through READS / WRITES / TOUCHES.")
    st.subheader(f"Unresolved boundary ({len(res.unresolved)})")
    if res.unresolved:
        st.caption("Call sites that name the target but could not be linked (ambiguous or missing): they may "
                   "reach it. Resolve them on the Triage page.")
        st.dataframe(unresolved_rows(res), hide_index=True)
    else:
        st.caption("No unresolved call site shares the target's name.")
    st.info(res.notice, icon=":material/info:")
    with st.expander("Steps and timings"):
        st.dataframe(step_rows(res), hide_index=True)


def body() -> None:
    st.title("Impact")
    st.caption("What breaks if I change this? Callers up to N hops, the entry points that reach them, "
               "the tables they touch, with file:line evidence for every edge.")
    store = graph_store()
    if not store.repos():
        empty_state()
        return
    repo = current_repo()
    picked = _picker(store, repo)
    depth, edges, hide_tests, colour, limit, draw = _controls()
    min_confidence = _certain_only()
    if not picked:
        return
    if not edges:
        st.warning("Pick at least one edge type.", icon=":material/warning:")
        return
    res = _impact(current_key(), graph_version(store), tuple(targets_for(picked, store)), depth, tuple(edges),
                  not hide_tests, limit, min_confidence)
    _summary(res)
    _exports(res)
    g = graph_view.build_impact_graph(res, colour, draw, endpoint_handlers(store, res))
    left, right = st.columns([3, 2])
    with left:
        if g.drawn_callers < res.total_callers:
            st.caption(f"The graph draws the {g.drawn_callers} closest of {res.total_callers} callers.")
        st.markdown(graph_view.legend_html(g), unsafe_allow_html=True)
        clicked = graph_view.render(g)
    with right:
        _details(store, g, res, clicked)
    _tables(res)


run_page(body, what="The Impact page")

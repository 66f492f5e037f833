"""Impact: the tech lead's page. Pick a target and see the blast radius first: a graph
laid out by hop (callers or callees), clusters by file / package / repo, click a node
to see its source and why it is there, re-centre on it or expand its callers / callees;
the stub boundary links to Triage; totals, evidence tables and the re-check list below.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from codegraph.core.errors import TargetNotFound
from codegraph.core.impact import CALLER_EDGES, ImpactResult
from codegraph.core.impact.callees import callees
from codegraph.core.impact.diff import diff_impact
from codegraph.core.models import SYMBOL
from codegraph.core.report import impact_csv, impact_markdown
from codegraph.dashboard import graph_view
from codegraph.dashboard.common import (
    age_text,
    current_key,
    current_repo,
    current_scope,
    drift_note,
    empty_state,
    graph_store,
    graph_version,
    page_path,
    persistent,
    remember,
    run_page,
    settings,
    short_sha,
)
from codegraph.dashboard.impact_view import (
    boundary_sites,
    caller_rows,
    candidates,
    default_pick,
    describe,
    edge_rows,
    endpoint_handlers,
    entry_rows,
    expansions,
    merge,
    run_impact,
    step_rows,
    stub_matches,
    table_rows,
    targets_for,
    unresolved_rows,
)
from codegraph.dashboard.source import code_language, read_snippet

GOTO_KEY = "impact_goto"  # set by other pages (Search) to open Impact on a target
DETAIL_LINES = 30  # of a symbol's source in the details panel
GRAPH_HEIGHT = 540  # px: with the picker row and the control bar, the graph fits 1400x900
EXPAND_KEY = "impact_expand"  # [(uid, "callers" | "callees")] the person expanded, per target
DIFF_PREFIX = "diff:"  # diff:main...HEAD, diff: (the working tree)
OPEN_KEY = "impact_open"  # cluster keys drawn open, per target


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


@st.cache_data(show_spinner="Walking callees…", max_entries=64, ttl=3600)
def _callees(key: str, version: str, uids: tuple[str, ...], depth: int, limit: int) -> ImpactResult:
    store = graph_store()
    nodes = store.get_nodes(list(uids))
    return callees(store, [nodes[u] for u in uids if u in nodes], depth, None, limit)


@st.cache_data(show_spinner="Reading the change set…", max_entries=16, ttl=60)
def _diff_changes(key: str, version: str, repo: str, root: str, spec: str, depth: int, include_tests: bool,
                  limit: int) -> tuple[list[dict[str, object]], list[str], ImpactResult | None]:
    d = diff_impact(graph_store(), repo, Path(root), spec or None, depth=depth, include_tests=include_tests,
                    limit=limit)
    rows = [{"changed": c.target.qualified_name, "kind": c.target.kind, "file": c.target.file,
             "lines": ", ".join(map(str, c.lines[:12])) + (" …" if len(c.lines) > 12 else ""),
             "callers": c.result.total_callers, "entry points": len(c.result.entry_points),
             "tables": len(c.result.tables)} for c in d.changes]
    return rows, d.unindexed, merge([c.result for c in d.changes]) if d.changes else None


def _diff(store: object, key: str, version: str, spec: str, repo: str | None, ctl: Controls) -> ImpactResult | None:
    """The Impact page on a change set (``diff:BASE...HEAD``, ``diff:`` = working tree)."""
    repos = [r for r in store.repos() if not repo or r.props.get("name") == repo]  # type: ignore[attr-defined]
    if len(repos) != 1:
        st.warning("A change set needs one repository: pick it in the sidebar.", icon=":material/warning:")
        return None
    r = repos[0]
    rows, unindexed, res = _diff_changes(key, version, str(r.props.get("name")), str(r.props.get("path")), spec,
                                         ctl.depth, not ctl.hide_tests, ctl.limit)
    st.markdown(f"**{spec or 'working tree'}**: {len(rows)} changed symbol(s) / file(s)"
                + (f"; not in the graph: {', '.join(unindexed[:8])}" if unindexed else ""))
    if rows:
        st.dataframe(rows, hide_index=True, key="impact_diff_changes", height=min(38 + 35 * len(rows), 180))
    if res is None:
        st.info("No changed line touches an indexed file.", icon=":material/info:")
    return res


@dataclass(slots=True)
class Controls:
    direction: str
    depth: int
    edges: list[str]
    hide_tests: bool
    layout: str
    colour: str
    cluster: str
    limit: int
    draw: int


def _controls() -> Controls:
    """A compact bar above the graph (direction, layout, colours, clusters) and the
    narrowing controls in the sidebar. Nothing in a popover: a widget mounted late by
    a popover comes back at its bare default instead of its kept value."""
    persistent("impact_direction", "callers")
    persistent("impact_depth", settings().impact_depth)
    persistent("impact_edges", list(CALLER_EDGES))
    persistent("impact_hide_tests", False)
    persistent("impact_layout", "layered")
    persistent("impact_colour", "depth")
    persistent("impact_cluster", "none")
    persistent("impact_limit", 500)
    persistent("impact_draw", 150)
    c = st.columns([2.2, 2.2, 2.6, 2.4, 2.6], vertical_alignment="center")
    direction = c[0].segmented_control("Direction", ["callers", "callees"], key="impact_direction",
                                       label_visibility="collapsed",
                                       help="Callers: what depends on the target. Callees: what the target uses.")
    layout = c[1].segmented_control("Layout", list(graph_view.LAYOUTS), key="impact_layout",
                                    label_visibility="collapsed",
                                    help="Layered: the target on the left, one column per hop. Radial: rings by hop.")
    colour = c[2].segmented_control("Colour by", ["depth", "kind", "repo"], key="impact_colour",
                                    label_visibility="collapsed",
                                    help="Colour the nodes by hop (depth), by kind, or by repository (to see where a "
                                         "blast radius crosses repositories).")
    cluster = c[3].selectbox("Cluster by", list(graph_view.CLUSTER_OPTIONS), key="impact_cluster",
                             label_visibility="collapsed", format_func=lambda v: f"cluster: {v}",
                             help="Fold the nodes of one file, package (folder) or repo into one box; "
                                  "click a box to open it.")
    with st.sidebar:
        st.subheader("Impact")
        depth = st.slider("Depth (hops)", 1, 10, key="impact_depth", help="How many hops to walk from the target.")
        edges = st.multiselect("Edge types (callers)", list(CALLER_EDGES), key="impact_edges",
                               help="Relationships followed towards callers. CALLS only = direct call chains.")
        hide_tests = st.toggle("Hide tests", key="impact_hide_tests", help="Drop callers that are tests.")
        limit = int(st.number_input("Callers to list", 20, 20000, step=100, key="impact_limit",
                                    help="Totals always count every caller; this caps the tables and export."))
        draw = st.slider("Callers to draw", 10, 400, key="impact_draw",
                         help="At most 12 per hop, the ones leading to the most other callers first; the rest are "
                              "drawn as one '+N in pkg/' node per package and hop.")
    remember("impact_direction", "impact_depth", "impact_edges", "impact_hide_tests", "impact_layout",
             "impact_colour", "impact_cluster", "impact_limit", "impact_draw")
    return Controls(direction or "callers", depth, edges, hide_tests, layout or "layered", colour or "depth",
                    cluster, limit, draw)


def _no_match(store: object, text: str, repo: str | None) -> None:
    """Nothing defined matches: say so, and show the unresolved call sites of that name."""
    st.warning(f"Nothing in the graph matches `{text}`. Try a shorter name, or Search for it first.",
               icon=":material/search_off:")
    stubs = stub_matches(store, text, repo)  # type: ignore[arg-type]
    if stubs:
        sites = sum(n for _, n in stubs)
        names = ", ".join(f"`{s.props.get('target_identifier')}` ({n})" for s, n in stubs[:5])
        st.info(f"No symbol of that name is defined in the indexed code, but **{sites} unresolved call site(s)** "
                f"name it: {names}. They are stubs (the code they reach was not indexed or could not be "
                "linked); decide what they are on the Triage page.", icon=":material/link_off:")
        st.page_link(page_path("triage.py"), label="Open Triage", icon=":material/rule:")


def _picker(store: object, repo: str | None) -> list:
    if GOTO_KEY in st.session_state:
        st.session_state["impact_target"] = st.session_state.pop(GOTO_KEY)
    persistent("impact_target", st.query_params.get("target", ""))
    left, right = st.columns([3, 5])
    text = left.text_input(
        "Target", key="impact_target", placeholder="OrderService.place · save · file:lib/order.py · table:orders",
        help="A qualified name, a bare name (every match), or file: / table: / endpoint: / topic: and its name.")
    remember("impact_target")
    # The URL carries the target, so a blast radius can be shared as a link (?target=...).
    if text.strip():
        st.query_params["target"] = text.strip()
    elif "target" in st.query_params:
        del st.query_params["target"]
    if not text.strip():
        right.info("Type a symbol, file, table or endpoint to see what depends on it (or `diff:main...HEAD` for a "
                   "change set, `diff:` for the working tree).", icon=":material/search:")
        return []
    if text.strip().startswith(DIFF_PREFIX):
        right.caption("A change set: the symbols its changed lines touch and their union blast radius.")
        return [text.strip()]
    try:
        cands = candidates(store, text, repo)  # type: ignore[arg-type]
        scope = current_scope()
        if scope is not None:  # a workspace chosen in the sidebar: its repositories' matches
            cands = [n for n in cands if n.repo in scope]
    except TargetNotFound as e:
        st.warning(str(e), icon=":material/search_off:")
        return []
    if not cands:
        _no_match(store, text, repo)
        return []
    by_uid = {n.uid: n for n in cands}
    picked: list[str] = right.multiselect(
        f"Matches ({len(cands)}): pick one or several (overloads are listed separately)", list(by_uid),
        default=default_pick(cands, text), format_func=lambda u: describe(by_uid[u]),
        key=f"impact_pick|{repo}|{text.strip()}")
    if not picked:
        st.info("Pick at least one match above.", icon=":material/touch_app:")
    return [by_uid[u] for u in picked]


def _summary_line(res: ImpactResult, ctl: Controls) -> None:
    """One line above the graph: totals and the stub boundary with a link to Triage."""
    word = "callees" if ctl.direction == "callees" else "callers"
    parts = [f"**{res.total_callers} {word}**" + (f" ({res.shown_callers} listed)"
                                                 if res.shown_callers < res.total_callers else ""),
             f"{len(res.entry_points)} entry point(s)", f"{len(res.tables)} table(s)", f"depth {res.depth}"]
    sites = boundary_sites(res)
    left, right = st.columns([7, 2], vertical_alignment="center")
    if sites:
        what = ("call(s) from the radius could not be linked" if ctl.direction == "callees"
                else "unresolved call site(s) may reach this")
        parts.append(f":orange[**{sites} {what}**] ({len(res.unresolved)} stub name(s))")
    left.markdown(" · ".join(parts))
    if sites:
        right.page_link(page_path("triage.py"), label="Resolve on Triage", icon=":material/rule:")


def _summary(res: ImpactResult) -> None:
    m = st.columns(5)
    m[0].metric("Callers", res.total_callers, help=f"{res.shown_callers} listed below")
    m[1].metric("Entry points", len(res.entry_points))
    m[2].metric("Tables", len(res.tables))
    m[3].metric("Unresolved boundary", boundary_sites(res),
                help=f"Call sites of {len(res.unresolved)} stub(s) sharing the target's name")
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


def _state_key(base: str, res: ImpactResult, direction: str) -> str:
    return f"{base}|{direction}|{res.query}"


def _ask(key: str, item: tuple[str, str]) -> None:
    lst = list(st.session_state.get(key, []))
    if item not in lst:
        lst.append(item)
    st.session_state[key] = lst


def _recentre(qn: str) -> None:
    st.session_state[GOTO_KEY] = qn


def _actions(node: object, expand_key: str) -> None:
    """Re-centre on the node, or draw its callers / callees one hop further."""
    qn = str(node.props.get("qualified_name") or node.display())  # type: ignore[attr-defined]
    uid = node.uid  # type: ignore[attr-defined]
    st.button("Re-centre here", key="impact_recentre", on_click=_recentre, args=(qn,), icon=":material/my_location:",
              help="Make this node the target.", use_container_width=True)
    b = st.columns(2)
    b[0].button("+ callers", key="impact_more_callers", on_click=_ask, args=(expand_key, (uid, "callers")),
                help="Draw who calls this node (one hop).", use_container_width=True)
    b[1].button("+ callees", key="impact_more_callees", on_click=_ask, args=(expand_key, (uid, "callees")),
                help="Draw what this node calls (one hop).", use_container_width=True)


def _details(store: object, g: graph_view.ImpactGraph, res: ImpactResult, clicked: str | None,
             expand_key: str, open_key: str) -> None:
    options = [n.id for n in g.nodes if n.role not in ("hidden", "more", "cluster")]
    if clicked and clicked != st.session_state.get("_impact_clicked"):
        hit = g.node(clicked)
        if hit is not None and hit.role == "cluster":  # a click opens the cluster
            st.session_state[open_key] = sorted({*st.session_state.get(open_key, []), hit.group})
            st.session_state["_impact_clicked"] = clicked
            st.rerun()
        if hit is not None and hit.role == "more":
            st.info(hit.title.replace("\n", "  \n"), icon=":material/more_horiz:")
        if clicked in options:
            st.session_state["impact_detail"] = clicked
    st.session_state["_impact_clicked"] = clicked
    if st.session_state.get(open_key):
        st.button(f"Fold {len(st.session_state[open_key])} opened cluster(s)", key="impact_fold",
                  on_click=lambda: st.session_state.pop(open_key, None), icon=":material/unfold_less:")
    if not options:
        return
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
    if node.label == SYMBOL:
        _actions(node, expand_key)
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
    store = graph_store()
    # Less room above the title: the graph must fit the first screen.
    st.markdown("<style>.block-container{padding-top:2.2rem}</style>", unsafe_allow_html=True)
    head, rest = st.columns([1.5, 8], vertical_alignment="bottom")
    head.title("Impact")
    if not store.repos():
        empty_state()
        return
    repo = current_repo()
    with rest:
        picked = _picker(store, repo)
    ctl = _controls()
    with st.sidebar:
        min_confidence = _certain_only()
    if not picked:
        return
    if not ctl.edges:
        st.warning("Pick at least one edge type.", icon=":material/warning:")
        return
    key, version = current_key(), graph_version(store)
    if isinstance(picked[0], str):  # diff:SPEC
        res = _diff(store, key, version, picked[0].removeprefix(DIFF_PREFIX), repo, ctl)
        if res is None:
            return
    elif ctl.direction == "callees":
        res = _callees(key, version, tuple(n.uid for n in picked), ctl.depth, ctl.limit)
    else:
        res = _impact(key, version, tuple(targets_for(picked, store)), ctl.depth, tuple(ctl.edges), not ctl.hide_tests,
                      ctl.limit, min_confidence)
    expand_key, open_key = _state_key(EXPAND_KEY, res, ctl.direction), _state_key(OPEN_KEY, res, ctl.direction)
    extra = expansions(store, [tuple(x) for x in st.session_state.get(expand_key, [])])
    g = graph_view.build_impact_graph(
        res, ctl.colour, ctl.draw, endpoint_handlers(store, res), layout=ctl.layout, cluster_by=ctl.cluster,
        expanded=frozenset(st.session_state.get(open_key, [])), extra=extra, direction=ctl.direction)
    _summary_line(res, ctl)
    left, right = st.columns([7.4, 2.6])
    with left:
        clicked = graph_view.render(g, GRAPH_HEIGHT)
        notes = []
        if g.aggregated:
            notes.append(f"{g.drawn_callers} closest drawn one by one; {g.aggregated} more folded into '+N' nodes "
                         "per package and depth (all listed in the evidence table)")
        if res.total_callers > res.shown_callers:
            notes.append(f"{res.total_callers - res.shown_callers} more not listed (raise 'Callers to list')")
        if extra:
            notes.append(f"{len(extra)} node(s) added by expanding")
        if notes:
            st.caption("; ".join(notes) + ".")
        st.markdown(graph_view.legend_html(g), unsafe_allow_html=True)
    with right:
        _details(store, g, res, clicked, expand_key, open_key)
    _summary(res)
    _exports(res)
    _tables(res)


run_page(body, what="The Impact page")

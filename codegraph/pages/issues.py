"""Issues: GitHub issues linked to the code they mention (MENTIONS edges). Import an
export file or fetch live; see which symbols are discussed most, which issues mention a
symbol, and which open issues touch the blast radius of a change
(codegraph.core.issues)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.express as px
import streamlit as st

from codegraph.core import issues as core
from codegraph.core.errors import BadInput, CodegraphError, TargetNotFound
from codegraph.core.models import MENTIONS
from codegraph.dashboard.common import (
    graph_store,
    one_line,
    page_start,
    persistent,
    remember,
    run_page,
)

log = logging.getLogger("codegraph.dashboard")
FLASH = "issues_flash"
STATES = {"open": "open", "all": None, "closed": "closed"}


# ---------------------------------------------------------------------------- actions
def _done(s: core.ImportSummary) -> None:
    st.session_state[FLASH] = ("success", f"Imported {s.issues} issue(s) into **{s.repo}** ({s.open} open): "
                               f"{s.resolved} mention(s) resolved, {s.ambiguous} ambiguous, {s.unresolved} not found "
                               f"in the code; {s.edges} MENTIONS edge(s).")


def _fail(e: BaseException) -> None:
    if not isinstance(e, CodegraphError | OSError):
        log.exception("issue import failed")
    st.session_state[FLASH] = ("error", one_line(e))


def _json_of(upload: Any) -> Any:
    try:
        return json.loads(upload.getvalue().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BadInput(f"{upload.name} is not a JSON export: {e}") from None


def _import(repo: str) -> None:
    try:
        up, cup = st.session_state.get("issues_upload"), st.session_state.get("issues_comments_upload")
        path = str(st.session_state.get("issues_path", "")).strip()
        cpath = str(st.session_state.get("issues_comments_path", "")).strip()
        if up is not None:
            issues = core.parse_export(_json_of(up), _json_of(cup) if cup is not None else None)
            source = f"upload:{up.name}"
        elif path:
            issues = core.load_export(Path(path).expanduser(), Path(cpath).expanduser() if cpath else None)
            source = f"export:{Path(path).name}"
        else:
            raise BadInput("choose an export file or type its path first")
        _done(core.import_issues(graph_store(), repo, issues, source=source))
    except Exception as e:  # shown as one line on top of the page
        _fail(e)


def _fetch(repo: str) -> None:
    try:
        owner = str(st.session_state.get("issues_gh", "")).strip()
        issues = core.fetch_issues(owner, core.github_token(), state="all")
        _done(core.import_issues(graph_store(), repo, issues, source=f"api:{owner}"))
    except Exception as e:
        _fail(e)


# ---------------------------------------------------------------------------- drawing
def _flash() -> None:
    msg = st.session_state.pop(FLASH, None)
    if msg:
        (st.error if msg[0] == "error" else st.success)(msg[1])


def _import_panel(names: list[str], repo: str | None, expanded: bool) -> None:
    with st.expander("Import issues", expanded=expanded, icon=":material/upload:"):
        target = repo or st.selectbox("Into repository", names, key="issues_repo")
        st.caption("A JSON export of `GET /repos/OWNER/NAME/issues` (comments inline per issue, or separately: "
                   "`{\"issues\": [...], \"comments\": {...}}` or a comments file). Re-importing replaces the issues.")
        c1, c2 = st.columns(2)
        c1.file_uploader("Export file", type=["json"], key="issues_upload")
        c2.file_uploader("Comments file (optional)", type=["json"], key="issues_comments_upload")
        c1.text_input("…or its path on the dashboard's machine", key="issues_path")
        c2.text_input("…and the comments file's path", key="issues_comments_path")
        st.button("Import", key="issues_import", on_click=_import, args=(target,), icon=":material/upload:",
                  disabled=not target)
        st.divider()
        c1, c2 = st.columns([3, 1])
        c1.text_input("Fetch live from GitHub (OWNER/NAME)", key="issues_gh", placeholder="psf/requests")
        c2.button("Fetch", key="issues_fetch", on_click=_fetch, args=(target,), icon=":material/cloud_download:",
                  disabled=not (target and st.session_state.get("issues_gh")))
        st.caption("Token: " + ("found (GITHUB_TOKEN or .streamlit/secrets.toml)." if core.github_token() else
                                "none: public repositories only, 60 requests an hour. Set GITHUB_TOKEN or "
                                "`github_token` in .streamlit/secrets.toml."))


def _ref_rows(refs: list[core.IssueRef], with_depth: bool = False) -> list[dict[str, Any]]:
    return [{"#": r.number, "state": r.state, "title": r.title, "mentions": r.mentioned,
             **({"depth": r.depth} if with_depth else {}), "ambiguous": r.ambiguous, "where": ", ".join(r.where),
             "url": r.url} for r in refs]


LINKS = {"url": st.column_config.LinkColumn("url", display_text="open")}


def _in(keep: set[str] | None, items: list[Any]) -> list[Any]:
    """Items (with ``repo``) of the sidebar's workspace only; all when ``keep`` is None."""
    return items if keep is None else [x for x in items if x.repo in keep]


def _top(store: Any, repo: str | None, state: str | None, keep: set[str] | None = None) -> None:
    rows = _in(keep, core.most_discussed(store, repo, state, limit=30 if keep is None else 300))[:30]
    if not rows:
        st.caption("No issue mentions a symbol or file yet.")
        return
    df = pd.DataFrame([{"symbol / file": r.name, "issues": r.issues, "open issues": r.open_issues,
                        "kind": r.kind, "repo": r.repo, "where": f"{r.file}:{r.line}" if r.line else r.file,
                        "ambiguous links": r.ambiguous, "issue numbers": ", ".join(f"#{n}" for n in r.numbers[:12])}
                       for r in rows])
    fig = px.bar(df.head(15).iloc[::-1], x="issues", y="symbol / file", orientation="h",
                 hover_data=["open issues", "where"], title="Most discussed (by number of issues)")
    fig.update_layout(margin={"l": 10, "r": 10, "t": 40, "b": 10}, height=min(60 + 28 * min(len(df), 15), 480))
    st.plotly_chart(fig, config={"displayModeBar": False})
    st.dataframe(df, hide_index=True, key="issues_top")
    st.caption("Ambiguous links (a name several symbols share) are not counted; their number is shown.")


def _mentioning(store: Any, repo: str | None, state: str | None, keep: set[str] | None = None) -> None:
    persistent("issues_target", "")
    target = st.text_input("Symbol or file", key="issues_target", placeholder="OrderService.place · file:shop/api.py")
    remember("issues_target")
    if not target.strip():
        return
    try:
        refs = _in(keep, core.issues_mentioning(store, target, repo, state))
    except TargetNotFound as e:
        st.warning(str(e), icon=":material/search_off:")
        return
    st.caption(f"{len(refs)} issue link(s) for `{target}`.")
    if refs:
        st.dataframe(_ref_rows(refs), hide_index=True, key="issues_mentioning", column_config=LINKS)


def _radius(store: Any, repo: str | None, state: str | None, keep: set[str] | None = None) -> None:
    persistent("issues_radius_target", "")
    persistent("issues_depth", 3)
    c1, c2 = st.columns([3, 1])
    target = c1.text_input("Change target", key="issues_radius_target", placeholder="shop.store.save")
    depth = c2.slider("Depth", 1, 10, key="issues_depth")
    remember("issues_radius_target", "issues_depth")
    if not target.strip():
        st.caption("Type what you are about to change: the issues that mention it or anything that calls it.")
        return
    try:
        res = core.issues_in_radius(store, target, repo, depth, state)
        res.issues = _in(keep, res.issues)
    except TargetNotFound as e:
        st.warning(str(e), icon=":material/search_off:")
        return
    st.metric("Issues in the blast radius", len({(r.repo, r.number) for r in res.issues}),
              help=f"{res.radius} node(s) in the radius (targets, callers up to depth {depth}, their files)")
    if res.issues:
        st.dataframe(_ref_rows(res.issues, with_depth=True), hide_index=True, key="issues_radius",
                     column_config=LINKS)
    else:
        st.caption("No issue mentions the target or its callers.")


def _all(store: Any, nodes: list[Any]) -> None:
    st.dataframe([{"repo": n.repo, "#": n.props.get("number"), "state": n.props.get("state"),
                   "title": n.props.get("title"), "labels": ", ".join(n.props.get("labels") or []),
                   "mentions": n.props.get("mentions", 0),
                   "not found": ", ".join(n.props.get("unresolved_mentions") or [])[:120],
                   "comments": n.props.get("comment_count", 0), "url": n.props.get("url")} for n in nodes],
                 hide_index=True, key="issues_all", column_config=LINKS)
    by_uid = {n.uid: n for n in nodes}
    uid = st.selectbox("Issue", list(by_uid), key="issues_pick",
                       format_func=lambda u: f"#{by_uid[u].props.get('number')} {by_uid[u].props.get('title')}")
    n = by_uid[uid]
    hits = store.neighbours([uid], "out", [MENTIONS]).get(uid, [])
    st.markdown(f"**#{n.props.get('number')} {n.props.get('title')}** · {n.props.get('state')} · "
                f"opened {str(n.props.get('created_at', ''))[:10]} by {n.props.get('author') or '?'}")
    st.dataframe([{"mentions": h.node.display(), "kind": h.node.props.get("kind") or h.node.label,
                   "as written": h.edge.extra.get("text"), "where": ", ".join(h.edge.extra.get("where") or []),
                   "ambiguous": bool(h.edge.extra.get("ambiguous"))} for h in hits], hide_index=True,
                 key="issues_pick_mentions")
    if n.props.get("body"):
        with st.expander("Body"):
            st.markdown(str(n.props["body"]))


def body() -> None:
    start = page_start("Issues", "Which issues talk about this code? Mentions come from backticked names and file paths in titles, "
                       "bodies and comments, resolved exactly within the repository.")
    if start is None:
        return
    store, names, scope = start  # scope: a repo, a workspace's repos, or None (all)
    repo = scope[0] if scope and len(scope) == 1 else None
    keep = set(scope) if scope and len(scope) > 1 else None
    nodes = _in(keep, core.issue_nodes(store, repo))
    _flash()
    _import_panel(names, repo, expanded=not nodes)
    if not nodes:
        st.info("No issue imported yet: import an export above, or run "
                "`codegraph issues import issues.json --repo NAME`.", icon=":material/info:")
        return
    m = st.columns(4)
    m[0].metric("Issues", len(nodes))
    m[1].metric("Open", sum(n.props.get("state") == "open" for n in nodes))
    m[2].metric("Mentioning code", sum(bool(n.props.get("mentions")) for n in nodes))
    m[3].metric("Mentions not found", sum(len(n.props.get("unresolved_mentions") or []) for n in nodes),
                help="Backticked names or paths that match nothing in the repository")
    persistent("issues_state", "open")
    state = STATES[st.radio("Issues", list(STATES), key="issues_state", horizontal=True)]
    remember("issues_state")
    tabs = st.tabs(["Most discussed", "Mentioning a symbol", "Blast radius", "All issues"])
    with tabs[0]:
        _top(store, repo, state, keep)
    with tabs[1]:
        _mentioning(store, repo, state, keep)
    with tabs[2]:
        _radius(store, repo, state, keep)
    with tabs[3]:
        _all(store, nodes)


run_page(body, what="The Issues page")

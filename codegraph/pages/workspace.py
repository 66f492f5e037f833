"""Workspaces: the repositories of one workspace, the cross-repo edges between them
(libraries, HTTP, Kafka) as a small graph, and the client calls that matched no endpoint
anywhere in the workspace (docs/DESIGN.md#workspaces)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from codegraph.core.workspace import WorkspaceConfig, current_config
from codegraph.dashboard.common import graph_store, persistent, remember, run_page, settings

KIND_COLOURS = {"library": "#1F77B4", "http": "#D62728", "kafka": "#2CA02C"}
WS_KEY = "workspace_pick"


def dot(overview: dict[str, Any]) -> str:
    """Graphviz DOT of the workspace: one box per repo, one arrow per (from, to, kind)
    labelled with its edge count; arrows point from the dependant to what it uses."""
    lines = ["digraph workspace {", '  rankdir=LR; node [shape=box, style="rounded,filled", fillcolor="#F4F4F4", '
             'fontname="Helvetica"]; edge [fontname="Helvetica", fontsize=10];']
    for r in overview["repos"]:
        label = r["repo"] + ("" if r["indexed"] else "\\n(not indexed)")
        lines.append(f'  "{_q(r["repo"])}" [label="{_q(label)}"];')
    for lk in overview["links"]:
        colour = KIND_COLOURS.get(lk["kind"], "#777777")
        lines.append(f'  "{_q(lk["from"])}" -> "{_q(lk["to"])}" [label="{lk["kind"]} {lk["count"]}", '
                     f'color="{colour}", fontcolor="{colour}"];')
    lines.append("}")
    return "\n".join(lines)


def _q(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def body() -> None:
    st.title("Workspaces")
    from codegraph.indexer.workspace_view import workspace_overview

    cfg: WorkspaceConfig = current_config(settings().state_db)
    if not cfg.workspaces:
        st.info("No workspace is declared. Group repositories in codegraph.toml with "
                "`[[workspaces]] name = \"...\" repos = [...]`, then run `codegraph workspace link` "
                "(or `codegraph refresh`): libraries, HTTP calls and Kafka topics are then linked across them.")
        return
    persistent(WS_KEY, cfg.workspaces[0].name)
    if st.session_state.get(WS_KEY) not in cfg.names():
        st.session_state[WS_KEY] = cfg.workspaces[0].name
    name = st.selectbox("Workspace", cfg.names(), key=WS_KEY)
    remember(WS_KEY)
    ov = workspace_overview(graph_store(), settings().state_db, cfg, name)
    totals = {k: sum(r["edges_out"].get(k, 0) for r in ov["repos"]) for k in ("library", "http", "kafka")}
    m = st.columns(5)
    m[0].metric("Repositories", len(ov["repos"]))
    m[1].metric("Library edges", totals["library"], help="References that missed in their repo and resolved into "
                "what another repo of the workspace provides (resolution cross_repo).")
    m[2].metric("HTTP edges", totals["http"], help="Client calls matched to an endpoint of another repo.")
    m[3].metric("Kafka edges", totals["kafka"], help="Producers and consumers joined through a topic of the same name.")
    m[4].metric("Unmatched client calls", sum(r["unmatched_http"] for r in ov["repos"]),
                help="Client calls that fit no endpoint in their repo nor in the workspace.")
    st.subheader("Cross-repo edges")
    if ov["links"]:
        st.graphviz_chart(dot(ov))
    else:
        st.caption("No cross-repo edge yet: run `codegraph workspace link` after indexing the repositories.")
    st.subheader("Repositories")
    st.dataframe([{"repo": r["repo"], "indexed": r["indexed"], "provides": ", ".join(r["provides"][:6]),
                   "identity": ", ".join(r["identity"]), "library": r["edges_out"].get("library", 0),
                   "http": r["edges_out"].get("http", 0), "kafka": r["edges_out"].get("kafka", 0),
                   "unmatched client calls": r["unmatched_http"], "ambiguous": r["ambiguous"]} for r in ov["repos"]],
                 hide_index=True, use_container_width=True)
    st.subheader("Unmatched and ambiguous client calls")
    any_rows = False
    for r in ov["repos"]:
        rows = [{"file:line": f"{u['file']}:{u['line']}", "method": u.get("method") or "", "url": u.get("url") or "",
                 "why": u.get("reason") or ""} for u in r["unmatched"]]
        rows += [{"file:line": f"{a['file']}:{a['line']}", "method": a.get("method") or "",
                  "url": a.get("url") or a.get("target") or "", "why": "ambiguous: " + "; ".join(a["candidates"])}
                 for a in r["ambiguous_items"]]
        if rows:
            any_rows = True
            with st.expander(f"{r['repo']}: {len(rows)} call(s)"):
                st.dataframe(rows, hide_index=True, use_container_width=True)
    if not any_rows:
        st.caption("Every client call found an endpoint.")


run_page(body)

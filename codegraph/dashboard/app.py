"""Dashboard entry point: ``codegraph dashboard`` runs ``streamlit run`` on this file.

Pages are listed once, in PAGES; adding a page is one line there (a file in
``codegraph/pages`` plus its title, icon and section). The sidebar (backends, repo
filter) is drawn here so every page shares it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from codegraph.dashboard.common import (
    ALL_REPOS,
    REPO_KEY,
    graph_store,
    one_line,
    page_path,
    persistent,
    remember,
    settings,
    workspace_options,
)

PAGES_DIR = Path(__file__).resolve().parent.parent / "pages"


@dataclass(frozen=True, slots=True)
class PageSpec:
    file: str  # in codegraph/pages
    title: str
    icon: str
    section: str
    default: bool = False


PAGES: list[PageSpec] = [
    PageSpec("overview.py", "Overview", ":material/dashboard:", "Explore", default=True),
    PageSpec("search.py", "Search", ":material/search:", "Explore"),
    PageSpec("impact.py", "Impact", ":material/hub:", "Explore"),
    PageSpec("coverage.py", "Coverage", ":material/donut_small:", "Quality"),
    PageSpec("health.py", "Health", ":material/monitor_heart:", "System"),
    PageSpec("cypher.py", "Cypher console", ":material/terminal:", "System"),
    PageSpec("triage.py", "Triage", ":material/rule:", "Quality"),
    PageSpec("baselines.py", "Baselines", ":material/timeline:", "Quality"),
    PageSpec("issues.py", "Issues", ":material/forum:", "Quality"),
    PageSpec("workspace.py", "Workspaces", ":material/account_tree:", "Explore"),
]


def build_navigation() -> dict[str, list[st.Page]]:
    sections: dict[str, list[st.Page]] = {}
    for spec in PAGES:
        # A page listed before its file lands is skipped instead of breaking every page.
        if not (PAGES_DIR / spec.file).is_file():
            continue
        sections.setdefault(spec.section, []).append(
            st.Page(page_path(spec.file), title=spec.title, icon=spec.icon, default=spec.default))
    return sections


def sidebar() -> None:
    """Backends in use and the repo filter every page reads (common.current_repo)."""
    s = settings()
    with st.sidebar:
        st.caption(f"graph: `{s.graph}` · search: `{s.search}`")
        try:
            names = sorted(str(r.props.get("name")) for r in graph_store().repos())
        except Exception as e:  # the pages say the same thing in detail; keep the sidebar usable
            st.caption(f":red[graph unavailable: {one_line(e, 'CODEGRAPH_GRAPH')}]")
            names = []
        options = [ALL_REPOS, *workspace_options(), *names]
        persistent(REPO_KEY, ALL_REPOS)
        if st.session_state.get(REPO_KEY) not in options:
            st.session_state[REPO_KEY] = ALL_REPOS
        st.selectbox("Repository", options, key=REPO_KEY,
                     help="Limits every page to one indexed repository, or to a workspace's repositories "
                          "(Health always shows the whole store).")
        remember(REPO_KEY)


def main() -> None:
    st.set_page_config(page_title="CodeGraph Explorer", page_icon="🕸️", layout="wide")
    nav = st.navigation(build_navigation())
    sidebar()
    nav.run()


# Streamlit runs this file as __main__; importing it (tests, tools) only reads PAGES.
if __name__ == "__main__":
    main()

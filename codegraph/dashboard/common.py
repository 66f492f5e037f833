"""What every page shares: settings, cached stores, errors as one line, the repo filter.

Stores are opened once per process and settings (``st.cache_resource``, keyed by the
settings that choose a backend) and shared by every session: the embedded graph gives
each thread its own sqlite connection and the Neo4j / Elasticsearch clients are
thread-safe, so a rerun never reconnects. Aggregates that scan the graph are cached
with ``st.cache_data`` keyed by a *graph version* (every repo's last_checked_at), so a
re-index shows up on the next rerun without a restart.

Errors reach the person as one ``st.error`` line naming the setting to check; the full
traceback goes to the server log only.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import streamlit as st

from codegraph.core.errors import CodegraphError, StoreUnavailable
from codegraph.core.graph_store import GraphStore
from codegraph.core.search_index import SearchIndex
from codegraph.core.settings import Settings, load_settings
from codegraph.core.stores import Stores

log = logging.getLogger("codegraph.dashboard")

ALL_REPOS = "All repositories"
REPO_KEY = "repo_filter"
# Keys of the [codegraph] table in .streamlit/secrets.toml that may override settings.
SECRET_KEYS = ("graph", "search", "home", "neo4j_user", "neo4j_password", "neo4j_database", "elastic_prefix",
               "embed_model_path")
INDEX_HINT = "codegraph index PATH --repo NAME"


# ---------------------------------------------------------------------------- settings
def secret_overrides() -> dict[str, Any]:
    """Settings from the ``[codegraph]`` table of ``.streamlit/secrets.toml``.

    A ``CODEGRAPH_*`` environment variable wins over the same key in secrets, so tests
    and one-off runs can always point the dashboard elsewhere. No file -> ``{}``.
    """
    try:
        if not st.secrets.load_if_toml_exists():
            return {}
        table = st.secrets.get("codegraph", {})
    except Exception:  # a malformed secrets file must not take the dashboard down
        log.warning("ignoring unreadable .streamlit/secrets.toml", exc_info=True)
        return {}
    return {k: str(v) for k, v in dict(table).items()
            if k in SECRET_KEYS and f"CODEGRAPH_{k.upper()}" not in os.environ}


def settings() -> Settings:
    """Current settings: env, then services.env, then secrets (see secret_overrides)."""
    return load_settings(**secret_overrides())


def store_key(s: Settings) -> str:
    """What identifies one pair of opened stores (no secrets in it)."""
    return f"{s.graph}|{s.search}|{s.home}|{s.neo4j_user}|{s.neo4j_database}|{s.elastic_prefix}"


@st.cache_resource(show_spinner="Opening the stores…", max_entries=8)
def _stores(key: str, _s: Settings) -> Stores:
    """One Stores session per backend choice, shared by every browser session."""
    return Stores(_s)


@st.cache_resource(show_spinner="Loading the embedding model…", max_entries=4)
def _embedder(key: str, _s: Settings) -> Any:
    from codegraph.core.embedder import Embedder

    return Embedder.from_settings(_s)


def graph_store() -> GraphStore:
    """The graph store for the current settings. Raises StoreUnavailable."""
    s = settings()
    return _stores(store_key(s), s).graph


def search_index() -> SearchIndex:
    """The search index for the current settings. Raises StoreUnavailable."""
    s = settings()
    return _stores(store_key(s), s).search


def embedder() -> Any:
    """The query embedder (``.available``, ``.reason``); loads the model once."""
    s = settings()
    return _embedder(f"{s.model_folder()}|{s.embed_model_file}|{s.embed_threads}", s)


def current_key() -> str:
    return store_key(settings())


def graph_version(store: GraphStore) -> str:
    """Changes whenever any repo is re-indexed: the cache key for graph aggregates."""
    return ";".join(f"{r.props.get('name')}@{r.props.get('last_checked_at')}" for r in store.repos())


@st.cache_data(show_spinner="Counting…", max_entries=64, ttl=3600)
def _counts(key: str, version: str, repo: str) -> dict[str, Any]:
    return graph_store().counts(repo)


def merge_counts(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Sum GraphStore.counts() answers (nested dicts of ints add up key by key)."""
    out: dict[str, Any] = {}
    for part in parts:
        for k, v in part.items():
            if isinstance(v, dict):
                d = out.setdefault(k, {})
                for kk, vv in v.items():
                    d[kk] = d.get(kk, 0) + vv
            else:
                out[k] = out.get(k, 0) + v
    return out


def counts(repo: str | None = None) -> dict[str, Any]:
    """GraphStore.counts() of one repo or of all (the sum of each repo's, so a repo's
    figures are computed once per graph version and shared by every page)."""
    store = graph_store()
    key, version = current_key(), graph_version(store)
    if repo:
        return _counts(key, version, repo)
    return merge_counts([_counts(key, version, str(r.props.get("name"))) for r in store.repos()])


@st.cache_data(show_spinner="Counting…", max_entries=64, ttl=3600)
def _figures(key: str, version: str, repo: str | None) -> dict[str, Any]:
    from codegraph.core.figures import figures as compute

    return compute(graph_store(), repo, counts(repo)).to_dict()


def figures(repo: str | None = None) -> Any:
    """core.figures.Figures of one repo or of all: the one definition of edges, stubs,
    unresolved share and unsupported files that every page shows (cached per graph
    version)."""
    from codegraph.core.figures import Figures

    d = dict(_figures(current_key(), graph_version(graph_store()), repo))
    d.pop("resolved_references", None)
    d.pop("unresolved_pct", None)
    return Figures(**d)


def counts_in(scope: list[str] | None) -> dict[str, Any]:
    """GraphStore.counts() of the repos of ``scope`` (current_scope(); None: every repo)."""
    if scope is None:
        return counts(None)
    return merge_counts([counts(r) for r in scope])


def figures_in(scope: list[str] | None) -> Any:
    """core.figures.Figures of the repos of ``scope`` (a repo, a workspace, None: all): the
    sum of each repo's cached figures (core.figures.combine), the same definition as ``figures``."""
    if scope is None:
        return figures(None)
    if len(scope) == 1:
        return figures(scope[0])
    from codegraph.core.figures import combine

    return combine([figures(r) for r in scope])


def scope_label(scope: list[str] | None, total: int) -> str:
    """"Repository X" / "Workspace W (3 repositories)" / "5 repositories" for captions."""
    v = str(st.session_state.get(REPO_KEY) or "")
    if v.startswith(WORKSPACE_PREFIX) and scope is not None:
        return f"Workspace {v[len(WORKSPACE_PREFIX):]} ({len(scope)} repositories: {', '.join(scope)})"
    if scope is not None and len(scope) == 1:
        return f"Repository {scope[0]}"
    return f"{total} repositories"


# ---------------------------------------------------------------------------- errors
def one_line(err: BaseException, setting: str | None = None) -> str:
    """A readable single line for ``err``. ``setting`` is named when the fault may be in
    the configuration (a store that does not answer, an unexpected error) and the
    message names no setting itself; a refused query or an unknown target is the
    person's input, not the configuration."""
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    if not isinstance(err, CodegraphError):
        text = f"{type(err).__name__}: {text}"
    config_fault = isinstance(err, StoreUnavailable) or not isinstance(err, CodegraphError)
    if setting and config_fault and "CODEGRAPH_" not in text:
        text += f" (check {setting})"
    return text


def show_error(err: BaseException, setting: str | None = None) -> None:
    st.error(one_line(err, setting), icon=":material/error:")


@contextmanager
def guard(setting: str = "CODEGRAPH_GRAPH", what: str = "") -> Iterator[None]:
    """Run a block; any error becomes one st.error line (traceback to the log only).

    Streamlit's own control flow (st.stop, st.rerun, st.switch_page) derives from
    BaseException and passes through untouched.
    """
    try:
        yield
    except StoreUnavailable as e:
        show_error(e, setting)
    except CodegraphError as e:  # not found, unsupported, bad input: the message says what to do
        show_error(e)
    except ImportError as e:
        log.exception("dashboard import failed")
        st.error(f"{what or 'This page'} needs `{e.name}`, which is not importable in this installation "
                 "(reinstall with `make install`).", icon=":material/error:")
    except Exception as e:  # the page must stay usable and show one line, never a traceback
        log.exception("dashboard page failed")
        show_error(e, setting)


def run_page(body: Callable[[], None], setting: str = "CODEGRAPH_GRAPH", what: str = "") -> None:
    """Run a page body under ``guard``."""
    with guard(setting, what):
        body()


# ---------------------------------------------------------------------------- navigation, filters, state
def page_path(file: str) -> str:
    """A page file of codegraph/pages relative to app.py (what st.Page and
    st.switch_page take)."""
    return f"../pages/{file}"



WORKSPACE_PREFIX = "workspace: "  # sidebar entries that choose a workspace (docs/DESIGN.md#workspaces)


def current_repo() -> str | None:
    """The repo chosen in the sidebar, or None for all (and for a workspace: see current_scope)."""
    v = st.session_state.get(REPO_KEY)
    return None if not v or v == ALL_REPOS or str(v).startswith(WORKSPACE_PREFIX) else str(v)


def workspace_options() -> list[str]:
    """Sidebar entries for the declared workspaces ("workspace: NAME")."""
    from codegraph.core.workspace import current_config

    try:
        return [WORKSPACE_PREFIX + n for n in current_config(settings().state_db).names()]
    except Exception:  # a broken config must not take the sidebar down; the Workspaces page says why
        return []


def current_scope() -> list[str] | None:
    """The repos the sidebar's choice covers: [repo], a workspace's repos, or None (all)."""
    v = str(st.session_state.get(REPO_KEY) or "")
    if v.startswith(WORKSPACE_PREFIX):
        from codegraph.core.workspace import current_config

        ws = current_config(settings().state_db).get(v[len(WORKSPACE_PREFIX):])
        return list(ws.repos) if ws is not None else None
    repo = current_repo()
    return [repo] if repo else None


def persistent(key: str, default: Any) -> None:
    """Give widget ``key`` its last value when the page is opened again.

    Streamlit drops a widget's state when a run does not draw it (e.g. after visiting
    another page); a shadow copy under ``_keep_<key>`` brings it back.
    """
    if key not in st.session_state:
        st.session_state[key] = st.session_state.get(f"_keep_{key}", default)


def remember(*keys: str) -> None:
    """Store the shadow copies read by ``persistent``."""
    for k in keys:
        if k in st.session_state:
            st.session_state[f"_keep_{k}"] = st.session_state[k]


# ---------------------------------------------------------------------------- formatting
def age_text(iso: str | None) -> str:
    """'3 h ago' / '2 d ago' for an ISO-8601 timestamp; 'never' for None."""
    if not iso:
        return "never"
    try:
        then = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    if then.tzinfo is None:
        then = then.replace(tzinfo=UTC)
    secs = max(0.0, (datetime.now(UTC) - then).total_seconds())
    if secs < 120:
        return f"{int(secs)} s ago"
    if secs < 7200:
        return f"{int(secs // 60)} min ago"
    if secs < 172800:
        return f"{secs / 3600:.1f} h ago"
    return f"{secs / 86400:.1f} d ago"


def short_sha(sha: str | None) -> str:
    return (sha or "n/a")[:12]


def drift_note(fresh: dict[str, Any]) -> str | None:
    """A warning when the checkout the dashboard runs from differs from the indexed
    commit (freshness()'s ``checkout``), else None."""
    c = fresh.get("checkout")
    if not c or c.get("matches_graph"):
        return None
    parts = []
    if c.get("head") != fresh.get("commit"):
        parts.append(f"the checkout is at `{short_sha(c.get('head'))}`, the graph at `{short_sha(fresh.get('commit'))}`"
                     + (f" ({len(c.get('changed_since') or [])} file(s) changed since)" if c.get("changed_since")
                        else ""))
    if c.get("uncommitted"):
        parts.append(f"{len(c['uncommitted'])} file(s) have uncommitted changes")
    return (f"**{fresh.get('repo')}** may be stale here: " + "; ".join(parts or ["the checkout differs"])
            + f". Re-index with `codegraph index {c.get('checkout') or fresh.get('path')}`.")


def page_start(title: str, caption: str) -> tuple[GraphStore, list[str], list[str] | None] | None:
    """Draw a page's title and caption; then (graph store, indexed repo names sorted, the
    sidebar's scope as ``current_scope``), or None after the empty state when no repo is indexed."""
    st.title(title)
    st.caption(caption)
    store = graph_store()
    names = sorted(str(r.props.get("name")) for r in store.repos())
    if not names:
        empty_state()
        return None
    return store, names, current_scope()


def empty_state(message: str = "No repository is indexed yet.") -> None:
    """The one empty state every page shows: what to run to get data."""
    st.info(f"{message} Index one with `{INDEX_HINT}` (for example "
            f"`codegraph index ~/src/my-service --repo my-service`), then reload this page.",
            icon=":material/info:")

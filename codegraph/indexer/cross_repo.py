"""The cross-repo link pass (docs/DESIGN.md#workspaces): edges between the
repositories of one workspace, computed from the stored graph and the indexer state,
never by re-parsing a repository.

For each dependant repository B (every repo of the workspaces asked for, or the ones
named), against its peers (the other repos sharing a workspace with it):

- **library**: every reference of B that ended as a ``missing`` stub (plus the ones an
  earlier pass already turned into cross-repo edges, remembered in the state) is looked
  up in what each peer provides (``codegraph.indexer.provides``): the stub's target
  identifier and the qualified names its candidates named, through the peer's
  re-exports (``extra["symbols"]`` of its IMPORTS edges). Exactly one peer declaring it
  -> the stub edge is replaced by an edge into that symbol (or file, for IMPORTS) with
  ``resolution = "cross_repo"``; several peers -> the stub stays, reported ambiguous.
  A remembered reference whose target vanished gets its stub edge back.
- **http**: B's client calls that matched no endpoint of B (saved by the pipeline) are
  matched against the peers' endpoints with the conservative rules of
  ``adapters._routes.fits``; a peer's ``base_urls`` (URLs or ``${VAR}`` names) pins a
  call to that peer and gives it a known base. One endpoint -> CALLS_HTTP; several ->
  reported ambiguous with the candidates; none -> reported unmatched.
- **kafka**: a topic of B whose name a peer also uses is one topic: each PRODUCES /
  CONSUMES edge of B gets a twin into the peer's Topic node, so impact from a producer
  reaches every consumer and ``topic:NAME`` lists both sides.

Every cross-repo edge is stored with B as its repo and B's file:line as evidence, and is
replaced as a whole per repo on each pass (``GraphStore.replace_cross_repo_edges``).
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from codegraph.core.graph_store import GraphStore
from codegraph.core.models import (
    CALLS_HTTP,
    CONSUMES,
    ENDPOINT,
    FILE,
    IMPORTS,
    PRODUCES,
    STUB,
    TOPIC,
    Edge,
    Node,
    StubRecord,
    SymbolRecord,
    file_uid,
    stable_hash,
    stub_target,
    stub_uid,
)
from codegraph.core.workspace import WorkspaceConfig, save_linked
from codegraph.indexer.cross_repo_http import match_call
from codegraph.indexer.overloads import choose
from codegraph.indexer.provides import Provides, read_provides
from codegraph.indexer.state import StateStore

CROSS = "cross_repo"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS cross_needs (repo TEXT, path TEXT, edges_hash TEXT, needs TEXT, PRIMARY KEY (repo, path));
CREATE TABLE IF NOT EXISTS cross_client_calls (repo TEXT PRIMARY KEY, calls TEXT);
CREATE TABLE IF NOT EXISTS cross_report (repo TEXT PRIMARY KEY, report TEXT);
CREATE TABLE IF NOT EXISTS cross_cache (repo TEXT, kind TEXT, version TEXT, blob TEXT, PRIMARY KEY (repo, kind));
"""
_HTTP_REASONS = ("no_match", "external", "ambiguous")


# -- state ---------------------------------------------------------------------------------
def _conn(state: StateStore) -> Any:
    state.conn.executescript(_SCHEMA)
    return state.conn


def save_client_calls(state: StateStore, repo: str, unplaced: list[dict[str, Any]]) -> None:
    """Remember ``repo``'s client calls that found no endpoint in it (the pipeline calls
    this after its link pass; ``unplaced`` is ``BoundaryLinks.unplaced``)."""
    calls = [u for u in unplaced if u.get("kind") == "http_call" and u.get("reason") in _HTTP_REASONS
             and u.get("owner") and u.get("parts")]
    with _conn(state) as c:
        c.execute("INSERT OR REPLACE INTO cross_client_calls VALUES (?,?)", (repo, json.dumps(calls)))


def _client_calls(state: StateStore, repo: str) -> list[dict[str, Any]]:
    row = _conn(state).execute("SELECT calls FROM cross_client_calls WHERE repo=?", (repo,)).fetchone()
    return json.loads(row[0]) if row else []


def _saved_needs(state: StateStore, repo: str) -> dict[str, tuple[str, list[dict[str, Any]]]]:
    rows = _conn(state).execute("SELECT path, edges_hash, needs FROM cross_needs WHERE repo=?", (repo,))
    return {r[0]: (r[1], json.loads(r[2])) for r in rows}


def report(state: StateStore, repo: str) -> dict[str, Any]:
    """The last pass's report for ``repo``: ``{"edges": {kind: n}, "unmatched_http": [...],
    "ambiguous_http": [...], "ambiguous_library": [...]}`` ({} before any pass)."""
    row = _conn(state).execute("SELECT report FROM cross_report WHERE repo=?", (repo,)).fetchone()
    return json.loads(row[0]) if row else {}


def _cached(state: StateStore, repo: str, kind: str, version: str) -> Any:
    """What a pass stored for ``repo`` while it was at ``version`` (its Repo node's import
    and check times: any re-run of the repo invalidates it), or None."""
    row = _conn(state).execute("SELECT version, blob FROM cross_cache WHERE repo=? AND kind=?", (repo, kind)).fetchone()
    return json.loads(row[1]) if row and row[0] == version else None


def _cache(state: StateStore, repo: str, kind: str, version: str, value: Any) -> None:
    with _conn(state) as c:
        c.execute("INSERT OR REPLACE INTO cross_cache VALUES (?,?,?,?)", (repo, kind, version, json.dumps(value)))


def forget(state: StateStore, repo: str) -> None:
    with _conn(state) as c:
        for t in ("cross_needs", "cross_client_calls", "cross_report", "cross_cache"):
            c.execute(f"DELETE FROM {t} WHERE repo=?", (repo,))


# -- the pass --------------------------------------------------------------------------------
@dataclass(slots=True)
class LinkSummary:
    """What one pass did: per dependant repo the cross-repo edges by kind, and totals;
    ``ambiguous``/``unmatched`` count references left as they were; seconds."""

    repos: list[str] = field(default_factory=list)
    edges: Counter[str] = field(default_factory=Counter)
    by_repo: dict[str, dict[str, int]] = field(default_factory=dict)
    ambiguous: Counter[str] = field(default_factory=Counter)
    unmatched_http: int = 0
    restored_stubs: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class _Need:
    """A reference of B that missed in B: its stub edge (as stored) and lookup keys."""

    edge: Edge
    keys: list[str]


class _Peers:
    """Lazily read facts about the peer repositories, shared by one pass."""

    def __init__(self, graph: GraphStore, roots: dict[str, Path | None], state: StateStore | None = None,
                 versions: dict[str, str] | None = None) -> None:
        self.graph = graph
        self.roots = roots
        # Provides and re-exports only change when the repo is re-indexed: cached per version.
        self.state = state
        self.versions = versions or {}
        self._digests: dict[str, str] = {}
        self._provides: dict[str, Provides] = {}
        self._aliases: dict[str, dict[str, list[str]]] = {}
        self._endpoints: dict[str, list[Node]] = {}
        self._topics: dict[str, dict[str, str]] = {}

    def provides(self, repo: str) -> Provides:
        if repo not in self._provides:
            hit = self.cached(repo, "provides")
            if hit is not None:
                self._provides[repo] = Provides(**hit)
            else:
                self._provides[repo] = read_provides(self.graph, repo, self.roots.get(repo))
                self.cache(repo, "provides", asdict(self._provides[repo]))
        return self._provides[repo]

    def version(self, repo: str) -> str:
        """The repo's Repo-node times plus a digest of its indexer state (content and edge
        hashes per file): changes whenever the repo is re-indexed, even within a second.
        "" (no caching) when this machine's state does not know the repo."""
        if repo not in self._digests:
            hashes = self.state.file_hashes(repo) if self.state is not None else {}
            self._digests[repo] = stable_hash(self.versions.get(repo, ""), *sorted(
                f"{p}|{c}|{e}" for p, (c, e) in hashes.items())) if hashes else ""
        return self._digests[repo]

    def cached(self, repo: str, kind: str) -> Any:
        v = self.version(repo)
        return _cached(self.state, repo, kind, v) if self.state is not None and v else None

    def cache(self, repo: str, kind: str, value: Any) -> None:
        v = self.version(repo)
        if self.state is not None and v:
            _cache(self.state, repo, kind, v, value)

    def aliases(self, repo: str) -> dict[str, list[str]]:
        """``module_qn.name`` -> qualified names it re-exports (from IMPORTS ``symbols``)."""
        if repo in self._aliases:
            return self._aliases[repo]
        hit = self.cached(repo, "aliases")
        if hit is not None:
            self._aliases[repo] = hit
            return hit
        files = _all(self.graph, FILE, repo)
        out: dict[str, list[str]] = defaultdict(list)
        hits = self.graph.neighbours([f.uid for f in files], "out", [IMPORTS])
        with_syms = {u: hs for u, hs in hits.items() if any(h.edge.extra.get("symbols") for h in hs)}
        paths = {f.uid: f.props.get("path", "") for f in files}
        mods = self.graph.nodes_in_files(repo, [paths[u] for u in with_syms]) if with_syms else {}
        for u, hs in with_syms.items():
            module = next((s.props["qualified_name"] for s in mods.get(paths[u], ()) if s.props.get("kind") == "module"),
                          None)
            if module is None:
                continue
            for h in hs:
                for name, qns in (h.edge.extra.get("symbols") or {}).items():
                    for q in qns:
                        if q not in out[f"{module}.{name}"]:
                            out[f"{module}.{name}"].append(q)
        self._aliases[repo] = dict(out)
        self.cache(repo, "aliases", self._aliases[repo])
        return self._aliases[repo]

    def endpoints(self, repo: str) -> list[Node]:
        if repo not in self._endpoints:
            self._endpoints[repo] = _all(self.graph, ENDPOINT, repo)
        return self._endpoints[repo]

    def topics(self, repo: str) -> dict[str, str]:
        """topic name -> Topic uid."""
        if repo not in self._topics:
            self._topics[repo] = {n.props.get("name", ""): n.uid for n in _all(self.graph, TOPIC, repo)}
        return self._topics[repo]


def _all(graph: GraphStore, label: str, repo: str) -> list[Node]:
    out: list[Node] = []
    while True:
        page = graph.nodes_by_label(label, repo, limit=5000, offset=len(out))
        out.extend(page)
        if len(page) < 5000:
            return out


def _expand(qn: str, aliases: dict[str, list[str]], depth: int = 0) -> list[str]:
    """``qn`` and what it names through re-exports (``pkg.Name`` -> ``pkg.mod.Name``)."""
    out = [qn]
    if depth > 3 or not aliases:
        return out
    parts = qn.split(".")
    for i in range(len(parts), 0, -1):
        pre = ".".join(parts[:i])
        for t in aliases.get(pre, ()):
            cand = ".".join([t, *parts[i:]])
            if cand != qn:
                out.extend(_expand(cand, aliases, depth + 1))
    return list(dict.fromkeys(out))


def _module_qn(path: str) -> str:
    return re.sub(r"(\.d)?\.(m|c)?[jt]sx?$", "", path)


_SPLIT = re.compile(r"\.|/|::")


def _prefixes(key: str) -> list[str]:
    """``key`` and every prefix of it that ends at a separator (``.``, ``/``, ``::``), longest first."""
    return [key] + [key[:m.start()] for m in reversed(list(_SPLIT.finditer(key)))]


def _providers_of(key: str, index: dict[str, list[str]]) -> dict[str, str]:
    """peer -> the longest name it provides that ``key`` starts with (see provides.Provides.match)."""
    out: dict[str, str] = {}
    for pre in _prefixes(key):
        for p in index.get(pre, ()):
            out.setdefault(p, pre)
    return out


def _provider_qns(key: str, prov: Provides, name: str | None = None) -> list[str]:
    """Qualified names ``key`` may carry inside the provider (before re-exports)."""
    name = name if name is not None else prov.match(key)
    if name is None:
        return []
    eco = prov.names[name]
    if eco == "rust":  # a crate's own qualified names start below the crate: `acme::round` is `round`
        rest = key[len(name):].lstrip(":.")
        return [rest] if rest else []
    if eco == "go":  # `github.com/acme/lib/money.Round` is `money.Round` inside the module
        rest = key[len(name):].lstrip("/.")
        return [rest] if rest else []
    if eco != "npm":
        return [key]
    rest = key[len(name):]
    sub, member = "", ""
    if rest.startswith("/"):
        sub, _, member = rest[1:].partition(".")
    elif rest.startswith("."):
        member = rest[1:]
    f = prov.npm_entries.get(name, {}).get(sub)
    if f is None:
        return []
    mod = _module_qn(f)
    return [f"{mod}.{member}" if member else mod]


def _by_arity(nodes: list[Node], arity: Any, arg_types: Any = None) -> list[Node]:
    """The overloads a call can reach (``codegraph.indexer.overloads.choose`` on the
    stored symbols)."""
    if not isinstance(arity, int) or len(nodes) < 2:
        return nodes
    recs = {n.uid: SymbolRecord(**{k: n.props[k] for k in SymbolRecord.__dataclass_fields__ if k in n.props})
            for n in nodes}
    keep = {r.uid for r in choose(list(recs.values()), arity, arg_types if isinstance(arg_types, list) else None)}
    return [n for n in nodes if n.uid in keep]


def _stub_needs(graph: GraphStore, repo: str) -> tuple[list[_Need], dict[str, Node]]:
    stubs = [n for n in _all(graph, STUB, repo) if n.props.get("reason") == "missing"]
    hits = graph.neighbours([s.uid for s in stubs], "in") if stubs else {}
    needs = []
    for uid, hs in hits.items():
        for h in hs:
            if h.node.repo != repo:
                continue
            e = h.edge
            tid = e.extra.get("target_identifier") or stub_target(uid)
            needs.append(_Need(e, [tid, *e.extra.get("lookup", [])]))
    return needs, {s.uid: s for s in stubs}


def _need_from_saved(d: dict[str, Any]) -> _Need:
    e = Edge(d["type"], d["source"], d["target"], d["file"], d["line"], d.get("resolution", "stub"), d.get("extra", {}))
    return _Need(e, [e.extra.get("target_identifier", ""), *e.extra.get("lookup", [])])


def _peers_of(graph: GraphStore, state: StateStore, nodes: dict[str, Node]) -> _Peers:
    """The per-pass reader over ``nodes`` (repo name -> Repo node), with the state cache."""
    roots = {name: (Path(n.props["path"]) if n.props.get("path") else None) for name, n in nodes.items()}
    versions = {name: "|".join(str(n.props.get(k) or "") for k in ("last_imported_at", "last_checked_at",
                                                                       "extractor_version"))
                for name, n in nodes.items()}
    return _Peers(graph, roots, state, versions)


def provides_of(graph: GraphStore, state: StateStore, repos: list[str]) -> dict[str, Provides]:
    """What each indexed repo of ``repos`` provides, from the pass's cache when the repo has
    not changed since (the faces call this on every page load)."""
    nodes = {n.props.get("name", ""): n for n in graph.repos()}
    info = _peers_of(graph, state, nodes)
    return {r: info.provides(r) for r in repos if r in nodes}


def link_workspace(
    graph: GraphStore,
    state: StateStore,
    cfg: WorkspaceConfig,
    repos: list[str] | None = None,
    *,
    state_db: Path | None = None,
) -> LinkSummary:
    """Relink the cross-repo edges of ``repos`` (default: every repo of every workspace
    that is in the graph) against their peers. Reads only the graph and the state; no
    repository is re-parsed. ``state_db``: where to remember ``cfg`` for the faces.
    Raises StoreUnavailable when the graph does not answer."""
    t0 = time.perf_counter()
    out = LinkSummary()
    nodes = {n.props.get("name", ""): n for n in graph.repos()}
    members = {r for w in cfg.workspaces for r in w.repos}
    targets = [r for r in (repos if repos is not None else sorted(members)) if r in nodes]
    info = _peers_of(graph, state, nodes)
    for b in targets:
        peers = [p for p in cfg.peers(b) if p in nodes]
        counts = _link_one(graph, state, info, b, peers, cfg, out)
        out.by_repo[b] = counts
        out.repos.append(b)
    if state_db is not None:
        save_linked(state_db, cfg)
    out.seconds = round(time.perf_counter() - t0, 3)
    return out


def _link_one(graph: GraphStore, state: StateStore, info: _Peers, b: str, peers: list[str], cfg: WorkspaceConfig,
              out: LinkSummary) -> dict[str, int]:
    counts: Counter[str] = Counter()
    links: Counter[tuple[str, str]] = Counter()  # (provider, kind) -> edges
    rep: dict[str, Any] = {"edges": {}, "unmatched_http": [], "ambiguous_http": [], "ambiguous_library": []}
    create: list[Edge] = []
    remove: list[Edge] = []
    restore_nodes: list[Node] = []

    # -- library -------------------------------------------------------------------
    hashes = state.file_hashes(b)
    needs: dict[tuple[str, str, str, str, int], _Need] = {}
    stored: set[tuple[str, str, str, str, int]] = set()  # needs whose stub edge is in the graph now
    hit = info.cached(b, "needs")
    if hit is not None:  # b unchanged since the last pass: its needs, and which are stubs, are known
        for d, in_graph in hit:
            n = _need_from_saved(d)
            needs[n.edge.key()] = n
            if in_graph:
                stored.add(n.edge.key())
    else:
        current, _ = _stub_needs(graph, b)
        needs = {n.edge.key(): n for n in current}
        stored = set(needs)
        for path, (h, lst) in _saved_needs(state, b).items():
            if path in hashes and hashes[path][1] == h:
                for d in lst:
                    n = _need_from_saved(d)
                    needs.setdefault(n.edge.key(), n)
    provs = {p: info.provides(p) for p in peers}
    index: dict[str, list[str]] = defaultdict(list)  # provided name -> peers providing it
    for p, prov in provs.items():
        for name in prov.names:
            index[name].append(p)
    # every provider qualified name to look up, per peer
    wanted: dict[str, set[str]] = defaultdict(set)
    plans: dict[tuple[str, str, str, str, int], list[tuple[str, list[str]]]] = {}
    for k, need in needs.items():
        per_peer: dict[str, list[str]] = defaultdict(list)
        for key in need.keys:
            for p, name in _providers_of(key, index).items():
                for q in _provider_qns(key, provs[p], name):
                    per_peer[p].extend(_expand(q, info.aliases(p)))
        plan = [(p, list(dict.fromkeys(qns))) for p, qns in per_peer.items() if qns]
        for p, qns in plan:
            wanted[p].update(qns)
        plans[k] = plan
    found = {p: graph.symbols_by_qualified_name(sorted(qs), p) for p, qs in wanted.items()}
    converted: dict[str, list[dict[str, Any]]] = defaultdict(list)
    now_converted: set[tuple[str, str, str, str, int]] = set()
    imports: list[tuple[Edge, str, str]] = []  # (edge, peer, module qn) for the symbols annotation
    for k, need in needs.items():
        e = need.edge
        hits: dict[str, tuple[str, list[Node]]] = {}
        for p, qns in plans[k]:
            for q in qns:
                syms = found[p].get(q)
                if syms:
                    hits[p] = (q, syms)
                    break
        in_graph = k in stored
        if len(hits) == 1:
            (p, (q, syms)), = hits.items()
            extra = {**e.extra, "provider": p, "kind": "library", "stub": e.target}
            if e.type == IMPORTS:
                tgts = sorted({file_uid(p, s.props.get("file", "")) for s in syms})
            else:
                tgts = [s.uid for s in _by_arity(syms, e.extra.get("arity"), e.extra.get("arg_types"))]
            for t in tgts:
                ce = Edge(e.type, e.source, t, e.file, e.line, CROSS, dict(extra))
                create.append(ce)
                if e.type == IMPORTS and e.extra.get("names"):
                    imports.append((ce, p, q))
            counts["library"] += len(tgts)
            links[(p, "library")] += len(tgts)
            converted[e.file].append({**asdict(e), "resolution": "stub"})
            now_converted.add(k)
            if in_graph:
                remove.append(e)
            continue
        if len(hits) > 1:
            out.ambiguous["library"] += 1
            if len(rep["ambiguous_library"]) < 200:
                rep["ambiguous_library"].append({"file": e.file, "line": e.line, "target": need.keys[0],
                                                 "candidates": sorted(f"{p}: {q}" for p, (q, _) in hits.items())})
        if not in_graph:  # remembered, but no longer found: the stub edge comes back
            tid = e.extra.get("target_identifier") or need.keys[0]
            restore_nodes.append(StubRecord(b, tid, "missing").to_node())
            create.append(Edge(e.type, e.source, stub_uid(b, tid), e.file, e.line, "stub",
                               {x: v for x, v in e.extra.items() if x not in ("provider", "kind", "stub")}))
            out.restored_stubs += 1
    _annotate_imports(graph, info, imports)

    # -- http ---------------------------------------------------------------------------
    for call in _client_calls(state, b):
        matched, also = match_call(call, peers, info.endpoints, cfg.base_urls)
        entry = {"file": call["file"], "line": call["line"], "method": call.get("method"), "url": call.get("url")}
        if len(matched) == 1:
            p, ep = matched[0]
            create.append(Edge(CALLS_HTTP, call["owner"], ep.uid, call["file"], call["line"], CROSS,
                               {k: v for k, v in {"url": call.get("url"), "method": call.get("method"),
                                                  "client": call.get("client"), "provider": p, "kind": "http",
                                                  "also_fits": also[:10] or None}.items() if v is not None}))
            counts["http"] += 1
            links[(p, "http")] += 1
        elif matched:
            out.ambiguous["http"] += 1
            rep["ambiguous_http"].append({**entry, "candidates": sorted(f"{p}: {ep.display()}" for p, ep in matched)})
        else:
            out.unmatched_http += 1
            rep["unmatched_http"].append({**entry, "reason": call.get("reason")})

    # -- kafka --------------------------------------------------------------------------
    mine = info.topics(b)
    shared = {name: [(p, info.topics(p)[name]) for p in peers if name in info.topics(p)] for name in mine}
    shared = {k: v for k, v in shared.items() if v}
    if shared:
        hits = graph.neighbours([mine[n] for n in shared], "in", [PRODUCES, CONSUMES])
        for name, others in shared.items():
            for h in hits.get(mine[name], ()):
                if h.edge.resolution == CROSS or h.node.repo != b:
                    continue
                for p, tuid in others:
                    create.append(Edge(h.edge.type, h.edge.source, tuid, h.edge.file, h.edge.line, CROSS,
                                       {**h.edge.extra, "provider": p, "kind": "kafka", "topic": name}))
                    counts["kafka"] += 1
                    links[(p, "kafka")] += 1

    if restore_nodes:
        graph.upsert_nodes(restore_nodes)
    graph.replace_cross_repo_edges(b, remove, create)
    if remove:
        graph.prune_unreferenced(b, [STUB])
    info.cache(b, "needs", [[{**asdict(n.edge), "resolution": "stub"}, k not in now_converted]
                           for k, n in needs.items()])
    with _conn(state) as c:
        c.execute("DELETE FROM cross_needs WHERE repo=?", (b,))
        c.executemany("INSERT INTO cross_needs VALUES (?,?,?,?)",
                      [(b, path, hashes.get(path, ("", ""))[1], json.dumps(lst)) for path, lst in converted.items()])
        rep["edges"] = dict(counts)
        rep["links"] = [{"to": p, "kind": k, "count": n} for (p, k), n in sorted(links.items())]
        rep["ambiguous_total"] = sum(1 for _ in rep["ambiguous_http"]) + len(rep["ambiguous_library"])
        rep["ambiguous_http"] = rep["ambiguous_http"][:200]
        rep["unmatched_http"] = rep["unmatched_http"][:200]
        rep["unmatched_http_total"] = out.unmatched_http
        c.execute("INSERT OR REPLACE INTO cross_report VALUES (?,?)", (b, json.dumps(rep)))
    out.edges.update(counts)
    return dict(counts)


def _annotate_imports(graph: GraphStore, info: _Peers, imports: list[tuple[Edge, str, str]]) -> None:
    """``extra["symbols"]`` on cross-repo IMPORTS edges (name-aware impact)."""
    wanted: dict[str, dict[tuple[int, str], list[str]]] = defaultdict(dict)
    for i, (e, p, mod) in enumerate(imports):
        for name in e.extra.get("names") or ():
            if name != "*":
                wanted[p][(i, name)] = _expand(f"{mod}.{name}", info.aliases(p))
    for p, want in wanted.items():
        found = graph.symbols_by_qualified_name(sorted({q for qs in want.values() for q in qs}), p)
        for (i, name), qns in want.items():
            q = next((q for q in qns if q in found), None)
            if q is not None:
                imports[i][0].extra.setdefault("symbols", {})[name] = [q]


def unlink_repo(graph: GraphStore, state: StateStore, cfg: WorkspaceConfig, repo: str) -> LinkSummary:
    """Before ``repo`` leaves the graph: relink its peers without it, so their references
    into it become stubs again (nothing of theirs is lost), then forget its state."""
    reduced = WorkspaceConfig([type(w)(w.name, [r for r in w.repos if r != repo]) for w in cfg.workspaces],
                              cfg.base_urls)
    peers = cfg.peers(repo)
    summary = link_workspace(graph, state, reduced, peers)
    forget(state, repo)
    return summary




def relink_after_index(graph: GraphStore, state: StateStore, state_db: Path, changed: list[str],
                       config_file: Path | None = None) -> LinkSummary | None:
    """After ``changed`` repos were (re-)indexed: relink them and every peer of theirs
    (peers' references into them may resolve or vanish). Workspaces come from the
    project config (``config_file`` or ./codegraph.toml), else the last linked ones.
    None when no changed repo is in a declared workspace."""
    from codegraph.core.workspace import config_path, current_config, load_config_file

    cfg = load_config_file(config_path(config_file))
    if not cfg.workspaces:
        cfg = current_config(state_db)
    declared = {r for w in cfg.workspaces for r in w.repos}
    hit = [r for r in changed if r in declared]
    if not hit:
        return None
    todo = sorted({*hit, *(p for r in hit for p in cfg.peers(r))})
    return link_workspace(graph, state, cfg, todo, state_db=state_db)


def describe(summary: LinkSummary | None) -> str:
    """One line for the CLI: edges by kind, what stayed ambiguous or unmatched, seconds."""
    if summary is None:
        return ""
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(summary.edges.items())) or "none"
    amb = sum(summary.ambiguous.values())
    return (f"cross-repo links for {len(summary.repos)} repo(s): {kinds}; {amb} ambiguous, "
            f"{summary.unmatched_http} client call(s) unmatched; {summary.seconds:.2f}s")


__all__ = ["LinkSummary", "describe", "link_workspace", "provides_of", "relink_after_index", "report", "save_client_calls",
           "unlink_repo"]

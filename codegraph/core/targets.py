"""Query targets: what a person types -> graph nodes.

Forms (CLI, dashboard picker, MCP):
- ``pkg.mod.Class.method``: exact qualified name (every overload);
- ``pkg.mod.Class.method(int,int)``, ``Class.method(int, int)``: one overload, by its
  parameter types (``codegraph.core.overloads.params_match``);
- ``Class.method``: qualified-name suffix (every match, labelled);
- ``save``: bare name (every match, labelled);
- ``file:path/in/repo.py``, ``table:orders``, ``endpoint:"GET /api/orders/:id"``,
  ``topic:payments``: prefixed targets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from codegraph.core.errors import BadInput, TargetNotFound
from codegraph.core.graph_store import GraphStore
from codegraph.core.models import ENDPOINT, FILE, SYMBOL, TABLE, TOPIC, Node
from codegraph.core.overloads import params_match, split_target

PREFIXES = {"file": FILE, "table": TABLE, "endpoint": ENDPOINT, "topic": TOPIC}
_SEPARATORS = re.compile(r"\.|::|#|/|\\")


@dataclass(slots=True)
class Target:
    text: str
    kind: str  # symbol | file | table | endpoint | topic
    value: str  # without the parameter list
    params: str | None = None  # "int,int" when the text named one overload


def parse_target(text: str) -> Target:
    raw = text.strip()
    m = re.match(r"^(file|table|endpoint|topic):(.*)$", raw, re.I)
    if m:
        return Target(raw, m.group(1).lower(), m.group(2).strip().strip('"').strip("'"))
    name, params = split_target(raw)
    return Target(raw, "symbol", name, params)


def _last(qn: str) -> str:
    return _SEPARATORS.split(qn)[-1]


def _endpoint_matches(store: GraphStore, value: str, repo: str | None) -> list[Node]:
    method, _, path = value.partition(" ")
    if not path:
        method, path = "", value
    norm = re.sub(r"\{(\w+)\}|<(?:\w+:)?(\w+)>|\[(\w+)\]", lambda m: ":" + next(g for g in m.groups() if g), path)
    out, loose = [], []
    shape = _param_shape(norm)
    for n in store.nodes_by_label(ENDPOINT, repo, limit=100000):
        p = n.props
        if method and p.get("method", "").upper() not in (method.upper(), "ANY"):
            continue
        if p.get("path_template") in (path, norm):
            out.append(n)
        elif _param_shape(p.get("path_template", "")) == shape:
            loose.append(n)  # same route, other parameter names (":id" typed, ":order_id" declared)
    return out or loose


def _param_shape(path: str) -> str:
    """``/a/:id/*rest/`` -> ``/a/:/*``: a route with its parameter names dropped."""
    segs = [s for s in path.split("/") if s]
    return "/" + "/".join(":" if s.startswith(":") else "*" if s.startswith("*") else s for s in segs)


MAX_TARGET = 2000


def resolve_target(store: GraphStore, text: str, repo: str | None = None, limit: int = 50) -> list[Node]:
    """Nodes a target names, best first. Raises TargetNotFound with suggestions, BadInput
    for a target longer than MAX_TARGET characters (no name is that long, and the
    embedded store's LIKE patterns have a length limit)."""
    if len(text) > MAX_TARGET:
        raise BadInput(f"a target is at most {MAX_TARGET} characters; this one has {len(text)} "
                       f"({shown(text, 60)})")
    t = parse_target(text)
    found: list[Node] = []
    if t.kind == "file":
        found = [n for n in store.find_nodes(t.value, [FILE], repo, limit=limit) if n.props.get("path") == t.value]
        if not found:
            found = [n for n in store.find_nodes(t.value, [FILE], repo, limit=limit)
                     if n.props.get("path", "").endswith("/" + t.value.lstrip("/"))]
    elif t.kind == "endpoint":
        found = _endpoint_matches(store, t.value, repo)
    elif t.kind in ("table", "topic"):
        label = PREFIXES[t.kind]
        found = [n for n in store.find_nodes(t.value, [label], repo, limit=limit)
                 if n.props.get("name", "").lower() == t.value.lower()]
    else:
        found = store.symbols_by_qualified_name([t.value], repo).get(t.value, [])
        if not found:
            last = _last(t.value)
            cands = store.symbols_by_name([last], repo).get(last, [])
            if t.value != last:
                suffix = t.value
                named = cands
                cands = [n for n in cands if _qn_endswith(n.props.get("qualified_name", ""), suffix)]
                if not cands:
                    cands = _written_as(store, named, t.value)
            found = cands
        if t.params is not None and found:
            scored = [(params_match(t.params, n.props.get("params")), n) for n in found]
            best = max(score for score, _ in scored)
            if best == 0:
                have = ", ".join(sorted({f"{n.props.get('qualified_name')}({n.props.get('params')})" for n in found
                                         if n.props.get("params") is not None})[:8])
                raise TargetNotFound(f"no overload of {t.value!r} takes ({t.params})"
                                     + (f"; overloads: {have}" if have else "; its language records no parameter types"))
            found = [n for score, n in scored if score == best]
    if not found:
        hints = [n.display() for n in store.find_nodes(t.value, None, repo, limit=5)]
        more = f"; did you mean: {', '.join(hints)}" if hints else ""
        raise TargetNotFound(f"nothing in the graph matches {shown(text)}{more}")
    found.sort(key=lambda n: (n.props.get("kind") == "module", n.props.get("qualified_name", ""), n.uid))
    return found[:limit]


def shown(text: str, n: int = 120) -> str:
    """``text`` quoted for a one-line message, cut to ``n`` characters (a 60 KB target
    must not become a 60 KB error line)."""
    return repr(text) if len(text) <= n else f"{text[:n]!r}... ({len(text)} characters)"


def _written_as(store: GraphStore, named: list[Node], text: str) -> list[Node]:
    """Symbols some edge reached under the name ``text`` as the code wrote it
    (``os.path.join`` is ``posixpath.join`` through a module alias: the edge keeps
    ``written_as``, see docs/extraction-format.md)."""
    if not named or len(named) > 500:
        return []
    hits = store.neighbours([n.uid for n in named], "in", limit_per_node=None)
    by_uid = {n.uid: n for n in named}
    return [by_uid[uid] for uid, hs in hits.items()
            if uid in by_uid and any(h.edge.extra.get("written_as") == text for h in hs)]


def resolve_target_in(store: GraphStore, text: str, repos: list[str], limit: int = 50) -> list[Node]:
    """``resolve_target`` over several repositories (a workspace): the matches of each,
    best first. Raises TargetNotFound when none of them has a match."""
    found: list[Node] = []
    misses: list[str] = []
    for r in repos:
        try:
            found.extend(resolve_target(store, text, r, limit))
        except TargetNotFound as e:
            misses.append(str(e))
    if not found:
        raise TargetNotFound(misses[0] if len(repos) == 1 and misses else
                             f"nothing in the repositories {', '.join(repos)} matches {shown(text)}")
    found.sort(key=lambda n: (n.props.get("kind") == "module", n.props.get("qualified_name", ""), n.uid))
    return found[:limit]


def _qn_endswith(qn: str, suffix: str) -> bool:
    if qn == suffix:
        return True
    if not qn.endswith(suffix):
        return False
    before = qn[: len(qn) - len(suffix)]
    return bool(before) and (before.endswith((".", "::", "#", "/", "\\", ":")))


def known_repo(graph: GraphStore, repo: str | None) -> None:
    """Raise BadInput when ``repo`` is given and not indexed (one line naming the known ones),
    so that a typo in --repo is not answered as "nothing matches the target"."""
    if repo and repo not in {r.props.get("name") for r in graph.repos()}:
        names = ", ".join(sorted(str(r.props.get("name", "")) for r in graph.repos())) or "none indexed yet"
        raise BadInput(f"no repository named {repo!r} in the graph (known: {names})")


__all__ = ["Target", "known_repo", "parse_target", "resolve_target", "resolve_target_in", "SYMBOL"]

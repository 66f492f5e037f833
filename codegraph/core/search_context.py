"""Graph context of search hits (docs/DESIGN.md#search): what each hit is connected to,
so that a search answer already says how much depends on it.

Per code hit with a graph symbol: ``callers`` / ``callees`` (CALLS edges in / out; calls
to unresolved stubs counted apart in ``unresolved_callees``), ``top_callers`` (up to 3
qualified names), ``endpoints`` it handles (EXPOSES), calls over HTTP (CALLS_HTTP) or whose
handler is a direct caller, and ``tables`` it or a direct callee reads/writes. Per schema hit
(a SQL table): whether the graph has that Table node and which code reads/writes it. Per
config hit: the code that reads the key or its ``${...}`` placeholders where the name is a
string literal (``os.getenv("X")``, ``os.environ["X"]``, ``process.env.X``,
``System.getenv("X")``, ``@Value("${a.b}")``, ...), found by BM25 over the code index and
checked by pattern. Docs hits have no context.

Cost: a fixed number of batched store calls whatever the number of hits (three
``neighbours`` calls for code hits, one for schema hits) plus one code BM25 per distinct
config name (at most ``MAX_CONFIG_NAMES``).
"""

from __future__ import annotations

import re
from typing import Any

from codegraph.core.content import CODE, CONFIG, SCHEMA
from codegraph.core.models import CALLS, CALLS_HTTP, ENDPOINT, EXPOSES, READS, STUB, SYMBOL, TABLE, TOUCHES, WRITES

TOP_CALLERS = 3
MAX_CONFIG_NAMES = 12
READERS_PER_NAME = 5
_TABLE_EDGES = [READS, WRITES, TOUCHES]
PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][\w.\-]*)(?::[^}]*)?\}")


def _reader_patterns(name: str) -> list[re.Pattern[str]]:
    n = re.escape(name)
    q = r"""["']"""
    return [re.compile(p) for p in (
        rf"getenv\(\s*{q}{n}{q}", rf"environ(?:\.get)?\s*[\[(]\s*{q}{n}{q}", rf"process\.env\.{n}\b",
        rf"process\.env\[\s*{q}{n}{q}", rf"Getenv\(\s*\"{n}\"", rf"ENV(?:\.fetch)?[\[(]\s*{q}{n}{q}",
        rf"env::var\(\s*\"{n}\"", rf"\benv\(\s*{q}{n}{q}", rf"\$\{{{n}(?::[^}}]*)?\}}", rf"getProperty\(\s*\"{n}\"",
        rf"Environment\.GetEnvironmentVariable\(\s*\"{n}\"",
    )]


def _config_names(hit: dict[str, Any]) -> list[str]:
    """The names code may read for a config hit: its key and the placeholders in its value."""
    key = str(hit.get("qualified_name") or "")
    value = str(hit.get("text") or "").split(" = ", 1)[-1]
    return list(dict.fromkeys([key, *PLACEHOLDER.findall(value)]))


def config_readers(code_index: Any, names: list[str], repo: str | None) -> dict[str, list[dict[str, Any]]]:
    """name -> code chunks that read it literally [{"qualified_name", "file", "line", "repo"}]."""
    out: dict[str, list[dict[str, Any]]] = {}
    for name in names[:MAX_CONFIG_NAMES]:
        pats = _reader_patterns(name)
        hits = code_index.bm25(name, 30, repo=repo)
        chunks = code_index.get_chunks([c for c, _ in hits])
        found = []
        for cid, _ in hits:
            ch = chunks.get(cid)
            if ch is None or ch.kind == "section":  # a whole-file section repeats its functions' text
                continue
            m = next((m for p in pats for m in [p.search(ch.text)] if m), None)
            if m:
                found.append({"qualified_name": ch.qualified_name or ch.file, "file": ch.file,
                              "line": ch.line + ch.text.count("\n", 0, m.start()), "repo": ch.repo})
            if len(found) >= READERS_PER_NAME:
                break
        out[name] = sorted(found, key=lambda r: (r["file"], r["line"]))
    return out


def search_context(graph: Any, code_index: Any, hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One context dict per hit of ``SearchResult.to_dict()["hits"]`` (same order)."""
    out: list[dict[str, Any]] = [{} for _ in hits]
    sym = {i: h["symbol_uid"] for i, h in enumerate(hits) if h.get("content", CODE) == CODE
           and str(h.get("symbol_uid", "")).startswith("sym|")}
    if sym:
        uids = sorted(set(sym.values()))
        into = graph.neighbours(uids, "in", [CALLS])
        outof = graph.neighbours(uids, "out", [CALLS, CALLS_HTTP, EXPOSES, *_TABLE_EDGES])
        callers = {u: [e for e in into.get(u, []) if e.node.label == SYMBOL] for u in uids}
        callees = {u: [e for e in outof.get(u, []) if e.edge.type == CALLS and e.node.label == SYMBOL] for u in uids}
        second = sorted({e.node.uid for es in (*callers.values(), *callees.values()) for e in es})
        around = graph.neighbours(second, "out", [EXPOSES, *_TABLE_EDGES]) if second else {}
        for i, u in sym.items():
            own = outof.get(u, [])
            endpoints = [{"endpoint": e.node.display(),
                          "relation": "handles" if e.edge.type == EXPOSES else "calls over HTTP"}
                         for e in own if e.edge.type in (EXPOSES, CALLS_HTTP) and e.node.label == ENDPOINT]
            endpoints += [{"endpoint": x.node.display(),
                           "relation": f"handled by caller {c.node.props.get('qualified_name')}"}
                          for c in callers[u] for x in around.get(c.node.uid, [])
                          if x.edge.type == EXPOSES and x.node.label == ENDPOINT]
            tables = [{"table": e.node.props.get("name"), "access": e.edge.type, "via": ""}
                      for e in own if e.edge.type in _TABLE_EDGES and e.node.label == TABLE]
            tables += [{"table": x.node.props.get("name"), "access": x.edge.type,
                        "via": str(c.node.props.get("qualified_name"))}
                       for c in callees[u] for x in around.get(c.node.uid, [])
                       if x.edge.type in _TABLE_EDGES and x.node.label == TABLE]
            names = sorted({str(e.node.props.get("qualified_name")) for e in callers[u]})
            out[i] = {
                "callers": len({e.node.uid for e in callers[u]}),
                "callees": len({e.node.uid for e in callees[u]}),
                "unresolved_callees": len({e.node.uid for e in own if e.edge.type == CALLS and e.node.label == STUB}),
                "top_callers": names[:TOP_CALLERS],
                "endpoints": _unique(endpoints),
                "tables": _unique(tables),
            }
    tables = {i: h["symbol_uid"] for i, h in enumerate(hits) if h.get("content") == SCHEMA and h.get("symbol_uid")}
    if tables:
        uids = sorted(set(tables.values()))
        present = set(graph.get_nodes(uids))
        users = graph.neighbours(uids, "in", _TABLE_EDGES)
        for i, u in tables.items():
            out[i] = {"table_node": u if u in present else None,
                      "readers": sorted({str(e.node.props.get("qualified_name") or e.node.uid)
                                         for e in users.get(u, []) if e.edge.type == READS}),
                      "writers": sorted({str(e.node.props.get("qualified_name") or e.node.uid)
                                         for e in users.get(u, []) if e.edge.type == WRITES})}
    conf = {i: _config_names(h) for i, h in enumerate(hits) if h.get("content") == CONFIG}
    if conf:
        wanted = list(dict.fromkeys(n for ns in conf.values() for n in ns))
        repo = hits[next(iter(conf))].get("repo") if len({hits[i].get("repo") for i in conf}) == 1 else None
        readers = config_readers(code_index, wanted, repo)
        for i, ns in conf.items():
            out[i] = {"read_by": _unique([{**r, "name": n} for n in ns for r in readers.get(n, [])])}
    return out


def _unique(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[tuple[Any, ...]] = set()
    out = []
    for r in rows:
        key = tuple(sorted(r.items()))
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out

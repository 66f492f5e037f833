"""What stands around a blast radius: entry points (tests, endpoints, pages, topic
consumers), the tables it reads or writes, the stubs that might hide more callers, and
how fresh each repo's index is (docs/DESIGN.md#impact).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from codegraph.core.completeness import incomplete_reason
from codegraph.core.freshness import checkout_drift
from codegraph.core.graph_store import GraphStore
from codegraph.core.impact.results import Caller, EntryPoint, NodeRef, Unresolved
from codegraph.core.models import (
    CALLS,
    CONSUMES,
    ENDPOINT,
    EXPOSES,
    FILE,
    READS,
    SYMBOL,
    TABLE,
    TOPIC,
    TOUCHES,
    WRITES,
    Node,
    file_uid,
    stub_uid,
)

_TEST_NAME = re.compile(r"^(test_|Test)|(_test|Test|Tests|Spec)$")
_TABLE_EDGES = [READS, WRITES, TOUCHES]


def freshness(store: GraphStore, repos: set[str] | None = None) -> list[dict[str, Any]]:
    """Per repo: last_imported_at, last_checked_at, commit, age in hours, and
    ``incomplete`` / ``incomplete_reason`` when a run of it did not finish."""
    out = []
    now = datetime.now(UTC)
    for r in store.repos():
        p = r.props
        if repos and p.get("name") not in repos:
            continue
        age = None
        if p.get("last_imported_at"):
            try:
                age = round((now - datetime.fromisoformat(p["last_imported_at"])).total_seconds() / 3600, 2)
            except ValueError:
                age = None
        why = incomplete_reason(p)
        out.append({"repo": p.get("name"), "commit": p.get("last_commit_sha"), "path": p.get("path"),
                    "last_imported_at": p.get("last_imported_at"), "last_checked_at": p.get("last_checked_at"),
                    "age_hours": age, "checkout": checkout_drift(p.get("path"), p.get("last_commit_sha")),
                    "incomplete": why is not None, "incomplete_reason": why})
    return out


def is_test(n: Node, file_is_test: dict[str, bool]) -> bool:
    """A symbol in a test file or named like a test; a File flagged ``is_test``."""
    p = n.props
    if n.label == SYMBOL:
        return bool(file_is_test.get(p.get("file", ""))) or bool(_TEST_NAME.search(p.get("name", "")))
    if n.label == FILE:
        return bool(p.get("is_test"))
    return False


def mark_tests(store: GraphStore, reached: list[Caller], nodes: dict[str, Node]) -> dict[str, Node]:
    """Set ``is_test`` on every caller; returns the File nodes of their files by uid."""
    file_paths = {(c.node.repo, c.node.file) for c in reached}
    files = store.get_nodes([file_uid(r, p) for r, p in file_paths])
    file_is_test = {f.props["path"]: bool(f.props.get("is_test")) for f in files.values()}
    for c in reached:
        c.is_test = is_test(nodes[c.node.uid], file_is_test)
    return files


def _add_table(tables: dict[str, dict[str, Any]], table: Node, access: dict[str, Any]) -> None:
    tables.setdefault(table.uid, {"table": table.display(), "repo": table.repo, "access": []})["access"].append(access)


def entry_points_and_tables(
    store: GraphStore, nodes: dict[str, Node], everyone: list[Caller], downstream: list[Caller],
) -> tuple[list[EntryPoint], dict[str, dict[str, Any]]]:
    """Endpoints handled and topics consumed by the reached symbols/files (entry points),
    and the tables they (and an endpoint's downstream callees) read or write:
    table uid -> {table, repo, access: [{by, type, file, line[, downstream]}]}."""
    reached = [u for u in nodes if nodes[u].label in (SYMBOL, FILE)]
    outs = store.neighbours(reached, "out", [EXPOSES, CONSUMES, *_TABLE_EDGES])
    entry: list[EntryPoint] = []
    tables: dict[str, dict[str, Any]] = {}
    depth_of = {c.node.uid: c.depth for c in everyone}
    seen_entry: set[tuple[str, str]] = set()
    for uid, lst in outs.items():
        for h in lst:
            src_node = nodes.get(uid)
            if src_node is None:
                continue
            if h.node.label == ENDPOINT and ("endpoint", h.node.uid) not in seen_entry:
                seen_entry.add(("endpoint", h.node.uid))
                entry.append(EntryPoint("endpoint", NodeRef.of(h.node), depth_of.get(uid, 0),
                                        f"handled by {src_node.display()} ({h.edge.file}:{h.edge.line})"))
            elif h.node.label == TOPIC and h.edge.type == CONSUMES and ("consumer", uid) not in seen_entry:
                seen_entry.add(("consumer", uid))
                entry.append(EntryPoint("consumer", NodeRef.of(src_node), depth_of.get(uid, 0),
                                        f"consumes topic {h.node.display()} ({h.edge.file}:{h.edge.line})"))
            elif h.node.label == TABLE:
                _add_table(tables, h.node, {"by": src_node.display(), "type": h.edge.type,
                                            "file": h.edge.file, "line": h.edge.line})
    if downstream:  # tables the handler reaches through its callees
        by_uid = {c.node.uid: c for c in downstream}
        for uid, lst in store.neighbours(list(by_uid), "out", _TABLE_EDGES).items():
            for h in lst:
                if h.node.label == TABLE:
                    _add_table(tables, h.node, {"by": by_uid[uid].node.qualified_name, "type": h.edge.type,
                                                "file": h.edge.file, "line": h.edge.line, "downstream": True})
    return entry, tables


def entries_for_tests(found: list[Caller]) -> list[EntryPoint]:
    """Test functions and methods among the callers."""
    return [EntryPoint("test", c.node, c.depth, "test function in the blast radius")
            for c in found if c.is_test and c.node.label == SYMBOL and c.node.kind in ("function", "method")]


def pages(files: dict[str, Node], everyone: list[Caller]) -> tuple[list[EntryPoint], list[dict[str, Any]]]:
    """Page files (a ``route``) holding a reached node: one entry point each, and the
    pages to re-check {route, app, file, repo, depth, via, evidence}, nearest first."""
    entry: list[EntryPoint] = []
    out: list[dict[str, Any]] = []
    for f in sorted(files.values(), key=lambda n: n.props.get("path", "")):
        if f.props.get("route"):
            reach = [c for c in everyone if c.node.file == f.props["path"]]
            if not reach:
                continue
            first = min(reach, key=lambda c: c.depth)
            entry.append(EntryPoint("page", NodeRef.of(f), first.depth, f"page route {f.props['route']}"))
            out.append({"route": f.props["route"], "app": f.props.get("app"), "file": f.props["path"],
                        "repo": f.repo, "depth": first.depth, "via": first.node.qualified_name,
                        "evidence": f"{first.evidence_file}:{first.evidence_line}"})
    out.sort(key=lambda p: (p["depth"], p["route"], p["file"]))
    return entry, out


def unresolved(store: GraphStore, start: list[Node]) -> list[Unresolved]:
    """Stubs named like a symbol start node in its repos, with the number of call sites
    pointing at each: the honest boundary of the answer."""
    names = sorted(n for n in {n.props.get("name") for n in start if n.label == SYMBOL} if n)
    out: list[Unresolved] = []
    if names:
        stub_uids = [stub_uid(r, name) for r in {n.repo for n in start} for name in names]
        stub_nodes = store.get_nodes(stub_uids)
        counts = store.neighbours(list(stub_nodes), "in", [CALLS]) if stub_nodes else {}
        for uid, sn in stub_nodes.items():
            out.append(Unresolved(sn.props.get("target_identifier", ""), sn.props.get("reason", ""),
                                  len(counts.get(uid, []))))
    return out

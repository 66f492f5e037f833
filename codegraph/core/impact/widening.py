"""Where an impact walk starts: the resolved targets widened by name and by dispatch.

``widen``: overloads of the same qualified name, a type's members, a file's symbols.
``dispatch``: for a method, the same-named methods on ancestor types (their callers may
run the target through dynamic dispatch) and on descendant types (overrides to review).
See docs/DESIGN.md#impact.
"""

from __future__ import annotations

from codegraph.core.graph_store import GraphStore
from codegraph.core.models import EXTENDS, FILE, IMPLEMENTS, SYMBOL, Node

TYPE_KINDS = {"class", "interface", "struct", "enum", "trait", "record", "object", "union"}


def hierarchy(store: GraphStore, classes: list[Node], direction: str, levels: int = 6) -> list[Node]:
    """Ancestors ("out" over EXTENDS/IMPLEMENTS) or descendants ("in") of ``classes``."""
    seen = {c.uid for c in classes}
    frontier, out = [c.uid for c in classes], []
    for _ in range(levels):
        hits = store.neighbours(frontier, direction, [EXTENDS, IMPLEMENTS]) if frontier else {}
        frontier = []
        for lst in hits.values():
            for h in lst:
                if h.node.label == SYMBOL and h.node.uid not in seen:
                    seen.add(h.node.uid)
                    out.append(h.node)
                    frontier.append(h.node.uid)
    return out


def dispatch(store: GraphStore, targets: list[Node]) -> tuple[list[Node], list[Node]]:
    """(bases, overrides) for the method targets: same-named methods on ancestor types
    and on descendant types, within the method's repo."""
    methods = [n for n in targets if n.label == SYMBOL and n.props.get("kind") == "method" and n.props.get("parent")]
    if not methods:
        return [], []
    parents = store.symbols_by_qualified_name(list({m.props["parent"] for m in methods}))
    named: dict[tuple[str, str], list[Node]] = {}  # (repo, name) -> same-named symbols, read once
    result: list[list[Node]] = []
    for direction in ("out", "in"):
        found: dict[str, Node] = {}
        for m in methods:
            owners = [c for c in parents.get(m.props["parent"], []) if c.repo == m.repo]
            related = hierarchy(store, owners, direction)
            qns = {c.props["qualified_name"] for c in related}
            files = {c.props["file"] for c in related}
            for n in _same_named(store, m, files, named):
                if n.props.get("name") == m.props["name"] and n.props.get("parent") in qns \
                        and n.props.get("file") in files:
                    found.setdefault(n.uid, n)
        result.append(sorted(found.values(), key=lambda n: (n.props.get("file", ""), n.props.get("line", 0), n.uid)))
    return result[0], result[1]


# Above this many files of related types, symbols are looked up by name instead of read
# file by file: a widely extended type (a test base class: thousands of descendants) cost
# seconds of file reads, while a common name (``__init__``) costs more by name than the
# few files of a small hierarchy. Both lookups give the same candidates after filtering.
FILES_READ_MAX = 40


def _same_named(store: GraphStore, m: Node, files: set[str], named: dict[tuple[str, str], list[Node]]) -> list[Node]:
    """Candidate same-named methods for ``m`` among the symbols of ``files`` (a superset)."""
    if not files:
        return []
    if len(files) <= FILES_READ_MAX:
        return [n for lst in store.nodes_in_files(m.repo, sorted(files)).values() for n in lst]
    key = (m.repo, m.props["name"])
    if key not in named:
        named[key] = store.symbols_by_name([m.props["name"]], repo=m.repo).get(m.props["name"], [])
    return named[key]


def widen(store: GraphStore, targets: list[Node], overloads: bool = True) -> list[Node]:
    """Overloads of the same qualified name (unless ``overloads`` is False: the target
    named one overload by its parameters), a type's members, a file's symbols (the
    targets first, in their order)."""
    out = {n.uid: n for n in targets}
    qns = [n.props["qualified_name"] for n in targets if n.label == SYMBOL] if overloads else []
    for nodes in store.symbols_by_qualified_name(qns).values():
        for n in nodes:
            if n.repo in {t.repo for t in targets}:
                out.setdefault(n.uid, n)
    types = [n for n in targets if n.label == SYMBOL and n.props.get("kind") in TYPE_KINDS]
    # A type found in several repos: each repo's members (not only the first repo's).
    for repo in dict.fromkeys(t.repo for t in types):
        mine = [t for t in types if t.repo == repo]
        by_file = store.nodes_in_files(repo, list({t.props["file"] for t in mine}))
        for t in mine:
            for n in by_file.get(t.props["file"], []):
                if n.props.get("parent") == t.props["qualified_name"]:
                    out.setdefault(n.uid, n)
    for f in (n for n in targets if n.label == FILE):
        for nodes in store.nodes_in_files(f.repo, [f.props["path"]]).values():
            for n in nodes:
                out.setdefault(n.uid, n)
    return list(out.values())

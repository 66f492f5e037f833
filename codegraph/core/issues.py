"""Issues to code (docs/DESIGN.md#graph-model): GitHub issues of a repository become ``Issue`` nodes linked
to the code they talk about by ``MENTIONS`` edges, so that one can ask which issues
mention a symbol, which symbols are discussed most, and which open issues touch the
blast radius of a change.

Input, either
- a **GitHub REST API export file** (JSON), in one of these shapes:
  1. a list of issues as ``GET /repos/OWNER/NAME/issues`` returns them (``number``,
     ``title``, ``state``, ``html_url``, ``created_at``, ``labels``, ``body``, ...);
     ``comments`` per issue is either the API's count (an int) or the comments inline
     (a list of ``{"body": ..., "user": {"login": ...}, "created_at": ...}``);
  2. ``{"issues": [...], "comments": C}`` where ``C`` holds the comments separately,
     either keyed by issue number (``{"12": [{"body": ...}, ...]}``) or as the flat list
     ``GET /repos/OWNER/NAME/issues/comments`` returns (each comment with ``issue_url``
     ending in ``/issues/<number>``, or an ``issue_number`` field);
  a separate comments file (``--comments``) may hold ``C`` too. Inline and separate
  comments of one issue are both used. Pull requests (``pull_request`` key) are kept,
  flagged ``is_pull_request``;
- or **live** from ``https://api.github.com/repos/OWNER/NAME/issues`` (``fetch_issues``)
  with a token from ``GITHUB_TOKEN`` or ``.streamlit/secrets.toml`` (``github_token =
  "..."`` or ``[github] token = "..."``).

Mentions are taken from titles, bodies and comments: inline code spans (single or
double backticks) that look like an identifier (``OrderService.place``, ``save()``,
``Foo::bar``) or a file path (``shop/store.py``, ``store.py:12``), and file paths or
GitHub blob links in plain text. Fenced code blocks are skipped (pasted code and logs
would mention everything). Each is resolved within the issue's repo, exactly:
- a path: the File with that path, else the files whose path ends with ``/<path>``
  (a blob link's path is matched the other way round, by the file it ends with);
- an identifier: the symbols with that qualified name (all overloads), else the
  symbols whose qualified name ends with it (``.``-separated), else, for a bare name,
  the symbols of that name.
One match -> ``MENTIONS`` edge, resolution ``exact`` (qualified name / path) or
``unique_name`` (suffix / bare name). Several (up to ``MAX_AMBIGUOUS``) -> one edge to
each candidate with ``extra["ambiguous"] = True`` and ``extra["candidates"] = n``, and
resolution "" (never picked arbitrarily). None, or too many -> no edge; the text is kept
on the Issue node in ``unresolved_mentions``.

Every MENTIONS edge: source the Issue, target a Symbol or File, ``file`` =
``"issue#<number>"`` (its evidence; ``replace_edges`` deletes by evidence file, so
re-importing an issue replaces exactly its own edges), ``line`` 0, ``extra``: ``text``
(as written), ``where`` (title, body, comment N), ``count``. The Issue is linked to its
Repo by ``IN_REPO``. Issue node props: repo, number, title, state, url, created_at,
updated_at, closed_at, labels, author, comment_count, is_pull_request, body (first
``BODY_CHARS``), mentions, unresolved_mentions, imported_at, source.

A symbol deleted by a later index run takes its MENTIONS edges with it; importing the
issues again re-links what still exists.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from codegraph.core.errors import TargetNotFound
from codegraph.core.graph_store import GraphStore
from codegraph.core.issue_sources import (
    IssueComment,
    IssueData,
    comments_by_number,
    fetch_issues,
    github_token,
    load_export,
    parse_export,
)
from codegraph.core.models import (
    FILE,
    IN_REPO,
    ISSUE,
    MENTIONS,
    SYMBOL,
    Edge,
    Node,
    file_uid,
    issue_uid,
    repo_uid,
)

MAX_AMBIGUOUS = 10
BODY_CHARS = 4000
MAX_UNRESOLVED = 100
PAGE = 5000
CODE_EXTENSIONS = (
    "py", "pyi", "js", "jsx", "mjs", "cjs", "ts", "tsx", "go", "java", "kt", "kts", "rb", "php", "rs", "c", "h",
    "cc", "cpp", "cxx", "hpp", "hh", "cs", "scala", "swift", "sql", "vue", "svelte", "sh", "toml", "yaml",
    "yml", "json", "xml", "gradle", "proto",
)
_EXT = "|".join(sorted(CODE_EXTENSIONS, key=len, reverse=True))
_FENCE = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[^\n]*$", re.M | re.S)
_INLINE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_BLOB = re.compile(r"https?://github\.com/[^/\s]+/[^/\s]+/(?:blob|tree)/[^/\s]+/([^\s#?)>\]]+)(?:#L(\d+))?")
_URL = re.compile(r"https?://\S+")
_PATH = re.compile(rf"(?<![\w/.@:-])((?:[\w.-]+/)+[\w.-]+\.(?:{_EXT})|[\w-][\w.-]*\.(?:{_EXT}))(?::(\d+))?(?![\w/])")
_IDENT = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)*$")
_SEP = re.compile(r"::|->|#")
_NOT_SYMBOLS = frozenset({
    "true", "false", "none", "null", "nil", "undefined", "nan", "self", "this", "cls", "super", "void", "int", "str",
    "string", "bool", "float", "list", "dict", "set", "tuple", "object", "any", "return", "yield", "async", "await",
    "import", "from", "class", "def", "function", "var", "let", "const", "new", "if", "else", "for", "while",
    "master", "todo", "fixme",
})


# ---------------------------------------------------------------------------- data
@dataclass(slots=True)
class Mention:
    """A piece of an issue that names code. ``kind``: identifier | path."""

    text: str
    kind: str
    where: str
    line: int = 0


@dataclass(slots=True)
class ImportSummary:
    repo: str
    issues: int = 0
    open: int = 0
    mentions: int = 0  # distinct (issue, mentioned text) pairs found
    edges: int = 0
    resolved: int = 0
    ambiguous: int = 0
    unresolved: int = 0
    comments: int = 0


@dataclass(slots=True)
class IssueRef:
    """An issue in an answer, with what it mentioned and how sure the link is."""

    repo: str
    number: int
    title: str
    state: str
    url: str
    created_at: str
    mentioned: str
    mentioned_uid: str
    where: list[str]
    ambiguous: bool
    depth: int = 0  # in a blast radius: 0 = the target itself


@dataclass(slots=True)
class Discussed:
    """A symbol or file and the issues that mention it."""

    uid: str
    label: str
    name: str
    kind: str
    repo: str
    file: str
    line: int
    issues: int
    open_issues: int
    ambiguous: int
    numbers: list[int]


# ---------------------------------------------------------------------------- mentions
def _clean_span(text: str) -> str:
    t = text.strip().strip("'\"").rstrip(".,;:!?")
    t = re.sub(r"\(.*\)$", "", t)  # save(order) -> save
    return t.strip()


def extract_mentions(text: str, where: str) -> list[Mention]:
    """Code mentions in one piece of Markdown (see the module docstring for the rules)."""
    if not text:
        return []
    text = _FENCE.sub(" ", text)
    out: list[Mention] = []
    plain_parts: list[str] = []
    pos = 0
    for m in _INLINE.finditer(text):
        plain_parts.append(text[pos:m.start()])
        pos = m.end()
        span = _clean_span(m.group(2))
        if not span or " " in span:
            continue
        pm = re.fullmatch(rf"((?:[\w.-]+/)*[\w.-]+\.(?:{_EXT}))(?::(\d+))?", span)
        if "/" in span or pm:
            if pm:
                out.append(Mention(pm.group(1).removeprefix("./"), "path", where, int(pm.group(2) or 0)))
            continue
        if _IDENT.match(span) and span.lower() not in _NOT_SYMBOLS and len(span) > 1:
            out.append(Mention(span, "identifier", where))
    plain_parts.append(text[pos:])
    plain = " ".join(plain_parts)
    for m in _BLOB.finditer(plain):
        out.append(Mention(m.group(1), "path", where, int(m.group(2) or 0)))
    plain = _URL.sub(" ", plain)
    for m in _PATH.finditer(plain):
        out.append(Mention(m.group(1).removeprefix("./"), "path", where, int(m.group(2) or 0)))
    return out


def issue_mentions(issue: IssueData) -> list[Mention]:
    out = extract_mentions(issue.title, "title") + extract_mentions(issue.body, "body")
    for i, c in enumerate(issue.comments, 1):
        out += extract_mentions(c.body, f"comment {i}")
    return out


class _Resolver:
    """Resolves mention texts within one repo with a few batched store calls."""

    def __init__(self, graph: GraphStore, repo: str, mentions: list[Mention]) -> None:
        self.repo = repo
        self.files = sorted(graph.file_hashes(repo))
        self.file_set = set(self.files)
        idents = {_SEP.sub(".", m.text) for m in mentions if m.kind == "identifier"}
        self.by_qn = graph.symbols_by_qualified_name(sorted(idents), repo) if idents else {}
        lasts = {i.rsplit(".", 1)[-1] for i in idents}
        self.by_name = graph.symbols_by_name(sorted(lasts), repo) if lasts else {}

    def resolve(self, m: Mention) -> tuple[list[Node | str], str]:
        """(targets: Symbol nodes or file paths, resolution). Empty -> unresolved."""
        if m.kind == "path":
            return self._path(m.text)
        ident = _SEP.sub(".", m.text)
        exact = self.by_qn.get(ident, [])
        if exact:
            return list(exact), "exact"
        last = ident.rsplit(".", 1)[-1]
        named = self.by_name.get(last, [])
        if ident != last:
            named = [n for n in named if str(n.props.get("qualified_name", "")).endswith("." + ident)]
        distinct = {n.props.get("qualified_name") for n in named}
        if len(distinct) == 1:
            return list(named), "unique_name"
        if 1 < len(distinct) <= MAX_AMBIGUOUS:
            return list(named), ""
        return [], ""

    def _path(self, p: str) -> tuple[list[Node | str], str]:
        p = p.lstrip("/")
        if p in self.file_set:
            return [p], "exact"
        hits = [f for f in self.files if f.endswith("/" + p)]
        if not hits:
            # A blob link's path includes folders above the repo root we indexed.
            hits = [f for f in self.files if p.endswith("/" + f)]
            hits = [max(hits, key=len)] if hits else []
        if len(hits) == 1:
            return hits, "unique_name"
        if 1 < len(hits) <= MAX_AMBIGUOUS:
            return hits, ""
        return [], ""


def import_issues(graph: GraphStore, repo: str, issues: list[IssueData], source: str = "") -> ImportSummary:
    """Write ``issues`` as Issue nodes of ``repo`` with IN_REPO and MENTIONS edges
    (re-importing an issue replaces its node and its own edges). Raises TargetNotFound
    when ``repo`` is not indexed, StoreUnavailable."""
    if repo_uid(repo) not in graph.get_nodes([repo_uid(repo)]):
        raise TargetNotFound(f"repository {repo!r} is not indexed; index it first (codegraph index PATH --repo {repo})")
    per_issue = {i.number: issue_mentions(i) for i in issues}
    res = _Resolver(graph, repo, [m for ms in per_issue.values() for m in ms])
    now = datetime.now(UTC).isoformat(timespec="seconds")
    s = ImportSummary(repo=repo, issues=len(issues), open=sum(i.state == "open" for i in issues),
                      comments=sum(len(i.comments) for i in issues))
    nodes: list[Node] = []
    edges: list[Edge] = []
    links: list[Edge] = []
    for issue in issues:
        uid = issue_uid(repo, issue.number)
        evidence = f"issue#{issue.number}"
        grouped: dict[tuple[str, str], list[Mention]] = defaultdict(list)
        for m in per_issue[issue.number]:
            grouped[(m.kind, m.text)].append(m)
        unresolved: list[str] = []
        found: dict[str, Edge] = {}
        for (_kind, text), ms in grouped.items():
            s.mentions += 1
            targets, how = res.resolve(ms[0])
            if not targets:
                s.unresolved += 1
                if len(unresolved) < MAX_UNRESOLVED:
                    unresolved.append(text)
                continue
            ambiguous = len({t if isinstance(t, str) else t.props.get("qualified_name") for t in targets}) > 1
            s.ambiguous += ambiguous
            s.resolved += not ambiguous
            where = sorted({m.where for m in ms}, key=lambda w: (w != "title", w != "body", w))
            for t in targets:
                tuid = file_uid(repo, t) if isinstance(t, str) else t.uid
                extra: dict[str, Any] = {"text": text, "where": where, "count": len(ms)}
                line = next((m.line for m in ms if m.line), 0)
                if line:
                    extra["line"] = line
                if ambiguous:
                    extra |= {"ambiguous": True, "candidates": len(targets)}
                prev = found.get(tuid)
                if prev is None or (prev.extra.get("ambiguous") and not ambiguous):
                    found[tuid] = Edge(MENTIONS, uid, tuid, evidence, 0, how, extra)
        edges.extend(found.values())
        links.append(Edge(IN_REPO, uid, repo_uid(repo), evidence))
        nodes.append(Node(uid, ISSUE, {
            "repo": repo, "number": issue.number, "title": issue.title, "state": issue.state, "url": issue.url,
            "created_at": issue.created_at, "updated_at": issue.updated_at, "closed_at": issue.closed_at,
            "labels": issue.labels, "author": issue.author, "comment_count": issue.comment_count,
            "is_pull_request": issue.is_pull_request, "body": issue.body[:BODY_CHARS],
            "mentions": len(found), "unresolved_mentions": unresolved, "imported_at": now, "source": source}))
    if nodes:
        graph.upsert_nodes(nodes)
        s.edges = graph.replace_edges(repo, [f"issue#{i.number}" for i in issues], edges)
        # IN_REPO is structural (not deleted by evidence): merged, so a re-import adds none.
        graph.replace_edges(repo, [], links)
    return s


# ---------------------------------------------------------------------------- queries
def _all(graph: GraphStore, label: str, repo: str | None) -> list[Node]:
    out: list[Node] = []
    offset = 0
    while True:
        part = graph.nodes_by_label(label, repo, limit=PAGE, offset=offset)
        out.extend(part)
        if len(part) < PAGE:
            return out
        offset += PAGE


def issue_nodes(graph: GraphStore, repo: str | None = None, state: str | None = None) -> list[Node]:
    """Issue nodes, newest number first; ``state`` open | closed | None (all)."""
    out = [n for n in _all(graph, ISSUE, repo) if state in (None, "all") or n.props.get("state") == state]
    return sorted(out, key=lambda n: (n.repo, -int(n.props.get("number") or 0)))


def _ref(issue: Node, hit_edge: Edge, mentioned: Node, depth: int = 0) -> IssueRef:
    p = issue.props
    return IssueRef(issue.repo, int(p.get("number") or 0), str(p.get("title", "")), str(p.get("state", "")),
                    str(p.get("url", "")), str(p.get("created_at", "")), mentioned.display(), mentioned.uid,
                    list(hit_edge.extra.get("where") or []), bool(hit_edge.extra.get("ambiguous")), depth)


def _mentions_of(graph: GraphStore, uids: list[str], state: str | None) -> list[tuple[Node, Edge, str]]:
    """(issue, edge, mentioned uid) for MENTIONS edges into ``uids``."""
    out = []
    for uid, hits in graph.neighbours(uids, "in", [MENTIONS]).items():
        for h in hits:
            if h.node.label == ISSUE and (state in (None, "all") or h.node.props.get("state") == state):
                out.append((h.node, h.edge, uid))
    return out


def issues_mentioning(graph: GraphStore, target: str, repo: str | None = None,
                      state: str | None = None) -> list[IssueRef]:
    """Issues that mention what ``target`` names (codegraph.core.targets forms); a file
    target also counts mentions of the symbols it declares. Ambiguous links are included
    and flagged. Raises TargetNotFound."""
    from codegraph.core.targets import resolve_target

    nodes = {n.uid: n for n in resolve_target(graph, target, repo)}
    for f in [n for n in nodes.values() if n.label == FILE]:
        for lst in graph.nodes_in_files(f.repo, [str(f.props.get("path"))]).values():
            nodes.update({n.uid: n for n in lst})
    refs = [_ref(i, e, nodes[u]) for i, e, u in _mentions_of(graph, list(nodes), state)]
    return sorted(refs, key=lambda r: (r.ambiguous, r.state != "open", -r.number))


def most_discussed(graph: GraphStore, repo: str | None = None, state: str | None = None,
                   limit: int = 20, include_ambiguous: bool = False) -> list[Discussed]:
    """Symbols and files mentioned by the most issues (``state`` filters the issues).
    Ambiguous links count only with ``include_ambiguous`` (their number is shown either
    way)."""
    issues = issue_nodes(graph, repo, state)
    by_uid = {n.uid: n for n in issues}
    count: dict[str, set[int]] = defaultdict(set)
    opened: dict[str, set[int]] = defaultdict(set)
    amb: Counter[str] = Counter()
    nodes: dict[str, Node] = {}
    for uid, hits in graph.neighbours(list(by_uid), "out", [MENTIONS]).items():
        num = int(by_uid[uid].props.get("number") or 0)
        for h in hits:
            if h.edge.extra.get("ambiguous"):
                amb[h.node.uid] += 1
                if not include_ambiguous:
                    nodes.setdefault(h.node.uid, h.node)
                    continue
            nodes[h.node.uid] = h.node
            count[h.node.uid].add(num)
            if by_uid[uid].props.get("state") == "open":
                opened[h.node.uid].add(num)
    rows = []
    for uid, nums in count.items():
        n = nodes[uid]
        p = n.props
        rows.append(Discussed(uid, n.label, n.display(), str(p.get("kind") or n.label.lower()), n.repo,
                              str(p.get("file") or p.get("path") or ""), int(p.get("line") or 0), len(nums),
                              len(opened[uid]), amb[uid], sorted(nums, reverse=True)))
    rows.sort(key=lambda r: (-r.issues, -r.open_issues, r.name))
    return rows[:limit]


@dataclass(slots=True)
class RadiusIssues:
    """Issues that mention something in a target's blast radius."""

    target: str
    depth: int
    radius: int  # nodes in the radius (targets, callers and their files)
    issues: list[IssueRef]


def issues_in_radius(graph: GraphStore, target: str, repo: str | None = None, depth: int = 3,
                     state: str | None = "open", limit: int = 100000) -> RadiusIssues:
    """Issues (open by default) that mention the target or anything in its blast radius
    (``codegraph.core.impact.impact`` up to ``depth``), including the files of those
    symbols; one row per (issue, mentioned node), closest first. Raises TargetNotFound."""
    from codegraph.core.impact import impact

    res = impact(graph, target, repo=repo, depth=depth, limit=limit)
    depth_of: dict[str, int] = {}
    for t in res.targets:
        depth_of[t.uid] = 0
        if t.file and t.label == SYMBOL:
            depth_of.setdefault(file_uid(t.repo, t.file), 0)
    for c in res.callers:
        depth_of.setdefault(c.node.uid, c.depth)
        if c.node.file and c.node.label == SYMBOL:
            depth_of.setdefault(file_uid(c.node.repo, c.node.file), c.depth)
    found = _mentions_of(graph, list(depth_of), state)
    mentioned = graph.get_nodes(sorted({u for _, _, u in found}))
    refs = [_ref(i, e, mentioned[u], depth_of[u]) for i, e, u in found if u in mentioned]
    refs.sort(key=lambda r: (r.depth, r.ambiguous, -r.number, r.mentioned))
    return RadiusIssues(target, depth, len(depth_of), refs)


__all__ = [
    "Discussed", "ImportSummary", "IssueComment", "IssueData", "IssueRef", "Mention", "RadiusIssues",
    "comments_by_number", "extract_mentions", "fetch_issues", "github_token", "import_issues", "issue_mentions",
    "issue_nodes", "issues_in_radius", "issues_mentioning", "load_export", "most_discussed", "parse_export",
]

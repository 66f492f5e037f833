"""Search chunks of the non-code content kinds (codegraph.core.content): SQL DDL tables,
configuration properties and Markdown sections, each written to its kind's own index.

Which files (same discovery rules as code: git ls-files or a .gitignore-aware walk,
vendored/build folders left out, files over ``max_file_bytes`` skipped):
- schema: ``*.sql``; every ``CREATE TABLE`` (sqlglot, any dialect it reads) is one chunk
  with its columns; ``symbol_uid`` is the graph's Table node of that name in the repo.
- config: Spring ``application*.yml|yaml|properties`` and ``bootstrap*``, any ``*.properties``,
  ``.env.example`` / ``.env.sample`` / ``.env.template`` / ``.env.dist``, and TOML/YAML
  whose name says settings/config/application (or that sit in a ``config``/``conf``/``settings``
  folder). One chunk per leaf key: dotted key, value, file:line.
- docs: ``*.md`` / ``*.markdown``; one chunk per heading (ATX ``#``; fenced code ignored),
  named by its heading path ("Orders > Refunds").

A file that does not parse is counted in ``unparsed`` and left out; nothing else stops.
Runs on every index/refresh: the kind indexes end up holding exactly the chunks of the
files now present (vanished chunks deleted; unchanged text keeps its vector).
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from codegraph.core.content import CHUNK_KIND, CONFIG, DOCS, SCHEMA
from codegraph.core.models import Chunk, table_uid

MAX_TEXT = 4000  # characters of a section/statement kept as chunk text
MAX_CHUNKS_PER_FILE = 2000
_ENV_FILES = {".env.example", ".env.sample", ".env.template", ".env.dist"}
_CONFIG_WORDS = ("settings", "config", "application", "appsettings", "bootstrap")
_CONFIG_DIRS = {"config", "conf", "settings", "configs"}
_NOT_CONFIG = {"pyproject.toml", "cargo.toml", "poetry.lock", "docker-compose.yml", "docker-compose.yaml",
               "mkdocs.yml", ".pre-commit-config.yaml", "package.json"}


@dataclass
class ContentSummary:
    """Per kind: chunks written; ``unparsed``: files that did not parse, by kind."""

    chunks: dict[str, int] = field(default_factory=dict)
    files: dict[str, int] = field(default_factory=dict)
    unparsed: Counter[str] = field(default_factory=Counter)
    deleted: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"chunks": dict(self.chunks), "files": dict(self.files), "unparsed": dict(self.unparsed),
                "deleted": self.deleted}


# Every path kind_of_file gives a kind ends (lower-cased) with one of these: the others are
# answered without building a PurePosixPath (most of a repository's paths; ~40 us each).
_KIND_ENDINGS = (".sql", ".md", ".markdown", ".properties", ".yml", ".yaml", ".toml", *sorted(_ENV_FILES))


def kind_of_file(path: str) -> str | None:
    """The content kind a repo-relative path feeds, or None."""
    if not path.lower().endswith(_KIND_ENDINGS):
        return None
    p = PurePosixPath(path)
    name, suffix = p.name.lower(), p.suffix.lower()
    if suffix == ".sql":
        return SCHEMA
    if suffix in (".md", ".markdown"):
        return DOCS
    if name in _ENV_FILES or suffix == ".properties":
        return CONFIG
    if name in _NOT_CONFIG or p.parts[0] in (".github", ".gitlab"):
        return None
    if suffix in (".yml", ".yaml", ".toml") and (
            any(w in p.stem.lower() for w in _CONFIG_WORDS) or any(d.lower() in _CONFIG_DIRS for d in p.parts[:-1])):
        return CONFIG
    return None


def _chunk(kind: str, repo: str, file: str, line: int, end_line: int, name: str, qualified_name: str,
           text: str, embed_text: str, symbol_uid: str = "") -> Chunk:
    text = text[:MAX_TEXT]
    key = f"{kind}|{repo}|{file}|{qualified_name}|{line}"
    return Chunk(chunk_id=f"{kind}:{hashlib.sha1(key.encode()).hexdigest()[:20]}", repo=repo, file=file,
                 kind=CHUNK_KIND[kind], language=kind, line=line, end_line=end_line, text=text,
                 embed_text=embed_text[:MAX_TEXT],
                 content_hash=hashlib.sha1(f"{text}\0{embed_text}".encode()).hexdigest(),
                 qualified_name=qualified_name, name=name, symbol_uid=symbol_uid)


# -- schema ---------------------------------------------------------------------------------

_CREATE = re.compile(r"^\s*create\s+(?:or\s+replace\s+)?(?:(?:global\s+|local\s+)?temp(?:orary)?\s+)?"
                     r"(?:unlogged\s+)?table\b", re.I | re.M)


def _statements(text: str) -> Iterator[tuple[int, str]]:
    """(1-based line, statement text) of each CREATE TABLE, ending at the next ';' at
    depth 0 outside quotes (or the end of the file)."""
    for m in _CREATE.finditer(text):
        depth, i, quote = 0, m.start(), ""
        while i < len(text):
            ch = text[i]
            if quote:
                if ch == quote:
                    quote = ""
            elif ch in "'\"`":
                quote = ch
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            elif ch == ";" and depth <= 0:
                break
            i += 1
        start = m.start() + (len(m.group(0)) - len(m.group(0).lstrip()))
        yield text.count("\n", 0, start) + 1, text[start:i + 1]


def schema_chunks(repo: str, file: str, text: str) -> list[Chunk]:
    """One chunk per CREATE TABLE: name, columns and types; raises ValueError when a
    statement does not parse."""
    import sqlglot
    from sqlglot import exp

    out = []
    for line, stmt in _statements(text):
        try:
            tree = sqlglot.parse_one(stmt)
        except sqlglot.errors.ParseError as e:
            raise ValueError(str(e).splitlines()[0]) from None
        if not isinstance(tree, exp.Create) or tree.find(exp.Table) is None:
            continue
        table = tree.find(exp.Table)
        name = table.name
        qualified = ".".join(p for p in (table.db, name) if p)
        cols = [(c.name, c.args["kind"].sql() if c.args.get("kind") else "") for c in tree.find_all(exp.ColumnDef)]
        col_text = ", ".join(f"{n} {t}".strip() for n, t in cols)
        embed = f"table {qualified} ({file}) columns: {col_text}"
        end = line + stmt.count("\n")
        out.append(_chunk(SCHEMA, repo, file, line, end, name, qualified, stmt, embed,
                          symbol_uid=table_uid(repo, name.lower())))
    return out


# -- config ---------------------------------------------------------------------------------

def _yaml_leaves(text: str) -> Iterator[tuple[str, str, int]]:
    import yaml

    for doc in yaml.compose_all(text, Loader=yaml.SafeLoader):
        if doc is not None:
            yield from _walk_yaml(doc, "")


def _walk_yaml(node: Any, prefix: str) -> Iterator[tuple[str, str, int]]:
    import yaml

    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            key = f"{prefix}.{k.value}" if prefix else str(k.value)
            yield from _walk_yaml(v, key)
    elif isinstance(node, yaml.SequenceNode):
        for i, v in enumerate(node.value):
            yield from _walk_yaml(v, f"{prefix}[{i}]")
    elif prefix:
        yield prefix, str(node.value), node.start_mark.line + 1


def _toml_leaves(text: str) -> Iterator[tuple[str, str, int]]:
    data = tomllib.loads(text)
    lines = text.splitlines()

    def line_of(path: list[str]) -> int:
        # The line of `key =` after the header of its table (or of a dotted key); 1 if not found.
        last = re.escape(path[-1])
        header = None
        for i, ln in enumerate(lines):
            s = ln.strip()
            if s.startswith("[") and len(path) > 1:
                header = s.strip("[] ")
            if re.match(rf'^\s*("?){last}\1\s*=', ln) and (len(path) == 1 or header == ".".join(path[:-1])
                                                           or ".".join(path) in ln):
                return i + 1
        return 1

    def walk(obj: Any, path: list[str]) -> Iterator[tuple[str, str, int]]:
        if isinstance(obj, dict):
            for k, v in obj.items():
                yield from walk(v, [*path, str(k)])
        elif path:
            yield ".".join(path), obj if isinstance(obj, str) else repr(obj), line_of(path)

    yield from walk(data, [])


def _flat_leaves(text: str, env: bool) -> Iterator[tuple[str, str, int]]:
    """``.properties`` (key=value / key: value) and ``.env`` (KEY=value, optional export)."""
    for i, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if not s or s[0] in "#!":
            continue
        if env and s.startswith("export "):
            s = s[7:].lstrip()
        m = re.match(r"^([^=:\s]+)\s*[=:]\s*(.*)$", s) if not env else re.match(r"^([A-Za-z_][\w.]*)\s*=\s*(.*)$", s)
        if m:
            yield m.group(1), m.group(2).strip().strip('"').strip("'"), i


PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][\w.\-]*)(?::[^}]*)?\}")


def config_chunks(repo: str, file: str, text: str) -> list[Chunk]:
    """One chunk per leaf key; raises ValueError when the file does not parse."""
    name = PurePosixPath(file).name.lower()
    try:
        if name.endswith((".yml", ".yaml")):
            leaves = list(_yaml_leaves(text))
        elif name.endswith(".toml"):
            leaves = list(_toml_leaves(text))
        else:
            leaves = list(_flat_leaves(text, env=name.startswith(".env")))
    except Exception as e:  # yaml/toml raise their own error types; one line is enough
        raise ValueError(" ".join(str(e).split())[:200]) from None
    out = []
    for key, value, line in leaves:
        refs = PLACEHOLDER.findall(value)
        embed = f"config property {key} = {value} ({file})" + (f" reads {', '.join(refs)}" if refs else "")
        out.append(_chunk(CONFIG, repo, file, line, line, key.rsplit(".", 1)[-1], key, f"{key} = {value}", embed))
    return out


# -- docs -----------------------------------------------------------------------------------

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def doc_chunks(repo: str, file: str, text: str) -> list[Chunk]:
    """One chunk per heading (text up to the next heading); text before the first heading
    is a chunk named after the file."""
    lines = text.splitlines()
    sections: list[tuple[int, list[str], int]] = []  # (start line, heading path, level)
    path: list[tuple[int, str]] = []
    fence = ""
    for i, ln in enumerate(lines, 1):
        s = ln.strip()
        if s.startswith(("```", "~~~")):
            fence = "" if fence and s.startswith(fence) else (fence or s[:3])
            continue
        m = None if fence else _HEADING.match(ln)
        if m:
            level = len(m.group(1))
            path = [(lv, t) for lv, t in path if lv < level] + [(level, m.group(2))]
            sections.append((i, [t for _, t in path], level))
    starts = [s[0] for s in sections]
    out = []
    if not sections or starts[0] > 1:
        end = (starts[0] - 1) if sections else len(lines)
        body = "\n".join(lines[:end]).strip()
        if body:
            title = PurePosixPath(file).name
            out.append(_chunk(DOCS, repo, file, 1, end, title, title, body, f"{title}\n{body}"))
    for n, (start, heading, _) in enumerate(sections):
        end = starts[n + 1] - 1 if n + 1 < len(sections) else len(lines)
        body = "\n".join(lines[start - 1:end]).strip()
        qn = " > ".join(heading)
        out.append(_chunk(DOCS, repo, file, start, end, heading[-1], qn, body, f"{qn} ({file})\n{body}"))
    return out


_BUILDERS = {SCHEMA: schema_chunks, CONFIG: config_chunks, DOCS: doc_chunks}


def content_chunks(root: Path, repo: str, paths: list[str], max_file_bytes: int = 1_000_000,
                   summary: ContentSummary | None = None) -> dict[str, list[Chunk]]:
    """kind -> chunks of the content files among ``paths`` (repo-relative)."""
    summary = summary if summary is not None else ContentSummary()
    out: dict[str, list[Chunk]] = {k: [] for k in _BUILDERS}
    for rel in paths:
        kind = kind_of_file(rel)
        if kind is None:
            continue
        p = root / rel
        try:
            if p.is_symlink() and not p.resolve().is_relative_to(root) or p.stat().st_size > max_file_bytes:
                continue
            text = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            summary.unparsed[kind] += 1
            continue
        try:
            chunks = _BUILDERS[kind](repo, rel, text)[:MAX_CHUNKS_PER_FILE]
        except (ValueError, RecursionError):
            summary.unparsed[kind] += 1
            continue
        summary.files[kind] = summary.files.get(kind, 0) + 1
        out[kind].extend(chunks)
    return out


def repo_paths(root: Path) -> list[str]:
    """Every repo-relative file path discovery would look at (git or .gitignore-aware walk),
    vendored and build folders left out."""
    from codegraph.indexer.discover import SKIP_DIRS, _git_files, _walk

    paths = _git_files(root)
    if paths is None:
        return _walk(root, Counter(), [])
    return [p for p in paths if not any(part in SKIP_DIRS or part.endswith(".egg-info")
                                        for part in PurePosixPath(p).parts[:-1])]


def index_content(root: Path, repo: str, search: Any, max_file_bytes: int = 1_000_000,
                  include: Any = None, exclude: Any = None, paths: list[str] | None = None) -> ContentSummary:
    """Rebuild the schema/config/docs chunks of ``repo`` in their kind indexes
    (``search.for_kind``). ``include``/``exclude``: gitignore-style globs as for code.
    ``paths``: ``repo_paths(root)`` when the caller has it (the index run's discovery
    listed the tree already: ``Discovery.paths``); else the tree is listed here."""
    from codegraph.indexer.discover import gitignore_spec

    root = root.resolve()
    summary = ContentSummary()
    # Content files first: the globs below then match a few paths, not every file.
    paths = [p for p in (repo_paths(root) if paths is None else paths) if kind_of_file(p) is not None]
    if include:
        inc = gitignore_spec(include)
        paths = [p for p in paths if inc.match_file(p)]
    if exclude:
        exc = gitignore_spec(exclude)
        paths = [p for p in paths if not exc.match_file(p)]
    by_kind = content_chunks(root, repo, paths, max_file_bytes, summary)
    for kind, chunks in by_kind.items():
        ix = search.for_kind(kind)
        keep = {c.chunk_id for c in chunks}
        old = {i for ids in ix.chunk_ids_by_file(repo).values() for i in ids}
        gone = sorted(old - keep)
        if gone:
            summary.deleted += ix.delete_chunks(repo, gone)
        if chunks:
            ix.upsert_chunks(chunks)
        summary.chunks[kind] = len(chunks)
    return summary

"""Repo-wide link pass for framework records: Endpoint / Table / Topic nodes and the
EXPOSES, CALLS_HTTP, PRODUCES, CONSUMES, READS, WRITES and TOUCHES edges.

Runs after ``resolve_repo`` (it reads the resolved IMPORTS and CALLS edges to follow a
router or a handler into the file that defines it). Every record is attributed to its
enclosing symbol by line range; code outside any function is attributed to the file's
module symbol (HTTP, topics) or, for table access, to the File itself (TOUCHES).

Matching client URLs to endpoints is conservative (see ``adapters._routes.fits``): a
URL that fits no route, or several, is not linked but returned in ``unplaced`` with its
reason (``no_match``, ``ambiguous`` with the candidates, ``dynamic``).

IMPORTS edges get ``extra["symbols"]``: imported name -> qualified names it resolves
to (following re-exports), so impact can tell which importers a reached symbol affects.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegraph.core.models import (
    CALLS,
    CALLS_HTTP,
    CONSUMES,
    ENDPOINT,
    EXPOSES,
    IMPORTS,
    PRODUCES,
    READS,
    TABLE,
    TOPIC,
    TOUCHES,
    WRITES,
    Edge,
    Node,
    SymbolRecord,
    endpoint_uid,
    file_uid,
    table_uid,
    topic_uid,
)
from codegraph.indexer.adapters._routes import ClientUrl, client_url, fits, join, literal_fills, normalize_template
from codegraph.indexer.records import FileExtraction
from codegraph.indexer.resolve import Resolution, SymbolTable

_CALLABLE = frozenset(("function", "method", "class", "interface", "struct", "object", "trait", "enum", "record"))
MAX_MOUNT_DEPTH = 8


def _common(a: str, b: str) -> int:
    """Number of leading folders two paths share."""
    n = 0
    for x, y in zip(a.split("/")[:-1], b.split("/")[:-1], strict=False):
        if x != y:
            break
        n += 1
    return n


@dataclass(slots=True)
class BoundaryLinks:
    """``nodes``: Endpoint/Table/Topic nodes; ``edges``: evidence file -> edges;
    ``unplaced``: client URLs (and ORM uses) that could not be linked, each
    ``{"file", "line", "kind", "method", "url", "reason", "candidates"}``;
    ``counts``: endpoints, http_calls, http_placed, http_<reason>, topics, tables..."""

    nodes: list[Node] = field(default_factory=list)
    edges: dict[str, list[Edge]] = field(default_factory=dict)
    unplaced: list[dict[str, Any]] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)


@dataclass(slots=True)
class _Endpoint:
    method: str
    path: str
    framework: str
    uid: str
    files: set[str] = field(default_factory=set)


_SERVER_LANGS = frozenset(("python", "go", "java", "kotlin", "csharp", "ruby", "php", "rust"))
_PUBLIC_HOST = re.compile(r"^[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}$", re.I)
_LOCAL_HOST = re.compile(r"(^|\.)(localhost|local|internal|svc|cluster\.local|lan|home|test|example|invalid)$", re.I)
_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", "go.mod", "pom.xml", "build.gradle", "build.gradle.kts",
                    "package.json", "Cargo.toml", "composer.json", "Gemfile", "manage.py")


@dataclass(slots=True)
class _Mount:
    file: str
    router: str | None
    prefix: str
    targets: list[str]
    target_var: str | None


class _Linker:
    def __init__(self, repo: str, extractions: list[FileExtraction], resolution: Resolution, root: Path | None) -> None:
        self.repo = repo
        self.fx = {fx.file.path: fx for fx in extractions}
        self.res = resolution
        self.root = root
        self.out = BoundaryLinks()
        # Symbol maps are built when a record needs them (per file, or repo-wide on the
        # first uid / name look-up): a refresh of a repo with few framework records then
        # does not walk every symbol of the repo.
        self._syms: dict[str, tuple[list[SymbolRecord], SymbolRecord | None]] = {}
        self._by_uid: dict[str, SymbolRecord] | None = None
        self._by_name: dict[str, list[SymbolRecord]] | None = None
        self.nodes: dict[str, Node] = {}
        self.seen: set[tuple[str, str, str, str, int]] = set()
        self._project: dict[str, str] = {}
        self._marker: dict[str, bool] = {}
        # file -> constant name -> (pieces, hole imports) from `const` records
        self.consts: dict[str, dict[str, tuple[list[tuple[str, str]], dict[str, Any]]]] = {}

    # -- helpers ---------------------------------------------------------------------------
    def file_syms(self, path: str) -> list[SymbolRecord]:
        """The non-module symbols of ``path`` by (line, -end_line)."""
        return self._file(path)[0]

    def module_of(self, path: str) -> SymbolRecord | None:
        return self._file(path)[1]

    def _file(self, path: str) -> tuple[list[SymbolRecord], SymbolRecord | None]:
        hit = self._syms.get(path)
        if hit is None:
            fx = self.fx.get(path)
            syms = fx.symbols if fx is not None else []
            lst = sorted((s for s in syms if s.kind != "module"), key=lambda s: (s.line, -s.end_line))
            hit = self._syms[path] = (lst, next((s for s in syms if s.kind == "module"), None))
        return hit

    @property
    def sym_by_uid(self) -> dict[str, SymbolRecord]:
        if self._by_uid is None:
            self._by_uid = {s.uid: s for fx in self.fx.values() for s in fx.symbols}
        return self._by_uid

    @property
    def by_name(self) -> dict[str, list[SymbolRecord]]:
        if self._by_name is None:
            self._by_name = defaultdict(list)
            for fx in self.fx.values():
                for s in fx.symbols:
                    if s.kind != "module":
                        self._by_name[s.name].append(s)
        return self._by_name

    def edge(self, etype: str, src: str, tgt: str, file: str, line: int, **extra: Any) -> None:
        e = Edge(etype, src, tgt, file, line, "framework", {k: v for k, v in extra.items() if v is not None})
        if e.key() in self.seen:
            return
        self.seen.add(e.key())
        self.out.edges.setdefault(file, []).append(e)

    def enclosing(self, path: str, line: int, kinds: frozenset[str] | None = None) -> SymbolRecord | None:
        """Innermost non-module symbol whose lines contain ``line`` (optionally of ``kinds``)."""
        best: SymbolRecord | None = None
        for s in self.file_syms(path):
            if s.line > line:
                break
            if s.end_line >= line and (kinds is None or s.kind in kinds) and (
                    best is None or (s.end_line - s.line) <= (best.end_line - best.line)):
                best = s
        return best

    def owner(self, path: str, line: int) -> SymbolRecord | None:
        """The symbol a record belongs to: innermost callable, else the module symbol."""
        return self.enclosing(path, line, _CALLABLE) or self.module_of(path)

    def imported_files(self, path: str, line: int, name: str | None = None, spec: str | None = None) -> list[str]:
        """Files the import statement at ``path:line`` resolved to (IMPORTS edges); when
        the resolver could not place it, the module ``spec`` looked up by path here."""
        found: list[tuple[str, list[str]]] = []
        prefix = file_uid(self.repo, "")
        for e in self.res.edges.get(path, ()):
            if e.type == IMPORTS and e.line == line and e.target.startswith(prefix):
                found.append((e.target[len(prefix):], list(e.extra.get("names") or [])))
        if name and len(found) > 1:
            named = [p for p, names in found if name in names]
            if named:
                return sorted(set(named))
        if found:
            return sorted({p for p, _ in found})
        return self.spec_files(path, spec, name) if spec else []

    def spec_files(self, importer: str, spec: str, name: str | None) -> list[str]:
        """Repo files for an import the resolver left unplaced: a Python module (a package
        root below the repo root, as in monorepos) or a relative JS/TS specifier."""
        if self.fx.get(importer) is not None and self.fx[importer].file.language == "python":
            base = spec
            if spec.startswith("."):
                dots = len(spec) - len(spec.lstrip("."))
                d = posixpath.dirname(importer)
                for _ in range(dots - 1):
                    d = posixpath.dirname(d)
                rest = spec.lstrip(".").replace(".", "/")
                tails = [posixpath.join(d, rest) if rest else d]
                exact = True
            else:
                tails, exact = [base.replace(".", "/")], False
            cands = []
            for t in tails:
                if name and name not in ("*", "default"):
                    cands += [f"{t}/{name}.py", f"{t}/{name}/__init__.py"]
                cands += [f"{t}.py", f"{t}/__init__.py"]
            for c in cands:
                hits = [p for p in self.fx if p == c or (not exact and p.endswith("/" + c))]
                if hits:
                    hits.sort(key=lambda p: (-_common(p, importer), len(p)))
                    return hits[:1]
            return []
        from codegraph.indexer.languages.javascript import specifier_paths

        paths = specifier_paths(importer, spec) or []
        return [p for p in paths if p in self.fx][:1]

    def node(self, uid: str, label: str, props: dict[str, Any]) -> None:
        if uid not in self.nodes:
            self.nodes[uid] = Node(uid, label, {"repo": self.repo, **props})

    # -- handlers ----------------------------------------------------------------------------
    def handler(self, rec: dict[str, Any]) -> SymbolRecord | None:
        path, h = rec["file"], rec.get("handler")
        if not h:
            return None
        last = h.rsplit(".", 1)[-1]
        for e in self.res.edges.get(path, ()):
            if e.type == CALLS and e.line == rec["line"]:
                s = self.sym_by_uid.get(e.target)
                if s is not None and s.name == last:
                    return s
        imp = rec.get("handler_import")
        if imp:
            files = self.imported_files(path, imp["line"], imp.get("name"), imp.get("spec"))
            want = last if "." in h or imp.get("name") in (None, "default", "*") else imp["name"]
            for f in files:
                cands = [s for s in self.file_syms(f) if s.name == want]
                if cands:
                    cands.sort(key=lambda s: (s.parent is not None and s.parent != (self.module_of(f) or s).qualified_name,
                                              s.line))
                    return cands[0]
        same = [s for s in self.file_syms(path) if s.name == last]
        if same:
            return same[0]
        if "." not in h or not imp:
            # Go: a handler of the same package lives in a sibling file.
            d = posixpath.dirname(path)
            sib = [s for s in self.by_name.get(last, ()) if posixpath.dirname(s.file) == d]
            if len(sib) == 1:
                return sib[0]
        cands = [s for s in self.by_name.get(last, ()) if s.kind in ("function", "method", "class")]
        if len({s.qualified_name for s in cands}) == 1:
            return cands[0]
        return None

    # -- endpoints ---------------------------------------------------------------------------
    def module_files(self, module: str, importer: str) -> list[str]:
        """Repo files of a dotted Python module (``orders.urls``), nearest the importer first."""
        tail = module.replace(".", "/")
        hits = [p for p in self.fx if p == f"{tail}.py" or p.endswith(f"/{tail}.py")
                or p == f"{tail}/__init__.py" or p.endswith(f"/{tail}/__init__.py")]
        base = posixpath.dirname(importer)
        hits.sort(key=lambda p: (not p.startswith(posixpath.dirname(base)), len(p)))
        return hits[:1]

    def mounts(self, records: list[dict[str, Any]]) -> tuple[list[_Mount], list[dict[str, Any]]]:
        out, nest = [], []
        for r in records:
            if r.get("framework") == "nestjs" and "scope" in r:
                nest.append(r)
                continue
            path = r["file"]
            targets: list[str] = []
            if r.get("module"):
                targets = self.module_files(r["module"], path)
            elif r.get("same_file"):
                targets = [path]
            elif r.get("target_import"):
                ti = r["target_import"]
                targets = self.imported_files(path, ti["line"], ti.get("name"), ti.get("spec"))
            elif r.get("target"):
                targets = [path]
            if targets:
                out.append(_Mount(path, r.get("router"), r.get("prefix", ""), targets, r.get("target_var")))
        return out, nest

    def prefixes(self, mounts: list[_Mount], path: str, router: str | None, depth: int = 0) -> list[str]:
        if depth > MAX_MOUNT_DEPTH:
            return [""]
        ms = [m for m in mounts if path in m.targets and (m.target_var is None or router is None or m.target_var == router)
              and not (m.file == path and m.router == router)]
        if not ms:
            return [""]
        out = []
        for m in ms:
            for p in self.prefixes(mounts, m.file, m.router, depth + 1):
                out.append(join(p, m.prefix))
        return sorted(set(out))

    def endpoints(self, records: list[dict[str, Any]], mount_recs: list[dict[str, Any]]) -> list[_Endpoint]:
        mounts, nest = self.mounts(mount_recs)
        eps: dict[str, _Endpoint] = {}
        for r in records:
            pres = self.prefixes(mounts, r["file"], r.get("router")) if mounts else [""]
            if r.get("framework") == "nestjs":
                for n in nest:
                    scope = posixpath.dirname(n["scope"]) if n["scope"] else ""
                    if not scope or r["file"].startswith(scope + "/"):
                        pres = [join(n["prefix"], p) for p in pres]
                        break
            owner = self.handler(r) or self.owner(r["file"], r.get("at", r["line"]))
            for pre in pres:
                path = normalize_template(join(pre, r["path"])) if pre else r["path"]
                method = r["method"].upper()
                uid = endpoint_uid(self.repo, method, path)
                self.node(uid, ENDPOINT, {"method": method, "path_template": path,
                                          "framework": r.get("framework", "")})
                eps.setdefault(uid, _Endpoint(method, path, r.get("framework", ""), uid)).files.add(r["file"])
                self.out.counts["endpoints"] += 1
                if owner is None:
                    self.out.counts["endpoints_without_symbol"] += 1
                    continue
                self.edge(EXPOSES, owner.uid, uid, r["file"], r["line"], framework=r.get("framework"),
                          handler=r.get("handler"))
        return list(eps.values())

    def project(self, path: str) -> str:
        """The nearest folder above ``path`` with a project marker (pyproject.toml,
        package.json, go.mod...); the first folder when the root is not readable."""
        if path in self._project:
            return self._project[path]
        d = posixpath.dirname(path)
        found = None
        if self.root is not None and self.root.is_dir():
            cur = d
            while True:
                if cur in self._marker:
                    has = self._marker[cur]
                else:
                    has = any((self.root / cur / m).is_file() for m in _PROJECT_MARKERS)
                    self._marker[cur] = has
                if has:
                    found = cur
                    break
                if not cur:
                    break
                cur = posixpath.dirname(cur)
        if found is None:
            found = d.split("/", 1)[0]
        self._project[path] = found
        return found

    # -- http calls ---------------------------------------------------------------------------
    def complete(self, path: str, parts: list[tuple[str, str]], imports: dict[str, Any],
                 depth: int = 0) -> list[tuple[str, str]]:
        """Holes naming an imported constant take the constant's pieces from the
        module the import resolves to (``${API_BASE}/x`` -> ``/api/v1/x``)."""
        if not imports or depth > 4:
            return parts
        out: list[tuple[str, str]] = []
        for kind, val in parts:
            imp = imports.get(val) if kind == "hole" else None
            found = None
            if imp:
                for f in self.imported_files(path, imp["line"], imp.get("name"), imp.get("spec")):
                    found = self.consts.get(f, {}).get(imp["name"])
                    if found is not None:
                        out.extend(self.complete(f, found[0], found[1], depth + 1))
                        break
            if found is None:
                out.append((kind, val))
        merged: list[tuple[str, str]] = []
        for kind, val in out:
            if merged and kind == "lit" and merged[-1][0] == "lit":
                merged[-1] = ("lit", merged[-1][1] + val)
            else:
                merged.append((kind, val))
        return merged

    def http_calls(self, records: list[dict[str, Any]], eps: list[_Endpoint]) -> None:
        for r in records:
            self.out.counts["http_calls"] += 1
            parts = self.complete(r["file"], [(k, v) for k, v in r.get("parts", [])], r.get("hole_imports") or {})
            url = client_url(parts)
            if r.get("base") == "unknown" and url.known_base and not url.host:
                url = ClientUrl(url.segments, False)
            method = (r.get("method") or "").upper() or None
            if url.dynamic:
                self.unplaced(r, "dynamic", [])
                continue
            if url.host and _PUBLIC_HOST.match(url.host.split(":")[0]) and not _LOCAL_HOST.search(url.host.split(":")[0]):
                self.unplaced(r, "external", [url.host], parts)  # a public API, not this repository's server
                continue
            cands = [e for e in eps if (method is None or e.method in (method, "ANY") or
                                        (method == "HEAD" and e.method == "GET")) and fits(url, e.path)]
            if not url.known_base and self.fx.get(r["file"]) is not None and \
                    self.fx[r["file"]].file.language in _SERVER_LANGS:
                # Server code with a configurable base talks to other services: its own
                # project's routes are not what a tail like `/api/config` reaches.
                home = self.project(r["file"])
                cands = [e for e in cands if not any(self.project(f) == home for f in e.files)]
            also: list[str] = []
            if len(cands) > 1:
                # `/chats/config` fits `/chats/config` and `/chats/:id`: routers rank the static
                # route first; the parameter routes are kept on the edge as `also_fits`.
                static = [e for e in cands if literal_fills(url, e.path) == 0]
                if len(static) == 1:
                    also = sorted(f"{e.method} {e.path}" for e in cands if e is not static[0])
                    cands = static
            if len(cands) == 1:
                owner = self.owner(r["file"], r.get("at", r["line"]))
                if owner is None:
                    self.unplaced(r, "no_symbol", [])
                    continue
                self.out.counts["http_placed"] += 1
                self.edge(CALLS_HTTP, owner.uid, cands[0].uid, r["file"], r["line"], url=r.get("url"),
                          method=method, client=r.get("client"), also_fits=also[:10] or None)
            elif cands:
                self.unplaced(r, "ambiguous", sorted(f"{e.method} {e.path}" for e in cands), parts)
            else:
                self.unplaced(r, "no_match", [], parts)

    def unplaced(self, r: dict[str, Any], reason: str, cands: list[str],
                 parts: list[tuple[str, str]] | None = None) -> None:
        self.out.counts[f"http_{reason}"] += 1
        # owner + parts let the cross-repo pass match the call in another repo without re-parsing.
        owner = self.owner(r["file"], r.get("at", r["line"])) if parts else None
        self.out.unplaced.append({"file": r["file"], "line": r["line"], "kind": "http_call", "method": r.get("method"),
                                  "url": r.get("url"), "client": r.get("client"), "reason": reason,
                                  "candidates": cands[:20], "owner": owner.uid if owner else None,
                                  "parts": [list(p) for p in parts] if parts else None})

    # -- topics ---------------------------------------------------------------------------------
    def topics(self, records: list[dict[str, Any]]) -> None:
        for r in records:
            owner = self.owner(r["file"], r.get("at", r["line"]))
            uid = topic_uid(self.repo, r["topic"])
            self.node(uid, TOPIC, {"name": r["topic"], "broker": "kafka"})
            self.out.counts["topic_access"] += 1
            if owner is None:
                continue
            etype = PRODUCES if r.get("access") == "produce" else CONSUMES
            self.edge(etype, owner.uid, uid, r["file"], r["line"], client=r.get("client"))

    # -- tables ---------------------------------------------------------------------------------
    def prisma_models(self) -> dict[str, str]:
        """Prisma model (lower-cased) -> table, from every schema.prisma under the root."""
        out: dict[str, str] = {}
        if self.root is None or not self.root.is_dir():
            return out
        for schema in self.root.rglob("*.prisma"):
            if "node_modules" in schema.parts:
                continue
            try:
                text = schema.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            for m in re.finditer(r"(?ms)^\s*model\s+(\w+)\s*\{(.*?)^\s*\}", text):
                mapped = re.search(r"@@map\(\s*(?:name\s*:\s*)?\"([^\"]+)\"", m.group(2))
                out[m.group(1).lower()] = (mapped.group(1) if mapped else m.group(1)).lower()
        return out

    def tables(self, records: list[dict[str, Any]]) -> None:
        models: dict[str, list[tuple[str, str]]] = defaultdict(list)  # model name -> [(table, file)]
        repos: dict[str, str] = {}  # spring data repository -> entity
        for r in records:
            if r.get("access") == "model" and r.get("table"):
                models[r["model"]].append((r["table"], r["file"]))
            elif r.get("access") == "repository":
                repos[r["repository"]] = r["model"]
        prisma = self.prisma_models() if any(r.get("via") == "prisma" for r in records) else {}
        jpa = {m.lower(): [t for t, _ in ts] for m, ts in models.items()
               if any(f.endswith((".java", ".kt")) for _, f in ts)}
        declared = {t for ts in models.values() for t, _ in ts}
        for r in records:
            access = r.get("access")
            path, line = r["file"], r["line"]
            if access in ("model", "repository"):
                name = r.get("model") if access == "model" else r.get("repository")
                tables = [r["table"]] if access == "model" else [t for t, _ in models.get(r["model"], [])]
                for t in tables:
                    self.table_edge(TOUCHES, path, line, t, file_level=True, names=[name], model=name, via=r.get("via"))
                continue
            tables = []
            if r.get("table"):
                t = r["table"]
                # JPQL names the entity, not the table.
                jpql = path.endswith((".java", ".kt")) and t in jpa and t not in declared
                tables = jpa[t] if jpql else [t]
            elif r.get("repository"):
                ent = repos.get(r["repository"])
                tables = [t for t, _ in models.get(ent, [])] if ent else []
            elif r.get("via") == "prisma":
                tables = [prisma.get(r["model"].lower(), r["model"].lower())]
            elif r.get("model"):
                cands = models.get(r["model"], [])
                imp = r.get("model_import")
                if imp and len({t for t, _ in cands}) > 1:
                    files = set(self.imported_files(path, imp["line"], imp.get("name"), imp.get("spec")))
                    cands = [c for c in cands if c[1] in files] or cands
                tables = sorted({t for t, _ in cands})
            if not tables:
                if not r.get("optional"):
                    self.out.counts["table_use_unplaced"] += 1
                    self.out.unplaced.append({"file": path, "line": line, "kind": "table_access",
                                              "method": access, "url": r.get("model") or r.get("repository"),
                                              "reason": "unknown_model", "candidates": []})
                continue
            etype = WRITES if access == "write" else READS
            for t in tables:
                self.table_edge(etype, path, line, t, at=r.get("at", line), via=r.get("via"), model=r.get("model"),
                                schema=r.get("schema"))

    def table_edge(self, etype: str, path: str, line: int, table: str, file_level: bool = False, at: int | None = None,
                   **extra: Any) -> None:
        uid = table_uid(self.repo, table)
        self.node(uid, TABLE, {"name": table})
        self.out.counts["table_access"] += 1
        if not file_level:
            owner = self.enclosing(path, at or line, frozenset(("function", "method", "class", "struct", "object")))
            if owner is not None:
                self.edge(etype, owner.uid, uid, path, line, **extra)
                return
            extra["access"] = "write" if etype == WRITES else "read"
        self.edge(TOUCHES, file_uid(self.repo, path), uid, path, line, **extra)

    # -- name-aware imports ------------------------------------------------------------------------
    def annotate_imports(self, extractions: list[FileExtraction], table: SymbolTable | None = None) -> None:
        """``extra["symbols"]`` on IMPORTS edges: imported name -> qualified names
        (``table``: the resolver's, when the caller has one)."""
        edges = [e for lst in self.res.edges.values() for e in lst if e.type == IMPORTS and e.extra.get("names")
                 and any(n != "*" for n in e.extra["names"])]
        if not edges:
            return
        table = table if table is not None else SymbolTable(self.repo, extractions)
        prefix = file_uid(self.repo, "")
        for e in edges:
            if not e.target.startswith(prefix):
                continue
            table.begin(e.file)
            path = e.target[len(prefix):]
            got: dict[str, list[str]] = {}
            for n in e.extra["names"]:
                if n == "*":
                    continue
                syms = table.export([path], n)
                if syms:
                    got[n] = sorted({s.qualified_name for s in syms})[:10]
            if got:
                e.extra["symbols"] = got


def link_boundaries(
    repo: str, extractions: list[FileExtraction], resolution: Resolution, root: Path | None = None,
    table: SymbolTable | None = None,
) -> BoundaryLinks:
    """Nodes and edges for every framework record of the repository (see module doc).
    Also annotates ``resolution``'s IMPORTS edges with ``extra["symbols"]`` in place
    (looked up in ``table`` when given: the resolver's, so a refresh sees the lookups).
    Never raises on odd records (a record missing a field is skipped and counted)."""
    lk = _Linker(repo, extractions, resolution, root)
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for fx in extractions:
        for r in fx.framework:
            if "file" not in r or "line" not in r:
                lk.out.counts["bad_records"] += 1
                continue
            by_type[r.get("type", "")].append(r)
    def stage(name: str, fn: Any, *args: Any) -> Any:
        # A rule bug or a malformed record (old JSONL) costs one stage's links, not the run.
        try:
            return fn(*args)
        except Exception as e:  # reported in counts and in `unplaced`, never raised
            lk.out.counts[f"failed_{name}"] += 1
            lk.out.unplaced.append({"file": "", "line": 0, "kind": "link_error", "method": None,
                                    "url": f"{name}: {type(e).__name__}: {e}"[:300], "reason": "error",
                                    "candidates": []})
            return None

    stage("imports", lk.annotate_imports, extractions, table)
    for r in by_type["const"]:
        if r.get("name") and isinstance(r.get("parts"), list):
            lk.consts.setdefault(r["file"], {})[r["name"]] = ([(k, v) for k, v in r["parts"]],
                                                             r.get("hole_imports") or {})
    eps = stage("endpoints", lk.endpoints, [r for r in by_type["endpoint"] if r.get("path") and r.get("method")],
                by_type["http_mount"]) or []
    stage("http_calls", lk.http_calls, by_type["http_call"], eps)
    stage("topics", lk.topics, [r for r in by_type["topic_access"] if r.get("topic")])
    stage("tables", lk.tables, by_type["table_access"])
    lk.out.nodes = list(lk.nodes.values())
    return lk.out


__all__ = ["BoundaryLinks", "link_boundaries"]

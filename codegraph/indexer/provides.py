"""What a repository provides to the others of its workspace (docs/DESIGN.md#workspaces):
the names under which its code is imported elsewhere, read from its
own metadata and from its graph.

- Python: top-level packages (a folder with ``__init__.py`` at the root or under
  ``src/``, tests/docs/examples left out) and the distribution name of
  ``pyproject.toml`` / ``setup.cfg`` (a single-module distribution such as ``six``).
- npm: ``package.json`` ``name``, with ``main`` / ``module`` / ``exports`` mapping each
  sub-path (``"."``, ``"./fmt"``) to a repo file.
- Go: the ``go.mod`` module path. Rust: ``Cargo.toml`` package / lib names (``-`` as ``_``).
- Java / Kotlin / C#: the packages / namespaces of the repo's type declarations, and
  Maven ``groupId:artifactId`` from ``pom.xml`` (an identity, shown, not matched).

A name matches a lookup key when the key is the name or continues it with ``.``, ``/``
or ``::``; the longest provided name wins.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegraph.core.graph_store import GraphStore
from codegraph.core.models import FILE, SYMBOL

_NOT_PACKAGES = frozenset(("test", "tests", "testing", "doc", "docs", "example", "examples", "benchmarks", "bench",
                           "scripts", "tools", "build", "dist", "site-packages", "node_modules", "conftest", "setup"))
_SEPS = (".", "/", "::")
_TYPE_KINDS = frozenset(("class", "interface", "struct", "enum", "record", "object", "trait"))
_JS_EXT = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".d.ts")


@dataclass(slots=True)
class Provides:
    """``names``: provided name -> ecosystem (python, npm, go, rust, java, csharp);
    ``npm_entries``: package name -> sub-path ("" for the root) -> repo file;
    ``identity``: distribution / artifact names for display (maven, pypi, crate)."""

    repo: str
    names: dict[str, str] = field(default_factory=dict)
    npm_entries: dict[str, dict[str, str]] = field(default_factory=dict)
    identity: list[str] = field(default_factory=list)

    def match(self, key: str) -> str | None:
        """The longest provided name ``key`` starts with (see module doc), or None."""
        best = None
        for name in self.names:
            if (key == name or any(key.startswith(name + s) for s in _SEPS)) and (best is None or len(name) > len(best)):
                best = name
        return best


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}


def _python_dist_names(root: Path) -> list[str]:
    names = []
    py = _read_toml(root / "pyproject.toml")
    for n in (py.get("project", {}).get("name"), py.get("tool", {}).get("poetry", {}).get("name")):
        if isinstance(n, str):
            names.append(n)
    cfg = root / "setup.cfg"
    if cfg.is_file():
        m = re.search(r"(?ms)^\[metadata\].*?^name\s*=\s*(\S+)", cfg.read_text(encoding="utf-8", errors="replace"))
        if m:
            names.append(m.group(1))
    return names


def _python_packages(paths: list[str]) -> set[str]:
    """Top-level import packages from the repo's Python file paths."""
    inits = {p.rsplit("/", 1)[0] for p in paths if p.endswith("/__init__.py")}
    out: set[str] = set()
    for d in inits:
        parts = d.split("/")
        # the highest folder of the chain of packages
        top = d
        while "/" in top and top.rsplit("/", 1)[0] in inits:
            top = top.rsplit("/", 1)[0]
        parts = top.split("/")
        base = parts[-1]
        parent = parts[:-1]
        if parent not in ([], ["src"], ["lib"], ["python"]):
            continue
        if base.lower() in _NOT_PACKAGES or not base.isidentifier():
            continue
        out.add(base)
    return out


def _npm(root: Path, files: set[str]) -> tuple[str | None, dict[str, str]]:
    try:
        pkg = json.loads((root / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, {}
    name = pkg.get("name") if isinstance(pkg, dict) else None
    if not isinstance(name, str):
        return None, {}
    entries: dict[str, str] = {}

    def first_target(v: Any) -> str | None:
        if isinstance(v, str):
            return v
        if isinstance(v, dict):
            for k in ("source", "import", "require", "default", "node", "types"):
                if k in v:
                    got = first_target(v[k])
                    if got:
                        return got
            for sub in v.values():
                got = first_target(sub)
                if got:
                    return got
        if isinstance(v, list):
            for sub in v:
                got = first_target(sub)
                if got:
                    return got
        return None

    exports = pkg.get("exports")
    if isinstance(exports, dict) and any(k.startswith(".") for k in exports):
        for k, v in exports.items():
            t = first_target(v)
            if t and "*" not in k:
                entries[k[2:] if k.startswith("./") else ""] = t
    elif exports is not None:
        t = first_target(exports)
        if t:
            entries[""] = t
    for k in ("source", "module", "main"):
        if "" not in entries and isinstance(pkg.get(k), str):
            entries[""] = pkg[k]
    if "" not in entries:
        entries[""] = "index.js"
    return name, {sub: f for sub, t in entries.items() if (f := _repo_file(t, files)) is not None}


def _repo_file(target: str, files: set[str]) -> str | None:
    """The repo file a package.json target names; built output (dist/, lib/, build/)
    maps back to src/ when only the sources are in the repository."""
    t = target[2:] if target.startswith("./") else target.lstrip("/")
    stem = re.sub(r"(\.d)?\.(m|c)?[jt]sx?$", "", t)
    stems = [stem]
    for out in ("dist/", "lib/", "build/", "esm/", "cjs/"):
        if stem.startswith(out):
            stems.append("src/" + stem[len(out):])
    for s in stems:
        for cand in [s + e for e in _JS_EXT] + [s + "/index" + e for e in _JS_EXT]:
            if cand in files:
                return cand
    return t if t in files else None


def read_provides(graph: GraphStore, repo: str, root: Path | None) -> Provides:
    """Everything ``repo`` provides (module doc). ``root`` is the repository folder
    (the Repo node's ``path``); metadata files are skipped when it is not readable.
    Costs one paginated read of the repo's File nodes, and of its type symbols only
    when it has Java, Kotlin or C# files."""
    out = Provides(repo)
    paths, langs = [], set()
    offset = 0
    while True:
        page = graph.nodes_by_label(FILE, repo, limit=5000, offset=offset)
        for n in page:
            paths.append(n.props.get("path", ""))
            langs.add(n.props.get("language", ""))
        if len(page) < 5000:
            break
        offset += 5000
    files = set(paths)
    readable = root is not None and root.is_dir()
    if "python" in langs:
        for p in _python_packages([p for p in paths if p.endswith(".py")]):
            out.names[p] = "python"
        if readable:
            for d in _python_dist_names(root):  # type: ignore[arg-type]
                out.identity.append(f"pypi:{d}")
                mod = d.replace("-", "_").lower()
                if f"{mod}.py" in files or f"src/{mod}.py" in files:
                    out.names[mod] = "python"
    if readable:
        assert root is not None
        name, entries = _npm(root, files)
        if name:
            out.names[name] = "npm"
            out.npm_entries[name] = entries
            out.identity.append(f"npm:{name}")
        gomod = root / "go.mod"
        if gomod.is_file():
            m = re.search(r"(?m)^module\s+(\S+)", gomod.read_text(encoding="utf-8", errors="replace"))
            if m:
                out.names[m.group(1)] = "go"
                out.identity.append(f"go:{m.group(1)}")
        cargo = _read_toml(root / "Cargo.toml")
        for n in (cargo.get("package", {}).get("name"), cargo.get("lib", {}).get("name")):
            if isinstance(n, str):
                out.names[n.replace("-", "_")] = "rust"
                out.identity.append(f"crate:{n}")
        pom = root / "pom.xml"
        if pom.is_file():
            text = re.sub(r"(?s)<parent>.*?</parent>", "", pom.read_text(encoding="utf-8", errors="replace"))
            g, a = re.search(r"<groupId>([^<]+)</groupId>", text), re.search(r"<artifactId>([^<]+)</artifactId>", text)
            if a:
                out.identity.append(f"maven:{g.group(1).strip() if g else '?'}:{a.group(1).strip()}")
    if langs & {"java", "kotlin", "csharp"}:
        offset = 0
        while True:
            page = graph.nodes_by_label(SYMBOL, repo, limit=5000, offset=offset)
            for n in page:
                p = n.props
                if p.get("language") in ("java", "kotlin", "csharp") and p.get("kind") in _TYPE_KINDS:
                    qn = p.get("qualified_name", "")
                    # top-level types only: a nested type's parent is the enclosing type
                    if "." in qn and p.get("parent") != qn.rsplit(".", 1)[0]:
                        pkg = qn.rsplit(".", 1)[0]
                        out.names.setdefault(pkg, "csharp" if p.get("language") == "csharp" else "java")
            if len(page) < 5000:
                break
            offset += 5000
    return out


__all__ = ["Provides", "read_provides"]

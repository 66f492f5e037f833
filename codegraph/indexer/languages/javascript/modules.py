"""Repo-wide module resolution for JavaScript/TypeScript: what a bare specifier means
inside this repository.

The JS extractor sees one file, so it marks ``import x from '@acme/api'`` as
``extra["external"]`` and ``'@/lib/api'`` as ``extra["alias"]``. This pass reads

- ``tsconfig.json`` / ``jsconfig.json`` (JSON with comments): ``baseUrl`` and ``paths``,
  following ``extends`` (relative files, and packages found under the repo), with the
  nearest config above a file governing it;
- SvelteKit's default ``$lib`` alias (``<app>/src/lib`` next to a ``svelte.config.*``);
- every in-repo ``package.json`` with a ``name`` (workspaces, whatever the tool):
  ``exports`` (strings, subpath maps, ``*`` patterns, nested conditions), ``source`` /
  ``module`` / ``main`` / ``types``, and a ``dist/ -> src/`` fallback for build outputs
  that are not in the repository;

and rewrites those IMPORTS references, their re-exports, and the call references that go
through them into path candidates when the specifier maps to files of the repository.
Specifiers that map nowhere stay external. The original hints are kept under
``extra["js_spec"]`` so running the pass again (with changed configs) starts from them.
A repository none of whose imports is bare or an alias (Django's vendored admin scripts)
has nothing to map: its tree is not walked for configs.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegraph.indexer.languages.javascript.paths import specifier_paths
from codegraph.indexer.records import FileExtraction

JS_LANGUAGES = frozenset(("javascript", "typescript", "tsx"))
_SKIP_DIRS = frozenset(("node_modules", ".git", "dist", "build", ".next", "out", "coverage", ".turbo", ".cache",
                        "vendor", ".svelte-kit", ".nuxt", ".output"))
_CONDITIONS = ("source", "development", "import", "module", "es2015", "default", "require", "node", "browser",
               "types", "typings")
_BUILD_DIRS = ("dist/", "build/", "lib/", "out/", "esm/", "cjs/", "es/")


def strip_jsonc(text: str) -> str:
    """JSON with comments and trailing commas -> JSON."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


def _load_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(strip_jsonc(path.read_text(encoding="utf-8-sig", errors="replace")))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _walk(root: Path, names: set[str]) -> list[Path]:
    """Files named ``names`` under ``root``, skipping dependency and build folders (and
    symlinks). One ``scandir`` per folder: its entries say file / folder / link without a
    stat each (Django's tree has ~2,400 folders, most of them locale data)."""
    out: list[Path] = []
    stack = [str(root)]
    while stack:
        d = stack.pop()
        try:
            with os.scandir(d) as it:
                entries = list(it)
        except OSError:
            continue
        for e in entries:
            try:  # as pathlib's is_symlink / is_dir: an entry that cannot be read is neither
                if e.is_symlink():
                    continue
                is_dir = e.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                if e.name not in _SKIP_DIRS and not e.name.startswith("."):
                    stack.append(e.path)
            elif e.name in names:
                out.append(Path(e.path))
    return out


@dataclass(slots=True)
class TsConfig:
    """Effective module options of one config: ``base_url`` and path targets are
    repo-relative folders; ``paths`` keeps the author's order."""

    dir: str
    base_url: str | None = None
    paths: list[tuple[str, list[str]]] = field(default_factory=list)


def _rel(root: Path, p: Path) -> str:
    r = p.resolve().relative_to(root).as_posix() if p.resolve().is_relative_to(root) else ""
    return "" if r == "." else r


def load_tsconfig(root: Path, file: Path, depth: int = 0) -> TsConfig | None:
    """The effective baseUrl/paths of ``file`` after its ``extends`` chain."""
    data = _load_json(file)
    if data is None or depth > 8:
        return None
    here = _rel(root, file.parent)
    cfg = TsConfig(here)
    ext = data.get("extends")
    for e in ([ext] if isinstance(ext, str) else ext if isinstance(ext, list) else []):
        if not isinstance(e, str):
            continue
        target = file.parent / e if e.startswith(".") else root / "node_modules" / e
        if target.suffix != ".json":
            target = target.with_name(target.name + ".json") if not target.is_dir() else target / "tsconfig.json"
        if not target.is_file() or not target.resolve().is_relative_to(root):
            continue
        parent = load_tsconfig(root, target, depth + 1)
        if parent is not None:
            cfg.base_url = parent.base_url or cfg.base_url
            cfg.paths = parent.paths or cfg.paths
    opts = data.get("compilerOptions") or {}
    if isinstance(opts, dict):
        if isinstance(opts.get("baseUrl"), str):
            cfg.base_url = _join(here, opts["baseUrl"])
        if isinstance(opts.get("paths"), dict):
            anchor = cfg.base_url if cfg.base_url is not None else here
            cfg.paths = [(k, [_join(anchor, t) for t in v if isinstance(t, str)])
                         for k, v in opts["paths"].items() if isinstance(v, list)]
    return cfg


def _join(base: str, rel: str) -> str:
    p = posixpath.normpath(posixpath.join(base, rel)) if base else posixpath.normpath(rel)
    return "" if p == "." else p


@dataclass(slots=True)
class Package:
    name: str
    dir: str
    data: dict[str, Any]


class ModuleMap:
    """Configs and packages of one repository, and the specifier resolution over them."""

    def __init__(self, root: Path, files: set[str]) -> None:
        self.root = root.resolve()
        self.files = files
        self.configs: dict[str, TsConfig] = {}
        self.packages: dict[str, Package] = {}
        self.svelte_libs: list[tuple[str, str]] = []  # SvelteKit (app dir, lib): `$lib` is <app>/src/lib
        for f in _walk(self.root, {"tsconfig.json", "jsconfig.json", "package.json", "svelte.config.js",
                                   "svelte.config.ts"}):
            if f.name.startswith("svelte.config"):
                app = _rel(self.root, f.parent)
                self.svelte_libs.append((app, _join(app, "src/lib")))
            elif f.name == "package.json":
                data = _load_json(f)
                if data and isinstance(data.get("name"), str):
                    self.packages.setdefault(data["name"], Package(data["name"], _rel(self.root, f.parent), data))
            else:
                d = _rel(self.root, f.parent)
                if d in self.configs and f.name == "jsconfig.json":
                    continue
                cfg = load_tsconfig(self.root, f)
                if cfg is not None:
                    self.configs[d] = cfg
        self._memo: dict[tuple[str, str], list[str]] = {}

    def config_for(self, path: str) -> TsConfig | None:
        d = posixpath.dirname(path)
        while True:
            if d in self.configs:
                return self.configs[d]
            if not d:
                return None
            d = posixpath.dirname(d)

    def _complete(self, importer: str, target: str) -> list[str]:
        """Repo paths for a repo-relative module path, completed like a relative specifier."""
        fake = "x" + posixpath.splitext(importer)[1]  # keeps .ts/.js preference of the importer
        cands = specifier_paths(fake, "./" + target if target else ".") or []
        return [c for c in cands if c in self.files]

    def resolve(self, importer: str, spec: str) -> list[str]:
        """Existing repo paths a bare/alias specifier maps to (most likely first), or []."""
        cfg = self.config_for(importer)
        key = (cfg.dir if cfg else "", spec) if not spec.startswith("#") else (importer, spec)
        if key in self._memo:
            return self._memo[key]
        found: list[str] = []
        if cfg is not None:
            found = self._by_paths(importer, cfg, spec)
            if not found and cfg.base_url is not None:
                found = self._complete(importer, _join(cfg.base_url, spec))
        if not found:
            found = self._by_package(importer, spec)
        if not found and (spec == "$lib" or spec.startswith("$lib/")):
            libs = [(a, lib) for a, lib in self.svelte_libs if not a or importer.startswith(a + "/")]
            if libs:
                found = self._complete(importer, max(libs)[1] + spec[len("$lib"):])
        self._memo[key] = found
        return found

    def _by_paths(self, importer: str, cfg: TsConfig, spec: str) -> list[str]:
        best: tuple[int, list[str]] | None = None
        for pattern, targets in cfg.paths:
            if "*" in pattern:
                pre, _, post = pattern.partition("*")
                if spec.startswith(pre) and spec.endswith(post) and len(spec) >= len(pre) + len(post):
                    star = spec[len(pre):len(spec) - len(post)]
                    if best is None or len(pre) > best[0]:
                        best = (len(pre), [t.replace("*", star) for t in targets])
            elif pattern == spec and (best is None or len(pattern) > best[0]):
                best = (len(pattern) + 1, targets)
        if best is None:
            return []
        out: list[str] = []
        for t in best[1]:
            out.extend(p for p in self._complete(importer, t) if p not in out)
        return out

    def _by_package(self, importer: str, spec: str) -> list[str]:
        if spec.startswith("#"):
            pkg = self._owning_package(importer)
            return self._exports(importer, pkg, spec, field_name="imports") if pkg else []
        name = spec
        while name not in self.packages:
            if "/" not in name:
                return []
            name = name.rsplit("/", 1)[0]
        pkg = self.packages[name]
        sub = "." + spec[len(name):]
        return self._exports(importer, pkg, sub)

    def _owning_package(self, importer: str) -> Package | None:
        best: Package | None = None
        for p in self.packages.values():
            if (not p.dir or importer.startswith(p.dir + "/")) and (best is None or len(p.dir) > len(best.dir)):
                best = p
        return best

    def _exports(self, importer: str, pkg: Package, sub: str, field_name: str = "exports") -> list[str]:
        exp = pkg.data.get(field_name)
        targets: list[str] = []
        if exp is not None:
            if isinstance(exp, str | list) or (isinstance(exp, dict) and not any(str(k).startswith((".", "#"))
                                                                                 for k in exp)):
                exp = {".": exp}
            if isinstance(exp, dict):
                if sub in exp:
                    targets = _leaves(exp[sub])
                else:
                    for k, v in sorted(exp.items(), key=lambda kv: -len(str(kv[0]))):
                        k = str(k)
                        if "*" in k:
                            pre, _, post = k.partition("*")
                            if sub.startswith(pre) and sub.endswith(post):
                                star = sub[len(pre):len(sub) - len(post)]
                                targets = [t.replace("*", star) for t in _leaves(v)]
                                break
        elif sub == ".":
            targets = [pkg.data[f] for f in ("source", "module", "main", "types", "typings")
                       if isinstance(pkg.data.get(f), str)] + ["index", "src/index"]
        else:
            targets = [sub[2:], "src/" + sub[2:]]
        out: list[str] = []
        for t in targets:
            t = t[2:] if t.startswith("./") else t
            for cand in _source_guesses(t):
                for p in self._complete(importer, _join(pkg.dir, cand)):
                    if p not in out:
                        out.append(p)
            if out:
                break
        return out


def _leaves(v: Any) -> list[str]:
    """Targets of an exports value, in condition preference order."""
    if isinstance(v, str):
        return [v]
    if isinstance(v, list):
        return [x for item in v for x in _leaves(item)]
    if isinstance(v, dict):
        keys = [k for k in _CONDITIONS if k in v] + [k for k in v if k not in _CONDITIONS]
        return [x for k in keys for x in _leaves(v[k])]
    return []


def _source_guesses(target: str) -> list[str]:
    """A package target as written, then its source for a build output
    (``dist/index.js`` -> ``src/index``; ``lib/x.d.ts`` -> ``src/x``)."""
    out = [target]
    stem = re.sub(r"(\.d)?\.(m|c)?[jt]sx?$", "", target)
    if stem != target:
        out.append(stem)
    for b in _BUILD_DIRS:
        if stem.startswith(b):
            out.append("src/" + stem[len(b):])
            out.append(stem[len(b):])
    return out


def _restore(extra: dict[str, Any]) -> None:
    """Undo an earlier run of this pass (idempotence across cached extractions)."""
    orig = extra.pop("js_spec", None)
    if orig is None:
        return
    for k in ("candidates", "external", "alias", "name"):
        extra.pop(k, None)
    extra.update(orig)


def _rewrite_calls(fx: FileExtraction, mapped: dict[str, list[str]]) -> None:
    specs = sorted(mapped, key=len, reverse=True)
    for ref in fx.references:
        if ref.type == "IMPORTS":
            continue
        ex = ref.extra
        if "external" in ex:
            ident = ref.target_identifier
            spec = next((s for s in specs if ident == s or ident.startswith(s + ".")), None)
            if spec is None:
                continue
            paths = mapped[spec]
            rest = ident[len(spec) + 1:].split(".") if ident != spec else []
            if not rest:
                cands = [{"file": paths, "export": "default", "how": "import"}]
            elif len(rest) == 1:
                cands = [{"file": paths, "export": rest[0], "how": "import"},
                         {"owner_export": {"file": paths, "export": "default"}, "member": rest[0], "how": "import"}]
            else:
                cands = [{"owner_export": {"file": paths, "export": rest[0]}, "member": rest[-1], "how": "import"}]
            ex["js_spec"] = {k: ex[k] for k in ("candidates", "external", "name") if k in ex}
            ex.pop("external", None)
            ex["candidates"] = cands
        elif "alias" in ex and ex["alias"] in mapped:
            paths = mapped[ex["alias"]]
            written = ref.target_identifier
            name = ex.get("name")
            head, _, member = written.partition(".")
            if not member:
                cands = ([{"file": paths, "export": name, "how": "import"}] if name else []) + [
                    {"file": paths, "export": "default", "how": "import"}]
            else:
                last = member.rsplit(".", 1)[-1]
                cands = [{"owner_export": {"file": paths, "export": head}, "member": last, "how": "import"},
                         {"file": paths, "export": last, "how": "import"},
                         {"owner_export": {"file": paths, "export": "default"}, "member": last, "how": "import"}]
            ex["js_spec"] = {k: ex[k] for k in ("candidates", "alias", "name") if k in ex}
            ex.pop("alias", None)
            ex["candidates"] = cands


def link_js_modules(extractions: list[FileExtraction], root: Path | None) -> dict[str, int]:
    """Rewrite bare/alias specifiers that map into the repository (see module doc).
    Returns counts: ``mapped`` imports, ``unmapped`` bare imports left external."""
    counts = {"mapped": 0, "unmapped": 0}
    js = [fx for fx in extractions if fx.file.language in JS_LANGUAGES]
    if not js:
        return counts
    for fx in js:
        for ref in fx.references:
            _restore(ref.extra)
        for key in [k for k, v in fx.exports.items() if v.get("js_spec")]:
            del fx.exports[key]
        star = fx.exports.get("*")
        if star and star.get("js_spec_from_all"):
            ours = star.pop("js_spec_from_all")
            star["from_all"] = [g for g in star["from_all"] if g not in ours]
            if not star["from_all"]:
                del fx.exports["*"]
    if root is None or not any(ref.type == "IMPORTS" and ("external" in ref.extra or "alias" in ref.extra)
                               for fx in js for ref in fx.references):
        return counts  # no specifier for the module map to resolve: the tree is not walked
    if not root.is_dir():
        return counts
    mm = ModuleMap(root, {fx.file.path for fx in extractions})
    if not mm.configs and not mm.packages and not mm.svelte_libs:
        return counts
    for fx in js:
        mapped: dict[str, list[str]] = {}
        for ref in fx.references:
            ex = ref.extra
            if ref.type != "IMPORTS" or not ("external" in ex or "alias" in ex):
                continue
            spec = ref.target_identifier
            paths = mm.resolve(fx.file.path, spec)
            if not paths:
                counts["unmapped"] += 1
                continue
            counts["mapped"] += 1
            mapped[spec] = paths
            ex["js_spec"] = {k: ex[k] for k in ("candidates", "external", "alias") if k in ex}
            ex.pop("external", None)
            ex.pop("alias", None)
            ex["candidates"] = [{"path": p, "how": "import"} for p in paths]
            if ex.get("forwarding"):
                for n in ex.get("names") or []:
                    if n == "*":
                        star = fx.exports.setdefault("*", {"from_all": []})
                        star["from_all"].append(paths)
                        star.setdefault("js_spec_from_all", []).append(paths)
                    elif n not in fx.exports:
                        fx.exports[n] = {"from": paths, "name": n, "js_spec": True}
        if mapped:
            _rewrite_calls(fx, mapped)
    return counts


__all__ = ["ModuleMap", "link_js_modules", "load_tsconfig", "strip_jsonc"]

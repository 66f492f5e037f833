"""File names and specifiers of one JavaScript/TypeScript file (no repository view):
module names, test paths, package names of bare specifiers, and the candidate repo paths of
a relative specifier (Node + TypeScript completion rules). Repo-wide mapping of bare
specifiers (tsconfig paths, workspace packages) is ``modules.py``."""

from __future__ import annotations

import posixpath
import re

CODE_EXTS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
# Order in which an extension-less relative specifier is completed (Node + TypeScript).
_COMPLETIONS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".d.ts")
_INDEX_COMPLETIONS = ("/index.ts", "/index.tsx", "/index.js", "/index.jsx")
# A compiled-extension specifier names a TypeScript source in ESM TypeScript projects.
_TS_SOURCE_FOR = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
# ... and, from a declaration file, the declaration of that module (`./types.ts` -> types.d.ts).
_DECLARATION_FOR = {".js": ".d.ts", ".ts": ".d.ts", ".mjs": ".d.mts", ".mts": ".d.mts", ".cjs": ".d.cts", ".cts": ".d.cts"}
# Imports of styles, images, fonts and media are bundler assets, not code dependencies.
_ASSET_EXTS = frozenset((
    ".css", ".scss", ".sass", ".less", ".styl", ".pcss", ".svg", ".png", ".jpg", ".jpeg",
    ".gif", ".webp", ".avif", ".ico", ".bmp", ".woff", ".woff2", ".ttf", ".otf", ".eot",
    ".mp3", ".mp4", ".webm", ".wav", ".ogg",
))
# Other non-code files that may still be imported and indexed some day (exact path only).
_DATA_EXTS = frozenset((".json", ".vue", ".svelte", ".graphql", ".gql", ".html", ".md", ".mdx", ".wasm", ".txt", ".yaml", ".yml"))
_TEST_RE = re.compile(r"(^|/)__tests__/|\.(test|spec)\.[^/]*$")


def module_name(path: str) -> str:
    """``web/lib/api.ts`` -> ``web/lib/api``; ``x.d.ts`` -> ``x.d``; unknown suffix kept."""
    root, ext = posixpath.splitext(path)
    return root if ext.lower() in CODE_EXTS else path


def is_test_path(path: str) -> bool:
    return bool(_TEST_RE.search(path))


def package_name(spec: str) -> str:
    """``@scope/pkg/sub`` -> ``@scope/pkg``; ``lodash/fp`` -> ``lodash``; ``node:fs`` kept."""
    parts = spec.split("/")
    if spec.startswith("@") and len(parts) > 1:
        return "/".join(parts[:2])
    return parts[0]


def is_path_alias(spec: str) -> bool:
    """tsconfig / bundler aliases (``@/lib/x``, ``~/x``, ``#internal``) are not packages,
    but the extractor cannot see the mapping (it sees one file)."""
    return spec.startswith(("@/", "~/", "#")) or spec == "~"


def specifier_paths(importer: str, spec: str) -> list[str] | None:
    """Candidate repo paths for a relative specifier, most likely first; None for a bare
    (package or alias) specifier; [] when it climbs out of the repository; for an asset
    (``.css``, ``.svg``...) a one-element list of the asset path."""
    if not (spec.startswith("./") or spec.startswith("../") or spec in (".", "..")):
        return None
    dir_only = spec.endswith("/") or spec in (".", "..")
    base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
    if base == ".":
        base = ""
    if base.startswith(".."):
        return []
    index = [(base + s) if base else s.lstrip("/") for s in _INDEX_COMPLETIONS]
    if dir_only:
        return index
    ext = posixpath.splitext(base)[1].lower()
    if ext in CODE_EXTS:
        stem = base[: -len(ext)]
        alts = [stem + e for e in _TS_SOURCE_FOR.get(ext, ())]
        decl = [stem + _DECLARATION_FOR[ext]] if ext in _DECLARATION_FOR and not stem.endswith(".d") else []
        # A TypeScript importer that writes `./a.js` means the `a.ts` source next to it.
        if importer.endswith((".ts", ".tsx", ".mts", ".cts")):
            return alts + [base] + decl
        return [base] + alts + decl
    if ext in _ASSET_EXTS or ext in _DATA_EXTS:
        return [base]
    return [base + e for e in _COMPLETIONS] + index


"""Language registry: file extension -> language, language -> extractor module.

Each extractor module ``codegraph.indexer.languages.<language>`` exposes
``extract(repo: str, path: str, source: bytes) -> FileExtraction`` (see
``codegraph.indexer.records``). Modules load lazily so a broken or slow grammar costs
nothing to repos that do not use it. Tree-sitter query patterns, where a language
uses them, live as data files in ``queries/<language>/``.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from types import ModuleType
from typing import Any


def lazy_exports(package: str, names: dict[str, str]) -> Callable[[str], Any]:
    """A package's module ``__getattr__`` (PEP 562) for ``names`` (name -> the submodule of
    ``package`` defining it): the submodule is imported on the name's first use, and the
    value kept in the package. Raises AttributeError for any other name. Why: the
    indexer's main process imports a language package for its link pass and never
    extracts, so it need not load the extractor."""
    def __getattr__(name: str) -> Any:
        mod = names.get(name)
        if mod is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{mod}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".java": "java",
    ".kt": "kotlin", ".kts": "kotlin",
    ".cs": "csharp",
    ".rs": "rust",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
    ".rb": "ruby",
    ".php": "php",
}

# language -> extractor module name (tsx shares the TypeScript/JavaScript extractor).
MODULES: dict[str, str] = {
    "python": "python",
    "javascript": "javascript",
    "typescript": "javascript",
    "tsx": "javascript",
    "go": "go",
    "java": "java",
    "kotlin": "kotlin",
    "csharp": "csharp",
    "rust": "rust",
    "c": "cpp",
    "cpp": "cpp",
    "ruby": "ruby",
    "php": "php",
}

# Languages whose code can call each other's symbols by name inside one repository (the
# JVM, the JS module graph, C headers included from C++). Name-based resolution never
# links across families: Python `order.get(...)` is not a call of a Java `get`.
FAMILIES: dict[str, str] = {"java": "jvm", "kotlin": "jvm", "javascript": "js", "typescript": "js", "tsx": "js",
                            "c": "c", "cpp": "c"}


def family(language: str) -> str:
    """The interop family of ``language`` (itself when it shares with no other)."""
    return FAMILIES.get(language, language)


_loaded: dict[str, ModuleType | None] = {}


def path_suffix(path: str) -> str:
    """``PurePosixPath(path).suffix`` of a repo-relative path ("" for none; ``.gitignore``
    and ``name.`` have none), from the string: discovery asks it of every file of the tree
    (a PurePosixPath costs ~20 us, this ~0.3). Paths that end in ``/`` or ``.`` (not what
    discovery lists, but pathlib normalises them) go through pathlib."""
    if not path or path[-1] in "/.":
        return PurePosixPath(path).suffix
    name = path[path.rfind("/") + 1:]
    i = name.rfind(".")
    return name[i:] if i > 0 else ""


def language_for(path: str) -> str | None:
    """The language of a repo-relative path by extension, or None if unsupported."""
    return EXTENSIONS.get(path_suffix(path).lower())


def extractor_for(language: str) -> ModuleType | None:
    """The extractor module for ``language``, or None when none is available yet."""
    name = MODULES.get(language)
    if name is None:
        return None
    if name not in _loaded:
        try:
            _loaded[name] = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
            _loaded[name] = None
    return _loaded[name]


def link_repo(extractions: list, root: Path | None = None) -> None:
    """Repo-wide passes some languages need before resolution (an extractor sees one
    file): e.g. Go maps import paths to in-repo packages via go.mod and adds implicit
    interface IMPLEMENTS; JavaScript/TypeScript maps tsconfig paths and workspace
    packages to files (``javascript.modules``). Mutates ``extractions`` in place; safe to run twice."""
    languages = {fx.file.language for fx in extractions}
    if "python" in languages:
        from codegraph.indexer.languages.python.roots import link_python_roots

        link_python_roots(extractions)
    if languages & {"javascript", "typescript", "tsx"}:
        from codegraph.indexer.languages.javascript.modules import link_js_modules

        link_js_modules(extractions, root)
    if languages & {"java", "kotlin"}:
        from codegraph.indexer.languages.jvm_inject import link_injection

        link_injection(extractions)
    if "go" in languages:
        go = extractor_for("go")
        if go is not None and hasattr(go, "link_repo"):
            go_mods: dict[str, str] = {}
            if root is not None:
                for mod in root.rglob("go.mod"):
                    rel = mod.parent.relative_to(root).as_posix()
                    if any(part in ("vendor", "node_modules", "testdata") for part in mod.parts):
                        continue
                    path = go.parse_go_mod(mod.read_bytes())
                    if path:
                        go_mods["" if rel == "." else rel] = path
            go.link_repo(extractions, go_mods or None)


def supported_languages() -> list[str]:
    return sorted(lang for lang in MODULES if extractor_for(lang) is not None)

"""Python package roots below the repository root (a repo-wide link pass).

Module names come from paths (``backend/open_webui/models.py`` ->
``backend.open_webui.models``), but code in such a tree imports ``open_webui.models``:
its package root is ``backend/``, put on ``sys.path`` by the app's launcher. A top-level
package is a folder with ``__init__.py`` whose parent has none; for every reference
candidate that names such a package by its bare name, this pass adds the variant under
each root where the package lives. The bare-name candidate stays first, so a package at
the repo root (or under ``src/``, which module naming already strips) still wins.
"""

from __future__ import annotations

import json
from typing import Any

from codegraph.indexer.records import FileExtraction

MAX_ROOTS_PER_PACKAGE = 4


def package_roots(paths: set[str]) -> dict[str, list[str]]:
    """Top-level package name -> parent folders (repo-relative, not "" or "src")."""
    inits = {p.rsplit("/", 1)[0] for p in paths if p.endswith(("/__init__.py", "/__init__.pyi"))}
    roots: dict[str, list[str]] = {}
    for d in sorted(inits):
        parent, _, name = d.rpartition("/")
        if parent in inits or parent in ("", "src"):
            continue
        lst = roots.setdefault(name, [])
        if len(lst) < MAX_ROOTS_PER_PACKAGE:
            lst.append(parent)
    return roots


def _variants_qn(qn: str, roots: dict[str, list[str]]) -> list[str]:
    head = qn.split(".", 1)[0]
    return [f"{parent.replace('/', '.')}.{qn}" for parent in roots.get(head, ())]


def _head(path: str) -> str:
    """Top-level module a repo-relative path belongs to: ``a/b.py`` and ``a.py`` -> ``a``."""
    head = path.split("/", 1)[0]
    return head.rsplit(".", 1)[0] if head.endswith((".py", ".pyi")) else head


def _variants_path(path: str, roots: dict[str, list[str]]) -> list[str]:
    head = _head(path)
    return [f"{parent}/{path}" for parent in roots.get(head, ())]


def _paths(paths: list[str], roots: dict[str, list[str]]) -> list[str]:
    out = list(paths)
    for p in paths:
        out.extend(v for v in _variants_path(p, roots) if v not in out)
    return out


def _expand(cand: dict[str, Any], roots: dict[str, list[str]]) -> list[dict[str, Any]]:
    extra: list[dict[str, Any]] = []
    if "qn" in cand:
        extra += [{**cand, "qn": v} for v in _variants_qn(cand["qn"], roots)]
    if "owner" in cand:
        extra += [{**cand, "owner": v} for v in _variants_qn(cand["owner"], roots)]
    if "path" in cand:
        extra += [{**cand, "path": v} for v in _variants_path(cand["path"], roots)]
    if "file" in cand:
        files = _paths(list(cand["file"]), roots)
        if files != list(cand["file"]):
            extra.append({**cand, "file": files})
    if "module_chain" in cand:
        mc = cand["module_chain"]
        files = _paths(list(mc["file"]), roots)
        if files != list(mc["file"]):
            extra.append({**cand, "module_chain": {**mc, "file": files}})
    if "owner_export" in cand:
        oe = cand["owner_export"]
        files = _paths(list(oe.get("file", [])), roots)
        if files != list(oe.get("file", [])):
            extra.append({**cand, "owner_export": {**oe, "file": files}})
    if "module_of_call" in cand:  # the helper's files and each literal module's (python.dynimport)
        mc = cand["module_of_call"]
        args = [{**a, **{k: _paths(list(a[k]), roots) for k in ("file", "top") if k in a}} for a in mc.get("args", [])]
        files = _paths(list(mc.get("file", [])), roots)
        if files != list(mc.get("file", [])) or args != mc.get("args", []):
            extra.append({**cand, "module_of_call": {**mc, "file": files, "args": args}})
    return extra


def _mentions_root(cand: dict[str, Any], heads: set[str]) -> bool:
    """Cheap pre-check: does the candidate name a top-level package that has a root?"""
    for key in ("qn", "owner"):
        if key in cand and cand[key].split(".", 1)[0] in heads:
            return True
    if "path" in cand and _head(cand["path"]) in heads:
        return True
    mc = cand.get("module_of_call", {})
    files = (list(cand.get("file", ())) + list(cand.get("owner_export", {}).get("file", ()))
             + list(cand.get("module_chain", {}).get("file", ())) + list(mc.get("file", ()))
             + [f for a in mc.get("args", ()) for k in ("file", "top") for f in a.get(k, ())])
    return any(_head(f) in heads for f in files)


def script_roots(paths: set[str]) -> dict[str, dict[str, list[str]]]:
    """Folder that is not a package -> {module name: [folder]} of the plain modules and
    packages directly in it. A script run from such a folder (``backend/app.py``) has it
    on ``sys.path``, so ``import auth_utils`` there means ``backend/auth_utils.py``."""
    inits = {p.rsplit("/", 1)[0] for p in paths if p.endswith(("/__init__.py", "/__init__.pyi"))}
    out: dict[str, dict[str, list[str]]] = {}
    for p in paths:
        d, _, base = p.rpartition("/")
        if not d or d == "src":
            continue
        if base in ("__init__.py", "__init__.pyi"):
            d, _, base = d.rpartition("/")
            if not d or d == "src" or d in inits:
                continue
        elif d in inits or not base.endswith((".py", ".pyi")):
            continue
        else:
            base = base.rsplit(".", 1)[0]
        out.setdefault(d, {})[base] = [d]
    return out


def link_python_roots(extractions: list[FileExtraction]) -> None:
    """Add package-root and script-folder variants to the Python references and
    re-exports in place (idempotent: a variant already present is not added again)."""
    py = [fx for fx in extractions if fx.file.language == "python"]
    paths = {fx.file.path for fx in py}
    roots = package_roots(paths)
    scripts = script_roots(paths)
    for fx in py:
        here = scripts.get(fx.file.path.rpartition("/")[0])
        if here:
            _link_file(fx, {**here, **roots} if roots else here)
        elif roots:
            _link_file(fx, roots)


def _link_file(fx: FileExtraction, roots: dict[str, list[str]]) -> None:
    heads = set(roots)
    for ref in fx.references:
        cands = ref.extra.get("candidates")
        if not cands or not any(_mentions_root(c, heads) for c in cands):
            continue
        seen = {json.dumps(c, sort_keys=True) for c in cands}
        out = list(cands)
        for c in cands:
            for v in _expand(c, roots):
                key = json.dumps(v, sort_keys=True)
                if key not in seen:
                    seen.add(key)
                    out.append(v)
        if len(out) != len(cands):
            ref.extra["candidates"] = out
    for target in fx.exports.values():
        if "from" in target and any(_head(p) in heads for p in target["from"]):
            target["from"] = _paths(list(target["from"]), roots)
        if "from_all" in target:
            target["from_all"] = [_paths(list(g), roots) if any(_head(p) in heads for p in g) else g
                                  for g in target["from_all"]]
        if "modules" in target:
            target["modules"] = [_paths(list(g), roots) if any(_head(p) in heads for p in g) else g
                                 for g in target["modules"]]

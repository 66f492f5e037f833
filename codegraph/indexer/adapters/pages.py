"""Page routes from file-system routers, and an explicit mapping from the config file.

``assign_routes(paths, explicit)`` gives ``path -> (route, app)`` for the repository's
files (it needs every path: a colocated component belongs to the nearest folder that
holds a page). Conventions:

- Next.js app router: ``[src/]app/**/page.{tsx,jsx,ts,js,mdx}``; route groups ``(x)`` and
  parallel slots ``@x`` vanish, ``[id]`` -> ``:id``, ``[...slug]`` -> ``*slug``; ``_private``
  folders are not routes. ``layout``/``template``/``loading``/``error``/``not-found`` files
  and colocated components (other code files next to a ``page``, or inside private
  ``_x`` folders under it) belong to that page's route; shared folders such as
  ``app/components`` without a page of their own get no route.
- Next.js pages router: ``[src/]pages/**`` except ``_app``/``_document``/``_error`` and
  ``pages/api`` (those are endpoints); ``index`` -> the folder's route.
- SvelteKit: ``src/routes/**/+page.{ts,js}``, ``+page.server.*``, ``+layout*`` (``.svelte``
  files are not indexed, their ``+page.ts`` siblings are).
- Nuxt: ``pages/**`` code files (``.vue`` pages are not indexed).
- Remix: ``app/routes/*`` flat routes (``orders.$id.tsx`` -> ``/orders/:id``, ``_index``,
  pathless ``_layout`` segments, ``orders_`` escapes, folders with ``route.tsx``), when
  ``app/root.{tsx,jsx,ts,js}`` exists.
- Explicit: ``pages = { "web/src/screens/Orders.tsx" = "/orders" }`` in codegraph.toml
  for apps without route folders; it wins over the conventions.

``app`` is the folder that holds the router (``apps/web`` for ``apps/web/src/app/...``),
or the first path segment for explicit entries, ``.`` at the repository root.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from codegraph.indexer.adapters._routes import normalize_template

_CODE = re.compile(r"\.(tsx|jsx|ts|js|mdx|mjs|cjs|mts|cts)$")
_NEXT_SEGMENT_FILES = {"layout", "template", "loading", "error", "not-found", "default", "global-error"}
_PAGES_SKIP = {"_app", "_document", "_error", "_middleware", "middleware"}


def _stem(name: str) -> str:
    return _CODE.sub("", name)


def _app_of(prefix: list[str]) -> str:
    segs = prefix[:-1] if prefix and prefix[-1] == "src" else prefix
    return "/".join(segs) or "."


def _segments(folders: list[str]) -> list[str] | None:
    """Route folders -> URL segments; None when a private ``_x`` folder opts out."""
    out = []
    for s in folders:
        if s.startswith("_"):
            return None
        if (s.startswith("(") and s.endswith(")")) or s.startswith("@"):
            continue
        s = re.sub(r"^(\(\.{1,3}\))+", "", s)  # intercepting routes: (.)photo shows /photo
        out.append(s)
    return out


def _route(segs: list[str]) -> str:
    return normalize_template("/" + "/".join(segs))


def _remix_route(name: str) -> str:
    """``orders.$id`` -> ``/orders/:id``; ``_index`` -> ``/``; ``_auth.login`` -> ``/login``."""
    name = name.replace("[.]", "\x00")
    segs = []
    for seg in name.split("."):
        seg = seg.replace("\x00", ".")
        if seg in ("_index", "index", "route"):
            continue
        if seg.startswith("_"):
            continue  # pathless layout
        if seg.endswith("_"):
            seg = seg[:-1]
        if seg.startswith("(") and seg.endswith(")"):
            seg = seg[1:-1]  # optional segment: the route without it is the same page
        if seg == "$":
            seg = "*splat"
        segs.append(seg)
    return _route(segs)


def assign_routes(paths: Iterable[str], explicit: dict[str, str] | None = None) -> dict[str, tuple[str, str]]:
    """``path -> (route, app)`` for every file that belongs to a page (see module doc)."""
    all_paths = sorted(set(paths))
    out: dict[str, tuple[str, str]] = {}
    # Remix: every `<x>/app` folder that holds root.tsx is an app whose routes/ folder routes.
    remix_apps = {posixpath.dirname(p) for p in all_paths if re.search(r"(^|/)app/root\.(tsx|jsx|ts|js)$", p)}
    page_dirs: dict[str, tuple[str, str]] = {}  # next app-router folder with a page -> (route, app)
    for p in all_paths:
        parts = p.split("/")
        name, folders = parts[-1], parts[:-1]
        if not _CODE.search(name):
            continue
        stem = _stem(name)
        # Remix flat routes
        app_dir = next((a for a in remix_apps if p.startswith(a + "/routes/")), None)
        if app_dir is not None:
            rest = p[len(app_dir) + len("/routes/"):].split("/")
            app = _app_of(app_dir.split("/")[:-1])
            if len(rest) == 1:
                out[p] = (_remix_route(stem), app)
            elif len(rest) == 2 and stem in ("route", "index", "page"):
                out[p] = (_remix_route(rest[0]), app)
            continue
        # Next.js app router
        if "app" in folders and stem == "page":
            i = len(folders) - 1 - folders[::-1].index("app")
            segs = _segments(folders[i + 1:])
            if segs is not None:
                page_dirs["/".join(folders)] = (_route(segs), _app_of(folders[:i]))
                out[p] = page_dirs["/".join(folders)]
            continue
        # SvelteKit
        if "routes" in folders and stem.startswith("+") and stem.split(".")[0] in ("+page", "+layout"):
            i = len(folders) - 1 - folders[::-1].index("routes")
            if i > 0 and folders[i - 1] == "src":
                segs = _segments(folders[i + 1:]) or []
                out[p] = (_route(segs), _app_of(folders[:i]))
            continue
        # Next.js pages router / Nuxt pages
        if "pages" in folders:
            i = len(folders) - 1 - folders[::-1].index("pages")
            rest = folders[i + 1:]
            if rest[:1] == ["api"] or stem in _PAGES_SKIP or stem.startswith("_") or \
                    any(s.startswith("_") for s in rest) or stem.endswith((".test", ".spec")):
                continue
            segs = rest + ([] if stem == "index" else [stem])
            out[p] = (_route(segs), _app_of(folders[:i]))
    # Next.js app router: segment files and colocated components -> nearest page folder.
    if page_dirs:
        for p in all_paths:
            if p in out or not _CODE.search(p):
                continue
            parts = p.split("/")
            folders = parts[:-1]
            if "app" not in folders or _stem(parts[-1]) == "route":
                continue
            # A sibling of a page, or a file in a private `_x` folder under a page's folder.
            j = len(folders)
            while j > 0 and "/".join(folders[:j]) not in page_dirs and folders[j - 1].startswith("_"):
                j -= 1
            d = "/".join(folders[:j])
            if d in page_dirs:
                out[p] = page_dirs[d]
    for p, route in (explicit or {}).items():
        first = p.split("/", 1)[0] if "/" in p else "."
        out[p] = (normalize_template(route), first)
    return out

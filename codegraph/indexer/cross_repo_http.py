"""HTTP client calls matched across the repositories of a workspace (docs/DESIGN.md#workspaces):
the conservative rules of ``adapters._routes`` plus the peers' ``base_urls``."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from codegraph.core.models import Node
from codegraph.indexer.adapters._routes import ClientUrl, client_url, fits, literal_fills

_VAR = re.compile(r"^\$?\{?([A-Za-z_][A-Za-z0-9_]*)\}?$")


def _hole_name(text: str) -> str:
    """The last identifier of a hole: ``process.env.PAY_URL``, ``settings["PAY_URL"]`` -> ``PAY_URL``."""
    words = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)
    return words[-1] if words else ""


def _base_pin(call: dict[str, Any], url: ClientUrl, bases: list[str]) -> ClientUrl | None:
    """The call's URL with a known base when one of a peer's ``base_urls`` names its
    host or its leading ``${VAR}``; None when none does."""
    parts = call.get("parts") or []
    first = parts[0] if parts else None
    for b in bases:
        m = _VAR.match(b)
        if m and "://" not in b:
            if first and first[0] == "hole" and _hole_name(first[1]) == m.group(1):
                return ClientUrl(url.segments, True)
            continue
        bm = re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://([^/]+)(/.*)?$", b)
        if not bm or not url.host or url.host.lower() != bm.group(1).lower():
            continue
        base_segs = [s for s in (bm.group(2) or "").split("/") if s]
        segs = url.segments
        lits = ["".join(v for k, v in s) if all(k == "lit" for k, _ in s) else None for s in segs[:len(base_segs)]]
        if lits == base_segs:
            return ClientUrl(segs[len(base_segs):], True, host=url.host)
    return None


def match_call(call: dict[str, Any], peers: list[str], endpoints: Callable[[str], list[Node]],
               base_urls: dict[str, list[str]]) -> tuple[list[tuple[str, Node]], list[str]]:
    """The peers' endpoints one client call can reach: ((peer, endpoint) pairs after the
    static-route preference, also_fits). ``call`` is a saved unplaced call (``parts``,
    ``method``); ``endpoints(peer)`` lists a peer's Endpoint nodes; ``base_urls`` is
    WorkspaceConfig.base_urls. One pair = a match; several = ambiguous; none = unmatched."""
    url = client_url([(k, v) for k, v in call["parts"]])
    if url.dynamic:
        return [], []
    method = (call.get("method") or "").upper() or None
    pinned = {p: u for p in peers if (u := _base_pin(call, url, base_urls.get(p, []))) is not None}
    if pinned:
        scope = list(pinned.items())
    elif url.host:
        return [], []  # an absolute URL no peer claims: another system
    else:
        scope = [(p, url) for p in peers]
    cands: list[tuple[str, Node, ClientUrl]] = []
    for p, u in scope:
        for ep in endpoints(p):
            em = ep.props.get("method", "")
            if (method is None or em in (method, "ANY") or (method == "HEAD" and em == "GET")) and \
                    fits(u, ep.props.get("path_template", "")):
                cands.append((p, ep, u))
    also: list[str] = []
    if len(cands) > 1:
        static = [c for c in cands if literal_fills(c[2], c[1].props.get("path_template", "")) == 0]
        if len(static) == 1:
            also = sorted(f"{c[0]}: {c[1].display()}" for c in cands if c is not static[0])
            cands = static
    return [(p, ep) for p, ep, _ in cands], also


__all__ = ["match_call"]

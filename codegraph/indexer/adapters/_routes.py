"""Route templates and client URLs in one normal form, and the conservative matcher.

Normal form of a server route: ``/api/orders/:id`` - leading slash, no trailing slash
(except ``/``), no query; every parameter spelling (``:id``, ``{id}``, ``{id:[0-9]+}``,
``<int:id>``, ``[id]``, ``$id``) becomes ``:id``; catch-alls (``[...slug]``, ``*path``,
``{path...}``, ``<path:p>``, ``{*rest}``) become ``*slug``.

A client URL is a list of segments, each a list of ("lit"|"hole", text) pieces, plus
whether its base is known (it starts with ``/`` or ``http(s)://host``) or not (it starts
with a hole such as ``${API_BASE}`` or is relative).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PARAM_PATTERNS = (
    (re.compile(r"^\[\[\.\.\.(\w+)\]\]$"), "*"),   # next optional catch-all
    (re.compile(r"^\[\.\.\.(\w+)\]$"), "*"),       # next catch-all
    (re.compile(r"^\[(\w+)\]$"), ":"),              # next / sveltekit
    (re.compile(r"^\{\*(\w+)\}$"), "*"),            # asp.net-style catch-all
    (re.compile(r"^\{(\w+)\.\.\.\}$"), "*"),        # go 1.22 {path...}
    (re.compile(r"^\{(\w+)(?::[^}]*)?\}$"), ":"),   # spring / fastapi / chi {id} {id:regex}
    (re.compile(r"^<path:(\w+)>$"), "*"),           # flask / django path converter
    (re.compile(r"^<(?:\w+:)?(\w+)>$"), ":"),       # flask / django <int:id>
    (re.compile(r"^:(\w+)(?:\(.*\))?\??$"), ":"),   # express / gin :id, :id(\\d+), :id?
    (re.compile(r"^\*(\w+)$"), "*"),                # gin *path
    (re.compile(r"^\$(\w+)$"), ":"),                # remix $id
)
HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")


def normalize_segment(seg: str) -> str:
    for pat, kind in _PARAM_PATTERNS:
        m = pat.match(seg)
        if m:
            return kind + m.group(1)
    if seg in ("*", "**", "(.*)", "{*}"):
        return "*"
    return seg


def normalize_template(path: str) -> str:
    """Any framework's route spelling -> ``/a/:id/*rest`` (see module doc)."""
    path = path.split("?", 1)[0].split("#", 1)[0].strip()
    segs = [normalize_segment(s) for s in path.split("/") if s]
    return "/" + "/".join(segs)


def join(*parts: str) -> str:
    """Join route prefixes and paths: ``join("/api", "orders/")`` -> ``/api/orders``."""
    segs = [s for p in parts for s in p.split("/") if s]
    return "/" + "/".join(segs)


def django_regex(pattern: str) -> str:
    """A Django ``re_path``/``url`` regex as a template: ``^orders/(?P<pk>\\d+)/$`` ->
    ``orders/:pk``; unnamed groups become ``:param``."""
    p = pattern.lstrip("^").rstrip("$")
    p = re.sub(r"\(\?P<(\w+)>[^)]*\)", r":\1", p)
    p = re.sub(r"\([^)]*\)", ":param", p)
    p = p.replace("\\.", ".").replace("\\-", "-").replace("/?", "/")
    return p


# --- client URLs ----------------------------------------------------------------------------

Piece = tuple[str, str]


@dataclass(slots=True)
class ClientUrl:
    """A client URL split into path segments. ``known_base``: the path starts at the
    server's root (``/x`` or ``http://host/x``); otherwise only its literal tail can be
    matched. ``dynamic``: nothing literal at all (``fetch(url)``)."""

    segments: list[list[Piece]]
    known_base: bool
    dynamic: bool = False
    host: str = ""


_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
_QUERYISH = re.compile(r"\?|query|search|params|qs\b", re.I)


def client_url(parts: list[Piece]) -> ClientUrl:
    """Parse client URL pieces (``[("hole", "BASE"), ("lit", "/orders/"), ("hole", "id")]``)."""
    pieces = [(k, v) for k, v in parts if v or k == "hole"]
    if not any(k == "lit" and v.strip("/?&=#") for k, v in pieces):
        return ClientUrl([], False, dynamic=True)
    # Cut the query string / fragment: everything after the first literal '?' or '#'.
    cut: list[Piece] = []
    for k, v in pieces:
        if k == "lit":
            i = min((x for x in (v.find("?"), v.find("#")) if x >= 0), default=-1)
            if i >= 0:
                if v[:i]:
                    cut.append(("lit", v[:i]))
                break
        cut.append((k, v))
    pieces = cut
    # A last hole glued to a literal that builds a query string or an optional suffix
    # (`/settings${raw ? '?raw=true' : ''}`, `/register${searchParams}`) is not a path segment.
    if len(pieces) >= 2 and pieces[-1][0] == "hole" and pieces[-2][0] == "lit" and not pieces[-2][1].endswith("/") \
            and _QUERYISH.search(pieces[-1][1]):
        pieces = pieces[:-1]
    known, host = False, ""
    if pieces and pieces[0][0] == "lit":
        first = pieces[0][1]
        m = _SCHEME.match(first)
        if m:
            rest = first[m.end():]
            slash = rest.find("/")
            if slash < 0:
                host = rest
                # `http://host` followed by a hole or nothing: the path starts after it.
                pieces = pieces[1:]
                known = True
            else:
                host = rest[:slash]
                pieces = [("lit", rest[slash:])] + pieces[1:]
                known = True
        elif first.startswith("/") and not first.startswith("//"):
            known = True
        elif first.startswith("//"):
            rest = first[2:]
            slash = rest.find("/")
            host = rest if slash < 0 else rest[:slash]
            pieces = ([("lit", rest[slash:])] if slash >= 0 else []) + pieces[1:]
            known = True
    segments: list[list[Piece]] = [[]]
    for k, v in pieces:
        if k == "hole":
            segments[-1].append((k, v))
            continue
        chunks = v.split("/")
        for i, chunk in enumerate(chunks):
            if i > 0:
                segments.append([])
            if chunk:
                segments[-1].append(("lit", chunk))
    segs = [s for s in segments if s]
    if not known and segs and segs[0] and segs[0][0][0] == "hole" and len(segs[0]) == 1:
        segs = segs[1:]  # the unknown base itself
    elif not known and pieces and pieces[0][0] == "hole":
        segs = segs[1:] if segs else segs  # `${BASE}x/...`: the first segment is not ours to read
    return ClientUrl(segs, known, host=host)


def segment_text(seg: list[Piece]) -> str:
    return "".join(v if k == "lit" else "{" + v + "}" for k, v in seg)


def _seg_fits(seg: list[Piece], tmpl: str) -> bool:
    """One client segment against one template segment: literal == literal; a
    segment holding a hole matches only a parameter, never a literal segment."""
    has_hole = any(k == "hole" for k, _ in seg)
    if tmpl.startswith((":", "*")):
        return True
    if has_hole:
        return False
    return "".join(v for _, v in seg) == tmpl


def fits(url: ClientUrl, template: str) -> bool:
    """Whether the client URL can reach the route ``template`` (normal form).

    Known base: the whole path must fit, segment by segment (a catch-all ``*x``
    takes one or more trailing segments; a literal value may fill a parameter). Unknown
    base: the URL's segments must fit the template's last segments, literals meeting
    literals and holes meeting parameters, with at least one literal segment."""
    tsegs = [s for s in template.split("/") if s]
    segs = url.segments
    if url.dynamic:
        return False
    star = next((i for i, t in enumerate(tsegs) if t.startswith("*")), None)
    if url.known_base:
        if star is not None:
            if len(segs) < star + 1 and not (tsegs[star] == "*" and len(segs) == star):
                return False
            return all(_seg_fits(s, t) for s, t in zip(segs[:star], tsegs[:star], strict=False))
        return len(segs) == len(tsegs) and all(_seg_fits(s, t) for s, t in zip(segs, tsegs, strict=True))
    if not segs or not any(all(k == "lit" for k, _ in s) for s in segs):
        return False
    if star is not None:
        return False  # a catch-all with an unknown base: the tail cannot be aligned
    if len(segs) > len(tsegs):
        return False
    return _tail_fits(segs, tsegs[len(tsegs) - len(segs):])


def _tail_fits(segs: list[list[Piece]], tsegs: list[str]) -> bool:
    """Unknown base: holes may fill parameters, but a literal segment must meet the same
    literal (a lone ``/health`` tail must not land on some ``/:id``)."""
    for s, t in zip(segs, tsegs, strict=True):
        literal = all(k == "lit" for k, _ in s)
        if literal and t.startswith((":", "*")):
            return False
        if not _seg_fits(s, t):
            return False
    return True


def literal_fills(url: ClientUrl, template: str) -> int:
    """How many literal client segments a template fills with a parameter (0 = every
    literal segment meets the same literal: the static route a router prefers)."""
    tsegs = [s for s in template.split("/") if s]
    segs = url.segments if url.known_base else url.segments[-len(tsegs):] if len(url.segments) <= len(tsegs) else []
    offset = 0 if url.known_base else len(tsegs) - len(segs)
    n = 0
    for i, seg in enumerate(segs):
        t = tsegs[offset + i] if offset + i < len(tsegs) else "*"
        if t.startswith((":", "*")) and all(k == "lit" for k, _ in seg):
            n += 1
    return n

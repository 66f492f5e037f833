"""Where issues come from (docs/DESIGN.md#users): a GitHub REST API JSON export
(``load_export`` / ``parse_export``) or the live API (``fetch_issues``, token from
``github_token``). Gives ``IssueData``; linking them to code is ``codegraph.core.issues``,
which re-exports everything here."""

from __future__ import annotations

import json
import os
import re
import tomllib
import urllib.error
import urllib.request
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegraph.core.errors import BadInput, CodegraphError

API = "https://api.github.com"


@dataclass(slots=True)
class IssueComment:
    body: str
    author: str = ""
    created_at: str = ""


@dataclass(slots=True)
class IssueData:
    """One issue as imported. Times are ISO-8601 strings as GitHub gives them."""

    number: int
    title: str
    state: str = "open"
    url: str = ""
    created_at: str = ""
    updated_at: str = ""
    closed_at: str = ""
    labels: list[str] = field(default_factory=list)
    author: str = ""
    body: str = ""
    comments: list[IssueComment] = field(default_factory=list)
    comment_count: int = 0
    is_pull_request: bool = False


# ---------------------------------------------------------------------------- parsing
def _labels(raw: Any) -> list[str]:
    out = []
    for lb in raw or []:
        name = lb.get("name") if isinstance(lb, dict) else lb
        if name:
            out.append(str(name))
    return out


def _login(raw: Any) -> str:
    return str(raw.get("login", "")) if isinstance(raw, dict) else str(raw or "")


def _comment(raw: Any) -> IssueComment | None:
    if isinstance(raw, str):
        return IssueComment(raw)
    if isinstance(raw, dict) and isinstance(raw.get("body"), str | type(None)):
        return IssueComment(raw.get("body") or "", _login(raw.get("user") or raw.get("author")),
                            str(raw.get("created_at") or ""))
    return None


def _number_of(comment: dict[str, Any]) -> int | None:
    if isinstance(comment.get("issue_number"), int):
        return int(comment["issue_number"])
    m = re.search(r"/issues/(\d+)$", str(comment.get("issue_url") or ""))
    return int(m.group(1)) if m else None


def comments_by_number(raw: Any) -> dict[int, list[IssueComment]]:
    """Separate comments in either documented shape -> issue number -> comments.
    Raises BadInput for anything else."""
    out: dict[int, list[IssueComment]] = defaultdict(list)
    if raw is None:
        return {}
    if isinstance(raw, dict):
        for k, lst in raw.items():
            try:
                n = int(k)
            except (TypeError, ValueError):
                raise BadInput(f"comments keyed by {k!r}: expected issue numbers as keys") from None
            if not isinstance(lst, list):
                raise BadInput(f"comments of issue {k}: expected a list")
            out[n].extend(c for c in (_comment(x) for x in lst) if c is not None)
        return dict(out)
    if isinstance(raw, list):
        for c in raw:
            if not isinstance(c, dict):
                raise BadInput("a comment in the comments list is not an object")
            n = _number_of(c)
            parsed = _comment(c)
            if n is None or parsed is None:
                raise BadInput("a comment names no issue: expected `issue_url` (…/issues/N) or `issue_number`")
            out[n].append(parsed)
        return dict(out)
    raise BadInput("comments: expected an object keyed by issue number or a list of comments")


def parse_export(data: Any, comments: Any = None) -> list[IssueData]:
    """Issues from an export in one of the documented shapes (module docstring).
    Raises BadInput naming what is wrong."""
    separate: dict[int, list[IssueComment]] = {}
    if isinstance(data, dict):
        if not isinstance(data.get("issues"), list):
            raise BadInput("expected a list of issues, or an object with an `issues` list")
        separate = comments_by_number(data.get("comments"))
        data = data["issues"]
    if not isinstance(data, list):
        raise BadInput("expected a list of issues, or an object with an `issues` list")
    for n, lst in comments_by_number(comments).items():
        separate.setdefault(n, []).extend(lst)
    out: list[IssueData] = []
    for i, raw in enumerate(data):
        if not isinstance(raw, dict) or not isinstance(raw.get("number"), int):
            raise BadInput(f"issue #{i + 1} in the file has no integer `number`")
        inline = raw.get("comments")
        cs = [c for c in (_comment(x) for x in inline) if c is not None] if isinstance(inline, list) else []
        cs += separate.get(raw["number"], [])
        count = inline if isinstance(inline, int) else len(cs)
        out.append(IssueData(
            number=raw["number"], title=str(raw.get("title") or ""), state=str(raw.get("state") or "open").lower(),
            url=str(raw.get("html_url") or raw.get("url") or ""), created_at=str(raw.get("created_at") or ""),
            updated_at=str(raw.get("updated_at") or ""), closed_at=str(raw.get("closed_at") or ""),
            labels=_labels(raw.get("labels")), author=_login(raw.get("user") or raw.get("author")),
            body=str(raw.get("body") or ""), comments=cs, comment_count=max(count, len(cs)),
            is_pull_request=bool(raw.get("pull_request"))))
    return out


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise BadInput(f"{path} is not valid JSON: {e.msg} at line {e.lineno}") from None
    except UnicodeDecodeError:
        raise BadInput(f"{path} is not UTF-8 text") from None


def load_export(path: Path, comments_path: Path | None = None) -> list[IssueData]:
    """Issues from an export file (and an optional separate comments file). Raises
    FileNotFoundError, BadInput."""
    return parse_export(_read_json(path), _read_json(comments_path) if comments_path else None)


# ---------------------------------------------------------------------------- live API
def github_token(start: Path | None = None) -> str | None:
    """GITHUB_TOKEN, else ``github_token`` / ``[github] token`` in ``.streamlit/secrets.toml``
    of ``start`` (default the cwd) or its parents."""
    tok = os.environ.get("GITHUB_TOKEN")
    if tok:
        return tok
    here = (start or Path.cwd()).resolve()
    for d in (here, *here.parents):
        f = d / ".streamlit" / "secrets.toml"
        if f.is_file():
            try:
                data = tomllib.loads(f.read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError):
                return None
            gh = data.get("github")
            tok = data.get("github_token") or data.get("GITHUB_TOKEN") or (gh.get("token") if isinstance(gh, dict) else None)
            return str(tok) if tok else None
    return None


Fetcher = Callable[[str, dict[str, str]], tuple[Any, dict[str, str]]]


def _http_get(url: str, headers: dict[str, str]) -> tuple[Any, dict[str, str]]:
    req = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:  # noqa: S310 - https only, built from API
            return json.loads(resp.read().decode("utf-8")), {k.lower(): v for k, v in resp.headers.items()}
    except urllib.error.HTTPError as e:
        detail = e.read().decode("utf-8", "replace")[:200]
        hint = " (set GITHUB_TOKEN for private repos and higher rate limits)" if e.code in (401, 403, 404) else ""
        raise CodegraphError(f"GitHub answered {e.code} for {url}: {detail}{hint}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as e:
        raise CodegraphError(f"cannot reach {API}: {getattr(e, 'reason', e)}") from None


def _next_link(headers: dict[str, str]) -> str | None:
    for part in headers.get("link", "").split(","):
        m = re.search(r'<([^>]+)>;\s*rel="next"', part)
        if m:
            return m.group(1)
    return None


def _paged(url: str, headers: dict[str, str], max_pages: int, get: Fetcher) -> list[Any]:
    out: list[Any] = []
    pages = 0
    next_url: str | None = url
    while next_url and pages < max_pages:
        data, hdrs = get(next_url, headers)
        if not isinstance(data, list):
            raise CodegraphError(f"unexpected answer from {next_url}: not a list")
        out.extend(data)
        pages += 1
        next_url = _next_link(hdrs)
    return out


def fetch_issues(owner_name: str, token: str | None = None, *, state: str = "all", max_pages: int = 50,
                 with_comments: bool = True, get: Fetcher | None = None) -> list[IssueData]:
    """Issues (and their comments) of ``OWNER/NAME`` from the GitHub REST API, 100 per
    page, at most ``max_pages`` pages each. ``get(url, headers) -> (json, headers)`` is
    the HTTP call (urllib by default). Raises BadInput for a bad name, CodegraphError
    when GitHub does not answer or refuses."""
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", owner_name.strip()):
        raise BadInput(f"expected OWNER/NAME, got {owner_name!r}")
    get = get or _http_get
    headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28",
               "User-Agent": "codegraph-explorer"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    base = f"{API}/repos/{owner_name.strip()}"
    issues = _paged(f"{base}/issues?state={state}&per_page=100", headers, max_pages, get)
    comments = _paged(f"{base}/issues/comments?per_page=100", headers, max_pages, get) if with_comments else []
    return parse_export({"issues": issues, "comments": comments})

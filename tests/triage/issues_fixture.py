"""A recorded GitHub REST API issues export for the fixture repository (tests/triage/
fixture.py), in the shape ``GET /repos/OWNER/NAME/issues`` returns it, trimmed to the
fields the importer reads plus a few it ignores. Comments: inline for #1, separate
(keyed by issue number) for #3.

Expected MENTIONS (issue -> target, resolution, ambiguous):
  #1 `store.save` -> app.store.save (unique_name, title); `app/store.py:4` -> file
     (exact, line 4); comment 1: `place()` -> app.service.place (unique_name),
     `app.audit.save` -> app.audit.save (exact); `OrderThing` matches nothing; the
     fenced block's `save(x)` is not read.
  #2 (closed) `save` -> app.audit.save and app.store.save (ambiguous); a blob link ->
     app/client.py (exact, line 6).
  #3 comment (separate) `fetch` -> app.client.fetch (unique_name).
  #4 `store.save` -> app.store.save (unique_name).
"""

from __future__ import annotations

from typing import Any

USER = {"login": "ana", "id": 1, "type": "User"}

ISSUES: list[dict[str, Any]] = [
    {
        "number": 1, "title": "`store.save` drops fields", "state": "open",
        "html_url": "https://github.com/acme/app/issues/1", "url": "https://api.github.com/repos/acme/app/issues/1",
        "created_at": "2026-01-05T10:00:00Z", "updated_at": "2026-01-06T10:00:00Z", "closed_at": None,
        "labels": [{"id": 7, "name": "bug", "color": "d73a4a"}], "user": USER, "locked": False,
        "body": "Saving an order loses keys, see `app/store.py:4`. `OrderThing` is involved.\n\n"
                "```python\nsave(x)  # not a mention: pasted code\n```\n",
        "comments": [{"body": "Also `place()` and `app.audit.save` look wrong.", "user": {"login": "bo"},
                      "created_at": "2026-01-05T11:00:00Z"}],
    },
    {
        "number": 2, "title": "Crash in cancel", "state": "closed",
        "html_url": "https://github.com/acme/app/issues/2", "created_at": "2026-01-02T09:00:00Z",
        "closed_at": "2026-01-03T09:00:00Z", "labels": ["bug"], "user": USER, "comments": 0,
        "body": "`save` raises. Client: https://github.com/acme/app/blob/main/app/client.py#L6",
    },
    {
        "number": 3, "title": "Docs for the client", "state": "open",
        "html_url": "https://github.com/acme/app/issues/3", "created_at": "2026-01-04T09:00:00Z",
        "labels": [{"name": "docs"}], "user": USER, "comments": 1, "body": None,
    },
    {
        "number": 4, "title": "Retry in `store.save`", "state": "open", "pull_request": {"url": "x"},
        "html_url": "https://github.com/acme/app/pull/4", "created_at": "2026-01-07T09:00:00Z",
        "labels": [], "user": USER, "comments": 0, "body": "",
    },
]
COMMENTS: dict[str, list[dict[str, Any]]] = {"3": [{"body": "Explain what `fetch` returns.", "user": {"login": "cy"}}]}
EXPORT: dict[str, Any] = {"issues": ISSUES, "comments": COMMENTS}

"""Test helper for the server backends: connection settings and skip-or-fail.

``make services`` writes ``.codegraph/services.env``; ``.ci/run`` sets
``CODEGRAPH_REQUIRE_SERVICES=1`` so that an unreachable server fails the run instead of
skipping (a loud summary line is printed either way by tests/conftest.py).
"""

from __future__ import annotations

import os

import pytest

from codegraph.core.errors import StoreUnavailable
from codegraph.core.search_index import SearchIndex
from codegraph.core.settings import Settings, _services_env_files, load_settings

SKIPPED_SERVICES: list[str] = []


def services_required() -> bool:
    return os.environ.get("CODEGRAPH_REQUIRE_SERVICES", "") == "1"


def skip_or_fail(reason: str) -> None:
    """Skip the test, or fail it when CODEGRAPH_REQUIRE_SERVICES=1."""
    SKIPPED_SERVICES.append(reason)
    if services_required():
        pytest.fail(f"required service unavailable: {reason}", pytrace=False)
    pytest.skip(reason)


def service_settings() -> Settings:
    """Settings for the server backends from ``.codegraph/services.env`` (written by
    ``make services``), or from CODEGRAPH_TEST_GRAPH / CODEGRAPH_TEST_SEARCH when set.
    graph/search stay 'embedded' when neither says where the servers are. The suite
    itself runs with CODEGRAPH_GRAPH/SEARCH=embedded (tests/conftest.py), so the values
    are read from the file here, not from the environment."""
    values: dict[str, str] = {}
    for f in _services_env_files():
        for line in f.read_text(encoding="utf-8").splitlines():
            key, sep, value = line.partition("=")
            if sep and key.strip().startswith("CODEGRAPH_"):
                values[key.strip()[len("CODEGRAPH_"):].lower()] = value.strip()
    for key in ("graph", "search"):
        if os.environ.get(f"CODEGRAPH_TEST_{key.upper()}"):
            values[key] = os.environ[f"CODEGRAPH_TEST_{key.upper()}"]
    return load_settings(**values)


def elasticsearch_index(prefix: str) -> SearchIndex:
    """An ElasticsearchIndex on the configured server, its indexes named ``prefix``-..., schema
    ensured; skip_or_fail when no server is configured or it does not answer."""
    settings = service_settings()
    if not settings.search.startswith(("http://", "https://")):
        skip_or_fail("Elasticsearch not configured (CODEGRAPH_SEARCH is not http://; run `make services`)")
    from codegraph.core.elastic_search import ElasticsearchIndex

    ix = ElasticsearchIndex(settings.search, prefix)
    try:
        ix.ensure_schema()
    except StoreUnavailable as e:
        skip_or_fail(f"Elasticsearch unreachable: {e}")
        raise
    return ix

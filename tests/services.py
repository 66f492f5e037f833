"""Test helper for the server backends: connection settings and skip-or-fail.

``make services`` writes ``.codegraph/services.env``; ``.ci/run`` sets
``CODEGRAPH_REQUIRE_SERVICES=1`` so that an unreachable server fails the run instead of
skipping (a loud summary line is printed either way by tests/conftest.py).
"""

from __future__ import annotations

import os

import pytest

from codegraph.core.settings import Settings, load_settings

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
    """Settings with services.env applied (graph/search may still say 'embedded' when
    the services were never started)."""
    return load_settings()

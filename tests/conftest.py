"""Suite-wide set-up: every test runs with its own CODEGRAPH_HOME (never ~/.codegraph),
and the run ends with one loud line when server tests were skipped."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from tests.services import SKIPPED_SERVICES, services_required

# No per-example deadline: hypothesis's default (200 ms) is a timed assertion, and on a loaded
# 2-core machine a correct example can take longer (speed lives in bench/, never in tests).
hypothesis_settings.register_profile("codegraph", deadline=None)
hypothesis_settings.load_profile("codegraph")


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("cghome")
    monkeypatch.setenv("CODEGRAPH_HOME", str(home))
    # The suite's default is the embedded backend even when `make services` wrote
    # .codegraph/services.env; server tests ask for tests.services.service_settings().
    monkeypatch.setenv("CODEGRAPH_GRAPH", "embedded")
    monkeypatch.setenv("CODEGRAPH_SEARCH", "embedded")
    from codegraph.core import settings

    settings.get_settings.cache_clear()
    yield home


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if SKIPPED_SERVICES:
        where = "FAILED (CODEGRAPH_REQUIRE_SERVICES=1)" if services_required() else "SKIPPED"
        terminalreporter.write_line(
            f"!!! {len(SKIPPED_SERVICES)} server-backend test(s) {where}: "
            f"{sorted(set(SKIPPED_SERVICES))[0]} — run `make services` to test Neo4j/Elasticsearch",
            red=True, bold=True)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="Rewrite the golden answers under tests/golden/ instead of comparing with them.")


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

"""Counts of what the property tests tried, printed in the terminal summary (with or
without ``-s``)."""

from __future__ import annotations

import pytest

from tests.property.test_incremental_equals_full import TRIED
from tests.property.test_refresh_affected import PARTIAL


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for backend, (sequences, steps) in sorted(TRIED.items()):
        if sequences:
            terminalreporter.write_line(
                f"property test (incremental index == full index), {backend}: "
                f"{sequences} edit sequences, {steps} edit steps tried")
    if PARTIAL["sequences"]:
        terminalreporter.write_line(
            f"property test (partial refresh == full index): {PARTIAL['sequences']} edit sequences, "
            f"{PARTIAL['steps']} edit steps, {PARTIAL['partial']} of them resolved only the affected files")
    if PARTIAL["py_sequences"]:
        terminalreporter.write_line(
            f"property test (partial refresh == full index), Python only: {PARTIAL['py_sequences']} edit sequences, "
            f"{PARTIAL['py_steps']} edit steps, {PARTIAL['py_partial']} of them resolved only the affected files "
            "(references read only for the files resolved)")

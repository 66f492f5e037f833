"""Step timers: the per-step wall-clock milliseconds every answer carries (impact, search,
MCP tools; docs/DESIGN.md#faces). One definition, so every face measures the same way."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from codegraph.core.models import Step


class StepTimer:
    """``mark(name, detail)`` (or calling the timer) records the milliseconds since the
    previous mark, the start, or ``restart()``; ``steps`` holds them in order."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self._t = time.perf_counter()

    def restart(self) -> None:
        """Start the next step now (time since the last mark is not recorded)."""
        self._t = time.perf_counter()

    def mark(self, name: str, detail: str = "") -> Step:
        now = time.perf_counter()
        step = Step(name, round((now - self._t) * 1000, 2), detail)
        self.steps.append(step)
        self._t = now
        return step

    __call__ = mark

    def extend(self, steps: Iterable[Any]) -> None:
        """Append steps measured elsewhere (an ImpactResult's or SearchResult's)."""
        for s in steps:
            self.steps.append(Step(s.name, round(float(s.ms), 2), getattr(s, "detail", "")))
        self._t = time.perf_counter()

    @property
    def items(self) -> list[dict[str, Any]]:
        """The steps as JSON-ready dicts {name, ms, detail}."""
        return [{"name": s.name, "ms": s.ms, "detail": s.detail} for s in self.steps]


__all__ = ["StepTimer"]

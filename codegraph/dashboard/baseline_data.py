"""Data behind the Baselines page, free of Streamlit: run labels for a categorical
axis, one series per metric, and every drop on the timeline.

A *drop* is a regression as core.figures defines it (a count that is better higher
fell by more than the threshold). Each run is compared with the run before it and
with the chosen baseline, so a drop stays flagged where it happened even after a
later run recovered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codegraph.core.figures import REFERENCE_EDGES, regressions

# One small chart each, in this order; "edges" is the sum of every derived edge type.
SMALL_METRICS = ("files", "symbols", "edges", "stubs", "unresolved_pct", "parse_errors")
METRIC_TITLES = {"files": "Files", "symbols": "Symbols", "edges": "Edges (derived)", "stubs": "Unresolved stubs",
                 "unresolved_pct": "Unresolved references (%)", "parse_errors": "Parse errors"}


@dataclass(slots=True)
class TimelineDrop:
    run: int  # 0-based index of the run where the count fell
    against: int  # index of the run it is compared with
    kind: str  # "previous" | "baseline"
    key: str
    before: int
    after: int
    percent: float


def run_labels(snaps: list[dict[str, Any]]) -> list[str]:
    """One distinct label per run for a categorical axis: its number and its commit, or
    its time when no commit was recorded (two runs seconds apart stay apart)."""
    out = []
    for i, s in enumerate(snaps, 1):
        sha = (s.get("commit") or "")[:7]
        when = str(s.get("taken_at", ""))[5:16].replace("T", " ")
        out.append(f"#{i} {sha}" if sha else f"#{i} {when}")
    return out


def with_totals(counts: dict[str, Any]) -> dict[str, Any]:
    """A snapshot's counts plus ``edges`` (all derived edge types) and ``unresolved_pct``."""
    out = dict(counts)
    out["edges"] = sum(v for k, v in counts.items() if k.startswith("edges.") and isinstance(v, int | float))
    refs = sum(counts.get(f"edges.{t}", 0) for t in REFERENCE_EDGES)
    if refs and "stub_references" in counts:
        out["unresolved_pct"] = round(100 * counts["stub_references"] / refs, 2)
    elif refs:  # older snapshots: stubs per 100 reference edges (what every snapshot has)
        out["unresolved_pct"] = round(100 * counts.get("stubs", 0) / refs, 2)
    return out


def series(snaps: list[dict[str, Any]], key: str) -> list[float | None]:
    """The value of ``key`` in each run (None where the run did not count it)."""
    return [with_totals(s["counts"]).get(key) for s in snaps]


def timeline_drops(snaps: list[dict[str, Any]], base: int, threshold: float) -> list[TimelineDrop]:
    """Every regression on the timeline: each run against the previous one, and each
    run after ``base`` against the baseline (once when the two are the same run)."""
    out: list[TimelineDrop] = []
    counts = [with_totals(s["counts"]) for s in snaps]
    for i in range(1, len(snaps)):
        pairs = [(i - 1, "previous")] + ([(base, "baseline")] if base < i - 1 else [])
        for j, kind in pairs:
            for d in regressions(counts[j], counts[i], threshold):
                if d.key == "unresolved_pct":
                    continue
                out.append(TimelineDrop(i, j, kind, d.key, d.baseline, d.current, d.percent))
    return out

"""Audit answer types (docs/DESIGN.md#quality-bar): a call site (``Site``), a disagreement between
the graph and text search with its verdict, one callable's audit, the figures per language
and the whole report. Verdicts and figures: the package docstring of ``codegraph.audit``."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from codegraph.core.models import (
    Node,
    Step,
)

VERDICTS = ("text_false_positive", "graph_miss", "flagged", "text_miss", "attribution", "graph_false_positive",
            "unclear")


NOTICE = ("Text search is a second witness, not ground truth: read the disagreements. HTTP links "
          "(CALLS_HTTP to endpoints) are not audited yet; that share will be added when endpoint "
          "extraction exists for the audited languages.")


MAX_SITES = 5  # per disagreement, in answers


@dataclass(slots=True)
class Site:
    """One piece of evidence: file:line, the caller it is attributed to, the line's text."""

    file: str
    line: int
    caller: str
    snippet: str = ""
    receiver: str = ""
    resolution: str = ""


@dataclass(slots=True)
class Disagreement:
    """A caller one side has and the other lacks. ``side``: ``missed`` (text only) or
    ``extra`` (graph only). ``verdict`` is one of VERDICTS; ``category`` a short label;
    ``detail`` names what the graph did at that line."""

    side: str
    caller: str
    caller_uid: str
    verdict: str
    category: str
    detail: str
    sites: list[Site]
    candidates: int = 0  # for a flagged (ambiguous) call: how many symbols it may reach


@dataclass(slots=True)
class CallableAudit:
    """One audited callable. Counts are callers (enclosing symbols), not call sites."""

    target: str
    uid: str
    name: str
    kind: str
    language: str
    repo: str
    file: str
    line: int
    expected: int = 0
    actual: int = 0
    matched: int = 0
    matched_callers: list[str] = field(default_factory=list)
    missed: list[Disagreement] = field(default_factory=list)
    extra: list[Disagreement] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    resolutions: dict[str, int] = field(default_factory=dict)


def judged_counts(matched: int, disagreements: list[Disagreement]) -> dict[str, int]:
    """TP / FP / FN / flagged from the matched callers and the classified disagreements:
    TP = matched + graph-only callers judged text misses or attribution; FP = graph-only
    callers judged graph false positives or unclear; FN = text-only callers judged graph
    misses or unclear; flagged = text-only callers the graph reports as ambiguous stubs."""
    c = Counter(f"{d.side}:{d.verdict}" for d in disagreements)
    return {"true_positive": matched + c["extra:text_miss"] + c["extra:attribution"],
            "false_positive": c["extra:graph_false_positive"] + c["extra:unclear"],
            "false_negative": c["missed:graph_miss"] + c["missed:unclear"],
            "flagged": c["missed:flagged"]}


def flagged_expected(disagreements: list[Disagreement]) -> float:
    """Flagged callers weighted by 1/candidates: how many would reach the target if each
    ambiguous call went to one of its candidates with equal odds."""
    return sum(1 / max(d.candidates, 1) for d in disagreements if d.verdict == "flagged")


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


@dataclass(slots=True)
class Figures:
    """Figures for one language. Micro figures sum callers over all audited callables
    (common names weigh most); macro figures average the per-callable ratios over the
    callables where the ratio is defined (the typical callable)."""

    callables: int = 0
    expected: int = 0
    actual: int = 0
    matched: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)  # "missed:graph_miss" -> n
    judged: dict[str, int] = field(default_factory=dict)
    flagged_expected: float = 0.0
    per_callable: list[dict[str, int]] = field(default_factory=list)

    def add(self, r: CallableAudit) -> None:
        self.callables += 1
        self.expected += r.expected
        self.actual += r.actual
        self.matched += r.matched
        for d in r.missed + r.extra:
            key = f"{d.side}:{d.verdict}"
            self.verdicts[key] = self.verdicts.get(key, 0) + 1
        j = judged_counts(r.matched, r.missed + r.extra)
        self.flagged_expected += flagged_expected(r.missed)
        for k, v in j.items():
            self.judged[k] = self.judged.get(k, 0) + v
        self.per_callable.append(j | {"expected": r.expected, "actual": r.actual, "matched": r.matched})

    def summary(self) -> dict[str, Any]:
        """Ratios are fractions 0..1, None when undefined.

        ``raw_*``: text taken as the truth. ``precision`` = TP/(TP+FP); ``recall`` =
        TP/(TP+FN) (flagged stubs left out: the graph reports them as unresolved);
        ``recall_flagged_as_missed`` counts them as misses; ``flagged_share`` =
        flagged/(TP+FN+flagged); ``flagged_expected`` weighs each flagged caller by
        1/candidates and ``recall_flagged_expected`` counts that many as misses.
        ``macro_*``: the same per callable, averaged."""
        j = {k: self.judged.get(k, 0) for k in ("true_positive", "false_positive", "false_negative", "flagged")}
        tp, fp, fn, fl = j["true_positive"], j["false_positive"], j["false_negative"], j["flagged"]

        def mean(vals: list[float | None]) -> float | None:
            xs = [v for v in vals if v is not None]
            return round(sum(xs) / len(xs), 4) if xs else None

        pc = self.per_callable
        return {
            "callables": self.callables, "expected": self.expected, "actual": self.actual, "matched": self.matched,
            "raw_precision": _ratio(self.matched, self.actual), "raw_recall": _ratio(self.matched, self.expected),
            "precision": _ratio(tp, tp + fp), "recall": _ratio(tp, tp + fn),
            "recall_flagged_as_missed": _ratio(tp, tp + fn + fl), "flagged_share": _ratio(fl, tp + fn + fl),
            "flagged_expected": round(self.flagged_expected, 2),
            "recall_flagged_expected": (round(tp / (tp + fn + self.flagged_expected), 4)
                                        if tp + fn + self.flagged_expected else None),
            "macro_precision": mean([_ratio(c["true_positive"], c["true_positive"] + c["false_positive"]) for c in pc]),
            "macro_recall": mean([_ratio(c["true_positive"], c["true_positive"] + c["false_negative"]) for c in pc]),
            "macro_raw_precision": mean([_ratio(c["matched"], c["actual"]) for c in pc]),
            "macro_raw_recall": mean([_ratio(c["matched"], c["expected"]) for c in pc]),
            "judged": j, "verdicts": dict(sorted(self.verdicts.items())),
        }


@dataclass(slots=True)
class AuditReport:
    repos: list[str]
    callables: list[CallableAudit]
    languages: dict[str, Figures]
    categories: dict[str, int]
    files: dict[str, int]
    steps: list[Step]
    sample: dict[str, Any] | None = None
    notice: str = NOTICE

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["languages"] = {k: v.summary() for k, v in self.languages.items()}
        for c, r in zip(d["callables"], self.callables, strict=True):
            c["judged"] = judged_counts(r.matched, r.missed + r.extra)
        return d


def _blank_audit(n: Node) -> CallableAudit:
    p = n.props
    return CallableAudit(target=p.get("qualified_name", ""), uid=n.uid, name=p.get("name", ""), kind=p.get("kind", ""),
                         language=p.get("language", ""), repo=n.repo, file=p.get("file", ""), line=int(p.get("line") or 0))

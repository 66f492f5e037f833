"""Running an audit: the callables named or sampled (seeded), each audited, the figures summed
(``audit`` is the entry point of ``codegraph audit``, the MCP tool and bench/bench_audit.py)."""

from __future__ import annotations

import random
import time
from collections import Counter, defaultdict
from typing import Any

from codegraph.audit.auditor import _Auditor
from codegraph.audit.results import AuditReport, CallableAudit, Figures
from codegraph.audit.rules import CALLABLE_KINDS, _callable_nodes, _ms
from codegraph.audit.text import FAMILY
from codegraph.core.errors import BadInput, TargetNotFound
from codegraph.core.graph_store import GraphStore
from codegraph.core.models import (
    SYMBOL,
    Node,
    Step,
)


def resolve_callables(store: GraphStore, names: list[str], repo: str | None) -> list[Node]:
    """Callable symbols the given targets name (qualified name, suffix or bare name, as
    in ``codegraph impact``); one per (repo, qualified name). Raises TargetNotFound."""
    from codegraph.core.targets import resolve_target

    out: dict[tuple[str, str], Node] = {}
    for text in names:
        found = [n for n in resolve_target(store, text, repo) if n.label == SYMBOL]
        nodes = [n for n in found if n.props.get("kind") in CALLABLE_KINDS]
        if not nodes:
            kinds = sorted({n.props.get("kind", "?") for n in found})
            raise TargetNotFound(f"{text!r} names no function or method (found kinds: {', '.join(kinds) or 'none'})")
        for n in nodes:
            out.setdefault((n.repo, n.props["qualified_name"]), n)
    return list(out.values())


def sample_callables(store: GraphStore, n: int, seed: int, repo: str | None = None,
                     language: str | None = None, auditor: _Auditor | None = None,
                     include_tests: bool = True) -> list[Node]:
    """``n`` callables drawn without replacement by ``random.Random(seed)`` from every
    function/method of ``repo`` (all repos if None) whose file the audit can read (on
    disk, unchanged since indexing, not generated; not a test file unless
    ``include_tests``), ordered by uid first, so the same graph, files and seed give the
    same sample. Overloads count once."""
    auditor = auditor or _Auditor(store)
    pool: dict[tuple[str, str], Node] = {}
    for node in sorted(_callable_nodes(store, repo), key=lambda x: x.uid):
        lang = node.props.get("language", "")
        if (language and lang != language) or not FAMILY.get(lang):
            continue
        pool.setdefault((node.repo, node.props["qualified_name"]), node)
    families: dict[str, set[str]] = defaultdict(set)
    for node in pool.values():
        families[node.repo].add(FAMILY[node.props["language"]])
    readable = {r: auditor.corpus(r, fams).files for r, fams in families.items()}
    for r in readable:
        auditor.read_ms.pop(r, None)  # reading is part of picking here
    readable = {r: {p for p, f in files.items() if include_tests or not f.is_test} for r, files in readable.items()}
    items = sorted((x for x in pool.values() if x.props.get("file") in readable[x.repo]), key=lambda x: x.uid)
    if not items:
        raise TargetNotFound("no functions or methods to sample in the graph" + (f" of repo {repo!r}" if repo else ""))
    return random.Random(seed).sample(items, min(n, len(items)))


def run_audit(store: GraphStore, targets: list[Node], sample: dict[str, Any] | None = None,
              auditor: _Auditor | None = None) -> AuditReport:
    """Audit ``targets`` (callable Symbol nodes). Returns an AuditReport with one
    CallableAudit per target, figures per language, category counts, files scanned /
    excluded and per-step milliseconds. Raises TargetNotFound for an unknown repo,
    BadInput when a repo's folder is not on this machine, StoreUnavailable from the store."""
    steps: list[Step] = []
    auditor = auditor or _Auditor(store)
    by_repo: dict[str, list[Node]] = defaultdict(list)
    for n in targets:
        by_repo[n.repo].append(n)
    results: list[CallableAudit] = []
    files: Counter[str] = Counter()
    for repo in sorted(by_repo):
        results.extend(auditor.audit_repo(repo, by_repo[repo], steps))
        files.update(auditor.corpora[repo].counts)
    langs: dict[str, Figures] = {}
    cats: Counter[str] = Counter()
    for r in results:
        if any(k.startswith("target file excluded") for k in r.skipped):
            continue
        langs.setdefault(r.language, Figures()).add(r)
        for d in r.missed + r.extra:
            cats[f"{d.side}: {d.verdict}: {d.category}"] += 1
    return AuditReport(repos=sorted(by_repo), callables=results, languages=langs,
                       categories=dict(cats.most_common()), files=dict(files), steps=steps, sample=sample)


def audit(store: GraphStore, targets: list[str] | None = None, *, repo: str | None = None, sample: int = 0,
          seed: int = 0, language: str | None = None, include_tests: bool = True) -> AuditReport:
    """Audit named ``targets`` and/or ``sample`` random callables (seeded); see the
    module docstring. Raises BadInput when there is nothing to audit, TargetNotFound
    when a target names no function or method."""
    auditor = _Auditor(store)
    nodes: list[Node] = []
    t = time.perf_counter()
    if targets:
        nodes.extend(resolve_callables(store, targets, repo))
    sample_info = None
    if sample:
        picked = sample_callables(store, sample, seed, repo, language, auditor, include_tests)
        seen = {(n.repo, n.props["qualified_name"]) for n in nodes}
        nodes.extend(n for n in picked if (n.repo, n.props["qualified_name"]) not in seen)
        sample_info = {"n": sample, "seed": seed, "repo": repo, "language": language, "include_tests": include_tests,
                       "drawn": len(picked)}
    if not nodes:
        raise BadInput("nothing to audit: name targets or pass --sample N")
    pick_ms = _ms(t)
    report = run_audit(store, nodes, sample_info, auditor)
    report.steps.insert(0, Step("pick callables", pick_ms, f"{len(nodes)} callable(s)"))
    return report

"""Accuracy audit: the graph's direct callers against an independent text search.

For each audited callable (named, or a seeded random sample), two caller sets:

- **expected** (text): ``name(`` / ``.name(`` call sites found by ``codegraph.audit.text``
  in the repository's files on disk (comments, strings and generated files left out),
  each attributed to its enclosing symbol by the graph's line ranges
  (``GraphStore.nodes_in_files``); for a constructor (``__init__``) the class name is
  searched as well;
- **actual** (graph): ``codegraph.core.impact.callers`` - incoming CALLS edges.

Every disagreement keeps file:line and is classified so a person can judge it:

| verdict | meaning | categories (examples) |
|---|---|---|
| ``text_false_positive`` | text saw a call that cannot reach the target | name collision (the graph linked it to another symbol), external call, qualified call naming another owner, bare call of a method, call on a builtin value, parameter or builtin of that name, ``self.m()`` from a class the target's class is not below |
| ``graph_miss`` | a call that may reach the target and has no edge | dispatch through a base class, unresolved qualified call, class call without ``__init__`` edge, unparsed file |
| ``flagged`` | the graph saw the call but could not pick among several candidates | ambiguous stub (``impact`` lists it under ``unresolved``) |
| ``text_miss`` | the graph is right, plain text cannot see it | import alias, bare decorator, inherited constructor, implicit protocol call |
| ``attribution`` | both see the call at the same file:line but attribute it to different enclosing symbols | default values, decorators |
| ``graph_false_positive`` | an edge whose evidence line does not name the target | linked by name only |
| ``unclear`` | neither rule applies: judge by hand | |

Figures per language (``Figures.summary``): ``raw`` precision/recall take the text set as
the truth; ``judged`` ones drop text false positives, count text misses and attribution
as hits, count ``unclear`` against the graph (conservative) and report flagged callers
apart (also weighted 1/candidates). Micro (callers summed) and macro (per callable,
averaged) figures are both given; neither is ground truth. HTTP links (CALLS_HTTP to
endpoints) are not audited yet.

Layout: ``results`` (answer types, figures), ``text`` (call sites in source text),
``corpus`` (the files on disk), ``rules`` (symbol and call-site rules), ``auditor`` (one
callable's classification), ``run`` (naming / sampling callables, ``audit``).
"""

from __future__ import annotations

from codegraph.audit.corpus import POOL_MIN_FILES, content_hash
from codegraph.audit.results import (
    MAX_SITES,
    NOTICE,
    VERDICTS,
    AuditReport,
    CallableAudit,
    Disagreement,
    Figures,
    Site,
    flagged_expected,
    judged_counts,
)
from codegraph.audit.rules import CALLABLE_KINDS, CONSTRUCTOR_NAMES
from codegraph.audit.run import audit, resolve_callables, run_audit, sample_callables

__all__ = ["CALLABLE_KINDS", "CONSTRUCTOR_NAMES", "MAX_SITES", "NOTICE", "POOL_MIN_FILES", "VERDICTS", "AuditReport",
           "CallableAudit", "Disagreement", "Figures", "Site", "audit", "content_hash", "flagged_expected",
           "judged_counts", "resolve_callables", "run_audit", "sample_callables"]

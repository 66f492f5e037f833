"""Callers and impact ("blast radius"): the product's main question.

Semantics (docs/DESIGN.md#impact): start from resolved targets, widen by name
(overloads, a class's members, a file's symbols) and by dispatch (``widening``), then
walk incoming CALLS / EXTENDS / IMPLEMENTS / USES_TYPE / INJECTS batch by batch up to
``depth``, across boundaries (a table to its readers and writers, a handler through its
Endpoint to the clients that call it, a producer through its Topic to the consumers)
and through name-aware IMPORTS (an importer counts only when it imports a reached
name; barrels forward names; ``walk`` and docs/boundaries.md); entry points are tests,
endpoints, pages and topic consumers; tables come from READS/WRITES/TOUCHES
(``surroundings``). Every caller carries depth, the path that reaches it and the
evidence file:line of the edge (``results``). Truncation is explicit (totals vs shown).
An empty answer means "no supported relationship found", never "nothing can break".

Modules: ``results`` (answer types), ``widening`` (start nodes), ``walk`` (the walk),
``surroundings`` (entry points, tables, stubs, freshness), ``radius`` (``impact``,
``callers``), ``callees`` (the other direction: what the targets call).
"""

from codegraph.core.impact.callees import CALLEE_EDGES, callees
from codegraph.core.impact.radius import callers, impact
from codegraph.core.impact.results import EMPTY_NOTICE, Caller, EntryPoint, ImpactResult, NodeRef, Unresolved
from codegraph.core.impact.surroundings import freshness
from codegraph.core.impact.widening import TYPE_KINDS
from codegraph.core.models import CALLER_EDGES, STUB, Step

__all__ = [
    "CALLEE_EDGES", "CALLER_EDGES", "EMPTY_NOTICE", "STUB", "TYPE_KINDS", "Caller", "EntryPoint", "ImpactResult", "NodeRef",
    "Step", "Unresolved", "callees", "callers", "freshness", "impact",
]

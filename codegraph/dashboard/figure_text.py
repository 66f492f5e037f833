"""How the pages name and explain the figures of core.figures (one wording everywhere)."""

from __future__ import annotations

EDGES_HELP = ("Derived edges (CALLS, IMPORTS, EXTENDS, ...), including those that end at an unresolved stub; "
              "the structural IN_REPO / DECLARES are not counted")
STUBS_HELP = "Distinct unresolved call targets (UnresolvedSymbol nodes); the Triage page turns them into edges"
UNRESOLVED_HELP = "{f.stub_references} of {f.reference_edges} reference edges end at an unresolved stub"
UNSUPPORTED_HELP = ("Files without an extractor: known languages not parsed yet plus files of languages the "
                    "indexer does not read (counted by extension at index time)")


def pct(value: float | None) -> str:
    """'30.7 %' or 'n/a' (no reference edge)."""
    return "n/a" if value is None else f"{value:.1f} %"

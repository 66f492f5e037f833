"""Dynamic dispatch: Base <- Child <- Grand each declare ``run``; Other.run is unrelated.
A method target also walks the callers of the same-named method on its base types and
lists the overrides; ``dispatch=False`` and ``callers`` keep to the graph's edges."""

from __future__ import annotations

import pytest

from codegraph.core.graph_store import GraphStore
from codegraph.core.impact import callers as direct_callers
from codegraph.core.impact import impact
from codegraph.core.models import CALLS, EXTENDS
from tests.impact.builder import Graph, callers


@pytest.fixture
def shapes(store: GraphStore, repo: str) -> str:
    g = Graph(store, repo)
    base, child, grand = (g.sym("shapes.java", f"shapes.{c}", kind="class") for c in ("Base", "Child", "Grand"))
    other = g.sym("shapes.java", "shapes.Other", kind="class")
    runs = {c: g.sym("shapes.java", f"shapes.{c}.run", kind="method", parent=f"shapes.{c}")
            for c in ("Base", "Child", "Grand", "Other")}
    g.edge(EXTENDS, child, base, "shapes.java", 11, "exact")
    g.edge(EXTENDS, grand, child, "shapes.java", 31, "exact")
    assert other
    for i, c in enumerate(("Base", "Child", "Grand", "Other")):
        user = g.sym("use.java", f"use.via_{c.lower()}", kind="method", parent="use")
        g.edge(CALLS, user, runs[c], "use.java", 100 + i, "receiver_type")
    outer = g.sym("use.java", "use.outer", kind="method", parent="use")
    g.edge(CALLS, outer, g.sym("use.java", "use.via_base", kind="method", parent="use"), "use.java", 200, "self")
    g.save()
    return repo


def test_method_target_walks_base_callers_and_lists_overrides(store: GraphStore, shapes: str) -> None:
    res = impact(store, "shapes.Child.run", repo=shapes)
    assert callers(res) == {
        (1, CALLS, "use.via_child"),
        (1, CALLS, "use.via_base"),  # Base.run may dispatch to Child.run
        (2, CALLS, "use.outer"),
    }
    assert [(w["node"].qualified_name, w["reason"].split(":")[0]) for w in res.widened] == [
        ("shapes.Base.run", "base declaration"), ("shapes.Grand.run", "override")]
    by_qn = {c.node.qualified_name: c for c in res.callers}
    assert by_qn["use.outer"].path == ["use.outer", "use.via_base", "shapes.Base.run"]
    assert by_qn["use.via_base"].resolution == "receiver_type"


def test_without_dispatch_only_the_edges_to_the_method(store: GraphStore, shapes: str) -> None:
    res = impact(store, "shapes.Child.run", repo=shapes, dispatch=False)
    assert callers(res) == {(1, CALLS, "use.via_child")}
    assert res.widened == []
    assert callers(direct_callers(store, "shapes.Child.run", repo=shapes)) == {(1, CALLS, "use.via_child")}


def test_base_method_has_no_bases_and_two_overrides(store: GraphStore, shapes: str) -> None:
    res = impact(store, "shapes.Base.run", repo=shapes)
    assert callers(res) == {(1, CALLS, "use.via_base"), (2, CALLS, "use.outer")}
    assert sorted(w["node"].qualified_name for w in res.widened) == ["shapes.Child.run", "shapes.Grand.run"]


def test_class_target_widens_to_its_members_and_subclasses(store: GraphStore, shapes: str) -> None:
    res = impact(store, "shapes.Child", repo=shapes)
    assert callers(res) == {(1, EXTENDS, "shapes.Grand"), (1, CALLS, "use.via_child")}
    assert res.widened == []

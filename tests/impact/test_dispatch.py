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


@pytest.fixture
def spread(store: GraphStore, repo: str) -> str:
    """Base in base.py; Child (child.py) extends it and Grand (grand.py) extends Child;
    decoys: Other.run beside Child in child.py, and Loose.run in loose.py (unrelated)."""
    g = Graph(store, repo)
    base = g.sym("base.py", "pkg.Base", kind="class")
    child = g.sym("child.py", "pkg.Child", kind="class")
    grand = g.sym("grand.py", "pkg.Grand", kind="class")
    g.sym("child.py", "pkg.Other", kind="class")
    g.sym("loose.py", "pkg.Loose", kind="class")
    for file, cls in (("base.py", "Base"), ("child.py", "Child"), ("grand.py", "Grand"), ("child.py", "Other"),
                      ("loose.py", "Loose")):
        g.sym(file, f"pkg.{cls}.run", kind="method", parent=f"pkg.{cls}")
    g.edge(EXTENDS, child, base, "child.py", 1, "exact")
    g.edge(EXTENDS, grand, child, "grand.py", 1, "exact")
    g.save()
    return repo


@pytest.mark.parametrize("files_read_max", [0, 40], ids=["by-name", "by-file"])
def test_overrides_found_by_name_or_by_file_are_the_same(store: GraphStore, spread: str, files_read_max: int,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # Many descendant files switch the lookup from reading files to a name lookup; the
    # answer must not change (decoys in a related file and in an unrelated one stay out).
    monkeypatch.setattr("codegraph.core.impact.widening.FILES_READ_MAX", files_read_max)
    res = impact(store, "pkg.Base.run", repo=spread)
    assert [(w["node"].qualified_name, w["node"].file) for w in res.widened] == [
        ("pkg.Child.run", "child.py"), ("pkg.Grand.run", "grand.py")]
    res = impact(store, "pkg.Grand.run", repo=spread)
    assert [(w["node"].qualified_name, w["node"].file, w["reason"].split(":")[0]) for w in res.widened] == [
        ("pkg.Base.run", "base.py", "base declaration"), ("pkg.Child.run", "child.py", "base declaration")]

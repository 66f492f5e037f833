"""Audit judging of calls whose receiver is a constructed object or a ``super(...)`` call
spread over lines (tests/audit/fixture_ctor; a fixture of its own, so the symbol counts
other suites read from tests/audit/fixture_repo stay as they are).

``Foo().setUp()`` runs the ``setUp`` of Foo's class: an override in a class Foo is not
below never runs there, so the text's caller is a false positive, not a dispatch the graph
missed. ``super(Delegating,\\n self).log()`` names the bases' implementation: no dispatch.
``C.__new__(C)`` on a local class C is no call of another class C's ``__new__``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codegraph.audit import audit
from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.state import StateStore

FIXTURE = Path(__file__).parent / "fixture_ctor"


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> EmbeddedGraphStore:
    base = tmp_path_factory.mktemp("auditctor")
    shutil.copytree(FIXTURE, base / "src")
    g = EmbeddedGraphStore(base / "home" / "graph.db")
    state = StateStore(base / "home" / "state.db")
    index_repo(base / "src", "actor", g, None, state, workers=1)
    state.close()
    return g


def _rows(c):  # noqa: ANN001, ANN202 - test helper
    return {(d.side, d.caller, d.verdict, d.category, d.sites[0].line) for d in c.missed + c.extra}


def test_constructed_object_and_multiline_super_are_no_dispatch(graph: EmbeddedGraphStore) -> None:
    rep = audit(graph, ["pkg.base.Handler.setUp", "pkg.base.Handler.log"])
    by = {c.target: c for c in rep.callables}
    setup = by["pkg.base.Handler.setUp"]
    assert setup.matched_callers == ["pkg.use.built_below"]  # Sub(Handler)().setUp(): linked directly
    assert _rows(setup) == {
        # Foo(TestCase) is defined in the calling function and is no subclass of Handler
        ("missed", "pkg.use.built_locally", "text_false_positive",
         "method of a constructed object whose class is not below the target's class", 10),
        # Other comes from an import: the judge does not follow it and keeps the graph's miss
        ("missed", "pkg.use.imported_class", "graph_miss", "dispatch through a base class", 21),
    }
    built = next(d for d in setup.missed if d.caller == "pkg.use.built_locally")
    assert built.detail == "Foo() makes a pkg.use.built_locally.Foo; pkg.base.Handler is no subclass of it"
    log = by["pkg.base.Handler.log"]
    assert _rows(log) == {("missed", "pkg.use.Delegating.log", "text_false_positive", "name collision", 27)}
    assert log.missed[0].sites[0].receiver == "super()"


def test_qualified_call_on_another_class_of_the_same_name(graph: EmbeddedGraphStore) -> None:
    """``C.__new__(C)`` on a local ``class C`` without ``__new__``: the stub names that C,
    a class of the repo that is not ``pkg.base.C`` nor below it, so no run-time path."""
    c = audit(graph, ["pkg.base.C.__new__"]).callables[0]
    assert _rows(c) == {("missed", "pkg.use.local_new", "text_false_positive", "qualified call names another owner", 34)}
    assert c.missed[0].detail == ("missing stub 'pkg.use.local_new.C.__new__': pkg.use.local_new.C is another class "
                                  "of that name")


def test_qualified_call_on_a_module_that_does_not_import_the_target(graph: EmbeddedGraphStore) -> None:
    """``pkg.fast.Buffer().getvalue()``: pkg.fast takes Buffer from a compiled module and never
    imports pkg/buffers.py, so its Buffer is not ``pkg.buffers.Buffer`` (the stdlib's
    ``io.StringIO`` is ``_io``'s, not ``_pyio.StringIO``). pkg.lazy imports pkg.buffers: the
    judge cannot rule it out and keeps the graph's miss."""
    c = audit(graph, ["pkg.buffers.Buffer.getvalue"]).callables[0]
    assert _rows(c) == {
        ("missed", "pkg.use_buffers.fast_value", "text_false_positive", "qualified call names another owner", 7),
        ("missed", "pkg.use_buffers.lazy_value", "graph_miss", "unresolved qualified call", 12),
        # pkg.mixed imports pkg.lazy (which reaches pkg/buffers.py) but binds Buffer only by
        # ``from _fastbuf import Buffer``: a class outside the repo (io.py: ``from _io import StringIO``)
        ("missed", "pkg.use_buffers.mixed_value", "text_false_positive", "qualified call names another owner", 18),
    }
    fast = next(d for d in c.missed if d.caller == "pkg.use_buffers.fast_value")
    assert fast.detail == "missing stub 'pkg.fast.Buffer.getvalue': pkg.fast does not import pkg/buffers.py"
    mixed = next(d for d in c.missed if d.caller == "pkg.use_buffers.mixed_value")
    assert mixed.detail == ("missing stub 'pkg.mixed.Buffer.getvalue': pkg.mixed takes Buffer from a module "
                            "outside the repo")

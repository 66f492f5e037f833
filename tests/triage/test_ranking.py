"""Candidate ranking on the Triage page (codegraph.dashboard.triage_view.rank) with the
call-site evidence of codegraph.dashboard.triage_evidence: receiver type, imports, same
package, arity. Real extraction of a small tree (Python, where argument counts are read
from the source; Java, where the extractor stores them), exact orderings and reasons."""

from __future__ import annotations

from collections.abc import Callable

from codegraph.core import triage
from codegraph.core.models import stub_uid
from codegraph.dashboard.triage_evidence import Params, params
from codegraph.dashboard.triage_view import rank
from tests.triage.fixture import Tree

PY = {
    "app/__init__.py": "",
    "app/base.py": '''from vendor import VendorBase


class Store(VendorBase):
    def load(self, key):
        return key


class Audit:
    def put(self, event, level, extra=None):
        return event


class Cache:
    def put(self, key):
        return key


class Shelf(Store):
    def put(self, key, value):
        return value
''',
    "app/run.py": '''from app.base import Store


def run(s: Store, o):
    s.put(1, 2)
    o.put(2)
    o.put(3, *o)
''',
}


def _ranked(tree: Tree, target: str) -> list[tuple[str, float, list[str]]]:
    g, repo = tree.graph, tree.repo
    stub = g.get_nodes([stub_uid(repo, target)])[stub_uid(repo, target)]
    sites = triage.call_sites(g, [stub.uid])[stub.uid]
    cands = [c for c in triage.candidates(g, stub).symbols if c.repo == repo]
    return [(r.candidate.qualified_name, r.score, r.reasons)
            for r in rank(g, cands, sites, repo, target=target, root=str(tree.root))]


def test_receiver_type_puts_the_subtype_method_first(make_tree: Callable[..., Tree]) -> None:
    tree = make_tree(PY)
    # `s: Store` with Store lacking put (its only base is outside the graph): the stub names the type.
    got = _ranked(tree, "app.base.Store.put")
    assert [(q, s) for q, s, _ in got] == [("app.base.Shelf.put", 7.01), ("app.base.Audit.put", 3.01),
                                          ("app.base.Cache.put", 1.01)]
    assert got[0][2] == [
        "member of app.base.Shelf, a subtype of the receiver type app.base.Store (may be what runs)",
        "imported by 1 of 1 calling file(s)", "same package as 1 calling file(s)",
        "takes 2 argument(s): fits 1 of 1 call site(s) (they pass 2)", "same repo"]
    assert got[2][2][0] == "not a member of the receiver type app.base.Store or its base types"
    assert got[2][2][3] == "takes 1 argument(s): fits 0 of 1 call site(s) (they pass 2)"


def test_arity_orders_candidates_when_the_receiver_is_unknown(make_tree: Callable[..., Tree]) -> None:
    tree = make_tree(PY)
    # o.put(2) passes 1; o.put(3, *o) is a spread (count unknown): Cache.put(key) fits, the others do not.
    got = _ranked(tree, "put")
    assert [(q, s) for q, s, _ in got] == [("app.base.Cache.put", 4.01), ("app.base.Audit.put", 2.01),
                                          ("app.base.Shelf.put", 2.01)]
    assert got[0][2][0] == "receiver type unknown at these call sites"
    assert got[1][2][3] == "takes 2-3 arguments: fits 0 of 1 call site(s) (they pass 1)"


def test_parameters_from_a_python_signature_or_the_stored_arity() -> None:
    from codegraph.core.triage_lookup import Candidate

    def cand(sig: str, kind: str = "function", arity: int | None = None, variadic: bool = False) -> Candidate:
        return Candidate("u", "q", kind, "r", "f.py", 1, 1, "", "python" if arity is None else "java", sig, arity,
                         variadic)

    assert params(cand("def f(a, b=1, *, c, d=2)")) == Params(2, 4)
    assert params(cand("def put(self, key)", "method")) == Params(1, 1)
    assert params(cand("async def g(x, *rest)")) == Params(1, None)
    assert params(cand("def h(**kw)")) == Params(0, None)
    assert params(cand("", arity=2)) == Params(2, 2)
    assert params(cand("", arity=2, variadic=True)) == Params(1, None)
    assert params(cand("class C")) is None


JAVA = {
    "src/app/Mailer.java": "package app;\n\npublic class Mailer {\n    public void send(String to) {}\n}\n",
    "src/app/Queue.java": "package app;\n\npublic class Queue {\n    public void send(String to, int prio) {}\n}\n",
    "src/app/Job.java": ('package app;\n\npublic class Job {\n    void run(Object o) {\n        o.send("a", 1);\n'
                         '        o.send("b", 2);\n    }\n}\n'),
}


def test_stored_java_argument_counts_rank_the_fitting_overload_first(make_tree: Callable[..., Tree]) -> None:
    tree = make_tree(JAVA)
    got = _ranked(tree, "Object.send")
    assert [(q, s) for q, s, _ in got] == [("app.Queue.send", 2.01), ("app.Mailer.send", 0.01)]
    assert got[0][2] == ["receiver typed as Object, app.Object (not a type in the graph)",
                         "same package as 1 calling file(s)",
                         "takes 2 argument(s): fits 2 of 2 call site(s) (they pass 2)", "same repo"]


def test_receiver_type_counts_per_call_site(make_tree: Callable[..., Tree]) -> None:
    from dataclasses import replace

    tree = make_tree(JAVA)
    g, repo = tree.graph, tree.repo
    stub = g.get_nodes([stub_uid(repo, "Object.send")])[stub_uid(repo, "Object.send")]
    first, second = sorted(triage.call_sites(g, [stub.uid])[stub.uid], key=lambda s: s.line)
    # As another extractor records it: one call site's receiver typed app.Queue, the other's unknown.
    sites = [replace(first, lookup=("app.Queue.send",)), replace(second, lookup=())]
    cands = [c for c in triage.candidates(g, stub).symbols if c.repo == repo]
    got = [(r.candidate.qualified_name, r.score, r.reasons[0]) for r in rank(g, cands, sites, repo, target="send")]
    assert got == [
        ("app.Queue.send", 3.51, "member of the receiver type app.Queue at 1 of 2 call site(s)"),
        ("app.Mailer.send", -0.49, "not a member of the receiver type app.Queue or its base types at 1 of 2 call "
                                   "site(s)")]

"""The extraction skeleton (docs/DESIGN.md#skeleton): document order, scope stack, builder."""

from __future__ import annotations

import random
from dataclasses import dataclass

from codegraph.indexer import treesitter as ts
from codegraph.indexer.languages.skeleton import (
    Builder,
    ScopeStack,
    define_sweep,
    document_order,
    hints,
    query_events,
    reference_sweep,
    sweep,
    text_lines,
)

SRC = b"""package p;
class A {
  void f() { g(); new B(); }
  class In { void h() { f(); } }
}
"""


@dataclass
class _Sc:
    name: str
    end: int


def test_document_order_is_outer_first_and_independent_of_capture_list_order() -> None:
    root = ts.parse("java", SRC).root_node
    caps = ts.captures("java", "tags", root)
    events = document_order(caps)
    starts = [(e[0], e[1]) for e in events]
    assert starts == sorted(starts)
    kinds = [(e[3], e[4].type) for e in events]
    assert kinds[:3] == [("package", "package_declaration"), ("class", "class_declaration"),
                         ("method", "method_declaration")]
    shuffled = {k: random.Random(7).sample(list(v), len(v)) for k, v in reversed(list(caps.items()))}
    # the same nodes whatever order the lists came in (only the per-list index may differ)
    assert [(e[0], e[1], e[3], e[4].id) for e in document_order(shuffled)] == \
        [(e[0], e[1], e[3], e[4].id) for e in events]


def test_sweep_hands_each_event_its_innermost_open_scope() -> None:
    root = ts.parse("java", SRC).root_node
    events = query_events("java", root)
    owner: dict[str, str] = {}

    def opens(node, sc):  # a class or method opens a scope named by its name
        owner[node.type + ":" + ts.text(node.child_by_field_name("name"))] = sc.name
        return _Sc(ts.text(node.child_by_field_name("name")), node.end_byte)

    def call(node, sc):
        owner["call:" + ts.text(node.child_by_field_name("name"))] = sc.name

    sweep(events, ScopeStack(_Sc("file", len(SRC) + 1)),
          {"class": opens, "method": opens, "call": call})
    assert owner == {"class_declaration:A": "file", "method_declaration:f": "A", "call:g": "f",
                     "class_declaration:In": "A", "method_declaration:h": "In", "call:f": "h"}


def test_two_sweeps_reenter_the_scopes_the_first_opened() -> None:
    root = ts.parse("java", SRC).root_node
    events = query_events("java", root)
    scope_of: dict[int, _Sc] = {}
    file_scope = _Sc("file", len(SRC) + 1)
    define_sweep(events, file_scope, scope_of, lambda cap, n, sc: _Sc(ts.text(n.child_by_field_name("name")),
                                                                      n.end_byte) if cap == "method" else None)
    seen: list[tuple[str, str]] = []
    reference_sweep(events, file_scope, scope_of, lambda n, new, outer: seen.append(("open", new.name)),
                    {"call": lambda n, sc: seen.append((ts.text(n.child_by_field_name("name")), sc.name)),
                     "new": lambda n, sc: seen.append(("new", sc.name))})
    assert seen == [("open", "f"), ("g", "f"), ("new", "f"), ("open", "h"), ("f", "h")]


def test_builder_keeps_a_symbol_once_and_writes_file_and_module() -> None:
    root = ts.parse("java", SRC).root_node
    b = Builder("r", "p/A.java", "java", SRC, root, is_test=False, line_count=text_lines(SRC))
    mod = b.module()
    assert (mod.qualified_name, mod.name, mod.kind, mod.language_kind, mod.line) == \
        ("p/A.java", "A.java", "module", "program", 1)
    cls = next(n for n in root.named_children if n.type == "class_declaration")
    first = b.define(cls, "class", "p.A", "A", signature="class A")
    again = b.define(cls, "class", "p.A", "A", signature="other")
    assert again is first and [s.qualified_name for s in b.symbols] == ["p/A.java", "p.A"]
    r = b.reference("CALLS", "p.A", first.signature_hash, "g", cls, hints([{"qn": "p.g", "how": "exact"}], "g"))
    assert (r.line, r.file, r.source_kind, b.references) == (2, "p/A.java", "symbol", [r])
    assert (b.fx.file.line_count, b.fx.file.size_bytes, b.fx.file.coverage_status) == (5, len(SRC), "full")


def test_hints_shape() -> None:
    assert hints([]) == {"candidates": []}
    assert hints([], None, name_always=True) == {"candidates": [], "name": None}
    assert hints([], "f", ["method"], True, {"arity": 1}) == \
        {"candidates": [], "name": "f", "name_kinds": ["method"], "optional": True, "arity": 1}
    assert (text_lines(b""), text_lines(b"a"), text_lines(b"a\n"), text_lines(b"a\nb")) == (0, 1, 1, 2)

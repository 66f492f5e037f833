"""C++ extractor: exact edge set of the `zoo` fixture (namespaces, out-of-line
definitions, overloads, virtual dispatch, constructors, typed receivers, base-class
walk, anonymous namespace, gtest TEST), plus naming and overload identity."""

from __future__ import annotations

import os
import time
from pathlib import Path

from codegraph.indexer.languages.cpp import extract
from tests.helpers import edge_set, resolve_tree

FX = Path(__file__).parent.parent / "fixtures" / "cpp" / "zoo"

EXPECTED = {
    ("EXTENDS", "zoo::Dog", "zoo::Animal"),
    ("IMPORTS", "include/zoo/animal.hpp", "stub:<string>"),
    ("IMPORTS", "src/animal.cpp", "include/zoo/animal.hpp"),
    ("IMPORTS", "src/keeper.cpp", "src/keeper.hpp"),
    ("IMPORTS", "src/keeper.cpp", "stub:<algorithm>"),
    ("IMPORTS", "src/keeper.hpp", "include/zoo/animal.hpp"),
    ("IMPORTS", "src/keeper.hpp", "stub:<memory>"),
    ("IMPORTS", "src/keeper.hpp", "stub:<vector>"),
    ("IMPORTS", "tests/zoo_test.cpp", "include/zoo/animal.hpp"),
    ("IMPORTS", "tests/zoo_test.cpp", "include/zoo/tag.h"),
    # overload calling its sibling overload (same qualified name, other signature)
    ("CALLS", "zoo::Animal::feed", "zoo::Animal::feed"),
    # implicit this, this-> through the base class
    ("CALLS", "zoo::Dog::fetch", "zoo::Dog::wag"),
    ("CALLS", "zoo::Dog::fetch", "zoo::Animal::feed"),
    # virtual dispatch on Animal& lands on the pure virtual; overloads; anonymous
    # namespace; field std::unique_ptr<Dog> dog_; pen_.push_back is STL (no edge, no stub)
    ("CALLS", "zoo::Keeper::care", "zoo::Animal::sound"),
    ("CALLS", "zoo::Keeper::care", "zoo::Animal::feed"),
    ("CALLS", "zoo::Keeper::care", "src/keeper.cpp::count_legs"),
    ("CALLS", "zoo::Keeper::care", "zoo::Dog::fetch"),
    # Dog d(3) / make_unique<Dog>() / new Dog(): class + constructor overloads;
    # std::sort is the standard library: no edge, no stub
    ("CALLS", "zoo::Keeper::adopt", "zoo::Dog"),
    ("CALLS", "zoo::Keeper::adopt", "zoo::Dog::Dog"),
    ("CALLS", "zoo::Keeper::adopt", "zoo::Dog::sound"),
    ("CALLS", "zoo::Keeper::adopt", "zoo::Animal::feed"),
    ("CALLS", "zoo::Keeper::adopt", "zoo::Dog::fetch"),
    ("CALLS", "zoo::Keeper::adopt", "zoo::Keeper::care"),
    ("CALLS", "zoo::Keeper::adopt", "zoo::Keeper::instance"),
    ("CALLS", "zoo::Keeper::adopt", "stub:mystery.run"),
    ("CALLS", "tests/zoo_test.cpp::DogTest.Barks", "zoo::Dog::sound"),
    ("CALLS", "tests/zoo_test.cpp::DogTest.Barks", "stub:EXPECT_EQ"),
    ("CALLS", "tests/zoo_test.cpp::DogTest.Barks", "tests/zoo_test.cpp::CHECK_SOUND"),
}


def test_exact_edge_set() -> None:
    assert edge_set(FX) == EXPECTED


def test_overloads_are_distinct_symbols_and_receive_overload_edges() -> None:
    fxs, res = resolve_tree(FX)
    feeds = [s for fx in fxs for s in fx.symbols if s.qualified_name == "zoo::Animal::feed"]
    assert len(feeds) == 2 and len({s.signature_hash for s in feeds}) == 2
    ctors = [s for fx in fxs for s in fx.symbols if s.qualified_name == "zoo::Dog::Dog"]
    assert len(ctors) == 2
    care_to_feed = [e for edges in res.edges.values() for e in edges
                    if e.source.split("|")[2] == "zoo::Keeper::care" and e.target.split("|")[2] == "zoo::Animal::feed"]
    # a.feed(2): the int literal cannot go to feed(const std::string&): one edge, to feed(int)
    [edge] = care_to_feed
    assert edge.resolution == "receiver_type" and edge.extra.get("arity") == 1
    assert next(s for s in feeds if s.uid == edge.target).params == "int"
    # constructor overloads are told apart by the number of arguments
    ctor_edges = {(e.line, e.target.split("|")[3]) for edges in res.edges.values() for e in edges
                  if e.target.split("|")[2] == "zoo::Dog::Dog" and e.source.split("|")[2] == "zoo::Keeper::adopt"}
    by_sig = {s.signature_hash: s.arity for s in ctors}
    assert sorted((line, by_sig[sig]) for line, sig in ctor_edges) == [(20, 1), (23, 0), (25, 0)]


def test_symbols_visibility_and_files() -> None:
    fxs, _ = resolve_tree(FX)
    syms = {s.qualified_name: s for fx in fxs for s in fx.symbols if s.kind != "module"}
    assert syms["zoo::Animal"].kind == "class" and syms["zoo::Animal"].parent == "zoo"
    assert syms["zoo::Animal::sound"].kind == "method"  # pure virtual: a symbol
    assert syms["zoo::Animal::weight_"].visibility == "protected"
    assert syms["zoo::Keeper::dog_"].visibility == "private"
    assert syms["zoo::Tag"].kind == "struct" and syms["zoo::Tag::id"].visibility == "public"
    assert syms["src/keeper.cpp::count_legs"].visibility == "private"
    assert syms["zoo::Keeper::care"].parent == "zoo::Keeper"  # out-of-line under `using namespace zoo`
    files = {fx.file.path: fx.file for fx in fxs}
    assert files["include/zoo/tag.h"].language == "cpp"  # .h with C++ inside
    assert files["tests/zoo_test.cpp"].is_test and not files["src/keeper.cpp"].is_test


def test_inline_access_sections_and_declaration_definition_agree() -> None:
    src = b"""
namespace a { namespace b {
class C {
  int hidden;
 public:
  void m(int x = 1) const;
  int v() { return hidden; }
 protected:
  static int s();
};
void C::m(int y) const {}
}}
struct GTEST_API_ S : public a::b::C { void n(); };
"""
    fx = extract("fx", "x.cpp", src)
    syms = {s.qualified_name: s for s in fx.symbols}
    assert syms["a::b::C::hidden"].visibility == "private"
    assert syms["a::b::C::v"].visibility == "public"
    assert syms["a::b::C::m"].parent == "a::b::C"
    assert "S" in syms  # the export macro does not derail the parse
    assert [r.target_identifier for r in fx.references if r.type == "EXTENDS"] == ["a::b::C"]
    decl = extract("fx", "x.cpp", b"namespace a { namespace b { void C::m(int) const {} } }")
    m = next(s for s in decl.symbols if s.qualified_name == "a::b::C::m")
    assert m.signature_hash == syms["a::b::C::m"].signature_hash


def test_odd_input_is_handled_and_long_chains_stay_linear() -> None:
    for src in (os.urandom(3000), b"class Caf\xe9 {};\n", b"\x00" * 100):
        fx = extract("fx", "x.cpp", src)
        assert fx.file.path == "x.cpp" and fx.symbols[0].kind == "module"
    # 20k-term expressions: a quadratic walk (parent lookups, parent-child query
    # patterns) takes minutes here; the linear one well under a second
    t0 = time.perf_counter()
    fx = extract("fx", "x.cpp", b"void m() { auto x = " + b"a+" * 20000 + b"a; }\n")
    assert time.perf_counter() - t0 < 15 and fx.file.coverage_status == "full"

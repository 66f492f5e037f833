"""Ruby extractor: exact edge set of the `shop` fixture (nesting, instance vs
singleton methods, mixins, superclass chain, super, ivar / local receiver types,
attr readers, require / require_relative), plus naming and visibility sections."""

from __future__ import annotations

import os
import time
from pathlib import Path

from codegraph.indexer.languages.ruby import extract
from tests.helpers import edge_set, resolve_tree

FX = Path(__file__).parent.parent / "fixtures" / "ruby" / "shop"

EXPECTED = {
    ("EXTENDS", "Shop::Cart", "Shop::Base"),
    ("EXTENDS", "Shop::GiftCart", "Shop::Cart"),
    ("IMPLEMENTS", "Shop::Cart", "Shop::Pricing"),  # include
    ("IMPLEMENTS", "Shop::Cart", "stub:Forwardable"),  # extend of a stdlib module
    ("IMPORTS", "lib/shop.rb", "lib/shop/cart.rb"),  # require_relative
    ("IMPORTS", "lib/shop.rb", "lib/shop/item.rb"),  # require via lib/ on the load path
    ("IMPORTS", "lib/shop.rb", "stub:json"),
    ("IMPORTS", "lib/shop/cart.rb", "lib/shop/item.rb"),
    ("IMPORTS", "lib/shop/cart.rb", "lib/shop/pricing.rb"),
    ("IMPORTS", "spec/cart_spec.rb", "lib/shop.rb"),
    # Foo.new -> class + initialize; local typed by Cart.new; module_function singleton
    ("CALLS", "Shop.run", "Shop::Cart"),
    ("CALLS", "Shop.run", "Shop::Cart#initialize"),
    ("CALLS", "Shop.run", "Shop::Item"),
    ("CALLS", "Shop.run", "Shop::Item#initialize"),
    ("CALLS", "Shop.run", "Shop::Cart#add"),
    ("CALLS", "Shop.run", "Shop::Cart#total"),
    ("CALLS", "Shop.run", "Shop::Util.fmt"),
    ("CALLS", "Shop::Cart#initialize", "Shop::Store"),
    # inherited (Base), self.x and bare `touch`, @store typed in initialize, unknown
    # receiver resolved by the unique method name
    ("CALLS", "Shop::Cart#add", "Shop::Base#log"),
    ("CALLS", "Shop::Cart#add", "Shop::Cart#touch"),
    ("CALLS", "Shop::Cart#add", "Shop::Store#put"),
    ("CALLS", "Shop::Cart#add", "Shop::Item#to_label"),
    # bare identifier from the Pricing mixin; private method
    ("CALLS", "Shop::Cart#total", "Shop::Pricing#subtotal"),
    ("CALLS", "Shop::Cart#total", "Shop::Cart#discount"),
    # `new` in a singleton method builds self's class; Cart.audit singleton
    ("CALLS", "Shop::Cart.build", "Shop::Cart#add"),
    ("CALLS", "Shop::Cart.build", "Shop::Cart.audit"),
    # super -> the superclass's method of the same name
    ("CALLS", "Shop::GiftCart#add", "Shop::Cart#add"),
    ("CALLS", "Shop::GiftCart#add", "stub:wrap"),
    # attr_reader methods called by bare name
    ("CALLS", "Shop::Item#to_label", "Shop::Item#name"),
    ("CALLS", "Shop::Item#to_label", "Shop::Item#price"),
    # spec: DSL calls (describe/it) make no stubs; repo.save is ambiguous (Store, Archive)
    ("CALLS", "spec/cart_spec.rb", "Shop::Cart"),
    ("CALLS", "spec/cart_spec.rb", "Shop::Cart#initialize"),
    ("CALLS", "spec/cart_spec.rb", "Shop::Cart#total"),
    ("CALLS", "spec/cart_spec.rb", "stub:repo.save"),
}


def test_exact_edge_set() -> None:
    assert edge_set(FX) == EXPECTED


def test_ambiguous_stub_and_reopened_class() -> None:
    fxs, res = resolve_tree(FX)
    stubs = {s.target_identifier: s for s in res.stubs.values()}
    assert stubs["repo.save"].reason == "ambiguous"
    assert stubs["repo.save"].candidates == ["Shop::Archive#save", "Shop::Store#save"]
    carts = [s for fx in fxs for s in fx.symbols if s.qualified_name == "Shop::Cart"]
    assert len(carts) == 2 and len({s.uid for s in carts}) == 2  # reopened in gift_cart.rb
    assert next(fx for fx in fxs if fx.file.path == "spec/cart_spec.rb").file.is_test
    add = next(s for fx in fxs for s in fx.symbols if s.qualified_name == "Shop::Cart#add")
    assert add.docstring == "Adds an item and records it in the store."


def test_visibility_sections_and_singletons() -> None:
    src = b"""
class A
  def pub; end
  private
  def hidden; end
  protected def prot; end
  public
  def again; end
  def gone; end
  private :gone
  class << self
    def sing; end
  end
end
def top_helper; end
"""
    fx = extract("fx", "lib/a.rb", src)
    by = {s.qualified_name: s for s in fx.symbols}
    assert by["A#pub"].visibility == "public"
    assert by["A#hidden"].visibility == "private"
    assert by["A#prot"].visibility == "protected"
    assert by["A#again"].visibility == "public"
    assert by["A#gone"].visibility == "private"
    assert by["A.sing"].parent == "A"
    assert by["Object#top_helper"].parent == "Object"
    assert by["A"].kind == "class"


def test_broken_input() -> None:
    fx = extract("fx", "lib/b.rb", b"class Ok\n  def fine; end\nend\nclass Broken\n  def x(\n")
    assert fx.file.had_error and fx.file.coverage_status in ("partial", "error")
    assert "Ok#fine" in {s.qualified_name for s in fx.symbols}


def test_odd_input_is_handled_and_long_chains_stay_linear() -> None:
    for src in (os.urandom(3000), b"def caf\xe9; end\n", b"\x00" * 100):
        fx = extract("fx", "x.rb", src)
        assert fx.file.path == "x.rb" and fx.symbols[0].kind == "module"
    # 20k-term expressions: a quadratic walk (parent lookups, parent-child query
    # patterns) takes minutes here; the linear one well under a second
    t0 = time.perf_counter()
    fx = extract("fx", "x.rb", b"def m\n  x = " + b"a+" * 20000 + b"a\nend\n")
    assert time.perf_counter() - t0 < 15 and fx.file.coverage_status == "full"

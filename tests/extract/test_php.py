"""PHP extractor: exact edge set of the `app` fixture (namespaces, `use` aliases and
`use function`, PSR-4 file guesses, require with __DIR__, $this / typed params /
promoted properties, self:: / static:: / parent::, new -> class + __construct, traits,
interfaces), plus naming, visibility and namespace forms."""

from __future__ import annotations

import os
import time
from pathlib import Path

from codegraph.indexer.languages.php import extract
from tests.helpers import edge_set, resolve_tree

FX = Path(__file__).parent.parent / "fixtures" / "php" / "app"

C = "App\\Http\\UserController"
U = "App\\Models\\User"
EXPECTED = {
    ("EXTENDS", "App\\Contracts\\Saves", "App\\Contracts\\Persistable"),  # interface extends
    ("EXTENDS", U, "App\\Models\\Model"),
    ("EXTENDS", "UserTest", "stub:TestCase"),
    ("IMPLEMENTS", U, "App\\Contracts\\Saves"),
    ("IMPLEMENTS", U, "App\\Support\\Timestamps"),  # trait use
    ("IMPORTS", "index.php", "src/Http/UserController.php"),
    ("IMPORTS", "index.php", "src/Support/helpers.php"),  # require 'src/...'
    ("IMPORTS", "src/Http/UserController.php", "src/Contracts/Saves.php"),
    ("IMPORTS", "src/Http/UserController.php", "src/Models/Repo.php"),  # use ... as Storage
    ("IMPORTS", "src/Http/UserController.php", "src/Models/User.php"),
    ("IMPORTS", "src/Http/UserController.php", "src/Support/helpers.php"),  # __DIR__ . '/../...'
    ("IMPORTS", "src/Models/User.php", "src/Contracts/Saves.php"),
    ("IMPORTS", "src/Models/User.php", "src/Support/Timestamps.php"),
    ("IMPORTS", "tests/UserTest.php", "src/Models/User.php"),
    # new -> class + __construct; typed params (interface dispatch, alias Storage);
    # static call through a use; $this->; `use function`; fully qualified function;
    # unknown receiver -> ambiguous stub (User::save, Saves::save)
    ("CALLS", f"{C}::store", U),
    ("CALLS", f"{C}::store", f"{U}::__construct"),
    ("CALLS", f"{C}::store", f"{U}::save"),
    ("CALLS", f"{C}::store", "App\\Contracts\\Saves::save"),
    ("CALLS", f"{C}::store", "App\\Models\\Repo::find"),
    ("CALLS", f"{C}::store", f"{U}::count"),
    ("CALLS", f"{C}::store", f"{C}::render"),
    ("CALLS", f"{C}::store", "App\\Support\\slug"),
    ("CALLS", f"{C}::store", "App\\Support\\now"),
    ("CALLS", f"{C}::store", "stub:$unknown->save"),
    ("CALLS", f"{C}::render", "App\\Models\\Model::fresh"),  # method of the parent class
    ("CALLS", "App\\Models\\Repo::persist", "App\\Models\\Model::fresh"),
    ("CALLS", f"{U}::__construct", "App\\Models\\Model::__construct"),  # parent::
    # $this->, promoted property type, trait method, self:: and static::
    ("CALLS", f"{U}::save", f"{U}::validate"),
    ("CALLS", f"{U}::save", "App\\Models\\Repo::persist"),
    ("CALLS", f"{U}::save", "App\\Support\\Timestamps::touch"),
    ("CALLS", f"{U}::save", f"{U}::count"),
    ("CALLS", "App\\Support\\Timestamps::touch", "App\\Support\\now"),  # same-namespace function
    # time() / strtolower() are PHP built-ins: no edge and no stub (none is defined here)
    ("CALLS", "UserTest::testSave", U),
    ("CALLS", "UserTest::testSave", f"{U}::__construct"),
    ("CALLS", "UserTest::testSave", f"{U}::save"),
    ("CALLS", "UserTest::testSave", "App\\Models\\Repo"),
    ("CALLS", "index.php", C),  # top-level code belongs to the file's module symbol
    ("CALLS", "index.php", f"{C}::store"),
}


def test_exact_edge_set() -> None:
    assert edge_set(FX) == EXPECTED


def test_stub_reason_and_symbols() -> None:
    fxs, res = resolve_tree(FX)
    stubs = {s.target_identifier: s for s in res.stubs.values()}
    assert stubs["$unknown->save"].reason == "ambiguous"
    syms = {s.qualified_name: s for fx in fxs for s in fx.symbols}
    assert syms[U].kind == "class" and syms[U].parent == "App\\Models"
    assert syms["App\\Contracts\\Saves"].kind == "interface"
    assert syms["App\\Support\\Timestamps"].kind == "trait"
    assert syms[f"{U}::$email"].kind == "field" and syms[f"{U}::$email"].visibility == "private"
    assert syms[f"{U}::$repo"].visibility == "private"  # promoted constructor parameter
    assert syms[f"{U}::validate"].visibility == "protected"
    assert syms[f"{U}::save"].docstring == "/** Validates, then persists through the repository. */"
    files = {fx.file.path: fx.file for fx in fxs}
    assert files["tests/UserTest.php"].is_test and not files["src/Models/User.php"].is_test


def test_block_namespaces_enums_and_broken_input() -> None:
    src = b"""<?php
namespace A\\B {
    enum Suit: string { case Hearts = 'h'; public function label(): string { return ucfirst($this->value); } }
    function f() { return new Suit(); }
}
namespace {
    function g() { return \\A\\B\\f(); }
}
"""
    fx = extract("fx", "x.php", src)
    qns = {s.qualified_name for s in fx.symbols}
    assert {"A\\B\\Suit", "A\\B\\Suit::Hearts", "A\\B\\Suit::label", "A\\B\\f", "g"} <= qns
    g_call = next(r for r in fx.references if r.source_qualified_name == "g")
    assert g_call.extra["candidates"][0]["qn"] == "A\\B\\f"
    broken = extract("fx", "b.php", b"<?php\nclass Ok { function a() {} }\nclass Bad { function ( }\n")
    assert broken.file.had_error and "Ok::a" in {s.qualified_name for s in broken.symbols}


def test_odd_input_is_handled_and_long_chains_stay_linear() -> None:
    for src in (os.urandom(3000), b"<?php function caf\xe9() {}\n", b"\x00" * 100):
        fx = extract("fx", "x.php", src)
        assert fx.file.path == "x.php" and fx.symbols[0].kind == "module"
    # 20k-term expressions: a quadratic walk (parent lookups, parent-child query
    # patterns) takes minutes here; the linear one well under a second
    t0 = time.perf_counter()
    fx = extract("fx", "x.php", b"<?php\nfunction m() { $x = " + b"$a.'s'." * 20000 + b"$a; }\n")
    assert time.perf_counter() - t0 < 15 and fx.file.coverage_status == "full"

"""Python extractor: per-construct fixtures with the exact resolved edge set (a missing
and an extra edge both fail), record properties, broken input, and facts read from real
standard-library modules of the running interpreter."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from codegraph.indexer.languages import extractor_for
from codegraph.indexer.languages import python as py
from codegraph.indexer.records import FileExtraction, Reference
from codegraph.indexer.resolve import resolve_repo
from codegraph.indexer.treesitter import signature_hash
from tests.helpers import all_edges, edge_set_with_resolution

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "python"


def edges(name: str) -> set[tuple[str, str, str, str]]:
    return edge_set_with_resolution(FIX / name)


def edges_at(name: str, edge_type: str = "CALLS") -> set[tuple[str, str, int, str]]:
    """(source, target, line, resolution): tells apart calls the plain set merges."""
    out = set()
    for e in all_edges(FIX / name):
        if e.type != edge_type:
            continue
        src = e.source.split("|")[2]
        kind, _, rest = e.target.partition("|")
        tgt = "stub:" + rest.split("|", 1)[1] if kind == "stub" else rest.split("|")[1]
        out.add((src, tgt, e.line, e.resolution))
    return out


def ex(source: str, path: str = "pkg/mod.py") -> FileExtraction:
    return py.extract("r", path, source.encode())


def calls(fx: FileExtraction) -> list[Reference]:
    return [r for r in fx.references if r.type == "CALLS"]


# -- naming and record properties ----------------------------------------------------------
@pytest.mark.parametrize(("path", "module"), [
    ("a/b.py", "a.b"),
    ("a/b.pyi", "a.b"),
    ("pkg/__init__.py", "pkg"),
    ("src/pkg/mod.py", "pkg.mod"),
    ("src/pkg/__init__.py", "pkg"),
    ("src/src/x.py", "src.x"),
    ("src/__init__.py", "src"),
    ("setup.py", "setup"),
])
def test_module_name(path: str, module: str) -> None:
    assert py.module_name(path) == module


@pytest.mark.parametrize(("path", "is_test"), [
    ("tests/helpers.py", True), ("pkg/test/x.py", True), ("test_api.py", True), ("pkg/api_test.py", True),
    ("pkg/testing.py", False), ("pkg/contest.py", False), ("latest/x.py", False),
])
def test_is_test(path: str, is_test: bool) -> None:
    assert py.extract("r", path, b"x = 1\n").file.is_test is is_test


def test_registry_finds_the_python_extractor() -> None:
    assert extractor_for("python") is py


SRC = '''"""Module doc."""
import functools


def _private(a, b=1):
    """Adds.

        Indented detail.
    """
    return a + b


class Outer(object):
    """An outer class."""

    @functools.cache
    @staticmethod
    def __dunder__(x):
        pass

    def __mangled(self):
        def nested():
            pass
        return nested

    class Inner:
        def m(self, *args, **kw) -> int:
            return 1


async def fetch(url: str,
                timeout: float = 1.0):
    return url
'''


def test_symbols_have_every_property() -> None:
    fx = ex(SRC)
    by = {s.qualified_name: s for s in fx.symbols}
    assert list(by) == [
        "pkg.mod", "pkg.mod._private", "pkg.mod.Outer", "pkg.mod.Outer.__dunder__", "pkg.mod.Outer.__mangled",
        "pkg.mod.Outer.__mangled.nested", "pkg.mod.Outer.Inner", "pkg.mod.Outer.Inner.m", "pkg.mod.fetch",
    ]
    mod = by["pkg.mod"]
    assert (mod.kind, mod.line, mod.end_line, mod.parent, mod.docstring) == ("module", 1, 33, None, "Module doc.")
    f = by["pkg.mod._private"]
    assert (f.kind, f.name, f.line, f.end_line, f.visibility, f.parent) == ("function", "_private", 5, 10, "private", "pkg.mod")
    assert f.signature == "def _private(a, b=1)"
    assert f.docstring == "Adds.\n\nIndented detail."  # inspect.cleandoc rules
    assert f.language_kind == "function_definition" and f.language == "python" and f.file == "pkg/mod.py"
    assert f.signature_hash == signature_hash("function", "pkg.mod._private", "(a, b=1)")
    d = by["pkg.mod.Outer.__dunder__"]
    assert (d.kind, d.line, d.visibility, d.parent) == ("method", 18, "public", "pkg.mod.Outer")  # def line, not decorator
    assert by["pkg.mod.Outer.__mangled"].visibility == "private"
    assert by["pkg.mod.Outer.__mangled.nested"].kind == "function"
    assert by["pkg.mod.Outer.__mangled.nested"].parent == "pkg.mod.Outer.__mangled"
    c = by["pkg.mod.Outer"]
    assert (c.kind, c.language_kind, c.signature, c.docstring) == ("class", "class_definition", "class Outer(object)", "An outer class.")
    assert by["pkg.mod.Outer.Inner.m"].signature == "def m(self, *args, **kw) -> int"
    assert by["pkg.mod.fetch"].signature == "async def fetch(url: str, timeout: float = 1.0)"
    assert fx.file.line_count == 33 and fx.file.coverage_status == "full" and not fx.file.had_error


def test_signature_hash_ignores_body_content_hash_does_not() -> None:
    a = {s.qualified_name: s for s in ex("def f(a, b):\n    return a\n").symbols}["pkg.mod.f"]
    b = {s.qualified_name: s for s in ex("\n\ndef f(a,  b):\n    return b * 2\n").symbols}["pkg.mod.f"]
    c = {s.qualified_name: s for s in ex("def f(a, b, c):\n    return a\n").symbols}["pkg.mod.f"]
    assert a.signature_hash == b.signature_hash != c.signature_hash
    assert a.content_hash != b.content_hash


def test_redefinitions_keep_one_symbol_per_key_and_property_setters_both() -> None:
    fx = ex("if X:\n    def f(a): pass\nelse:\n    def f(a): pass\n"
            "class C:\n    @property\n    def v(self): pass\n    @v.setter\n    def v(self, x): pass\n")
    qns = [s.qualified_name for s in fx.symbols]
    assert qns.count("pkg.mod.f") == 1
    assert qns.count("pkg.mod.C.v") == 2  # getter and setter differ in parameters
    assert not calls(fx)  # @property is a builtin, @v.setter an attribute of the getter


def test_docstring_is_trimmed_and_fstrings_are_not_docstrings() -> None:
    fx = ex('def f():\n    """' + "word " * 300 + '"""\n\ndef g():\n    f"not {1} a doc"\n')
    by = {s.name: s for s in fx.symbols}
    assert len(by["f"].docstring) <= py.DOCSTRING_MAX and by["f"].docstring.startswith("word word")
    assert by["g"].docstring == ""


def test_exports_of_init_and_plain_module() -> None:
    init = ex("from .core import Engine\nfrom .util import helper as h\nfrom .shapes import *\n"
              "from . import sub\nimport os\n\ndef local():\n    from .late import inner\n",
              "pkg/__init__.py")
    assert init.exports == {
        "Engine": {"from": ["pkg/core.py", "pkg/core/__init__.py"], "name": "Engine"},
        "h": {"from": ["pkg/util.py", "pkg/util/__init__.py"], "name": "helper"},
        "*": {"from_all": [["pkg/shapes.py", "pkg/shapes/__init__.py"]]},
        "local": {"qn": "pkg.local"},
        "sub": {"modules": [["pkg/sub.py", "pkg/sub/__init__.py"]]},  # the submodule bound by ``from . import``
    }
    imports = [r for r in init.references if r.type == "IMPORTS" and r.target_identifier == "pkg.core"]
    assert imports[0].extra["forwarding"] is True and imports[0].extra["names"] == ["Engine"]
    mod = ex("class A:\n    def m(self): pass\ndef f(): pass\n_x = 1\n")
    assert mod.exports == {"A": {"qn": "pkg.mod.A"}, "f": {"qn": "pkg.mod.f"}}


def test_import_candidates() -> None:
    fx = ex("import a.b as c\nfrom ..m import f as g\nfrom . import x\n", "src/pkg/sub/mod.py")
    imp = {r.target_identifier: r for r in fx.references if r.type == "IMPORTS"}
    assert [c.get("path") for c in imp["a.b"].extra["candidates"]] == [
        "src/a/b.py", "src/a/b/__init__.py", "a/b.py", "a/b/__init__.py", None]
    assert imp["a.b"].extra["candidates"][-1] == {  # ``b`` may be a module bound in a/__init__.py
        "module_chain": {"file": ["src/a.py", "src/a/__init__.py", "a.py", "a/__init__.py"], "attrs": ["b"],
                         "to_file": True}, "how": "module_alias"}
    assert [c["path"] for c in imp["pkg.m"].extra["candidates"]] == ["src/pkg/m.py", "src/pkg/m/__init__.py"]
    assert imp["pkg.m"].extra["names"] == ["f"]
    assert imp["pkg.sub"].extra["optional"] is True  # namespace packages have no __init__
    assert [c["path"] for c in imp["pkg.sub.x"].extra["candidates"]] == ["src/pkg/sub/x.py", "src/pkg/sub/x/__init__.py"]
    assert all(r.source_kind == "file" and r.source_qualified_name == "src/pkg/sub/mod.py" for r in imp.values())


# -- reference shapes the resolver relies on -------------------------------------------------
def test_calls_through_imported_modules_never_fall_back_to_a_bare_name() -> None:
    fx = ex("import os\nimport numpy as np\nfrom x import y\n\ndef f():\n    os.path.join('a')\n"
            "    np.array([1])\n    y.z()\n    y()\n")
    for r in calls(fx):
        assert "name" not in r.extra, r
    assert {r.target_identifier for r in calls(fx)} == {"os.path.join", "numpy.array", "x.y.z", "x.y"}


def test_super_candidates() -> None:
    fx = ex("from base import Base\nclass A(Base, object):\n    def run(self):\n        return super().run()\n")
    (ref,) = calls(fx)
    assert ref.source_qualified_name == "pkg.mod.A.run"
    assert ref.target_identifier == "base.Base.run"
    assert ref.extra == {"candidates": [
        {"super_of": "pkg.mod.A", "member": "run", "how": "self"},
        {"owner": "base.Base", "member": "run", "how": "self"},
    ]}


def test_builtins_and_builtin_values_emit_nothing() -> None:
    fx = ex("def f(cb, items):\n    n = len(items)\n    parts = []\n    parts.append(n)\n    ','.join(parts)\n"
            "    cb()\n    d = {}\n    d.get(1)\n    s: str = g()\n    s.upper()\n    items.strip()\n")
    assert [(r.target_identifier, r.extra.get("name")) for r in calls(fx) if "param_call" not in r.extra] == [("g", "g")]
    # cb() on a parameter: only an optional hint for the resolver's parameter join, never a stub
    [hint] = [r for r in calls(fx) if "param_call" in r.extra]
    assert hint.extra == {"candidates": [], "optional": True, "param_call": {"owner": "pkg.mod.f", "index": 0, "name": "cb"}}


def test_headers_belong_to_the_enclosing_scope() -> None:
    """Python evaluates default values, annotations and class bases where the def stands."""
    fx = ex("def g(): pass\nclass B: pass\n\ndef outer():\n    def f(x=g(),\n          y=lambda: g()):\n        pass\n"
            "    class C(mk(B)):\n        z = g()\n")
    assert sorted((r.source_qualified_name, r.target_identifier, r.line) for r in calls(fx)) == [
        ("pkg.mod.outer", "mk", 8),
        ("pkg.mod.outer", "pkg.mod.g", 5),
        ("pkg.mod.outer.<lambda0>", "pkg.mod.g", 6),  # a lambda default is a symbol of outer
        ("pkg.mod.outer.C", "pkg.mod.g", 9),
    ]


# -- exact edge sets per construct -----------------------------------------------------------
def test_aliases() -> None:
    assert edges("aliases") == {
        ("CALLS", "app.main", "pkg.util.helper", "import"),      # u.helper(), pkg.util.helper(), h(), util.helper()
        ("CALLS", "app.main", "pkg.util.Tool.run", "import"),    # Tool.run(None)
        ("CALLS", "pkg.util.Tool.run", "pkg.util.helper", "same_module"),
        ("IMPORTS", "app.py", "pkg/util.py", "import"),
        ("IMPORTS", "app.py", "pkg/__init__.py", "import"),      # from pkg import util
    }
    assert {(s, t, line) for s, t, line, _ in edges_at("aliases")} >= {
        ("app.main", "pkg.util.helper", n) for n in (9, 10, 11, 12)}


def test_relative_imports_and_reexports() -> None:
    assert edges("relative") == {
        ("CALLS", "main.go", "pkg.core.Engine", "import"),              # via pkg/__init__ re-export
        ("CALLS", "main.go", "pkg.core.Engine.start", "receiver_type"),  # e = Engine(); e.start()
        ("CALLS", "main.go", "pkg.sub.leaf.leaf_fn", "import"),          # lf, re-exported under an alias
        ("CALLS", "pkg.core.make", "pkg.core.Engine", "same_module"),
        ("CALLS", "pkg.sub.leaf.leaf_fn", "pkg.core.make", "import"),    # mk() and core.make()
        ("CALLS", "pkg.sub.leaf.leaf_fn", "pkg.sub.sibling.sib", "import"),
        ("IMPORTS", "main.py", "pkg/__init__.py", "import"),
        ("IMPORTS", "pkg/__init__.py", "pkg/core.py", "import"),
        ("IMPORTS", "pkg/__init__.py", "pkg/sub/leaf.py", "import"),
        ("IMPORTS", "pkg/sub/leaf.py", "pkg/__init__.py", "import"),     # from .. import core
        ("IMPORTS", "pkg/sub/leaf.py", "pkg/core.py", "import"),
        ("IMPORTS", "pkg/sub/leaf.py", "pkg/sub/__init__.py", "import"),
        ("IMPORTS", "pkg/sub/leaf.py", "pkg/sub/sibling.py", "import"),
    }


def test_self_and_cls() -> None:
    assert edges("self_cls") == {
        ("CALLS", "store.Store.save", "store.Store.validate", "self"),
        ("CALLS", "store.Store.save", "store.Store._write", "self"),
        ("CALLS", "store.Store.create", "store.Store", "self"),           # cls()
        ("CALLS", "store.Store.create", "store.Store.__init__", "self"),
        ("CALLS", "store.Store.create", "store.Store.configure", "self"),
        ("CALLS", "store.Store.later", "store.Store.validate", "self"),   # inside a comprehension
    }  # self.items.append(): items = [] is a builtin list, no edge


def test_super() -> None:
    assert edges("super_calls") == {
        ("CALLS", "child.Child.__init__", "base.Base.__init__", "self"),
        ("CALLS", "child.Child.run", "base.Base.run", "self"),     # super().run() and super(Child, self).run()
        ("CALLS", "child.Grand.run", "child.Child.run", "self"),
        ("CALLS", "child.Leaf.run", "base.Base.run", "self"),      # through Mid, which has no run
        ("EXTENDS", "base.Mid", "base.Base", "same_module"),
        ("EXTENDS", "child.Child", "base.Base", "import"),
        ("EXTENDS", "child.Grand", "child.Child", "same_module"),
        ("EXTENDS", "child.Leaf", "base.Mid", "import"),
        ("IMPORTS", "child.py", "base.py", "import"),
    }  # Plain/Oops: super() of object / Exception reaches nothing in the repo, no stub
    assert len(edges_at("super_calls")) == 5


def test_constructor_and_init() -> None:
    assert edges("constructor") == {
        ("CALLS", "use.build", "models.Parser", "import"),
        ("CALLS", "use.build", "models.Parser.__init__", "import"),
        ("CALLS", "use.build", "models.Plain", "import"),             # no __init__: no edge, no stub
        ("CALLS", "use.build", "use.Local", "same_module"),
        ("CALLS", "use.build", "use.Local.__init__", "same_module"),
        ("IMPORTS", "use.py", "models.py", "import"),
    }


def test_receiver_types_and_same_named_methods() -> None:
    assert edges("receivers") == {
        ("CALLS", "svc.Service.__init__", "models.Repo", "import"),
        ("CALLS", "svc.Service.store", "models.Repo.save", "receiver_type"),  # self.repo = Repo() elsewhere
        ("CALLS", "svc.local_var", "models.Parser", "import"),
        ("CALLS", "svc.local_var", "models.Parser.run", "receiver_type"),     # p = Parser(); p.run()
        ("CALLS", "svc.chained", "models.Parser", "import"),
        ("CALLS", "svc.chained", "models.Parser.run", "receiver_type"),       # Parser().run()
        ("CALLS", "svc.typed", "models.Parser.run", "receiver_type"),         # p: Parser
        ("CALLS", "svc.typed", "models.Repo.save", "receiver_type"),          # q: "Repo", r: Optional[Repo]
        ("CALLS", "svc.annotated", "svc.get", "same_module"),
        ("CALLS", "svc.annotated", "models.Repo.save", "receiver_type"),      # r: Repo = get()
        ("CALLS", "svc.make_parser", "models.Parser", "import"),
        ("CALLS", "svc.returned", "svc.make_parser", "same_module"),
        ("CALLS", "svc.returned", "models.Parser.run", "receiver_type"),      # -> Parser
        ("IMPORTS", "svc.py", "models.py", "import"),
        ("IMPORTS", "svc.py", "stub:typing", "stub"),
        ("USES_TYPE", "svc.typed", "models.Parser", "annotation"),           # annotations name types
        ("USES_TYPE", "svc.typed", "models.Repo", "annotation"),
        ("USES_TYPE", "svc.annotated", "models.Repo", "annotation"),
        ("USES_TYPE", "svc.make_parser", "models.Parser", "annotation"),
    }  # Runner.run and Cache.save, same names, never receive an edge
    typed = {(t, line) for s, t, line, _ in edges_at("receivers") if s == "svc.typed"}
    assert typed == {("models.Parser.run", 32), ("models.Repo.save", 33), ("models.Repo.save", 34)}


def test_unknown_receiver_unique_or_ambiguous_never_a_guess() -> None:
    assert edges("ambiguous") == {
        ("CALLS", "things.use", "stub:save", "stub"),                       # Repo.save and Cache.save
        ("CALLS", "things.use", "things.Repo.only_here", "unique_name"),
        ("CALLS", "things.use", "stub:missing_everywhere", "stub"),
    }
    fxs, res = _resolve_dir(FIX / "ambiguous")
    stub = res.stubs["stub|fx|save"]
    assert (stub.reason, stub.candidates) == ("ambiguous", ["things.Cache.save", "things.Repo.save"])
    assert res.stubs["stub|fx|missing_everywhere"].reason == "missing"


def test_decorated_nested_lambda_comprehension() -> None:
    assert edges("decorated_nested") == {
        ("CALLS", "deco", "deco.deco", "same_module"),           # @deco on a module-level def
        ("CALLS", "deco", "deco.deco_factory", "same_module"),   # @deco_factory(1)
        ("CALLS", "deco", "deco.deco", "value_flow"),            # ... returns deco, called with b
        ("CALLS", "deco.K", "deco.deco", "same_module"),         # @deco on a method: the class body
        ("CALLS", "deco.K", "stub:functools.wraps", "stub"),
        ("REFERENCES", "deco.K", "deco.a", "same_module"),       # functools.wraps(a)
        ("CALLS", "deco.K.m.<lambda0>", "deco.helper", "same_module"),     # inside a lambda
        ("REFERENCES", "deco.K.m", "deco.K.m.<lambda0>", "same_module"),   # a lambda is a value
        ("CALLS", "deco.K.w.<lambda0>", "deco.helper", "same_module"),     # lambda passed as an argument
        ("REFERENCES", "deco.K.w", "deco.K.w.<lambda0>", "same_module"),
        ("REFERENCES", "deco.deco_factory", "deco.deco", "same_module"),   # return deco
        ("CALLS", "deco.b", "deco.b.inner", "same_module"),
        ("CALLS", "deco.b", "deco.helper", "same_module"),       # inside a comprehension
        ("CALLS", "deco.b.inner", "deco.helper", "same_module"),
        ("IMPORTS", "deco.py", "stub:functools", "stub"),
    }


def test_module_level_code_belongs_to_the_module_symbol() -> None:
    assert edges("module_level") == {
        ("CALLS", "boot", "boot.setup", "same_module"),
        ("CALLS", "boot.Config", "boot.setup", "same_module"),   # class body
    }
    assert {line for s, _, line, _ in edges_at("module_level") if s == "boot"} == {9, 11}


def test_external_calls_become_missing_stubs() -> None:
    # local.py defines join, dumps and OrderedDict: none may receive these calls.
    assert edges("external") == {
        ("CALLS", "ext.f", "stub:os.path.join", "stub"),
        ("CALLS", "ext.f", "stub:json.dumps", "stub"),
        ("CALLS", "ext.f", "stub:collections.OrderedDict", "stub"),
        ("IMPORTS", "ext.py", "stub:os.path", "stub"),
        ("IMPORTS", "ext.py", "stub:json", "stub"),
        ("IMPORTS", "ext.py", "stub:collections", "stub"),
    }


def test_star_imports_and_fallback_imports() -> None:
    assert edges("star") == {
        ("CALLS", "draw.render", "shapes.circle.area", "import"),
        ("CALLS", "draw.render", "shapes.square.side", "import"),   # side() and perimeter() (2nd binding)
        ("CALLS", "draw.render", "stub:nowhere", "stub"),
        ("CALLS", "shapes.circle.Circle.grow", "shapes.circle.area", "same_module"),
        ("EXTENDS", "draw.Ring", "shapes.circle.Circle", "import"),
        ("IMPORTS", "draw.py", "shapes/__init__.py", "import"),
        ("IMPORTS", "draw.py", "shapes/square.py", "import"),
        ("IMPORTS", "draw.py", "stub:fastshapes", "stub"),
        ("IMPORTS", "shapes/__init__.py", "shapes/circle.py", "import"),
        ("IMPORTS", "shapes/__init__.py", "shapes/square.py", "import"),
    }
    assert ("draw.render", "shapes.square.side", 16, "import") in edges_at("star")


def test_src_layout() -> None:
    assert edges("src_layout") == {
        ("CALLS", "app.core.thing", "app.helpers.tidy", "import"),
        ("CALLS", "tests.test_core.test_thing", "app.core.thing", "import"),
        ("IMPORTS", "src/app/core.py", "src/app/helpers.py", "import"),
        ("IMPORTS", "tests/test_core.py", "src/app/core.py", "import"),
    }


def test_broken_syntax_gives_partial_coverage_and_keeps_what_parsed() -> None:
    fx = py.extract("fx", "bad.py", (FIX / "broken" / "bad.py").read_bytes())
    assert fx.file.had_error and fx.file.coverage_status == "partial"
    assert fx.errors and all(e.startswith("line ") for e in fx.errors)
    assert {s.qualified_name for s in fx.symbols} >= {"bad", "bad.good", "bad.Fine", "bad.Fine.ok"}
    assert edges("broken") == {
        ("CALLS", "bad.Fine.ok", "bad.good", "same_module"),
        ("CALLS", "bad.good", "stub:os.getcwd", "stub"),
        ("IMPORTS", "bad.py", "stub:os", "stub"),
    }


@pytest.mark.parametrize("source", [
    b"", b"\x00\x01\x02\xff binary", b"def f(:\n  $$$ %%%\n  return g()\n\ndef g(\n", b"\xef\xbb\xbfdef f(): pass\n",
    b"class A(\n" * 200,
])
def test_bad_input_never_raises(source: bytes) -> None:
    fx = py.extract("r", "x.py", source)
    assert fx.symbols[0].kind == "module" and fx.symbols[0].qualified_name == "x"


def test_declared_encoding_is_honoured() -> None:
    src = "# -*- coding: latin-1 -*-\ndef caf\xe9():\n    '''\xe0 la carte'''\n".encode("latin-1")
    fx = py.extract("r", "m.py", src)
    by = {s.name: s for s in fx.symbols}
    assert by["café"].docstring == "à la carte" and fx.file.coverage_status == "full"
    assert fx.file.size_bytes == len(src)


# -- real code: standard-library modules of this machine --------------------------------------
STDLIB = Path(sysconfig.get_paths()["stdlib"])
STD_FILES = ["shlex.py", "textwrap.py", "json/__init__.py", "json/decoder.py", "json/scanner.py"]


def _resolve_dir(root: Path) -> tuple[list[FileExtraction], object]:
    from tests.helpers import resolve_tree
    return resolve_tree(root)


@pytest.fixture(scope="module")
def stdlib_edges() -> set[tuple[str, str, str, str]]:
    if not all((STDLIB / f).is_file() for f in STD_FILES):
        pytest.skip(f"standard library sources not found under {STDLIB}")
    fxs = [py.extract("std", f, (STDLIB / f).read_bytes()) for f in STD_FILES]
    assert all(fx.file.coverage_status == "full" for fx in fxs)
    res = resolve_repo("std", fxs)

    def end(uid: str) -> str:
        kind, _, rest = uid.partition("|")
        rest = rest.partition("|")[2]
        return rest.rsplit("|", 1)[0] if kind == "sym" else (f"stub:{rest}" if kind == "stub" else rest)

    return {(e.type, end(e.source), end(e.target), e.resolution) for es in res.edges.values() for e in es}


@pytest.mark.parametrize("edge", [
    # json/decoder.py: JSONDecoder.decode() calls self.raw_decode(...)
    ("CALLS", "json.decoder.JSONDecoder.decode", "json.decoder.JSONDecoder.raw_decode", "self"),
    # py_scanstring() calls _decode_uXXXX(s, end) and raises JSONDecodeError(...)
    ("CALLS", "json.decoder.py_scanstring", "json.decoder._decode_uXXXX", "same_module"),
    ("CALLS", "json.decoder.py_scanstring", "json.decoder.JSONDecodeError", "same_module"),
    ("CALLS", "json.decoder.py_scanstring", "json.decoder.JSONDecodeError.__init__", "same_module"),
    # json/__init__.py: loads() uses the module-level _default_decoder = JSONDecoder(...)
    ("CALLS", "json.loads", "json.decoder.JSONDecoder.decode", "receiver_type"),
    ("CALLS", "json", "json.decoder.JSONDecoder.__init__", "import"),
    ("IMPORTS", "json/decoder.py", "json/scanner.py", "import"),
    # textwrap.wrap(): w = TextWrapper(width=width, **kwargs); return w.wrap(text)
    ("CALLS", "textwrap.wrap", "textwrap.TextWrapper.__init__", "same_module"),
    ("CALLS", "textwrap.wrap", "textwrap.TextWrapper.wrap", "receiver_type"),
    ("CALLS", "textwrap.TextWrapper.wrap", "textwrap.TextWrapper._split_chunks", "self"),
    ("CALLS", "textwrap.TextWrapper.wrap", "textwrap.TextWrapper._wrap_chunks", "self"),
    # shlex.split(): lex = shlex(s, posix=posix); shlex.join() calls quote(arg)
    ("CALLS", "shlex.split", "shlex.shlex", "same_module"),
    ("CALLS", "shlex.split", "shlex.shlex.__init__", "same_module"),
    ("CALLS", "shlex.join", "shlex.quote", "same_module"),
    ("CALLS", "shlex.shlex.get_token", "shlex.shlex.read_token", "self"),
    ("CALLS", "shlex.shlex.__next__", "shlex.shlex.get_token", "self"),
])
def test_stdlib_facts(stdlib_edges: set[tuple[str, str, str, str]], edge: tuple[str, str, str, str]) -> None:
    assert edge in stdlib_edges


def test_stdlib_no_false_links(stdlib_edges: set[tuple[str, str, str, str]]) -> None:
    targets = {(s, t) for _, s, t, _ in stdlib_edges}
    # shlex.join() is ``' '.join(quote(arg) for ...)``: the builtin str.join links nowhere,
    # least of all to shlex.join itself.
    assert {t for s, t in targets if s == "shlex.join"} == {"shlex.quote"}
    # textwrap.wrap() reaches TextWrapper.wrap only through its receiver, never by name.
    assert {r for _, s, t, r in stdlib_edges if s == "textwrap.wrap" and t == "textwrap.TextWrapper.wrap"} == {"receiver_type"}
    # ``import re`` resolves to nothing in this 5-file repo: a missing stub, never a guess.
    assert ("CALLS", "shlex", "stub:re.compile", "stub") in stdlib_edges

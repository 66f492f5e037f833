"""Python value flow and module aliases: per-construct fixtures with the exact resolved
edge set (a missing and an extra edge both fail), facts read from the standard library of
the running interpreter, and the query side (a name as written finds its symbol)."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from codegraph.core.embedded_graph import EmbeddedGraphStore
from codegraph.core.targets import resolve_target
from codegraph.indexer.languages import python as py
from codegraph.indexer.pipeline import index_repo
from codegraph.indexer.resolve import resolve_repo
from codegraph.indexer.state import StateStore
from tests.helpers import edge_set_with_resolution

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "python_flow"
STDLIB = Path(sysconfig.get_paths()["stdlib"])


def edges(name: str) -> set[tuple[str, str, str, str]]:
    return edge_set_with_resolution(FIX / name)


# -- module aliases ----------------------------------------------------------------------------
def test_module_aliases() -> None:
    assert edges("module_alias") == {
        # myos.py binds ``path`` to one of two modules (import ... as path in both branches)
        ("CALLS", "app.main", "posixpathx.join", "module_alias"),
        ("CALLS", "app.main", "ntpathx.join", "module_alias"),
        ("CALLS", "app.main", "pkg.impl.join", "module_alias"),    # from . import impl as path
        ("CALLS", "app.main", "pkg.tools.run", "import"),           # from . import tools
        ("CALLS", "app.main", "stub:myos.path.split", "stub"),      # neither module has split
        ("IMPORTS", "app.py", "myos.py", "import"),                  # from myos import path
        ("IMPORTS", "app.py", "posixpathx.py", "module_alias"),      # import myos.path
        ("IMPORTS", "app.py", "ntpathx.py", "module_alias"),
        ("IMPORTS", "app.py", "pkg/__init__.py", "import"),
        ("IMPORTS", "myos.py", "posixpathx.py", "import"),
        ("IMPORTS", "myos.py", "ntpathx.py", "import"),
        ("IMPORTS", "myos.py", "stub:sys", "stub"),
        ("IMPORTS", "pkg/__init__.py", "pkg/impl.py", "import"),
        ("IMPORTS", "pkg/__init__.py", "pkg/tools.py", "import"),
        # backend/ is no package: a script there imports its neighbours by bare name
        ("CALLS", "backend.server.main", "backend.auth_utils.check", "import"),
        ("IMPORTS", "backend/server.py", "backend/auth_utils.py", "import"),
        # ``from myos.path import join``: the module is a name myos binds, not a file
        ("CALLS", "fromalias.main2", "posixpathx.join", "module_alias"),
        ("CALLS", "fromalias.main2", "ntpathx.join", "module_alias"),
        ("IMPORTS", "fromalias.py", "posixpathx.py", "module_alias"),
        ("IMPORTS", "fromalias.py", "ntpathx.py", "module_alias"),
    }


def test_module_alias_exports() -> None:
    fx = py.extract("r", "myos.py", (FIX / "module_alias" / "myos.py").read_bytes())
    assert fx.exports == {"path": {"modules": [
        ["ntpathx.py", "ntpathx/__init__.py", "src/ntpathx.py", "src/ntpathx/__init__.py"],
        ["posixpathx.py", "posixpathx/__init__.py", "src/posixpathx.py", "src/posixpathx/__init__.py"]]}}


STD_OS = ["os.py", "posixpath.py", "ntpath.py", "genericpath.py", "shutil.py"]


def test_stdlib_os_path_join_reaches_posixpath() -> None:
    if not all((STDLIB / f).is_file() for f in STD_OS):
        pytest.skip(f"standard library sources not found under {STDLIB}")
    fxs = [py.extract("std", f, (STDLIB / f).read_bytes()) for f in STD_OS]
    res = resolve_repo("std", fxs)
    got = {(e.source.split("|")[2], e.target.split("|")[2], e.resolution, e.line)
           for es in res.edges.values() for e in es if e.type == "CALLS"}
    # shutil.copy(): dst = os.path.join(dst, os.path.basename(src)) at line 418 of 3.11
    copy = {(t, r) for s, t, r, _ in got if s == "shutil.copy"}
    assert ("posixpath.join", "module_alias") in copy and ("ntpath.join", "module_alias") in copy
    assert ("posixpath.basename", "module_alias") in copy
    assert not any(t == "os.path.join" for s, t, _, _ in got if s == "shutil.copy")  # no stub left


def test_stdlib_from_os_path_import_join_reaches_posixpath() -> None:
    """The last ``os.path.join`` stubs of the stdlib came from ``from os.path import join``
    (turtle.py, idlelib/help.py, lib2to3/fixes/fix_import.py, distutils/tests/test_sdist.py)."""
    if not all((STDLIB / f).is_file() for f in STD_OS):
        pytest.skip(f"standard library sources not found under {STDLIB}")
    fxs = [py.extract("std", f, (STDLIB / f).read_bytes()) for f in STD_OS]
    fxs.append(py.extract("std", "user.py", b"from os.path import join\n\ndef f():\n    return join('a', 'b')\n"))
    res = resolve_repo("std", fxs)
    got = {(e.type, e.target.split("|")[2], e.resolution) for e in res.edges["user.py"]}
    assert got == {("CALLS", "posixpath.join", "module_alias"), ("CALLS", "ntpath.join", "module_alias"),
                   ("IMPORTS", "posixpath.py", "module_alias"), ("IMPORTS", "ntpath.py", "module_alias")}


def test_impact_target_written_as_the_code_writes_it(tmp_path: Path) -> None:
    graph = EmbeddedGraphStore(tmp_path / "graph.db")
    state = StateStore(tmp_path / "state.db")
    index_repo(FIX / "module_alias", "ma", graph, None, state, workers=1)
    state.close()
    found = resolve_target(graph, "myos.path.join", "ma")
    assert sorted(n.props["qualified_name"] for n in found) == ["ntpathx.join", "posixpathx.join"]


# -- value flow, parameters, protocols, annotations, injection ---------------------------------
def test_value_flow_across_a_small_app() -> None:
    assert edges("values") == {
        ("CALLS", "app", "lib.logged", "import"),                       # @logged
        ("CALLS", "app", "stub:fastapi.Depends", "stub"),
        ("CALLS", "lib.logged.wrapper", "app.job", "parameter"),        # the wrapper calls the wrapped job
        ("REFERENCES", "lib.logged", "lib.logged.wrapper", "same_module"),  # return wrapper
        # dict with a literal key, then an unknown key; nested destructuring; an alias
        ("CALLS", "app.dispatch", "app.on_a", "value_flow"),
        ("CALLS", "app.dispatch", "app.on_b", "value_flow"),
        ("REFERENCES", "app", "app.on_a", "same_module"),               # HANDLERS = {...}
        ("REFERENCES", "app", "app.on_b", "same_module"),
        ("REFERENCES", "app.dispatch", "app.on_a", "same_module"),
        ("REFERENCES", "app.dispatch", "app.on_b", "same_module"),
        # self.client typed by the constructor's annotation; self.hook = on_a; with self.client
        ("CALLS", "app.Service.run", "lib.Client.fetch", "receiver_type"),
        ("CALLS", "app.Service.run", "app.on_a", "value_flow"),
        ("CALLS", "app.Service.run", "lib.Client.__enter__", "protocol"),
        ("CALLS", "app.Service.run", "lib.Client.__exit__", "protocol"),
        ("REFERENCES", "app.Service.__init__", "app.on_a", "same_module"),
        ("USES_TYPE", "app.Service.__init__", "lib.Client", "annotation"),
        # c = make_client() -> Optional[Client] in another file; on_b handed to apply()
        ("CALLS", "app.job", "lib.make_client", "import"),
        ("CALLS", "app.job", "lib.Client.fetch", "return_type"),
        ("CALLS", "app.job", "lib.apply", "import"),
        ("CALLS", "lib.apply", "app.on_b", "parameter"),
        ("REFERENCES", "app.job", "app.on_b", "same_module"),
        ("CALLS", "app.job.<lambda0>", "app.on_a", "same_module"),     # a lambda is a symbol
        ("REFERENCES", "app.job", "app.job.<lambda0>", "same_module"),
        ("CALLS", "lib.make_client", "lib.Client", "same_module"),
        ("USES_TYPE", "lib.make_client", "lib.Client", "annotation"),
        ("INJECTS", "app.items", "app.get_db", "injection"),            # Depends(get_db)
        ("IMPORTS", "app.py", "lib.py", "import"),
        ("IMPORTS", "app.py", "stub:fastapi", "stub"),
        ("IMPORTS", "lib.py", "stub:typing", "stub"),
    }


def test_init_parameter_typed_by_every_visible_construction() -> None:
    """``self.store = store`` then ``self.store.query()``: typed by what the constructions
    pass, only when every one of them is visible and agrees; else the stub stays."""
    assert edges("ctor_args") == {
        ("CALLS", "app.Agreed.go", "stores.Db.query", "receiver_type"),  # Db() twice, default None once
        ("CALLS", "app.Disagreed.go", "stub:query", "stub"),             # Db() and Cache()
        ("CALLS", "app.HandedAround.go", "stub:query", "stub"),          # factory(HandedAround)
        ("CALLS", "app.Subclassed.go", "stub:query", "stub"),            # class Sub(Subclassed)
        ("CALLS", "app.Splatted.go", "stub:query", "stub"),              # Splatted(*args)
        *{("CALLS", "app.main", f"app.{c}{m}", "same_module")
          for c in ("Agreed", "Disagreed", "HandedAround", "Subclassed", "Splatted") for m in ("", ".__init__")},
        ("CALLS", "app.main", "stores.Cache", "import"),
        ("CALLS", "app.main", "stores.Db", "import"),
        ("EXTENDS", "app.Sub", "app.Subclassed", "same_module"),
        ("IMPORTS", "app.py", "stores.py", "import"),
        ("REFERENCES", "app.main", "app.HandedAround", "same_module"),
    }


def test_self_call_reaches_the_overrides_below_its_class() -> None:
    """``self.m()`` in class B: the method found, plus every override on a class below B
    (``dispatch``); super(), ``Impl.setup(self)``, mangled names and classes that are not
    below B get none."""
    assert edges("dispatch") == {
        ("CALLS", "base.Base.make", "base.Base.build", "self"),
        ("CALLS", "base.Base.make", "impl.Impl.build", "dispatch"),      # cls.build() in a classmethod
        ("CALLS", "base.Base.run", "base.Base.__secret", "self"),        # mangled: no override
        ("CALLS", "base.Base.run", "base.Base.helper", "self"),
        ("CALLS", "base.Base.run", "impl.Sibling.helper", "dispatch"),
        ("CALLS", "base.Base.run", "base.Base.setup", "self"),
        ("CALLS", "base.Base.run", "impl.Impl.setup", "dispatch"),
        ("CALLS", "base.Base.run", "impl.Deeper.setup", "dispatch"),     # two levels down
        ("CALLS", "impl.Caller.go", "base.Base.helper", "self"),         # Sibling is not below Caller
        ("CALLS", "impl.Deeper.setup", "impl.Impl.setup", "same_module"),
        ("CALLS", "impl.Impl.setup", "base.Base.setup", "self"),         # super(): the implementation
        ("EXTENDS", "impl.Caller", "impl.Impl", "same_module"),
        ("EXTENDS", "impl.Deeper", "impl.Impl", "same_module"),
        ("EXTENDS", "impl.Impl", "base.Base", "import"),
        ("EXTENDS", "impl.Sibling", "base.Base", "import"),
        ("IMPORTS", "impl.py", "base.py", "import"),
    }


def test_methods_return_types_reach_callers_in_other_files() -> None:
    """A method's return type (annotation, ``return C()``, ``return self``) is exported as
    ``Class.method`` and read by callers elsewhere; chains through a method of this file;
    a method returning a parameter gives nothing (the stub stays)."""
    assert edges("method_returns") == {
        ("CALLS", "app.Local.make", "lib.Pool", "import"),
        ("CALLS", "app.built", "app.Local", "same_module"),
        ("CALLS", "app.built", "app.Local.make", "receiver_type"),
        ("CALLS", "app.built", "lib.Conn.query", "return_type"),    # lines 17, 18, 19
        ("CALLS", "app.built", "lib.Pool", "import"),
        ("CALLS", "app.built", "lib.Pool.get", "receiver_type"),
        ("CALLS", "app.built", "lib.SubPool", "import"),
        ("CALLS", "app.typed", "lib.Conn.query", "return_type"),    # lines 11, 12
        ("CALLS", "app.typed", "lib.Pool.fluent", "receiver_type"),
        ("CALLS", "app.typed", "lib.Pool.get", "receiver_type"),
        ("CALLS", "app.typed", "lib.Pool.plain", "receiver_type"),
        ("CALLS", "app.unknown", "lib.Pool.unknown", "receiver_type"),
        ("CALLS", "app.unknown", "stub:lib.Pool.unknown().query", "stub"),  # Conn or Other: not known
        ("CALLS", "lib.Pool.get", "lib.Conn", "same_module"),
        ("CALLS", "lib.Pool.plain", "lib.Conn", "same_module"),
        ("EXTENDS", "lib.SubPool", "lib.Pool", "same_module"),
        ("IMPORTS", "app.py", "lib.py", "import"),
        ("USES_TYPE", "app.typed", "lib.Pool", "annotation"),
        ("USES_TYPE", "app.unknown", "lib.Pool", "annotation"),
        ("USES_TYPE", "lib.Pool.get", "lib.Conn", "annotation"),
    }
    fx = py.extract("r", "lib.py", (FIX / "method_returns" / "lib.py").read_bytes())
    assert {k: v for k, v in fx.exports.items() if "." in k} == {
        "Pool.get": {"returns": [{"owner": "lib.Conn"}]}, "Pool.plain": {"returns": [{"owner": "lib.Conn"}]},
        "Pool.fluent": {"returns": [{"owner": "lib.Pool"}]}}


def test_lambda_symbols_are_numbered_per_enclosing_symbol() -> None:
    fx = py.extract("r", "m.py", b"a = lambda: 1\ndef f():\n    g = lambda x: x\n    h = lambda: (lambda: 2)\n")
    lams = [(s.qualified_name, s.kind, s.language_kind, s.line) for s in fx.symbols if s.language_kind == "lambda"]
    assert lams == [("m.<lambda0>", "function", "lambda", 1), ("m.f.<lambda0>", "function", "lambda", 3),
                    ("m.f.<lambda1>", "function", "lambda", 4), ("m.f.<lambda1>.<lambda0>", "function", "lambda", 4)]


CORPUS = Path(__file__).resolve().parents[2] / "bench" / "recall" / "cases"


def _corpus_cases() -> list[object]:
    import sys
    sys.path.insert(0, str(CORPUS.parent))
    from score import parse  # bench/recall/score.py
    return [c for p in sorted(CORPUS.glob("python_*.txt")) for c in parse(p)]


@pytest.mark.parametrize("case", _corpus_cases(), ids=lambda c: f"{c.category}/{c.name}")
def test_recall_corpus_snippet_is_exact(case: object) -> None:
    """Every Python snippet of the scored corpus: the found CALLS / REFERENCES /
    USES_TYPE / INJECTS edges equal the hand-written ground truth exactly."""
    from score import found_edges
    assert found_edges(case) == case.expect  # type: ignore[attr-defined]


def test_a_container_rewritten_thousands_of_times_stays_bounded_and_quiet() -> None:
    """``a[i] = a[j]`` over and over (array test suites): value queries stop at the
    per-file bound instead of going quadratic, and invent nothing."""
    body = "".join(f"    a[{i % 7}] = a[{(i * 3) % 5}]\n    g(a[{i % 3}])\n" for i in range(1500))
    src = f"def g(x):\n    x()\n\ndef f():\n    a = [1, 2, 3]\n{body}    g(f)\n"
    fx = py.extract("r", "m.py", src.encode())
    res = resolve_repo("r", [fx])
    got = {(e.type, e.source.split("|")[2], e.target.split("|")[2], e.resolution) for es in res.edges.values() for e in es}
    # g(f) hands f to g, which calls its parameter; REFERENCES f -> f is a self-edge (dropped)
    assert got == {("CALLS", "m.f", "m.g", "same_module"), ("CALLS", "m.g", "m.f", "parameter")}


def test_names_read_from_an_imported_module_use_that_modules_files(tmp_path: Path) -> None:
    """``import pkg; c = pkg.Client(); c.fetch()`` and ``pkg.make().fetch()`` where pkg
    re-exports them: the owner's and the function's export are looked up in pkg's own files
    (``pkg/__init__.py``), not in ``pkg/.py`` (an empty attribute path gave that before)."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from pkg._impl import Client, make\n")
    (tmp_path / "pkg" / "_impl.py").write_text(
        "class Client:\n    def fetch(self):\n        return 1\n\n\ndef make() -> Client:\n    return Client()\n")
    (tmp_path / "app.py").write_text("import pkg\n\n\ndef main():\n    c = pkg.Client()\n    c.fetch()\n"
                                     "    pkg.make().fetch()\n")
    got = {e for e in edge_set_with_resolution(tmp_path) if e[0] == "CALLS" and e[1] == "app.main"}
    assert got == {
        ("CALLS", "app.main", "pkg._impl.Client", "import"),
        ("CALLS", "app.main", "pkg._impl.make", "import"),
        ("CALLS", "app.main", "pkg._impl.Client.fetch", "receiver_type"),
        ("CALLS", "app.main", "pkg._impl.Client.fetch", "return_type"),
    }

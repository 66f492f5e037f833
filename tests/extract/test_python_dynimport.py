"""Python dynamic imports (``python.dynimport``): a module named by a string literal given to
``importlib.import_module`` / ``__import__``, directly or through a module-returning function
of this or another file, reached through ``global`` rebinding, a parameter default and an
``if p is None: p = ...`` flow. Exact edge sets per line (a missing and an extra edge both
fail), the exports that carry ``module_param``, and the standard-library case this rule was
built for (``ET.XML`` in test_xml_etree.py)."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from codegraph.indexer.languages import python as py
from codegraph.indexer.resolve import resolve_repo
from tests.helpers import _end, all_edges

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "python_flow" / "dynamic_import"
STDLIB = Path(sysconfig.get_paths()["stdlib"])


def test_modules_named_by_a_string_reach_their_functions() -> None:
    got = {(e.line, e.type, _end(e.source), _end(e.target), e.resolution)
           for e in all_edges(FIX) if e.file == "app.py"}
    assert got == {
        (1, "IMPORTS", "app.py", "stub:importlib", "stub"),
        (2, "IMPORTS", "app.py", "helpers.py", "import"),
        (3, "IMPORTS", "app.py", "helpers.py", "import"),
        (12, "CALLS", "app.set_up", "helpers.load", "import"),
        # MOD is rebound by ``global`` in set_up to ``module``: its default None adds nothing,
        # ``module = m`` carries what load("pkg.mod") returns (load returns import_module(name))
        (19, "CALLS", "app.use_global", "pkg.mod.f", "dynamic_import"),
        (20, "CALLS", "app.use_global", "pkg.mod.C", "dynamic_import"),
        (20, "CALLS", "app.use_global", "pkg.mod.C.__init__", "dynamic_import"),
        (21, "CALLS", "app.use_global", "stub:missing", "stub"),  # not in pkg.mod: the stub as before
        (25, "CALLS", "app.use_calls", "helpers.load_from", "import"),
        (25, "CALLS", "app.use_calls", "pkg.sub.g", "dynamic_import"),   # from importlib import import_module
        (26, "CALLS", "app.use_calls", "helpers.load", "import"),
        (26, "CALLS", "app.use_calls", "pkg.sub.g", "dynamic_import"),   # the parameter by keyword
        (27, "CALLS", "app.use_calls", "helpers.load_leaf", "import"),
        (27, "CALLS", "app.use_calls", "pkg.sub.g", "dynamic_import"),   # __import__ with a fromlist: the leaf
        (28, "CALLS", "app.use_calls", "helpers.load_top", "import"),
        (28, "CALLS", "app.use_calls", "pkg.sub.g", "dynamic_import"),   # __import__: top package, then .sub
        (29, "CALLS", "app.use_calls", "helpers.renamed", "import"),
        (29, "CALLS", "app.use_calls", "stub:helpers.renamed().f", "stub"),          # rebound parameter
        (30, "CALLS", "app.use_calls", "helpers.not_a_loader", "import"),
        (30, "CALLS", "app.use_calls", "stub:helpers.not_a_loader().f", "stub"),     # returns no module
        (31, "CALLS", "app.use_calls", "helpers.load", "import"),
        (31, "CALLS", "app.use_calls", "stub:helpers.load().f", "stub"),             # not a literal
        (35, "CALLS", "app.use_direct", "stub:importlib.import_module", "stub"),
        (35, "CALLS", "app.use_direct", "pkg.sub.g", "dynamic_import"),
        (36, "CALLS", "app.use_direct", "stub:importlib.import_module", "stub"),
        (37, "CALLS", "app.use_direct", "pkg.sub.g", "dynamic_import"),
        (39, "CALLS", "app.use_direct", "pkg.mod.f", "dynamic_import"),  # __import__("pkg.mod") is pkg
        (40, "CALLS", "app.use_direct", "stub:importlib.import_module", "stub"),
        (40, "CALLS", "app.use_direct", "pkg.mod.C", "dynamic_import"),
        (40, "CALLS", "app.use_direct", "pkg.mod.C.__init__", "dynamic_import"),
        (41, "CALLS", "app.use_direct", "pkg.mod.C.run", "receiver_type"),  # obj = ...("pkg.mod").C()
        (45, "CALLS", "app.local_loader", "stub:importlib.import_module", "stub"),
        (49, "CALLS", "app.use_local", "app.local_loader", "same_module"),
        (49, "CALLS", "app.use_local", "pkg.mod.f", "dynamic_import"),   # a loader of this file
        (50, "CALLS", "app.use_local", "app.local_loader", "same_module"),
        (51, "CALLS", "app.use_local", "pkg.sub.g", "dynamic_import"),
    }


def test_module_returning_functions_are_exported_with_their_parameter() -> None:
    fx = py.extract("r", "helpers.py", (FIX / "helpers.py").read_bytes())
    assert {k: v["module_param"] for k, v in fx.exports.items() if "module_param" in v} == {
        "load": {"index": 0, "name": "name", "top": False},
        "load_from": {"index": 0, "name": "name", "top": False},
        "load_top": {"index": 0, "name": "name", "top": True},
        "load_leaf": {"index": 0, "name": "name", "top": False},
    }  # renamed() rebinds its parameter, not_a_loader() imports nothing


def test_a_module_returned_by_a_helper_of_another_file_without_a_module_param_gives_nothing() -> None:
    """The same call shape, but the callee's export has no ``module_param``: no edge, the stub stays."""
    helper = py.extract("r", "h.py", b"def get(name):\n    return name\n")
    user = py.extract("r", "u.py", b"from h import get\nfrom pkg import mod\nM = get('pkg.mod')\n\ndef f():\n    M.f()\n")
    pkg = py.extract("r", "pkg/mod.py", b"def f():\n    pass\n")
    res = resolve_repo("r", [helper, user, pkg])
    got = {(e.type, _end(e.source), _end(e.target), e.resolution) for e in res.edges.get("u.py", []) if e.type == "CALLS"}
    assert got == {("CALLS", "u", "h.get", "import"), ("CALLS", "u.f", "stub:h.get().f", "stub")}


STD = ["test/test_xml_etree.py", "test/support/import_helper.py", "xml/etree/ElementTree.py", "xml/__init__.py",
       "xml/etree/__init__.py", "test/support/__init__.py", "test/__init__.py"]


def test_stdlib_et_xml_reaches_elementtree_through_import_fresh_module() -> None:
    """test_xml_etree.py: ``ET = None``; ``setUpModule(module=None)`` sets ``global pyET`` to
    ``import_fresh_module('xml.etree.ElementTree', ...)`` (test.support.import_helper, which
    returns ``importlib.import_module(name)``), then ``global ET``; ``ET = module``."""
    if not all((STDLIB / f).is_file() for f in STD):
        pytest.skip(f"standard library sources not found under {STDLIB}")
    fxs = [py.extract("std", f, (STDLIB / f).read_bytes()) for f in STD]
    res = resolve_repo("std", fxs)
    xml = [e for e in res.edges["test/test_xml_etree.py"] if e.type == "CALLS"
           and _end(e.target) == "xml.etree.ElementTree.XML"]
    assert xml and {e.resolution for e in xml} == {"dynamic_import"}
    src = (STDLIB / STD[0]).read_text(encoding="utf-8").splitlines()
    # every edge sits on a written ET.XML call, or ET.fromstring (ElementTree.py: ``fromstring = XML``)
    assert all("ET.XML(" in src[e.line - 1] or "ET.fromstring(" in src[e.line - 1] for e in xml)


def test_helper_and_module_under_a_package_root(tmp_path: Path) -> None:
    """``backend/shopapp`` imported as ``shopapp``: the helper's files and the literal
    module's files get the package-root variants too (python.roots)."""
    pkg = tmp_path / "backend" / "shopapp"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "support.py").write_text("import importlib\n\ndef load(name):\n    return importlib.import_module(name)\n")
    (pkg / "plug.py").write_text("def f():\n    return 1\n")
    (pkg / "app.py").write_text("from shopapp.support import load\n\ndef main():\n    load('shopapp.plug').f()\n")
    got = {(e.type, _end(e.source), _end(e.target), e.resolution) for e in all_edges(tmp_path) if e.type == "CALLS"}
    assert got == {
        ("CALLS", "backend.shopapp.app.main", "backend.shopapp.support.load", "import"),
        ("CALLS", "backend.shopapp.app.main", "backend.shopapp.plug.f", "dynamic_import"),
        ("CALLS", "backend.shopapp.support.load", "stub:importlib.import_module", "stub"),
    }

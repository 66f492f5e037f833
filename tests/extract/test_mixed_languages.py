"""Name-based resolution never crosses languages (tests/fixtures/mixed: Python, Java,
Kotlin, TypeScript, JavaScript in one repo). JVM languages share symbols, and so do
JS/TS; a Python ``order.get("items")`` or a TypeScript ``cache.get(key)`` on a Map must
not become a call of the Java ``OrderController.get``."""

from __future__ import annotations

from pathlib import Path

from codegraph.core.models import FileRecord, SymbolRecord
from codegraph.indexer.records import FileExtraction, Reference
from codegraph.indexer.resolve import resolve_repo
from tests.helpers import edge_set_with_resolution

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "mixed"

EXPECTED = {
    ("CALLS", "etl.orders.total", "etl.orders.count", "same_module"),
    ("CALLS", "etl.orders.total", "stub:get", "stub"),  # order.get("items"): a dict, not Java
    ("CALLS", "shop.OrderController", "shop.OrderRepo", "same_module"),
    ("CALLS", "shop.OrderController.count", "shop.OrderRepo.size", "receiver_type"),
    ("CALLS", "shop.OrderController.get", "shop.OrderRepo.find", "receiver_type"),
    ("CALLS", "shop.audit", "shop.OrderController.count", "receiver_type"),  # Kotlin -> Java: one JVM
    ("CALLS", "shop.audit", "shop.OrderController.get", "receiver_type"),
    ("CALLS", "web/cache.remember", "web/cache.lookup", "same_module"),
    ("CALLS", "web/page.show", "web/cache.lookup", "import"),  # JS -> TS: one module graph
    ("IMPORTS", "web/page.js", "web/cache.ts", "import"),
}


def test_mixed_fixture_edge_set_is_exact() -> None:
    assert edge_set_with_resolution(FIX) == EXPECTED


def _fx(path: str, language: str, symbols: list[SymbolRecord], refs: list[Reference]) -> FileExtraction:
    return FileExtraction(FileRecord("r", path, language, "h"), symbols, refs)


def _sym(qn: str, path: str, language: str, kind: str = "method") -> SymbolRecord:
    return SymbolRecord("r", qn, "s", qn.rsplit(".", 1)[-1], kind, language, "x", path, 1, 2, parent=qn.rsplit(".", 1)[0])


def _name_call(src: str, path: str, target: str, name: str, kinds: list[str]) -> Reference:
    # What an extractor emits for a call on a receiver of unknown type: the name fallback.
    return Reference("CALLS", src, target, path, 3, extra={"candidates": [], "name": name, "name_kinds": kinds})


def test_unique_name_stays_inside_a_language_family() -> None:
    java = _fx("A.java", "java", [_sym("shop.OrderController.get", "A.java", "java")], [])
    ts = _fx("web/c.ts", "typescript", [_sym("web/c.lookup", "web/c.ts", "typescript", "function")],
             [_name_call("web/c.lookup", "web/c.ts", "cache.get", "get", ["method"])])
    py = _fx("etl/o.py", "python", [_sym("etl.o.total", "etl/o.py", "python", "function")],
             [_name_call("etl.o.total", "etl/o.py", "order.get", "get", ["method"])])
    kt = _fx("K.kt", "kotlin", [_sym("shop.k", "K.kt", "kotlin", "function")],
             [_name_call("shop.k", "K.kt", "c.get", "get", ["method"])])
    js = _fx("web/p.js", "javascript", [_sym("web/p.show", "web/p.js", "javascript", "function")],
             [_name_call("web/p.show", "web/p.js", "x.lookup", "lookup", ["function"])])
    res = resolve_repo("r", [java, ts, py, kt, js])
    got = {(e.source.split("|")[2], e.target.split("|")[2], e.resolution, e.extra.get("confidence"))
           for es in res.edges.values() for e in es}
    assert got == {
        ("web/c.lookup", "cache.get", "stub", None),  # TypeScript Map.get is not Java's get
        ("etl.o.total", "order.get", "stub", None),  # nor is a Python dict's
        ("shop.k", "shop.OrderController.get", "unique_name", 0.5),  # Kotlin may call Java by name
        ("web/p.show", "web/c.lookup", "unique_name", 0.5),  # JS may call TS by name
    }

"""The adapter entry point: trigger-string fast path, failure isolation, and framework
records through the JSONL contract."""

from __future__ import annotations

import io

from codegraph.indexer.adapters import FileCtx, _adapters, extract_framework
from codegraph.indexer.extract import extract_source
from codegraph.indexer.records import read_jsonl, write_jsonl
from tests.boundaries.util import FIXTURES, end, link_tree


def test_files_without_trigger_strings_are_not_parsed() -> None:
    src = b"def add(a, b):\n    return a + b\n"
    ctx = FileCtx("python", "m.py", src)
    for adapter in _adapters():
        assert adapter(ctx) == []
    assert "root" not in ctx.__dict__  # the tree was never built
    assert extract_framework("python", "m.py", src) == []


def test_records_carry_type_file_line_and_attribution_line() -> None:
    src = (FIXTURES / "flask/shop/orders.py").read_bytes()
    recs = extract_framework("python", "shop/orders.py", src)
    assert [(r["type"], r["line"], r["at"], r["method"], r["path"]) for r in recs] == [
        ("endpoint", 6, 7, "GET", "/orders/:order_id"),  # decorator line; `def` line for the owner
        ("endpoint", 11, 12, "PUT", "/orders/:order_id/items"),
    ]
    assert all(r["file"] == "shop/orders.py" for r in recs)


def test_unsupported_language_gets_sql_only() -> None:
    src = b'<?php\n$rows = $db->query("SELECT id FROM invoices WHERE paid = 0");\n'
    recs = extract_framework("php", "a.php", src)
    assert [(r["type"], r["table"], r["access"]) for r in recs] == [("table_access", "invoices", "read")]


def test_a_broken_adapter_costs_only_the_framework_records(monkeypatch) -> None:
    import codegraph.indexer.adapters as adapters

    def boom(ctx: FileCtx) -> list:
        raise RuntimeError("adapter bug")

    monkeypatch.setattr(adapters, "_adapters", lambda: [boom])
    fx = extract_source("fx", "a.py", "python", b"def f():\n    return 1\n")
    assert [s.qualified_name for s in fx.symbols] == ["a", "a.f"]
    assert fx.framework == [] and any("framework adapters failed" in e for e in fx.errors)


def test_framework_records_survive_jsonl() -> None:
    fxs, _, links = link_tree(FIXTURES / "monorepo")
    buf = io.StringIO()
    write_jsonl(buf, {"extractor_version": "t"}, fxs)
    buf.seek(0)
    _, back, problems = read_jsonl(buf)
    assert problems == []
    assert sorted(r["type"] for fx in back for r in fx.framework) == sorted(
        r["type"] for fx in fxs for r in fx.framework)
    from codegraph.indexer.boundaries import link_boundaries
    from codegraph.indexer.languages import link_repo
    from codegraph.indexer.resolve import resolve_repo

    link_repo(back, FIXTURES / "monorepo")
    res = resolve_repo("fx", back)
    again = link_boundaries("fx", back, res, FIXTURES / "monorepo")
    key = lambda lk: {(e.type, end(e.source), end(e.target), e.line) for es in lk.edges.values() for e in es}  # noqa: E731
    assert key(again) == key(links) and len(key(links)) == 13

"""Stored queries may inherit another folder's patterns (`; inherits: a, b`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegraph.indexer import treesitter as ts


def _write(root: Path, folder: str, text: str) -> None:
    (root / folder).mkdir(parents=True, exist_ok=True)
    (root / folder / "tags.scm").write_text(text)


def test_inherited_patterns_come_first_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, "base", "(a) @x\n")
    _write(tmp_path, "mid", "; inherits: base\n(b) @x\n")
    _write(tmp_path, "other", "(c) @x\n")
    _write(tmp_path, "leaf", "; inherits: mid, other\n(d) @x\n")
    monkeypatch.setattr(ts, "QUERIES_DIR", tmp_path)
    assert ts.query_text("leaf", "tags") == (
        "(a) @x\n\n; inherits: base\n(b) @x\n\n(c) @x\n\n; inherits: mid, other\n(d) @x\n")
    assert ts.query_text("base", "tags") == "(a) @x\n"


def test_an_inheritance_cycle_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, "a", "; inherits: b\n(x) @n\n")
    _write(tmp_path, "b", "; inherits: a\n(y) @n\n")
    monkeypatch.setattr(ts, "QUERIES_DIR", tmp_path)
    with pytest.raises(ValueError, match="a -> b -> a"):
        ts.query_text("a", "tags")


def test_the_typescript_family_shares_the_ecmascript_patterns() -> None:
    shared = ts.query_text("ecmascript", "tags")
    for lang in ("javascript", "typescript", "tsx"):
        assert ts.query_text(lang, "tags").startswith(shared)
        ts.query_for(lang, "tags")  # every pattern is valid for the grammar
    assert "(jsx_opening_element) @node" in ts.query_text("tsx", "tags")
    assert "(as_expression) @type" in ts.query_text("tsx", "tags")
    assert "(as_expression) @type" not in ts.query_text("javascript", "tags")

"""Search chunks (codegraph.indexer.chunks) on real standard-library code and on small
hand-made files for the edge cases (sections, huge classes, braces)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from codegraph.core.models import FileRecord, SymbolRecord, stable_hash
from codegraph.indexer.chunks import EMBED_TOKENS, MAX_TEXT, SECTION_LINES, approx_tokens, chunks_for_file
from codegraph.indexer.records import FileExtraction
from tests.stdlib_source import extract_python, stdlib_files

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def stdlib_chunks(rel: str, repo: str = "std"):  # type: ignore[no-untyped-def]
    (path, src), = stdlib_files([rel])
    fx = extract_python(repo, path, src)
    return fx, src, chunks_for_file(fx, src)


def test_one_chunk_per_function_method_and_class_with_real_source() -> None:
    fx, src, chunks = stdlib_chunks("json/decoder.py")
    lines = src.split("\n")
    wanted = {s.uid: s for s in fx.symbols if s.kind in ("function", "method", "class")}
    sym_chunks = [c for c in chunks if c.kind != "section"]
    assert sorted(c.symbol_uid for c in sym_chunks) == sorted(wanted)
    for c in sym_chunks:
        s = wanted[c.symbol_uid]
        assert (c.kind, c.qualified_name, c.name, c.line, c.end_line) == (s.kind, s.qualified_name, s.name, s.line,
                                                                           s.end_line)
        assert c.chunk_id == f"std|json/decoder.py|{s.qualified_name}|{s.signature_hash}"
        assert c.file_uid == fx.file.uid and c.repo == "std" and c.language == "python"
        full = "\n".join(lines[s.line - 1:s.end_line])
        if len(full) <= MAX_TEXT:
            assert c.text == full
        else:  # JSONDecoder: header + docstring + member signatures
            assert c.kind == "class" and c.text.startswith("class JSONDecoder(object):")
            assert "    def raw_decode(self, s, idx=0)" in c.text
    scan = next(c for c in chunks if c.qualified_name == "json.decoder.py_scanstring")
    assert "def py_scanstring(s, end, strict=True" in scan.text and "chunks = []" in scan.text


def test_chunks_are_deterministic_and_ids_survive_body_edits() -> None:
    fx, src, chunks = stdlib_chunks("json/decoder.py")
    again = chunks_for_file(fx, src)
    assert again == chunks
    # Edit one body line (same signature): same chunk id, new content hash.
    edited_src = src.replace("colno = pos - doc.rfind('\\n', 0, pos)", "colno = pos - doc.rfind('\\n', 0, pos)  # x")
    assert edited_src != src
    edited = {c.chunk_id: c for c in chunks_for_file(fx, edited_src)}
    old = {c.chunk_id: c for c in chunks}
    assert edited.keys() == old.keys()
    changed = [cid for cid in old if old[cid].content_hash != edited[cid].content_hash]
    assert {cid.split("|")[2] for cid in changed} == {
        "json.decoder.JSONDecodeError.__init__", "json.decoder.JSONDecodeError"}


def test_sections_hold_module_level_code_only() -> None:
    fx, src, chunks = stdlib_chunks("json/decoder.py")
    sections = [c for c in chunks if c.kind == "section"]
    assert sections, "json/decoder.py has imports and constants at module level"
    joined = "\n".join(c.text for c in sections)
    for module_level in ("from json import scanner", "FLAGS = re.VERBOSE", "NaN = float('nan')",
                         "BACKSLASH = {", "WHITESPACE = re.compile("):
        assert module_level in joined
    for inside in ("def py_scanstring", "def decode(self, s, _w=WHITESPACE.match)", "end = _w(s, end).end()"):
        assert inside not in joined
    module = next(s for s in fx.symbols if s.kind == "module")
    for c in sections:
        assert c.chunk_id == f"std|json/decoder.py|section|{c.line}"
        assert c.end_line - c.line + 1 <= SECTION_LINES
        assert c.symbol_uid == module.uid and c.qualified_name == "json.decoder"


def test_huge_class_keeps_header_docstring_and_member_signatures_only() -> None:
    fx, src, chunks = stdlib_chunks("argparse.py")
    cls = next(c for c in chunks if c.qualified_name == "argparse.ArgumentParser")
    sym = next(s for s in fx.symbols if s.qualified_name == "argparse.ArgumentParser")
    assert len("\n".join(src.split("\n")[sym.line - 1:sym.end_line])) > MAX_TEXT  # really huge
    assert cls.kind == "class" and (cls.line, cls.end_line) == (sym.line, sym.end_line)
    assert cls.text.startswith("class ArgumentParser(_AttributeHolder, _ActionsContainer):")
    assert "Object for parsing command line strings into Python objects." in cls.text
    assert "    def parse_known_args(self, args=None, namespace=None)" in cls.text
    assert "    def error(self, message)" in cls.text
    assert "self._print_message(formatter.format_help(), file)" not in cls.text  # no member bodies
    assert len(cls.text) <= MAX_TEXT
    members = {c.qualified_name for c in chunks if c.kind == "method"}
    assert "argparse.ArgumentParser.parse_known_args" in members


def test_text_is_capped_at_a_line_end() -> None:
    body = "\n".join(f"    value_{i} = compute({i}) + other_function_name({i})" for i in range(400))
    src = "def giant():\n" + body + "\n"
    fx = extract_python("r", "big.py", src)
    (c,) = [c for c in chunks_for_file(fx, src) if c.kind == "function"]
    assert len(c.text) <= MAX_TEXT and src.startswith(c.text) and src[len(c.text)] == "\n"
    assert (c.line, c.end_line) == (1, 401)


def test_embed_text_is_compact_and_starts_with_name_signature_docstring() -> None:
    fx, src, chunks = stdlib_chunks("json/decoder.py")
    dec = next(c for c in chunks if c.qualified_name == "json.decoder.JSONDecoder.decode")
    lines = dec.embed_text.split("\n")
    assert lines[0] == "method json.decoder.JSONDecoder.decode"  # no "(words)" when the name is one word
    assert lines[1] == "def decode(self, s, _w=WHITESPACE.match)"
    assert lines[2].startswith("Return the Python representation of ``s``")
    _, _, many = stdlib_chunks("argparse.py")
    for c in chunks + many:
        assert approx_tokens(c.embed_text) <= EMBED_TOKENS + 2, c.embed_text
    camel = next(c for c in many if c.qualified_name == "argparse.ArgumentParser.parse_known_args")
    assert camel.embed_text.startswith("method argparse.ArgumentParser.parse_known_args (parse known args)")


def test_section_splitting_of_long_module_code_and_blank_gaps() -> None:
    consts = [f"SETTING_{i} = {i}" for i in range(130)]
    src = "\n".join(["import os", "", *consts, "", "", "def f():", "    return SETTING_1", "", "", "X = f()", ""])
    fx = extract_python("r", "settings_mod.py", src)
    chunks = chunks_for_file(fx, src)
    sections = [c for c in chunks if c.kind == "section"]
    # Lines 1-132 are constants, 135-136 the function, 139 "X = f()"; the last section
    # takes the script line after the function (span <= 60) without the function.
    assert [(c.line, c.end_line) for c in sections] == [(1, 60), (61, 120), (121, 139)]
    assert sections[0].text.startswith("import os\n\nSETTING_0 = 0")
    assert sections[2].text == "\n".join(consts[118:]) + "\nX = f()"
    assert "def f():" not in "".join(c.text for c in sections)
    assert [c.kind for c in chunks if c.kind != "section"] == ["function"]


def test_closing_braces_and_blank_lines_make_no_section() -> None:
    src = "\n".join([
        "class Greeter {",               # 1
        "  greet(name) {",               # 2
        "    return `hi ${name}`;",      # 3
        "  }",                           # 4
        "}",                             # 5
        "",                              # 6
        "}",                             # 7 (stray brace outside any symbol)
        "",
    ])
    f = FileRecord(repo="r", path="g.js", language="javascript", content_hash=stable_hash(src))
    cls = SymbolRecord(repo="r", qualified_name="g.Greeter", signature_hash="c1", name="Greeter", kind="class",
                       language="javascript", language_kind="class_declaration", file="g.js", line=1, end_line=5,
                       signature="class Greeter")
    meth = dataclasses.replace(cls, qualified_name="g.Greeter.greet", signature_hash="m1", name="greet",
                               kind="method", language_kind="method_definition", line=2, end_line=4,
                               signature="greet(name)", parent="g.Greeter")
    chunks = chunks_for_file(FileExtraction(file=f, symbols=[cls, meth]), src)
    assert [(c.kind, c.qualified_name) for c in chunks] == [("class", "g.Greeter"), ("method", "g.Greeter.greet")]
    assert chunks[1].embed_text.splitlines()[:2] == ["method g.Greeter.greet", "greet(name)"]
    assert all(c.symbol_uid and c.file_uid == f.uid for c in chunks)


def test_unicode_identifiers_split_in_embed_text() -> None:
    src = 'def berechneGröße(fläche):\n    """Fläche mal zwei."""\n    return fläche * 2\n'
    fx = extract_python("r", "geo.py", src)
    (c,) = chunks_for_file(fx, src)
    assert c.embed_text.splitlines()[0] == "function geo.berechneGröße (berechne größe)"
    assert "Fläche mal zwei." in c.embed_text
    assert c.text == src.rstrip("\n")


def test_real_extractors_output_chunks_for_java_fixture() -> None:
    from codegraph.indexer.languages import extractor_for, language_for

    java = extractor_for("java")
    if java is None:
        pytest.skip("the Java extractor is not available")
    files = sorted((FIXTURES / "java").rglob("*.java"))
    assert files
    for p in files:
        rel = p.relative_to(FIXTURES / "java").as_posix()
        fx = java.extract("fx", rel, p.read_bytes())
        assert language_for(rel) == "java"
        chunks = chunks_for_file(fx, p.read_text(encoding="utf-8"))
        ids = [c.chunk_id for c in chunks]
        assert len(ids) == len(set(ids))
        for c in chunks:
            assert c.text.strip() and c.embed_text.strip()
            if c.kind == "section":
                assert any(ch.isalnum() for ch in c.text)
                assert not c.text.strip().startswith("}")
        symbol_chunks = {c.symbol_uid for c in chunks if c.kind != "section"}
        assert symbol_chunks == {s.uid for s in fx.symbols
                                 if s.kind in ("function", "method", "class", "interface", "enum", "struct", "trait")}

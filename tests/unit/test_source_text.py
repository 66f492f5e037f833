"""Source text of search chunks: a Python file is decoded by the encoding it declares
(PEP 263, as Python reads it), every other file as UTF-8 (codegraph/indexer/source_text.py).

Why: a Python file with ``# -*- coding: latin-1 -*-`` got U+FFFD in its chunk text, so BM25
missed its words (``se\ufffdorita`` is the terms ``se`` and ``orita``)."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest

from codegraph.indexer.source_text import decode_source, python_encoding
from tests.cli.test_error_lines import CLI, _env

LATIN1 = '# -*- coding: latin-1 -*-\n\n\ndef saluda():\n    """Saluda a la señorita del café."""\n    return "mañana"\n'


@pytest.mark.parametrize(("data", "encoding", "text"), [
    (LATIN1.encode("latin-1"), "iso-8859-1", LATIN1),
    # The cookie may be on the second line after a comment (a shebang) ...
    ('#!/usr/bin/env python\n# coding=iso-8859-15\nx = "€"\n'.encode("iso-8859-15"), "iso-8859-15",
     '#!/usr/bin/env python\n# coding=iso-8859-15\nx = "€"\n'),
    # ... but not after code: Python reads that file as UTF-8.
    ('x = 1\n# coding: latin-1\ny = "é"\n'.encode("latin-1"), "utf-8", 'x = 1\n# coding: latin-1\ny = "\ufffd"\n'),
    ("x = 'é'\n".encode(), "utf-8", "x = 'é'\n"),
    (b"\xef\xbb\xbfx = '\xc3\xa9'\n", "utf-8-sig", "x = 'é'\n"),  # the byte-order mark is not text
    # Cookies that cannot be used: UTF-8 with replacement, never an error.
    (b"# coding: no-such-codec\nx = '\xc3\xa9'\n", "utf-8-sig", "# coding: no-such-codec\nx = 'é'\n"),
    (b"# coding: base64\nx = '\xc3\xa9'\n", "utf-8-sig", "# coding: base64\nx = 'é'\n"),  # not a text encoding
    (b"# coding: utf-16\nx = '\xc3\xa9'\n", "utf-8-sig", "# coding: utf-16\nx = 'é'\n"),  # moves line breaks
    (b"\xef\xbb\xbf# coding: latin-1\nx = '\xc3\xa9'\n", "utf-8-sig", "# coding: latin-1\nx = 'é'\n"),
])
def test_python_files_are_decoded_as_python_reads_them(data: bytes, encoding: str, text: str) -> None:
    assert python_encoding(data) == encoding
    assert decode_source(data, "python") == text
    assert decode_source(data, "python").count("\n") == data.count(b"\n")  # the extraction's lines


def test_it_agrees_with_python_on_files_python_accepts() -> None:
    import tokenize

    for data in (LATIN1.encode("latin-1"), '# vim: set fileencoding=cp1252 :\ns = "‘quoted’"\n'.encode("cp1252"),
                 b"\xef\xbb\xbfs = '\xc3\xa9'\n", "s = 'ü'\n".encode()):
        compile(data, "<test>", "exec")  # Python accepts each of them ...
        encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
        with io.TextIOWrapper(io.BytesIO(data), encoding, newline="") as f:  # ... and reads it as this text
            assert decode_source(data, "python") == f.read()


def test_other_languages_are_utf8_and_ignore_cookies() -> None:
    assert decode_source(b"\xef\xbb\xbfconst s = '\xc3\xa9';\n", "javascript") == "const s = 'é';\n"
    assert decode_source("# coding: latin-1\ns = 'é'\n".encode("latin-1"), "ruby") == "# coding: latin-1\ns = '\ufffd'\n"
    assert decode_source(b"int x;\n", "c") == "int x;\n"


def test_bm25_finds_the_words_of_a_latin1_python_file(tmp_path: Path) -> None:
    env = _env(tmp_path, "embedded")
    root = tmp_path / "shop"
    root.mkdir()
    (root / "hola.py").write_bytes(LATIN1.encode("latin-1"))

    def hits(repo: str) -> list[dict[str, object]]:
        r = subprocess.run([*CLI, "search", "señorita", "--repo", repo, "--json"], env=env, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)["hits"]

    assert subprocess.run([*CLI, "index", str(root), "--no-embed"], env=env, capture_output=True,
                          timeout=300).returncode == 0
    found = hits("shop")
    assert [(h["qualified_name"], h["line"]) for h in found] == [("hola.saluda", 4)]
    assert "señorita del café" in str(found[0]["text"]) and "\ufffd" not in str(found[0]["text"])
    # `codegraph load` rebuilds the chunks from the sources the same way.
    out = tmp_path / "shop.jsonl"
    assert subprocess.run([*CLI, "extract", str(root), "-o", str(out), "--repo", "shop2"], env=env,
                          capture_output=True, timeout=300).returncode == 0
    assert subprocess.run([*CLI, "load", str(out)], env=env, capture_output=True, timeout=300).returncode == 0
    assert [(h["qualified_name"], h["text"]) for h in hits("shop2")] == [(h["qualified_name"], h["text"]) for h in found]

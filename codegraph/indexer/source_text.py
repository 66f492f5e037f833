"""A source file's bytes as the text its search chunks hold (docs/DESIGN.md#search).

Python files are decoded as Python reads them (PEP 263, the semantics of the standard
library's ``tokenize.detect_encoding``): a UTF-8 byte-order mark, else a ``coding:`` cookie
on the first line, or on the second when the first is blank or a comment, else UTF-8.
A Latin-1 file with ``# -*- coding: latin-1 -*-`` thus gives ``café``, not ``caf\ufffd``,
and BM25 finds its words. Every other language is UTF-8, a byte-order mark dropped.

Bytes the encoding cannot decode become U+FFFD; a cookie naming an unknown codec, one that is
not a text encoding (``base64``) or one that is not ASCII-compatible (``utf-16``: Python refuses
it, and line numbers would not survive) is ignored: UTF-8. Line breaks are those of the
bytes, so the extraction's lines (tree-sitter parses the bytes) match the text's.
"""

from __future__ import annotations

import io


def decode_source(data: bytes, language: str) -> str:
    """``data`` (a whole file) decoded for ``language``; never raises."""
    if data.isascii():  # most files: every ASCII-compatible encoding reads them alike
        return data.decode("ascii")
    encoding = python_encoding(data) if language == "python" else "utf-8-sig"
    try:
        return data.decode(encoding, "replace")
    except LookupError:  # pragma: no cover - python_encoding only names text codecs
        return data.decode("utf-8", "replace")


def python_encoding(data: bytes) -> str:
    """The encoding a Python file declares, or ``utf-8-sig`` (UTF-8, a byte-order mark
    dropped) when it declares none or one that cannot be used."""
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:  # an unknown codec, or a byte-order mark with another cookie
        return "utf-8-sig"
    try:  # a text encoding (not base64: bytes -> bytes) that reads ASCII as ASCII (not utf-16)
        usable = b"#\n".decode(encoding) == "#\n"
    except (LookupError, UnicodeError):
        usable = False
    return encoding if usable else "utf-8-sig"

"""C/C++ source text before parsing: the C++ sniffing pattern, blanking of the
preprocessor idioms a macro-blind grammar trips on (same length, same lines), and
which paths are tests. Used by ``cpp``.
"""

from __future__ import annotations

import re

CPP_MARKERS = re.compile(
    rb"^\s*(?:class\s+\w+\s*[:{]|namespace\s+\w*\s*\{|template\s*<|(?:public|private|protected)\s*:)", re.M
)
# `class GTEST_API_ Foo : Base {` / `struct MYLIB_EXPORT Bar {`: an export macro between
# the keyword and the name derails the grammar; it is blanked (same length, so byte
# offsets and lines are unchanged) before parsing.
EXPORT_MACRO = re.compile(
    rb"\b(?:class|struct)\s+([A-Z][A-Z0-9_]+)\s+(?=(?!final\b)[A-Za-z_]\w*\s*(?:final\s*)?[:{])")
# `LZ4LIB_API int f(...)`, `static BROTLI_INLINE uint16_t f(...)`, `FORCE_INLINE U32\nf(`:
# an all-caps macro followed by what is clearly the rest of a declaration.
SPEC_MACRO = re.compile(
    rb"(?m)^[ \t]*(?:(?:static|extern|inline|[A-Z][A-Z0-9_]*)[ \t]+)*?([A-Z][A-Z0-9]*_[A-Z0-9_]*|[A-Z]{2,}[A-Z0-9]*)\s+"
    rb"(?=(?:static|extern|inline|const|volatile|unsigned|signed|struct|enum|union|void|char|short|int|long|float"
    rb"|double|bool|_Bool|class|template)\b|[A-Za-z_]\w*(?:::\w+)*(?:\s*[*&]+\s*|[ \t]*\n\s*|[ \t]+[*&]*)\w+"
    rb"[ \t]*[(;=\[])")
# `uint8_t* BROTLI_RESTRICT data`
RESTRICT_MACRO = re.compile(rb"\*[ \t]*([A-Z][A-Z0-9_]*RESTRICT[A-Z0-9_]*|__restrict__|__restrict)[ \t]+(?=\w)")
# `#ifdef __cplusplus` + `extern "C" {` or `}`: braces the grammar cannot pair up
CPLUSPLUS_GUARD = re.compile(
    rb'(?m)^[ \t]*#[ \t]*if[^\n]*__cplusplus[^\n]*\n((?:[ \t]*extern[ \t]+"C"[ \t]*\{|[ \t]*\})[^\n]*)$')


def _blank(m: re.Match[bytes], group: int) -> bytes:
    """The match with one group replaced by spaces: byte offsets and lines stay put."""
    s, e = m.start(group) - m.start(0), m.end(group) - m.start(0)
    whole = m.group(0)
    return whole[:s] + b" " * (e - s) + whole[e:]


def _preclean(src: bytes) -> bytes:
    """Blank the preprocessor idioms that derail a grammar that cannot expand macros:
    export / inline / restrict macros among declaration specifiers and the braces of
    `#ifdef __cplusplus` / `extern "C" {` / `#endif` guards. Same length, same lines."""
    if b"class" in src or b"struct" in src:
        src = EXPORT_MACRO.sub(lambda m: _blank(m, 1), src)
    for _ in range(3):  # `HIDDEN BORROWED PyObject *f(`: one macro per pass
        nxt = SPEC_MACRO.sub(lambda m: _blank(m, 1), src)
        if nxt == src:
            break
        src = nxt
    if b"RESTRICT" in src or b"restrict" in src:
        src = RESTRICT_MACRO.sub(lambda m: _blank(m, 1), src)
    if b"__cplusplus" in src:
        src = CPLUSPLUS_GUARD.sub(lambda m: _blank(m, 1), src)
    return src


TEST_NAME = re.compile(r"(?:^test_|[_-](?:unit)?tests?$|[a-z0-9]Tests?$)")


def _is_test_path(path: str) -> bool:
    parts = path.split("/")
    base = parts[-1].rsplit(".", 1)[0]
    return (any(p.lower() in ("test", "tests", "testing", "unittest", "unittests") for p in parts[:-1])
            or TEST_NAME.search(base) is not None)

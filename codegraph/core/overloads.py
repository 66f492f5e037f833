"""Naming one overload: parameter lists as the extractors store them on a symbol
(``SymbolRecord.params``, e.g. ``int,int`` or ``conststd::string&,int``) and as a person
types them in a target (``app.Calc.add(int, int)``, docs/DESIGN.md#targets).

Comparison ignores white space; a second, looser pass drops generic arguments, package
or namespace qualifiers and parameter names, so ``add(List<String> xs)`` finds
``add(java.util.List<String>)``.
"""

from __future__ import annotations

import re

_GENERIC = re.compile(r"<[^<>]*>")
_WS = re.compile(r"\s+")


def split_params(params: str) -> list[str]:
    """Top-level comma split (commas inside <...>, (...) or [...] do not split)."""
    out: list[str] = []
    depth, cur = 0, []
    for ch in params:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip() or out:
        out.append("".join(cur))
    return [p.strip() for p in out]


def split_target(text: str) -> tuple[str, str | None]:
    """``app.Calc.add(int, int)`` -> (``app.Calc.add``, ``int, int``); no list -> (text, None)."""
    t = text.strip()
    if t.endswith(")") and "(" in t:
        i = t.index("(")
        if i > 0 and not t[:i].rstrip().endswith("operator"):  # C++ operator() is a name
            return t[:i].strip(), t[i + 1:-1]
    return t, None


def _tight(params: str) -> list[str]:
    return [_WS.sub("", p) for p in split_params(params)]


_QUALIFIED = re.compile(r"(?:\w+(?:\.|::))+(\w+)")


def _loose_one(p: str) -> str:
    """Generic arguments, qualifiers and a Kotlin ``name:`` dropped, white space removed."""
    p = p.strip()
    while _GENERIC.search(p):
        p = _GENERIC.sub("", p)
    m = re.match(r"^\w+\s*:(?!:)", p)  # Kotlin "name: Type"
    if m:
        p = p[m.end():]
    return _WS.sub("", _QUALIFIED.sub(r"\1", p))


def _loose_eq(wanted: str, stored: str) -> bool:
    w, s = _loose_one(wanted), _loose_one(stored)
    if w == s:
        return True
    words = wanted.split()
    # "int a" typed with a parameter name: compare the type only.
    return len(words) > 1 and _loose_one(" ".join(words[:-1])) == s


def params_match(wanted: str, stored: str | None) -> int:
    """2: same list ignoring white space; 1: same after the loose normalisation; 0: no."""
    if stored is None:
        return 0
    if _tight(wanted) == _tight(stored):
        return 2
    a, b = split_params(wanted), split_params(stored)
    if len(a) == len(b) and all(_loose_eq(x, y) for x, y in zip(a, b, strict=True)):
        return 1
    return 0


__all__ = ["params_match", "split_params", "split_target"]

"""Overload choice (docs/DESIGN.md#resolution): which overloads a call can reach.

Extractor side: the literal types of a call's arguments (``literal_types``). Resolver
side (``choose``): keep the overloads whose parameter count fits the call's (varargs take
any count from one less; an unknown count on either side keeps the overload), then drop
those a literal argument cannot go to (a string literal to an ``int``), then prefer the
overloads every literal matches exactly (``1`` -> ``int`` over ``long``). Never empty when
the input was not: when nothing fits, every overload stays (an edge labelled ``overload``).
"""

from __future__ import annotations

import re

from tree_sitter import Node as TSNode

from codegraph.core.models import SymbolRecord
from codegraph.core.overloads import split_params

_ARG_LISTS = ("argument_list", "arguments", "value_arguments")
_WRAPPERS = ("argument", "value_argument")


def call_arguments(node: TSNode | None) -> TSNode | None:
    """The argument list of a call / object-creation node (Java, Kotlin, C#, C++)."""
    if node is None:
        return None
    args = node.child_by_field_name("arguments")
    if args is not None:
        return args
    for c in node.named_children:
        if c.type in _ARG_LISTS:
            return c
        if c.type == "call_suffix":  # Kotlin
            return next((a for a in c.named_children if a.type == "value_arguments"), None)
    return None


def _literal(node: TSNode) -> str | None:
    t = node.type
    text = (node.text or b"").decode("utf-8", "replace")
    if t in ("true", "false", "boolean_literal"):
        return "bool"
    if "string" in t and "literal" in t or t in ("raw_string_literal", "interpolated_string_expression"):
        return "string"
    if t in ("character_literal", "char_literal"):
        return "char"
    if t in ("long_literal",) or ("integer_literal" in t and text[-1:] in "lL"):
        return "long"
    if "integer_literal" in t or t == "integer_literal":
        return "int"
    if "floating" in t or t == "real_literal" or (t == "number_literal" and re.search(r"[.eE]", text)
                                                  and not text.lower().startswith("0x")):
        return "float" if text[-1:] in "fF" else "double"
    if t == "number_literal":
        return "long" if text[-1:] in "lL" else "int"
    return None


_DECLARED = {"int": "int", "integer": "int", "short": "int", "byte": "int", "long": "long", "double": "double",
             "float": "float", "boolean": "bool", "bool": "bool", "char": "char", "string": "string"}


def _declared(type_text: str) -> str | None:
    """The argument kind of a local / parameter of a written type (primitives and String
    only: a class type says nothing a literal kind could)."""
    t = type_text.strip().rstrip("?")
    if not t or any(c in t for c in "<[*&"):
        return None
    return _DECLARED.get(t.rsplit(".", 1)[-1].lower())


def literal_types(args: TSNode | None, env: dict[str, str] | None = None) -> list[str | None]:
    """Per argument: ``int``, ``long``, ``double``, ``float``, ``string``, ``bool``, ``char``
    for a literal, or for a bare name whose written type ``env`` knows (a parameter or local
    declared ``String s``); None for anything else (comments excluded)."""
    out: list[str | None] = []
    for a in args.named_children if args is not None else ():
        if "comment" in a.type:
            continue
        if a.type in _WRAPPERS and a.named_children:
            a = a.named_children[-1]  # named argument `x = 1`: the value
        kind = _literal(a)
        if kind is None and env and a.type in ("identifier", "simple_identifier"):
            kind = _declared(env.get((a.text or b"").decode("utf-8", "replace"), ""))
        out.append(kind)
    return out


_NUM = {"int", "long", "short", "byte", "double", "float", "integer", "number", "uint", "ulong", "ushort", "sbyte",
        "decimal", "size_t", "unsigned", "signed", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
        "uint16_t", "uint32_t", "uint64_t", "int32", "int64"}
_FLOATING = {"double", "float", "decimal", "number"}
_STR = {"string", "charsequence", "string_view", "wstring", "str"}
_BOOL = {"boolean", "bool"}
_EXACT = {"int": {"int", "integer", "int32"}, "long": {"long", "int64"}, "double": {"double"},
          "float": {"float"}, "string": _STR, "bool": _BOOL, "char": {"char", "character"}}
_MODIFIERS = {"final", "const", "ref", "in", "out", "params", "vararg", "this", "volatile", "scoped", "readonly"}


def _base(param: str) -> tuple[str, bool]:
    """(lower-case base type name, is pointer/array) of one stored parameter."""
    p = re.sub(r"<.*>", "", param)
    array = "[" in p or "*" in p or p.endswith("...")
    words = [w for w in re.split(r"[\s&*\[\]]+|\.\.\.", p) if w and w not in _MODIFIERS]
    word = words[-1] if words else ""
    for sep in ("::", "."):
        word = word.rsplit(sep, 1)[-1]
    for mod in sorted(_MODIFIERS, key=len, reverse=True):  # stored without spaces: "constint", "refint"
        if word.startswith(mod) and word[len(mod):] and word[len(mod):].lower() in _NUM | _STR | _BOOL | {"char"}:
            word = word[len(mod):]
    return word.lower().rstrip("?"), array


def _family(param: str) -> str | None:
    base, array = _base(param)
    if base == "char" and array:
        return "string"  # const char* takes a string literal
    if array:
        return None
    if base in _NUM:
        return "num"
    if base in _STR:
        return "string"
    if base in _BOOL:
        return "bool"
    return None  # a class, a generic, auto, Object: any literal may go there


def _fits(lit: str, param: str) -> bool:
    fam = _family(param)
    if fam is None:
        return True
    if lit in ("int", "long"):
        return fam == "num"
    if lit in ("double", "float"):
        return fam == "num" and _base(param)[0] in _FLOATING
    if lit == "char":
        return fam in ("num", "string") or _base(param)[0] == "char"
    return fam == lit


def _exact(lit: str, param: str) -> bool:
    return _base(param)[0] in _EXACT.get(lit, ())


def _position(plist: list[str], i: int, variadic: bool) -> str | None:
    """The parameter argument ``i`` goes to (a variadic tail: its element type)."""
    if variadic and plist and i >= len(plist) - 1:
        last = plist[-1]
        for mark in ("...", "vararg ", "params ", "params"):
            last = last.replace(mark, "")
        return last.replace("[]", "", 1)
    return plist[i] if i < len(plist) else None


def _literals_fit(s: SymbolRecord, lits: list[tuple[int, str]], exact: bool) -> bool:
    if s.params is None:
        return not exact  # parameter types unknown: any literal may fit, none exactly
    plist = split_params(s.params)
    if s.language == "csharp" and plist and plist[0].startswith("this"):
        plist = plist[1:]  # an extension method's `this T x` is the receiver
    for i, t in lits:
        p = _position(plist, i, s.variadic)
        if p is None:
            return False
        if not (_exact(t, p) if exact else _fits(t, p)):
            return False
    return True


def choose(syms: list[SymbolRecord], arity: int | None, arg_types: list[str | None] | None = None) -> list[SymbolRecord]:
    """The overloads a call with ``arity`` arguments (None: unknown, e.g. a spread) and
    these literal argument types can reach; all of ``syms`` when nothing fits.

    Order of preference, as the languages' own rules: fitting count, then literal
    types that can go to the parameters, then non-variadic overloads over variadic ones,
    then overloads every literal matches exactly."""
    if arity is None or len(syms) < 2:
        return syms
    fit = [s for s in syms if s.arity is None or s.arity == arity or (s.variadic and arity >= s.arity - 1)]
    if not fit:
        return syms
    lits = [(i, t) for i, t in enumerate(arg_types or []) if t]
    ok = [s for s in fit if _literals_fit(s, lits, exact=False)] or fit
    fixed = [s for s in ok if not s.variadic]
    ok = fixed or ok
    if not lits:
        return ok
    return [s for s in ok if _literals_fit(s, lits, exact=True)] or ok


__all__ = ["call_arguments", "choose", "literal_types"]

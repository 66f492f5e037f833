"""Vocabulary of the Python extractor: constants (builtins, literal node types), naming
of modules and files, and small helpers every part uses (docs/DESIGN.md#extraction-contract)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tree_sitter_language_pack import get_language

LANGUAGE = "python"
DOCSTRING_MAX = 500
SIGNATURE_MAX = 1000


def _field_ids(*names: str) -> tuple[int, ...]:
    """Field ids of the grammar: ``child_by_field_id`` skips the search of the field's
    name among the grammar's field names that ``child_by_field_name`` does per call."""
    lang = get_language(LANGUAGE)
    ids = tuple(lang.field_id_for_name(n) for n in names)
    missing = [n for n, i in zip(names, ids, strict=True) if not i]
    if missing:
        raise RuntimeError(f"the {LANGUAGE} grammar has no field {', '.join(missing)}")
    return ids  # type: ignore[return-value]


(F_ALIAS, F_ARGUMENTS, F_ATTRIBUTE, F_BODY, F_DEFINITION, F_FUNCTION, F_KEY, F_LEFT, F_MODULE_NAME, F_NAME,
 F_OBJECT, F_PARAMETERS, F_RETURN_TYPE, F_RIGHT, F_SUBSCRIPT, F_SUPERCLASSES, F_TYPE, F_VALUE) = _field_ids(
    "alias", "arguments", "attribute", "body", "definition", "function", "key", "left", "module_name", "name",
    "object", "parameters", "return_type", "right", "subscript", "superclasses", "type", "value")

# builtins of CPython 3.11-3.13, fixed here so output does not depend on the running Python.
BUILTINS = frozenset("""
ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup BlockingIOError
BrokenPipeError BufferError BytesWarning ChildProcessError ConnectionAbortedError ConnectionError
ConnectionRefusedError ConnectionResetError DeprecationWarning EOFError Ellipsis EncodingWarning
EnvironmentError Exception ExceptionGroup False FileExistsError FileNotFoundError FloatingPointError
FutureWarning GeneratorExit IOError ImportError ImportWarning IndentationError IndexError
InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError
ModuleNotFoundError NameError None NotADirectoryError NotImplemented NotImplementedError OSError
OverflowError PendingDeprecationWarning PermissionError ProcessLookupError PythonFinalizationError
RecursionError ReferenceError ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration
StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError True TypeError
UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError
UnicodeWarning UserWarning ValueError Warning ZeroDivisionError abs aiter all anext any ascii bin
bool breakpoint bytearray bytes callable chr classmethod compile complex copyright credits delattr
dict dir divmod enumerate eval exec exit filter float format frozenset getattr globals hasattr hash
help hex id input int isinstance issubclass iter len license list locals map max memoryview min next
object oct open ord pow print property quit range repr reversed round set setattr slice sorted
staticmethod str sum super tuple type vars zip __import__ __build_class__ __debug__ __name__
__file__ __doc__ __spec__ __loader__ __package__ __builtins__
""".split())


# Builtin callables whose result is a builtin value: methods called on it never reach the repo.
_BUILTIN_VALUE_CALLS = frozenset(
    "list dict set tuple frozenset str bytes bytearray int float complex bool sorted open range "
    "enumerate zip map filter reversed iter repr format chr ord hex oct bin abs round len object "
    "memoryview slice ascii".split()
)
# Methods of str/bytes/list/dict/set: on an unknown receiver these are nearly always the
# builtin's, so the bare-name fallback would tie e.g. every ``s.strip()`` to the one repo
# class that happens to define ``strip`` (collections.UserString in the stdlib).
_BUILTIN_METHODS = frozenset(
    "strip lstrip rstrip split rsplit splitlines join startswith endswith find rfind rindex replace "
    "lower upper casefold capitalize title swapcase center ljust rjust zfill expandtabs partition "
    "rpartition removeprefix removesuffix isalnum isalpha isascii isdecimal isdigit isidentifier "
    "islower isnumeric isprintable isspace istitle isupper translate maketrans encode decode "
    "format_map hex fromhex append extend insert items keys values setdefault fromkeys popitem "
    "difference intersection union symmetric_difference issubset issuperset isdisjoint "
    "difference_update intersection_update symmetric_difference_update".split()
)
# Annotation names meaning a builtin value (typing aliases included).
_BUILTIN_TYPE_NAMES = frozenset(
    "int float complex bool str bytes bytearray list dict set frozenset tuple object memoryview "
    "List Dict Set FrozenSet Tuple Text DefaultDict OrderedDict Deque".split()
)
_LITERAL_TYPES = frozenset({
    "string", "concatenated_string", "integer", "float", "list", "dictionary", "set", "tuple",
    "list_comprehension", "dictionary_comprehension", "set_comprehension", "true", "false",
})
_DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")
_STRING_PREFIX = re.compile(r"^[rRuUbB]*('''|\"\"\"|'|\")")
_CODING = re.compile(rb"\A(?:[^\n]*\n)?[ \t\f]*#[^\n]*?coding[:=][ \t]*([-\w.]+)")
_TEST_NAME = re.compile(r"^(test_.*|.*_test)\.pyi?$")

# Sentinels of the flow-insensitive type inference.
_NONE = ("none",)      # assigned None: ignored when combining (x = None; later x = C())
_BUILTIN = ("builtin",)  # a builtin value (literal, list(), annotated str...)


def memoized(memo: dict[Any, Any], in_progress: set[Any], key: Any, compute: Callable[[], Any]) -> Any:
    """``memo[key]``, computed once by ``compute()``; None while ``key`` is being computed
    further up the stack (a cycle such as ``self.a = self.b; self.b = self.a``)."""
    if key in memo:
        return memo[key]
    if key in in_progress:
        return None
    in_progress.add(key)
    try:
        t = compute()
    finally:
        in_progress.discard(key)
    memo[key] = t
    return t


def module_name(path: str) -> str:
    """Dotted module name of a repo-relative path: ``src/pkg/__init__.py`` -> ``pkg``,
    ``pkg/mod.pyi`` -> ``pkg.mod``. One leading ``src/`` segment is stripped."""
    p = path
    if p.startswith("src/") and p[4:] not in ("", "__init__.py", "__init__.pyi"):
        p = p[4:]
    if p.endswith(".pyi"):
        p = p[:-4]
    elif p.endswith(".py"):
        p = p[:-3]
    parts = [x for x in p.split("/") if x]
    if len(parts) > 1 and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) or "__init__"


def is_test_path(path: str) -> bool:
    """Under a ``test``/``tests`` folder, or named ``test_*.py`` / ``*_test.py``."""
    parts = path.split("/")
    return any(p in ("test", "tests") for p in parts[:-1]) or bool(_TEST_NAME.match(parts[-1]))


def visibility(name: str) -> str:
    """Python convention: ``_x`` and ``__x`` private, dunders public."""
    if name.startswith("__") and name.endswith("__") and len(name) > 4:
        return "public"
    return "private" if name.startswith("_") else "public"


def _looks_like_class(dotted: str) -> bool:
    """CapWords convention: the only hint a file gives that an imported name is a class."""
    last = dotted.rsplit(".", 1)[-1].lstrip("_")
    return bool(last) and last[0].isupper()


def _to_utf8(src: bytes) -> bytes:
    """Re-encode a file declaring another encoding (PEP 263 cookie in its first two
    lines) so that tree-sitter, which reads UTF-8, sees the real characters."""
    m = _CODING.search(src[:400])
    if m is None:
        return src
    codec = m.group(1).decode("ascii", "replace").lower().replace("_", "-")
    if codec in ("utf-8", "utf8", "utf-8-sig"):
        return src
    try:
        return src.decode(codec).encode("utf-8")
    except (LookupError, UnicodeError):
        return src


def _qjoin(*parts: str) -> str:
    return ".".join(p for p in parts if p)


def _dedupe(cands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The candidates without repeats, first occurrence kept (a handful per reference:
    comparing dicts beats building a key for each)."""
    if len(cands) < 2:
        return cands
    out: list[dict[str, Any]] = []
    for c in cands:
        if c not in out:
            out.append(c)
    return out



def _paths(stems: list[str]) -> list[str]:
    out: list[str] = []
    for s in stems:
        if s:
            out.append(s + ".py")
            out.append(s + "/__init__.py")
    return out


def _child_stems(stems: list[str], parts: list[str]) -> list[str]:
    if not parts:  # the module itself (``import m; m.f()``: the export f of m)
        return list(stems)
    tail = "/".join(parts)
    return [f"{s}/{tail}" if s else tail for s in stems]

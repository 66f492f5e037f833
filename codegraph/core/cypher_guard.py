"""Client-side check for raw Cypher (``codegraph query``, the dashboard's console).

docs/hardening.md, "Raw query safety": the check is the first of three layers (then the
server's own plan of the query, then the hardened server settings). It tokenises the
query the way Neo4j's lexer does and refuses anything it cannot prove to be a read:

- every comment form (``//`` up to any line break, ``\\r`` included; ``/* */``) and string
  form (``'...'``, ``"..."`` with backslash escapes) is one token, so words inside them are
  data; unterminated ones are refused;
- ``\\uXXXX`` anywhere is refused: Neo4j decodes these before lexing (Java-style), so
  ``// x \\u000a LOAD CSV`` would end the comment and ``'\\u0027`` would end a string;
- outside strings only ASCII and unicode letters/digits are accepted (no control or
  format characters, no exotic spaces), so what we tokenise is what the server reads;
- backticked names are unescaped (``\\`\\`\\``` is a backtick) before they are compared, so
  ``CALL `dbms`.`listConfig`()`` is the procedure ``dbms.listConfig``;
- the query must start with a read clause, and every bare word that is a write, admin,
  ``LOAD CSV``, ``SHOW``, ``USE``, ``IN TRANSACTIONS`` ... keyword is refused (a word right
  after ``.``, ``:`` or ``$``, or right before ``:``, is a name, not a keyword);
- ``CALL name(...)`` must name an allow-listed procedure (:data:`READ_PROCEDURES`), and a
  namespaced function call (``apoc.x.y(...)``) must be in a built-in read namespace.

Raises :class:`ReadOnlyViolation` (one line, naming what was refused).
"""

from __future__ import annotations

from dataclasses import dataclass

from codegraph.core.errors import ReadOnlyViolation

# Procedures the raw query may call (compared lower-case; a trailing "." is a prefix).
READ_PROCEDURES: tuple[str, ...] = (
    "db.labels", "db.relationshiptypes", "db.schema.", "db.index.fulltext.querynodes")
# Namespaces of built-in read functions (``point.distance(...)``, ``date.truncate(...)``).
READ_FUNCTION_NAMESPACES = frozenset({
    "point", "date", "datetime", "localdatetime", "localtime", "time", "duration", "vector"})
# The clauses a raw query may start with (and start a UNION branch or subquery with).
READ_CLAUSES = frozenset({"match", "optional", "with", "unwind", "return", "call"})
# Keywords of every non-read clause or command; a bare one anywhere refuses the query.
FORBIDDEN_WORDS = frozenset({
    "create", "merge", "delete", "detach", "nodetach", "set", "remove", "drop", "foreach", "alter",
    "grant", "deny", "revoke", "rename", "terminate", "enable", "deallocate", "reallocate", "use",
    "load", "csv", "show", "start", "stop", "transactions", "transaction", "insert", "periodic",
    "commit", "import", "explain", "profile", "cypher", "finish", "replace", "suspended", "password"})
_LINE_BREAKS = "\n\r\u2028\u2029\u0085\x0b\x0c"
_PUNCT = set("()[]{}<>=+-*/%^,.:;|$!?&~@#")


@dataclass(frozen=True)
class Token:
    """One lexical token: ``kind`` is ``word`` (bare identifier or keyword), ``name``
    (backticked), ``string``, ``number``, ``param`` or ``punct``; ``text`` is the
    unescaped value (lower-case for ``word``); ``pos`` the offset in the query."""

    kind: str
    text: str
    pos: int


def _refuse(why: str) -> ReadOnlyViolation:
    return ReadOnlyViolation(f"refused: raw queries are read-only and this one {why}")


def _ok_outside_strings(ch: str) -> bool:
    return ch in " \t\n\r" or (" " < ch < "\x7f") or (ch > "\x7f" and ch.isalnum())


def tokenize(query: str) -> list[Token]:
    """Tokens of ``query`` (comments dropped). Raises ReadOnlyViolation on anything the
    server might read differently: unicode escapes, unterminated strings, comments or
    names, control characters or non-ASCII punctuation outside strings."""
    low = query.lower()
    at = low.find("\\u")
    if at >= 0:
        raise _refuse(f"has a \\u escape at offset {at} (write the character itself)")
    toks: list[Token] = []
    i, n = 0, len(query)
    while i < n:
        ch = query[i]
        if ch in " \t\n\r":
            i += 1
        elif query.startswith("//", i):
            while i < n and query[i] not in _LINE_BREAKS:
                i += 1
        elif query.startswith("/*", i):
            end = query.find("*/", i + 2)
            if end < 0:
                raise _refuse(f"has an unterminated /* comment at offset {i}")
            i = end + 2
        elif ch in "'\"":
            j, buf = i + 1, []
            while j < n and query[j] != ch:
                if query[j] == "\\":
                    if j + 1 >= n:
                        break
                    buf.append(query[j:j + 2])
                    j += 2
                else:
                    buf.append(query[j])
                    j += 1
            if j >= n:
                raise _refuse(f"has an unterminated string at offset {i}")
            toks.append(Token("string", "".join(buf), i))
            i = j + 1
        elif ch == "`":
            j, buf = i + 1, []
            while True:
                k = query.find("`", j)
                if k < 0:
                    raise _refuse(f"has an unterminated `name` at offset {i}")
                buf.append(query[j:k])
                if query.startswith("``", k):
                    buf.append("`")
                    j = k + 2
                    continue
                j = k + 1
                break
            toks.append(Token("name", "".join(buf), i))
            i = j
        elif ch.isalpha() or ch == "_":
            j = i + 1
            while j < n and (query[j].isalnum() or query[j] == "_"):
                j += 1
            toks.append(Token("word", query[i:j].lower(), i))
            i = j
        elif ch.isdigit():
            j = i + 1
            while j < n and (query[j].isalnum() or query[j] in "._"):
                j += 1
            toks.append(Token("number", query[i:j], i))
            i = j
        elif ch in _PUNCT:
            toks.append(Token("punct", ch, i))
            i += 1
        elif not _ok_outside_strings(ch):
            raise _refuse(f"has character U+{ord(ch):04X} at offset {i}, not accepted outside strings")
        else:  # a backslash or another printable ASCII character Cypher has no use for
            raise _refuse(f"has character {ch!r} at offset {i}, not accepted outside strings")
    return toks


def _is_name_position(toks: list[Token], k: int) -> bool:
    """A bare word used as a name: property key, label, parameter, map key or alias part."""
    prev = toks[k - 1] if k else None
    nxt = toks[k + 1] if k + 1 < len(toks) else None
    if prev is not None and prev.kind == "punct" and prev.text in ".:$":
        return True
    return nxt is not None and nxt.kind == "punct" and nxt.text == ":"


def _dotted(toks: list[Token], k: int) -> tuple[str, int]:
    """The dotted name starting at ``toks[k]`` (words and backticked parts) and the index
    after it."""
    parts: list[str] = []
    while k < len(toks) and toks[k].kind in ("word", "name"):
        parts.append(toks[k].text.lower())
        if k + 2 < len(toks) and toks[k + 1].text == "." and toks[k + 1].kind == "punct" \
                and toks[k + 2].kind in ("word", "name"):
            k += 2
            continue
        k += 1
        break
    return ".".join(parts), k


def _procedure_allowed(name: str) -> bool:
    return any(name.startswith(p) if p.endswith(".") else name == p for p in READ_PROCEDURES)


def check_read_only(query: str) -> None:
    """Raise ReadOnlyViolation unless ``query`` is a read-only Cypher query made only of
    read clauses and allow-listed procedures (see the module docstring)."""
    toks = tokenize(query)
    if toks and toks[-1].kind == "punct" and toks[-1].text == ";":
        toks.pop()
    if not toks:
        raise _refuse("is empty")
    semi = next((t for t in toks if t.kind == "punct" and t.text == ";"), None)
    if semi is not None:
        raise _refuse(f"has more than one statement (a ';' at offset {semi.pos})")
    starts = {0}
    for k, t in enumerate(toks):
        if t.kind == "word" and t.text == "union":
            starts.add(k + 2 if k + 1 < len(toks) and toks[k + 1].text == "all" else k + 1)
        if t.kind == "punct" and t.text == "{" and k and toks[k - 1].text in (")", "call"):
            starts.add(k + 1)  # CALL { ... } / CALL (x) { ... } subquery body
    for k, t in enumerate(toks):
        if t.kind != "word" or _is_name_position(toks, k):
            continue
        if t.text in FORBIDDEN_WORDS:
            raise _refuse(f"contains {t.text.upper()}")
        if t.text == "call":
            nxt = toks[k + 1] if k + 1 < len(toks) else None
            if nxt is None or nxt.kind == "punct" and nxt.text in "({":
                continue
            name, after = _dotted(toks, k + 1)
            if not name:
                raise _refuse(f"has a CALL at offset {t.pos} naming no procedure")
            if not _procedure_allowed(name):
                raise _refuse(f"calls procedure {name}, which is not on the read-only list "
                              f"({', '.join(READ_PROCEDURES)})")
    for k in sorted(starts):
        if k >= len(toks):
            raise _refuse("has an empty part")
        t = toks[k]
        if not (t.kind == "word" and t.text in READ_CLAUSES):
            raise _refuse(f"has a part starting with {t.text!r}, not a read clause "
                          f"({', '.join(sorted(w.upper() for w in READ_CLAUSES))})")
    _check_function_namespaces(toks)


def _check_function_namespaces(toks: list[Token]) -> None:
    k = 0
    while k < len(toks):
        t = toks[k]
        prev = toks[k - 1] if k else None
        if t.kind in ("word", "name") and not (prev and prev.kind == "punct" and prev.text in ".:$"):
            name, after = _dotted(toks, k)
            if "." in name and after < len(toks) and toks[after].text == "(" and toks[after].kind == "punct":
                is_call = prev is not None and prev.kind == "word" and prev.text == "call"
                if not is_call and name.split(".")[0] not in READ_FUNCTION_NAMESPACES:
                    raise _refuse(f"calls function {name}, which is not a built-in read function")
            k = max(after, k + 1)
            continue
        k += 1

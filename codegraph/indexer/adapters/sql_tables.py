"""Tables read and written by SQL string literals, parsed with sqlglot.

Any language whose strings the syntax view knows (Python, JS/TS, Java, Kotlin, Go, C#,
Ruby, PHP, Rust). A string (or a ``+`` concatenation / template / f-string) that reads as
SQL - SELECT ... FROM, INSERT INTO, UPDATE ... SET, DELETE FROM, MERGE INTO, WITH ... AS,
REPLACE INTO, TRUNCATE - is parsed; interpolated pieces become placeholder identifiers so
a table given by an expression is skipped, never guessed. Written: the target of
INSERT/UPDATE/DELETE/MERGE/REPLACE/TRUNCATE; read: every other table (FROM, JOIN,
subqueries, MERGE ... USING, INSERT ... SELECT); CTE names are not tables.
Names are lower-cased without quotes or schema (the schema is kept as ``schema``).
DDL (CREATE/ALTER/DROP) is not read: migrations would otherwise touch every table.
"""

from __future__ import annotations

import logging
import re
from functools import cache
from typing import Any

from tree_sitter import Node as TSNode

from codegraph.indexer.adapters import _syntax as sx

# Set once per process, not per statement (setLevel clears every logger's cache): sqlglot
# logs a WARNING for each statement it keeps only as a Command ("contains unsupported
# syntax"). Such a text names no table here (tables_of), and the line on stderr of every
# index would read as a failure of the run. Real parse errors still raise (ErrorLevel).
logging.getLogger("sqlglot").setLevel(logging.ERROR)

# Parse trigger, tried only where a keyword occurs (lower-cased source): a statement shape
# within one string-ish stretch (no quote in between).
_KEYWORDS = (b"select", b"insert", b"update", b"delete", b"merge", b"replace", b"truncate")
_TRIGGER_AT = re.compile(
    rb"select\b[^;\"'`]{1,2000}?\bfrom\b|insert\s+(?:or\s+\w+\s+)?into\b|update\s+\S+\s+set\b|delete\s+from\b|"
    rb"merge\s+into\b|replace\s+into\b|truncate\s+(?:table\s+)?\w")


def has_sql(lower: bytes) -> bool:
    """Whether lower-cased source text holds something shaped like a DML statement."""
    for kw in _KEYWORDS:
        i = lower.find(kw)
        while i >= 0:
            if (i == 0 or not (lower[i - 1:i].isalnum() or lower[i - 1:i] == b"_")) and _TRIGGER_AT.match(lower, i):
                return True
            i = lower.find(kw, i + 1)
    return False


_SQL_START = re.compile(
    r"^\s*\(?\s*(select\s[\s\S]*?\sfrom\s|insert\s+(or\s+\w+\s+)?into\s|update\s+\S+\s+set\s|delete\s+from\s|"
    r"merge\s+into\s|replace\s+into\s|truncate\s|with\s+(recursive\s+)?\w+(\s*\([^)]*\))?\s+as\s*\()", re.I)
_SQLISH = re.compile(r"[*=,(?]|%s|\$\d|:\w|@\w|\bwhere\b|\bjoin\b|\bvalues\b|\bset\b|\blimit\b|\border\s+by\b|;", re.I)
_HOLE = "__cg_hole_"
_WRITE_KINDS = ("Insert", "Update", "Delete", "Merge", "TruncateTable")


@cache
def _string_query(language: str) -> str:
    return " ".join(f"({t}) @s" for t in sx._STRING_TYPES.get(language, ()))


def _top(node: TSNode) -> TSNode:
    """Climb from a string piece to the whole ``+`` concatenation it belongs to."""
    n = node
    while (p := n.parent) is not None:
        if p.type in ("concatenated_string", "parenthesized_expression"):
            n = p
            continue
        if p.type in ("binary_expression", "binary_operator", "additive_expression"):
            op = p.child_by_field_name("operator")
            if op is not None and sx.text(op) == "+":
                n = p
                continue
        break
    return n


def looks_like_sql(text: str) -> bool:
    """A string that starts like a DML statement and carries SQL punctuation or
    clauses (so prose such as "Select the item from the list" is not SQL)."""
    m = _SQL_START.match(text)
    if not m:
        return False
    kw = text.strip().lstrip("(").split(None, 1)[0]
    if not (kw.isupper() or kw.islower()):
        return False
    return bool(_SQLISH.search(text)) or kw.isupper()


def tables_of(sql: str) -> list[tuple[str, str, str]]:
    """(table, access "read"|"write", schema) for one SQL text; [] when it does not parse."""
    import sqlglot
    from sqlglot import exp

    dialect = "mysql" if "`" in sql else ("tsql" if "[" in sql and "]" in sql else None)
    try:
        stmts = sqlglot.parse(sql, read=dialect, error_level=sqlglot.ErrorLevel.IGNORE)
    except Exception:  # sqlglot raises its own error types on malformed input
        return []
    out: dict[tuple[str, str], str] = {}
    for st in stmts:
        if st is None:
            continue
        ctes = {c.alias_or_name.lower() for c in st.find_all(exp.CTE)}
        written: set[int] = set()
        for node in [st, *st.find_all(exp.Insert, exp.Update, exp.Delete, exp.Merge)]:
            if type(node).__name__ in _WRITE_KINDS:
                target = node.this
                if isinstance(target, exp.Schema):
                    target = target.this
                if isinstance(target, exp.Table):
                    written.add(id(target))
        if type(st).__name__ == "TruncateTable":
            for t in st.expressions:
                if isinstance(t, exp.Table):
                    written.add(id(t))
        for t in st.find_all(exp.Table):
            name = (t.name or "").strip('`"[]').lower()
            if not name or name.startswith(_HOLE) or name in ctes or not re.match(r"^[a-z_][\w$]*$", name):
                continue
            schema = (t.db or "").strip('`"[]').lower()
            access = "write" if id(t) in written else "read"
            key = (name, schema)
            if out.get(key) != "write":
                out[key] = access if key not in out else ("write" if access == "write" else out[key])
    return [(n, a, s) for (n, s), a in sorted(out.items())]


def extract(ctx: Any) -> list[dict[str, Any]]:
    if not has_sql(ctx.lower):
        return []
    q = _string_query(ctx.language)
    if not q:
        return []
    out: list[dict[str, Any]] = []
    seen: set[int] = set()
    for node in sx.captures(ctx.language, q, ctx.root):
        top = _top(node)
        if top.id in seen:
            continue
        seen.add(top.id)
        if not has_sql((top.text or b"").lower()):
            continue  # most strings of a file are not SQL: skip them before building pieces
        parts = ctx.parts(top)
        if not parts:
            continue
        text = "".join(v if k == "lit" else f" {_HOLE}{i} " for i, (k, v) in enumerate(parts))
        if not looks_like_sql(text):
            continue
        for table, access, schema in tables_of(text):
            rec: dict[str, Any] = {"table": table, "access": access, "via": "sql", "at": sx.line(top)}
            if schema:
                rec["schema"] = schema
            out.append(ctx.record("table_access", sx.line(top), **rec))
    return out

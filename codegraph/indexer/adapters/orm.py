"""Tables behind ORM code: which classes/variables map to a table (``access == "model"``)
and which calls read or write through them (``model`` set, ``table`` resolved later by
``codegraph.indexer.boundaries`` from the repo-wide model map).

Python: SQLAlchemy (``__tablename__``, ``Table("t", metadata)``, ``session.query(X)``,
``select/insert/update/delete(X)``, ``session.add(X(...))``, Flask-SQLAlchemy ``db.Model``
and ``X.query``), Django (``models.Model`` subclasses, ``Meta.db_table``, default
``<app>_<model>``, ``X.objects.<method>``).
Java: JPA ``@Entity`` (+ ``@Table(name)``, else the Spring Boot snake_case default),
Spring Data repositories (``interface R extends JpaRepository<X, ID>``) and calls on fields
or parameters typed ``R`` (``find*``/``get*``/``count*``/``exists*`` read,
``save*``/``delete*`` write).
JavaScript/TypeScript: Prisma (``prisma.order.findMany`` -> model ``order``; the table is
mapped through ``schema.prisma`` ``@@map`` at link time), TypeORM ``@Entity`` /
``getRepository(X)`` / ``Repository<X>`` members, Sequelize ``X.init(..., {tableName})``,
``sequelize.define``, static ``X.findAll``-style calls, knex (``knex("t")``,
``.from/.into/.table("t")``).
Any language: a literal bare table name passed to ``table``/``from``/``into``/``query``
on a database-like receiver (``db.query("orders")``, Go ``db.Table("orders")``).
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from tree_sitter import Node as TSNode

from codegraph.indexer.adapters import _syntax as sx

_DJANGO_READ = {"filter", "get", "all", "exclude", "values", "values_list", "count", "exists", "first", "last",
                "aggregate", "annotate", "order_by", "select_related", "prefetch_related", "in_bulk", "iterator",
                "raw", "distinct", "only", "defer", "latest", "earliest", "none", "using"}
_DJANGO_WRITE = {"create", "update", "delete", "bulk_create", "bulk_update", "get_or_create", "update_or_create"}
_PRISMA_READ = {"findMany", "findUnique", "findUniqueOrThrow", "findFirst", "findFirstOrThrow", "count", "aggregate",
                "groupBy"}
_PRISMA_WRITE = {"create", "createMany", "createManyAndReturn", "update", "updateMany", "upsert", "delete",
                 "deleteMany"}
_KNEX_WRITE = {"insert", "update", "del", "delete", "truncate", "upsert", "merge", "increment", "decrement"}
_SEQ_READ = {"findAll", "findOne", "findByPk", "findAndCountAll", "count", "max", "min", "sum", "findOrCreate"}
_SEQ_WRITE = {"create", "bulkCreate", "update", "destroy", "upsert", "increment", "decrement", "truncate",
              "insert", "save", "remove", "delete"}
_TYPEORM_READ = {"find", "findOne", "findOneBy", "findBy", "findAndCount", "findOneOrFail", "count", "exist", "exists",
                 "createQueryBuilder", "query", "findByIds"}
_DB_RECEIVER = re.compile(r"(^|\.|_)(db|knex|trx|tx|sql|conn|connection|client|database|pool|pg|mysql|sequelize|"
                          r"query|builder|qb|supabase|session|engine|cursor)\w*$|Db$|DB$|Knex$", re.I)
_TABLE_NAME = re.compile(r"^[A-Za-z_][\w$]*(\.[A-Za-z_][\w$]*)?$")


def snake(name: str) -> str:
    """``OrderItem`` -> ``order_item`` (Spring Boot / TypeORM / Flask-SQLAlchemy defaults)."""
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", s)
    return s.lower()


def _model(ctx: Any, line: int, model: str, table: str, via: str, at: int | None = None) -> dict[str, Any]:
    return ctx.record("table_access", line, table=table.lower(), access="model", model=model, via=via, at=at or line)


def _use(ctx: Any, line: int, model: str, access: str, via: str, at: int | None = None,
         **extra: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {"model": model, "access": access, "via": via, "at": at or line}
    b = ctx.imports.get(model) if ctx.language in ("python", "javascript", "typescript", "tsx") else None
    if b is not None:
        fields["model_import"] = {"line": b.line, "name": b.name, "spec": b.spec}
    fields.update(extra)
    return ctx.record("table_access", line, **fields)


def _optional(name: str) -> dict[str, Any]:
    return {} if name[:1].isupper() else {"optional": True}


def _table(ctx: Any, line: int, table: str, access: str, via: str) -> dict[str, Any]:
    schema, _, name = table.rpartition(".")
    rec = {"table": name.lower(), "access": access, "via": via, "at": line}
    if schema:
        rec["schema"] = schema.lower()
    return ctx.record("table_access", line, **rec)


def extract(ctx: Any) -> list[dict[str, Any]]:
    lang = ctx.language
    out: list[dict[str, Any]] = []
    if lang == "python":
        out.extend(_python(ctx))
    elif lang in sx.JS_LANGS:
        out.extend(_javascript(ctx))
    elif lang in ("java", "kotlin"):
        out.extend(_jvm(ctx))
    if lang in sx.JS_LANGS or lang in ("python", "go", "java", "kotlin"):
        out.extend(_literal_tables(ctx))
    return out


# --- literal table arguments (knex, supabase, GORM, query builders) -----------------------------------


def _chain_methods(language: str, node: TSNode) -> tuple[list[str], int]:
    """Method names of the whole fluent chain ``node`` sits in (``knex('t').where().del()``)."""
    top = node
    while top.parent is not None and top.parent.type in ("member_expression", "attribute", "selector_expression",
                                                         "call_expression", "call", "method_invocation",
                                                         "await_expression", "navigation_expression",
                                                         "navigation_suffix", "call_suffix", "field_access"):
        top = top.parent
    names = re.findall(r"\.\s*(\w+)\s*(?:<[^>]*>)?\s*\(", sx.text(top))
    return names, sx.line(top)


# knex("t") / db("t"), or .table/.from/.into/.query with one bare-name literal argument.
# Two patterns, each searched only when the bytes hold one of the call names it needs
# (the call's name is right before its "(" in both): one alternation starting with \b was
# tried at every position (~3x the time on the standard library).
_LITERAL_DIRECT = re.compile(rb"\b(?:knex|db|trx|tx)\(\s*['\"`]")
_LITERAL_METHOD = re.compile(rb"\.\s*(?:table|Table|from_?|into|query)\(\s*['\"`][A-Za-z_][\w.$]*['\"`]\s*\)")


def _literal_trigger(ctx: Any) -> bool:
    return (ctx.has(b"db(", b"tx(", b"trx(", b"knex(") and _LITERAL_DIRECT.search(ctx.source) is not None) or \
        (ctx.has(b"table(", b"Table(", b"from(", b"from_(", b"into(", b"query(")
         and _LITERAL_METHOD.search(ctx.source) is not None)


def _literal_tables(ctx: Any) -> list[dict[str, Any]]:
    if not _literal_trigger(ctx):
        return []
    out: list[dict[str, Any]] = []
    for c in ctx.calls:
        if not c.args or len(c.args) > 1 and c.method not in ("Table",):
            continue
        direct = c.callee in ("knex", "db", "trx", "this.knex", "this.db", "tx") and ctx.language in sx.JS_LANGS
        if not direct and c.method not in ("table", "Table", "from", "from_", "into", "query"):
            continue
        if c.method == "Table" and ctx.language == "python":
            continue  # SQLAlchemy Table("t", metadata): a model, see _python
        if not direct and not (_DB_RECEIVER.search(c.receiver.split("(")[0].rstrip(".")) or
                               any(_DB_RECEIVER.search(p) for p in c.receiver.replace("()", "").split("."))):
            continue
        name = ctx.literal(c.args[0])
        if name is None or not _TABLE_NAME.match(name) or name.lower() in ("select", "dual"):
            continue
        methods, _ = _chain_methods(ctx.language, c.node)
        access = "write" if any(m in _KNEX_WRITE for m in methods) else "read"
        via = "knex" if ctx.has(b"knex") and ctx.language in sx.JS_LANGS else "query-builder"
        out.append(_table(ctx, c.line, name, access, via))
    return out


# --- python ---------------------------------------------------------------------------------------------


def _class_assign(node: TSNode, name: str) -> TSNode | None:
    body = node.child_by_field_name("body")
    for st in body.named_children if body is not None else ():
        # Grammar versions differ: an assignment may or may not sit in an expression_statement.
        a = st.named_children[0] if st.type == "expression_statement" and st.named_children else st
        if a.type == "assignment" and sx.text(a.child_by_field_name("left")) == name:
            return a.child_by_field_name("right")
    return None


def _inner_class(node: TSNode, name: str) -> TSNode | None:
    body = node.child_by_field_name("body")
    for st in body.named_children if body is not None else ():
        if st.type == "class_definition" and sx.text(st.child_by_field_name("name")) == name:
            return st
    return None


def _django_app(path: str) -> str:
    d = posixpath.dirname(path)
    if posixpath.basename(path) != "models.py" and posixpath.basename(d) == "models":
        d = posixpath.dirname(d)
    return posixpath.basename(d) or "app"


# The names of _python's call loop that are whole identifiers there: Table / table (the
# method), select / insert / update / delete (the callee's last name, bare or after sa. or
# sqlalchemy.). A whole identifier has no [A-Za-z0-9_] byte either side.
_PY_CALL_TOKENS = (b"table", b"Table", b"select", b"insert", b"update", b"delete")
_WORD_BYTE = re.compile(rb"\w")  # one [A-Za-z0-9_] byte (a bytes pattern's \w is ASCII)


def _has_token(source: bytes, word: bytes) -> bool:
    """Whether ``word`` occurs in ``source`` as a whole identifier. Substring search, the
    two neighbours checked at each hit: one regex with look-arounds tried every byte
    position (~0.05 CPU s of a Django run, most files having none of the names)."""
    end = len(word)
    i = source.find(word)
    while i >= 0:
        if (i == 0 or _WORD_BYTE.match(source, i - 1) is None) and _WORD_BYTE.match(source, i + end) is None:
            return True
        i = source.find(word, i + 1)
    return False


def _py_class_words(source: bytes) -> bool:
    """Can _python's class loop record anything in ``source``? Its classes assign
    ``__tablename__`` or name a ``Model`` (``db.Model``, ``models.Model``, ``\\w+Model``) in
    their bases, whose text is in the bytes."""
    return b"Model" in source or b"__tablename__" in source


def _py_call_words(source: bytes) -> bool:
    """Can _python's call loop record anything in ``source``? False only when the bytes
    lack every name its branches match in a call's callee chain (``X.objects.``,
    ``X.query.``, ``query``, a ``session``'s methods, the tokens above): a chain's names
    are identifier texts, so each one is in the bytes."""
    return b"objects" in source or b"query" in source or b"session" in source or \
        any(_has_token(source, w) for w in _PY_CALL_TOKENS)


def _python(ctx: Any) -> list[dict[str, Any]]:
    if not ctx.has(b"sqlalchemy", b"django", b"__tablename__", b"sqlmodel", b"session.query(", b"session.add(",
                   b".objects.", b".query."):
        return []
    out: list[dict[str, Any]] = []
    django = ctx.has(b"django")
    # Each loop below records something only when the bytes hold a name it matches: walking
    # a file's classes or building its call views costs far more than these checks, and
    # every file of Django's own source passes the "django" trigger above.
    for a in ctx.annotated if _py_class_words(ctx.source) else ():
        if a.kind != "class":
            continue
        bases = sx.text(a.node.child_by_field_name("superclasses"))
        tn = _class_assign(a.node, "__tablename__")
        if tn is not None:
            table = ctx.literal(tn)
            if table:
                out.append(_model(ctx, a.line, a.name, table, "sqlalchemy", a.line))
            continue
        if re.search(r"\bdb\.Model\b", bases):
            out.append(_model(ctx, a.line, a.name, snake(a.name), "flask-sqlalchemy", a.line))
            continue
        if django and re.search(r"\bmodels\.Model\b|\w+Model\b", bases):
            meta = _inner_class(a.node, "Meta")
            if meta is not None and sx.text(_class_assign(meta, "abstract")) == "True":
                continue
            table = ctx.literal(_class_assign(meta, "db_table")) if meta is not None else None
            app = (ctx.literal(_class_assign(meta, "app_label")) if meta is not None else None) or _django_app(ctx.path)
            out.append(_model(ctx, a.line, a.name, table or f"{app}_{a.name.lower()}", "django", a.line))
    for c in ctx.calls if _py_call_words(ctx.source) else ():
        m = re.match(r"^([A-Z]\w*)\.objects\.", c.callee + ".")
        if m and c.method != "objects":
            parent = c.node.parent
            if parent is not None and parent.type == "attribute":
                continue  # an inner link of a longer chain: the outermost call decides
            methods = [x.strip("()") for x in c.callee.split(".")[2:]]
            access = "write" if any(x in _DJANGO_WRITE for x in methods) else "read"
            out.append(_use(ctx, c.line, m.group(1), access, "django"))
            continue
        m = re.match(r"^([A-Z]\w*)\.query\.", c.callee + ".")
        if m:
            parent = c.node.parent
            if parent is not None and parent.type == "attribute":
                continue
            out.append(_use(ctx, c.line, m.group(1), "read", "flask-sqlalchemy"))
            continue
        if (c.method == "Table" or (c.method == "table" and c.receiver in ("", "sa", "sqlalchemy"))) and c.args:
            # Table("t", metadata, ...) and the lightweight sa.table("t", column(...)) of migrations
            table = ctx.literal(c.args[0])
            name = sx.assigned_name(ctx.language, c.node)
            if table and name:
                out.append(_model(ctx, c.line, name, table, "sqlalchemy"))
            continue
        if c.method == "query" and c.receiver and c.args:
            for a in c.args:
                if a.type == "identifier" and sx.text(a)[:1].isupper():
                    out.append(_use(ctx, c.line, sx.text(a), "read", "sqlalchemy"))
        elif c.callee in ("select", "sa.select", "sqlalchemy.select") and c.args:
            for a in c.args:
                if a.type == "identifier":
                    # A lower-case name may be a column or a subquery: linked only if it is a
                    # known Table variable, never counted as an unknown model.
                    name = sx.text(a)
                    out.append(_use(ctx, c.line, name, "read", "sqlalchemy", **_optional(name)))
        elif c.callee in ("insert", "update", "delete", "sa.insert", "sa.update", "sa.delete") and c.args:
            if c.args[0].type == "identifier":
                name = sx.text(c.args[0])
                out.append(_use(ctx, c.line, name, "write", "sqlalchemy", **_optional(name)))
        elif c.method in ("add", "add_all", "merge") and c.receiver.endswith("session") and c.args:
            a0 = c.args[0]
            if a0.type == "call":
                inner = sx.as_call(ctx.language, a0)
                if inner is not None and inner.callee[:1].isupper() and "." not in inner.callee:
                    out.append(_use(ctx, c.line, inner.callee, "write", "sqlalchemy"))
        elif c.method == "get" and c.receiver.endswith("session") and c.args and c.args[0].type == "identifier":
            out.append(_use(ctx, c.line, sx.text(c.args[0]), "read", "sqlalchemy"))
    return out


# --- java -------------------------------------------------------------------------------------------------

_SPRING_REPOS = re.compile(r"\b(Jpa|Crud|PagingAndSorting|ListCrud|ListPagingAndSorting|Reactive|ReactiveCrud|"
                           r"Mongo|R2dbc|Coroutine(Crud)?)?Repository\s*<\s*(\w+)")
_READ_PREFIX = ("find", "get", "read", "query", "search", "stream", "count", "exists", "load")
_WRITE_PREFIX = ("save", "delete", "remove", "insert", "update", "persist", "merge", "flush", "create")


def _jvm(ctx: Any) -> list[dict[str, Any]]:
    if not ctx.has(b"Entity", b"Repository"):
        return []
    out: list[dict[str, Any]] = []
    for a in ctx.annotated:
        if a.kind != "class":
            continue
        names = {x.name.rsplit(".", 1)[-1]: x for x in a.annotations}
        if "Entity" in names:
            t = names.get("Table")
            table = ctx.literal(t.kwargs.get("name")) if t is not None else None
            ent = names["Entity"]
            ename = ctx.literal(ent.kwargs.get("name")) if ent.kwargs else None
            out.append(_model(ctx, a.line, a.name, table or ename or snake(a.name), "jpa", a.line))
            continue
        header = sx.text(a.node).split("{", 1)[0]
        m = _SPRING_REPOS.search(header)
        if m and ("interface" in header or "extends" in header):
            out.append(ctx.record("table_access", a.line, access="repository", repository=a.name, model=m.group(3),
                                  via="spring-data", at=a.line))
    if ctx.language != "java":
        return out
    types: dict[str, str] = {}
    q = "(field_declaration type: (_) @t declarator: (variable_declarator name: (identifier) @n)) " \
        "(formal_parameter type: (_) @t name: (identifier) @n) " \
        "(local_variable_declaration type: (_) @t declarator: (variable_declarator name: (identifier) @n))"
    from tree_sitter import QueryCursor

    for _, caps in QueryCursor(sx._query("java", q)).matches(ctx.root):
        if caps.get("t") and caps.get("n"):
            types[sx.text(caps["n"][0])] = sx.text(caps["t"][0]).split("<")[0]
    for c in ctx.calls:
        recv = c.receiver.removeprefix("this.")
        typ = types.get(recv)
        if not typ or not typ.endswith("Repository") or not c.method:
            continue
        access = "read" if c.method.startswith(_READ_PREFIX) else "write" if c.method.startswith(_WRITE_PREFIX) else None
        if access:
            out.append(ctx.record("table_access", c.line, access=access, repository=typ, via="spring-data", at=c.line))
    return out


# --- javascript / typescript -------------------------------------------------------------------------------


def _javascript(ctx: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    prisma = ctx.has(b"prisma", b"Prisma")
    if ctx.has(b"@Entity"):
        for a in ctx.annotated:
            ent = next((x for x in a.annotations if x.name == "Entity"), None) if a.kind == "class" else None
            if ent is None:
                continue
            table = None
            if ent.args:
                arg = ent.args[0]
                table = ctx.literal(sx.mapping(ctx.language, arg).get("name")) if arg.type == "object" else ctx.literal(arg)
            out.append(_model(ctx, a.line, a.name, table or snake(a.name), "typeorm", a.line))
    repo_fields: dict[str, str] = {}
    if ctx.has(b"Repository<"):
        for m in re.finditer(rb"(\w+)\s*[?!]?\s*:\s*Repository\s*<\s*(\w+)\s*>", ctx.source):
            repo_fields[m.group(1).decode()] = m.group(2).decode()
    for c in ctx.calls:
        callee, method = c.callee, c.method
        if prisma:
            m = re.match(r"^(?:this\.)?(\w+)\.(\w+)$", c.receiver)
            if m and (method in _PRISMA_READ or method in _PRISMA_WRITE) and not m.group(2).startswith("$") \
                    and re.search(r"prisma|db|client|tx", m.group(1), re.I):
                out.append(_use(ctx, c.line, m.group(2), "write" if method in _PRISMA_WRITE else "read", "prisma"))
                continue
        if method == "init" and len(c.args) >= 2 and c.receiver[:1].isupper() and "." not in c.receiver:
            opts = sx.mapping(ctx.language, c.args[1])
            table = ctx.literal(opts.get("tableName"))
            if "sequelize" in opts or table:
                out.append(_model(ctx, c.line, c.receiver, table or c.receiver, "sequelize"))
            continue
        if method == "define" and c.receiver.endswith("sequelize") and c.args:
            name = ctx.literal(c.args[0])
            var = sx.assigned_name(ctx.language, c.node)
            opts = sx.mapping(ctx.language, c.args[2]) if len(c.args) > 2 else {}
            table = ctx.literal(opts.get("tableName"))
            if name and var:
                out.append(_model(ctx, c.line, var, table or name, "sequelize"))
            continue
        if method == "getRepository" and c.args and c.args[0].type == "identifier":
            methods, _ = _chain_methods(ctx.language, c.node)
            after = methods[methods.index("getRepository") + 1:] if "getRepository" in methods else []
            access = "write" if any(x in _SEQ_WRITE for x in after) else "read"
            out.append(_use(ctx, c.line, sx.text(c.args[0]), access, "typeorm"))
            continue
        recv = c.receiver.removeprefix("this.")
        if recv in repo_fields and method:
            access = "read" if method in _TYPEORM_READ else "write" if method in _SEQ_WRITE else None
            if access:
                out.append(_use(ctx, c.line, repo_fields[recv], access, "typeorm"))
            continue
        if c.receiver[:1].isupper() and "." not in c.receiver and (method in _SEQ_READ or method in _SEQ_WRITE) \
                and callee != "Promise.all":
            out.append(_use(ctx, c.line, c.receiver, "write" if method in _SEQ_WRITE else "read", "orm-static",
                        optional=True))
    return out


_FLASK_QUERY = {"filter", "filter_by", "all", "first", "get", "one", "one_or_none", "order_by", "count", "paginate",
                "limit", "offset", "join", "options", "get_or_404", "first_or_404", "scalar", "distinct", "group_by",
                "with_entities", "delete", "update"}
CALL_NAMES = frozenset({
    "knex", "db", "trx", "tx", "table", "Table", "from", "from_", "into", "query", *_DJANGO_READ, *_DJANGO_WRITE,
    *_FLASK_QUERY, "select", "insert", "update", "delete", "add", "add_all", "merge", "get", *_PRISMA_READ,
    *_PRISMA_WRITE, "init", "define", "getRepository", *_TYPEORM_READ, *_SEQ_READ, *_SEQ_WRITE,
})
# Spring Data repository methods are open-ended (findByCustomerEmail...).
CALL_PREFIXES = frozenset({*_READ_PREFIX, *_WRITE_PREFIX})

"""Byte checks of the framework adapters exist for speed only. With the ORM adapter's
(``orm._py_class_words``, ``orm._py_call_words``), ``orm._python`` gives exactly the records
it gives when both loops always run (sources built from ORM-like and unrelated fragments,
so the checks see both sides of every branch); the HTTP server and literal-table triggers
(``http_server._py_trigger``, ``orm._literal_trigger``) answer as the single patterns they
replaced, and the string-constant gate (``adapters._PY_CONST_GATE``) as the needles it replaced."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from codegraph.indexer.adapters import FileCtx, http_server, orm
from codegraph.indexer.extract import extract_source

FRAGMENTS = [
    "import django", "from django.db import models", "import sqlalchemy as sa", "from db import sa",
    "from sqlalchemy import select, Table", "# django", "'''sqlalchemy'''",
    "class Order(models.Model):\n    pass",
    "class Item(db.Model):\n    x = 1",
    "class User(Base):\n    __tablename__ = 'users'",
    "class P(SomeModel):\n    class Meta:\n        db_table = 'p_t'\n        app_label = 'shop'",
    "class A(models.Model):\n    class Meta:\n        abstract = True",
    "class Plain(object):\n    name = 'x'",
    "x = Order.objects.filter(a=1).update(b=2)",
    "x = (Order.objects\n     .filter(a=1))",
    "n = Order.objects.count()",
    "y = Item.query.filter_by(a=1).all()",
    "db_session.add(Order())", "session.add_all(Order())", "self.session.merge(Item(a=1))",
    "session.get(User, 1)", "q = session.query(User, Order)", "q = conn.query(User)",
    "t = Table('orders', meta)", "t2 = sa.table('t')", "t3 = table('legacy')",
    "s = select(User)", "s = sa.select(order)", "sa.update(Order)", "sqlalchemy.delete(Order)",
    "insert(Order)", "update(Order)", "delete(Order)", "x.update(y)", "db.query('orders')",
    "Model = 1", "def update(self):\n    pass", "def f():\n    return Order.objects.get(pk=1)",
    "if x:\n    class Late(models.Model):\n        pass",
    "value = compute(a, b)", "print('objects of the query')",
]


def records(source: bytes, path: str = "shop/models.py") -> list[dict]:
    fx = extract_source("r", path, "python", source)  # parses the bytes object FileCtx reads
    return orm._python(FileCtx("python", path, source, fx))


def ungated(source: bytes) -> list[dict]:
    with pytest.MonkeyPatch.context() as m:
        m.setattr(orm, "_py_class_words", lambda s: True)
        m.setattr(orm, "_py_call_words", lambda s: True)
        return records(source)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=8))
@example(["# django", "db_session.add(Order())"])
@example(["# django", "t = Table('orders', meta)"])
@example(["from db import sa", "s = sa.select(order)", "# django"])
@example(["import django", "class P(SomeModel):\n    class Meta:\n        db_table = 'p_t'\n        app_label = 'shop'"])
@example(["# django", "insert(Order)"])
@example(["# django", "y = Item.query.filter_by(a=1).all()"])
@example(["# django", "q = conn.query(User)"])
def test_orm_python_records_the_same_with_the_byte_checks(parts: list[str]) -> None:
    source = ("\n".join(parts) + "\n").encode()
    assert records(source) == ungated(source)


def test_the_checks_skip_files_without_the_names() -> None:
    # Django's own files all mention "django": most of them have neither loop's names.
    src = b"from django.utils import timezone\n\ndef now():\n    return timezone.now()\n"
    assert not orm._py_class_words(src) and not orm._py_call_words(src)
    assert orm._py_call_words(b"x = sa.update(Order)") and not orm._py_call_words(b"usage = 1; data.updated(x)")


# The trigger checks as they were: one pattern each (after a substring pre-check).
OLD_PY_TRIGGER = re.compile(rb"@[\w.]+\.(?:route|get|post|put|patch|delete|head|options|api_route)\(|urlpatterns|"
                            rb"include_router|register_blueprint|add_url_rule")
OLD_LITERAL_TRIGGER = re.compile(rb"\b(?:knex|db|trx|tx)\(\s*['\"`]|\.\s*(?:table|Table|from_?|into|query)\(\s*"
                                 rb"['\"`][A-Za-z_][\w.$]*['\"`]\s*\)")
PIECES = ["@app.route(", "@bp.get(", "@router.api_route(", "@x.y.delete(", "@ app.get(", "@app.get (", "urlpatterns",
          "include_router", "register_blueprint", "add_url_rule", "route", "get(", "knex(", "db(", "trx(", "tx(",
          "xdb(", "knex( 'a", 'db("', "db(`", ".table(", ". from_(", ".into(", ".query(", ".Table(", "'orders'",
          '"a.b"', "'1x'", ")", " ", "\n", ".", "@", "(", "'", "`", "x", "_", "$", "from", "into"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12))
@example([".table(", "'orders'", ")"])
@example(["db(", "'"])
@example(["@app.route("])
@example(["x", "db(", "'"])
@example(["trx(", "'"])
def test_trigger_checks_match_the_single_patterns(pieces: list[str]) -> None:
    source = "".join(pieces).encode()
    assert http_server._py_trigger(source) == (OLD_PY_TRIGGER.search(source) is not None)
    old = any(n in source for n in (b"table(", b"Table(", b"from(", b"from_(", b"into(", b"query(", b"knex(", b"db(",
                                    b"trx(", b"tx(")) and OLD_LITERAL_TRIGGER.search(source) is not None
    assert orm._literal_trigger(FileCtx("python", "a.py", source)) == old


CONST_NEEDLES = (b"= '/", b'= "/', b"= 'http", b'= "http', b"= ''", b'= ""', b"= f'", b'= f"')


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["=", " ", "'", '"', "/", "http", "f", "x", "==", "\n"]), max_size=12))
@example(["=", " ", "'", '"'])
@example(["=", " ", "f", "'"])
def test_the_const_gate_answers_as_the_needles(pieces: list[str]) -> None:
    from codegraph.indexer.adapters import _PY_CONST_GATE

    source = "".join(pieces).encode()
    assert (_PY_CONST_GATE.search(source) is not None) == any(n in source for n in CONST_NEEDLES)

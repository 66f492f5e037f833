"""Route normal form and the conservative URL matcher, case by case."""

from __future__ import annotations

import logging

import pytest

from codegraph.indexer.adapters._routes import client_url, fits, normalize_template
from codegraph.indexer.adapters.sql_tables import looks_like_sql, tables_of


@pytest.mark.parametrize(("raw", "norm"), [
    ("/api/orders/<int:order_id>/", "/api/orders/:order_id"),  # flask / django converter
    ("orders/{id:[0-9]+}", "/orders/:id"),  # chi regex parameter
    ("/files/{path...}", "/files/*path"),  # go 1.22 wildcard
    ("/x/[id]/[...slug]", "/x/:id/*slug"),  # next.js
    ("/a/:id(\\d+)/:opt?", "/a/:id/:opt"),  # express
    ("/static/*filepath", "/static/*filepath"),  # gin
    ("/users/{userId}?x=1", "/users/:userId"),  # spring, query dropped
    ("", "/"),
])
def test_normalize_template(raw: str, norm: str) -> None:
    assert normalize_template(raw) == norm


def L(v: str) -> tuple[str, str]:
    return ("lit", v)


def H(v: str) -> tuple[str, str]:
    return ("hole", v)


@pytest.mark.parametrize(("parts", "template", "ok"), [
    ([L("/api/orders/"), H("id")], "/api/orders/:id", True),  # a whole interpolated segment fills a parameter
    ([L("/api/"), H("kind"), L("/list")], "/api/orders/list", False),  # ...but never a literal segment
    ([L("/api/orders/"), H("id"), L(".json")], "/api/orders/:id", True),  # partly interpolated: parameter only
    ([L("/api/orders/v"), H("n")], "/api/orders/v1", False),
    ([L("/api/orders/42")], "/api/orders/:id", True),  # a known base: a literal value may fill a parameter
    ([H("BASE"), L("/orders/"), H("id")], "/api/orders/:id", True),  # unknown base: the tail fits
    ([H("BASE"), L("/orders/search")], "/api/orders/:id", False),  # unknown base: literals meet literals only
    ([H("BASE"), L("/orders")], "/api/orders", True),
    ([H("BASE"), L("/api/orders")], "/orders", False),  # the tail is longer than the route
    ([H("BASE"), H("path")], "/api/orders", False),  # nothing literal to match
    ([L("https://shop.example.com/api/orders?page=2")], "/api/orders", True),  # host and query dropped
    ([L("http://svc")], "/", True),
    ([L("/files/a/b/c")], "/files/*path", True),  # catch-all takes the rest
    ([H("BASE"), L("/files/a")], "/files/*path", False),  # unknown base and a catch-all: not aligned
    ([L("/api/orders")], "/api/orders/:id", False),
])
def test_fits(parts: list[tuple[str, str]], template: str, ok: bool) -> None:
    assert fits(client_url(parts), template) is ok


def test_dynamic_urls_have_no_segments() -> None:
    u = client_url([H("url")])
    assert u.dynamic and not fits(u, "/")


@pytest.mark.parametrize(("text", "sql"), [
    ("SELECT id FROM orders", True),
    ("select * from orders where id = ?", True),
    ("Select the item from the list", False),  # prose
    ("update the cache", False),
    ("DELETE FROM sessions", True),
    ("WITH x AS (SELECT 1) SELECT * FROM x", True),
    ("INSERT INTO t (a) VALUES (1)", True),
])
def test_looks_like_sql(text: str, sql: bool) -> None:
    assert looks_like_sql(text) is sql


def test_tables_of_statements() -> None:
    assert tables_of("SELECT * FROM public.orders o JOIN Customers c ON c.id = o.cid") == [
        ("customers", "read", ""), ("orders", "read", "public")]
    assert tables_of("UPDATE orders SET x = (SELECT max(y) FROM limits)") == [
        ("limits", "read", ""), ("orders", "write", "")]
    assert tables_of("SELECT * FROM `orders`") == [("orders", "read", "")]  # mysql quoting
    assert tables_of("SELECT * FROM __cg_hole_0") == []  # an interpolated table is not guessed
    assert tables_of("not sql at all (") == []


def test_sql_that_sqlglot_keeps_as_a_command_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    # Django's schema editor holds this literal; sqlglot's WARNING for it reached the stderr
    # of every `codegraph index` of Django.
    with caplog.at_level(logging.DEBUG, logger="codegraph"):
        assert tables_of("SET CONSTRAINTS ALL IMMEDIATE") == []
    assert [r.getMessage() for r in caplog.records if r.name.startswith("sqlglot") and r.levelno >= logging.WARNING] == []

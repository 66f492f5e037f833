"""REST API (codegraph serve): every operation answers the same JSON as the CLI's --json,
on the golden fixture indexed for real; bearer token, errors, OpenAPI; and one run through
a real uvicorn process on a free localhost port."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from codegraph.api.rest import create_app
from codegraph.cli import app as cli_app
from codegraph.core.settings import Settings, load_settings
from tests.golden_shop import REPO, index_golden

VOLATILE = {"ms", "age_hours", "last_checked_at"}


def stable(obj: Any) -> Any:
    """``obj`` without timings and clock-dependent ages (they differ between two calls)."""
    if isinstance(obj, dict):
        return {k: (None if k in VOLATILE else stable(v)) for k, v in obj.items()}
    if isinstance(obj, list):
        return [stable(v) for v in obj]
    return obj


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return index_golden(tmp_path_factory.mktemp("rest"))


def _env(s: Settings) -> dict[str, str]:
    return {"CODEGRAPH_HOME": str(s.home), "CODEGRAPH_GRAPH": "embedded", "CODEGRAPH_SEARCH": "embedded",
            "CODEGRAPH_EMBED_MODEL_PATH": "none"}


@pytest.fixture(scope="module")
def client(indexed: Settings) -> TestClient:
    with TestClient(create_app(indexed)) as c:
        yield c


def cli_json(s: Settings, *args: str) -> Any:
    r = CliRunner().invoke(cli_app, [*args, "--json"], env=_env(s))
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


@pytest.mark.parametrize(("url", "cli"), [
    ("/api/search?q=persist+an+order&k=5", ["search", "persist an order", "-k", "5"]),
    ("/api/callers?target=save_order", ["callers", "save_order"]),
    ("/api/impact?target=shop.repo.save_order&depth=3", ["impact", "shop.repo.save_order", "--depth", "3"]),
    ("/api/impact?target=validate&edge_type=CALLS&include_tests=false",
     ["impact", "validate", "-e", "CALLS", "--no-tests"]),
    ("/api/table?name=orders", ["impact", "table:orders", "--depth", "1", "--limit", "50"]),
    ("/api/endpoint?path=/api/orders/:order_id&method=GET",
     ["impact", "endpoint:GET /api/orders/:order_id", "--depth", "2", "--limit", "50"]),
    ("/api/stats", ["stats"]),
    (f"/api/freshness?repo={REPO}", ["freshness", "--repo", REPO]),
    ("/api/triage/stubs?limit=5", ["triage", "list", "--limit", "5"]),
])
def test_rest_answers_are_the_cli_json(client: TestClient, indexed: Settings, url: str, cli: list[str]) -> None:
    r = client.get(url)
    assert r.status_code == 200, r.text
    assert stable(r.json()) == stable(cli_json(indexed, *cli))


def test_answers_hold_what_the_fixture_has(client: TestClient) -> None:
    callers = client.get("/api/impact", params={"target": "shop.repo.save_order"}).json()["callers"]
    assert {(c["node"]["qualified_name"], c["depth"]) for c in callers} == {
        ("shop.service.OrderService.place", 1), ("shop.app.create_order", 2), ("tests.test_service.test_place", 2)}
    ep = client.get("/api/endpoint", params={"path": "/api/orders/:order_id", "method": "GET"}).json()
    assert {(c["node"]["qualified_name"], c["via"]) for c in ep["callers"]} >= {
        ("shop.app.get_order", "EXPOSES"), ("worker.client.fetch_order", "CALLS_HTTP")}
    tables = client.get("/api/table").json()
    assert [t["name"] for t in tables["items"]] == ["orders"] and tables["total"] == 1
    eps = client.get("/api/endpoint").json()
    assert sorted(e["name"] for e in eps["items"]) == ["GET /api/orders/:order_id", "POST /api/orders"]
    hits = client.get("/api/search", params={"q": "persist an order", "kind": "code"}).json()
    assert hits["mode"] == "bm25-only" and hits["hits"][0]["qualified_name"] == "shop.repo.save_order"
    assert {h["content"] for h in hits["hits"]} == {"code"}


def test_search_kinds_and_graph_context(client: TestClient) -> None:
    def top(q: str, kind: str) -> dict[str, Any]:
        r = client.get("/api/search", params={"q": q, "kind": kind, "k": 3})
        assert r.status_code == 200, r.text
        return r.json()["hits"][0]

    save = top("persist an order", "code")
    assert save["context"] == {"callers": 1, "callees": 0, "unresolved_callees": 1,
                               "top_callers": ["shop.service.OrderService.place"], "endpoints": [],
                               "tables": [{"table": "orders", "access": "WRITES", "via": ""}]}
    handler = top("return one order as json", "code")
    assert handler["qualified_name"] == "shop.app.get_order"
    assert {"endpoint": "GET /api/orders/:order_id", "relation": "handles"} in handler["context"]["endpoints"]
    # get_order -> OrderService.find and the OrderService constructor; neither touches a table itself.
    assert (handler["context"]["callers"], handler["context"]["callees"], handler["context"]["tables"]) == (0, 2, [])
    orders = top("orders table total", "schema")
    assert (orders["content"], orders["kind"], orders["qualified_name"], orders["file"], orders["line"]) == (
        "schema", "table", "orders", "db/schema.sql", 2)
    assert orders["context"] == {"table_node": "table|golden_shop|orders", "readers": ["shop.repo.load_order"],
                                 "writers": ["shop.repo.save_order"]}
    customers = top("customers email", "schema")
    assert customers["qualified_name"] == "customers" and customers["context"]["table_node"] is None
    env = top("DATABASE_URL", "config")
    assert (env["file"], env["line"], env["text"]) == (".env.example", 2, "DATABASE_URL = postgresql://localhost/shop")
    assert env["context"]["read_by"] == [{"qualified_name": "shop.settings.database_url", "file": "shop/settings.py",
                                          "line": 7, "repo": REPO, "name": "DATABASE_URL"}]
    spring = top("datasource url", "config")
    assert spring["qualified_name"] == "shop.datasource.url" and spring["file"] == "config/application.yml"
    assert [r["name"] for r in spring["context"]["read_by"]] == ["DATABASE_URL"]  # via its ${DATABASE_URL:...}
    doc = top("refund reverses", "docs")
    assert (doc["content"], doc["qualified_name"], doc["file"], doc["line"]) == (
        "docs", "golden shop > Orders > Refunds", "README.md", 10)
    bad = client.get("/api/search", params={"q": "x", "kind": "pictures"})
    assert bad.status_code == 400 and "pictures" in bad.json()["error"]


def test_impact_of_free_text_picks_targets_by_search(client: TestClient, indexed: Settings) -> None:
    r = client.get("/api/impact", params={"target": "persist an order", "depth": 2})
    assert r.status_code == 200, r.text
    d = r.json()
    picks = d["search_targets"]
    assert picks[0]["qualified_name"] == "shop.repo.save_order" and picks[0]["score"] > 0
    assert {t["qualified_name"] for t in d["targets"]} == {p["qualified_name"] for p in picks}
    assert "shop.service.OrderService.place" in {c["node"]["qualified_name"] for c in d["callers"]}
    assert stable(d) == stable(cli_json(indexed, "impact", "persist an order", "--depth", "2"))
    # A bare name that matches nothing stays an error (no guessing from one word).
    assert client.get("/api/impact", params={"target": "nosuchname"}).status_code == 404


def test_errors_are_one_line_with_a_status(client: TestClient) -> None:
    r = client.get("/api/impact", params={"target": "no_such_symbol_anywhere"})
    assert r.status_code == 404 and "\n" not in r.json()["error"] and "no_such_symbol_anywhere" in r.json()["error"]
    r = client.get("/api/stats", params={"repo": "nope"})
    assert r.status_code == 400 and "nope" in r.json()["error"]
    r = client.get("/api/impact", params={"target": "validate", "edge_type": "BOGUS"})
    assert r.status_code == 400 and "BOGUS" in r.json()["error"]
    assert client.get("/api/search", params={"q": "x", "k": 0}).status_code == 422
    assert client.get("/api/impact", params={"target": "validate", "depth": 99}).status_code == 422


def test_openapi_and_docs(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    assert {"/api/search", "/api/callers", "/api/impact", "/api/table", "/api/endpoint", "/api/stats",
            "/api/freshness", "/api/triage/stubs", "/api/triage/decisions"} <= set(spec["paths"])
    assert "post" in spec["paths"]["/api/triage/decisions"]
    docs = client.get("/docs")
    assert docs.status_code == 200 and "swagger" in docs.text.lower()


def test_bearer_token(indexed: Settings) -> None:
    s = load_settings(home=indexed.home, graph="embedded", search="embedded", embed_model_path="none",
                      api_token="t0ps3cret")
    with TestClient(create_app(s)) as c:
        assert c.get("/health").status_code == 200  # liveness needs no token
        assert c.get("/api/stats").status_code == 401
        bad = c.get("/api/stats", headers={"Authorization": "Bearer wrong"})
        assert bad.status_code == 401 and "t0ps3cret" not in bad.text
        assert c.get("/api/stats", headers={"Authorization": "Bearer t0ps3cret"}).status_code == 200


def test_triage_decisions_round_trip(tmp_path: Path) -> None:
    s = index_golden(tmp_path)
    with TestClient(create_app(s)) as c:
        before = {x["target_identifier"] for x in c.get("/api/triage/stubs").json()["stubs"]}
        assert "mailer.send_receipt" in before
        d = c.post("/api/triage/decisions", json={"action": "external", "target": "mailer.*", "library": "mailer",
                                                  "note": "third-party mail client", "by": "tester"})
        assert d.status_code == 200, d.text
        body = d.json()
        assert (body["action"], body["key"], body["library"], body["decided_by"]) == (
            "external", "mailer.*", "mailer", "tester")
        after = {x["target_identifier"] for x in c.get("/api/triage/stubs").json()["stubs"]}
        assert "mailer.send_receipt" not in after and before - after == {"mailer", "mailer.send_receipt"}, after
        undone = c.post("/api/triage/decisions", json={"action": "undo", "target": "mailer.*"})
        assert undone.status_code == 200 and undone.json()["status"] == "undone" and undone.json()["undone_at"]
        assert "mailer.send_receipt" in {x["target_identifier"] for x in c.get("/api/triage/stubs").json()["stubs"]}
        bad = c.post("/api/triage/decisions", json={"action": "resolve", "target": "mailer.send_receipt"})
        assert bad.status_code == 400 and "to" in bad.json()["error"]
        assert c.post("/api/triage/decisions", json={"action": "explode", "target": "x"}).status_code == 422


def test_triage_decision_on_some_call_sites(tmp_path: Path) -> None:
    s = index_golden(tmp_path)
    with TestClient(create_app(s)) as c:
        bad = c.post("/api/triage/decisions", json={"action": "ignore", "target": "mailer.send_receipt",
                                                    "folders": ["../elsewhere"]})
        assert bad.status_code == 400 and "leaves the repo root" in bad.json()["error"]
        none = c.post("/api/triage/decisions", json={"action": "ignore", "target": "mailer.send_receipt",
                                                     "files": ["shop/models.py"]})
        assert none.status_code == 400 and "no unresolved call site" in none.json()["error"]
        d = c.post("/api/triage/decisions", json={"action": "ignore", "target": "mailer.send_receipt",
                                                  "files": ["shop/service.py"]})
        assert d.status_code == 200, d.text
        assert (d.json()["scope"]["files"], d.json()["scope_label"], d.json()["call_sites"]) == (
            ["shop/service.py"], "file shop/service.py", 1)
        undone = c.post("/api/triage/decisions", json={"action": "undo", "target": "mailer.send_receipt",
                                                       "uid": d.json()["uid"]})
        assert undone.status_code == 200 and undone.json()["status"] == "undone"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_real_uvicorn_process(indexed: Settings, tmp_path: Path) -> None:
    port = _free_port()
    token = "uvicorn-t0ken-xyz"
    env = {**os.environ, **_env(indexed), "CODEGRAPH_API_TOKEN": token}
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "codegraph", "serve", "--port", str(port)], env=env,
                                stdout=out, stderr=subprocess.STDOUT)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.3)
        auth = {"Authorization": f"Bearer {token}"}
        r = httpx.get(f"{base}/api/callers", params={"target": "save_order"}, headers=auth, timeout=30)
        assert r.status_code == 200
        assert [c["node"]["qualified_name"] for c in r.json()["callers"]] == ["shop.service.OrderService.place"]
        assert httpx.get(f"{base}/api/callers", params={"target": "save_order"}, timeout=30).status_code == 401
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    text = log.read_text()
    assert f"127.0.0.1:{port}" in text and "GET /api/callers" in text  # uvicorn's access log ran
    assert token not in text  # the token is never logged


def test_serve_refuses_a_public_bind_without_a_token(indexed: Settings) -> None:
    r = CliRunner().invoke(cli_app, ["serve", "--host", "0.0.0.0"], env=_env(indexed))
    assert r.exit_code == 2 and "CODEGRAPH_API_TOKEN" in r.output

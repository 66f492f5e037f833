"""match_call: a client call of one repo against the endpoints of the others
(docs/DESIGN.md#workspaces), exact pairs for each base-URL rule."""

from __future__ import annotations

from codegraph.core.models import ENDPOINT, Node, endpoint_uid
from codegraph.indexer.cross_repo_http import match_call

ENDPOINTS = {
    "pay": [("GET", "/pay/list"), ("POST", "/pay/charge"), ("GET", "/health"), ("GET", "/pay/:id")],
    "ledger": [("GET", "/health"), ("GET", "/ledger/entries")],
}
BASES = {"pay": ["https://pay.internal", "https://gw.internal/payments", "${PAY_URL}"]}


def _eps(repo: str) -> list[Node]:
    return [Node(endpoint_uid(repo, m, p), ENDPOINT, {"repo": repo, "method": m, "path_template": p})
            for m, p in ENDPOINTS[repo]]


def _match(parts: list[list[str]], method: str | None = "GET") -> tuple[set[str], list[str]]:
    got, also = match_call({"parts": parts, "method": method}, ["pay", "ledger"], _eps, BASES)
    return {f"{r}: {n.display()}" for r, n in got}, also


def test_relative_path_matches_the_one_peer_that_serves_it() -> None:
    assert _match([["lit", "/ledger/entries"]]) == ({"ledger: GET /ledger/entries"}, [])


def test_a_path_two_peers_serve_is_ambiguous() -> None:
    assert _match([["lit", "/health"]])[0] == {"pay: GET /health", "ledger: GET /health"}


def test_static_route_wins_and_the_parameter_route_is_kept_as_also_fits() -> None:
    assert _match([["lit", "/pay/list"]]) == ({"pay: GET /pay/list"}, ["pay: GET /pay/:id"])


def test_absolute_url_of_a_configured_host_pins_the_peer() -> None:
    assert _match([["lit", "https://pay.internal/health"]])[0] == {"pay: GET /health"}


def test_base_url_with_a_path_prefix_is_stripped() -> None:
    assert _match([["lit", "https://gw.internal/payments/pay/charge"]], "POST")[0] == {"pay: POST /pay/charge"}
    assert _match([["lit", "https://gw.internal/other/pay/charge"]], "POST")[0] == set()


def test_a_variable_named_in_base_urls_gives_a_known_base() -> None:
    # `${process.env.PAY_URL}/health`: only pay's /health, not the ledger's
    assert _match([["hole", "process.env.PAY_URL"], ["lit", "/health"]])[0] == {"pay: GET /health"}
    assert _match([["hole", "settings['PAY_URL']"], ["lit", "/health"]])[0] == {"pay: GET /health"}


def test_an_unknown_variable_base_matches_by_tail_across_peers() -> None:
    assert _match([["hole", "API"], ["lit", "/health"]])[0] == {"pay: GET /health", "ledger: GET /health"}


def test_an_absolute_url_no_peer_claims_is_left_alone() -> None:
    assert _match([["lit", "https://api.example.org/pay/list"]])[0] == set()


def test_method_must_fit() -> None:
    assert _match([["lit", "/ledger/entries"]], "POST")[0] == set()
    # a literal may fill a parameter: GET /pay/charge reaches GET /pay/:id, not POST /pay/charge
    assert _match([["lit", "/pay/charge"]], "GET")[0] == {"pay: GET /pay/:id"}

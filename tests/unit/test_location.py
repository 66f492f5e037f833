"""``models.location``: how every face writes where a node is (no ``:0`` for nodes without a line)."""

from codegraph.core.models import location
from codegraph.core.report import _at


def test_location_forms() -> None:
    assert location("shop/repo.py", 12) == "shop/repo.py:12"
    assert location("web/app/orders/page.tsx", 0) == "web/app/orders/page.tsx"
    assert location("", 0) == ""
    assert location(None, None) == ""
    assert _at("", 0) == "no file"
    assert _at("shop/repo.py", 12) == "shop/repo.py:12"

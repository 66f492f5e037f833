"""A small repository written by the tests, indexed with the real pipeline into the
embedded stores, shared by the dashboard (AppTest) and browser (Playwright) tests.

Call graph (CALLS, resolved by the Python extractor):
    tests.test_orders.test_create_order -> shop.api.create_order
    shop.api.bulk_create -> shop.api.create_order -> shop.orders.OrderService.place
    shop.orders.OrderService.place -> shop.store.save, shop.orders.OrderService.validate
    shop.audit.record_event -> shop.audit.save   (a second function named ``save``)
Coverage: shop/broken.py does not parse; scripts/tool.rb is Ruby; README.txt is no source.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from codegraph.core.settings import Settings, load_settings
from tests.indexing import index_into

REPO = "shop"
FILES: dict[str, str] = {
    "shop/__init__.py": '"""A tiny shop."""\n',
    "shop/store.py": '''"""Persistence."""


def save(record):
    """Persist a record in the database."""
    return dict(record)


def load(key):
    """Read a record back by its key."""
    return {"key": key}
''',
    "shop/audit.py": '''"""Audit trail."""


def save(event):
    """Append an event to the audit log."""
    return [event]


def record_event(name):
    return save({"event": name})
''',
    "shop/orders.py": '''"""Orders: validation and placement."""
from shop.store import save


class OrderService:
    def validate(self, order):
        """Check an order before saving it."""
        if not order.get("items"):
            raise ValueError("empty order")
        return True

    def place(self, order):
        self.validate(order)
        return save(order)
''',
    "shop/api.py": '''"""Entry points."""
from shop.orders import OrderService


def create_order(payload):
    service = OrderService()
    return service.place(payload)


def bulk_create(payloads):
    return [create_order(p) for p in payloads]
''',
    "shop/broken.py": '''"""Half-written code: does not parse."""


def unfinished(x:
    return x +
''',
    "tests/test_orders.py": '''from shop.api import create_order


def test_create_order():
    assert create_order({"items": [1]})
''',
    "scripts/tool.rb": 'puts "a Ruby helper"\n',
    "README.txt": "not source code\n",
}
SAVE_CALLERS = {
    "shop.orders.OrderService.place", "shop.api.create_order", "shop.api.bulk_create",
    "tests.test_orders.test_create_order",
}


@dataclass(slots=True)
class Indexed:
    root: Path
    home: Path
    settings: Settings


def write_shop(root: Path) -> Path:
    for rel, text in FILES.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


def index_shop(root: Path, home: Path, embed: bool = False) -> Indexed:
    """Index ``root`` as repo ``shop`` into embedded stores under ``home``; with
    ``embed`` also run the embedding phase (needs the model folder)."""
    s = load_settings(home=home, graph="embedded", search="embedded")
    index_into(root, REPO, s, embed)
    return Indexed(root, home, s)


def dashboard_env(home: Path, model: bool = False) -> dict[str, str]:
    """Environment that points the dashboard at ``home``'s embedded stores (services.env
    and the developer's settings cannot leak in)."""
    env = {"CODEGRAPH_HOME": str(home), "CODEGRAPH_GRAPH": "embedded", "CODEGRAPH_SEARCH": "embedded"}
    if not model:
        env["CODEGRAPH_EMBED_MODEL_PATH"] = "none"
    return env

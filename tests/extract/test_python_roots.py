"""Python packages below the repo root (``backend/shopapp`` imported as ``shopapp``)."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import edge_set_with_resolution

FIX = Path(__file__).parent.parent / "fixtures" / "python" / "package_root"


def test_imports_and_calls_resolve_under_a_package_root() -> None:
    assert edge_set_with_resolution(FIX) == {
        # api.py: `from shopapp.models import save_order` (a re-export), the module itself,
        # and `import shopapp.models.orders as om`
        ("IMPORTS", "backend/shopapp/api.py", "backend/shopapp/models/__init__.py", "import"),
        ("IMPORTS", "backend/shopapp/api.py", "backend/shopapp/models/orders.py", "import"),
        ("IMPORTS", "backend/shopapp/models/__init__.py", "backend/shopapp/models/orders.py", "import"),
        ("CALLS", "backend.shopapp.api.place", "backend.shopapp.models.orders.save_order", "import"),
    }

"""Fixtures for the dashboard tests: the shop repository indexed once per session, and
an AppTest factory pointed at it through CODEGRAPH_* variables."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard.shop import Indexed, dashboard_env, index_shop, write_shop

APP = Path(__file__).resolve().parents[2] / "codegraph" / "dashboard" / "app.py"


@pytest.fixture(scope="session")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Indexed:
    root = write_shop(tmp_path_factory.mktemp("shop-src"))
    return index_shop(root, tmp_path_factory.mktemp("shop-home"))


def _point_at(monkeypatch: pytest.MonkeyPatch, home: Path, model: bool = False) -> None:
    from codegraph.core import settings

    for k, v in dashboard_env(home, model).items():
        monkeypatch.setenv(k, v)
    if model:
        monkeypatch.delenv("CODEGRAPH_EMBED_MODEL_PATH", raising=False)
    settings.get_settings.cache_clear()


@pytest.fixture
def app(shop: Indexed, monkeypatch: pytest.MonkeyPatch) -> Callable[..., AppTest]:
    """``app(page=None)``: an AppTest of the dashboard on the shop index, already run
    (and switched to ``page``, e.g. "impact.py", when given)."""
    _point_at(monkeypatch, shop.home)
    return lambda page=None: open_app(page)


def open_app(page: str | None = None) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=60).run()
    if page:
        at.switch_page(f"../pages/{page}").run()
    return at


@pytest.fixture
def point_at(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """``point_at(home, model=False)`` for tests with their own stores."""
    return lambda home, model=False: _point_at(monkeypatch, home, model)

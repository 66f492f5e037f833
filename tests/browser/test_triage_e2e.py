"""Triage decisions on some call sites, in a real browser: 60 calls of ``cfg.get`` in
app/settings.py and 3 in app/more/extra.py. "Decide for: a calling file" ignores the 3
without a confirmation; "a folder" (app/, 60 call sites left) asks first with the preview
for that scope, Esc cancels, Enter confirms; the decision log undoes the latest (the folder)
with U and leaves the file decision standing. Keyboard-driven throughout; screenshots
under artifacts/browser/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codegraph.core import triage
from codegraph.core.embedded_graph import EmbeddedGraphStore
from tests.browser.test_dashboard_e2e import (
    CHROMIUM,
    CHROMIUM_ARGS,
    _console_errors,
    idle,
    no_exception,
    serve_dashboard,
    shot,
)
from tests.triage.fixture import home_tree

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with home_tree(tmp_path_factory.mktemp("tri")) as (home, tree):
        tree.write("app/settings.py", "def read(cfg):\n" + "".join(f"    cfg.get('k{i}')\n" for i in range(60)))
        tree.write("app/more/extra.py", "def more(cfg):\n" + "".join(f"    cfg.get('m{i}')\n" for i in range(3)))
        tree.index()
    return home


@pytest.fixture(scope="module")
def served(home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_dashboard(home, tmp_path_factory.mktemp("tri-log") / "dashboard.log") as url:
        yield url


def _get_sites(home: Path) -> int:
    g = EmbeddedGraphStore(home / "graph.db")
    try:
        return sum(refs for n, refs in g.stubs_ranked("app", limit=100) if n.props.get("target_identifier") == "get")
    finally:
        g.close()


def _active_scopes(home: Path) -> list[str]:
    g = EmbeddedGraphStore(home / "graph.db")
    try:
        return [d.scope.label() for d in triage.decision_list(g, "app", include_undone=False)]
    finally:
        g.close()


def _blur(pg: Any) -> None:
    """Move the focus off a widget so that the page's key shortcuts reach the buttons."""
    pg.locator("h1").first.click()


def test_scoped_decision_confirmation_and_undo_by_keyboard(served: str, home: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            pg = b.new_page(viewport={"width": 1400, "height": 1400})
            errors = _console_errors(pg)
            pg.goto(f"{served}/triage")
            idle(pg)
            no_exception(pg, "triage")
            body = pg.locator('[data-testid="stMain"]')
            assert "Stub 1 of" in body.inner_text() and "Call sites (63)" in body.inner_text()

            # A calling file: its 3 call sites, no confirmation needed; I ignores them.
            pg.get_by_text("a calling file", exact=True).click()
            idle(pg)
            assert "act on file app/more/extra.py: 3 call site(s) from 1 calling symbol(s) in 1 file(s)" in (
                body.inner_text())
            shot(pg, "triage-scope-file")
            _blur(pg)
            pg.keyboard.press("i")
            idle(pg)
            no_exception(pg, "triage file decision")
            assert "get on file app/more/extra.py ignored: 1 stub(s), 3 call site(s)" in body.inner_text()
            assert _get_sites(home) == 60
            shot(pg, "triage-scope-file-done")

            # A folder: app/ and below, 60 call sites left: B waits for a confirmation for that scope.
            pg.get_by_text("a folder", exact=True).click()
            idle(pg)
            _blur(pg)
            pg.keyboard.press("b")
            idle(pg)
            text = body.inner_text()
            assert "Confirm: mark get external (builtins) on folder app/?" in text
            assert "60 call sites" in text and "1 calling symbol(s)" in text
            shot(pg, "triage-scope-folder-confirmation")
            pg.keyboard.press("Escape")
            idle(pg)
            assert "Cancelled: nothing was changed." in body.inner_text()
            assert _get_sites(home) == 60
            _blur(pg)
            pg.keyboard.press("b")
            idle(pg)
            pg.keyboard.press("Enter")
            idle(pg)
            no_exception(pg, "triage folder confirmed")
            assert _get_sites(home) == 0
            assert sorted(_active_scopes(home)) == ["file app/more/extra.py", "folder app/"]
            shot(pg, "triage-scope-folder-confirmed")

            # The decision log: the latest (the folder) is preselected; U undoes it alone.
            pg.get_by_role("tab", name="Decision log").click()
            idle(pg)
            assert "folder app/" in body.inner_text()
            _blur(pg)
            pg.keyboard.press("u")
            idle(pg)
            no_exception(pg, "triage undo")
            assert "Undone: get on folder app/ (external)" in body.inner_text()
            assert _get_sites(home) == 60
            assert _active_scopes(home) == ["file app/more/extra.py"]
            shot(pg, "triage-scope-undone")
            assert errors == [], errors
        finally:
            b.close()

"""Baselines and Triage in a real browser, on the triage fixture indexed three times (a
run that drops symbols, a run that recovers them). Baselines: the default view (latest
against previous: no drop) still flags the drop where it happened, on a categorical axis
of runs. Triage: a decision on 60 call sites asks for confirmation with its preview and
changes nothing until confirmed. Screenshots under artifacts/browser/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

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
def dropped_then_recovered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with home_tree(tmp_path_factory.mktemp("bl")) as (home, tree):
        # 60 calls of `cfg.get(...)` on an unknown receiver: the dict.get stub for Triage.
        tree.write("app/settings.py", "def read(cfg):\n" + "".join(f"    cfg.get('k{i}')\n" for i in range(60)))
        tree.index()
        audit = (tree.root / "app" / "audit.py").read_text()
        (tree.root / "app" / "audit.py").unlink()
        tree.index()
        tree.write("app/audit.py", audit)
        tree.index()
    return home


@pytest.fixture(scope="module")
def served(dropped_then_recovered: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_dashboard(dropped_then_recovered, tmp_path_factory.mktemp("bl-log") / "dashboard.log") as url:
        yield url


def test_default_view_flags_the_drop_after_a_recovery(served: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            pg = b.new_page(viewport={"width": 1400, "height": 1800})
            errors = _console_errors(pg)
            pg.goto(f"{served}/baselines")
            idle(pg)
            no_exception(pg, "baselines")
            body = pg.locator('[data-testid="stMain"]').inner_text()
            # Latest against previous is a recovery, and says so ...
            assert "No count of" in body
            # ... while the drop at run 2 stays flagged, in the summary and on the timeline.
            alert = pg.locator('[data-testid="stAlertContentError"]').first.inner_text()
            assert "Drops on the timeline:" in alert and "(#2 " in alert
            # One small chart per count on a categorical axis of runs (#1, #2, #3).
            ticks = pg.locator(".xtick text").evaluate_all("els => els.map(e => e.textContent || '')")
            assert any(t.startswith("#2") for t in ticks) and any(t.startswith("#3") for t in ticks), ticks
            assert pg.locator(".js-plotly-plot").count() >= 6
            shot(pg, "baselines-drop-then-recovery")
            assert errors == [], errors
        finally:
            b.close()


def test_triage_asks_before_a_decision_on_60_call_sites(served: str, dropped_then_recovered: Path) -> None:
    from playwright.sync_api import sync_playwright

    def stubs_named(name: str) -> int:
        g = EmbeddedGraphStore(dropped_then_recovered / "graph.db")
        try:
            return sum(refs for n, refs in g.stubs_ranked("app", limit=100) if n.props.get("target_identifier") == name)
        finally:
            g.close()

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            pg = b.new_page(viewport={"width": 1400, "height": 1400})
            errors = _console_errors(pg)
            pg.goto(f"{served}/triage")
            idle(pg)
            no_exception(pg, "triage")
            # The most referenced stub comes first: `get`, with its builtin verdict.
            body = pg.locator('[data-testid="stMain"]')
            assert "Verdict: builtin / standard library" in body.inner_text()
            # Keyboard-driven: J moves to the next stub and K back; B marks the stub builtin.
            pg.keyboard.press("j")
            idle(pg)
            assert "Stub 2 of" in body.inner_text()
            pg.keyboard.press("k")
            idle(pg)
            assert "Stub 1 of" in body.inner_text()
            pg.keyboard.press("b")
            idle(pg)
            text = body.inner_text()
            assert "Confirm: mark get external (builtins)?" in text
            assert "60 call sites" in text and "1 calling symbol(s)" in text
            assert stubs_named("get") == 60  # nothing changed before the confirmation
            shot(pg, "triage-confirmation")
            pg.keyboard.press("Enter")  # confirms
            idle(pg)
            no_exception(pg, "triage confirmed")
            assert "marked external (builtins)" in body.inner_text()
            assert stubs_named("get") == 0
            shot(pg, "triage-confirmed")
            assert errors == [], errors
        finally:
            b.close()

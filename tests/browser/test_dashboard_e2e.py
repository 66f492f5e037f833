"""End to end in a real browser: `codegraph dashboard` on an indexed repository, driven by
Playwright through Debian's Chromium (/usr/bin/chromium; never `playwright install`).

Opens every page, performs an impact exploration the way the tech lead does (type a
target, read the evidence, narrow, inspect a node, export the re-check list), follows a
search hit to its blast radius, and fails on any Streamlit exception element.
Screenshots go to artifacts/browser/ (git-ignored). Skipped, saying why, when Chromium
or Playwright is missing, unless CODEGRAPH_REQUIRE_SERVICES=1.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from codegraph.dashboard import graph_view
from tests.dashboard.shop import SAVE_CALLERS, Indexed, dashboard_env, index_shop, write_shop

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "artifacts" / "browser"
# Playwright's launch() gives every browser a fresh temporary user-data-dir of its own.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
GRAPH = 'iframe[title="streamlit_agraph.agraph"]'
PAGES = {"": "Overview", "search": "Search", "impact": "Impact", "coverage": "Coverage", "health": "Health",
         "cypher": "Cypher console"}


def _skip_or_fail(reason: str) -> None:
    if os.environ.get("CODEGRAPH_REQUIRE_SERVICES", "") == "1":
        pytest.fail(f"browser test required but cannot run: {reason}", pytrace=False)
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"dashboard exited with {proc.returncode}: {log.read_text(errors='replace')[-2000:]}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    pytest.fail(f"dashboard did not answer within {timeout:.0f} s: {log.read_text(errors='replace')[-2000:]}")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Indexed:
    root = write_shop(tmp_path_factory.mktemp("e2e-shop"))
    return index_shop(root, tmp_path_factory.mktemp("e2e-home"))


@contextlib.contextmanager
def serve_dashboard(home: Path, log: Path) -> Iterator[str]:
    """URL of `codegraph dashboard` serving the graph under ``home`` (output in ``log``);
    the dashboard and its Streamlit child are stopped together afterwards. Skips (fails on
    CI) when Chromium or playwright is missing."""
    if not CHROMIUM.exists():
        _skip_or_fail(f"{CHROMIUM} is missing (apt-get install -y chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _skip_or_fail("the playwright Python package is missing (pip install playwright)")
    exe = shutil.which("codegraph", path=str(Path(sys.executable).parent)) or shutil.which("codegraph")
    if exe is None:
        pytest.fail("the `codegraph` console script is not installed (make install)")
    port = _free_port()
    env = {**os.environ, **dashboard_env(home)}
    with log.open("wb") as out:
        # Own session: the dashboard and the Streamlit child it starts are stopped together.
        proc = subprocess.Popen([exe, "dashboard", "--port", str(port)], cwd=ROOT, env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc, log)
        yield url
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=15)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)


@pytest.fixture(scope="module")
def dashboard(indexed: Indexed, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of `codegraph dashboard` serving the indexed shop; stopped afterwards."""
    with serve_dashboard(indexed.home, tmp_path_factory.mktemp("e2e-log") / "dashboard.log") as url:
        yield url


@pytest.fixture(scope="module")
def browser(dashboard: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    # Tall viewport: Streamlit scrolls inside its own container, so full_page cannot
    # capture below the fold.
    ctx = browser.new_context(viewport={"width": 1500, "height": 2400}, accept_downloads=True)
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    try:
        yield pg
    finally:
        ctx.close()


def idle(pg: Any) -> None:
    """Wait until the script run settled (components may trigger one more run)."""
    for _ in range(3):
        pg.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=60_000)
        pg.wait_for_timeout(700)
    pg.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=60_000)


def no_exception(pg: Any, where: str) -> None:
    n = pg.locator('[data-testid="stException"]').count()
    assert n == 0, f"{where}: {n} Streamlit exception(s): {pg.locator('[data-testid=stException]').first.inner_text()}"


def shot(pg: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def _find_colour(pg: Any, selector: str, hex_colour: str) -> tuple[float, float]:
    """Page coordinates of the middle of the pixels of ``hex_colour`` inside ``selector``
    (the canvas draws nodes; this finds one without access to vis-network's internals)."""
    import io

    from PIL import Image

    el = pg.locator(selector)
    box = el.bounding_box()
    img = Image.open(io.BytesIO(el.screenshot())).convert("RGB")
    want = tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    hits = [(x, y) for y in range(0, img.height, 2) for x in range(0, img.width, 2)
            if all(abs(a - b) <= 6 for a, b in zip(img.getpixel((x, y)), want, strict=True))]
    assert hits, f"no pixel of {hex_colour} in {selector}"
    xs, ys = sorted(h[0] for h in hits), sorted(h[1] for h in hits)
    scale = img.width / box["width"]
    return box["x"] + xs[len(xs) // 2] / scale, box["y"] + ys[len(ys) // 2] / scale


def test_every_page_opens(dashboard: str, page: Any) -> None:
    for path, title in PAGES.items():
        page.goto(f"{dashboard}/{path}")
        idle(page)
        no_exception(page, title)
        assert page.locator("h1").first.inner_text().strip() == title
        assert page.locator('[data-testid="stAlertContentError"]').count() == 0, title
        shot(page, f"page-{path or 'overview'}")
    # The Cypher console tells the embedded user why it is unavailable.
    assert "needs Neo4j" in page.locator('[data-testid="stAlert"]').first.inner_text()
    # Pages other faces added to app.PAGES must not raise either.
    from codegraph.dashboard.app import PAGES as LISTED

    for spec in LISTED:
        path = spec.file.removesuffix(".py")
        if path in PAGES or (spec.default and "" in PAGES):
            continue
        page.goto(f"{dashboard}/{path}")
        idle(page)
        no_exception(page, spec.title)
        shot(page, f"page-{path}")


def test_impact_exploration(dashboard: str, page: Any) -> None:
    page.goto(f"{dashboard}/impact")
    idle(page)
    box = page.get_by_role("textbox", name="Target")
    box.fill("save")
    box.press("Enter")
    idle(page)
    no_exception(page, "impact picker")
    body = page.locator('[data-testid="stMain"]')
    # Two functions are named save: the picker lists both (kind, file, repo), both picked.
    picker = page.locator('[data-testid="stMain"] [data-testid="stMultiSelect"]').first
    assert "Matches (2)" in picker.inner_text()
    assert "shop/store.py:4" in picker.inner_text() and "shop/audit.py:4" in picker.inner_text()
    no_exception(page, "impact two targets")
    assert "Evidence: 5 of 5 callers" in body.inner_text()
    shot(page, "impact-0-two-targets")

    # The tech lead's target exactly: its four callers.
    box.fill("shop.store.save")
    box.press("Enter")
    idle(page)
    assert "Evidence: 4 of 4 callers" in body.inner_text()
    # The graph is drawn: the agraph component iframe holds a vis-network canvas.
    frame = page.frame_locator('iframe[title="streamlit_agraph.agraph"]')
    frame.locator("canvas").first.wait_for(state="visible")
    assert "★ target" in body.inner_text() and "test" in body.inner_text()  # the legend
    shot(page, "impact-1-radius")

    # Click a node in the graph: the only depth-1 caller (OrderService.place), found by its colour.
    x, y = _find_colour(page, GRAPH, graph_view.depth_colour(1))
    page.mouse.click(x, y)
    idle(page)
    no_exception(page, "node click")
    text = body.inner_text()
    assert "shop.orders.OrderService.place · method · shop/orders.py:12" in text
    assert "Why it is here: depth 1, CALLS at shop/orders.py:14" in text
    shot(page, "impact-1b-clicked-node")

    # Narrow: hide tests (in the sidebar).
    page.get_by_text("Hide tests").click()
    idle(page)
    no_exception(page, "hide tests")
    assert "Evidence: 3 of 3 callers" in body.inner_text()
    shot(page, "impact-2-no-tests")

    # Inspect a node: its source lines and why it is there.
    detail = page.locator('[data-testid="stSelectbox"]').filter(has_text="Node details")
    detail.click()
    page.get_by_role("option", name="shop.api.create_order").click()
    idle(page)
    no_exception(page, "node details")
    text = body.inner_text()
    assert "def create_order(payload):" in text and "Why it is here: depth 2" in text
    shot(page, "impact-3-node-details")

    # Export the re-check list as Markdown.
    with page.expect_download() as dl:
        page.get_by_role("button", name="Re-check list (Markdown)").click()
    md = Path(dl.value.path()).read_text(encoding="utf-8")
    assert md.startswith("## Re-check list for `shop.store.save`")
    for caller in SAVE_CALLERS - {"tests.test_orders.test_create_order"}:
        assert f"`{caller}`" in md
    assert "no supported relationship found" in md
    idle(page)
    no_exception(page, "export")


def test_search_hit_leads_to_its_blast_radius(dashboard: str, page: Any) -> None:
    page.goto(f"{dashboard}/search")
    idle(page)
    box = page.get_by_role("textbox", name="Query")
    box.fill("persist a record in the database")
    box.press("Enter")
    idle(page)
    no_exception(page, "search")
    body = page.locator('[data-testid="stMain"]')
    text = body.inner_text()
    assert "1. shop.store.save" in text and "BM25-only" in text
    shot(page, "search-hits")
    page.get_by_role("button", name="Impact").first.click()
    idle(page)
    no_exception(page, "search -> impact")
    assert urlparse(page.url).path.rstrip("/").endswith("/impact")
    assert parse_qs(urlparse(page.url).query) == {"target": ["shop.store.save"]}  # shareable link
    assert "Evidence: 4 of 4 callers" in body.inner_text()
    shot(page, "search-to-impact")


# Opened on a page path (/impact), Streamlit first probes /impact/_stcore/{health,host-config}
# for a base path, gets 404 and falls back to the root: its own probe, not a page error.
_BASE_PROBE = re.compile(r"/[a-z_]+/_stcore/(health|host-config)$")


def _console_errors(pg: Any) -> list[str]:
    """Console errors and uncaught exceptions of the page and its frames (the graph's
    iframe included), as they come."""
    errors: list[str] = []

    def on_console(m: Any) -> None:
        if m.type == "error" and not _BASE_PROBE.search(str(m.location.get("url", ""))):
            errors.append(f"console: {m.text} at {m.location.get('url')}")

    pg.on("console", on_console)
    pg.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    return errors


def test_impact_graph_first_at_1400x900_without_console_errors(dashboard: str, browser: Any) -> None:
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    errors = _console_errors(pg)
    try:
        pg.goto(f"{dashboard}/impact?target=shop.store.save")
        idle(pg)
        no_exception(pg, "impact deep link")
        frame = pg.frame_locator(GRAPH)
        frame.locator("canvas").first.wait_for(state="visible")
        pg.wait_for_timeout(800)  # let vis-network draw (and complain, if it would)
        box = pg.locator(GRAPH).bounding_box()
        assert box is not None
        # The whole graph lies in the first viewport: no scrolling to see it.
        assert box["y"] >= 0 and box["y"] + box["height"] <= 900, box
        assert box["height"] >= 400 and box["width"] >= 640, box  # beside the sidebar and the details
        body = pg.locator('[data-testid="stMain"]').inner_text()
        assert "4 callers" in body and "depth 1" in body  # the summary line and the depth legend
        shot(pg, "impact-first-viewport-1400x900")

        # Hover shows the full qualified name; the label is the short one.
        x, y = _find_colour(pg, GRAPH, graph_view.depth_colour(1))
        pg.mouse.move(x, y)
        pg.wait_for_timeout(600)
        assert "shop.orders.OrderService.place" in frame.locator("body").inner_text()
        shot(pg, "impact-hover-full-name")

        # Cluster by package: shop/ folds into one box (the legend says how to open it).
        pg.get_by_role("combobox", name=re.compile("Cluster by")).click()
        pg.get_by_role("option", name="cluster: package").click()
        idle(pg)
        no_exception(pg, "cluster")
        assert "cluster (click to open)" in pg.locator('[data-testid="impact-legend"]').inner_text()
        shot(pg, "impact-clustered")
        pg.get_by_role("combobox", name=re.compile("Cluster by")).click()
        pg.get_by_role("option", name="cluster: none").click()
        idle(pg)

        # Expand: the callers of create_order are drawn one hop further; re-centre moves the target.
        detail = pg.locator('[data-testid="stSelectbox"]').filter(has_text="Node details")
        detail.click()
        pg.get_by_role("option", name="shop.api.create_order").click()
        idle(pg)
        pg.get_by_role("button", name="Re-centre here").click()
        idle(pg)
        no_exception(pg, "re-centre")
        assert pg.get_by_role("textbox", name="Target").input_value() == "shop.api.create_order"
        assert "2 callers" in pg.locator('[data-testid="stMain"]').inner_text()

        # Callees direction: what create_order uses.
        pg.get_by_text("callees", exact=True).click()
        idle(pg)
        no_exception(pg, "callees")
        shot(pg, "impact-callees")
        body = pg.locator('[data-testid="stMain"]').inner_text()
        found = re.search(r"(\d+) callees", body)
        # create_order -> OrderService.place -> validate, save (and what they call)
        assert found and int(found.group(1)) >= 3, body[:400]

        assert errors == [], errors
    finally:
        ctx.close()


def test_impact_bare_name_picks_every_match_and_stub_boundary(dashboard: str, browser: Any) -> None:
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    errors = _console_errors(pg)
    try:
        pg.goto(f"{dashboard}/impact?target=save")
        idle(pg)
        no_exception(pg, "bare name")
        picker = pg.locator('[data-testid="stMain"] [data-testid="stMultiSelect"]').first
        assert "Matches (2)" in picker.inner_text()
        assert "5 callers" in pg.locator('[data-testid="stMain"]').inner_text()  # both save functions
        # A name that only unresolved call sites use: said so, with the way to Triage.
        box = pg.get_by_role("textbox", name="Target")
        box.fill("get")
        box.press("Enter")
        idle(pg)
        body = pg.locator('[data-testid="stMain"]').inner_text()
        shot(pg, "impact-stub-only-name")
        assert "unresolved call site" in body
        assert pg.get_by_role("link", name=re.compile("Triage")).count() >= 1
        assert errors == [], errors
    finally:
        ctx.close()

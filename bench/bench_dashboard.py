"""Dashboard render times per page on an indexed graph (the standard-library demo), first
visit and cached, with a screenshot of each page at 1400x900.

Starts ``codegraph dashboard`` on ``--home`` (embedded stores), then opens every page in
headless Chromium (/usr/bin/chromium, Playwright): *first* is the first visit after the
server started (cold caches), *cached* a second visit in a fresh tab (Streamlit's
st.cache_data answers). A page counts as rendered when its script run finished and no
spinner is left. Impact runs on ``--target`` (and ``--big`` for a large blast radius).
Prints one line per page; screenshots go to ``artifacts/dashboard/`` (git-ignored).

    .venv/bin/python bench/bench_dashboard.py --home .codegraph/demo [--target json.loads]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _settle(pg: object, timeout_ms: int = 180_000) -> None:
    """Until the script run finished twice in a row and no spinner shows."""
    idle = '[data-testid="stApp"][data-test-script-state="notRunning"]'
    for _ in range(2):
        pg.wait_for_selector(idle, timeout=timeout_ms)  # type: ignore[attr-defined]
        pg.wait_for_timeout(300)  # type: ignore[attr-defined]
    pg.wait_for_selector('[data-testid="stSpinner"]', state="detached", timeout=timeout_ms)  # type: ignore[attr-defined]
    pg.wait_for_selector(idle, timeout=timeout_ms)  # type: ignore[attr-defined]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--home", type=Path, default=ROOT / ".codegraph" / "demo")
    ap.add_argument("--target", default="json.loads")
    ap.add_argument("--big", default="", help="a target with a large blast radius (drawn with +N aggregation)")
    ap.add_argument("--out", type=Path, default=ROOT / "artifacts" / "dashboard")
    ap.add_argument("--only", default="", help="comma-separated page names to time (default: all)")
    a = ap.parse_args()
    from playwright.sync_api import sync_playwright

    exe = shutil.which("codegraph", path=str(Path(sys.executable).parent)) or "codegraph"
    port = _free_port()
    env = {**os.environ, "CODEGRAPH_HOME": str(a.home.resolve()), "CODEGRAPH_GRAPH": "embedded",
           "CODEGRAPH_SEARCH": "embedded", "CODEGRAPH_EMBED_MODEL_PATH": "none"}
    log = open(a.out.parent / "bench-dashboard.log" if a.out.parent.exists() else os.devnull, "wb")  # noqa: SIM115
    proc = subprocess.Popen([exe, "dashboard", "--port", str(port)], env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    pages = [("overview", ""), ("search", "search?q=parse+a+json+document"), ("impact", f"impact?target={a.target}")]
    if a.big:
        pages.append(("impact-big", f"impact?target={a.big}"))
    pages += [("coverage", "coverage"), ("health", "health"), ("triage", "triage"), ("baselines", "baselines"),
              ("issues", "issues"), ("cypher", "cypher")]
    if a.only:
        pages = [p for p in pages if p[0] in a.only.split(",")]
    a.out.mkdir(parents=True, exist_ok=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("the dashboard did not start") from None
                time.sleep(0.3)
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx = b.new_context(viewport={"width": 1400, "height": 900})
            print(f"{'page':<12} {'first s':>8} {'cached s':>9}  screenshot")
            for name, path in pages:
                times = []
                for visit in ("first", "cached"):
                    pg = ctx.new_page()
                    t = time.perf_counter()
                    pg.goto(f"{url}/{path}")
                    _settle(pg)
                    times.append(time.perf_counter() - t)
                    if visit == "cached":
                        pg.screenshot(path=str(a.out / f"{name}.png"))
                    pg.close()
                print(f"{name:<12} {times[0]:>8.2f} {times[1]:>9.2f}  {a.out.relative_to(ROOT) / (name + '.png')}")
            b.close()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)


if __name__ == "__main__":
    main()

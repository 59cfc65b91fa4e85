"""`cclab report` in a real headless browser (Debian's chromium driven by playwright): the page loads with the
network cut off, logs no console error, and every figure is decoded and visible."""

import os
import shutil
from pathlib import Path

import pytest

import cclab
from cclab import sweep
from cclab.reproduce.harness import Verdict, write_verdicts
from conftest import cclab_cli

CHROMIUM = Path(os.environ.get("CCLAB_CHROMIUM", "/usr/bin/chromium"))


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make browser` installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


def check_page(browser, page_path: Path, shot: Path) -> int:
    """Open the page offline; return the number of figures after asserting they are all visible."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    remote = []

    def offline(route):
        if route.request.url.startswith("file://") or route.request.url.startswith("data:"):
            route.continue_()
        else:
            remote.append(route.request.url)
            route.abort()

    context.route("**/*", offline)
    page = context.new_page()
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(page_path.resolve().as_uri(), wait_until="load")
        figures = page.locator("img.figure")
        n = figures.count()
        for i in range(n):
            img = figures.nth(i)
            img.scroll_into_view_if_needed()
            assert img.is_visible()
            assert img.evaluate("e => e.complete && e.naturalWidth > 100 && e.naturalHeight > 100"), i
            box = img.bounding_box()
            assert box and box["width"] > 200 and box["height"] > 100
        page.screenshot(path=str(shot), full_page=False)
    finally:
        context.close()
    assert not remote, remote
    assert not errors, errors
    return n


def test_report_of_a_run_a_sweep_and_a_reproduction_loads_offline(browser, tiny, tmp_path):
    run_dir = tmp_path / "run"
    cclab.run(tiny, out=run_dir, qlog=True)
    assert cclab_cli("report", run_dir).returncode == 0
    page = run_dir / "report.html"
    text = page.read_text()
    assert "https://qvis.quictools.info/" in text and 'href="trace.sqlog"' in text
    assert "[scenario]" in text  # the resolved scenario
    assert check_page(browser, page, tmp_path / "run.png") >= 1

    specs = sweep.grid(tiny, {"path.forward.rate": ["5Mbps", "20Mbps"]})
    rows = sweep.run_all(specs, workers=1, store=tmp_path / "sweep")
    sweep.write_parquet(rows, tmp_path / "sweep" / "sweep.parquet", ["path.forward.rate"])
    assert cclab_cli("report", tmp_path / "sweep").returncode == 0
    assert check_page(browser, tmp_path / "sweep" / "report.html", tmp_path / "sweep.png") >= 1

    case = tmp_path / "reproduce" / "seed-00x"
    case.mkdir(parents=True)
    write_verdicts(case, "seed-00x", [Verdict("goodput", "1 Mbit/s", "1.02 Mbit/s", "±5 %", True)], 1.0)
    shutil.copy(run_dir / "plots" / "overview.png", case / "seed-00x-overview.png")
    assert cclab_cli("report", tmp_path / "reproduce").returncode == 0
    assert check_page(browser, tmp_path / "reproduce" / "report.html", tmp_path / "reproduce.png") == 1
    keep = os.environ.get("CCLAB_KEEP_SCREENSHOTS")
    if keep:
        for name in ("run.png", "sweep.png", "reproduce.png"):
            shutil.copy(tmp_path / name, Path(keep) / name)

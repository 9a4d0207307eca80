"""A live server on a free loopback port and Debian's chromium driven by Playwright.

Without /usr/bin/chromium the browser tests are skipped, unless PBEM_REQUIRE_BROWSER
is set (as .ci/run does), in which case they fail: CI never passes by skipping them.

axe-core (the accessibility check) comes from the npm registry, pinned by
tests/browser/axe/package-lock.json and installed there by ``npm ci`` the first time a
test asks for it (and again when the lock changes). Without npm, or when the install
fails, the tests that need it follow the same policy as a missing chromium.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("PBEM_CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
AXE_DIR = Path(__file__).resolve().parent / "axe"


def _missing(reason: str) -> None:
    """Skip for want of a tool, or fail where the browser tests must run (CI)."""
    if os.environ.get("PBEM_REQUIRE_BROWSER"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not shutil.which(CHROMIUM):
        _missing(f"no chromium at {CHROMIUM}: install Debian's chromium package")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()


def _axe_version(package_json: Path) -> str | None:
    try:
        return json.loads(package_json.read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


@pytest.fixture(scope="session")
def axe_script() -> Path:
    """axe.min.js, as pinned by tests/browser/axe/package-lock.json (npm ci installs it)."""
    lock = json.loads((AXE_DIR / "package-lock.json").read_text())
    wanted = lock["packages"]["node_modules/axe-core"]["version"]
    installed = AXE_DIR / "node_modules" / "axe-core"
    if _axe_version(installed / "package.json") != wanted:
        npm = shutil.which("npm")
        if npm is None:
            _missing("no npm to install axe-core for the accessibility tests (apt-get install npm)")
        done = subprocess.run(
            [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"],
            cwd=AXE_DIR,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0 or _axe_version(installed / "package.json") != wanted:
            _missing(f"npm ci in {AXE_DIR} did not install axe-core {wanted}:\n{done.stderr}")
    return installed / "axe.min.js"


@pytest.fixture
def page(browser) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1100, "height": 1300})
    page = context.new_page()
    yield page
    context.close()


def screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path

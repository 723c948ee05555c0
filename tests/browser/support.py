"""What the browser tests share: a person at a browser, axe-core, screenshots, the hubs API.

Screenshots go to ``.artifacts/screenshots/`` (git-ignored; CI keeps the folder as an
artifact), or to the folder named by ``PATGATE_SCREENSHOTS``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

    from patgate import Fake

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
AXE = ROOT / ".cache" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
SCREENSHOTS = Path(os.environ.get("PATGATE_SCREENSHOTS") or ROOT / ".artifacts" / "screenshots")
CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
)
WIDE = {"width": 1280, "height": 900}
NARROW = {"width": 390, "height": 844}


class Person:
    """One person at one browser: their own cookies, and every console error they met."""

    def __init__(
        self, browser: Browser, fake: Fake, viewport: dict[str, int], *, javascript: bool = True
    ) -> None:
        self.fake = fake
        # bypass_csp lets the test inject axe-core; the page's own policy forbids inline code.
        self.context = browser.new_context(
            viewport=viewport, bypass_csp=True, java_script_enabled=javascript
        )
        # Generous: the machine is shared, and a slow answer is not what these tests judge.
        self.context.set_default_timeout(30_000)
        self.page: Page = self.context.new_page()
        self.console_errors: list[str] = []
        self.foreign_requests: list[str] = []
        """Requests to anywhere but the fake: the page must work offline."""
        self.page.on("console", self._on_console)
        self.page.on("pageerror", lambda error: self.console_errors.append(str(error)))
        self.page.on("request", self._on_request)
        # The target file's address carries the page's key: opening it signs this browser in.
        self.page.goto(fake.world["ui_url"])

    def _on_request(self, request: Any) -> None:
        if not request.url.startswith(self.fake.urls.base_url + "/"):
            self.foreign_requests.append(request.url)

    def _on_console(self, message: Any) -> None:
        if message.type == "error":
            self.console_errors.append(message.text)

    def forget_refusal(self, status: int) -> None:
        """Drop the console's report of one page answered with ``status`` (a test wanted it).

        Chromium logs every 4xx page as "Failed to load resource"; a test that asks for a
        refusal on purpose takes back exactly one such line, and no other error. The report
        arrives on its own time, so this waits for it (up to 10 s).
        """
        line = f"the server responded with a status of {status}"
        for _ in range(200):
            for index, error in enumerate(self.console_errors):
                if line in error:
                    del self.console_errors[index]
                    return
            self.page.wait_for_timeout(50)
        raise AssertionError(f"no console report of a {status} page: {self.console_errors}")

    @property
    def ui_url(self) -> str:
        """The page's address without its key (the browser is signed in already)."""
        return self.fake.urls.ui_url

    def open(self, path: str = "/") -> None:
        """Go to ``path`` under the page."""
        self.page.goto(self.ui_url + path)

    def act_as(self, name: str) -> None:
        """Pick who you are on the first page."""
        self.open("/")
        self.page.get_by_role("button", name=f"Act as {name}", exact=True).click()
        self.page.wait_for_url(re.compile(r".*/ui/tokens\?note=[\w-]+$"))

    def close(self) -> None:
        """Close the context."""
        self.context.close()


def expect(target: Any) -> Any:
    """Playwright's retrying assertion on ``target`` (a locator or a page).

    Imported when a test runs, so that collecting these tests needs no Playwright: without
    it they skip (or fail in CI) through the ``browser`` fixture.
    """
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(target)


def hubs_status(fake: Fake, token: str) -> int:
    """The status of the hubs listing called with ``token`` over the socket."""
    response = httpx.get(
        fake.urls.hubs_url, headers={"Authorization": f"Bearer {token}"}, timeout=10
    )
    return response.status_code


def run_axe(page: Page, source: str) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the current page."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=source)
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [
        {
            "id": v["id"],
            "impact": v["impact"],
            "help": v["help"],
            "nodes": [n["target"] for n in v["nodes"]][:5],
        }
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def screenshot(page: Page, name: str) -> Path:
    """Save the whole page as ``<name>.png`` in the screenshot folder, cropped to its content.

    The window is made short for the shot, so the picture ends where the page does.
    """
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    size = page.viewport_size
    assert size is not None
    page.set_viewport_size({"width": size["width"], "height": 200})
    try:
        page.screenshot(path=str(path), full_page=True)
    finally:
        page.set_viewport_size(size)
    return path


PeopleFactory = Callable[..., Person]
"""The ``people`` fixture: ``people(viewport=None) -> Person``."""

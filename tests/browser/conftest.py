"""The management page in a real browser: Debian's Chromium driven by Playwright for Python.

Counterparts (``.ci/counterparts`` installs them; without one these tests skip, and fail in
CI): the ``playwright`` package (the ``test`` extra), Chromium at ``/usr/bin/chromium``
(launched by path: Playwright's own browser download is never used), and axe-core from npm
under ``.cache/axe``. Any console error in a page fails the test that met it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.browser.support import AXE, CHROMIUM, CHROMIUM_FLAGS, WIDE, PeopleFactory, Person
from tests.counterparts import need_counterpart

if TYPE_CHECKING:
    from playwright.sync_api import Browser

    from patgate import Fake


def _playwright_installed() -> bool:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Headless Chromium with a fresh, temporary profile (Playwright makes one per launch).

    Module scope, not session: Playwright's synchronous API keeps its event loop current
    while it runs, which would break ``asyncio.run`` in the other tests of this worker.
    """
    need_counterpart(_playwright_installed(), "needs playwright (pip install -e '.[test]')")
    need_counterpart(CHROMIUM.is_file(), f"needs Chromium at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=list(CHROMIUM_FLAGS)
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core's script, to inject into a page."""
    need_counterpart(AXE.is_file(), f"needs axe-core under {AXE.parent} (bash .ci/counterparts)")
    return AXE.read_text(encoding="utf-8")


@pytest.fixture
def people(browser: Browser, patgate_server: Fake) -> Iterator[PeopleFactory]:
    """Makes a :class:`Person` per call; a console error, or a request that leaves the fake's
    origin, fails the test at its end."""
    made: list[Person] = []

    def person(viewport: dict[str, int] | None = None, *, javascript: bool = True) -> Person:
        new = Person(browser, patgate_server, viewport or WIDE, javascript=javascript)
        made.append(new)
        return new

    yield person
    errors = [error for p in made for error in p.console_errors]
    foreign = [url for p in made for url in p.foreign_requests]
    for p in made:
        p.close()
    assert errors == [], f"console errors in the page: {errors}"
    assert foreign == [], f"the page reached outside the fake: {foreign}"

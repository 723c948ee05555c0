"""The HTML report in Chromium at 1280 and 390 px: opened from disk with no network, axe-core
finds nothing serious, nothing overflows sideways, and the filters work without a script."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from patgate.guards.redaction import REDACTED
from patgate.reporting import make_reporter
from patgate.runner.results.events import Exchange, Failure, Outcome, ScenarioFinished
from tests.browser.support import NARROW, WIDE, run_axe, screenshot
from tests.reporting.sample import (
    CACHE_WARNING,
    CAP_FAILURE,
    SAMPLE_SCENARIOS,
    feed_events,
    run_events,
    scenario,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.slow


def _hubs_500(scenario_id: str, rule: str) -> ScenarioFinished:
    exchange = Exchange(
        "GET",
        "http://127.0.0.1:8765/v2/content/hubs",
        (("authorization", f"Bearer {REDACTED}"),),
        "",
        500,
        (("content-type", "application/json"),),
        '{"errors":[{"message":"fault injected by rule fault-1"}]}',
    )
    failure = Failure(
        rule, "gate", "list the hubs", "expected status 200, got 500", "200", "", 9, exchange
    )
    return scenario(scenario_id, rule, Outcome.FAILED, failures=(failure,))


def _report(tmp_path: Path) -> Path:
    path = tmp_path / "reports" / "report.html"
    events = run_events(
        *SAMPLE_SCENARIOS,
        _hubs_500("content-pat", "CONTENT-PAT"),
        _hubs_500("content-client-token", "CONTENT-CLIENT-TOKEN"),
        _hubs_500("pat-removed-user", "PAT-REMOVED-USER"),
    )
    feed_events(make_reporter(f"html:{path}", stream=io.StringIO()), events)
    return path


@pytest.mark.parametrize("width", ["1280", "390"])
def test_the_report_is_accessible_fits_and_filters_offline(
    browser: Browser, axe_source: str, tmp_path: Path, width: str
) -> None:
    path = _report(tmp_path)
    context = browser.new_context(
        viewport=WIDE if width == "1280" else NARROW, bypass_csp=True, offline=True
    )
    try:
        page = context.new_page()
        page.goto(path.as_uri())
        assert screenshot(page, f"report-{width}").stat().st_size > 0
        assert run_axe(page, axe_source) == []
        overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the report is {overflow} px wider than the window"

        cards = page.locator("article.card")
        assert cards.count() == 3  # the three 500s are one cause
        assert "3 checks in 3 scenarios failed on this answer" in cards.first.inner_text()
        passed_row = page.locator('tr[data-outcome="passed"]').first
        warning_card = page.locator("article.card.warning")
        assert passed_row.is_visible()
        assert warning_card.is_visible()

        page.get_by_label("Failed only").check()
        assert not passed_row.is_visible()
        assert not warning_card.is_visible()
        screenshot(page, f"report-failed-only-{width}")

        page.get_by_label("Gate only").check()
        assert passed_row.is_visible()
        assert not page.locator('[data-level="advisory"]').first.is_visible()
        assert page.locator('[data-level="gate"]').first.is_visible()
    finally:
        context.close()


def test_a_report_of_a_run_that_ran_nothing_is_readable(
    browser: Browser, axe_source: str, tmp_path: Path
) -> None:
    from patgate.runner.results.events import RunFinished

    path = tmp_path / "report.html"
    events = [RunFinished(run_id="r", rules=(), scenarios=(), exit_code=3, duration=0.1)]
    feed_events(make_reporter(f"html:{path}", stream=io.StringIO()), events)
    context = browser.new_context(viewport=NARROW, bypass_csp=True, offline=True)
    try:
        page = context.new_page()
        page.goto(path.as_uri())
        screenshot(page, "report-nothing-ran-390")
        assert run_axe(page, axe_source) == []
        assert "the target did not answer" in page.inner_text("main")
    finally:
        context.close()


def test_the_sample_failures_are_styled_apart(browser: Browser, tmp_path: Path) -> None:
    path = _report(tmp_path)
    context = browser.new_context(viewport=WIDE, offline=True)
    try:
        page = context.new_page()
        page.goto(path.as_uri())
        gate = page.locator("article.card.failed").first
        advisory = page.locator("article.card.warning").first
        assert CAP_FAILURE.rule in page.inner_text("main")
        assert CACHE_WARNING.rule in advisory.inner_text()
        gate_border = gate.evaluate("e => getComputedStyle(e).borderLeftStyle")
        advisory_border = advisory.evaluate("e => getComputedStyle(e).borderLeftStyle")
        assert (gate_border, advisory_border) == ("solid", "dashed")
    finally:
        context.close()

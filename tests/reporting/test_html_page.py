from __future__ import annotations

import html
import io
import re
from pathlib import Path

from patgate.reporting import make_reporter
from patgate.runner.events import Event, Failure, Outcome
from tests.reporting.sample import CAP_ACTUAL, CAP_EXPECTED, feed_events, run_events, scenario


def write_page(path: Path, events: list[Event]) -> str:
    feed_events(make_reporter(f"html:{path}", stream=io.StringIO()), events)
    return path.read_text(encoding="utf-8")


def test_the_failure_shows_rule_step_and_escaped_values(
    tmp_path: Path, sample_run: list[Event]
) -> None:
    page = write_page(tmp_path / "report.html", sample_run)
    assert html.escape(CAP_EXPECTED) in page
    assert html.escape(CAP_ACTUAL) in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script" not in page
    assert "create a 6th token" in page
    assert "the 6th create was accepted" in page


def test_the_page_needs_nothing_outside_itself(tmp_path: Path, sample_run: list[Event]) -> None:
    page = write_page(tmp_path / "report.html", sample_run)
    assert "<style>" in page
    assert not re.search(r"<(script|link|img|iframe)\b", page)
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "@import" not in page


def test_the_summary_and_the_verdict_are_on_top(tmp_path: Path, sample_run: list[Event]) -> None:
    page = write_page(tmp_path / "report.html", sample_run)
    banner = page[: page.index("</header>")]
    assert "2 passed, 1 failed, 1 warning, 1 skipped in 0.84s" in banner
    assert "exit 1: a gate rule failed" in banner
    assert "http://127.0.0.1:8765" in banner


def test_rules_are_grouped_with_failed_first(tmp_path: Path, sample_run: list[Event]) -> None:
    page = write_page(tmp_path / "report.html", sample_run)
    rules = page[page.index("<h2>Rules</h2>") : page.index("<h2>Scenarios</h2>")]
    groups = re.findall(r'<summary><span class="badge (\w+)">', rules)
    assert groups == ["failed", "warning", "skipped", "passed"]
    failed_group = rules[: rules.index('<span class="badge warning">')]
    assert "PAT-CAP" in failed_group
    assert "TOKEN-OK" not in failed_group


def test_control_characters_are_shown_as_escapes(tmp_path: Path) -> None:
    failure = Failure("PAT-CAP", "gate", "list", "odd", actual="\x1b[2J\x00\ud800<b>")
    events = run_events(scenario("s", "PAT-CAP", Outcome.FAILED, failures=(failure,)))
    page = write_page(tmp_path / "report.html", events)
    assert "\\x1b[2J\\x00\\ud800&lt;b&gt;" in page
    assert "\x1b" not in page
    assert "\x00" not in page

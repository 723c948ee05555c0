from __future__ import annotations

import html
import io
import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markupsafe import escape

from patgate.guards.redaction import REDACTED
from patgate.reporting import make_reporter
from patgate.runner.results.events import (
    Event,
    Exchange,
    Failure,
    Outcome,
    RunFinished,
    RunStarted,
    ScenarioFinished,
    Tallies,
)
from tests.reporting.sample import (
    CAP_ACTUAL,
    CAP_EXPECTED,
    CAP_FAILURE,
    SAMPLE_SCENARIOS,
    feed_events,
    run_events,
    scenario,
)


def write_page(path: Path, events: list[Event]) -> str:
    feed_events(make_reporter(f"html:{path}", stream=io.StringIO()), events)
    return path.read_text(encoding="utf-8")


def test_the_failure_shows_rule_step_and_escaped_values(
    tmp_path: Path, sample_run: list[Event]
) -> None:
    page = write_page(tmp_path / "report.html", sample_run)
    assert escape(CAP_EXPECTED) in page
    assert escape(CAP_ACTUAL) in page
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
    assert "2 passed, 1 failed, 1 advisory warning, 1 not checked in 0.84s" in banner
    assert "exit 1: a gate rule failed" in banner
    assert "http://127.0.0.1:8765" in banner


def test_rules_are_grouped_with_failed_first(tmp_path: Path, sample_run: list[Event]) -> None:
    page = write_page(tmp_path / "report.html", sample_run)
    rules = page[page.index("<h2>Rules</h2>") : page.index("<h2>Scenarios</h2>")]
    groups = re.findall(r'<summary><span class="badge (\w+)">', rules)
    assert groups == ["failed", "warning", "not_checked", "passed"]
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


def _hubs_500(scenario_id: str, rule: str, line: int) -> ScenarioFinished:
    exchange = Exchange(
        "GET",
        "http://127.0.0.1:8765/v2/content/hubs",
        (("host", "127.0.0.1:8765"), ("authorization", f"Bearer {REDACTED}")),
        "",
        500,
        (("content-type", "application/json"),),
        '{"errors":[{"message":"boom"}]}',
    )
    failure = Failure(
        rule,
        "gate",
        "list the hubs",
        "expected status 200, got 500",
        "200",
        "HTTP 500",
        line,
        exchange,
    )
    return scenario(scenario_id, rule, Outcome.FAILED, failures=(failure,))


def test_the_same_answer_across_scenarios_is_one_card_listing_them(tmp_path: Path) -> None:
    events = run_events(
        _hubs_500("content-pat", "CONTENT-PAT", 5),
        _hubs_500("content-client", "CONTENT-CLIENT-TOKEN", 14),
        scenario("pat-cap-sixth", "PAT-CAP", Outcome.FAILED, failures=(CAP_FAILURE,)),
    )
    page = write_page(tmp_path / "report.html", events)
    cards = re.findall(r'<article class="card [^"]+" id="cause-\d+"', page)
    assert len(cards) == 2
    first = page[page.index('id="cause-1"') : page.index('id="cause-2"')]
    assert "2 checks in 2 scenarios failed on this answer" in first
    assert "content-pat" in first
    assert "content-client" in first
    # Once as the answer, once in the answer of the request shown.
    assert first.count(escape('{"errors":[{"message":"boom"}]}')) == 2


def test_a_failure_links_its_file_and_step_line_relative_to_the_report(tmp_path: Path) -> None:
    scenario_file = tmp_path / "scenarios" / "content-pat.yaml"
    failing = _hubs_500("content-pat", "CONTENT-PAT", 9)
    failing = replace(failing, source=f"{scenario_file}:1")
    page = write_page(tmp_path / "reports" / "report.html", run_events(failing))
    assert 'href="../scenarios/content-pat.yaml"' in page
    assert ">../scenarios/content-pat.yaml:9</a>" in page
    assert str(tmp_path) not in page


def test_the_failing_request_and_answer_come_with_a_curl_line(tmp_path: Path) -> None:
    page = write_page(tmp_path / "report.html", run_events(_hubs_500("c", "CONTENT-PAT", 5)))
    assert "GET http://127.0.0.1:8765/v2/content/hubs" in page
    assert f"authorization: Bearer {REDACTED}" in page
    assert "HTTP 500" in page
    curl = re.search(r'<pre class="curl">(.*?)</pre>', page)
    assert curl is not None
    assert html.unescape(curl.group(1)) == (
        f"curl -i -X GET http://127.0.0.1:8765/v2/content/hubs "
        f"-H 'authorization: Bearer {REDACTED}'"
    )


def test_the_banner_has_the_date_tally_and_retries(tmp_path: Path) -> None:
    events = run_events(*SAMPLE_SCENARIOS)
    end = events[-1]
    assert isinstance(end, RunFinished)
    events[-1] = replace(end, tallies=Tallies(3, 2, 1, 0, 4), require=("all",))
    first = events[0]
    assert isinstance(first, RunStarted)
    events[0] = replace(first, flags=("--allow-writes", "--concurrency 4"))
    page = write_page(tmp_path / "report.html", events)
    banner = page[: page.index("</header>")]
    assert re.search(r"<dt>Started</dt><dd>\d{1,2} [A-Z][a-z]{2} \d{4}, [\d:]{8} UTC</dd>", banner)
    assert "<dt>Tokens</dt><dd>3 created, 2 deleted, 1 leaked" in banner
    assert "<dt>Retries</dt><dd>4 requests resent after a 429 or 503</dd>" in banner
    assert "<dt>Required</dt><dd>all</dd>" in banner
    assert "<dt>Flags</dt><dd>--allow-writes --concurrency 4</dd>" in banner


def test_filters_and_levels_are_marked_for_the_style_sheet(
    tmp_path: Path, sample_run: list[Event]
) -> None:
    page = write_page(tmp_path / "report.html", sample_run)
    for choice in ("show-all", "show-failed", "show-gate"):
        assert f'id="{choice}"' in page
    assert 'data-level="advisory"' in page
    assert 'data-level="gate"' in page
    assert 'data-outcome="passed"' in page
    assert escape('body:has(#show-gate:checked) [data-level="advisory"]') not in page
    assert 'body:has(#show-gate:checked) [data-level="advisory"]' in page


def test_a_run_with_no_scenarios_renders_and_says_why(tmp_path: Path) -> None:
    events: list[Event] = [
        RunFinished(run_id="r", rules=(), scenarios=(), exit_code=3, duration=0.2)
    ]
    page = write_page(tmp_path / "report.html", events)
    assert "did not complete" in page.lower()
    assert "No scenario ran: exit 3: the target did not answer" in page
    assert "<dt>Started</dt>" in page


HOSTILE = "\"'><img src=x onerror=alert(1)><script>alert(2)</script>&amp;"


class _Elements(HTMLParser):
    """Every start tag of a page, with its attributes, as a browser's tokenizer sees them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_hostile_text_in_every_field_stays_text(tmp_path: Path) -> None:
    failure = Failure(
        rule=HOSTILE,
        level="gate",
        step=HOSTILE,
        message=HOSTILE,
        expected=HOSTILE,
        actual=HOSTILE + "!",
        exchange=Exchange(
            method="POST",
            url="https://api.example.test/" + HOSTILE,
            request_headers=(("X-Name", HOSTILE),),
            request_body=HOSTILE,
            status=400,
            response_headers=(("X-Echo", HOSTILE),),
            response_body=HOSTILE,
        ),
    )
    hostile = replace(
        scenario(HOSTILE, HOSTILE, Outcome.FAILED, failures=(failure,), reason=HOSTILE),
        title=HOSTILE,
        source=HOSTILE + ".yaml:3",
    )
    page = write_page(tmp_path / "report.html", run_events(hostile))
    parser = _Elements()
    parser.feed(page)
    assert {tag for tag, _attrs in parser.tags}.isdisjoint({"img", "script"})
    names = {name for _tag, attrs in parser.tags for name, _value in attrs}
    assert not any(name.startswith("on") for name in names), names
    # The text a reader sees is the hostile string itself, shown not interpreted.
    assert HOSTILE in "".join(parser.text)


def test_a_builtin_scenario_is_named_in_the_package_with_its_text_not_linked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Built-in scenarios as a wheel installs them: inside a virtualenv's site-packages.
    installed = tmp_path / "venv" / "lib" / "site-packages" / "patgate" / "_data" / "scenarios"
    installed.mkdir(parents=True)
    text = "# <script>alert(1)</script> & more\nid: pat-cap-sixth\nrules: [PAT-CAP]\n"
    (installed / "pat-cap.yaml").write_text(text, encoding="utf-8")
    monkeypatch.setattr("patgate.basics.resources.scenarios_dir", lambda: installed)
    builtin = replace(
        scenario("pat-cap-sixth", "PAT-CAP", Outcome.FAILED, failures=(CAP_FAILURE,)),
        source=f"{installed / 'pat-cap.yaml'}:2",
    )
    mine = replace(
        scenario("token-ok", "TOKEN-OK", Outcome.PASSED), source=f"{tmp_path / 'mine.yaml'}:1"
    )
    page = write_page(tmp_path / "out" / "report.html", run_events(builtin, mine))
    assert "site-packages" not in page
    assert str(tmp_path) not in page
    assert '<span class="mono source">patgate/scenarios/pat-cap.yaml:2</span>' in page
    assert not re.search(r'href="[^"]*pat-cap\.yaml', page)
    # Its text, folded, escaped as the page escapes everything else.
    folded = re.search(
        r'<details class="scenario-text"><summary><span class="mono source">'
        r"patgate/scenarios/pat-cap\.yaml:2</span></summary><pre>(.*?)</pre></details>",
        page,
        re.DOTALL,
    )
    assert folded is not None
    assert folded.group(1) == str(escape(text))
    assert "<script>" not in page
    # A scenario of the user's keeps its link, relative to the report.
    assert '<a class="mono source" href="../mine.yaml">../mine.yaml:1</a>' in page
    assert page.count('class="scenario-text"') == 1


def test_the_rules_table_says_why_a_rule_failed(tmp_path: Path, sample_run: list[Event]) -> None:
    page = write_page(tmp_path / "report.html", sample_run)
    rules = page[page.index("<h2>Rules</h2>") : page.index("<h2>Scenarios</h2>")]
    row = re.search(r'<tr data-level="gate"><td class="mono">PAT-CAP</td>.*?</tr>', rules)
    assert row is not None
    assert html.unescape(row.group()).endswith(
        '<td>PAT-CAP (gate) at step "create a 6th token": the 6th create was accepted</td></tr>'
    )

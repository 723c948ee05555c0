"""The failures part of the HTML report: the checks that failed, grouped by the answer.

Checks that failed on the same answer are one card, listing each scenario (linked to its
file and the failing step's line) with the request and answer of the first (redacted) and a
``curl`` line to replay it. A gate failure's card is red, an advisory one's amber.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from markupsafe import Markup

from patgate.basics.levels import Level
from patgate.reporting.html_markup import (
    html,
    join,
    level_badge,
    outcome_badge,
    scenario_link,
    source_link,
)
from patgate.reporting.summary import exit_meaning
from patgate.runner.results.events import (
    Exchange,
    Failure,
    Outcome,
    RunFinished,
    ScenarioFinished,
)

__all__ = ["curl_line", "problems"]


@dataclass
class _Cause:
    """Failures that share one answer: shown once, with every scenario and check listed."""

    answer: str
    failures: list[tuple[ScenarioFinished, Failure]] = field(default_factory=list)

    @property
    def gate(self) -> bool:
        return any(failure.level is Level.GATE for _s, failure in self.failures)

    @property
    def waived(self) -> bool:
        return all(scenario.outcome is Outcome.WAIVED for scenario, _f in self.failures)

    @property
    def exchange(self) -> Exchange | None:
        return next((f.exchange for _s, f in self.failures if f.exchange is not None), None)


def _answer_of(failure: Failure) -> str:
    exchange = failure.exchange
    if exchange is not None:
        return f"HTTP {exchange.status}: {exchange.response_body}"
    return failure.actual or failure.message


def _causes(scenarios: Iterable[ScenarioFinished]) -> list[_Cause]:
    causes: dict[str, _Cause] = {}
    for scenario in scenarios:
        if scenario.outcome not in _PROBLEMS:
            continue
        for failure in scenario.failures:
            answer = _answer_of(failure)
            causes.setdefault(answer, _Cause(answer)).failures.append((scenario, failure))
    # Gate causes first, then the ones that failed most checks.
    return sorted(causes.values(), key=lambda c: (not c.gate, -len(c.failures)))


_PROBLEMS = (Outcome.FAILED, Outcome.WAIVED, Outcome.WARNING)


def problems(finished: RunFinished, anchors: dict[str, str], folder: Path, prefix: str) -> Markup:
    scenarios = finished.scenarios
    heading = Markup("<h2>Failures and warnings</h2>")
    if not scenarios:
        return heading + html(
            '<p class="muted">No scenario ran: {}. Nothing was checked against the target.</p>',
            exit_meaning(finished),
        )
    causes = _causes(scenarios)
    # A scenario that failed without a failure record (stopped, say) is still listed.
    bare = [s for s in scenarios if s.outcome in _PROBLEMS and not s.failures]
    if not causes and not bare:
        return heading + Markup('<p class="muted">None: every check passed.</p>')
    cards = [
        _cause_card(f"{prefix}cause-{index}", cause, anchors, folder)
        for index, cause in enumerate(causes, 1)
    ]
    cards += [_bare_card(scenario, anchors, folder) for scenario in bare]
    return heading + join(cards)


def _cause_card(anchor: str, cause: _Cause, anchors: dict[str, str], folder: Path) -> Markup:
    level = Level.GATE if cause.gate else Level.ADVISORY
    badge = Outcome.FAILED if cause.gate else Outcome.WARNING
    if cause.waived:
        badge = Outcome.WAIVED
    tone = badge.value
    names = sorted({scenario.scenario_id for scenario, _f in cause.failures})
    checks = len(cause.failures)
    summary = (
        f"{checks} check{'' if checks == 1 else 's'} in {len(names)} "
        f"scenario{'' if len(names) == 1 else 's'} failed on this answer"
    )
    rows = join(
        _failure_row(scenario, failure, cause, anchors, folder)
        for scenario, failure in cause.failures
    )
    exchange = cause.exchange
    return html(
        '<article class="card {tone}" id="{anchor}" data-level="{level}">'
        "<h3>{badge}{level_span} <span>{summary}</span></h3>"
        '<div class="answer"><h4>The answer</h4><pre>{answer}</pre></div>'
        '<div class="table-box"><table class="checks">'
        '<colgroup><col style="width:30%"><col style="width:20%"><col style="width:20%">'
        '<col style="width:30%"></colgroup>'
        "<thead><tr><th>Scenario and step</th><th>Rule</th><th>Step</th><th>What failed</th>"
        "</tr></thead><tbody>{rows}</tbody></table></div>{exchange}</article>",
        tone=tone,
        anchor=anchor,
        level=level.value,
        badge=outcome_badge(badge),
        level_span=level_badge(level),
        summary=summary,
        answer=cause.answer,
        rows=rows,
        exchange=_exchange_block(exchange) if exchange is not None else "",
    )


def _failure_row(
    scenario: ScenarioFinished,
    failure: Failure,
    cause: _Cause,
    anchors: dict[str, str],
    folder: Path,
) -> Markup:
    expected = html('<div class="muted">expected: {}</div>', failure.expected)
    actual = html('<div class="muted">actual: {}</div>', failure.actual)
    return html(
        '<tr data-level="{level}"><td>{link}<div>{source}</div></td>'
        '<td><span class="rule mono">{rule}</span> {level_span}</td>'
        "<td>{step}</td><td><strong>{message}</strong>{expected}{actual}{own}</td></tr>",
        level=failure.level.value,
        link=scenario_link(scenario.scenario_id, anchors),
        source=source_link(scenario, failure, folder),
        rule=failure.rule,
        level_span=level_badge(failure.level),
        step=failure.step,
        message=failure.message,
        expected=expected if failure.expected else "",
        actual=actual if failure.actual and failure.actual != cause.answer else "",
        own=_own_exchange(failure, cause.exchange),
    )


def _bare_card(scenario: ScenarioFinished, anchors: dict[str, str], folder: Path) -> Markup:
    return html(
        '<article class="card {}" data-level="{}"><h3>{}{}<span>{}</span></h3>'
        '<p class="where">{}</p><p class="message">{}</p></article>',
        scenario.outcome.value,
        Level.GATE.value,
        outcome_badge(scenario.outcome),
        scenario_link(scenario.scenario_id, anchors),
        scenario.title,
        source_link(scenario, None, folder),
        scenario.reason or "the scenario did not finish",
    )


def _own_exchange(failure: Failure, shown: Exchange | None) -> Markup:
    """A check's own request, folded, when it is not the one the card shows."""
    own = failure.exchange
    if own is None or own == shown:
        return Markup()
    inner = _exchange_inner(own, "Its request and answer")
    return html('<details class="own">{}</details>', inner)


def _exchange_block(exchange: Exchange) -> Markup:
    inner = _exchange_inner(exchange, "The request and the answer (credentials redacted)")
    return html("<details open>{}</details>", inner)


def _exchange_inner(exchange: Exchange, title: str) -> Markup:
    request_lines = [f"{exchange.method} {exchange.url}"]
    request_lines += [f"{name}: {value}" for name, value in exchange.request_headers]
    if exchange.request_body:
        request_lines += ["", exchange.request_body]
    response_lines = [f"HTTP {exchange.status}"]
    response_lines += [f"{name}: {value}" for name, value in exchange.response_headers]
    if exchange.response_body:
        response_lines += ["", exchange.response_body]
    return html(
        "<summary>{}</summary>"
        '<div class="values">'
        "<div><h4>Request</h4><pre>{}</pre></div>"
        "<div><h4>Answer</h4><pre>{}</pre></div></div>"
        '<h4>Replay it</h4><pre class="curl">{}</pre>',
        title,
        "\n".join(request_lines),
        "\n".join(response_lines),
        curl_line(exchange),
    )


_CURL_SKIPPED = frozenset(
    {"host", "content-length", "accept-encoding", "connection", "user-agent", "accept"}
)


def curl_line(exchange: Exchange) -> str:
    """A ``curl`` command that sends the request again (redacted values stay redacted)."""
    words = ["curl", "-i", "-X", exchange.method, exchange.url]
    for name, value in exchange.request_headers:
        if name.lower() not in _CURL_SKIPPED:
            words += ["-H", f"{name}: {value}"]
    if exchange.request_body:
        words += ["--data-raw", exchange.request_body]
    return " ".join(shlex.quote(word) for word in words)

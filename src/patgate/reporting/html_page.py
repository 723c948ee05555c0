"""``--report html:PATH``: one self-contained page for a person to read.

Inline CSS, no scripts, no external assets: the file can be mailed, attached to a CI job or
opened from disk. HTML is built through markupsafe, escaping by default: every piece is a
:class:`~markupsafe.Markup` made by :func:`_html` from a literal template, whose ``{}`` fields
are escaped unless they are ``Markup`` themselves; control characters are shown as escapes
first, so what a deployment answered is displayed, never interpreted.

Every outcome is named with the words of
:data:`~patgate.runner.results.events.OUTCOME_WORDS`. A built-in scenario is named
``patgate/scenarios/NAME.yaml`` and its text is shown folded in the scenario table (a link
into the installed package would break once the page is downloaded).

On top: the verdict, when the run started, its target, duration and required rules, and the
token tally with the retries. Failures are grouped by cause: checks that failed on the same
answer are one card, listing each scenario (linked to its file and the failing step's line,
relative to the report) with the request and answer of the first (redacted) and a ``curl``
line to replay it. Two filters ("failed only", "gate only") work without a script (CSS
``:has``). Gate failures are red, advisory ones amber.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from markupsafe import Markup

from patgate._version import __version__
from patgate.basics.levels import Level
from patgate.reporting.artifact import ArtifactReporter, TargetRun, worst_exit_code
from patgate.reporting.scenario_files import scenario_file
from patgate.reporting.summary import (
    OUTCOME_ORDER,
    count_outcomes,
    custody_line,
    exit_meaning,
    rule_reason,
    summary_line,
    unchecked_lines,
    waiver_lines,
)
from patgate.reporting.text import printable
from patgate.runner.results.events import (
    OUTCOME_WORDS,
    Event,
    Exchange,
    Failure,
    Outcome,
    RunFinished,
    RunStarted,
    ScenarioFinished,
)
from patgate.runner.results.outcomes import gate_count

__all__ = ["HtmlReporter", "render_page", "render_targets_page"]

_LABELS = {outcome: words.word.capitalize() for outcome, words in OUTCOME_WORDS.items()}

_STYLE = """
:root { --fg: #1f2328; --muted: #59636e; --bg: #ffffff; --panel: #f6f8fa; --line: #d1d9e0;
  --failed: #cf222e; --failed-bg: #ffebe9; --warning: #9a6700; --warning-bg: #fff8c5;
  --not-checked: #57606a; --not-checked-bg: #eaeef2; --passed: #1a7f37; --passed-bg: #dafbe1;
  --code: #f6f8fa; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --panel: #151b23; --line: #3d444d;
    --failed: #ff7b72; --failed-bg: #3c1618; --warning: #e3b341; --warning-bg: #3a2e0f;
    --not-checked: #9198a1; --not-checked-bg: #262c36; --passed: #56d364; --passed-bg: #12321f;
    --code: #010409; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); line-height: 1.5;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif; }
main, .banner-inner { max-width: 1100px; margin: 0 auto; padding: 0 24px; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 13px; }
.banner { border-bottom: 1px solid var(--line); background: var(--panel); padding: 20px 0; }
.banner h1 { margin: 0 0 4px; font-size: 22px; }
.verdict { display: inline-block; margin: 6px 0 12px; padding: 4px 12px; border-radius: 6px;
  font-weight: 600; }
.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
.meta dt { color: var(--muted); }
.meta dd { margin: 0; overflow-wrap: anywhere; }
.counts { display: flex; flex-wrap: wrap; gap: 8px; list-style: none; padding: 0;
  margin: 14px 0 0; }
.counts li { padding: 4px 12px; border-radius: 999px; font-weight: 600; }
h2 { font-size: 18px; margin: 28px 0 12px; padding-bottom: 6px;
  border-bottom: 1px solid var(--line); }
.failed { color: var(--failed); background: var(--failed-bg); }
.warning { color: var(--warning); background: var(--warning-bg); }
.waived { color: var(--warning); background: var(--not-checked-bg); }
.not_checked { color: var(--not-checked); background: var(--not-checked-bg); }
.passed { color: var(--passed); background: var(--passed-bg); }
.badge { display: inline-block; min-width: 64px; text-align: center; padding: 1px 8px;
  border-radius: 6px; font-size: 12px; font-weight: 700; text-transform: uppercase; }
.card { border: 1px solid var(--line); border-left-width: 4px; border-radius: 8px;
  padding: 14px 18px; margin: 0 0 16px; background: var(--bg); }
.card.failed { border-left-color: var(--failed); background: var(--bg); color: inherit; }
.card.warning { border-left-color: var(--warning); background: var(--bg); color: inherit; }
.card.waived { border-left-color: var(--warning); background: var(--bg); color: inherit; }
.card h3 { margin: 0; font-size: 16px; display: flex; flex-wrap: wrap; gap: 8px;
  align-items: baseline; }
.card .where { color: var(--muted); margin: 2px 0 8px; font-size: 13px; }
.failure { border-top: 1px solid var(--line); padding-top: 10px; margin-top: 10px; }
.failure .head { margin: 0; display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; }
.failure .message { margin: 6px 0 10px; font-weight: 600; }
.rule { font-weight: 700; }
.level { font-size: 12px; padding: 0 6px; border-radius: 4px; border: 1px solid var(--line);
  color: var(--muted); }
.values { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(280px, 100%), 1fr));
  gap: 12px; }
.values h4 { margin: 0 0 4px; font-size: 12px; text-transform: uppercase;
  letter-spacing: .04em; color: var(--muted); }
pre { margin: 0; padding: 10px 12px; background: var(--code); border: 1px solid var(--line);
  border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 28em;
  overflow: auto; }
details { margin: 0 0 12px; border: 1px solid var(--line); border-radius: 8px; }
summary { cursor: pointer; padding: 8px 14px; font-weight: 600; background: var(--panel);
  border-radius: 8px; }
details[open] summary { border-bottom: 1px solid var(--line); border-radius: 8px 8px 0 0; }
table { width: 100%; border-collapse: collapse; table-layout: fixed; }
td { overflow-wrap: anywhere; }
th, td { text-align: left; vertical-align: top; padding: 6px 14px;
  border-bottom: 1px solid var(--line); }
tr:last-child td { border-bottom: none; }
th { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
.table-box { border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
td.num { text-align: right; white-space: nowrap; }
.muted { color: var(--muted); }
a { color: inherit; }
footer { max-width: 1100px; margin: 32px auto; padding: 0 24px; color: var(--muted);
  font-size: 13px; }
.meta details { border: none; margin: 0; }
.meta summary { padding: 0; background: none; font-weight: 400; }
.unchecked { margin: 4px 0 0; padding-left: 18px; }
.level.gate { color: var(--failed); border-color: var(--failed); font-weight: 700; }
.level.advisory { color: var(--warning); border-color: var(--warning); border-style: dashed; }
.card.warning { border-left-style: dashed; }
.card h3 .level { text-transform: uppercase; }
.answer { margin: 10px 0; }
.answer h4, details h4 { margin: 10px 0 4px; font-size: 12px; text-transform: uppercase;
  letter-spacing: .04em; color: var(--muted); }
.card details { margin-top: 12px; }
details.own { margin: 8px 0 0; font-size: 13px; }
details.own summary { padding: 4px 10px; font-weight: 400; }
details.own .values { grid-template-columns: 1fr; }
.card details > :not(summary) { margin-left: 14px; margin-right: 14px; }
.card details .values { margin-top: 10px; }
pre.curl { margin-bottom: 12px; }
table.checks td { font-size: 14px; }
table.checks tr[data-level="advisory"] td:first-child { border-left: 3px dashed var(--warning); }
table.checks tr[data-level="gate"] td:first-child { border-left: 3px solid var(--failed); }
.filters { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: center; margin: 20px 0 0;
  padding: 8px 14px; border: 1px solid var(--line); border-radius: 8px; }
.filters legend { font-weight: 600; padding: 0 4px; }
.filters label { margin-right: 8px; }
body:has(#show-failed:checked) [data-outcome]:not([data-outcome="failed"]),
body:has(#show-failed:checked) .card.warning { display: none; }
body:has(#show-gate:checked) [data-level="advisory"] { display: none; }
@media (max-width: 700px) {
  main, .banner-inner { padding: 0 12px; }
  table.checks, table.checks tbody, table.checks tr, table.checks td { display: block;
    width: 100%; }
  table.checks thead, table.checks colgroup { display: none; }
  table.checks tr { border-bottom: 1px solid var(--line); padding: 6px 0; }
  table.checks td { border: none; padding: 2px 10px; }
  th, td { padding: 6px 8px; }
  details, .table-box { overflow-x: auto; }
  details > table, .table-box > table { min-width: 640px; }
  .card .table-box > table.checks { min-width: 0; }
}
"""

# Fixed column widths, so that the rule tables of every outcome group line up.
_RULE_COLUMNS = Markup(
    '<colgroup><col style="width:22%"><col style="width:30%"><col style="width:10%">'
    '<col style="width:18%"><col style="width:20%"></colgroup>'
)
_SCENARIO_COLUMNS = Markup(
    '<colgroup><col style="width:11%"><col style="width:16%"><col style="width:26%">'
    '<col style="width:18%"><col style="width:7%"><col style="width:22%"></colgroup>'
)


def _html(template: str, /, *values: object, **named: object) -> Markup:
    """``template`` (literal HTML) with its ``{}`` fields filled in, each escaped unless it is
    ``Markup`` already; text is passed through :func:`printable` first."""
    # The one place a template becomes Markup: callers pass literal HTML, never a value.
    shown = [_shown(value) for value in values]
    named_shown = {key: _shown(value) for key, value in named.items()}
    return Markup(template).format(*shown, **named_shown)  # noqa: S704


def _shown(value: object) -> object:
    if isinstance(value, Markup) or not isinstance(value, str):
        return value
    return printable(value)


def _join(pieces: Iterable[Markup], separator: str = "") -> Markup:
    """Pieces of HTML one after the other (``separator`` is text, escaped)."""
    return _html("{}", separator).join(pieces)


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


def render_page(
    started: RunStarted | None,
    finished: RunFinished,
    *,
    started_at: datetime | None = None,
    folder: Path | None = None,
) -> str:
    """The whole report page as a string.

    ``started_at``: when the run started (shown in UTC); ``folder``: where the report is
    written, so that links to scenario files are relative to it (default: the working
    folder).
    """
    title = f"patgate report: {_verdict(finished)[0]}"
    return _page(title, [("", started, finished)], started_at, folder or Path.cwd())


def render_targets_page(
    runs: list[TargetRun], *, started_at: datetime | None = None, folder: Path | None = None
) -> str:
    """One page for a run of several targets: each target's report in turn."""
    code = worst_exit_code([finished.exit_code for _, _, finished in runs])
    title = f"patgate report: {len(runs)} targets, exit {code}"
    return _page(title, runs, started_at, folder or Path.cwd())


def _page(title: str, runs: list[TargetRun], started_at: datetime | None, folder: Path) -> str:
    parts = [
        Markup("<!DOCTYPE html>"),
        Markup('<html lang="en">'),
        Markup("<head>"),
        Markup('<meta charset="utf-8">'),
        Markup('<meta name="viewport" content="width=device-width, initial-scale=1">'),
        _html("<title>{}</title>", title),
        Markup(f"<style>{_STYLE}</style>"),  # noqa: S704 - the module's own constant
        Markup("</head>"),
        Markup("<body>"),
        _filters(),
    ]
    for number, (label, started, finished) in enumerate(runs, start=1):
        # With several targets, anchors carry the target's number so they stay unique.
        prefix = f"t{number}-" if len(runs) > 1 else ""
        anchors: dict[str, str] = {}
        for index, scenario in enumerate(finished.scenarios, start=1):
            anchors.setdefault(scenario.scenario_id, f"{prefix}scenario-{index}")
        parts += [
            _banner(started, finished, started_at, label),
            Markup("<main>"),
            _problems(finished, anchors, folder, prefix),
            _rules(finished, anchors),
            _scenarios(finished, folder, prefix),
            Markup("</main>"),
        ]
    parts += [
        _html("<footer>patgate {}</footer>", __version__),
        Markup("</body>"),
        Markup("</html>"),
    ]
    return str(_join(parts, "\n")) + "\n"


def _verdict(finished: RunFinished) -> tuple[str, Outcome]:
    counts = count_outcomes(finished)
    if finished.exit_code == 0:
        if counts[Outcome.WARNING.value]:
            return "passed with warnings", Outcome.WARNING
        if not gate_count(finished.rules, finished.require).all_checked:
            return "passed, not every gate rule checked", Outcome.NOT_CHECKED
        if gate_count(finished.rules, finished.require).waived:
            return "passed with waived failures", Outcome.WAIVED
        return "passed", Outcome.PASSED
    if finished.exit_code == 1:
        return "failed", Outcome.FAILED
    return "did not complete", Outcome.FAILED


def _when(moment: datetime | None) -> str:
    if moment is None:
        return ""
    utc = moment.astimezone(timezone.utc)
    return f"{utc.day} {utc:%b %Y, %H:%M:%S} UTC"


def _banner(
    started: RunStarted | None, finished: RunFinished, started_at: datetime | None, label: str
) -> Markup:
    verdict, tone = _verdict(finished)
    counts = count_outcomes(finished)
    meta = [
        ("World", label),
        ("Started", _when(started_at)),
        ("Target", started.target if started else ""),
        ("Run", finished.run_id),
        ("Result", summary_line(counts, finished.duration)),
        ("Flags", " ".join(started.flags) if started else ""),
        ("Required", ", ".join(finished.require)),
        ("Tokens", custody_line(finished.tallies).removeprefix("tokens: ")),
        ("Retries", _retries(finished)),
        ("Stopped by", finished.interrupted),
    ]
    meta += [("Waivers", line) for line in waiver_lines(finished)]
    rows = _join(_html("<dt>{}</dt><dd>{}</dd>", name, value) for name, value in meta if value)
    unchecked = [line.removeprefix("not checked: ") for line in unchecked_lines(finished)]
    if unchecked:
        items = _join(_html("<li>{}</li>", line) for line in unchecked)
        rows += _html(
            "<dt>Not checked</dt><dd><details{}><summary>{} rule{}</summary>"
            '<ul class="unchecked">{}</ul></details></dd>',
            Markup(" open") if len(unchecked) <= 3 else "",
            len(unchecked),
            "" if len(unchecked) == 1 else "s",
            items,
        )
    chips = _join(
        _html('<li class="{}">{}</li>', outcome.value, OUTCOME_WORDS[outcome].counted(count))
        for outcome, count in ((outcome, counts[outcome.value]) for outcome in OUTCOME_ORDER)
        if count
    )
    return _html(
        '<header class="banner"><div class="banner-inner">'
        "<h1>patgate conformance report</h1>"
        '<div class="verdict {}">{} &middot; {}</div>'
        '<dl class="meta">{}</dl>'
        '<ul class="counts">{}</ul>'
        "</div></header>",
        tone.value,
        verdict.capitalize(),
        exit_meaning(finished),
        rows,
        chips,
    )


def _retries(finished: RunFinished) -> str:
    if finished.tallies is None:
        return ""
    count = finished.tallies.retries
    if not count:
        return "none"
    return f"{count} request{'' if count == 1 else 's'} resent after a 429 or 503"


def _filters() -> Markup:
    """Radio buttons the style sheet reads with ``:has``: no script, works offline."""
    choices = (
        ("show-all", "Everything", True),
        ("show-failed", "Failed only", False),
        ("show-gate", "Gate only", False),
    )
    inputs = _join(
        _html(
            '<input type="radio" name="show" id="{key}"{checked}>'
            '<label for="{key}">{label}</label>',
            key=key,
            checked=Markup(" checked") if on else "",
            label=label,
        )
        for key, label, on in choices
    )
    return _html('<fieldset class="filters"><legend>Show</legend>{}</fieldset>', inputs)


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


def _problems(finished: RunFinished, anchors: dict[str, str], folder: Path, prefix: str) -> Markup:
    scenarios = finished.scenarios
    heading = Markup("<h2>Failures and warnings</h2>")
    if not scenarios:
        return heading + _html(
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
    return heading + _join(cards)


def _cause_card(anchor: str, cause: _Cause, anchors: dict[str, str], folder: Path) -> Markup:
    level = "gate" if cause.gate else "advisory"
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
    rows = _join(
        _failure_row(scenario, failure, cause, anchors, folder)
        for scenario, failure in cause.failures
    )
    exchange = cause.exchange
    return _html(
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
        level=level,
        badge=_badge(badge),
        level_span=_level(level),
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
    expected = _html('<div class="muted">expected: {}</div>', failure.expected)
    actual = _html('<div class="muted">actual: {}</div>', failure.actual)
    return _html(
        '<tr data-level="{level}"><td>{link}<div>{source}</div></td>'
        '<td><span class="rule mono">{rule}</span> {level_span}</td>'
        "<td>{step}</td><td><strong>{message}</strong>{expected}{actual}{own}</td></tr>",
        level="gate" if failure.level is Level.GATE else "advisory",
        link=_scenario_link(scenario.scenario_id, anchors),
        source=_source_link(scenario, failure, folder),
        rule=failure.rule,
        level_span=_level(failure.level.value),
        step=failure.step,
        message=failure.message,
        expected=expected if failure.expected else "",
        actual=actual if failure.actual and failure.actual != cause.answer else "",
        own=_own_exchange(failure, cause.exchange),
    )


def _bare_card(scenario: ScenarioFinished, anchors: dict[str, str], folder: Path) -> Markup:
    return _html(
        '<article class="card {}" data-level="gate"><h3>{}{}<span>{}</span></h3>'
        '<p class="where">{}</p><p class="message">{}</p></article>',
        scenario.outcome.value,
        _badge(scenario.outcome),
        _scenario_link(scenario.scenario_id, anchors),
        scenario.title,
        _source_link(scenario, None, folder),
        scenario.reason or "the scenario did not finish",
    )


def _own_exchange(failure: Failure, shown: Exchange | None) -> Markup:
    """A check's own request, folded, when it is not the one the card shows."""
    own = failure.exchange
    if own is None or own == shown:
        return Markup()
    inner = _exchange_inner(own, "Its request and answer")
    return _html('<details class="own">{}</details>', inner)


def _exchange_block(exchange: Exchange) -> Markup:
    inner = _exchange_inner(exchange, "The request and the answer (credentials redacted)")
    return _html("<details open>{}</details>", inner)


def _exchange_inner(exchange: Exchange, title: str) -> Markup:
    request_lines = [f"{exchange.method} {exchange.url}"]
    request_lines += [f"{name}: {value}" for name, value in exchange.request_headers]
    if exchange.request_body:
        request_lines += ["", exchange.request_body]
    response_lines = [f"HTTP {exchange.status}"]
    response_lines += [f"{name}: {value}" for name, value in exchange.response_headers]
    if exchange.response_body:
        response_lines += ["", exchange.response_body]
    return _html(
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


def _source_link(scenario: ScenarioFinished, failure: Failure | None, folder: Path) -> Markup:
    """``scenarios/x.yaml:14`` linked to the file, relative to the report's folder; a
    built-in scenario named ``patgate/scenarios/x.yaml:14``, not linked."""
    file = scenario_file(scenario.source)
    if file is None:
        return Markup()
    line = failure.line if failure is not None and failure.line else file.line
    if file.builtin:
        shown = f"{file.shown}:{line}" if line else file.shown
        return _html('<span class="mono source">{}</span>', shown)
    try:
        relative = os.path.relpath(file.path.absolute(), folder)
    except ValueError:  # another drive on Windows
        relative = file.shown
    href = Path(relative).as_posix()
    shown = f"{href}:{line}" if line else href
    return _html('<a class="mono source" href="{}">{}</a>', href, shown)


def _source_cell(scenario: ScenarioFinished, folder: Path) -> Markup:
    """The scenario table's source: a user's file linked; a built-in one named, with its
    text folded beneath."""
    file = scenario_file(scenario.source)
    text = file.text() if file is not None else ""
    if not text:
        return _source_link(scenario, None, folder)
    return _html(
        '<details class="scenario-text"><summary>{}</summary><pre>{}</pre></details>',
        _source_link(scenario, None, folder),
        text,
    )


def _level(level: str) -> Markup:
    return _html('<span class="level {0}">{0}</span>', level)


def _badge(outcome: Outcome) -> Markup:
    return _html('<span class="badge {}">{}</span>', outcome.value, _LABELS[outcome])


def _rules(finished: RunFinished, anchors: dict[str, str]) -> Markup:
    parts = [Markup("<h2>Rules</h2>")]
    if not finished.rules:
        parts.append(Markup('<p class="muted">No rules were reported.</p>'))
    for outcome in OUTCOME_ORDER:
        group = [rule for rule in finished.rules if rule.outcome is outcome]
        if not group:
            continue
        rows = []
        for rule in group:
            links = _join((_scenario_link(s, anchors) for s in rule.scenarios), ", ")
            rows.append(
                _html(
                    '<tr data-level="{}"><td class="mono">{}</td><td>{}</td><td>{}</td>'
                    "<td>{}</td><td>{}</td></tr>",
                    rule.level.value,
                    rule.rule_id,
                    rule.title,
                    _level(rule.level.value),
                    links or Markup("&ndash;"),
                    rule_reason(rule, finished.scenarios),
                )
            )
        # Passing rules are folded away; the groups a person must act on start open.
        parts.append(
            _html(
                '<details data-outcome="{}"{}><summary>{} {} {}</summary>'
                "<table>{}<thead><tr><th>Rule</th><th>Title</th><th>Level</th>"
                "<th>Scenarios</th><th>Reason</th></tr></thead><tbody>{}</tbody></table>"
                "</details>",
                outcome.value,
                "" if outcome is Outcome.PASSED else Markup(" open"),
                _badge(outcome),
                len(group),
                "rule" if len(group) == 1 else "rules",
                _RULE_COLUMNS,
                _join(rows),
            )
        )
    return _join(parts)


def _scenario_link(scenario_id: str, anchors: dict[str, str]) -> Markup:
    anchor = anchors.get(scenario_id)
    if anchor is None:
        return _html('<span class="mono">{}</span>', scenario_id)
    return _html('<a class="mono" href="#{}">{}</a>', anchor, scenario_id)


def _levels_of(scenario: ScenarioFinished) -> str:
    if scenario.outcome is Outcome.WARNING:
        return "advisory"
    return "gate"


def _scenarios(finished: RunFinished, folder: Path, prefix: str) -> Markup:
    scenarios: Sequence[ScenarioFinished] = finished.scenarios
    # Anchors count from 1 in run order, as render_page numbered them.
    rows = _join(
        _html(
            '<tr id="{prefix}scenario-{index}" data-outcome="{outcome}" data-level="{level}">'
            '<td>{badge}</td><td class="mono">{id}</td><td>{title}{reason}</td>'
            '<td class="mono">{rules}</td><td class="num">{duration:.2f}s</td>'
            "<td>{source}</td></tr>",
            prefix=prefix,
            index=index,
            outcome=scenario.outcome.value,
            level=_levels_of(scenario),
            badge=_badge(scenario.outcome),
            id=scenario.scenario_id,
            title=scenario.title,
            reason=_html('<div class="muted">{}</div>', scenario.reason) if scenario.reason else "",
            rules=", ".join(scenario.rules),
            duration=scenario.duration,
            source=_source_cell(scenario, folder),
        )
        for index, scenario in enumerate(scenarios, start=1)
    )
    if not rows:
        return Markup('<h2>Scenarios</h2><p class="muted">No scenarios ran.</p>')
    return _html(
        '<h2>Scenarios</h2><div class="table-box"><table>{}'
        "<thead><tr><th>Outcome</th>"
        "<th>Scenario</th><th>Title</th><th>Rules</th><th>Time</th><th>Source</th></tr>"
        "</thead><tbody>{}</tbody></table></div>",
        _SCENARIO_COLUMNS,
        rows,
    )


class HtmlReporter(ArtifactReporter):
    """Writes :func:`render_page` to its path when the run finishes."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self._started_at: datetime | None = None

    def handle(self, event: Event) -> None:
        """Note when the run started, then as :class:`ArtifactReporter` does."""
        if isinstance(event, RunStarted):
            self._started_at = datetime.now(timezone.utc)
        elif isinstance(event, RunFinished) and self._started_at is None:
            # A run that never said it started (the target did not answer, say).
            self._started_at = datetime.now(timezone.utc) - timedelta(seconds=event.duration)
        super().handle(event)

    def render(self, started: RunStarted | None, finished: RunFinished) -> bytes:
        """The page as UTF-8."""
        # A lone surrogate cannot be UTF-8; printable() already shows it as an escape.
        page = render_page(started, finished, started_at=self._started_at, folder=self.path.parent)
        return page.encode("utf-8")

    def render_targets(self, runs: list[TargetRun]) -> bytes:
        """The page of several targets as UTF-8."""
        page = render_targets_page(runs, started_at=self._started_at, folder=self.path.parent)
        return page.encode("utf-8")

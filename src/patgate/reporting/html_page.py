"""``--report html:PATH``: one self-contained page for a person to read.

Inline CSS, no scripts, no external assets: the file can be mailed, attached to a CI job or
opened from disk. HTML is built through markupsafe, escaping by default: every piece is a
:class:`~markupsafe.Markup` made by :func:`~patgate.reporting.html_markup.html` from a literal
template, whose ``{}`` fields are escaped unless they are ``Markup`` themselves; control
characters are shown as escapes first, so what a deployment answered is displayed, never
interpreted.

Every outcome is named with the words of
:data:`~patgate.runner.results.events.OUTCOME_WORDS`. A built-in scenario is named
``patgate/scenarios/NAME.yaml`` and its text is shown folded in the scenario table (a link
into the installed package would break once the page is downloaded).

On top: the verdict, when the run started, its target, duration and required rules, and the
token tally with the retries. Failures are grouped by cause: checks that failed on the same
answer are one card, listing each scenario (linked to its file and the failing step's line,
relative to the report) with the request and answer of the first (redacted) and a ``curl``
line to replay it (:mod:`~patgate.reporting.html_failures`). Two filters ("failed only",
"gate only") work without a script (CSS ``:has``). Gate failures are red, advisory ones
amber; a row's level is written from :class:`~patgate.basics.levels.Level`, in the rows and
in the style sheet alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path

from markupsafe import Markup

from patgate._version import __version__
from patgate.basics.levels import Level
from patgate.reporting.artifact import ArtifactReporter, TargetRun, worst_exit_code
from patgate.reporting.html_failures import problems
from patgate.reporting.html_markup import (
    html,
    join,
    level_badge,
    outcome_badge,
    scenario_link,
    source_cell,
)
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
from patgate.runner.results.events import (
    OUTCOME_WORDS,
    Event,
    Outcome,
    RunFinished,
    RunStarted,
    ScenarioFinished,
)
from patgate.runner.results.outcomes import gate_count

__all__ = ["HtmlReporter", "render_page", "render_targets_page"]

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
.filters { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: center; margin: 20px 0 0;
  padding: 8px 14px; border: 1px solid var(--line); border-radius: 8px; }
.filters legend { font-weight: 600; padding: 0 4px; }
.filters label { margin-right: 8px; }
body:has(#show-failed:checked) [data-outcome]:not([data-outcome="failed"]),
body:has(#show-failed:checked) .card.warning { display: none; }
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

_LEVEL_STYLE = (
    f'table.checks tr[data-level="{Level.ADVISORY.value}"] td:first-child '
    "{ border-left: 3px dashed var(--warning); }\n"
    f'table.checks tr[data-level="{Level.GATE.value}"] td:first-child '
    "{ border-left: 3px solid var(--failed); }\n"
    f'body:has(#show-gate:checked) [data-level="{Level.ADVISORY.value}"] {{ display: none; }}\n'
)
"""The rules that read a row's level: written from :class:`Level`, as the rows are."""

# Fixed column widths, so that the rule tables of every outcome group line up.
_RULE_COLUMNS = Markup(
    '<colgroup><col style="width:22%"><col style="width:30%"><col style="width:10%">'
    '<col style="width:18%"><col style="width:20%"></colgroup>'
)
_SCENARIO_COLUMNS = Markup(
    '<colgroup><col style="width:11%"><col style="width:16%"><col style="width:26%">'
    '<col style="width:18%"><col style="width:7%"><col style="width:22%"></colgroup>'
)


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
        html("<title>{}</title>", title),
        Markup(f"<style>{_STYLE}{_LEVEL_STYLE}</style>"),  # noqa: S704 - the module's own constants
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
            problems(finished, anchors, folder, prefix),
            _rules(finished, anchors),
            _scenarios(finished, folder, prefix),
            Markup("</main>"),
        ]
    parts += [
        html("<footer>patgate {}</footer>", __version__),
        Markup("</body>"),
        Markup("</html>"),
    ]
    return str(join(parts, "\n")) + "\n"


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
    rows = join(html("<dt>{}</dt><dd>{}</dd>", name, value) for name, value in meta if value)
    unchecked = [line.removeprefix("not checked: ") for line in unchecked_lines(finished)]
    if unchecked:
        items = join(html("<li>{}</li>", line) for line in unchecked)
        rows += html(
            "<dt>Not checked</dt><dd><details{}><summary>{} rule{}</summary>"
            '<ul class="unchecked">{}</ul></details></dd>',
            Markup(" open") if len(unchecked) <= 3 else "",
            len(unchecked),
            "" if len(unchecked) == 1 else "s",
            items,
        )
    chips = join(
        html('<li class="{}">{}</li>', outcome.value, OUTCOME_WORDS[outcome].counted(count))
        for outcome, count in ((outcome, counts[outcome.value]) for outcome in OUTCOME_ORDER)
        if count
    )
    return html(
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
    inputs = join(
        html(
            '<input type="radio" name="show" id="{key}"{checked}>'
            '<label for="{key}">{label}</label>',
            key=key,
            checked=Markup(" checked") if on else "",
            label=label,
        )
        for key, label, on in choices
    )
    return html('<fieldset class="filters"><legend>Show</legend>{}</fieldset>', inputs)


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
            links = join((scenario_link(s, anchors) for s in rule.scenarios), ", ")
            rows.append(
                html(
                    '<tr data-level="{}"><td class="mono">{}</td><td>{}</td><td>{}</td>'
                    "<td>{}</td><td>{}</td></tr>",
                    rule.level.value,
                    rule.rule_id,
                    rule.title,
                    level_badge(rule.level),
                    links or Markup("&ndash;"),
                    rule_reason(rule, finished.scenarios),
                )
            )
        # Passing rules are folded away; the groups a person must act on start open.
        parts.append(
            html(
                '<details data-outcome="{}"{}><summary>{} {} {}</summary>'
                "<table>{}<thead><tr><th>Rule</th><th>Title</th><th>Level</th>"
                "<th>Scenarios</th><th>Reason</th></tr></thead><tbody>{}</tbody></table>"
                "</details>",
                outcome.value,
                "" if outcome is Outcome.PASSED else Markup(" open"),
                outcome_badge(outcome),
                len(group),
                "rule" if len(group) == 1 else "rules",
                _RULE_COLUMNS,
                join(rows),
            )
        )
    return join(parts)


def _levels_of(scenario: ScenarioFinished) -> str:
    level = Level.ADVISORY if scenario.outcome is Outcome.WARNING else Level.GATE
    return level.value


def _scenarios(finished: RunFinished, folder: Path, prefix: str) -> Markup:
    scenarios: Sequence[ScenarioFinished] = finished.scenarios
    # Anchors count from 1 in run order, as render_page numbered them.
    rows = join(
        html(
            '<tr id="{prefix}scenario-{index}" data-outcome="{outcome}" data-level="{level}">'
            '<td>{badge}</td><td class="mono">{id}</td><td>{title}{reason}</td>'
            '<td class="mono">{rules}</td><td class="num">{duration:.2f}s</td>'
            "<td>{source}</td></tr>",
            prefix=prefix,
            index=index,
            outcome=scenario.outcome.value,
            level=_levels_of(scenario),
            badge=outcome_badge(scenario.outcome),
            id=scenario.scenario_id,
            title=scenario.title,
            reason=html('<div class="muted">{}</div>', scenario.reason) if scenario.reason else "",
            rules=", ".join(scenario.rules),
            duration=scenario.duration,
            source=source_cell(scenario, folder),
        )
        for index, scenario in enumerate(scenarios, start=1)
    )
    if not rows:
        return Markup('<h2>Scenarios</h2><p class="muted">No scenarios ran.</p>')
    return html(
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

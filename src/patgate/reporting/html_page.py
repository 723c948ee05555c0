"""``--report html:PATH``: one self-contained page for a person to read.

Inline CSS, no scripts, no external assets: the file can be mailed, attached to a CI job or
opened from disk. Every value is escaped with ``html.escape``; control characters are shown
as escapes first, so what a deployment answered is displayed, never interpreted.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from patgate import __version__
from patgate.reporting.artifact import ArtifactReporter, TargetRun, worst_exit_code
from patgate.reporting.summary import (
    OUTCOME_ORDER,
    count_outcomes,
    exit_meaning,
    summary_line,
    unchecked_lines,
    waiver_lines,
)
from patgate.reporting.text import printable
from patgate.runner.events import Failure, Outcome, RunFinished, RunStarted, ScenarioFinished
from patgate.runner.results import gate_count

__all__ = ["HtmlReporter", "render_page", "render_targets_page"]

_LABELS = {
    Outcome.FAILED: "Failed",
    Outcome.WAIVED: "Waived",
    Outcome.WARNING: "Warning",
    Outcome.SKIPPED: "Skipped",
    Outcome.PASSED: "Passed",
}

_STYLE = """
:root { --fg: #1f2328; --muted: #59636e; --bg: #ffffff; --panel: #f6f8fa; --line: #d1d9e0;
  --failed: #cf222e; --failed-bg: #ffebe9; --warning: #9a6700; --warning-bg: #fff8c5;
  --skipped: #57606a; --skipped-bg: #eaeef2; --passed: #1a7f37; --passed-bg: #dafbe1;
  --code: #f6f8fa; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --panel: #151b23; --line: #3d444d;
    --failed: #ff7b72; --failed-bg: #3c1618; --warning: #e3b341; --warning-bg: #3a2e0f;
    --skipped: #9198a1; --skipped-bg: #262c36; --passed: #56d364; --passed-bg: #12321f;
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
.skipped { color: var(--skipped); background: var(--skipped-bg); }
.passed { color: var(--passed); background: var(--passed-bg); }
.waived { color: var(--warning); background: var(--skipped-bg); }
.badge { display: inline-block; min-width: 64px; text-align: center; padding: 1px 8px;
  border-radius: 6px; font-size: 12px; font-weight: 700; text-transform: uppercase; }
.card { border: 1px solid var(--line); border-left-width: 4px; border-radius: 8px;
  padding: 14px 18px; margin: 0 0 16px; background: var(--bg); }
.card.failed { border-left-color: var(--failed); background: var(--bg); color: inherit; }
.card.warning { border-left-color: var(--warning); background: var(--bg); color: inherit; }
.card h3 { margin: 0; font-size: 16px; display: flex; flex-wrap: wrap; gap: 8px;
  align-items: baseline; }
.card .where { color: var(--muted); margin: 2px 0 8px; font-size: 13px; }
.failure { border-top: 1px solid var(--line); padding-top: 10px; margin-top: 10px; }
.failure .head { margin: 0; display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; }
.failure .message { margin: 6px 0 10px; font-weight: 600; }
.rule { font-weight: 700; }
.level { font-size: 12px; padding: 0 6px; border-radius: 4px; border: 1px solid var(--line);
  color: var(--muted); }
.values { display: grid; grid-template-columns: repeat(auto-fit, minmax(280px, 1fr));
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
"""

# Fixed column widths, so that the rule tables of every outcome group line up.
_RULE_COLUMNS = (
    '<colgroup><col style="width:22%"><col style="width:30%"><col style="width:10%">'
    '<col style="width:18%"><col style="width:20%"></colgroup>'
)
_SCENARIO_COLUMNS = (
    '<colgroup><col style="width:11%"><col style="width:16%"><col style="width:26%">'
    '<col style="width:18%"><col style="width:7%"><col style="width:22%"></colgroup>'
)


def _e(value: str) -> str:
    return html.escape(printable(value), quote=True)


def render_page(started: RunStarted | None, finished: RunFinished) -> str:
    """The whole report page as a string."""
    return _page(f"patgate report: {_verdict(finished)[0]}", [("", started, finished)])


def render_targets_page(runs: list[TargetRun]) -> str:
    """One page for a run of several targets: each target's report in turn."""
    code = worst_exit_code([finished.exit_code for _, _, finished in runs])
    return _page(f"patgate report: {len(runs)} targets, exit {code}", runs)


def _page(title: str, runs: list[TargetRun]) -> str:
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title>",
        f"<style>{_STYLE}</style>",
        "</head>",
        "<body>",
    ]
    for number, (label, started, finished) in enumerate(runs, start=1):
        # With several targets, anchors carry the target's number so they stay unique.
        prefix = f"t{number}-" if len(runs) > 1 else ""
        anchors: dict[str, str] = {}
        for index, scenario in enumerate(finished.scenarios, start=1):
            anchors.setdefault(scenario.scenario_id, f"{prefix}scenario-{index}")
        parts += [
            _banner(started, finished, label),
            "<main>",
            _problems(finished.scenarios, anchors),
            _rules(finished, anchors),
            _scenarios(finished.scenarios, prefix),
            "</main>",
        ]
    parts += [
        f"<footer>patgate {_e(__version__)}</footer>",
        "</body>",
        "</html>",
    ]
    return "\n".join(parts) + "\n"


def _verdict(finished: RunFinished) -> tuple[str, Outcome]:
    counts = count_outcomes(finished)
    if finished.exit_code == 0:
        if gate_count(finished.rules, finished.require).waived:
            return "passed with waived failures", Outcome.WAIVED
        if counts[Outcome.WARNING.value]:
            return "passed with warnings", Outcome.WARNING
        if not gate_count(finished.rules, finished.require).all_checked:
            return "passed, not every gate rule checked", Outcome.SKIPPED
        return "passed", Outcome.PASSED
    if finished.exit_code == 1:
        return "failed", Outcome.FAILED
    return "did not complete", Outcome.FAILED


def _banner(started: RunStarted | None, finished: RunFinished, label: str = "") -> str:
    verdict, tone = _verdict(finished)
    counts = count_outcomes(finished)
    meta = [("World", label)] if label else []
    meta += [("Target", started.target if started else ""), ("Run", finished.run_id)]
    meta.append(("Result", summary_line(counts, finished.duration)))
    meta += [
        ("Not checked", line.removeprefix("not checked: ")) for line in unchecked_lines(finished)
    ]
    meta += [("Waivers", line) for line in waiver_lines(finished)]
    rows = "".join(f"<dt>{_e(name)}</dt><dd>{_e(value)}</dd>" for name, value in meta if value)
    chips = "".join(
        f'<li class="{outcome.value}">{counts[outcome.value]} {_e(_LABELS[outcome].lower())}</li>'
        for outcome in OUTCOME_ORDER
        if counts[outcome.value]
    )
    return (
        '<header class="banner"><div class="banner-inner">'
        "<h1>patgate conformance report</h1>"
        f'<div class="verdict {tone.value}">{_e(verdict.capitalize())}'
        f" &middot; {_e(exit_meaning(finished))}</div>"
        f'<dl class="meta">{rows}</dl>'
        f'<ul class="counts">{chips}</ul>'
        "</div></header>"
    )


def _problems(scenarios: Iterable[ScenarioFinished], anchors: dict[str, str]) -> str:
    problems = sorted(
        (s for s in scenarios if s.outcome in (Outcome.FAILED, Outcome.WAIVED, Outcome.WARNING)),
        key=lambda s: OUTCOME_ORDER.index(s.outcome),
    )
    if not problems:
        return '<h2>Failures and warnings</h2><p class="muted">None: every check passed.</p>'
    return "<h2>Failures and warnings</h2>" + "".join(
        _problem_card(scenario, anchors[scenario.scenario_id]) for scenario in problems
    )


def _problem_card(scenario: ScenarioFinished, anchor: str) -> str:
    where = [scenario.source, f"{scenario.duration:.2f}s", ", ".join(scenario.rules)]
    details = "".join(_failure_block(failure) for failure in scenario.failures)
    if not details and scenario.reason:
        details = f'<p class="message">{_e(scenario.reason)}</p>'
    return (
        f'<article class="card {scenario.outcome.value}" id="{anchor}-detail">'
        f"<h3>{_badge(scenario.outcome)}"
        f'<a class="mono" href="#{anchor}">{_e(scenario.scenario_id)}</a>'
        f"<span>{_e(scenario.title)}</span></h3>"
        f'<p class="where">{" &middot; ".join(_e(part) for part in where if part)}</p>'
        f"{details}</article>"
    )


def _failure_block(failure: Failure) -> str:
    head = [
        f'<span class="rule mono">{_e(failure.rule)}</span>',
        f'<span class="level">{_e(failure.level)}</span>',
    ]
    if failure.step:
        head.append(f'<span class="muted">at step</span> <span>{_e(failure.step)}</span>')
    values = "".join(
        f"<div><h4>{label}</h4><pre>{_e(value)}</pre></div>"
        for label, value in (("Expected", failure.expected), ("Actual", failure.actual))
        if value
    )
    return (
        '<div class="failure">'
        f'<p class="head">{" ".join(head)}</p>'
        f'<p class="message">{_e(failure.message)}</p>'
        + (f'<div class="values">{values}</div>' if values else "")
        + "</div>"
    )


def _badge(outcome: Outcome) -> str:
    return f'<span class="badge {outcome.value}">{_LABELS[outcome]}</span>'


def _rules(finished: RunFinished, anchors: dict[str, str]) -> str:
    parts = ["<h2>Rules</h2>"]
    if not finished.rules:
        parts.append('<p class="muted">No rules were reported.</p>')
    for outcome in OUTCOME_ORDER:
        group = [rule for rule in finished.rules if rule.outcome is outcome]
        if not group:
            continue
        rows = []
        for rule in group:
            links = ", ".join(_scenario_link(scenario, anchors) for scenario in rule.scenarios)
            rows.append(
                f'<tr><td class="mono">{_e(rule.rule_id)}</td><td>{_e(rule.title)}</td>'
                f'<td><span class="level">{_e(rule.level)}</span></td>'
                f"<td>{links or '&ndash;'}</td><td>{_e(rule.reason)}</td></tr>"
            )
        # Passing rules are folded away; the groups a person must act on start open.
        opened = "" if outcome is Outcome.PASSED else " open"
        parts.append(
            f"<details{opened}><summary>{_badge(outcome)} {len(group)} "
            f"{'rule' if len(group) == 1 else 'rules'}</summary>"
            f"<table>{_RULE_COLUMNS}<thead><tr><th>Rule</th><th>Title</th><th>Level</th>"
            "<th>Scenarios</th>"
            f"<th>Reason</th></tr></thead><tbody>{''.join(rows)}</tbody></table></details>"
        )
    return "".join(parts)


def _scenario_link(scenario_id: str, anchors: dict[str, str]) -> str:
    anchor = anchors.get(scenario_id)
    if anchor is None:
        return f'<span class="mono">{_e(scenario_id)}</span>'
    return f'<a class="mono" href="#{anchor}">{_e(scenario_id)}</a>'


def _scenarios(scenarios: Iterable[ScenarioFinished], prefix: str = "") -> str:
    # Anchors count from 1 in run order, as render_page numbered them.
    rows = "".join(
        f'<tr id="{prefix}scenario-{index}"><td>{_badge(scenario.outcome)}</td>'
        f'<td class="mono">{_e(scenario.scenario_id)}</td><td>{_e(scenario.title)}'
        + (f'<div class="muted">{_e(scenario.reason)}</div>' if scenario.reason else "")
        + f'</td><td class="mono">{_e(", ".join(scenario.rules))}</td>'
        f'<td class="num">{scenario.duration:.2f}s</td>'
        f'<td class="mono muted">{_e(scenario.source)}</td></tr>'
        for index, scenario in enumerate(scenarios, start=1)
    )
    if not rows:
        return '<h2>Scenarios</h2><p class="muted">No scenarios ran.</p>'
    return (
        f'<h2>Scenarios</h2><div class="table-box"><table>{_SCENARIO_COLUMNS}'
        "<thead><tr><th>Outcome</th>"
        "<th>Scenario</th><th>Title</th><th>Rules</th><th>Time</th><th>Source</th></tr>"
        f"</thead><tbody>{rows}</tbody></table></div>"
    )


class HtmlReporter(ArtifactReporter):
    """Writes :func:`render_page` to its path when the run finishes."""

    def render(self, started: RunStarted | None, finished: RunFinished) -> bytes:
        """The page as UTF-8."""
        # A lone surrogate cannot be UTF-8; printable() already shows it as an escape.
        return render_page(started, finished).encode("utf-8")

    def render_targets(self, runs: list[TargetRun]) -> bytes:
        """The page of several targets as UTF-8."""
        return render_targets_page(runs).encode("utf-8")

"""From scenario outcomes to rule outcomes and the run's exit code."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from patgate.levels import Level
from patgate.runner.events import Failure, Outcome, RuleResult, ScenarioFinished, Tallies
from patgate.scenario.catalogue import Catalogue, Rule

__all__ = ["exit_code", "rule_results", "run_exit_code", "scenario_outcome"]


def scenario_outcome(failures: Sequence[Failure]) -> Outcome:
    """Failed when a gate rule failed, warning when only advisory ones did, else passed."""
    if any(failure.level is Level.GATE for failure in failures):
        return Outcome.FAILED
    return Outcome.WARNING if failures else Outcome.PASSED


def rule_results(
    catalogue: Catalogue,
    finished: Sequence[ScenarioFinished],
    completed: Collection[str],
    *,
    every_rule: bool = True,
) -> tuple[RuleResult, ...]:
    """One result per rule.

    A rule fails (or warns, if advisory) when any failure names it; it passes when a
    scenario covering it ran to the end; otherwise it is skipped with the reasons.
    ``every_rule=False`` (a filtered run) reports only the rules the run touched.
    """
    results = []
    for rule in catalogue:
        covering = [s for s in finished if rule.id in s.rules]
        failures = [f for s in finished for f in s.failures if f.rule == rule.id]
        if not every_rule and not covering and not failures:
            continue
        results.append(_result(rule, covering, failures, completed))
    return tuple(results)


def _result(
    rule: Rule,
    covering: Sequence[ScenarioFinished],
    failures: Sequence[Failure],
    completed: Collection[str],
) -> RuleResult:
    ids = tuple(s.scenario_id for s in covering)
    if failures:
        outcome = Outcome.FAILED if rule.is_gate else Outcome.WARNING
        return RuleResult(rule.id, rule.title, rule.level, outcome, ids)
    if any(s.scenario_id in completed for s in covering):
        return RuleResult(rule.id, rule.title, rule.level, Outcome.PASSED, ids)
    if not covering:
        reason = "no scenario covers this rule"
    else:
        reasons = []
        for s in covering:
            why = s.reason if s.outcome is Outcome.SKIPPED and s.reason else "stopped before it"
            # With several scenarios, say which one each reason belongs to.
            text = f"{s.scenario_id}: {why}" if len(covering) > 1 else why
            if text not in reasons:
                reasons.append(text)
        reason = "; ".join(reasons)
    return RuleResult(rule.id, rule.title, rule.level, Outcome.SKIPPED, ids, reason)


def exit_code(rules: Sequence[RuleResult], *, strict: bool = False) -> int:
    """1 when a gate rule failed (or, with ``strict``, any rule warned), else 0."""
    if any(r.outcome is Outcome.FAILED for r in rules):
        return 1
    if strict and any(r.outcome is Outcome.WARNING for r in rules):
        return 1
    return 0


def run_exit_code(
    rules: Sequence[RuleResult],
    tallies: Tallies,
    *,
    strict: bool = False,
    interrupted: str = "",
) -> int:
    """The run's exit code: 130 / 143 when a signal stopped it, else :func:`exit_code`, made
    1 when the run left a token behind or refused a delete."""
    if interrupted:
        from patgate.runner.interruption import interrupt_exit_code

        return interrupt_exit_code(interrupted)
    code = exit_code(rules, strict=strict)
    if tallies.left_behind:
        return max(code, 1)
    return code

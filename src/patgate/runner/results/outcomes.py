"""From scenario outcomes to rule outcomes, the gate rules' verdict and the run's exit code.

Exit codes: 0 no gate rule failed; 1 a gate rule failed (or, with ``strict``, an advisory
one), or the run left a token behind; :data:`EXIT_UNCHECKED` (4) a gate rule ``--require``
names (``all``: every gate rule in scope; ``checkable``: every one this target can check) was
not checked; 130 / 143 interrupted.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from patgate.basics.levels import Level
from patgate.runner.results.events import (
    CANNOT_BE_CHECKED,
    Failure,
    Outcome,
    RuleResult,
    ScenarioFinished,
    Tallies,
)
from patgate.scenario.catalogue import Catalogue, Rule

__all__ = [
    "EXIT_INTERNAL",
    "EXIT_UNCHECKED",
    "EXIT_UNREACHABLE",
    "REQUIRE_ALL",
    "REQUIRE_CHECKABLE",
    "REQUIRE_WORDS",
    "GateCount",
    "exit_code",
    "gate_count",
    "rule_results",
    "run_exit_code",
    "scenario_outcome",
]

EXIT_UNREACHABLE = 3
"""The exit code of a run whose target did not answer, from the start or mid-run."""
EXIT_UNCHECKED = 4
"""The exit code of a run where a gate rule ``--require`` names was not checked."""
EXIT_INTERNAL = 5
"""The exit code of a run that met a bug of patgate's own (the last-resort net caught it:
every report was written and the cleanup ran)."""
REQUIRE_ALL = "all"
"""``--require all``: every gate rule in the run's scope must be checked."""
REQUIRE_CHECKABLE = "checkable"
"""``--require checkable``: every gate rule this target can check must be checked; those it
cannot (no control plane) are listed apart and do not count."""
REQUIRE_WORDS = (REQUIRE_ALL, REQUIRE_CHECKABLE)


@dataclass(frozen=True)
class GateCount:
    """The gate rules of a run: how many passed and failed, and which were not checked."""

    passed: int
    failed: int
    unchecked: tuple[tuple[str, str], ...]
    """``(rule id, why)`` of each gate rule no scenario checked (with ``checkable``
    required, only those this target could have checked)."""
    waived: int = 0
    """Gate rules that failed and are waived (``--waivers``)."""
    uncheckable: tuple[tuple[str, str], ...] = ()
    """With ``checkable`` required: ``(rule id, why)`` of each gate rule this target cannot
    check by its nature; listed, not counted."""

    by_nature: frozenset[str] = frozenset()
    """The ids among :attr:`unchecked` this target cannot check by its nature (those that
    :data:`REQUIRE_CHECKABLE` would not count)."""

    @property
    def all_checked(self) -> bool:
        """Every gate rule in scope was checked."""
        return not self.unchecked

    @property
    def removable(self) -> tuple[str, ...]:
        """The ids of the unchecked gate rules this target could check: left unchecked for a
        reason the user can remove (no ``--allow-writes``, a missing key, ...)."""
        return tuple(rule_id for rule_id, _ in self.unchecked if rule_id not in self.by_nature)


def gate_count(rules: Sequence[RuleResult], require: Collection[str] = ()) -> GateCount:
    """Count the gate rules of ``rules``; a rule ``require`` names that is not among them
    counts as not checked (outside the run's scope)."""
    gates = [rule for rule in rules if rule.level is Level.GATE]
    checkable = REQUIRE_CHECKABLE in require
    skipped = [rule for rule in gates if rule.outcome is Outcome.NOT_CHECKED]
    unchecked = [
        (rule.rule_id, rule.reason or "not checked")
        for rule in skipped
        if not (checkable and rule.inherent)
    ]
    uncheckable = [
        (rule.rule_id, rule.reason or "not checked")
        for rule in skipped
        if checkable and rule.inherent
    ]
    reported = {rule.rule_id for rule in rules}
    unchecked += [
        (rule_id, "outside this run's scope")
        for rule_id in require
        if rule_id not in REQUIRE_WORDS and rule_id not in reported
    ]
    return GateCount(
        passed=sum(rule.outcome is Outcome.PASSED for rule in gates),
        failed=sum(rule.outcome is Outcome.FAILED for rule in gates),
        waived=sum(rule.outcome is Outcome.WAIVED for rule in gates),
        unchecked=tuple(unchecked),
        uncheckable=tuple(uncheckable),
        by_nature=frozenset(rule.rule_id for rule in skipped if rule.inherent),
    )


def _required_unchecked(rules: Sequence[RuleResult], require: Collection[str]) -> bool:
    if not require:
        return False
    unchecked = {rule_id for rule_id, _ in gate_count(rules, require).unchecked}
    if REQUIRE_ALL in require or REQUIRE_CHECKABLE in require:
        return bool(unchecked)
    return any(rule_id in unchecked for rule_id in require)


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
    scenario covering it ran to the end, or when any of its expectations ran and held (even
    if a later step of that scenario failed); otherwise it is skipped with the reasons: a
    rule is "not checked" only when none of its expectations ran.
    ``every_rule=False`` (a filtered run) reports only the rules the run touched.
    """
    results = []
    credited = {rule_id for s in finished for rule_id in s.checked}
    for rule in catalogue:
        covering = [s for s in finished if rule.id in s.rules]
        failures = [f for s in finished for f in s.failures if f.rule == rule.id]
        if not every_rule and not covering and not failures:
            continue
        results.append(_result(rule, covering, failures, completed, rule.id in credited))
    return tuple(results)


def _result(
    rule: Rule,
    covering: Sequence[ScenarioFinished],
    failures: Sequence[Failure],
    completed: Collection[str],
    credited: bool = False,
) -> RuleResult:
    # Coverage lists only the scenarios that ran; a skipped one is named in the reason.
    ids = tuple(s.scenario_id for s in covering if s.outcome is not Outcome.NOT_CHECKED)
    if failures:
        outcome = Outcome.FAILED if rule.is_gate else Outcome.WARNING
        return RuleResult(rule.id, rule.title, rule.level, outcome, ids)
    if credited or any(s.scenario_id in completed for s in covering):
        return RuleResult(rule.id, rule.title, rule.level, Outcome.PASSED, ids)
    inherent = all(s.outcome is Outcome.NOT_CHECKED and s.inherent for s in covering)
    if not covering:
        reason = "no scenario covers this rule"
    else:
        # Said once in front when every reason is the target's nature, else per scenario.
        lead = f"{CANNOT_BE_CHECKED}: "
        reasons = []
        for s in covering:
            why = s.reason if s.outcome is Outcome.NOT_CHECKED and s.reason else "stopped before it"
            why = why.removeprefix(lead) if inherent else why
            # With several scenarios, say which one each reason belongs to.
            text = f"{s.scenario_id}: {why}" if len(covering) > 1 else why
            if text not in reasons:
                reasons.append(text)
        reason = (lead if inherent else "") + "; ".join(reasons)
    return RuleResult(rule.id, rule.title, rule.level, Outcome.NOT_CHECKED, ids, reason, inherent)


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
    require: Collection[str] = (),
    unreachable: bool = False,
    internal: bool = False,
) -> int:
    """The run's exit code: 130 / 143 when a signal stopped it, else :data:`EXIT_INTERNAL`
    when it met a bug of its own (``internal``), else 3 when the target could not be reached
    (from the start or mid-run), else :func:`exit_code`, made 1 when the run left a token
    behind, refused a delete or was answered a wrong id, else :data:`EXIT_UNCHECKED` when a
    gate rule ``require`` names was not checked."""
    if interrupted:
        from patgate.runner.interruption import interrupt_exit_code

        return interrupt_exit_code(interrupted)
    if internal:
        return EXIT_INTERNAL
    if unreachable:
        return EXIT_UNREACHABLE
    code = exit_code(rules, strict=strict)
    if tallies.left_behind or tallies.wrong_ids:
        return max(code, 1)
    if code == 0 and _required_unchecked(rules, require):
        return EXIT_UNCHECKED
    return code

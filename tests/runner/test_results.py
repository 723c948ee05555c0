"""From scenario outcomes to rule outcomes and the exit code."""

from __future__ import annotations

from dataclasses import replace

from patgate.runner.planning.admission import NEEDS_CONTROL, UNTRACKED_WRITES
from patgate.runner.results.events import CANNOT_BE_CHECKED, Failure, Outcome, ScenarioFinished
from patgate.runner.results.outcomes import exit_code, rule_results, scenario_outcome
from patgate.scenario import Catalogue, Rule

CATALOGUE = Catalogue(
    (
        Rule("G-ONE", "gate one", "gate", (), ""),
        Rule("G-TWO", "gate two", "gate", (), ""),
        Rule("A-ONE", "advisory one", "advisory", (), ""),
    )
)


def _finished(
    scenario_id: str,
    rules: tuple[str, ...],
    outcome: Outcome,
    *failures: Failure,
    reason: str = "",
) -> ScenarioFinished:
    return ScenarioFinished(scenario_id, "t", rules, outcome, 0.0, reason, failures)


def _fail(rule: str, level: str = "gate") -> Failure:
    return Failure(rule, level, "step", "message")


def test_a_scenario_fails_on_a_gate_failure_and_warns_on_advisory_ones() -> None:
    assert scenario_outcome([]) is Outcome.PASSED
    assert scenario_outcome([_fail("A-ONE", "advisory")]) is Outcome.WARNING
    assert scenario_outcome([_fail("A-ONE", "advisory"), _fail("G-ONE")]) is Outcome.FAILED


def test_a_failure_counts_against_its_rule_even_from_another_scenario() -> None:
    finished = [
        _finished("a", ("G-ONE",), Outcome.FAILED, _fail("G-TWO")),
        _finished("b", ("G-TWO",), Outcome.PASSED),
    ]
    results = {r.rule_id: r for r in rule_results(CATALOGUE, finished, {"b"})}
    assert results["G-TWO"].outcome is Outcome.FAILED
    assert results["G-TWO"].scenarios == ("b",)
    # G-ONE's only scenario stopped at another rule's failure: G-ONE was not checked.
    assert (results["G-ONE"].outcome, results["G-ONE"].reason) == (
        Outcome.NOT_CHECKED,
        "stopped before it",
    )


def test_a_rule_passes_when_one_covering_scenario_ran_to_the_end() -> None:
    finished = [
        _finished("a", ("G-ONE",), Outcome.NOT_CHECKED, reason="needs member_token"),
        _finished("b", ("G-ONE",), Outcome.PASSED),
    ]
    results = {r.rule_id: r for r in rule_results(CATALOGUE, finished, {"b"})}
    assert results["G-ONE"].outcome is Outcome.PASSED


def test_skip_reasons_name_their_scenario_when_there_are_several() -> None:
    finished = [
        _finished("a", ("G-ONE",), Outcome.NOT_CHECKED, reason="needs member_token"),
        _finished("b", ("G-ONE",), Outcome.NOT_CHECKED, reason="needs control of the deployment"),
    ]
    (rule,) = [r for r in rule_results(CATALOGUE, finished, set()) if r.rule_id == "G-ONE"]
    assert rule.reason == "a: needs member_token; b: needs control of the deployment"


def test_a_rule_no_scenario_can_check_on_this_target_says_so_once_in_front() -> None:
    finished = [
        replace(
            _finished("a", ("G-ONE",), Outcome.NOT_CHECKED, reason=NEEDS_CONTROL), inherent=True
        ),
        replace(
            _finished("b", ("G-ONE",), Outcome.NOT_CHECKED, reason=UNTRACKED_WRITES), inherent=True
        ),
    ]
    (rule,) = [r for r in rule_results(CATALOGUE, finished, set()) if r.rule_id == "G-ONE"]
    assert rule.inherent
    assert rule.reason == (
        "cannot be checked on this target: "
        f"a: {NEEDS_CONTROL.removeprefix(CANNOT_BE_CHECKED + ': ')}; "
        f"b: {UNTRACKED_WRITES.removeprefix(CANNOT_BE_CHECKED + ': ')}"
    )
    assert rule.reason.count(CANNOT_BE_CHECKED) == 1


def test_a_rule_one_scenario_could_check_names_each_reason_apart() -> None:
    finished = [
        replace(
            _finished("a", ("G-ONE",), Outcome.NOT_CHECKED, reason=NEEDS_CONTROL), inherent=True
        ),
        _finished("b", ("G-ONE",), Outcome.NOT_CHECKED, reason="needs member_token"),
    ]
    (rule,) = [r for r in rule_results(CATALOGUE, finished, set()) if r.rule_id == "G-ONE"]
    assert not rule.inherent
    assert rule.reason == f"a: {NEEDS_CONTROL}; b: needs member_token"


def test_exit_codes() -> None:
    finished = [_finished("a", ("A-ONE",), Outcome.WARNING, _fail("A-ONE", "advisory"))]
    warned = rule_results(CATALOGUE, finished, {"a"}, every_rule=False)
    assert [r.rule_id for r in warned] == ["A-ONE"]
    assert exit_code(warned) == 0
    assert exit_code(warned, strict=True) == 1
    failed = rule_results(
        CATALOGUE, [_finished("a", ("G-ONE",), Outcome.FAILED, _fail("G-ONE"))], set()
    )
    assert exit_code(failed) == 1


def test_a_rule_whose_expectation_held_passes_though_a_later_step_failed() -> None:
    finished = [
        ScenarioFinished(
            "a",
            "t",
            ("G-ONE", "G-TWO"),
            Outcome.FAILED,
            0.0,
            failures=(_fail("G-TWO"),),
            checked=("G-ONE",),
        )
    ]
    results = {r.rule_id: r for r in rule_results(CATALOGUE, finished, set())}
    assert results["G-ONE"].outcome is Outcome.PASSED
    assert results["G-TWO"].outcome is Outcome.FAILED


def test_the_runner_credits_each_expectation_that_held_to_its_rule() -> None:
    from patgate.runner import FakeTarget

    from .support import run_events, scenarios

    text = """\
id: two-rules
title: One rule holds, the next step fails another
rules: [AUTH-REQUIRED, AUTH-INVALID-TOKEN, CONTENT-PAT]
steps:
  - name: no bearer is refused
    hubs: true
    expect:
      - {status: 401, rule: AUTH-REQUIRED}
  - name: a made-up expectation that fails
    hubs: true
    expect:
      - {status: 299, rule: AUTH-INVALID-TOKEN}
  - name: never reached
    hubs: true
    bearer: ${admin_token}
    expect:
      - {status: 200, rule: CONTENT-PAT}
"""
    _, end = run_events(scenarios(text), FakeTarget(), every_rule=False)
    outcomes = {r.rule_id: (r.outcome, r.reason) for r in end.rules}
    assert outcomes["AUTH-REQUIRED"] == (Outcome.PASSED, "")
    assert outcomes["AUTH-INVALID-TOKEN"][0] is Outcome.FAILED
    # None of its expectations ran: only then is a rule "not checked".
    assert outcomes["CONTENT-PAT"] == (Outcome.NOT_CHECKED, "stopped before it")

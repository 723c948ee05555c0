"""The self-test: for every gate rule, a fake with the matching fault fails that rule, and
only the rules expected. The unmodified fake passes every scenario (tests/runner)."""

from __future__ import annotations

import functools

import pytest

from patgate.basics.resources import scenarios_dir
from patgate.runner import FakeTarget, RunOptions, run
from patgate.runner.results.events import Outcome, RunFinished
from patgate.scenario import Scenario, load_catalogue, load_scenarios

from .faults import FAULTS, Fault


@functools.lru_cache(maxsize=1)
def _builtin() -> tuple[Scenario, ...]:
    return load_scenarios([scenarios_dir()])


def _failed_rules(fault: Fault, scenarios: tuple[Scenario, ...]) -> tuple[set[str], RunFinished]:
    events = list(run(scenarios, FakeTarget(fault.fake()), RunOptions(every_rule=False)))
    end = events[-1]
    assert isinstance(end, RunFinished)
    return {r.rule_id for r in end.rules if r.outcome is Outcome.FAILED}, end


def test_every_gate_rule_has_a_fault() -> None:
    gates = {rule.id for rule in load_catalogue() if rule.is_gate}
    assert gates - {fault.rule for fault in FAULTS} == set()


@pytest.mark.parametrize("fault", FAULTS, ids=lambda fault: fault.name)
def test_the_scenarios_of_a_rule_catch_its_fault(fault: Fault) -> None:
    covering = tuple(s for s in _builtin() if fault.rule in s.rules)
    failed, end = _failed_rules(fault, covering)
    assert failed == fault.fails
    assert end.exit_code == 1


WHOLE_SUITE = [fault for fault in FAULTS if fault.whole_suite is not None]


@pytest.mark.parametrize("fault", WHOLE_SUITE, ids=lambda fault: fault.name)
def test_the_whole_suite_fails_only_the_rules_expected(fault: Fault) -> None:
    failed, end = _failed_rules(fault, _builtin())
    assert failed == fault.whole_suite
    assert end.exit_code == 1

"""The scheduler: which scenarios may overlap (from their model, not their ids), that
conflicting ones never do while independent ones do, and that results come back in the
catalogue's order."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from patgate.errors import TargetUnreachable
from patgate.runner.interruption import RunInterrupted, SignalGuard
from patgate.runner.planning.scheduler import Claim, Scheduler, claim_of, dispatch_order
from patgate.runner.results.events import Outcome, ScenarioFinished
from patgate.scenario import Scenario

from .support import builtin, scenarios

WAIT = 10.0
"""The longest any test here waits for another thread (a bound, never an assertion)."""

MEMBER_WRITER = """\
id: zz-anything
title: Creates a token as the member, whatever its id says
rules: [PAT-CREATE-FIELDS]
steps:
  - name: create
    graphql: create_token
    args: {name: "${new_name}"}
    bearer: ${member_token}
    expect:
      - ok: true
"""


def _pick(*ids: str) -> list[Scenario]:
    chosen = {s.id: s for s in builtin() if s.id in ids}
    return [chosen[i] for i in ids]


def _result(scenario: Scenario) -> ScenarioFinished:
    return ScenarioFinished(scenario.id, scenario.title, scenario.rules, Outcome.PASSED, 0.0)


def test_claims_come_from_what_the_scenario_does() -> None:
    by_id = {s.id: s for s in builtin()}
    assert claim_of(by_id["token-ok"], controlled=True) == Claim()
    assert claim_of(by_id["pat-create"], controlled=True).principals == {"admin_token"}
    assert claim_of(by_id["pat-self-only"], controlled=False).principals == {
        "admin_token",
        "member_token",
    }
    for control in ("pat-approval", "pat-removal-immediate", "pat-no-expiry"):
        assert claim_of(by_id[control], controlled=False).exclusive, control
    assert claim_of(by_id["pat-cap"], controlled=False).exclusive, "a bulk writer runs alone"
    # A wait moves the clock of a deployment patgate controls; elsewhere it only sleeps.
    assert claim_of(by_id["client-token-expiry"], controlled=True).exclusive
    assert claim_of(by_id["client-token-expiry"], controlled=False) == Claim()
    (member,) = scenarios(MEMBER_WRITER)
    assert claim_of(member, controlled=True).principals == {"member_token"}


def test_writers_as_one_principal_conflict_and_readers_do_not() -> None:
    admin = Claim(principals=frozenset({"admin_token"}))
    member = Claim(principals=frozenset({"member_token"}))
    both = Claim(principals=frozenset({"admin_token", "member_token"}))
    alone = Claim(exclusive=True)
    reader = Claim()
    assert admin.conflicts(both)
    assert member.conflicts(both)
    assert not admin.conflicts(member)
    assert not reader.conflicts(admin)
    assert not reader.conflicts(reader)
    assert alone.conflicts(reader)
    assert reader.conflicts(alone)


def test_exclusive_scenarios_are_offered_first_then_writers_then_readers() -> None:
    chosen = _pick("token-ok", "pat-create", "pat-approval", "pat-delete", "pat-cap")
    claims = [claim_of(s, controlled=True) for s in chosen]
    order = [chosen[i].id for i in dispatch_order(chosen, claims)]
    assert order == ["pat-approval", "pat-cap", "pat-create", "pat-delete", "token-ok"]


def test_conflicting_scenarios_never_overlap() -> None:
    chosen = list(builtin())
    claims = {s.id: claim_of(s, controlled=True) for s in chosen}
    lock = threading.Lock()
    active: set[str] = set()
    overlaps: list[tuple[str, str]] = []
    most = {"n": 0}

    def run_one(scenario: Scenario) -> ScenarioFinished:
        with lock:
            overlaps.extend(
                (scenario.id, other)
                for other in active
                if claims[scenario.id].conflicts(claims[other])
            )
            active.add(scenario.id)
            most["n"] = max(most["n"], len(active))
        time.sleep(0.005)  # long enough for others to start beside it, if they may
        with lock:
            active.discard(scenario.id)
        return _result(scenario)

    scheduler = Scheduler(chosen, run_one, workers=4, controlled=True)
    results = [scenario.id for scenario, _ in scheduler.results()]
    assert results == [s.id for s in chosen], "results in catalogue order"
    assert overlaps == []
    assert most["n"] <= 4


def test_independent_scenarios_run_side_by_side() -> None:
    chosen = _pick("token-ok", "token-grant-type", "auth-required")
    # Each waits for the other two: they finish only if all three run at once.
    meeting = threading.Barrier(3, timeout=WAIT)

    def run_one(scenario: Scenario) -> ScenarioFinished:
        meeting.wait()
        return _result(scenario)

    scheduler = Scheduler(chosen, run_one, workers=4, controlled=True)
    assert [s.id for s, _ in scheduler.results()] == [s.id for s in chosen]


def test_results_come_in_catalogue_order_whichever_finishes_first() -> None:
    chosen = _pick("token-ok", "token-grant-type", "auth-required")
    last_done = threading.Event()
    finished: list[str] = []

    def run_one(scenario: Scenario) -> ScenarioFinished:
        if scenario.id == "token-ok":
            assert last_done.wait(WAIT), "the last scenario never finished"
        result = _result(scenario)
        finished.append(scenario.id)
        if scenario.id == "auth-required":
            last_done.set()
        return result

    scheduler = Scheduler(chosen, run_one, workers=3, controlled=True)
    assert [s.id for s, _ in scheduler.results()] == [
        "token-ok",
        "token-grant-type",
        "auth-required",
    ]
    assert finished[-1] == "token-ok", "the first scenario finished last"


def test_an_error_in_a_worker_stops_the_run_and_reaches_the_caller() -> None:
    chosen = _pick("token-ok", "pat-create", "pat-delete")
    started: list[str] = []

    def run_one(scenario: Scenario) -> ScenarioFinished:
        started.append(scenario.id)
        if scenario.id == "pat-create":
            raise TargetUnreachable("cannot reach http://127.0.0.1:9")
        return _result(scenario)

    scheduler = Scheduler(chosen, run_one, workers=2, controlled=True)
    with pytest.raises(TargetUnreachable):
        list(scheduler.results())
    assert "pat-delete" not in started, "nothing starts after a worker failed"


@pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(),
    reason="signals reach the main thread only: run pytest from a shell, not inside a thread",
)
def test_a_signal_halts_the_handing_out_and_the_running_scenario_finishes() -> None:
    chosen = _pick("pat-create", "pat-delete", "token-ok")
    release = threading.Event()

    def run_one(scenario: Scenario) -> ScenarioFinished:
        if scenario.id == "pat-create":
            os.kill(os.getpid(), signal.SIGTERM)  # this process, under the guard below
            assert release.wait(WAIT), "never released"
        return _result(scenario)

    scheduler = Scheduler(chosen, run_one, workers=1, controlled=True)
    with SignalGuard(notice=lambda _: None), pytest.raises(RunInterrupted):
        list(scheduler.results())
    release.set()
    rest = scheduler.halt()
    assert [s.id for s, _ in rest] == ["pat-create"], "the running one finished; none started"

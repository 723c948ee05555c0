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
from patgate.runner.planning.scheduler import (
    CLOCK,
    SLOTS,
    Claim,
    Scheduler,
    claim_of,
    dispatch_order,
    fits,
)
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
    create = claim_of(by_id["pat-create"], controlled=True)
    assert create.principals == {"admin_token"}
    assert create.need("admin_token") == 2, "two create steps: two of the admin's slots"
    assert claim_of(by_id["pat-delete"], controlled=True).need("admin_token") == 1
    # The member only reads in pat-self-only; it writes as the admin alone.
    assert claim_of(by_id["pat-self-only"], controlled=False).principals == {"admin_token"}
    # Control scenarios are the control phase, and say what they change.
    approval = claim_of(by_id["pat-approval"], controlled=False)
    assert approval.control
    assert approval.need("member_token") == 1, "a requested token"
    removal = claim_of(by_id["pat-removal-immediate"], controlled=False)
    assert removal.control
    assert removal.touches == {"member_token"}
    assert claim_of(by_id["pat-no-expiry"], controlled=False).touches == {CLOCK}
    # The cap probe needs the admin alone, and nothing more.
    cap = claim_of(by_id["pat-cap"], controlled=False)
    assert cap.alone_as == {"admin_token"}
    assert not cap.exclusive
    assert not cap.control
    # Comparing a listing's length: the member alone.
    assert claim_of(by_id["pat-admin-only"], controlled=True).alone_as == {"member_token"}
    # A wait moves the clock of a deployment patgate controls; elsewhere it only sleeps.
    assert claim_of(by_id["client-token-expiry"], controlled=True).touches == {CLOCK}
    assert claim_of(by_id["client-token-expiry"], controlled=False) == Claim()
    (member,) = scenarios(MEMBER_WRITER)
    assert claim_of(member, controlled=True).principals == {"member_token"}


def test_writers_share_a_principal_while_its_slots_last() -> None:
    def admin(count: int) -> Claim:
        return Claim(slots=(("admin_token", count),))

    assert fits(admin(1), [admin(1), admin(2)]), "4 slots of the admin's 5 tokens"
    assert not fits(admin(1), [admin(2), admin(2)])
    assert not fits(admin(2), [admin(1), admin(1), admin(1)])
    member = Claim(slots=(("member_token", 2),))
    assert fits(member, [admin(2), admin(2)])


def test_a_cap_probe_needs_its_principal_alone_and_nothing_more() -> None:
    cap = Claim(alone_as=frozenset({"admin_token"}))
    deleter = Claim(slots=(("admin_token", 0),))
    member = Claim(slots=(("member_token", 1),))
    assert cap.conflicts(deleter)
    assert deleter.conflicts(cap)
    assert not fits(Claim(slots=(("admin_token", 1),)), [cap])
    assert fits(member, [cap])
    assert fits(Claim(), [cap]), "readers run beside it"


def test_control_keeps_apart_what_it_changes_and_the_clock_stops_everything() -> None:
    reader = Claim()
    as_member = Claim(uses=frozenset({"member_token"}))
    member_writer = Claim(slots=(("member_token", 1),))
    removes_member = Claim(control=True, touches=frozenset({"member_token"}))
    demotes_admin = Claim(control=True, touches=frozenset({"admin_token"}))
    clock = Claim(control=True, touches=frozenset({CLOCK}))
    assert removes_member.conflicts(as_member)
    assert removes_member.conflicts(member_writer)
    assert not removes_member.conflicts(reader), "a reader sending no member credential"
    assert not removes_member.conflicts(demotes_admin)
    assert clock.conflicts(reader)
    assert clock.conflicts(demotes_admin)
    assert Claim(exclusive=True).conflicts(reader)
    assert reader.conflicts(Claim(exclusive=True))


def test_an_approval_acts_as_the_admin() -> None:
    by_id = {s.id: s for s in builtin()}
    approval = claim_of(by_id["pat-approval"], controlled=True)
    demoted = claim_of(by_id["pat-lost-permission-demoted"], controlled=True)
    assert "admin_token" in approval.uses
    assert approval.conflicts(demoted), "a demoted admin cannot approve"


def test_the_control_phase_is_offered_first_then_writers_then_readers() -> None:
    chosen = _pick(
        "token-ok", "pat-create", "pat-approval", "pat-delete", "pat-cap", "pat-no-expiry"
    )
    claims = [claim_of(s, controlled=True) for s in chosen]
    order = [chosen[i].id for i in dispatch_order(chosen, claims)]
    assert order == [
        "pat-no-expiry",
        "pat-approval",
        "pat-cap",
        "pat-create",
        "pat-delete",
        "token-ok",
    ]


def test_conflicting_scenarios_never_overlap() -> None:
    chosen = list(builtin())
    claims = {s.id: claim_of(s, controlled=True) for s in chosen}
    lock = threading.Lock()
    active: set[str] = set()
    overlaps: list[tuple[str, str]] = []
    most: dict[str, int] = {"n": 0}

    def run_one(scenario: Scenario) -> ScenarioFinished:
        with lock:
            overlaps.extend(
                (scenario.id, other)
                for other in active
                if claims[scenario.id].conflicts(claims[other])
            )
            active.add(scenario.id)
            for key in ("admin_token", "member_token"):
                held = sum(claims[name].need(key) for name in active)
                most[key] = max(most.get(key, 0), held)
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
    assert most["admin_token"] <= SLOTS
    assert most["member_token"] <= SLOTS
    assert most["admin_token"] >= 2, "the admin's writers ran side by side"


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
    # The first scenario waits until both others have finished, so it finishes last.
    others_done = threading.Barrier(3)
    finished: list[str] = []

    def run_one(scenario: Scenario) -> ScenarioFinished:
        result = _result(scenario)
        if scenario.id == "token-ok":
            others_done.wait(WAIT)
            finished.append(scenario.id)
        else:
            finished.append(scenario.id)
            others_done.wait(WAIT)
        return result

    scheduler = Scheduler(chosen, run_one, workers=3, controlled=True)
    assert [s.id for s, _ in scheduler.results()] == [
        "token-ok",
        "token-grant-type",
        "auth-required",
    ]
    assert finished[-1] == "token-ok", "the first scenario finished last"


def test_an_error_in_a_worker_stops_the_run_and_reaches_the_caller() -> None:
    chosen = _pick("token-ok", "pat-cap", "pat-delete")
    started: list[str] = []

    def run_one(scenario: Scenario) -> ScenarioFinished:
        started.append(scenario.id)
        if scenario.id == "pat-cap":
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

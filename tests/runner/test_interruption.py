"""Ctrl-C and SIGTERM stop the scenarios, never the cleanup: the run still deletes what it
created and ends with its counts."""

from __future__ import annotations

import os
import signal
import threading

import httpx
import pytest

from patgate.harness import Fake
from patgate.runner import FakeTarget, LiveTarget, RunOptions, TargetConfig
from patgate.runner.engine import consume, run
from patgate.runner.interruption import RunInterrupted, SignalGuard, interrupt_exit_code
from patgate.runner.results.events import Event, Outcome, RunFinished, ScenarioFinished

from .support import builtin, finished, scenarios

CREATE_THEN_LIST = """\
id: create-then-list
title: Creates a token, then lists
rules: [PAT-SELF-ONLY]
steps:
  - name: create
    graphql: create_token
    args: {name: "${new_name}"}
    bearer: ${admin_token}
    expect:
      - ok: true
  - name: list
    graphql: viewer
    bearer: ${admin_token}
    expect:
      - ok: true
"""


def test_exit_codes_follow_the_signal() -> None:
    assert interrupt_exit_code("SIGINT") == 130
    assert interrupt_exit_code("SIGTERM") == 143


@pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(),
    reason="signals reach the main thread only: run pytest from a shell, not inside a thread",
)
def test_the_guard_raises_once_then_lets_cleanup_finish() -> None:
    before = signal.getsignal(signal.SIGTERM)
    notices: list[str] = []
    with pytest.raises(RunInterrupted) as raised, SignalGuard(notice=notices.append):
        os.kill(os.getpid(), signal.SIGTERM)  # this process, which the guard protects
    assert raised.value.signum == signal.SIGTERM
    assert isinstance(raised.value, KeyboardInterrupt)
    assert signal.getsignal(signal.SIGTERM) == before
    with SignalGuard(notice=notices.append) as guard:
        guard.received.append(signal.SIGINT)  # as if the first signal had come already
        os.kill(os.getpid(), signal.SIGTERM)  # noted, not raised: the cleanup goes on
    assert guard.received == [signal.SIGINT, signal.SIGTERM]
    assert "still cleaning up" in notices[0]
    assert signal.getsignal(signal.SIGTERM) == before


def test_a_signal_in_the_middle_of_a_scenario_leaves_no_token_behind() -> None:
    fake = Fake()
    inner = fake.httpx_transport()
    creates = {"n": 0}

    def stop_after_the_create(request: httpx.Request) -> httpx.Response:
        body = request.content.decode()
        if "createPersonalAccessToken" in body:
            creates["n"] += 1
        elif creates["n"] and "personalAccessTokens" in body and creates["n"] == 1:
            creates["n"] += 1
            raise RunInterrupted(signal.SIGTERM)
        return inner.handle_request(request)

    target = LiveTarget(
        TargetConfig(fake.world), transport=httpx.MockTransport(stop_after_the_create)
    )
    chosen = [*scenarios(CREATE_THEN_LIST), *(s for s in builtin() if s.id == "token-ok")]
    events = list(run(chosen, target, RunOptions(allow_writes=True)))
    end = events[-1]
    assert isinstance(end, RunFinished)
    results = {r.scenario_id: r for r in end.scenarios}
    assert results["create-then-list"].reason == "interrupted by SIGTERM while it ran"
    assert results["token-ok"].reason == "not run: the run was interrupted by SIGTERM"
    assert finished(events)["create-then-list"].outcome is Outcome.NOT_CHECKED
    assert "token-ok" not in finished(events), "a scenario never started gets no event"
    assert end.interrupted == "SIGTERM"
    assert end.exit_code == 143
    assert (end.tallies.tokens_created, end.tallies.tokens_leaked) == (1, 0)
    assert len(fake.deployment.tokens) == 4


def test_an_interrupt_in_a_reporter_reaches_the_run() -> None:
    fake = Fake()
    handled: list[Event] = []

    def reporter(event: Event) -> None:
        handled.append(event)
        if isinstance(event, ScenarioFinished) and len(handled) == 3:
            raise KeyboardInterrupt

    chosen = [s for s in builtin() if s.id in ("pat-create", "pat-delete", "token-ok")]
    end = consume(run(chosen, FakeTarget(fake)), reporter)
    assert end is not None
    assert end is handled[-1]
    assert end.interrupted == "SIGINT"
    assert end.exit_code == 130
    assert [s.outcome for s in end.scenarios] == [
        Outcome.PASSED,
        Outcome.NOT_CHECKED,
        Outcome.NOT_CHECKED,
    ]
    assert end.tallies.tokens_leaked == 0
    assert len(fake.deployment.tokens) == 4


def test_an_interrupt_after_the_run_finished_is_raised_again() -> None:
    def reporter(event: Event) -> None:
        if isinstance(event, RunFinished):
            raise KeyboardInterrupt

    chosen = [s for s in builtin() if s.id == "token-ok"]
    with pytest.raises(KeyboardInterrupt):
        consume(run(chosen, FakeTarget()), reporter)

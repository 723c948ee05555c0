"""A failure carries the line of its step and the request and answer behind it, redacted."""

from __future__ import annotations

import json
from dataclasses import asdict

from patgate.guards.redaction import REDACTED
from patgate.harness import Fake
from patgate.reporting.summary import describe_failure
from patgate.runner import FakeTarget
from patgate.runner.results.events import Outcome, RunStarted

from .support import builtin, finished, live, run_events, scenarios

LISTING = """\
id: listing
title: Lists the hubs
rules: [CONTENT-PAT]
steps:
  - name: a first step that passes
    token:
      client_id: ${client_id}
      client_secret: ${client_secret}
      grant_type: client_credentials
  - name: list the hubs with the admin's PAT
    hubs: true
    bearer: ${admin_token}
    expect:
      - status: 200
"""


def test_a_failure_names_its_steps_line_and_keeps_its_exchange_redacted() -> None:
    fake = Fake()
    fake.deployment.faults.add("hubs", status=500)
    events, _end = run_events(scenarios(LISTING), FakeTarget(fake))
    result = finished(events)["listing"]
    (failure,) = result.failures
    assert failure.line == 10  # "- name: list the hubs with the admin's PAT"
    exchange = failure.exchange
    assert exchange is not None
    assert exchange.method == "GET"
    assert exchange.url.endswith("/v2/content/hubs")
    assert ("authorization", f"Bearer {REDACTED}") in exchange.request_headers
    assert exchange.status == 500
    assert "fault injected" in exchange.response_body
    dumped = json.dumps(asdict(result))
    assert fake.world["admin_token"] not in dumped
    assert fake.world["client_secret"] not in dumped


def test_the_run_names_its_options_as_flags_for_the_report() -> None:
    events, _end = run_events(
        scenarios(LISTING), FakeTarget(), allow_writes=True, concurrency=2, require=("all",)
    )
    started = events[0]
    assert isinstance(started, RunStarted)
    assert started.flags[:3] == ("--allow-writes", "--require all", "--concurrency 2")
    assert "--max-wait 0" in started.flags


def test_a_failed_check_quotes_the_clause_its_rule_holds_the_target_to() -> None:
    fake = Fake()
    fake.deployment.faults.add("hubs", status=500)
    chosen = [s for s in builtin() if s.id == "auth-required"]
    events, _ = run_events(chosen, live(fake))
    result = finished(events)["auth-required"]
    assert result.outcome is Outcome.FAILED
    gate = next(f for f in result.failures if f.rule == "AUTH-REQUIRED")
    assert gate.clause.startswith('spec 1: "Every request to either API must carry')
    text = describe_failure(gate)
    assert "clause:   spec 1:" in text
    assert "expected: an error" in text
    assert "actual:   HTTP 500" in text

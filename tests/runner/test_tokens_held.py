"""Verdicts that do not depend on concurrency or on the tokens a user already holds.

A live deployment's admin holds tokens of their own. The run counts each principal's room
(the cap less what the deployment lists) before it starts, so concurrent scenarios never
take each other's slots; a create refused at the cap because someone outside the run took
the slot is a precondition unmet (not checked), never a failed rule, while a deployment that
refuses creates below the cap still fails.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import httpx
import pytest

from patgate.errors import TokenLimitReached
from patgate.fake.deployment import Deployment
from patgate.harness import Fake
from patgate.runner import LiveTarget, TargetConfig
from patgate.runner.results.events import Outcome, RunFinished

from .support import builtin, finished, run_events, scenarios

_OTHER_PREFIX = "theirs-"


class _Slow(httpx.BaseTransport):
    """The fake's transport behind a few milliseconds of latency, so that concurrent
    scenarios overlap as they would on a real network."""

    def __init__(self, inner: httpx.BaseTransport, delay: float = 0.003) -> None:
        self._inner = inner
        self._delay = delay

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        time.sleep(self._delay)
        return self._inner.handle_request(request)


def _admin_holding(fake: Fake, extra: int) -> list[str]:
    """Give the world's admin ``extra`` tokens of their own; their ids."""
    deployment = fake.deployment
    admin = deployment.authenticate(fake.world["admin_token"])
    return [
        deployment.create_token(admin, f"{_OTHER_PREFIX}{n}", admin.organization_id).id
        for n in range(extra)
    ]


def _token_ids(fake: Fake) -> set[str]:
    return set(fake.deployment.tokens)


def _verdicts(end: RunFinished) -> dict[str, tuple[str, str]]:
    return {rule.rule_id: (rule.outcome.value, rule.reason) for rule in end.rules}


@pytest.mark.slow
@pytest.mark.parametrize("extra", [0, 1, 2, 3])
def test_the_builtin_suite_gives_the_same_verdicts_at_every_concurrency(extra: int) -> None:
    # The admin holds 1 + extra tokens (the world's own and extra of their own).
    chosen = [s for s in builtin() if not s.waits]
    seen: dict[int, dict[str, tuple[str, str]]] = {}
    for concurrency in (1, 4, 8):
        fake = Fake()
        theirs = _admin_holding(fake, extra)
        before = _token_ids(fake)
        target = LiveTarget(TargetConfig(dict(fake.world)), transport=_Slow(fake.httpx_transport()))
        _, end = run_events(chosen, target, allow_writes=True, concurrency=concurrency)
        failed = [(r.rule_id, r.reason) for r in end.rules if r.outcome is Outcome.FAILED]
        assert failed == [], f"concurrency {concurrency}, {1 + extra} held: {failed}"
        assert not end.tallies.left_behind
        assert _token_ids(fake) == before, "nothing left, the user's own tokens untouched"
        assert set(theirs) <= _token_ids(fake)
        seen[concurrency] = _verdicts(end)
    assert seen[4] == seen[1]
    assert seen[8] == seen[1]


_CREATES_ONE = """\
id: creates-one
title: Creates one token as the admin
rules: [PAT-SELF-ONLY]
steps:
  - name: create
    graphql: create_token
    args: {name: "${new_name}"}
    bearer: ${admin_token}
    expect:
      - ok: true
    capture:
      made: data.createPersonalAccessToken.id
cleanup:
  - graphql: delete_token
    args: {id: "${made}"}
    bearer: ${admin_token}
"""


class _SomeoneElseCreates(httpx.BaseTransport):
    """Before the run's first create reaches the deployment, another user of the admin's
    account fills the admin's last free slots (as a colleague might, mid-run)."""

    def __init__(self, fake: Fake) -> None:
        self._fake = fake
        self._inner = fake.httpx_transport()
        self._done = threading.Event()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body: Any = json.loads(request.content) if request.content.startswith(b"{") else {}
        query = body.get("query", "") if isinstance(body, dict) else ""
        if "createPersonalAccessToken" in query and not self._done.is_set():
            self._done.set()
            deployment = self._fake.deployment
            admin = deployment.authenticate(self._fake.world["admin_token"])
            held = len([t for t in deployment.tokens.values() if t.user_id == admin.user_id])
            for n in range(5 - held):
                deployment.create_token(admin, f"{_OTHER_PREFIX}late-{n}", admin.organization_id)
        return self._inner.handle_request(request)


def test_a_slot_taken_outside_the_run_leaves_the_rule_not_checked() -> None:
    fake = Fake()
    target = LiveTarget(TargetConfig(dict(fake.world)), transport=_SomeoneElseCreates(fake))
    events, end = run_events(scenarios(_CREATES_ONE), target, allow_writes=True)
    result = finished(events)["creates-one"]
    assert result.outcome is Outcome.NOT_CHECKED
    assert "took the slot" in result.reason
    assert "held 5 tokens" in result.reason
    assert end.exit_code == 0
    assert not end.tallies.left_behind


class _RefusesEveryCreate(Deployment):
    """A broken deployment: every create is refused as if at the cap, below it too."""

    def create_token(self, principal: Any, name: str, organization_id: str) -> Any:
        raise TokenLimitReached("a user holds at most 5 tokens", rule_id="PAT-CAP")


def test_a_create_refused_below_the_cap_still_fails_the_rule() -> None:
    # The fault twin of the test above: the listing shows a free slot, so the refusal is
    # the deployment's, and the rule fails.
    fake = Fake(deployment=_RefusesEveryCreate())
    target = LiveTarget(TargetConfig(dict(fake.world)), transport=fake.httpx_transport())
    events, end = run_events(scenarios(_CREATES_ONE), target, allow_writes=True)
    result = finished(events)["creates-one"]
    assert result.outcome is Outcome.FAILED
    assert end.exit_code == 1

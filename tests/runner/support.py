"""Helpers for the runner's tests: scenarios from text, runs collected into lists."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from patgate.basics.resources import scenarios_dir
from patgate.harness import Fake
from patgate.runner import LiveTarget, RunOptions, TargetConfig, run
from patgate.runner.connection.config import Target
from patgate.runner.results.events import Event, RunFinished, ScenarioFinished
from patgate.scenario import Scenario, load_scenarios, load_text


@functools.lru_cache(maxsize=1)
def builtin() -> tuple[Scenario, ...]:
    return load_scenarios([scenarios_dir()])


def scenarios(text: str) -> tuple[Scenario, ...]:
    return load_text(text, "inline.yaml")


def run_events(
    chosen: Sequence[Scenario], target: Target, **options: Any
) -> tuple[list[Event], RunFinished]:
    events = list(run(chosen, target, RunOptions(**options)))
    last = events[-1]
    assert isinstance(last, RunFinished)
    return events, last


def finished(events: Sequence[Event]) -> dict[str, ScenarioFinished]:
    return {e.scenario_id: e for e in events if isinstance(e, ScenarioFinished)}


def live(fake: Fake, *, drop: Sequence[str] = (), **documents: str) -> LiveTarget:
    """The fake reached as a live target: no control, writes and waits restricted."""
    keys = {k: v for k, v in fake.world.items() if k not in drop}
    return LiveTarget(TargetConfig(keys, documents), transport=fake.httpx_transport())


# A scenario deleting a token the run did not create: the ledger must refuse it.
FOREIGN_DELETE = """\
id: delete-the-admins-token
title: Tries to delete a token the run did not create
rules: [PAT-DELETE]
steps:
  - name: find the admin's own token
    graphql: viewer
    bearer: ${admin_token}
    capture:
      theirs: data.viewer.personalAccessTokens[0].id
  - name: delete it
    graphql: delete_token
    args: {id: "${theirs}"}
    bearer: ${admin_token}
    expect:
      - ok: true
"""


def writer(scenario_id: str, key: str) -> str:
    """A scenario that creates a token as the holder of ``key``, lists, then deletes it."""
    return f"""\
id: {scenario_id}
title: Creates a token as {key}
rules: [PAT-SELF-ONLY]
steps:
  - name: create
    graphql: create_token
    args: {{name: "${{new_name}}"}}
    bearer: ${{{key}}}
    expect:
      - ok: true
    capture:
      made: data.createPersonalAccessToken.id
  - name: list
    graphql: viewer
    bearer: ${{{key}}}
    expect:
      - ok: true
cleanup:
  - name: delete it
    graphql: delete_token
    args: {{id: "${{made}}"}}
    bearer: ${{{key}}}
"""

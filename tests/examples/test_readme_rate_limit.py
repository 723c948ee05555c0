"""The rate-limit example (docs/how-to/faults-and-clock.md, "Faults from Python") passes whatever
the wall clock.

Its burst of 61 GraphQL requests once got 200 for the last one now and then: the limit counted
in windows aligned to the clock's minutes, and the fake's clock follows real time, so a burst
that straddled the turn of a minute was counted as two. Here the README's own test function
runs 200 times in a row in-process (10 without ``--run-slow``), on the fake's clock as the
fixture makes it (following real time), placed just before the turn of a minute at the burst's
first request and moved on to it at a chosen request (0 to 60 before it), so that the burst
straddles the turn (the aligned windows fail this at the first run that does: checked by
hand).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from patgate.fake.clock import Clock
from patgate.fake.faults import RATE_LIMIT_PER_MINUTE as LIMIT
from patgate.fake.faults import CallSite, FaultAction
from patgate.harness import Fake
from tests.examples.test_readme_sections import SECTIONS, _blocks

SECTION = "## Faults from Python"
PAGE = SECTIONS[SECTION]
EXAMPLE = "test_the_rate_limit_switch"
BEFORE_THE_TURN = 5.0
"""Seconds from a burst's first request to the turn of the minute unless the test moves the
clock on: a hundred times what a burst takes in-process, so the turn falls where it is put."""


def _readme_example() -> Callable[[Fake, dict[str, str]], Any]:
    """The page's test function, compiled from the section's block that defines it."""
    readme = PAGE.read_text(encoding="utf-8")
    for block in _blocks(SECTION):
        if f"\ndef {EXAMPLE}(" in block:
            # Blank lines first, so that a failure names the page's own line.
            padded = "\n" * readme[: readme.index(block)].count("\n") + block
            namespace: dict[str, Any] = {}
            code = compile(padded, str(PAGE), "exec")
            exec(code, namespace)  # noqa: S102 - the page's own code, as its users run it
            example: Callable[[Fake, dict[str, str]], Any] = namespace[EXAMPLE]
            return example
    raise AssertionError(f"{PAGE.name}'s {SECTION!r} section lost {EXAMPLE}")


def _advance_to(clock: Clock, moment: float) -> None:
    """Move ``clock`` (which follows real time) on to ``moment``, if it is not there yet."""
    clock.advance(max(0.0, moment - clock.timestamp()))


@pytest.mark.parametrize("runs", [10, pytest.param(200, marks=pytest.mark.slow)])
def test_the_readme_rate_limit_example_passes_across_the_turn_of_a_minute(
    runs: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    example = _readme_example()
    with Fake() as fake:  # the patgate_fake fixture's fake: its clock follows real time
        asked_at: list[float] = []  # the fake's time of each GraphQL request of a run
        turn, turn_at = 0.0, 0  # a run's turn of the minute, and the request that meets it
        decide = fake.faults.decide

        def on_the_clock(call: CallSite) -> FaultAction | None:
            nonlocal turn
            if "graphql" in call.endpoints:
                if not asked_at:  # the burst's first request: the minute turns in 5 s
                    turn = (fake.clock.timestamp() // 60 + 1) * 60
                    _advance_to(fake.clock, turn - BEFORE_THE_TURN)
                if len(asked_at) == turn_at:  # the burst, still this fast, meets the turn
                    _advance_to(fake.clock, turn + 1e-5)  # past it, whatever the rounding
                asked_at.append(fake.clock.timestamp())
            return decide(call)

        monkeypatch.setattr(fake.faults, "decide", on_the_clock)
        for run in range(runs):
            turn_at = (run * 7) % (LIMIT + 1)  # 0 to 60 requests before the turn
            asked_at.clear()
            example(fake, fake.world)
            before = [moment for moment in asked_at[: LIMIT + 1] if moment < turn]
            assert len(before) == turn_at, f"run {run}: the minute turned elsewhere"

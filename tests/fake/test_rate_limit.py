"""The GraphQL rate limit counts each key in a window of its own, opened by its first request.

A window aligned to the clock's minutes splits a burst that straddles the turn of a minute,
so a client's test of its back-off saw the 429 or not depending on the wall clock. Each test
here places the fake's clock a millisecond before a minute turns; the aligned arithmetic
fails every case whose burst crosses the turn (checked by hand: the 61st request was let
through, with a ``Retry-After`` counted to the turn of the minute).
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from patgate.fake.clock import Clock
from patgate.fake.faults import _MAX_KEYS, RATE_LIMIT_PER_MINUTE, CallSite, FaultAction, Faults

LIMIT = RATE_LIMIT_PER_MINUTE
# A millisecond before 12:01:00: the minute turns during any burst that crosses it.
BEFORE_THE_TURN = datetime(2026, 1, 1, 12, 0, 59, 999000, tzinfo=timezone.utc)


def _limited(clock: Clock) -> Faults:
    faults = Faults(clock)
    faults.set_rate_limit(True)
    return faults


def _ask(faults: Faults, key: str = "key-a") -> FaultAction | None:
    return faults.decide(CallSite(("graphql",), "Who", "user-1", key))


def _retry_after(action: FaultAction | None) -> int | None:
    """The refusal's ``Retry-After``; ``None`` when the request was let through."""
    return None if action is None else action.retry_after


def _burst(faults: Faults, count: int, key: str = "key-a") -> list[FaultAction | None]:
    return [_ask(faults, key) for _ in range(count)]


@pytest.mark.parametrize("before_the_turn", [0, 1, LIMIT // 2, LIMIT - 1, LIMIT])
def test_a_burst_one_over_the_limit_is_refused_whenever_the_minute_turns(
    before_the_turn: int,
) -> None:
    clock = Clock(BEFORE_THE_TURN)
    faults = _limited(clock)
    answers = _burst(faults, before_the_turn)
    clock.advance(0.002)  # the minute turns between two requests of the burst
    answers += _burst(faults, LIMIT + 1 - before_the_turn)
    assert answers[:LIMIT] == [None] * LIMIT
    refused = answers[LIMIT]
    assert refused is not None
    assert (refused.rule_id, refused.status) == ("rate-limit", 429)


def test_a_burst_spread_over_most_of_a_minute_is_refused_at_its_last_request() -> None:
    clock = Clock(BEFORE_THE_TURN)
    faults = _limited(clock)
    answers = []
    for _ in range(LIMIT + 1):  # 0.9 s apart: 54 s in all, across the turn of a minute
        answers.append(_ask(faults))
        clock.advance(0.9)
    assert answers[:LIMIT] == [None] * LIMIT
    assert _retry_after(answers[LIMIT]) == 6  # 60 s from the first request; 54 s have gone


def test_retry_after_is_the_seconds_left_in_the_keys_own_window() -> None:
    clock = Clock(BEFORE_THE_TURN)
    faults = _limited(clock)
    assert _ask(faults, "key-a") is None  # opens key-a's window
    clock.advance(20.5)
    assert _retry_after(_burst(faults, LIMIT, "key-a")[-1]) == 40  # 39.5 s left, rounded up
    # key-b's window opened just now: all of it is left.
    assert _retry_after(_burst(faults, LIMIT + 1, "key-b")[-1]) == 60
    clock.advance(39.499)
    assert _retry_after(_ask(faults, "key-a")) == 1  # a millisecond left: never 0


def test_moving_the_clock_to_the_end_of_the_window_starts_a_new_one() -> None:
    clock = Clock(BEFORE_THE_TURN)
    faults = _limited(clock)
    assert _burst(faults, LIMIT, "key-a") == [None] * LIMIT
    clock.advance(59.999)
    assert _ask(faults, "key-a") is not None  # still the first window
    clock.advance(0.001)  # the window ends: back-off done
    assert _burst(faults, LIMIT, "key-a") == [None] * LIMIT
    assert _ask(faults, "key-a") is not None


def test_a_new_window_opens_at_the_next_request_not_where_the_last_one_ended() -> None:
    clock = Clock(BEFORE_THE_TURN)
    faults = _limited(clock)
    assert _ask(faults) is None
    clock.advance(100)  # the first window ended 40 s ago; this request opens the next
    assert _ask(faults) is None
    clock.advance(50)
    assert _retry_after(_burst(faults, LIMIT)[-1]) == 10


def test_switching_the_limit_on_again_starts_every_key_afresh() -> None:
    faults = _limited(Clock(BEFORE_THE_TURN))
    assert _burst(faults, LIMIT + 1)[-1] is not None
    faults.set_rate_limit(True)
    assert _burst(faults, LIMIT) == [None] * LIMIT


def test_the_windows_kept_are_bounded_and_the_oldest_go_first() -> None:
    clock = Clock(BEFORE_THE_TURN)
    faults = _limited(clock)
    assert _ask(faults, "early") is None
    clock.advance(30)
    assert _burst(faults, LIMIT, "busy") == [None] * LIMIT
    clock.advance(31)  # early's window has ended, busy's has 29 s left
    for number in range(_MAX_KEYS - 2):
        _ask(faults, f"caller-{number}")
    assert _ask(faults, "busy") is not None  # busy still counted: early's window made room
    for number in range(2 * _MAX_KEYS):
        _ask(faults, f"flood-{number}")
    assert faults.rate_limit_windows <= _MAX_KEYS
    assert _ask(faults, "busy") is None  # pushed out by the flood: it starts afresh


def test_a_clock_put_back_before_a_window_opens_a_new_one() -> None:
    clock = Clock(BEFORE_THE_TURN)
    clock.advance(120)
    faults = _limited(clock)
    assert _burst(faults, LIMIT + 1)[-1] is not None
    clock.set_offset(0)  # a restored state: two minutes earlier than the window's start
    assert _burst(faults, LIMIT) == [None] * LIMIT
    assert _retry_after(_ask(faults)) == 60

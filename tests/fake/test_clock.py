from datetime import datetime, timezone

import pytest

from patgate.fake.clock import Clock, format_timestamp

START = datetime(2023, 11, 21, 14, 36, 0, 916000, tzinfo=timezone.utc)


def test_a_frozen_clock_moves_only_when_advanced() -> None:
    clock = Clock(START)
    assert clock.now() == START
    clock.advance(300)
    assert (clock.now() - START).total_seconds() == 300


def test_the_clock_never_moves_backwards() -> None:
    with pytest.raises(ValueError, match="only moves forward"):
        Clock(START).advance(-1)


def test_a_naive_start_is_refused() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        Clock(datetime(2023, 1, 1))


def test_timestamps_are_utc_with_milliseconds_and_z() -> None:
    assert format_timestamp(START) == "2023-11-21T14:36:00.916Z"

"""The world-size benchmark's hub read and the PAT cycle run and report both sides (speed
is judged by ``python -m benchmarks``, side by side, never by a timed test)."""

from __future__ import annotations

import importlib.util

import pytest
from benchmarks import pat_cycle, world_scale
from benchmarks.registry import Plan

from tests.counterparts import need_counterpart


@pytest.mark.slow
def test_the_read_hub_benchmark_reads_a_hub_among_a_hundred_thousand_and_among_three() -> None:
    result = world_scale._read_hub(Plan(quick=True), rounds=2)
    assert result.name == "world_read_hub"
    assert result.b is not None
    assert result.ratio is not None
    assert result.a.samples == result.b.samples == 2
    assert "100,000 hubs" in result.a_label
    assert "3 hubs" in result.b_label


@pytest.mark.slow
def test_the_pat_cycle_benchmark_times_both_cycles_and_says_where_the_fakes_time_goes() -> None:
    need_counterpart(
        importlib.util.find_spec("moto") is not None,
        "needs moto, the PAT cycle's reference: pip install -e '.[bench]'",
    )
    (result,) = pat_cycle.run(Plan(quick=True, rounds=1))
    assert result.name == "pat_cycle"
    assert result.b is not None
    assert result.ratio is not None
    assert "handler" in result.note
    assert "canned" in result.note
    # The replaying transport ran the same cycle, the fake's answers given back, not a stub.
    assert "replaying the fake's answers" in result.note
    assert "in place" in result.note

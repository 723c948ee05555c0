"""The calibrate + compare benchmark runs in its short mode: both sides timed each round,
through the delaying proxy, with the requests each sent."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_benchmark_command import _benchmarks


@pytest.mark.slow
def test_the_calibrate_compare_benchmark_times_both_sides(tmp_path: Path) -> None:
    document = _benchmarks(tmp_path, "--quick", "--rounds", "1", "--only", "calibrate_compare")
    [result] = document["results"]
    assert result["name"] == "calibrate_compare"
    assert result["a"]["samples"] == result["b"]["samples"] == 1
    assert result["verdict"] in ("met", "missed", "unsteady")
    requests = result["details"]["requests"]
    assert requests["pair"] > 0
    assert requests["run"] > 0

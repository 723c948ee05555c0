"""The overlap benchmark runs in its short mode: the built-in run through the delaying proxy,
beside the sequential floor its counted requests make."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_benchmark_command import _benchmarks


@pytest.mark.slow
def test_the_run_concurrency_benchmark_times_the_run_against_its_sequential_floor(
    tmp_path: Path,
) -> None:
    document = _benchmarks(tmp_path, "--quick", "--rounds", "1", "--only", "run_concurrency")
    [result] = document["results"]
    assert result["name"] == "run_concurrency"
    assert result["a"]["samples"] == 1
    # The floor is the counted requests times the proxy's delay: never zero.
    assert result["b"]["median"] > 0
    assert result["verdict"] in ("met", "missed", "unsteady")
    assert "sequential floor" in result["note"]

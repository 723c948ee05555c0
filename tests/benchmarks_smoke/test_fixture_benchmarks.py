"""The per-test and memory benchmarks run and report their figures (not asserted: speed and
memory are judged by ``python -m benchmarks``, side by side, never by a timed test)."""

from __future__ import annotations

import pytest
from benchmarks import memory, per_test, profile_start
from benchmarks.registry import Plan


@pytest.mark.slow
def test_the_per_test_benchmark_reports_each_library_and_the_first_tests_cost() -> None:
    results = {r.name: r for r in per_test.run(Plan(quick=True, rounds=1))}
    assert set(results) == {"per_test", "per_test_respx", "per_test_requests", "first_test"}
    for name in ("per_test", "per_test_respx", "per_test_requests"):
        assert results[name].ratio is not None
        assert results[name].a.median > 0
        assert results[name].b is not None
    assert results["per_test"].b_label.startswith("pytest-httpx")
    assert results["per_test_requests"].b_label.startswith("responses")
    assert results["first_test"].a.samples == 1
    # The sessions that explain the figures ran too: a reused fake and pytest-httpx
    # answering the fake's own page (a whole HAL page, not the tiny canned one).
    assert "one fake reused by every test" in results["per_test"].note
    assert "fake's own hubs page" in results["per_test"].note
    page_bytes = int(
        results["per_test"].note.split("hubs page (")[1].split(" bytes")[0].replace(",", "")
    )
    assert page_bytes > 1000
    assert "through requests" in results["per_test_requests"].note


@pytest.mark.slow
def test_the_memory_benchmark_measures_each_library() -> None:
    results = {r.name: r for r in memory.run(Plan(quick=True, rounds=1))}
    assert set(results) == {"memory", "memory_requests"}
    assert results["memory"].b is not None
    # respx records every call; the fake keeps a bounded log: the reference grows more.
    assert results["memory"].b.median > results["memory"].a.median


@pytest.mark.slow
def test_the_profile_start_benchmark_times_both_starts_side_by_side() -> None:
    [result] = profile_start.run(Plan(quick=True, rounds=2))
    assert result.name == "profile_start"
    assert result.a.samples == 2
    assert result.b is not None
    assert result.b.samples == 2
    assert result.ratio is not None
    assert result.verdict in ("met", "missed", "unsteady")
    assert result.details["first_read_ms"]  # the one-off first read is reported apart


def test_the_profile_start_benchmarks_profile_differs_from_the_default_everywhere() -> None:
    import yaml

    from patgate.fake.profile import default_profile, load_profile

    profiled = load_profile(yaml.safe_load(profile_start.PROFILE)).as_document()
    default = default_profile().as_document()
    assert [
        key for key in default if key != "profile_version" and profiled[key] == default[key]
    ] == []

"""The profile_shapes benchmark times both pairs side by side and its shaped answer is real."""

from __future__ import annotations

from benchmarks import profile_shapes
from benchmarks.registry import Plan


def test_the_profile_shapes_benchmark_times_the_start_and_the_request_pairs() -> None:
    start, request = profile_shapes.run(Plan(quick=True, rounds=2))
    assert (start.name, request.name) == ("profile_shapes_start", "profile_shapes_request")
    for result in (start, request):
        assert result.goal is not None
        assert result.goal.threshold == 1.10


def test_its_request_profile_renders_every_date_and_adds_a_key() -> None:
    page = {
        "_embedded": {"hubs": [{"id": "h", "createdDate": "2026-01-01T00:00:00.000Z"}]},
        "page": {"size": 20},
    }
    shape = profile_shapes.request_profile(page)["shapes"]["hubs_page"]["body"]
    hub = shape["keys"]["_embedded"]["keys"]["hubs"]["items"]["keys"]
    assert hub["createdDate"]["form"] == "date-time/microseconds/+00:00"
    assert hub["region"]["sample"] == "eu-west-1"

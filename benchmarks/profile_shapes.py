"""Profile shapes: what a profile with shapes and knobs costs a fake, side by side with the
default profile, in one run.

Two pairs, each timed interleaved in batches:

- start: ``Fake(profile=FILE)`` (the start-up benchmark's profile: every knob other than
  the default's, shapes for the hub and the hubs page), started and stopped, beside
  ``Fake()``. Goal: at most 1.1x (per-round ratio): a profile file is read and checked once.
- request: one ``GET /v2/content/hubs`` through httpx with a PAT, answered by a fake whose
  profile shapes the hubs page (every key the fake serves, one more with a sample, every
  date rewritten in microseconds with ``+00:00``: the renderer's whole work), beside the
  default fake's. Goal: at most 1.1x.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from benchmarks.profile_start import PROFILE
from benchmarks.registry import Benchmark, Plan
from benchmarks.timing import Goal, Result, Side, compare, interleave

__all__ = ["BENCHMARKS", "request_profile", "run"]

GOAL_RATIO = 1.10


def _dates_rewritten(node: dict[str, Any]) -> dict[str, Any]:
    """``node`` with every date-time form in microseconds and ``+00:00``."""
    if node.get("form", "").startswith("date-time/"):
        return {**node, "form": "date-time/microseconds/+00:00"}
    shaped = dict(node)
    if "keys" in node:
        shaped["keys"] = {name: _dates_rewritten(child) for name, child in node["keys"].items()}
    if "items" in node:
        shaped["items"] = _dates_rewritten(node["items"])
    return shaped


def request_profile(page: dict[str, Any]) -> dict[str, Any]:
    """A profile whose hubs page shape is ``page``'s own, every date rewritten, one key more."""
    from patgate.fake.answer_shapes import shape_of

    body = _dates_rewritten(shape_of(page))
    hubs = body["keys"]["_embedded"]["keys"]["hubs"]["items"]
    hubs["keys"]["region"] = {"type": "string", "form": "text", "sample": "eu-west-1"}
    return {"profile_version": 1, "shapes": {"hubs_page": {"body": body}}}


def _start(plan: Plan, folder: Path) -> Result:
    from patgate import Fake

    profile = folder / "profile.yaml"
    profile.write_text(PROFILE, encoding="utf-8")

    def profiled() -> None:
        with Fake(profile=profile) as fake:
            assert fake.profile.shapes

    def default() -> None:
        with Fake() as fake:
            assert not fake.profile.shapes

    batch = plan.pick(50, 10)
    shaped, plain = interleave(
        Side("profile", profiled),
        Side("default", default),
        rounds=plan.rounds_for(30, 8),
        batch=batch,
        warmup=2,
    )
    return compare(
        name="profile_shapes_start",
        title="Fake start and stop with a profile of shapes and knobs, beside the default",
        unit="ms",
        a_label="Fake(profile=FILE with shapes and knobs)",
        a=[sample * 1000 for sample in shaped],
        b_label="Fake()",
        b=[sample * 1000 for sample in plain],
        ratio_label="profile / default",
        goal=Goal("ratio", "<=", GOAL_RATIO, "profile / default"),
        details={"batch": batch},
    )


def _request(plan: Plan) -> Result:
    import httpx

    from patgate import Fake

    default = Fake()
    world = default.world
    auth = {"Authorization": f"Bearer {world['admin_token']}"}
    url = world["base_url"] + "/v2/content/hubs"
    with httpx.Client(transport=default.httpx_transport()) as plain_http:
        page = plain_http.get(url, headers=auth).json()
    shaped = Fake(profile=request_profile(page))
    shaped_auth = {"Authorization": f"Bearer {shaped.world['admin_token']}"}
    shaped_url = shaped.world["base_url"] + "/v2/content/hubs"
    with (
        httpx.Client(transport=default.httpx_transport()) as plain_http,
        httpx.Client(transport=shaped.httpx_transport()) as shaped_http,
    ):
        assert (
            "region"
            in shaped_http.get(shaped_url, headers=shaped_auth).json()["_embedded"]["hubs"][0]
        )

        def get_shaped() -> None:
            assert shaped_http.get(shaped_url, headers=shaped_auth).status_code == 200

        def get_plain() -> None:
            assert plain_http.get(url, headers=auth).status_code == 200

        batch = plan.pick(100, 20)
        samples_shaped, samples_plain = interleave(
            Side("shaped", get_shaped),
            Side("default", get_plain),
            rounds=plan.rounds_for(30, 8),
            batch=batch,
        )
    return compare(
        name="profile_shapes_request",
        title="One hubs GET through a profile's shape, beside the default profile's",
        unit="ms",
        a_label="hubs page rendered through its shape",
        a=[sample * 1000 for sample in samples_shaped],
        b_label="the default profile's hubs page",
        b=[sample * 1000 for sample in samples_plain],
        ratio_label="shaped / default",
        goal=Goal("ratio", "<=", GOAL_RATIO, "shaped / default"),
        details={"batch": batch, "hubs": len(page["_embedded"]["hubs"])},
    )


def run(plan: Plan) -> list[Result]:
    """The start pair, then the request pair."""
    with tempfile.TemporaryDirectory(prefix="patgate-bench-") as name:
        started = _start(plan, Path(name))
    return [started, _request(plan)]


BENCHMARKS = [
    Benchmark(
        "profile_shapes",
        run,
        order=32,
        description="a fake's start and a request with a profile of shapes and knobs",
    )
]

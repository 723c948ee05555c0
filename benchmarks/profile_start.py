"""Profile start: what a profile adds to a fake's start, side by side with the default's.

Each side builds a ``Fake``, starts it (interception of httpx and requests) and stops it, in
batches, alternating: one with no profile (the shipped default), one with
``profile=<a YAML file>`` that differs from the default on every field (an object delete
result, other refusals, page sizes, ...), as ``@pytest.mark.patgate(profile=...)`` gives
one per test. Goal: the profiled start within 10 % of the default's (per-round ratio): a
profile file is read and checked once and then reused while it is unchanged on disk.

The first read of a profile (YAML, the JSON Schema, the documented-rule checks) is a
one-off per file and per change; it is timed apart, in ``details``.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from benchmarks.registry import Benchmark, Plan
from benchmarks.timing import Goal, Result, Side, compare, interleave, stats

__all__ = ["BENCHMARKS", "PROFILE", "run"]

GOAL_RATIO = 1.10

PROFILE = """\
profile_version: 1
delete_result:
  shape: object
  object_type: TokenDeletion
  fields: {id: token_id, deleted: "true", name: name}
masked_token: {visible_characters: 4, mask_width: 12}
refusals:
  unauthenticated: {status: 401, code: AUTH_FAILED, message: Authentication failed}
  forbidden: {status: 401, code: ACCESS_DENIED, message: Access denied}
  not_found: {status: 400, code: TOKEN_NOT_FOUND, message: Not found}
  token_limit: {status: 400, code: QUOTA_EXCEEDED, message: Quota exceeded}
  invalid_input: {status: 422, code: VALIDATION_ERROR, message: Invalid input}
  rate_limited: {status: 429, code: THROTTLED, message: Slow down}
client_token: {expires_in: 600, token_type: null}
hubs:
  fields: [id, name, label, createdDate]
  links: [self]
  date_precision: microseconds
  order: name_ascending
pages: {default_size: 10, maximum_size: 50, over_maximum: cut, links: [self, next]}
rate_limit: {requests_per_minute: 120, announce: ratelimit_headers}
pat_name: {max_length: 64}
listing_order: created_descending
date_precision: {lastUsedDate: microseconds}
last_used_date: {update_interval_seconds: 3600}
date_offset: {lastUsedDate: "+00:00", hubs: "+00:00"}
pat_creation: {client_credentials: refused}
graphql: {refusal_status: refusal}
content_errors: {format: problem+json}
refusal_messages:
  delete_token: {not_found: No such personal access token}
  hub: {not_found: No such hub}
accepted:
  - field: shapes.hub.body.keys.region
    reason: a field of this deployment alone
    expires: 2099-12-31
shapes:
  hub:
    body:
      type: object
      keys:
        id: {type: string, form: text}
        name: {type: string, form: text}
        label: {type: string, form: text}
        createdDate: {type: string, form: date-time/milliseconds/+00:00}
        region: {type: string, form: text, sample: eu-west-1}
        _links: {type: object}
  hubs_page:
    body:
      type: object
      keys:
        _embedded:
          type: object
          keys:
            hubs:
              type: array
              items:
                type: object
                keys:
                  id: {type: string, form: text}
                  name: {type: string, form: text}
                  createdDate: {type: string, form: date-time/milliseconds/+00:00}
                  _links: {type: object}
        _links: {type: object}
        page: {type: object}
"""
"""A profile other than the default on every field."""


def _first_reads(folder: Path, count: int) -> list[float]:
    """Milliseconds of ``load_profile`` on files it has not read before."""
    from patgate.fake.profile import load_profile

    samples = []
    for number in range(count):
        path = folder / f"first-{number}.yaml"
        path.write_text(PROFILE + f"# {number}\n", encoding="utf-8")
        started = time.perf_counter()
        load_profile(path)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def run(plan: Plan) -> list[Result]:
    """Fake starts with and without a profile file, alternating batch by batch."""
    from patgate import Fake

    rounds = plan.rounds_for(30, 8)
    batch = plan.pick(50, 10)
    with tempfile.TemporaryDirectory(prefix="patgate-bench-") as name:
        folder = Path(name)
        profile = folder / "profile.yaml"
        profile.write_text(PROFILE, encoding="utf-8")

        def profiled() -> None:
            with Fake(profile=profile) as fake:
                assert fake.profile.delete_result.is_object

        def default() -> None:
            with Fake() as fake:
                assert not fake.profile.delete_result.is_object

        samples_profiled, samples_default = interleave(
            Side("profile", profiled),
            Side("default", default),
            rounds=rounds,
            batch=batch,
            warmup=2,
        )
        first = _first_reads(folder, plan.pick(20, 5))
    return [
        compare(
            name="profile_start",
            title="Fake start and stop with a profile file, beside the default profile",
            unit="ms",
            a_label="Fake(profile=FILE)",
            a=[sample * 1000 for sample in samples_profiled],
            b_label="Fake()",
            b=[sample * 1000 for sample in samples_default],
            ratio_label="profile / default",
            goal=Goal("ratio", "<=", GOAL_RATIO, "profile / default"),
            details={"first_read_ms": stats(first).text(), "batch": batch},
        )
    ]


BENCHMARKS = [
    Benchmark("profile_start", run, order=31, description="a fake's start with a profile file")
]

"""Compare right after calibrate is exact and quiet, and a deployment that differs on one
field drifts on that field alone.

The independent deployment (tests/independent/) is calibrated once per set of choices; the
fake of that profile is probed once; then each twin deployment (the same choices but one)
is probed and compared with it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pytest

from patgate.calibration.comparison import (
    Comparison,
    compare_results,
    held_keys,
    probe_fake,
    probe_live,
)
from patgate.calibration.probes import ProbeResult
from patgate.calibration.profile_document import calibrated_document
from patgate.fake.profile import default_profile, load_profile
from patgate.runner.connection.config import TargetConfig
from patgate.runner.context import RunOptions
from patgate.runner.session import target_redactor

from ..independent.deployment import SECOND_CHOICES, running_independent_deployment
from ..independent.open_choices import merged_over

EVERY_USE = {"last_used_date": {"update_interval_seconds": 0}}
"""lastUsedDate moving on every use: no probe waits a minute to see it."""

CREATED_ORDER = {"hubs": {"order": "created_ascending"}}
"""The hubs' order of the twins' baseline: one the profile holds."""


def _probe(choices: Mapping[str, Any], ledger: Any) -> tuple[ProbeResult, frozenset[str]]:
    chosen = merged_over(EVERY_USE, choices)
    with running_independent_deployment(choices=chosen) as deployment:
        config = TargetConfig(deployment.world)
        options = RunOptions(allow_writes=True, ledger_path=ledger)
        result, tallies = probe_live(config, options, target_redactor(config))
        assert not tallies.left_behind
        return result, held_keys(config)


def _calibrated(
    choices: Mapping[str, Any], ledger: Any
) -> tuple[ProbeResult, ProbeResult, dict[str, Any]]:
    """The deployment's probes, the probes of the fake calibrated from them, and the
    calibrated profile's document (what compare reads beside the fake's answers)."""
    target, keys = _probe(choices, ledger)
    default = probe_fake(None, keys, allow_writes=True)
    calibration = calibrated_document(target, default, default_profile().as_document())
    document = load_profile(calibration.document).as_document()
    return target, probe_fake(calibration.document, keys, allow_writes=True), document


def _drift(comparison: Comparison) -> dict[str, Any]:
    return {d.field: (d.fake, d.target) for d in comparison.drift}


@pytest.fixture(scope="module")
def first(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[ProbeResult, ProbeResult, dict[str, Any]]:
    """The first independent deployment (hubs in a profile's order) and its calibrated
    fake: the twins' baseline."""
    return _calibrated(CREATED_ORDER, tmp_path_factory.mktemp("first") / "ledger.jsonl")


@pytest.mark.parametrize("choices", [CREATED_ORDER, SECOND_CHOICES], ids=["independent", "second"])
def test_compare_right_after_calibrate_is_quiet_with_nothing_accepted(
    choices: Mapping[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    target, fake, profile = _calibrated(choices, tmp_path_factory.mktemp("bare") / "ledger.jsonl")
    comparison = compare_results(target, fake, profile=profile)
    assert _drift(comparison) == {}
    assert comparison.exit_code == 0


_CONTENT_SHAPES = r"shapes\.refusal\.content\..*"
_TEXT = {"type": "string", "form": "text"}
_DATE = {"type": "string", "form": "date-time/milliseconds/Z"}
HUB_WITH_PLAN: dict[str, Any] = {
    "status": 200,
    "content_type": "application/hal+json",
    "headers": [],
    "body": {
        "type": "object",
        "keys": {
            **dict.fromkeys(("id", "name", "label", "status", "createdBy"), _TEXT),
            "createdDate": _DATE,
            "lastModifiedBy": _TEXT,
            "lastModifiedDate": _DATE,
            "plan": {"type": "string", "form": "text", "sample": "enterprise"},
            "_links": {
                "type": "object",
                "keys": {
                    "self": {"type": "object", "keys": {"href": {"type": "string", "form": "uri"}}}
                },
            },
        },
    },
}
"""The first deployment's hub record with a ``plan`` the fake does not know."""
TWINS: dict[str, tuple[dict[str, Any], str]] = {
    "token_type absent": (
        {"client_token": {"token_type": None}},
        r"client_token\.token_type|shapes\.token\.body\.keys\.token_type",
    ),
    "token extra field": (
        {
            "shapes": {
                "token": {
                    "status": 200,
                    "content_type": "application/json",
                    "headers": [],
                    "body": {
                        "type": "object",
                        "keys": {
                            "access_token": {"type": "string", "form": "jwt"},
                            "token_type": {"type": "string", "form": "text"},
                            "expires_in": {"type": "integer"},
                            "session_expires_in": {"type": "integer"},
                            "scope": {"type": "string", "form": "text"},
                            "tenant": {"type": "string", "form": "text", "sample": "eu"},
                        },
                    },
                }
            }
        },
        r"shapes\.token\.body\.keys\.tenant",
    ),
    "problem+json": (
        {"content_errors": {"format": "problem+json"}},
        rf"content_errors\.format|{_CONTENT_SHAPES}",
    ),
    "lastUsedDate microseconds": (
        {"date_precision": {"lastUsedDate": "microseconds"}},
        r"date_precision\.lastUsedDate",
    ),
    "lastUsedDate +00:00": (
        {"date_offset": {"lastUsedDate": "+00:00"}},
        r"date_offset\.lastUsedDate",
    ),
    "hub dates +00:00": (
        {"date_offset": {"hubs": "+00:00"}},
        r"date_offset\.hubs|shapes\.(hub|hubs_page)\..*\.form",
    ),
    "GraphQL refusal status": (
        {"graphql": {"refusal_status": "refusal"}},
        r"graphql\.refusal_status|graphql_refusal_status\..*|refusals\.token_limit\.status",
    ),
    "page over the maximum cut": ({"pages": {"over_maximum": "cut"}}, r"pages\.over_maximum"),
    "hubs by name descending": ({"hubs": {"order": "name_descending"}}, r"hubs\.order"),
    "every page link": (
        {"pages": {"links": ["self", "first", "prev", "next", "last"]}},
        r"pages\.links|shapes\.hubs_page\.body\.keys\._links\..*",
    ),
    "announced rate limit": (
        {"rate_limit": {"requests_per_minute": 1200, "announce": "ratelimit_headers"}},
        r"rate_limit\.(announce|requests_per_minute)",
    ),
    "hub extra field": (
        {"shapes": {"hub": HUB_WITH_PLAN}},
        r"shapes\.hub\.body\.keys\.plan|shapes\.hubs_page\..*\.keys\.plan|hubs\.fields",
    ),
    "masked form": ({"masked_token": {"visible_characters": 6}}, r"masked_token\..*"),
    "name limit": ({"pat_name": {"max_length": 80}}, r"pat_name\.max_length"),
    "token listing order": ({"listing_order": "name_ascending"}, r"listing_order"),
    "delete result": ({"delete_result": {"shape": "boolean"}}, r"delete_result\..*"),
    "refusal code": (
        {"refusals": {"forbidden": {"code": "NOT_YOURS"}}},
        r"refusals\.forbidden\.code",
    ),
    "token lifetime": ({"client_token": {"expires_in": 600}}, r"client_token\.expires_in"),
    "a refusal's wording in one operation": (
        {"refusal_messages": {"create_token": {"forbidden": "Only admins make tokens."}}},
        r"refusal_messages\.create_token\.forbidden",
    ),
    "content refusal wording": (
        {"refusal_messages": {"hub": {"not_found": "No hub of that id."}}},
        r"refusal_messages\.hub\.not_found",
    ),
}
"""Each twin: the one choice it changes, and the fields its drift may name (the field, and
the shape nodes that choice shows in)."""


@pytest.mark.parametrize("twin", list(TWINS))
def test_a_deployment_differing_on_one_field_drifts_on_that_field_alone(
    twin: str,
    first: tuple[ProbeResult, ProbeResult, dict[str, Any]],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    changed, allowed = TWINS[twin]
    _, fake, profile = first
    twin_choices = merged_over(CREATED_ORDER, changed)
    target, _ = _probe(twin_choices, tmp_path_factory.mktemp("twin") / "ledger.jsonl")
    drift = _drift(compare_results(target, fake, profile=profile))
    # The field the twin changes drifts (a shape: somewhere in it) ...
    assert [f for f in _leaves(changed) if not any(d.startswith(f) for d in drift)] == [], drift
    # ... and nothing else does, but the shape nodes that choice shows in.
    assert [f for f in drift if not re.fullmatch(allowed, f)] == [], drift


def _leaves(choices: Mapping[str, Any], at: str = "") -> list[str]:
    """The dotted fields ``choices`` sets (a shape counts as one: ``shapes.hub``)."""
    found: list[str] = []
    for key, value in choices.items():
        path = f"{at}.{key}" if at else key
        shape = path.startswith("shapes.")
        found += _leaves(value, path) if isinstance(value, Mapping) and not shape else [path]
    return found

"""The second round of profile fields load, default to today's behaviour, and are refused
with file and line when wrong."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from patgate.errors import UsageError
from patgate.fake.profile import default_profile, load_profile

KNOBS = """\
profile_version: 1
client_token: {token_type: null}
hubs: {order: name_descending, date_precision: microseconds}
pages: {over_maximum: cut, links: [self]}
date_precision: {lastUsedDate: microseconds}
date_offset: {lastUsedDate: "+00:00", hubs: "+00:00"}
rate_limit: {announce: ratelimit_headers}
pat_creation: {client_credentials: refused}
graphql: {refusal_status: refusal}
content_errors: {format: problem+json}
refusal_messages:
  create_token: {forbidden: a user credential is required}
accepted:
  - field: shapes.hub.body.keys.plan
    reason: the plan field is being retired
    expires: 2027-01-31
shapes:
  hub:
    status: 200
    content_type: application/hal+json
    headers: [Link]
    body:
      type: object
      keys:
        id: {type: string, form: text}
        region: {type: string, form: text, sample: eu-west-1}
"""


def test_every_new_field_loads_from_a_file_and_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "knobs.yaml"
    path.write_text(KNOBS, encoding="utf-8")
    profile = load_profile(path)
    assert profile.token_type is None
    assert (profile.hub_order, profile.hub_date_precision) == ("name_descending", "microseconds")
    assert (profile.over_maximum, profile.page_links) == ("cut", ("self",))
    assert profile.last_used_precision == "microseconds"
    assert (profile.last_used_offset, profile.hub_date_offset) == ("+00:00", "+00:00")
    assert profile.rate_limit_announce == "ratelimit_headers"
    assert profile.client_credentials_creation == "refused"
    assert profile.graphql_refusal_status == "refusal"
    assert profile.content_error_format == "problem+json"
    assert profile.message_for("create_token", "forbidden") == "a user credential is required"
    assert profile.message_for("hub", "forbidden") is None
    (accepted,) = profile.accepted
    assert (accepted.field, accepted.expires) == ("shapes.hub.body.keys.plan", date(2027, 1, 31))
    assert accepted.holds_on(date(2027, 1, 31))
    assert not accepted.holds_on(date(2027, 2, 1))
    assert profile.shapes["hub"]["body"]["keys"]["region"]["sample"] == "eu-west-1"
    assert load_profile(profile.as_document()) == profile
    assert profile != default_profile()


def test_without_the_new_fields_everything_is_todays() -> None:
    profile = default_profile()
    assert profile.token_type == "Bearer"
    assert (profile.hub_order, profile.over_maximum) == ("created_ascending", "refused")
    assert profile.page_links == ("self", "first", "prev", "next", "last")
    assert (profile.last_used_offset, profile.hub_date_offset) == ("Z", "Z")
    assert profile.rate_limit_announce == "none"
    assert profile.client_credentials_creation == "allowed"
    assert (profile.graphql_refusal_status, profile.content_error_format) == ("ok", "json")
    assert dict(profile.refusal_messages) == {}
    assert profile.accepted == ()
    assert dict(profile.shapes) == {}
    assert load_profile({"profile_version": 1, "shapes": {}}) == profile


def test_a_refusals_message_serves_every_operation_a_per_operation_one_only_its_own() -> None:
    profile = load_profile(
        {
            "profile_version": 1,
            "refusals": {"not_found": {"message": "Not found"}},
            "refusal_messages": {"delete_token": {"not_found": "No such personal access token"}},
        }
    )
    assert profile.message_for("delete_token", "not_found") == "No such personal access token"
    assert profile.message_for("hub", "not_found") == "Not found"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "pages:\n  over_maximum: clip\n",
            r":3: pages\.over_maximum must be one of 'refused', 'cut'",
        ),
        (
            "date_offset:\n  hubs: '+01:00'\n",
            r":3: date_offset\.hubs must be one of 'Z', '\+00:00'",
        ),
        (
            "rate_limit:\n  anounce: none\n",
            r":3: unknown field 'rate_limit\.anounce'; did you mean 'rate_limit\.announce'",
        ),
        (
            "refusal_messages:\n  create_tokens: {}\n",
            r":3: unknown field 'refusal_messages\.create_tokens'; "
            r"did you mean 'refusal_messages\.create_token'",
        ),
        (
            "refusal_messages:\n  hub: {not_fonud: x}\n",
            r":3: unknown field 'refusal_messages\.hub\.not_fonud'; "
            r"did you mean 'refusal_messages\.hub\.not_found'",
        ),
        (
            "accepted:\n  - field: status\n    expires: 2027-01-31\n",
            r":3: accepted\.0: 'reason' is a required property",
        ),
        (
            "accepted:\n  - field: status\n    reason: r\n    expires: '2027-02-31'\n",
            r":5: accepted\.0\.expires: '2027-02-31' is not a date",
        ),
        ("shapes:\n  hubs_pages: {}\n", r"shapes: 'hubs_pages' does not match"),
        (
            "shapes:\n  hub:\n    body: {type: object, keys: {id: {type: text}}}\n",
            r":4: shapes\.hub\.body\.keys\.id\.type must be one of",
        ),
        (
            "shapes:\n  hub:\n    body: {type: string, form: date-time/nanoseconds/Z}\n",
            r":4: shapes\.hub\.body\.form: 'date-time/nanoseconds/Z' does not match",
        ),
        (
            "shapes:\n  hub:\n    bdoy: {type: string}\n",
            r":4: unknown field 'shapes\.hub\.bdoy'; did you mean 'shapes\.hub\.body'",
        ),
        (
            "graphql: {refusal_status: 200}\n",
            r":2: graphql\.refusal_status must be one of 'ok', 'refusal'",
        ),
    ],
)
def test_a_bad_new_field_is_refused_with_file_and_line(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("profile_version: 1\n" + text, encoding="utf-8")
    with pytest.raises(UsageError, match=expected):
        load_profile(path)


def test_a_mapping_may_give_a_date_object_for_expiry() -> None:
    accepted = {"field": "status", "reason": "known", "expires": date(2027, 1, 31)}
    profile = load_profile({"profile_version": 1, "accepted": [accepted]})
    assert profile.accepted[0].expires == date(2027, 1, 31)

"""The shape recorder, differ and renderer: what compare names and what the fake serves."""

from __future__ import annotations

from typing import Any

import pytest

from patgate.fake.answer_shapes import (
    ShapeDifference,
    answer_shape_of,
    form_of,
    render,
    shape_differences,
    shape_of,
)


@pytest.mark.parametrize(
    ("text", "form"),
    [
        ("2026-01-01T00:00:00.000Z", "date-time/milliseconds/Z"),
        ("2026-01-01T00:00:00.123456+00:00", "date-time/microseconds/+00:00"),
        ("2026-01-01T00:00:00Z", "date-time/seconds/Z"),
        ("2026-01-01T00:00:00.1234567Z", "text"),  # seven digits: no form of ours
        ("2026-01-01T02:00:00.000+02:00", "text"),  # not UTC
        ("https://api.example.test/v2/content/hubs/1", "uri"),
        ("https://api.example.test/v2/content/hubs/1/events{?page,size}", "uri-template"),
        ("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln", "jwt"),
        ("Bearer", "text"),
        ("amp_pat_1234", "text"),
    ],
)
def test_a_strings_form_is_recorded(text: str, form: str) -> None:
    assert form_of(text) == form
    assert shape_of(text) == {"type": "string", "form": form}


def test_a_value_is_never_recorded_only_its_structure() -> None:
    token = {
        "access_token": "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzZWNyZXQifQ.c2ln",
        "expires_in": 300,
        "scope": None,
        "ok": True,
        "ratio": 0.5,
        "hubs": [{"id": "a"}, {"id": "b", "plan": "x"}],
        "none": [],
    }
    shape = shape_of(token)
    assert shape == {
        "type": "object",
        "keys": {
            "access_token": {"type": "string", "form": "jwt"},
            "expires_in": {"type": "integer"},
            "scope": {"type": "null"},
            "ok": {"type": "boolean"},
            "ratio": {"type": "number"},
            "hubs": {
                "type": "array",
                "items": {
                    "type": "object",
                    "keys": {
                        "id": {"type": "string", "form": "text"},
                        "plan": {"type": "string", "form": "text"},
                    },
                },
            },
            "none": {"type": "array"},
        },
    }
    assert "secret" not in repr(shape)
    assert "300" not in repr(shape)


def test_a_null_item_yields_to_a_typed_one() -> None:
    dates = [None, "2026-01-01T00:00:00.000Z"]
    assert shape_of(dates)["items"] == {"type": "string", "form": "date-time/milliseconds/Z"}


def test_an_answer_records_status_media_type_and_meaningful_headers_only() -> None:
    shape = answer_shape_of(
        429,
        "application/json; charset=utf-8",
        ["Date", "RateLimit", "RateLimit-Policy", "Retry-After", "X-Request-Id", "ratelimit"],
        {"message": "slow down"},
    )
    assert shape == {
        "status": 429,
        "content_type": "application/json",
        "headers": ["RateLimit", "RateLimit-Policy", "Retry-After"],
        "body": {"type": "object", "keys": {"message": {"type": "string", "form": "text"}}},
    }


def _answer(body: Any, status: int = 200, headers: tuple[str, ...] = ()) -> dict[str, Any]:
    return answer_shape_of(status, "application/json", headers, body)


def test_each_difference_is_named_by_its_dotted_path() -> None:
    expected = _answer(
        {
            "token_type": "Bearer",
            "createdDate": "2026-01-01T00:00:00.000Z",
            "items": [{"n": 1}],
            "count": 1,
        },
        400,
        ("RateLimit",),
    )
    actual = _answer(
        {
            "createdDate": "2026-01-01T00:00:00.000000+00:00",
            "region": "eu",
            "items": [{"n": "1"}],
            "count": "one",
        },
        422,
        ("Retry-After",),
    )
    actual["content_type"] = "application/problem+json"
    found = [str(difference) for difference in shape_differences(expected, actual)]
    assert found == [
        "status: 400 -> 422",
        "content_type: application/json -> application/problem+json",
        "headers.RateLimit: absent",
        "headers.Retry-After: extra",
        "body.keys.token_type: absent",
        "body.keys.createdDate.form: date-time/milliseconds/Z -> date-time/microseconds/+00:00",
        "body.keys.items.items.keys.n.type: integer -> string",
        "body.keys.count.type: integer -> string",
        "body.keys.region: extra (string)",
    ]
    assert shape_differences(expected, expected) == []
    assert ShapeDifference("status", "400 -> 422").path == "status"


def test_a_part_one_side_does_not_record_is_not_compared() -> None:
    assert shape_differences({"status": 200}, {"body": {"type": "null"}}) == []
    assert shape_differences(_answer({"a": []}), _answer({"a": [1]})) == []
    assert shape_differences({"headers": ["ratelimit"]}, {"headers": ["RateLimit"]}) == []


HUB = {
    "id": "h1",
    "plan": "gold",
    "createdDate": "2026-01-01T00:00:00.120Z",
    "_links": {"self": {"href": "https://x.test/hubs/h1"}},
}


def test_render_omits_what_the_shape_lacks_and_serves_its_samples() -> None:
    node = {
        "type": "object",
        "keys": {
            "id": {"type": "string"},
            "createdDate": {"type": "string", "form": "date-time/microseconds/+00:00"},
            "region": {"type": "string", "sample": "eu-west-1"},
            "tier": {"type": "string"},  # no sample: the fake cannot invent it
            "_links": {"type": "object"},  # no keys: served as it is
        },
    }
    assert render(HUB, node) == {
        "id": "h1",
        "createdDate": "2026-01-01T00:00:00.120000+00:00",
        "_links": {"self": {"href": "https://x.test/hubs/h1"}},
        "region": "eu-west-1",
    }


@pytest.mark.parametrize(
    ("form", "written"),
    [
        ("date-time/seconds/Z", "2026-01-01T00:00:00Z"),
        ("date-time/milliseconds/+00:00", "2026-01-01T00:00:00.120+00:00"),
        ("date-time/microseconds/Z", "2026-01-01T00:00:00.120000Z"),
    ],
)
def test_render_writes_a_date_in_the_shapes_form(form: str, written: str) -> None:
    node = {"type": "string", "form": form}
    assert render("2026-01-01T00:00:00.120Z", node) == written
    assert render("not a date", node) == "not a date"


def test_render_goes_through_array_items_and_round_trips_its_own_shape() -> None:
    page = {"hubs": [HUB, {**HUB, "id": "h2"}]}
    assert render(page, shape_of(page)) == page
    node = {
        "type": "object",
        "keys": {
            "hubs": {
                "type": "array",
                "items": {"type": "object", "keys": {"id": {"type": "string"}}},
            }
        },
    }
    assert render(page, node) == {"hubs": [{"id": "h1"}, {"id": "h2"}]}

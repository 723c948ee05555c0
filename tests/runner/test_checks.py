"""Every check passes what it should and fails what it should (each has a negative case)."""

from __future__ import annotations

from typing import Any

import pytest

from patgate.basics.observed import Observed
from patgate.basics.resources import specs_dir
from patgate.checks import CheckCall, run_check
from patgate.errors import CheckFailure

TOKEN = "amp_pat_0VDx5anoRUK7QmNWYZIOrQ.c2VjcmV0LXNlZ21lbnQtb2YtMzItYnl0ZXMtZm9vYmFy"
MASKED = "amp_pat_0VDx5ano********************************"

LISTING = Observed.of_json(
    200,
    {
        "data": {
            "viewer": {
                "personalAccessTokens": [
                    {"id": "a", "token": MASKED, "createdDate": "2023-11-21T14:36:00.916Z"},
                    {"id": "b", "token": "amp_pat_zzzz****", "createdDate": None},
                ]
            }
        }
    },
    "graphql",
)
REFUSAL = Observed.of_json(
    200,
    {"errors": [{"message": "no", "extensions": {"code": "FORBIDDEN"}}], "data": {"x": None}},
    "graphql",
)


def call(argument: Any, label: str = "", **options: Any) -> CheckCall:
    return CheckCall(argument, options, label or f"check: {argument}")


def passes(name: str, observed: Observed, argument: Any, **options: Any) -> None:
    run_check(name, observed, call(argument, **options))


def fails(name: str, observed: Observed, argument: Any, **options: Any) -> CheckFailure:
    with pytest.raises(CheckFailure) as caught:
        run_check(name, observed, call(argument, **options))
    return caught.value


def _exercised(helper: str) -> set[str]:
    """The check names this module calls ``helper`` (``passes`` or ``fails``) with."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    return {
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == helper
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    }


def test_every_registered_check_runs_and_has_a_fault_twin() -> None:
    from patgate.scenario.check_kinds import CHECKS

    assert CHECKS.unbound() == []
    # Each check is seen passing on a right answer and failing on the matching wrong one.
    names = set(CHECKS.names())
    assert names - _exercised("passes") == set(), "checks never seen passing here"
    assert names - _exercised("fails") == set(), "checks without a fault twin here"


# -- status, error, ok ------------------------------------------------------------------------


@pytest.mark.parametrize("wanted", [200, "2xx", [200, 204]])
def test_status_passes(wanted: Any) -> None:
    passes("status", Observed(200, "{}"), wanted)


@pytest.mark.parametrize("wanted", [201, "4xx", [400, 401]])
def test_status_fails(wanted: Any) -> None:
    failure = fails("status", Observed(200, "{}"), wanted)
    assert failure.expected == wanted
    assert failure.actual == "HTTP 200: {}"


@pytest.mark.parametrize(
    "observed",
    [
        Observed(401, ""),
        Observed(403, '{"errors":[{"message":"no"}]}'),
        REFUSAL,
        Observed.of_json(200, {"errors": [{"message": "bad document"}]}, "graphql"),
        Observed.of_json(200, {"errors": [{"message": "x"}], "data": None}, "graphql"),
    ],
)
def test_error_accepts_any_documented_kind_of_error(observed: Observed) -> None:
    passes("error", observed, True)


@pytest.mark.parametrize(
    "observed",
    [
        Observed(200, "{}"),
        Observed(500, '{"errors":[{"message":"boom"}]}'),
        Observed(302, ""),
        # errors, but the field has a value: not a refusal
        Observed.of_json(200, {"errors": [{"message": "x"}], "data": {"x": 1}}, "graphql"),
        Observed.of_json(200, {"errors": [], "data": {"x": None}}, "graphql"),
    ],
)
def test_error_refuses_successes_and_server_faults(observed: Observed) -> None:
    failure = fails("error", observed, True)
    assert "an HTTP 4xx, or GraphQL errors with the field null" in str(failure)


def test_ok_passes_a_clean_success() -> None:
    passes("ok", Observed.of_json(200, {"data": {"x": 1}}), True)


@pytest.mark.parametrize("observed", [REFUSAL, Observed(404, "{}"), Observed(500, "")])
def test_ok_fails_errors(observed: Observed) -> None:
    fails("ok", observed, True)


def _deleted(result: Any) -> Observed:
    return Observed.of_json(200, {"data": {"deletePersonalAccessToken": result}}, "graphql")


@pytest.mark.parametrize(
    "observed",
    [
        _deleted(True),
        _deleted({"__typename": "Deleted"}),
        _deleted({"id": "x", "deleted": True}),
        _deleted({"id": "x", "success": True, "archived": False}),
    ],
)
def test_deleted_true_passes_a_result_of_any_type_but_null_or_false(observed: Observed) -> None:
    passes("deleted", observed, True)
    fails("deleted", observed, False)


@pytest.mark.parametrize(
    "observed",
    [
        _deleted(False),
        _deleted(None),
        _deleted({"id": "x", "deleted": False}),
        REFUSAL,
        Observed(404, ""),
        Observed(403, "{}"),
    ],
)
def test_deleted_false_accepts_any_form_of_refusal(observed: Observed) -> None:
    passes("deleted", observed, False)
    fails("deleted", observed, True)


def test_deleted_false_refuses_a_server_fault() -> None:
    failure = fails("deleted", Observed(502, ""), False)
    assert failure.expected == "not deleted"


def test_a_body_nested_deeper_than_the_parser_goes_is_not_json() -> None:
    observed = Observed(200, "[" * 100_000 + "]" * 100_000)
    failure = fails("path", observed, "data")
    assert str(failure) == "expected a JSON body"


# -- schema -----------------------------------------------------------------------------------

TOKEN_SCHEMA = str(specs_dir() / "schemas" / "token-response.json")


def test_schema_passes_a_valid_body() -> None:
    body = {"access_token": "x", "expires_in": 300, "session_expires_in": 1}
    passes("schema", Observed.of_json(200, body), TOKEN_SCHEMA)


def test_schema_fails_an_invalid_body_naming_where() -> None:
    body = {"access_token": "x", "expires_in": "300", "session_expires_in": 1}
    failure = fails("schema", Observed.of_json(200, body), TOKEN_SCHEMA)
    assert "at expires_in: '300' is not of type 'integer'" in str(failure)


def test_an_inline_schema_applies_at_a_path() -> None:
    schema = {"type": "array", "items": {"required": ["code"]}}
    observed = Observed.of_json(200, {"errors": [{"code": "X"}]})
    passes("schema", observed, schema, at="errors")
    fails("schema", Observed.of_json(200, {"errors": [{}]}), schema, at="errors")


def test_schema_fails_a_body_that_is_not_json() -> None:
    failure = fails("schema", Observed(200, "<html>"), TOKEN_SCHEMA)
    assert "expected a JSON body" in str(failure)


# -- path -------------------------------------------------------------------------------------

BODY = Observed.of_json(
    200, {"n": 5, "f": 1.0, "b": True, "s": "Bearer", "l": ["a", "b"], "z": None}
)

PATH_PASSES = [
    ("n", {"equals": 5}),
    ("f", {"equals": 1}),
    ("z", {"equals": None}),
    ("n", {"not_equals": "5"}),
    ("n", {"one_of": [4, 5]}),
    ("n", {"type": "integer"}),
    ("f", {"type": "number"}),
    ("b", {"type": "boolean"}),
    ("z", {"type": "null"}),
    ("l", {"type": "array"}),
    ("s", {"matches": "(?i)^bearer$"}),
    ("missing", {"exists": False}),
    ("n", {"exists": True}),
    ("l", {"length": 2}),
    ("l", {"length": "2"}),
    ("l", {"contains": "a"}),
    ("l", {"contains": ["a", "b"]}),
    ("s", {"contains": "ear"}),
    ("l", {"not_contains": ["c", "d"]}),
]

PATH_FAILURES = [
    ("n", {"equals": "5"}),
    ("b", {"equals": 1}),
    ("z", {"equals": ""}),
    ("n", {"not_equals": 5}),
    ("n", {"one_of": [1, 2]}),
    ("b", {"type": "integer"}),
    ("s", {"type": "number"}),
    ("n", {"matches": "5"}),
    ("s", {"matches": "^bearer$"}),
    ("n", {"exists": False}),
    ("missing", {"exists": True}),
    ("missing", {"equals": None}),
    ("l", {"length": 3}),
    ("l", {"contains": ["a", "c"]}),
    ("l", {"not_contains": ["c", "a"]}),
    ("n", {"contains": 5}),
]


@pytest.mark.parametrize(("path", "options"), PATH_PASSES)
def test_path_matchers_pass(path: str, options: dict[str, Any]) -> None:
    passes("path", BODY, path, **options)


@pytest.mark.parametrize(("path", "options"), PATH_FAILURES)
def test_path_matchers_fail(path: str, options: dict[str, Any]) -> None:
    failure = fails("path", BODY, path, **options)
    assert failure.expected


def test_exists_false_passes_on_a_body_that_is_not_json() -> None:
    passes("path", Observed(400, "Bad Request"), "access_token", exists=False)
    fails("path", Observed(400, "Bad Request"), "access_token", type="string")


# -- header -----------------------------------------------------------------------------------

HEADERS = Observed(200, "", {"cache-control": "No-Store", "www-authenticate": "Bearer"})


def test_header_passes() -> None:
    passes("header", HEADERS, "Cache-Control", contains="no-store")
    passes("header", HEADERS, "WWW-Authenticate", matches="^Bearer", equals="Bearer")
    passes("header", HEADERS, "Retry-After", exists=False)


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("Cache-Control", {"contains": "no-cache"}),
        ("WWW-Authenticate", {"equals": "bearer"}),
        ("WWW-Authenticate", {"matches": "^Basic"}),
        ("Retry-After", {"exists": True}),
        ("Cache-Control", {"exists": False}),
    ],
)
def test_header_fails(name: str, options: dict[str, Any]) -> None:
    fails("header", HEADERS, name, **options)


# -- masked, date, pat, absent, present --------------------------------------------------------


def test_masked_passes_a_listing_of_masked_tokens() -> None:
    passes("masked", LISTING, "data.viewer.personalAccessTokens[*].token")


def test_masked_of_finds_the_masked_form_of_a_token() -> None:
    passes("masked", LISTING, "data.viewer.personalAccessTokens[*].token", of=TOKEN)


@pytest.mark.parametrize(
    "shown",
    [
        TOKEN,  # the full value
        "amp_pat_0VDx5ano",  # no asterisks
        "********",  # no start at all
        "amp_pat_0V**x5an****",  # asterisks inside the start
    ],
)
def test_masked_fails_what_is_not_a_start_then_asterisks(shown: str) -> None:
    observed = Observed.of_json(200, {"tokens": [MASKED, shown]})
    fails("masked", observed, "tokens[*]")


def test_a_start_reaching_the_secret_is_masked_but_does_not_hide_the_secret() -> None:
    # Spec 2.1 says "the start", not how much of it: only the advisory option refuses it.
    reaching = TOKEN[: TOKEN.index(".") + 4] + "****"
    observed = Observed.of_json(200, {"tokens": [MASKED, reaching]})
    passes("masked", observed, "tokens[*]")
    passes("masked", Observed.of_json(200, {"tokens": [reaching]}), "tokens[*]", of=TOKEN)
    failure = fails("masked", observed, "tokens[*]", hides_secret=True)
    assert "stopping before the secret segment" in str(failure)
    only_reaching = Observed.of_json(200, {"tokens": [reaching]})
    failure = fails("masked", only_reaching, "tokens[*]", of=TOKEN, hides_secret=True)
    assert "the masked form of the token" in str(failure)
    passes(
        "masked", LISTING, "data.viewer.personalAccessTokens[*].token", of=TOKEN, hides_secret=True
    )


def test_masked_of_wants_less_than_the_whole_value() -> None:
    whole = Observed.of_json(200, {"tokens": [TOKEN + "****"]})
    fails("masked", whole, "tokens[*]", of=TOKEN)


def test_masked_of_fails_when_no_entry_is_that_tokens_mask() -> None:
    other = "amp_pat_QQQQQQQQ*****"
    observed = Observed.of_json(200, {"tokens": [other]})
    failure = fails("masked", observed, "tokens[*]", of=TOKEN)
    assert "the masked form of the token" in str(failure)
    fails("masked", Observed.of_json(200, {"tokens": [TOKEN]}), "tokens[*]", of=TOKEN)


def test_date_passes_milliseconds_and_z() -> None:
    passes("date", LISTING, "data.viewer.personalAccessTokens[0].createdDate")
    passes("date", LISTING, "data.viewer.personalAccessTokens[*].createdDate", nullable=True)


@pytest.mark.parametrize(
    "value",
    [
        "2023-11-21T14:36:00.916Z",
        "2023-11-21T14:36:00Z",
        "2023-11-21T14:36Z",
        "2023-11-21T14:36:00.9Z",
        "2023-11-21T14:36:00.916123Z",
        "2023-11-21T14:36:00,916Z",
        "2023-11-21T14:36:00.916+00:00",
        "2023-11-21T14:36:00+0000",
        "20231121T143600Z",
        "2016-12-31T23:59:60Z",
    ],
)
def test_date_passes_any_iso_8601_utc_timestamp(value: str) -> None:
    # lastUsedDate is documented as an "ISO 8601 UTC timestamp", precision unsaid.
    passes("date", Observed.of_json(200, {"d": value}), "d")


@pytest.mark.parametrize(
    "value",
    [
        "2023-11-21T14:36:00.916",
        "2023-11-21T14:36:00.916+01:00",
        "2023-11-21T14:36:00-00:00",
        "2023-02-30T14:36:00.916Z",
        "2023-11-21T24:00:00Z",
        "2023-11-21 14:36:00.916Z",
        "2023-11-21",
        "yesterday",
        None,
        1700577360916,
    ],
)
def test_date_fails_what_is_not_a_utc_timestamp(value: Any) -> None:
    fails("date", Observed.of_json(200, {"d": value}), "d")


@pytest.mark.parametrize(
    "value",
    [
        "2023-11-21T14:36:00Z",
        "2023-11-21T14:36:00.9Z",
        "2023-11-21T14:36:00.916123Z",
        "2023-11-21T14:36Z",
        "2023-11-21T14:36:00.916",
    ],
)
def test_date_with_milliseconds_wants_exactly_three_digits(value: str) -> None:
    # createdDate is documented "with milliseconds".
    failure = fails("date", Observed.of_json(200, {"d": value}), "d", milliseconds=True)
    assert "with milliseconds" in str(failure)
    passes(
        "date",
        Observed.of_json(200, {"d": "2023-11-21T14:36:00.916+00:00"}),
        "d",
        milliseconds=True,
    )


def test_pat_passes_the_documented_shape() -> None:
    passes("pat", Observed.of_json(200, {"t": TOKEN}), "t")


@pytest.mark.parametrize("value", ["amp_pat_0f3a9c.9be1d2", "amp_pat_AbC+/9=.x~Yz+/=="])
def test_pat_passes_segments_of_any_alphabet(value: str) -> None:
    # Spec 2.1 names a prefix, a segment, a dot and a second segment: no alphabet.
    passes("pat", Observed.of_json(200, {"t": value}), "t")


@pytest.mark.parametrize(
    "value",
    [
        "ghp_0VDx5anoRUK7QmNWYZIOrQ.abc",
        "amp_pat_0VDx5anoRUK7QmNWYZIOrQ",
        "amp_pat_a.b.c",
        "amp_pat_a b.c",
        MASKED,
        None,
    ],
)
def test_pat_fails_other_shapes(value: Any) -> None:
    fails("pat", Observed.of_json(200, {"t": value}), "t")


def test_pat_follows_the_targets_prefix() -> None:
    observed = Observed.of_json(200, {"t": "xyz_abc.def"})
    run_check("pat", observed, CheckCall("t", {}, "pat: t", pat_prefix="xyz_"))
    with pytest.raises(CheckFailure):
        run_check("pat", Observed.of_json(200, {"t": TOKEN}), CheckCall("t", {}, "", "xyz_"))


def test_absent_passes_when_the_secret_is_nowhere() -> None:
    passes("absent", LISTING, TOKEN)


@pytest.mark.parametrize(
    "observed",
    [
        Observed(200, f'{{"echo": "{TOKEN}"}}'),
        Observed(200, "", {"x-debug": TOKEN}),
        Observed(200, "leaked=amp_pat_0VDx5anoRUK7QmNWYZIOrQ.c2VjcmV0%2F"),
    ],
)
def test_absent_fails_when_the_secret_appears_in_body_or_headers(observed: Observed) -> None:
    secret = TOKEN if "%2F" not in observed.text else "amp_pat_0VDx5anoRUK7QmNWYZIOrQ.c2VjcmV0/"
    failure = run_check_failure("absent", observed, secret, label="absent: ${token}")
    assert secret not in str(failure)
    assert "${token}" in str(failure)


def run_check_failure(name: str, observed: Observed, argument: Any, label: str) -> CheckFailure:
    with pytest.raises(CheckFailure) as caught:
        run_check(name, observed, CheckCall(argument, {}, label))
    return caught.value


def test_absent_fails_when_there_is_nothing_to_look_for() -> None:
    fails("absent", LISTING, "")


def test_present_passes_and_fails() -> None:
    passes("present", LISTING, "0VDx5ano")
    fails("present", LISTING, "not-there")

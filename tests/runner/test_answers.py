"""The runner's decoders of the answers it reads for itself: typed values, or an error that
names the field and what came."""

from __future__ import annotations

import pytest

from patgate.errors import UnexpectedAnswer
from patgate.runner.connection import answers
from patgate.runner.model import Observed


def _answer(body: object, status: int = 200) -> Observed:
    return Observed.of_json(status, body)


def _listing(*entries: object) -> Observed:
    return _answer({"data": {"viewer": {"personalAccessTokens": list(entries)}}})


def test_a_listing_is_decoded_into_ids_and_names() -> None:
    listed = answers.token_listing(_listing({"id": "t1", "name": "ci", "token": "amp_pat_a***"}))
    assert listed.tokens == (answers.ListedToken("t1", "ci"),)
    assert listed.entries == ({"id": "t1", "name": "ci", "token": "amp_pat_a***"},)
    assert listed.malformed == ()


RUNS_TOKEN = {"id": "t-run", "name": "patgate-r1-1"}
"""The run's own token, well formed, beside each malformed entry."""
ENTRIES = "data.viewer.personalAccessTokens"


@pytest.mark.parametrize(
    ("entry", "problem", "text_id", "text_name"),
    [
        (
            {"id": "t9", "name": ["patgate-r1-1"]},
            f"{ENTRIES}[1].name: expected text, got a list of 1",
            "t9",
            None,
        ),
        (
            {"id": 12, "name": "patgate-r1-1"},
            f"{ENTRIES}[1].id: expected a non-empty text, got the number 12",
            None,
            "patgate-r1-1",
        ),
        ({"name": "other"}, f"{ENTRIES}[1].id: missing", None, "other"),
        ({"id": "t9"}, f"{ENTRIES}[1].name: missing", "t9", None),
        (
            {"id": "", "name": "x"},
            f"{ENTRIES}[1].id: expected a non-empty text, got the text ''",
            None,
            "x",
        ),
        (None, f"{ENTRIES}[1]: expected an object, got null", None, None),
        ("t9", f"{ENTRIES}[1]: expected an object, got the text 't9'", None, None),
        ([RUNS_TOKEN], f"{ENTRIES}[1]: expected an object, got a list of 1", None, None),
    ],
    ids=[
        "list-name",
        "number-id",
        "missing-id",
        "missing-name",
        "empty-id",
        "null",
        "text",
        "list",
    ],
)
def test_a_malformed_entry_is_set_aside_naming_its_index_and_field(
    entry: object, problem: str, text_id: str | None, text_name: str | None
) -> None:
    listed = answers.token_listing(_listing({"id": "t0", "name": "ci"}, entry, RUNS_TOKEN))
    assert listed.tokens == (
        answers.ListedToken("t0", "ci"),
        answers.ListedToken("t-run", "patgate-r1-1"),
    )
    assert listed.malformed == (answers.MalformedEntry(1, problem, text_id, text_name),)
    assert listed.ids() == {"t0", "t-run"} | ({text_id} if text_id else set())


def test_a_malformed_entry_is_never_a_token_but_keeps_its_id_and_name_from_looking_absent() -> None:
    listed = answers.token_listing(
        _listing({"id": "t9", "name": ["patgate-r1-1"]}, {"id": 5, "name": "patgate-r1-2"})
    )
    assert listed.tokens == ()
    assert listed.may_hold("t9", "anything")
    assert listed.may_hold(None, "patgate-r1-2")
    assert not listed.may_hold("t5", "patgate-r1-1")  # a list is no name


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"data": {"viewer": {"personalAccessTokens": {"id": "x"}}}},
            f"{ENTRIES}: expected a list",
        ),
        ({"data": {"viewer": []}}, "data.viewer: expected an object, got a list of 0"),
        ({"data": None, "errors": [{"message": "no"}]}, "got null: no"),
        ({"data": {}, "errors": "no"}, "errors: expected a list, got the text 'no'"),
        ({"errors": [{"message": 1}]}, "errors[0].message: expected text, got the number 1"),
        ([1, 2], "the answer: expected an object, got a list of 2"),
    ],
)
def test_a_listing_of_the_wrong_shape_names_the_field(body: object, message: str) -> None:
    with pytest.raises(UnexpectedAnswer) as raised:
        answers.token_listing(_answer(body))
    assert message in str(raised.value)


def test_errors_null_counts_as_no_errors() -> None:
    answer = answers.graphql_answer(_answer({"data": {"x": 1}, "errors": None}))
    assert answer.errors == ()


def test_a_create_answer_names_its_token_or_none() -> None:
    created = {"data": {"createPersonalAccessToken": {"id": "t1", "token": "amp_pat_a.b"}}}
    assert answers.created_token(_answer(created)) == answers.CreatedToken("t1", "amp_pat_a.b")
    refused = {"data": {"createPersonalAccessToken": None}, "errors": [{"message": "cap"}]}
    assert answers.created_token(_answer(refused)) is None
    with pytest.raises(UnexpectedAnswer, match=r"createPersonalAccessToken\.id: expected"):
        answers.created_token(_answer({"data": {"createPersonalAccessToken": {"id": ""}}}))


def test_introspection_fields_and_type_references() -> None:
    ref = {"kind": "NON_NULL", "name": None, "ofType": {"kind": "SCALAR", "name": "Boolean"}}
    body = {"data": {"__schema": {"mutationType": {"fields": [{"name": "d", "type": ref}]}}}}
    fields = answers.schema_fields(_answer(body), ("__schema", "mutationType"))
    assert fields["d"] is not None
    assert fields["d"].unwrap() == ("SCALAR", "Boolean", False)
    empty = {"data": {"__schema": {"mutationType": None}}}
    assert answers.schema_fields(_answer(empty), ("__schema", "mutationType")) == {}
    bad = {"data": {"__schema": {"mutationType": {"fields": {"name": "d"}}}}}
    with pytest.raises(UnexpectedAnswer, match=r"mutationType\.fields: expected a list"):
        answers.schema_fields(_answer(bad), ("__schema", "mutationType"))


@pytest.mark.parametrize(
    ("shape", "organizations"),
    [
        ("connection", {"edges": [{"node": {"id": "o1"}}]}),
        ("nodes", {"nodes": [{"id": "o1"}]}),
        ("list", [{"id": "o1"}]),
    ],
)
def test_organization_ids_in_each_shape(shape: str, organizations: object) -> None:
    body = {"data": {"viewer": {"organizations": organizations}}}
    assert answers.organization_ids(_answer(body), shape) == ["o1"]


def test_a_huge_number_is_described_without_writing_its_digits() -> None:
    assert answers.describe(10**5000) == "a number of more than 40 digits"
    assert answers.describe(float("inf")) == "the number inf"

"""The runner's decoders of the answers it reads for itself: typed values, or an error that
names the field and what came."""

from __future__ import annotations

import pytest

from patgate.errors import UnexpectedAnswer
from patgate.runner.model import Observed
from patgate.runner.target import answers


def _answer(body: object, status: int = 200) -> Observed:
    return Observed.of_json(status, body)


def test_a_listing_is_decoded_into_ids_and_names() -> None:
    body = {"data": {"viewer": {"personalAccessTokens": [{"id": "t1", "name": "ci"}]}}}
    assert answers.token_listing(_answer(body)) == [answers.ListedToken("t1", "ci")]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"data": {"viewer": {"personalAccessTokens": [{"id": "t1", "name": ["ci"]}]}}},
            "data.viewer.personalAccessTokens[0].name: expected text, got a list of 1",
        ),
        (
            {"data": {"viewer": {"personalAccessTokens": [{"id": 7, "name": "ci"}]}}},
            "data.viewer.personalAccessTokens[0].id: expected a non-empty text, got the number 7",
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

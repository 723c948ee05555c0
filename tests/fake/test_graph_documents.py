"""GraphQL documents: a text differing from a validated one only in whitespace, comments or
alias names is not validated again; what validation refuses is refused every time."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import patgate.fake.graph_documents as graph_documents
from patgate.fake.deployment import Deployment
from patgate.fake.graph_documents import (
    DOCUMENT_CACHE_BYTES,
    MAX_CACHED_CHARACTERS,
    SHAPE_CACHE_BYTES,
    clear_caches,
    document_cost,
    prepare_document,
)
from patgate.fake.model import Principal
from tests.fake.graph_bodies import execute_graph_request

LISTING = "{ viewer { personalAccessTokens { id name token } } }"


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Counts graphql-core validations, from empty caches."""
    clear_caches()
    seen: list[str] = []
    real = graph_documents.validate

    def counting(schema: Any, document: Any) -> Any:
        seen.append("validated")
        return real(schema, document)

    monkeypatch.setattr(graph_documents, "validate", counting)
    yield seen
    clear_caches()


def test_whitespace_comments_and_alias_names_cost_no_second_validation(
    deployment: Deployment, admin: Principal, validations: list[str]
) -> None:
    variants = [
        LISTING,
        "# my listing\n{viewer{personalAccessTokens{id,name,token}}}",
        "{\n  viewer {\n    mine: personalAccessTokens { id name token }\n  }\n}",
        "{ viewer { yours: personalAccessTokens { id  name token } } }  # aliased",
    ]
    bodies = [execute_graph_request(deployment, admin, text).body for text in variants]
    assert len(validations) == 2  # the plain text, then the first aliased one
    # Each text is executed as written: its own alias is the response key.
    assert "personalAccessTokens" in bodies[1]["data"]["viewer"]
    assert "mine" in bodies[2]["data"]["viewer"]
    assert "yours" in bodies[3]["data"]["viewer"]


def test_a_text_with_other_fields_is_validated_again(
    deployment: Deployment, admin: Principal, validations: list[str]
) -> None:
    execute_graph_request(deployment, admin, LISTING)
    execute_graph_request(deployment, admin, "{ viewer { personalAccessTokens { id } } }")
    assert len(validations) == 2


def test_aliases_that_collide_are_refused_even_after_a_valid_twin(
    deployment: Deployment, admin: Principal, validations: list[str]
) -> None:
    valid = "{ viewer { a: personalAccessTokens { id } b: email } }"
    colliding = "{ viewer { a: personalAccessTokens { id } a: email } }"
    # An alias equal to a field name: renaming it away would hide the conflict.
    shadowing = "{ viewer { email: personalAccessTokens { id } email } }"
    assert execute_graph_request(deployment, admin, valid).executed
    for text in (colliding, shadowing):
        outcome = execute_graph_request(deployment, admin, text)
        assert not outcome.executed
        assert outcome.body["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
        assert "conflict" in outcome.body["errors"][0]["message"]
    assert len(validations) == 3


def test_an_invalid_text_reports_its_own_names_every_time(
    deployment: Deployment, admin: Principal, validations: list[str]
) -> None:
    for alias in ("first", "second"):
        text = f"{{ viewer {{ {alias}: personalAccessTokens {{ nosuchfield }} }} }}"
        outcome = execute_graph_request(deployment, admin, text)
        assert not outcome.executed
        assert "nosuchfield" in outcome.body["errors"][0]["message"]
    assert len(validations) == 2


def test_the_caches_stay_bounded_by_bytes(validations: list[str]) -> None:
    for number in range(3000):
        prepare_document(f"{{ viewer {{ a{number}: email b: name }} }} # {number}", 5000)
        prepare_document(f"{{ viewer {{ email }} f{number}: viewer {{ id{number}: id }} }}", 5000)
    assert graph_documents._documents.bytes <= DOCUMENT_CACHE_BYTES
    assert graph_documents._valid_shapes.bytes <= SHAPE_CACHE_BYTES
    assert len(validations) == 2  # two shapes, however many texts


def test_a_document_above_the_cached_size_is_never_kept(validations: list[str]) -> None:
    padding = " " * MAX_CACHED_CHARACTERS
    huge = "{ viewer { email } }" + padding
    for _ in range(3):
        assert prepare_document(huge, 5000).document is not None
    assert len(validations) == 3  # parsed and validated each time, never kept
    assert graph_documents._documents.bytes == 0
    assert len(graph_documents._valid_shapes) == 0


def test_one_principal_cannot_push_out_the_documents_of_others(validations: list[str]) -> None:
    kept = "{ viewer { personalAccessTokens { id } } }"
    prepare_document(kept, 5000, owner="victim")
    cost = document_cost("x" * MAX_CACHED_CHARACTERS)
    for number in range(2 * DOCUMENT_CACHE_BYTES // cost):
        text = f"{{ viewer {{ email }} }} # {number} " + "x" * (MAX_CACHED_CHARACTERS - 40)
        prepare_document(text, 5000, owner="attacker")
    assert graph_documents._documents.owner_bytes("attacker") <= DOCUMENT_CACHE_BYTES // 4
    assert (kept, 5000, None) in graph_documents._documents

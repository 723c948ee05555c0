"""docs/security.md section G: bad GraphQL requests, each a clear 4xx (or a coded 200 refusal).

``tests/wire/test_bad_input.py`` already sends the other variants of these items (bad JSON,
each non-string query type, string/number/array variables, depth 20, 246 and 10,000,
1 MB and 50k-alias documents, a two-fragment cycle, 10k names and directives); the rows
here add what it does not, with the catalogue's checks on every answer.
"""

from __future__ import annotations

import json

import httpx
import pytest

from tests.security.catalogue import (
    JSON,
    Kit,
    Row,
    allows_post,
    bearer,
    check_answer,
    field_is_null,
    graphql_body,
    graphql_row,
    no_data_key,
    with_locations,
)

VIEWER = "{ viewer { id } }"
CREATE = (
    "mutation($input: CreatePersonalAccessTokenInput!) "
    "{ createPersonalAccessToken(input: $input) { id } }"
)


def _nested_fields(depth: int) -> str:
    """Unknown fields nested ``depth`` braces deep: valid syntax, invalid against the schema."""
    return "{ viewer " + "{ a " * (depth - 2) + "{ b }" + " }" * (depth - 1)


def _organizations(first: str) -> str:
    return graphql_body(
        f"{{ viewer {{ organizations(first: {first}) {{ edges {{ cursor }} }} }} }}"
    )


def has_edges(response: httpx.Response, kit: Kit) -> None:
    """An answer with the page and no error."""
    body = response.json()
    assert "errors" not in body
    assert body["data"]["viewer"]["organizations"]["edges"]


ROWS = [
    # G.52 a body that is not JSON, or not only JSON
    graphql_row("G52-trailing-garbage", 52, graphql_body(VIEWER) + " x", error="BAD_REQUEST"),
    graphql_row(
        # RFC 8259 8.1 lets a parser ignore a byte order mark; the fake does.
        "G52-utf8-bom-is-ignored",
        52,
        b"\xef\xbb\xbf" + graphql_body(VIEWER).encode(),
        status=200,
    ),
    graphql_row("G52-single-quotes", 52, "{'query': '{ viewer { id } }'}", error="BAD_REQUEST"),
    graphql_row("G52-two-objects", 52, graphql_body(VIEWER) * 2, error="BAD_REQUEST"),
    # G.53 query missing or not a string
    graphql_row("G53-query-null", 53, graphql_body(None), error="BAD_REQUEST"),
    graphql_row("G53-query-empty-string", 53, graphql_body(""), error="GRAPHQL_PARSE_FAILED"),
    graphql_row("G53-only-variables", 53, json.dumps({"variables": {}}), error="BAD_REQUEST"),
    graphql_row("G53-empty-batch", 53, "[]", error="BAD_REQUEST"),
    # G.54 variables and operationName of the wrong type, or wrong for the document
    graphql_row(
        "G54-variables-bool", 54, graphql_body(VIEWER, variables=True), error="BAD_REQUEST"
    ),
    graphql_row("G54-variables-null-is-fine", 54, graphql_body(VIEWER, variables=None), status=200),
    graphql_row(
        "G54-operation-name-bool",
        54,
        graphql_body(VIEWER, operationName=False),
        error="BAD_REQUEST",
    ),
    graphql_row(
        "G54-operation-name-array",
        54,
        graphql_body(VIEWER, operationName=["A"]),
        error="BAD_REQUEST",
    ),
    graphql_row(
        "G54-variable-of-wrong-type",
        54,
        graphql_body(CREATE, variables={"input": 5}),
        error="BAD_USER_INPUT",
        then=(no_data_key,),
    ),
    graphql_row(
        "G54-required-variable-missing",
        54,
        graphql_body(CREATE, variables={}),
        error="BAD_USER_INPUT",
        then=(no_data_key,),
    ),
    graphql_row(
        "G54-variable-missing-a-field",
        54,
        graphql_body(CREATE, variables={"input": {"name": "x"}}),
        error="BAD_USER_INPUT",
        then=(no_data_key,),
    ),
    graphql_row(
        "G54-unknown-operation-name",
        54,
        graphql_body("query A { viewer { id } }", operationName="B"),
        error="BAD_USER_INPUT",
    ),
    graphql_row(
        "G54-two-operations-no-name",
        54,
        graphql_body("query A { viewer { id } } query B { viewer { name } }"),
        error="BAD_USER_INPUT",
    ),
    # G.55 a GET carrying a mutation, other methods
    graphql_row(
        "G55-get-with-mutation",
        55,
        b"",
        method="GET",
        query="query=mutation%20%7B%20deletePersonalAccessToken(input%3A%20%7Bid%3A%20%22x%22%7D)%20%7D",
        status=405,
        error="METHOD_NOT_ALLOWED",
        then=(allows_post,),
    ),
    graphql_row("G55-put", 55, graphql_body(VIEWER), method="PUT", status=405, then=(allows_post,)),
    # G.56 a syntax error: errors with locations and no data key
    graphql_row(
        "G56-unclosed-brace",
        56,
        graphql_body("query {"),
        error="GRAPHQL_PARSE_FAILED",
        then=(no_data_key, with_locations),
    ),
    graphql_row(
        "G56-extra-closing-brace",
        56,
        graphql_body("{ viewer { id } } }"),
        error="GRAPHQL_PARSE_FAILED",
        then=(no_data_key, with_locations),
    ),
    graphql_row(
        "G56-bad-character",
        56,
        graphql_body("{ viewer { id ~ } }"),
        error="GRAPHQL_PARSE_FAILED",
        then=(no_data_key, with_locations),
    ),
    # G.57 depth: 10 reaches validation, 50 (braces, or brackets in arguments) is refused first
    graphql_row(
        "G57-depth-10-reaches-validation",
        57,
        graphql_body(_nested_fields(10)),
        error="GRAPHQL_VALIDATION_FAILED",
        then=(no_data_key,),
    ),
    graphql_row("G57-depth-50", 57, graphql_body(_nested_fields(50)), error="QUERY_TOO_DEEP"),
    graphql_row(
        "G57-list-depth-in-an-argument",
        57,
        graphql_body(
            "{ viewer { organizations(after: "
            + "[" * 40
            + "]" * 40
            + ") { pageInfo { endCursor } } } }"
        ),
        error="QUERY_TOO_DEEP",
    ),
    # G.58 token and alias bombs are stopped before any execution
    graphql_row(
        "G58-token-bomb",
        58,
        graphql_body("{ viewer { " + "id " * 6_000 + "} }"),
        error="GRAPHQL_PARSE_FAILED",
        then=(no_data_key,),
    ),
    graphql_row(
        "G58-alias-bomb-3000",
        58,
        graphql_body("{ " + " ".join(f"a{i}: viewer {{ id }}" for i in range(3_000)) + " }"),
        then=(no_data_key,),
    ),
    graphql_row(
        "G58-ten-aliases-are-fine",
        58,
        graphql_body("{ " + " ".join(f"a{i}: viewer {{ id }}" for i in range(10)) + " }"),
        status=200,
    ),
    # G.59 fragment cycles, longer than the one in tests/wire, and onto itself
    graphql_row(
        "G59-three-fragment-cycle",
        59,
        graphql_body(
            "{ viewer { ...A } } fragment A on Viewer { ...B } "
            "fragment B on Viewer { ...C } fragment C on Viewer { ...A }"
        ),
        error="GRAPHQL_VALIDATION_FAILED",
    ),
    graphql_row(
        "G59-fragment-spreads-itself",
        59,
        graphql_body("{ viewer { ...A } } fragment A on Viewer { id ...A }"),
        error="GRAPHQL_VALIDATION_FAILED",
    ),
    # G.60 the fake's documented policy: introspection on, __typename works
    graphql_row("G60-typename", 60, graphql_body("{ __typename }"), status=200),
    graphql_row(
        "G60-introspection-is-on",
        60,
        graphql_body("{ __schema { queryType { name } } }"),
        status=200,
    ),
    # G.62 unauthenticated: 401 with a Bearer challenge, code UNAUTHENTICATED
    graphql_row(
        "G62-no-bearer",
        62,
        graphql_body(VIEWER),
        headers=(JSON,),
        status=401,
        challenge="Bearer",
        error="UNAUTHENTICATED",
    ),
    graphql_row(
        "G62-expired-client-token",
        62,
        graphql_body(VIEWER),
        headers=(JSON, bearer("client_token")),
        advance=301,
        status=401,
        challenge='Bearer error="invalid_token"',
        error="UNAUTHENTICATED",
    ),
    # G.63 page sizes out of range or negative: a coded refusal, the field null
    *[
        graphql_row(
            f"G63-first-{label}",
            63,
            _organizations(first),
            status=200,
            error="BAD_USER_INPUT",
            then=(field_is_null,),
        )
        for label, first in [
            ("billion", "1000000000"),
            ("negative", "-1"),
            ("zero", "0"),
        ]
    ],
    # ...but `first: Int` is nullable and has a default: null asks for the default page.
    graphql_row(
        "G63-first-null-is-the-default", 63, _organizations("null"), status=200, then=(has_edges,)
    ),
    graphql_row(
        "G63-after-not-a-cursor",
        63,
        graphql_body('{ viewer { organizations(after: "not a cursor") { edges { cursor } } } }'),
        status=200,
        error="BAD_USER_INPUT",
        then=(field_is_null,),
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_graphql_catalogue(kit: Kit, row: Row) -> None:
    check_answer(row, kit.send(row), kit)

"""specs/schema.graphql has the documented operations, and the fake's answers fit the schemas."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from graphql import (
    GraphQLField,
    GraphQLInputObjectType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    build_schema,
    get_named_type,
)

from patgate.basics.resources import specs_dir
from patgate.fake.deployment import Deployment
from patgate.fake.graph_schema import graph_schema
from patgate.fake.world import build_default_world
from tests.fake.graph_bodies import execute_graph_request
from tests.specs.schema_files import standalone_validator

TOKEN_FIELDS = {"id", "name", "token", "createdDate", "lastUsedDate"}


@functools.cache
def sdl_schema() -> GraphQLSchema:
    """The SDL built alone, without the fake's resolvers."""
    return build_schema((specs_dir() / "schema.graphql").read_text(encoding="utf-8"))


def object_type(schema: GraphQLSchema, name: str) -> GraphQLObjectType:
    found = schema.get_type(name)
    assert isinstance(found, GraphQLObjectType), f"{name} is not an object type"
    return found


def field(schema: GraphQLSchema, type_name: str, field_name: str) -> GraphQLField:
    fields = object_type(schema, type_name).fields
    assert field_name in fields, f"{type_name}.{field_name} is missing"
    found: GraphQLField = fields[field_name]
    return found


def test_viewer_is_the_query_root() -> None:
    schema = sdl_schema()
    assert schema.query_type is not None
    viewer = field(schema, schema.query_type.name, "viewer")
    assert get_named_type(viewer.type).name == "Viewer"
    assert {"personalAccessTokens", "email", "id", "name", "organizations"} <= set(
        object_type(schema, "Viewer").fields
    )


def test_viewer_lists_personal_access_tokens() -> None:
    listing = field(sdl_schema(), "Viewer", "personalAccessTokens").type
    if isinstance(listing, GraphQLNonNull):
        listing = listing.of_type
    assert isinstance(listing, GraphQLList)
    assert get_named_type(listing).name == "PersonalAccessToken"


def test_personal_access_token_fields() -> None:
    fields = object_type(sdl_schema(), "PersonalAccessToken").fields
    assert TOKEN_FIELDS - set(fields) == set()
    # Null until the token has been used (spec 2.1), so the field must allow null.
    assert not isinstance(fields["lastUsedDate"].type, GraphQLNonNull)


@pytest.mark.parametrize(
    ("mutation", "input_fields"),
    [
        ("createPersonalAccessToken", {"name", "organizationId"}),
        ("deletePersonalAccessToken", {"id"}),
    ],
)
def test_mutation_takes_a_required_input(mutation: str, input_fields: set[str]) -> None:
    schema = sdl_schema()
    assert schema.mutation_type is not None
    argument = field(schema, schema.mutation_type.name, mutation).args.get("input")
    assert argument is not None, f"{mutation} has no input argument"
    assert isinstance(argument.type, GraphQLNonNull)
    input_type = argument.type.of_type
    assert isinstance(input_type, GraphQLInputObjectType)
    required = {
        name for name, value in input_type.fields.items() if isinstance(value.type, GraphQLNonNull)
    }
    assert required == input_fields


def test_create_returns_a_personal_access_token() -> None:
    schema = sdl_schema()
    assert schema.mutation_type is not None
    create = field(schema, schema.mutation_type.name, "createPersonalAccessToken")
    assert get_named_type(create.type).name == "PersonalAccessToken"


def test_the_fake_binds_a_resolver_to_every_operation() -> None:
    schema = graph_schema()
    assert schema.query_type is not None
    assert schema.mutation_type is not None
    # Root fields and fields computed from the deployment; an unbound one answers null.
    bound = [
        *((schema.query_type.name, name) for name in schema.query_type.fields),
        *((schema.mutation_type.name, name) for name in schema.mutation_type.fields),
        ("Viewer", "personalAccessTokens"),
        ("Viewer", "organizations"),
    ]
    unbound = [f"{t}.{f}" for t, f in bound if field(schema, t, f).resolve is None]
    assert unbound == []


# -- the fake's answers against the standalone schemas ------------------------------------------

CREATE = """
mutation Create($input: CreatePersonalAccessTokenInput!) {
  createPersonalAccessToken(input: $input) { id name token createdDate lastUsedDate }
}
"""

LISTING = """
query { viewer { id name email personalAccessTokens { id name token createdDate lastUsedDate } } }
"""


def _create(deployment: Deployment, bearer: str, organization_id: str) -> dict[str, Any]:
    principal = deployment.authenticate(bearer)
    variables = {"input": {"name": "ci smoke", "organizationId": organization_id}}
    return execute_graph_request(deployment, principal, CREATE, variables).body


def test_the_fakes_create_and_listing_fit_their_schemas() -> None:
    deployment = Deployment()
    world = build_default_world(deployment)
    created = _create(deployment, world.admin_token, world.organization_id)
    assert list(standalone_validator("pat-create-response.json").iter_errors(created)) == []

    listing = execute_graph_request(
        deployment, deployment.authenticate(world.admin_token), LISTING
    ).body
    assert list(standalone_validator("pat-listing-response.json").iter_errors(listing)) == []
    dates = [token["lastUsedDate"] for token in listing["data"]["viewer"]["personalAccessTokens"]]
    assert None in dates, "the token just created has not been used"
    assert any(date is not None for date in dates), "the admin's world token was just used"


def test_the_fakes_refusals_fit_the_error_schema() -> None:
    deployment = Deployment()
    world = build_default_world(deployment)
    refused = _create(deployment, world.member_token, world.organization_id)
    malformed = execute_graph_request(
        deployment, deployment.authenticate(world.admin_token), "query { viewer {"
    ).body
    validator = standalone_validator("graphql-error-response.json")
    assert list(validator.iter_errors(refused)) == []
    assert list(validator.iter_errors(malformed)) == []


DOCUMENTED_BODIES = {
    "create (docs/facts.md)": (
        "pat-create-response.json",
        {
            "data": {
                "createPersonalAccessToken": {
                    "id": "UGVyc29uYWxBY2Nlc3NUb2tlbjox",
                    "name": "My personal access token",
                    "token": "amp_pat_0VDx5anoRUK7QmNWYZIOrQ.IqSKk8gASgZKhp",
                    "createdDate": "2023-11-21T14:36:00.916Z",
                    "lastUsedDate": None,
                }
            }
        },
    ),
    "owner lookup": (
        "pat-listing-response.json",
        {
            "data": {
                "viewer": {
                    "id": "VXNlcjox",
                    "name": "Ada Admin",
                    "email": "ada@example.test",
                    "personalAccessTokens": [
                        {
                            "id": "UGVyc29uYWxBY2Nlc3NUb2tlbjox",
                            "name": "My personal access token",
                            "token": "amp_pat_0VDx****************",
                            "createdDate": "2023-11-21T14:36:00.916Z",
                            "lastUsedDate": "2023-11-22T09:00:01.002Z",
                        }
                    ],
                }
            }
        },
    ),
    "empty listing": (
        "pat-listing-response.json",
        {"data": {"viewer": {"personalAccessTokens": []}}},
    ),
    "refusal": (
        "graphql-error-response.json",
        {
            "errors": [
                {
                    "message": "only an organization admin may create a token",
                    "locations": [{"line": 2, "column": 3}],
                    "path": ["createPersonalAccessToken"],
                    "extensions": {"code": "FORBIDDEN"},
                }
            ],
            "data": {"createPersonalAccessToken": None},
        },
    ),
    "complexity limit (docs/facts.md)": (
        "graphql-error-response.json",
        {
            "errors": [
                {
                    "message": "Complexity limit exceeded",
                    "extensions": {"code": "COMPLEXITY_LIMIT_EXCEEDED"},
                }
            ]
        },
    ),
}


@pytest.mark.parametrize(("schema_file", "body"), DOCUMENTED_BODIES.values(), ids=DOCUMENTED_BODIES)
def test_documented_graphql_bodies_are_accepted(schema_file: str, body: dict[str, Any]) -> None:
    assert list(standalone_validator(schema_file).iter_errors(body)) == []


@pytest.mark.parametrize(
    ("schema_file", "body"),
    [
        (
            "pat-create-response.json",
            {
                "data": {
                    "createPersonalAccessToken": {
                        "id": "UGVyc29uYWxBY2Nlc3NUb2tlbjox",
                        "name": "My personal access token",
                        "token": "amp_pat_0VDx5anoRUK7QmNWYZIOrQ.IqSKk8gASgZKhp",
                        "createdDate": "2023-11-21T14:36:00.916Z",
                        "lastUsedDate": "2023-11-21T14:36:00.916Z",
                    }
                }
            },
        ),
        (
            "pat-create-response.json",
            {
                "data": {
                    "createPersonalAccessToken": {
                        "id": "UGVyc29uYWxBY2Nlc3NUb2tlbjox",
                        "name": "My personal access token",
                        "token": "amp_pat_0VDx5anoRU**********",
                        "createdDate": "2023-11-21T14:36:00.916Z",
                        "lastUsedDate": None,
                    }
                }
            },
        ),
        (
            "pat-create-response.json",
            {
                "data": {
                    "createPersonalAccessToken": {
                        "id": "UGVyc29uYWxBY2Nlc3NUb2tlbjox",
                        "name": "My personal access token",
                        "token": "amp_pat_0VDx5anoRUK7QmNWYZIOrQ.IqSKk8gASgZKhp",
                        "createdDate": "2023-11-21T14:36:00Z",
                        "lastUsedDate": None,
                    }
                }
            },
        ),
        ("pat-create-response.json", {"data": {"createPersonalAccessToken": None}}),
        (
            "pat-listing-response.json",
            {
                "data": {
                    "viewer": {
                        "personalAccessTokens": [
                            {
                                "id": "UGVyc29uYWxBY2Nlc3NUb2tlbjox",
                                "name": "My personal access token",
                                "token": "amp_pat_0VDx5anoRUK7QmNWYZIOrQ.IqSKk8gASgZKhp",
                                "createdDate": "2023-11-21T14:36:00.916Z",
                                "lastUsedDate": None,
                            }
                        ]
                    }
                }
            },
        ),
        (
            "pat-listing-response.json",
            {
                "data": {
                    "viewer": {
                        "personalAccessTokens": [
                            {
                                "id": "UGVyc29uYWxBY2Nlc3NUb2tlbjox",
                                "name": "My personal access token",
                                "token": "amp_pat_0VDx****",
                                "createdDate": "2023-11-21T14:36:00.916Z",
                                "lastUsedDate": "yesterday",
                            }
                        ]
                    }
                }
            },
        ),
        ("pat-listing-response.json", {"data": {"viewer": None}}),
        ("graphql-error-response.json", {"errors": [], "data": None}),
        ("graphql-error-response.json", {"errors": [{"extensions": {"code": "FORBIDDEN"}}]}),
        ("graphql-error-response.json", {"data": {"createPersonalAccessToken": None}}),
    ],
    ids=[
        "create: lastUsedDate set",
        "create: masked value",
        "create: date without milliseconds",
        "create: null field",
        "listing: full value",
        "listing: lastUsedDate not a date",
        "listing: null viewer",
        "errors: empty",
        "errors: no message",
        "errors: missing",
    ],
)
def test_wrong_graphql_bodies_are_rejected(schema_file: str, body: dict[str, Any]) -> None:
    assert not standalone_validator(schema_file).is_valid(body)

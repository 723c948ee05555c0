"""GraphQL over HTTP for the concurrency tests: documents, and a client that speaks them."""

from __future__ import annotations

import json
from typing import Any

import httpx

from patgate.harness import Fake

LIMIT = "LIMIT_REACHED"


def create_document(organization_id: str, name: str = "race", aliases: int = 0) -> str:
    """One create, or ``aliases`` aliased creates in one mutation."""
    field = (
        f"createPersonalAccessToken(input: {{name: {json.dumps(name)}, "
        f"organizationId: {json.dumps(organization_id)}}}) {{ id }}"
    )
    if not aliases:
        return f"mutation {{ {field} }}"
    return "mutation { " + " ".join(f"c{i}: {field}" for i in range(aliases)) + " }"


def delete_document(token_id: str) -> str:
    return f"mutation {{ deletePersonalAccessToken(input: {{id: {json.dumps(token_id)}}}) }}"


LIST = "{ viewer { personalAccessTokens { id } } }"


class GraphClient:
    """Posts GraphQL documents to one fake as one bearer; every answer must be JSON, not 5xx."""

    def __init__(self, client: httpx.Client, fake: Fake, bearer: str) -> None:
        self.client = client
        self.url = fake.urls.graphql_url
        self.headers = {"Authorization": f"Bearer {bearer}"}

    def post(self, query: str) -> dict[str, Any]:
        response = self.client.post(self.url, json={"query": query}, headers=self.headers)
        assert response.status_code < 500, response.text
        body: dict[str, Any] = response.json()
        return body

    def token_ids(self) -> list[str]:
        tokens = self.post(LIST)["data"]["viewer"]["personalAccessTokens"]
        return [token["id"] for token in tokens]


def error_codes(body: dict[str, Any]) -> list[str]:
    return [error.get("extensions", {}).get("code") for error in body.get("errors", [])]

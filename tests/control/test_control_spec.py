"""specs/control-openapi.yaml is valid OpenAPI 3.1, names every route, and the answers fit it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
import yaml
from openapi_spec_validator import validate

from patgate.harness import Fake
from patgate.wire.control_api import MAX_CLOCK_MOVE, MAX_LOG_PAGE, MAX_LOG_PAGE_SIZE, ROUTES

SPEC = Path(__file__).resolve().parents[2] / "specs" / "control-openapi.yaml"
METHODS = ("get", "put", "post", "delete", "patch")


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    return loaded


def test_the_document_is_valid_openapi(document: dict[str, Any]) -> None:
    validate(document)


def test_the_declared_bounds_are_the_servers(document: dict[str, Any]) -> None:
    advance = document["paths"]["/clock/advance"]["post"]["requestBody"]["content"]
    seconds = advance["application/json"]["schema"]["properties"]["seconds"]
    assert (seconds["minimum"], seconds["maximum"]) == (0, MAX_CLOCK_MOVE)
    log = document["paths"]["/requests"]["get"]["parameters"]
    bounds = {p["name"]: (p["schema"].get("minimum"), p["schema"].get("maximum")) for p in log}
    assert bounds["page"] == (0, MAX_LOG_PAGE)
    assert bounds["size"] == (1, MAX_LOG_PAGE_SIZE)


def test_every_operation_with_a_body_declares_400(document: dict[str, Any]) -> None:
    # A body can always be malformed (not JSON, an unknown field): the answer is 400.
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if "requestBody" in operation:
                assert "400" in operation["responses"], f"{method.upper()} {path}"


def test_the_document_and_the_route_table_name_the_same_operations(
    document: dict[str, Any],
) -> None:
    documented = {
        (method.upper(), path)
        for path, item in document["paths"].items()
        for method in METHODS
        if method in item
    }
    assert documented == {(route.method, route.path) for route in ROUTES}


def _check(document: dict[str, Any], method: str, path: str, answer: httpx.Response) -> None:
    operation = document["paths"][path.partition("?")[0]][method.lower()]
    response = operation["responses"][str(answer.status_code)]
    if "$ref" in response:
        response = document["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
    schema = response["content"]["application/json"]["schema"]
    jsonschema.Draft202012Validator({**schema, "components": document["components"]}).validate(
        answer.json()
    )


def test_real_answers_fit_the_documented_schemas(document: dict[str, Any]) -> None:
    with Fake() as fake:

        def call(method: str, path: str, body: Any = None, token: str | None = None) -> Any:
            answer = httpx.request(
                method,
                fake.world["control_url"] + path,
                json=body,
                headers={"Authorization": f"Bearer {token or fake.control_token}"},
            )
            _check(document, method, path, answer)
            return answer.json()

        member = fake.default_world.member_id
        fake.faults.add("hubs", status=503, count=1)
        httpx.get(
            fake.world["base_url"] + "/v2/content/hubs",
            headers={"Authorization": f"Bearer {fake.world['admin_token']}"},
        )
        call("POST", "/faults", {"endpoint": "graphql", "latency": 0.5})
        call("GET", "/faults")
        call("GET", "/requests?status=5xx")
        asked = call("POST", "/token-requests", {"user_id": member, "name": "x"})
        call("GET", "/snapshot")
        call("GET", "/world")
        call("GET", "/token-requests")
        call("POST", "/token-requests/approve", {"token_id": asked["id"]})
        call("POST", "/users", {"name": "Someone"})
        call("POST", "/users/remove", {"user_id": member})
        call("GET", "/users")
        call("POST", "/clients", {"user_id": member})
        call("GET", "/clients")
        call("POST", "/hubs", {"name": "a-hub"})
        call("GET", "/hubs")
        call("POST", "/clock/advance", {"seconds": 5})
        call("PUT", "/rate-limit", {"enabled": True})
        call("POST", "/users", {"name": ""})
        call("POST", "/users/remove", {"user_id": "nobody"})
        call("POST", "/reset", token="wrong")
        call("POST", "/reset")

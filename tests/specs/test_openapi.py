"""specs/openapi.yaml is valid OpenAPI 3.1, and its schemas and the standalone ones agree.

Conformance checks validate response bodies with these schemas, so the negative examples
matter as much as the positive ones: a schema that accepts everything passes every target.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from patgate.basics.resources import specs_dir
from patgate.wire.content_api import MAX_PAGE_NUMBER, MAX_PAGE_SIZE
from tests.specs.schema_files import load_standalone, standalone_validator

OPENAPI_URI = "urn:patgate:openapi"


@functools.cache
def openapi_document() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(
        (specs_dir() / "openapi.yaml").read_text(encoding="utf-8")
    )
    return document


def component_validator(name: str) -> Draft202012Validator:
    """A validator for ``#/components/schemas/<name>``, resolving refs inside the document."""
    resource = Resource.from_contents(openapi_document(), default_specification=DRAFT202012)
    registry: Registry[Any] = Registry().with_resource(OPENAPI_URI, resource)
    return Draft202012Validator(
        {"$ref": f"{OPENAPI_URI}#/components/schemas/{name}"},
        registry=registry,
        format_checker=Draft202012Validator.FORMAT_CHECKER,
    )


def changed(body: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A deep copy of ``body`` with the member at the dotted ``path`` set to ``value``."""
    result = copy.deepcopy(body)
    *parents, last = path.split(".")
    target: Any = result
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target[key]
    target[last] = value
    return result


def without(body: dict[str, Any], path: str) -> dict[str, Any]:
    """A deep copy of ``body`` without the member at the dotted ``path``."""
    result = copy.deepcopy(body)
    *parents, last = path.split(".")
    target: Any = result
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target[key]
    del target[last]
    return result


# -- realistic bodies (docs/facts.md, docs/design.md "The fake's choices") ---------------------

TOKEN = {
    "access_token": "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJl",
    "token_type": "Bearer",
    "expires_in": 300,
    "session_expires_in": 86400,
}

HUB = {
    "id": "5b32377e4cedfd01c45036d8",
    "name": "anya-finn",
    "label": "Anya Finn",
    "description": "The fashion brand's hub",
    "status": "ACTIVE",
    "settings": {"virtualStagingEnvironment": {"hostname": "stage.example.test"}},
    "createdBy": "0dd8f5cf-1b33-4b0c-9d3e-5b8f2b8e0d2a",
    "createdDate": "2018-06-26T12:54:22.923Z",
    "lastModifiedBy": "0dd8f5cf-1b33-4b0c-9d3e-5b8f2b8e0d2a",
    "lastModifiedDate": "2023-11-21T14:36:00.916Z",
    "_links": {
        "self": {"href": "http://127.0.0.1:8080/v2/content/hubs/5b32377e4cedfd01c45036d8"},
        "hub": {"href": "http://127.0.0.1:8080/v2/content/hubs/5b32377e4cedfd01c45036d8"},
        "content-repositories": {
            "href": (
                "http://127.0.0.1:8080/v2/content/hubs/5b32377e4cedfd01c45036d8"
                "/content-repositories{?page,size}"
            ),
            "templated": True,
        },
    },
}

HUBS_PAGE = {
    "_embedded": {"hubs": [HUB]},
    "_links": {"self": {"href": "http://127.0.0.1:8080/v2/content/hubs?page=0&size=20"}},
    "page": {"size": 20, "totalElements": 1, "totalPages": 1, "number": 0},
}

CONTENT_ERROR = {"errors": [{"message": "Authorization Required"}]}

# name in openapi.yaml -> (standalone file, bodies both must accept, bodies both must reject)
CASES: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "TokenResponse": (
        "token-response.json",
        {
            "documented": TOKEN,
            "without token_type": without(TOKEN, "token_type"),
            "extra members": {**TOKEN, "scope": "content"},
        },
        {
            "expires_in as a string": changed(TOKEN, "expires_in", "300"),
            "expires_in as a fraction": changed(TOKEN, "expires_in", 299.5),
            "expires_in zero": changed(TOKEN, "expires_in", 0),
            "no access_token": without(TOKEN, "access_token"),
            "empty access_token": changed(TOKEN, "access_token", ""),
            "no expires_in": without(TOKEN, "expires_in"),
            "no session_expires_in": without(TOKEN, "session_expires_in"),
            "session_expires_in as a string": changed(TOKEN, "session_expires_in", "86400"),
            "token_type not a string": changed(TOKEN, "token_type", 1),
        },
    ),
    "OAuthError": (
        "oauth-error.json",
        {
            "bare": {"error": "invalid_client"},
            "with a description": {
                "error": "unsupported_grant_type",
                "error_description": "only grant_type=client_credentials is supported",
            },
            **{
                f"code {code}": {"error": code}
                for code in (
                    "invalid_request",
                    "invalid_client",
                    "invalid_grant",
                    "unauthorized_client",
                    "unsupported_grant_type",
                    "invalid_scope",
                )
            },
        },
        {
            "unregistered code": {"error": "bad_secret"},
            "no error": {"error_description": "the client id or secret is not valid"},
            "code not a string": {"error": 400},
            "description with a double quote": {
                "error": "invalid_client",
                "error_description": 'the secret "x" is wrong',
            },
            "description with a backslash": {
                "error": "invalid_request",
                "error_description": "bad \\ input",
            },
            "description not ASCII": {"error": "invalid_request", "error_description": "é"},
        },
    ),
    "HubsPage": (
        "hubs-page.json",
        {
            "one hub": HUBS_PAGE,
            "empty page with _embedded": changed(HUBS_PAGE, "_embedded.hubs", []),
            "empty page without _embedded": {
                "_links": HUBS_PAGE["_links"],
                "page": {"size": 20, "totalElements": 0, "totalPages": 0, "number": 0},
            },
            "archived hub, null description": changed(
                changed(HUBS_PAGE, "_embedded.hubs.0.status", "ARCHIVED"),
                "_embedded.hubs.0.description",
                None,
            ),
        },
        {
            "hub id of 23 chars": changed(
                HUBS_PAGE, "_embedded.hubs.0.id", "5b32377e4cedfd01c45036d"
            ),
            "hub id of 25 chars": changed(
                HUBS_PAGE, "_embedded.hubs.0.id", "5b32377e4cedfd01c45036d80"
            ),
            "hub id in upper case": changed(
                HUBS_PAGE, "_embedded.hubs.0.id", "5B32377E4CEDFD01C45036D8"
            ),
            "missing page.number": without(HUBS_PAGE, "page.number"),
            "missing page.totalElements": without(HUBS_PAGE, "page.totalElements"),
            "negative page.number": changed(HUBS_PAGE, "page.number", -1),
            "page.size as a string": changed(HUBS_PAGE, "page.size", "20"),
            "missing page": without(HUBS_PAGE, "page"),
            "date without milliseconds": changed(
                HUBS_PAGE, "_embedded.hubs.0.createdDate", "2018-06-26T12:54:22Z"
            ),
            "date with an offset": changed(
                HUBS_PAGE, "_embedded.hubs.0.lastModifiedDate", "2023-11-21T14:36:00.916+00:00"
            ),
            "date with month 13": changed(
                HUBS_PAGE, "_embedded.hubs.0.createdDate", "2018-13-26T12:54:22.923Z"
            ),
            "unknown status": changed(HUBS_PAGE, "_embedded.hubs.0.status", "DELETED"),
            "settings not an object": changed(HUBS_PAGE, "_embedded.hubs.0.settings", []),
            "hub without a name": without(HUBS_PAGE, "_embedded.hubs.0.name"),
            "hub without a self link": without(HUBS_PAGE, "_embedded.hubs.0._links.self"),
            "link without href": changed(HUBS_PAGE, "_links.self", {"title": "self"}),
            "_embedded without hubs": changed(HUBS_PAGE, "_embedded", {}),
            "hubs not an array": changed(HUBS_PAGE, "_embedded.hubs", HUB),
        },
    ),
    "ContentError": (
        "content-error.json",
        {
            "documented": CONTENT_ERROR,
            "with level and code": {
                "errors": [{"level": "ERROR", "code": "FORBIDDEN", "message": "Forbidden"}]
            },
            "validation entry": {
                "errors": [
                    {
                        "entity": "hub",
                        "property": "size",
                        "invalidValue": 1000,
                        "message": "size must be between 1 and 100",
                    }
                ]
            },
        },
        {
            "empty errors": {"errors": []},
            "entry without message": {"errors": [{"code": "FORBIDDEN"}]},
            "message not a string": {"errors": [{"message": 403}]},
            "errors not an array": {"errors": "Authorization Required"},
            "OAuth shape": {"error": "invalid_token"},
        },
    ),
}


def _cases(valid: bool) -> list[Any]:
    params = []
    for component, (standalone, accepted, rejected) in CASES.items():
        for label, body in (accepted if valid else rejected).items():
            params.append(pytest.param(component, standalone, body, id=f"{component}: {label}"))
    return params


def test_openapi_document_is_valid() -> None:
    validate(openapi_document())


@pytest.mark.parametrize(("component", "standalone", "body"), _cases(valid=True))
def test_realistic_bodies_are_accepted(
    component: str,
    standalone: str,
    body: dict[str, Any],
) -> None:
    assert list(component_validator(component).iter_errors(body)) == []
    assert list(standalone_validator(standalone).iter_errors(body)) == []


@pytest.mark.parametrize(("component", "standalone", "body"), _cases(valid=False))
def test_wrong_bodies_are_rejected(
    component: str,
    standalone: str,
    body: dict[str, Any],
) -> None:
    assert not component_validator(component).is_valid(body)
    assert not standalone_validator(standalone).is_valid(body)


# Keywords that only annotate; two schemas that differ only in these validate alike.
_ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "title", "description", "examples"})


def _inlined(node: Any, root: dict[str, Any]) -> Any:
    """``node`` with every local ``$ref`` replaced by its target and annotations dropped."""
    if isinstance(node, list):
        return [_inlined(item, root) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        assert set(node) == {"$ref"}, f"a $ref with siblings is not compared: {node}"
        pointer = node["$ref"]
        assert pointer.startswith("#/"), f"only local references are allowed: {pointer}"
        target: Any = root
        for part in pointer[2:].split("/"):
            target = target[part]
        return _inlined(target, root)
    return {key: _inlined(value, root) for key, value in node.items() if key not in _ANNOTATIONS}


@pytest.mark.parametrize("component", sorted(CASES))
def test_standalone_schema_equals_its_openapi_twin(component: str) -> None:
    document = openapi_document()
    standalone = load_standalone(CASES[component][0])
    twin = document["components"]["schemas"][component]
    assert _inlined(standalone, standalone) == _inlined(twin, document)


def test_openapi_refers_to_nothing_outside_itself() -> None:
    def refs(node: Any) -> list[str]:
        if isinstance(node, dict):
            found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
            return found + [ref for value in node.values() for ref in refs(value)]
        if isinstance(node, list):
            return [ref for item in node for ref in refs(item)]
        return []

    found = refs(openapi_document())
    assert found, "the document is expected to use component references"
    assert [ref for ref in found if not ref.startswith("#/")] == []


def test_servers_are_the_target_urls() -> None:
    document = openapi_document()
    assert [server["url"] for server in document["servers"]] == ["{base_url}"]
    assert "base_url" in document["servers"][0]["variables"]
    token_servers = document["paths"]["/oauth/token"]["servers"]
    assert [server["url"] for server in token_servers] == ["{auth_url}"]
    assert "auth_url" in token_servers[0]["variables"]


def test_token_endpoint_takes_the_form_or_basic() -> None:
    document = openapi_document()
    operation = document["paths"]["/oauth/token"]["post"]
    form = operation["requestBody"]["content"]["application/x-www-form-urlencoded"]["schema"]
    schema = _inlined(form, document)
    assert {"client_id", "client_secret", "grant_type"} <= set(schema["properties"])
    assert schema["properties"]["grant_type"]["enum"] == ["client_credentials"]
    assert "grant_type" in schema["required"]
    schemes = document["components"]["securitySchemes"]
    basic = [name for name, scheme in schemes.items() if scheme.get("scheme") == "basic"]
    assert len(basic) == 1
    assert {} in operation["security"], "credentials in the form body need no scheme"
    assert {basic[0]: []} in operation["security"]
    assert set(operation["responses"]) == {"200", "400"}
    assert "Cache-Control" in operation["responses"]["200"]["headers"]


def test_hubs_listing_pages_and_statuses() -> None:
    document = openapi_document()
    operation = document["paths"]["/v2/content/hubs"]["get"]
    parameters = {parameter["name"]: parameter for parameter in operation["parameters"]}
    assert parameters["page"]["in"] == "query"
    assert parameters["page"]["schema"]["minimum"] == 0
    assert parameters["size"]["schema"]["minimum"] == 1
    assert parameters["size"]["schema"]["maximum"] == 100
    schemes = document["components"]["securitySchemes"]
    (requirement,) = operation["security"]
    (scheme_name,) = requirement
    assert schemes[scheme_name]["type"] == "http"
    assert schemes[scheme_name]["scheme"].lower() == "bearer"
    responses = operation["responses"]
    assert {"200", "400", "401", "403"} <= set(responses)
    for status in ("400", "401", "403"):
        error_schema = responses[status]["content"]["application/json"]["schema"]
        assert error_schema == {"$ref": "#/components/schemas/ContentError"}
    assert responses["401"]["headers"]["WWW-Authenticate"]["required"] is True


def test_the_declared_page_bounds_are_the_servers() -> None:
    document = openapi_document()
    listing = document["paths"]["/v2/content/hubs"]["get"]["parameters"]
    inline = {parameter["name"]: parameter["schema"] for parameter in listing}
    shared = document["components"]["parameters"]
    for page, size in [
        (inline["page"], inline["size"]),
        (shared["Page"]["schema"], shared["Size"]["schema"]),
    ]:
        assert (page["minimum"], page["maximum"]) == (0, MAX_PAGE_NUMBER)
        assert (size["minimum"], size["maximum"]) == (1, MAX_PAGE_SIZE)

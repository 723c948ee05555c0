from __future__ import annotations

import base64
import re
from urllib.parse import quote, urlencode

import jwt
import pytest

from patgate.fake.deployment import Deployment
from patgate.fake.model import Role
from patgate.fake.world import DefaultWorld
from tests.wire.conftest import FORM, JSON, TOKEN_URL, Call

# RFC 6749 5.2: the characters error_description may use.
DESCRIPTION = re.compile(r"[\x20-\x21\x23-\x5b\x5d-\x7e]*")


def _form(**fields: str) -> str:
    return urlencode(fields)


def _good(world: DefaultWorld, **extra: str) -> str:
    return _form(
        client_id=world.client_id,
        client_secret=world.client_secret,
        grant_type="client_credentials",
        **extra,
    )


def _basic(client_id: str, secret: str) -> tuple[str, str]:
    raw = f"{quote(client_id, safe='')}:{quote(secret, safe='')}".encode()
    return ("Authorization", "Basic " + base64.b64encode(raw).decode())


def test_valid_credentials_get_a_bearer_token_that_is_not_cached(
    call: Call, world: DefaultWorld
) -> None:
    response = call("POST", TOKEN_URL, [FORM], _good(world))
    assert response.status == 200
    assert response.header("content-type") == "application/json"
    assert response.header("cache-control") == "no-store"
    assert response.header("pragma") == "no-cache"
    body = response.json()
    assert set(body) == {"access_token", "token_type", "expires_in", "session_expires_in"}
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 300
    assert isinstance(body["session_expires_in"], int)
    claims = jwt.decode(body["access_token"], options={"verify_signature": False})
    # exp rounds the issue up to the next second, iat down: never less than expires_in.
    assert claims["exp"] - claims["iat"] in (300, 301)


def test_the_form_content_type_may_carry_a_charset(call: Call, world: DefaultWorld) -> None:
    header = ("Content-Type", "Application/X-WWW-Form-Urlencoded; charset=UTF-8")
    assert call("POST", TOKEN_URL, [header], _good(world)).status == 200


def test_unknown_extra_parameters_are_ignored(call: Call, world: DefaultWorld) -> None:
    assert call("POST", TOKEN_URL, [FORM], _good(world, foo="bar")).status == 200


def test_an_unknown_id_and_a_wrong_secret_answer_byte_for_byte_alike(
    call: Call, world: DefaultWorld
) -> None:
    wrong = _form(client_id=world.client_id, client_secret="nope", grant_type="client_credentials")
    unknown = _form(
        client_id="0" * 36, client_secret=world.client_secret, grant_type="client_credentials"
    )
    first = call("POST", TOKEN_URL, [FORM], wrong)
    second = call("POST", TOKEN_URL, [FORM], unknown)
    assert first.status == second.status == 400
    assert first.body == second.body
    assert first.headers == second.headers
    assert first.json()["error"] == "invalid_client"


def test_basic_credentials_are_form_decoded(deployment: Deployment, call: Call) -> None:
    org = next(iter(deployment.organizations))
    user = deployment.add_user("B", "b@example.com", org, Role.ADMIN)
    client_id, _ = deployment.add_client(user.id, org)
    special = "a/b=c?d%e+f:g h"
    # The domain makes secrets; replace this client's with one full of special characters.
    from patgate.fake.model import ApiClient
    from patgate.fake.pat_format import PatFormat

    deployment.clients[client_id] = ApiClient(client_id, PatFormat.hash(special), user.id, org)
    body = _form(grant_type="client_credentials")
    assert call("POST", TOKEN_URL, [FORM, _basic(client_id, special)], body).status == 200
    wrong = call("POST", TOKEN_URL, [FORM, _basic(client_id, special + "x")], body)
    assert (wrong.status, wrong.json()["error"]) == (400, "invalid_client")


def test_the_basic_scheme_is_case_insensitive(call: Call, world: DefaultWorld) -> None:
    name, value = _basic(world.client_id, world.client_secret)
    header = (name, value.replace("Basic", "bAsIc"))
    body = _form(grant_type="client_credentials")
    assert call("POST", TOKEN_URL, [FORM, header], body).status == 200


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("client_id=a&client_secret=b", "invalid_request"),
        ("grant_type=password&client_id=a&client_secret=b", "unsupported_grant_type"),
        ("grant_type=authorization_code", "unsupported_grant_type"),
        ("grant_type=", "invalid_request"),
        ("grant_type=client_credentials&grant_type=client_credentials", "invalid_request"),
        ("grant_type[]=client_credentials", "invalid_request"),
        ("grant_type=client_credentials", "invalid_client"),
        ("grant_type=client_credentials&client_id=&client_secret=", "invalid_client"),
    ],
)
def test_oauth_errors_use_registered_codes(call: Call, body: str, error: str) -> None:
    response = call("POST", TOKEN_URL, [FORM], body)
    assert response.status == 400
    assert response.json()["error"] == error
    assert response.header("cache-control") == "no-store"


def test_a_repeated_client_id_is_refused(call: Call, world: DefaultWorld) -> None:
    body = _good(world) + f"&client_id={world.client_id}"
    assert call("POST", TOKEN_URL, [FORM], body).json()["error"] == "invalid_request"


def test_credentials_in_basic_and_body_are_refused(call: Call, world: DefaultWorld) -> None:
    headers = [FORM, _basic(world.client_id, world.client_secret)]
    response = call("POST", TOKEN_URL, headers, _good(world))
    assert (response.status, response.json()["error"]) == (400, "invalid_request")


def test_a_secret_in_the_query_string_never_authenticates(call: Call, world: DefaultWorld) -> None:
    url = f"{TOKEN_URL}?client_secret={world.client_secret}"
    body = _form(client_id=world.client_id, grant_type="client_credentials")
    response = call("POST", url, [FORM], body)
    assert response.status == 400
    assert "access_token" not in response.json()


@pytest.mark.parametrize(
    ("headers", "body"),
    [
        ([JSON], b'{"grant_type": "client_credentials"}'),
        ([("Content-Type", "multipart/form-data; boundary=x")], b"--x--"),
        ([], b"grant_type=client_credentials"),
    ],
)
def test_a_body_that_is_not_a_form_is_an_invalid_request(
    call: Call, headers: list[tuple[str, str]], body: bytes
) -> None:
    response = call("POST", TOKEN_URL, headers, body)
    assert (response.status, response.json()["error"]) == (400, "invalid_request")


def test_get_is_not_allowed(call: Call, world: DefaultWorld) -> None:
    response = call("GET", f"{TOKEN_URL}?{_good(world)}")
    assert response.status == 405
    assert response.header("allow") == "POST, OPTIONS"
    assert response.json()["error"] == "invalid_request"
    assert "access_token" not in response.json()


@pytest.mark.parametrize(
    "authorization",
    ["Basic !!!notbase64", "Basic " + base64.b64encode(b"no-colon").decode(), "Basic ", "Basic é"],
)
def test_malformed_basic_credentials_are_invalid_requests(call: Call, authorization: str) -> None:
    body = _form(grant_type="client_credentials")
    response = call("POST", TOKEN_URL, [FORM, ("Authorization", authorization)], body)
    assert (response.status, response.json()["error"]) == (400, "invalid_request")


def test_error_descriptions_never_echo_the_secret(call: Call, world: DefaultWorld) -> None:
    secret = 'S3cret"\\é<script>'
    bodies = [
        _form(client_id=world.client_id, client_secret=secret, grant_type="client_credentials"),
        _form(client_id=secret, client_secret=secret, grant_type=secret),
        _form(client_id=world.client_id, client_secret=secret) + "&grant_type=%zz",
    ]
    for body in bodies:
        response = call("POST", TOKEN_URL, [FORM], body)
        assert response.status == 400
        assert b"S3cret" not in response.body
        assert DESCRIPTION.fullmatch(response.json()["error_description"])

"""The token endpoint's rules and the client-credential token's lifetime, in the domain."""

from __future__ import annotations

import base64
import json
from datetime import datetime, timezone

import jwt
import pytest

from patgate.errors import InvalidClient, InvalidRequest, Unauthenticated, UnsupportedGrantType
from patgate.fake.clock import Clock
from patgate.fake.deployment import Deployment
from patgate.fake.world import DefaultWorld, build_default_world


def _segments(token: str) -> list[str]:
    return token.split(".")


def _b64(data: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def test_valid_credentials_get_a_300_second_token(
    deployment: Deployment, world: DefaultWorld
) -> None:
    issued = deployment.issue_client_token(
        world.client_id, world.client_secret, "client_credentials"
    )
    claims = jwt.decode(issued.access_token, options={"verify_signature": False})
    assert issued.expires_in == 300
    # 300, or 301 when the issue fell within a second (exp rounds up, iat down).
    assert claims["exp"] - claims["iat"] in (300, 301)
    assert issued.session_expires_in > 0
    principal = deployment.authenticate(issued.access_token)
    assert (principal.user_id, principal.via) == (world.admin_id, "client")


@pytest.mark.parametrize(
    ("client_id", "secret"),
    [("right", "wrong"), ("unknown", "right"), ("right", ""), ("", "")],
)
def test_a_bad_id_or_secret_is_invalid_client(
    deployment: Deployment, world: DefaultWorld, client_id: str, secret: str
) -> None:
    given_id = world.client_id if client_id == "right" else client_id
    given_secret = world.client_secret if secret == "right" else secret
    with pytest.raises(InvalidClient) as raised:
        deployment.issue_client_token(given_id, given_secret, "client_credentials")
    assert raised.value.rule_id == "TOKEN-BAD-CREDENTIALS"
    assert world.client_secret not in str(raised.value)


def test_an_unknown_id_and_a_wrong_secret_read_the_same(
    deployment: Deployment, world: DefaultWorld
) -> None:
    messages = set()
    for client_id, secret in [(world.client_id, "nope"), ("nobody", world.client_secret)]:
        with pytest.raises(InvalidClient) as raised:
            deployment.issue_client_token(client_id, secret, "client_credentials")
        messages.add(str(raised.value))
    assert len(messages) == 1


@pytest.mark.parametrize(
    ("grant_type", "error"),
    [(None, InvalidRequest), ("", InvalidRequest), ("password", UnsupportedGrantType)],
)
def test_only_client_credentials_is_granted(
    deployment: Deployment, world: DefaultWorld, grant_type: str | None, error: type[Exception]
) -> None:
    with pytest.raises(error):
        deployment.issue_client_token(world.client_id, world.client_secret, grant_type)


def test_a_client_token_expires_after_expires_in(
    deployment: Deployment, world: DefaultWorld
) -> None:
    token = deployment.issue_client_token(
        world.client_id, world.client_secret, "client_credentials"
    ).access_token
    deployment.clock.advance(299)
    deployment.authenticate(token)
    deployment.clock.advance(2)  # past exp, whatever fraction of a second the issue fell on
    with pytest.raises(Unauthenticated) as raised:
        deployment.authenticate(token)
    assert raised.value.rule_id == "CLIENT-TOKEN-EXPIRY"


def test_a_token_issued_within_a_second_lives_its_whole_expires_in() -> None:
    # Issued at .6 s: iat and nbf round down (usable at once), exp up (never early).
    issued_at = datetime(2026, 3, 1, 12, 0, 0, 600_000, tzinfo=timezone.utc)
    deployment = Deployment(clock=Clock(issued_at))
    world = build_default_world(deployment)
    token = deployment.issue_client_token(
        world.client_id, world.client_secret, "client_credentials"
    ).access_token
    claims = jwt.decode(token, options={"verify_signature": False})
    whole = int(issued_at.timestamp())
    assert (claims["iat"], claims["nbf"], claims["exp"]) == (whole, whole, whole + 1 + 300)
    deployment.authenticate(token)
    deployment.clock.advance(300)  # issue + expires_in exactly: still valid
    deployment.authenticate(token)
    deployment.clock.advance(0.4)  # the whole second exp names
    with pytest.raises(Unauthenticated):
        deployment.authenticate(token)


def test_tampered_client_tokens_are_refused(deployment: Deployment, world: DefaultWorld) -> None:
    token = deployment.issue_client_token(
        world.client_id, world.client_secret, "client_credentials"
    ).access_token
    header, payload, signature = _segments(token)
    claims = jwt.decode(token, options={"verify_signature": False})
    flipped = signature[:-2] + ("A" if signature[-2] != "A" else "B") + signature[-1]
    edited = _b64({**claims, "uid": world.member_id})
    unsigned = f"{_b64({'alg': 'none', 'typ': 'at+jwt'})}.{payload}."
    confused = jwt.encode(
        claims, "a-guessed-key-of-the-right-length-32", algorithm="HS256", headers={"typ": "at+jwt"}
    )
    for bad in (
        f"{header}.{payload}.{flipped}",
        f"{header}.{edited}.{signature}",
        unsigned,
        confused,
    ):
        with pytest.raises(Unauthenticated):
            deployment.authenticate(bad)


def test_a_token_of_a_revoked_client_stops_working(
    deployment: Deployment, world: DefaultWorld
) -> None:
    token = deployment.issue_client_token(
        world.client_id, world.client_secret, "client_credentials"
    ).access_token
    del deployment.clients[world.client_id]
    with pytest.raises(Unauthenticated):
        deployment.authenticate(token)


def test_missing_and_garbage_bearers_are_unauthenticated(deployment: Deployment) -> None:
    for bearer in (None, "", "garbage", "eyJ.not.ajwt", "x" * 70_000):
        with pytest.raises(Unauthenticated):
            deployment.authenticate(bearer)

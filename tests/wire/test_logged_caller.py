"""The request log names each request's caller as the endpoint's authentication found it,
checking the bearer once, and as the deployment identifies it when no endpoint did."""

from __future__ import annotations

import json

import pytest

from patgate import Fake
from patgate.fake.deployment import Deployment
from patgate.wire.messages import WireRequest

LISTING = "{ viewer { personalAccessTokens { id name } } }"


def _graphql(fake: Fake, token: str, body: object, content_type: str = "application/json") -> int:
    request = WireRequest(
        "POST",
        fake.urls.graphql_url,
        (("authorization", f"Bearer {token}"), ("content-type", content_type)),
        json.dumps(body).encode(),
    )
    response = fake.handle(request)
    assert response is not None
    return response.status


@pytest.fixture
def fake() -> Fake:
    return Fake()


def test_a_pat_is_checked_once_per_request_and_its_user_logged(
    fake: Fake, monkeypatch: pytest.MonkeyPatch
) -> None:
    checks: list[str] = []
    original = Deployment.pat_secret_matches

    def counted(self: Deployment, value: str, record: object) -> bool:
        checks.append(value)
        return original(self, value, record)  # type: ignore[arg-type]

    monkeypatch.setattr(Deployment, "pat_secret_matches", counted)
    assert _graphql(fake, fake.default_world.admin_token, {"query": LISTING}) == 200
    assert len(checks) == 1
    entry = fake.request_log[-1]
    assert (entry.principal, entry.via) == (fake.default_world.admin_id, "pat")


def test_a_client_token_is_logged_as_the_client_user(fake: Fake) -> None:
    issued = fake.deployment.issue_client_token(
        fake.default_world.client_id, fake.default_world.client_secret, "client_credentials"
    )
    assert _graphql(fake, issued.access_token, {"query": LISTING}) == 200
    entry = fake.request_log[-1]
    assert entry.via == "client"
    assert entry.principal is not None


def test_a_pat_deleting_itself_is_logged_as_its_user(fake: Fake) -> None:
    admin = fake.deployment.authenticate(fake.default_world.admin_token)
    created = fake.deployment.create_token(admin, "self", fake.default_world.organization_id)
    delete = "mutation($id: ID!) { deletePersonalAccessToken(input: {id: $id}) }"
    body = {"query": delete, "variables": {"id": created.record.id}}
    assert _graphql(fake, created.value, body) == 200
    assert fake.deployment.identify(created.value) is None  # gone after the request
    assert fake.request_log[-1].principal == fake.default_world.admin_id


def test_a_request_refused_before_authentication_still_names_its_caller(fake: Fake) -> None:
    token = fake.default_world.member_token
    assert _graphql(fake, token, {"query": LISTING}, content_type="text/plain") == 415
    entry = fake.request_log[-1]
    assert (entry.principal, entry.via) == (fake.default_world.member_id, "pat")


def test_a_bad_bearer_names_no_caller(fake: Fake) -> None:
    assert _graphql(fake, fake.default_world.admin_token + "x", {"query": LISTING}) == 401
    assert fake.request_log[-1].principal is None


def test_the_callers_of_two_fakes_are_not_mixed(fake: Fake) -> None:
    other = Fake(urls={"base_url": "https://other.test", "auth_url": "https://auth.other.test"})
    # The same bearer is valid on the first fake only; the second must not borrow its answer.
    token = fake.default_world.admin_token
    assert _graphql(fake, token, {"query": LISTING}) == 200
    assert _graphql(other, token, {"query": LISTING}) == 401
    assert other.request_log[-1].principal is None
    assert fake.request_log[-1].principal == fake.default_world.admin_id

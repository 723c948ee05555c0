from __future__ import annotations

import io

import pytest
import requests

from patgate.harness import Fake
from patgate.wire import UnmatchedRequest
from tests.transports.test_httpx_adapter import BrokenHubs


def _form(fake: Fake) -> dict[str, str]:
    world = fake.world
    return {
        "client_id": world["client_id"],
        "client_secret": world["client_secret"],
        "grant_type": "client_credentials",
    }


def test_other_hosts_reach_the_network_and_stopping_ends_interception(elsewhere: str) -> None:
    with Fake(urls={"auth_url": elsewhere + "/auth"}) as fake:
        assert requests.get(elsewhere + "/other", timeout=5).text == "elsewhere"
        token = requests.post(fake.world["auth_url"] + "/oauth/token", data=_form(fake), timeout=5)
        assert token.status_code == 200
    after = requests.post(fake.world["auth_url"] + "/oauth/token", data=_form(fake), timeout=5)
    assert after.text == "elsewhere"


def test_strict_mode_refuses_other_hosts(elsewhere: str) -> None:
    with Fake(strict=True), pytest.raises(UnmatchedRequest, match="the fake serves"):
        requests.get(elsewhere + "/other", timeout=5)


def test_a_bug_in_the_fake_reaches_the_test() -> None:
    with Fake(deployment=BrokenHubs()) as fake, pytest.raises(RuntimeError, match="bug"):
        requests.get(
            fake.world["base_url"] + "/v2/content/hubs",
            headers={"Authorization": f"Bearer {fake.world['admin_token']}"},
            timeout=5,
        )


@pytest.mark.parametrize("kind", ["bytes", "str", "file", "generator"])
def test_every_kind_of_request_body_is_read(kind: str) -> None:
    with Fake() as fake:
        raw = "&".join(f"{k}={v}" for k, v in _form(fake).items())
        body: object = {
            "bytes": raw.encode(),
            "str": raw,
            "file": io.BytesIO(raw.encode()),
            "generator": (part.encode() for part in (raw[:10], raw[10:])),
        }[kind]
        response = requests.post(
            fake.world["auth_url"] + "/oauth/token",
            data=body,  # type: ignore[arg-type]
            headers={"Content-Type": "application/x-www-form-urlencoded"},
            timeout=5,
        )
    assert response.status_code == 200, response.text
    assert response.headers["Content-Length"] == str(len(response.content))


def test_a_wrapped_answer_with_mapping_headers_reaches_both_libraries() -> None:
    import httpx

    from patgate.wire import WireResponse

    def wrap(app):  # type: ignore[no-untyped-def]
        return lambda request: WireResponse(418, {"Retry-After": "3"}, b"teapot")

    with Fake(wrap_app=wrap) as fake:
        url = fake.world["base_url"] + "/v2/content/hubs"
        answer = requests.get(url, timeout=5)
        assert (answer.status_code, answer.headers["Retry-After"], answer.text) == (
            418,
            "3",
            "teapot",
        )
        assert httpx.get(url).headers["Retry-After"] == "3"

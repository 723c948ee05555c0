"""Several fakes at once: each answers its own URLs with both libraries; overlapping URLs
are refused when the second fake starts."""

from __future__ import annotations

import httpx
import pytest
import requests

from patgate.errors import UsageError
from patgate.harness import Fake
from patgate.wire import UnmatchedRequest


def _hubs_count(fake: Fake, via: str) -> int:
    world = fake.world
    url = world["base_url"] + "/v2/content/hubs"
    auth = {"Authorization": "Bearer " + world["admin_token"]}
    if via == "httpx":
        answer = httpx.get(url, headers=auth)
        assert answer.status_code == 200, answer.text
        count: int = answer.json()["page"]["totalElements"]
    else:
        response = requests.get(url, headers=auth, timeout=5)
        assert response.status_code == 200, response.text
        count = response.json()["page"]["totalElements"]
    return count


@pytest.mark.parametrize("via", ["httpx", "requests"])
def test_two_fakes_each_answer_their_own_urls(via: str) -> None:
    first = Fake(urls={"base_url": "https://one.test", "auth_url": "https://auth.one.test"})
    second = Fake(urls={"base_url": "https://two.test", "auth_url": "https://auth.two.test"})
    second.add_hub("only in the second")
    with first, second:
        # Each fake's own token works only on its own URLs: the request reached that fake.
        assert _hubs_count(first, via) == 3
        assert _hubs_count(second, via) == 4
        assert len(first.request_log) == 1
        assert len(second.request_log) == 1
    # After the second stops, the first still answers.
    with first:
        assert _hubs_count(first, via) == 3


def test_a_second_fake_on_the_same_urls_is_a_clear_error() -> None:
    with Fake(), pytest.raises(UsageError, match=r"already active on https://auth\.amplience\.net"):
        Fake().start()


def test_a_fake_under_another_fakes_url_is_refused_too() -> None:
    with (
        Fake(urls={"base_url": "https://one.test"}),
        pytest.raises(UsageError, match=r"already active on https://one\.test/api"),
    ):
        Fake(urls={"base_url": "https://one.test/api", "auth_url": "https://auth.two.test"}).start()


def test_a_refused_fake_leaves_the_first_one_working() -> None:
    with Fake() as first:
        second = Fake()
        with pytest.raises(UsageError):
            second.start()
        assert not second.active
        assert _hubs_count(first, "httpx") == 3
        assert _hubs_count(first, "requests") == 3


def test_one_strict_fake_refuses_the_network_for_both_libraries() -> None:
    with (
        Fake(urls={"base_url": "https://one.test"}),
        Fake(
            urls={"base_url": "https://two.test", "auth_url": "https://auth.two.test"}, strict=True
        ),
    ):
        with pytest.raises(UnmatchedRequest, match="would reach the network"):
            httpx.get("http://127.0.0.1:9/elsewhere")
        with pytest.raises(UnmatchedRequest, match="would reach the network"):
            requests.get("http://127.0.0.1:9/elsewhere", timeout=5)

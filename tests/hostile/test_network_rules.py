"""Requests go only to the target, secrets never over plain http off loopback, environment
proxies are ignored unless asked for, and answers are read only up to the size cap."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from patgate.runner import LiveTarget, resolve_target_config
from patgate.runner.connection.exchange import Exchange, NetworkPolicy, RequestFailed, origin_of

from .server import Server


@pytest.fixture
def target_server() -> Iterator[Server]:
    with Server(None) as server:
        yield server


@pytest.fixture
def other_server() -> Iterator[Server]:
    with Server(None) as server:
        yield server


@pytest.fixture
def exchanges() -> Iterator[list[Exchange]]:
    made: list[Exchange] = []
    yield made
    for exchange in made:
        exchange.close()


@pytest.fixture
def exchange_for(exchanges: list[Exchange], tmp_path: Path) -> Callable[..., Exchange]:
    def make(server: Server, **policy: Any) -> Exchange:
        world = tmp_path / "w.json"
        server.write_world(world)
        config = resolve_target_config(world)
        assert config is not None
        exchange = Exchange(LiveTarget(config), read_timeout=5, network=NetworkPolicy(**policy))
        exchanges.append(exchange)
        return exchange

    return make


def seen(server: Server) -> int:
    return server.received


def test_origins_are_compared_with_their_default_ports() -> None:
    assert origin_of("https://Api.Example.test/v2") == "https://api.example.test:443"
    assert origin_of("http://[::1]:8080/x") == "http://[::1]:8080"
    assert origin_of("not a url") == ""


def test_a_request_to_another_origin_is_refused_unsent(
    target_server: Server, other_server: Server, exchange_for: Callable[..., Exchange]
) -> None:
    exchange = exchange_for(target_server)
    with pytest.raises(RequestFailed, match="not one of the target's origins") as refused:
        exchange.send("GET", other_server.base_url + "/v2/content/hubs", kind="http")
    assert refused.value.sent is False
    assert "--allow-origin" in str(refused.value)
    assert seen(other_server) == 0


def test_allow_origin_names_another_origin(
    target_server: Server, other_server: Server, exchange_for: Callable[..., Exchange]
) -> None:
    exchange = exchange_for(target_server, extra_origins=(other_server.base_url,))
    observed = exchange.send("GET", other_server.base_url + "/v2/content/hubs", kind="http")
    assert observed.status == 401
    assert seen(other_server) == 1


@pytest.mark.parametrize(
    "credential",
    [
        {"headers": {"Authorization": "Bearer abc"}},
        {"basic": ("id", "secret")},
        {"form": {"client_secret": "SECRET"}},
    ],
)
def test_a_credential_never_goes_over_plain_http_off_loopback(
    target_server: Server, exchange_for: Callable[..., Exchange], credential: dict[str, Any]
) -> None:
    exchange = exchange_for(target_server, extra_origins=("http://192.0.2.1",))
    secret = target_server.fake.world["client_secret"]
    if "form" in credential:
        credential = {"form": {"client_secret": secret}}
    with pytest.raises(RequestFailed, match="never sent over plain http") as refused:
        exchange.send("POST", "http://192.0.2.1/oauth/token", kind="http", **credential)  # type: ignore[arg-type]
    assert refused.value.sent is False


def test_environment_proxies_are_ignored_unless_asked_for(
    target_server: Server,
    other_server: Server,
    exchange_for: Callable[..., Exchange],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.setenv(name, other_server.base_url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    url = target_server.base_url + "/v2/content/hubs"
    exchange_for(target_server).send("GET", url, kind="http")
    assert (seen(target_server), seen(other_server)) == (1, 0)
    exchange_for(target_server, use_env_proxy=True).send("GET", url, kind="http")
    assert seen(other_server) == 1, "the proxy got the request once asked to"


def test_an_answer_over_the_size_cap_fails_its_request(
    target_server: Server, exchange_for: Callable[..., Exchange]
) -> None:
    exchange = exchange_for(target_server, max_response_bytes=20)
    with pytest.raises(RequestFailed, match=r"larger than 20 bytes|announces"):
        exchange.send("GET", target_server.base_url + "/v2/content/hubs", kind="http")


def test_the_flags_reach_the_run(target_server: Server, tmp_path: Path) -> None:
    from patgate.cli import main

    world = tmp_path / "w.json"
    target_server.write_world(world)
    report = tmp_path / "r.json"
    code = main(
        ["run", "--world", str(world), "--max-response-bytes", "10", "--report", f"json:{report}"]
    )
    assert code == 1
    text = json.dumps(json.loads(report.read_text(encoding="utf-8")))
    assert "--max-response-bytes" in text

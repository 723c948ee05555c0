"""One parametrized fixture, ``client``, that speaks to the fake through each transport.

``httpx`` and ``requests`` go through the in-process interception of a started ``Fake``;
``server`` crosses a real loopback socket to a ``LoopbackServer``. A behaviour test written
against ``client`` therefore proves the three transports answer alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import requests

from patgate.harness import Fake
from patgate.transports.loopback_server import LoopbackServer
from patgate.wire import WireRequest, WireResponse


@pytest.fixture
def elsewhere() -> Iterator[str]:
    """A real HTTP server on loopback that is not the fake: it answers 200 ``elsewhere``."""

    def answer(request: WireRequest) -> WireResponse:
        return WireResponse(200, (("Content-Type", "text/plain"),), b"elsewhere")

    with LoopbackServer() as server:
        server.start(answer)
        yield server.base_url


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    """Lower-cased names."""
    body: bytes

    def json(self) -> Any:
        import json

        return json.loads(self.body)


class Client:
    """A neutral HTTP client over one transport; ``world`` is the fake's target file."""

    def __init__(self, transport: str, fake: Fake) -> None:
        self.transport = transport
        self.fake = fake
        self.world = fake.world
        self._httpx = httpx.Client() if transport != "requests" else None
        self._requests = requests.Session() if transport == "requests" else None

    def request(
        self,
        method: str,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        data: dict[str, str] | None = None,
        json: Any = None,
        content: bytes | None = None,
    ) -> Answer:
        if self._httpx is not None:
            response = self._httpx.request(
                method, url, headers=headers, data=data, json=json, content=content
            )
            return Answer(
                response.status_code,
                {k.lower(): v for k, v in response.headers.items()},
                response.content,
            )
        assert self._requests is not None
        answer = self._requests.request(
            method, url, headers=headers, data=content if content is not None else data, json=json
        )
        return Answer(
            answer.status_code, {k.lower(): v for k, v in answer.headers.items()}, answer.content
        )

    def close(self) -> None:
        if self._httpx is not None:
            self._httpx.close()
        if self._requests is not None:
            self._requests.close()


@pytest.fixture(params=["httpx", "requests", "server"])
def client(request: pytest.FixtureRequest) -> Iterator[Client]:
    transport: str = request.param
    if transport == "server":
        server = LoopbackServer()
        fake = Fake(urls=server.urls)
        server.start(fake.handle)
        speaker = Client(transport, fake)
        try:
            yield speaker
        finally:
            speaker.close()
            server.stop()
        return
    with Fake() as fake:
        speaker = Client(transport, fake)
        yield speaker
        speaker.close()

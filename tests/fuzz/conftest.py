"""Fakes with one fault each, for showing that a fuzz run catches it.

Nothing here imports schemathesis: the test modules skip themselves when it is missing.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from patgate.fake.deployment import Deployment
from patgate.fake.model import HubPage, Principal
from patgate.harness import Fake
from patgate.wire.messages import WireHandler, WireRequest, WireResponse
from patgate.wire.urls import FakeUrls

ORIGIN = "https://fake.patgate.invalid"

Fault = Callable[[WireRequest, WireResponse], WireResponse]


def faulty_fake(fault: Fault) -> Fake:
    """A strict fake on the fuzzer's origin whose answers pass through ``fault``."""

    def wrap(app: WireHandler) -> WireHandler:
        def answer(request: WireRequest) -> WireResponse | None:
            response = app(request)
            return None if response is None else fault(request, response)

        return answer

    return Fake(urls=FakeUrls.same_origin(ORIGIN), strict=True, wrap_app=wrap)


def with_json(response: WireResponse, body: object, status: int | None = None) -> WireResponse:
    """``response`` with another JSON body (and status)."""
    return WireResponse(
        response.status if status is None else status,
        response.headers,
        json.dumps(body).encode(),
    )


class BrokenHubs(Deployment):
    """A deployment with a bug: the hubs listing raises instead of answering."""

    def list_hubs(self, principal: Principal, *, page: int = 0, size: int = 20) -> HubPage:
        raise RuntimeError("bug in list_hubs")


def broken_fake() -> Fake:
    """A strict fake on the fuzzer's origin whose hubs listing raises."""
    return Fake(deployment=BrokenHubs(), urls=FakeUrls.same_origin(ORIGIN), strict=True)

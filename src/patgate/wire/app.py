"""The fake's one HTTP application: a route table from URL to endpoint, and request limits.

``WireApp(deployment, urls)`` is a :data:`~patgate.wire.messages.WireHandler`: every
transport (httpx, requests, the loopback server) calls it and so gets the same answers. It
returns ``None`` for a URL outside the fake's bases, which the transport passes to the
network (or refuses, in strict mode).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from patgate.fake.deployment import Deployment
from patgate.wire.content_api import HubsEndpoint, errors_body
from patgate.wire.endpoint import Endpoint
from patgate.wire.fault_answers import fault_answer, fault_for
from patgate.wire.graph_endpoint import GraphEndpoint
from patgate.wire.messages import WireRequest, WireResponse, json_response
from patgate.wire.request_log import RequestLog
from patgate.wire.statuses import HttpRefusal
from patgate.wire.token_endpoint import TokenEndpoint
from patgate.wire.urls import FakeUrls, canonical_url

if TYPE_CHECKING:
    from patgate.ui.site import ManagementUi

__all__ = ["MAX_BODY_BYTES", "MAX_HEADERS", "MAX_HEADER_BYTES", "WireApp"]

MAX_BODY_BYTES = 1024 * 1024
"""Bodies above 1 MiB are refused with 413 before anything reads them."""
MAX_HEADER_BYTES = 16 * 1024
"""One header value above 16 KiB is refused with 431."""
MAX_HEADERS = 100
"""More header fields than this are refused with 431."""


class WireApp:
    """Routes a :class:`WireRequest` to the token endpoint, the hubs listing or GraphQL."""

    def __init__(
        self,
        deployment: Deployment,
        urls: FakeUrls | None = None,
        request_log: RequestLog | None = None,
    ) -> None:
        self.deployment = deployment
        self.urls = urls if urls is not None else FakeUrls()
        self.request_log = request_log
        self._ui: ManagementUi | None = None
        endpoints: tuple[tuple[str, type[Endpoint]], ...] = (
            (self.urls.token_url, TokenEndpoint),
            (self.urls.hubs_url, HubsEndpoint),
            (self.urls.graphql_url, GraphEndpoint),
        )
        self._routes: dict[str, Endpoint] = {
            url: cls(deployment, self.urls) for url, cls in endpoints
        }

    def __call__(self, request: WireRequest) -> WireResponse | None:
        key = canonical_url(request.url)
        endpoint = self._routes.get(key)
        if endpoint is None:
            if key == self.urls.ui_url or key.startswith(self.urls.ui_url + "/"):
                return self._management_ui()(request)
            return self._not_found() if self.urls.serves_canonical(key) else None
        if request.method not in endpoint.methods:
            allow = ", ".join(endpoint.methods)
            return endpoint.refuse(
                HttpRefusal(
                    405,
                    f"this endpoint answers {allow} only",
                    code="METHOD_NOT_ALLOWED",
                    headers=(("Allow", allow),),
                )
            )
        refusal = _limits(request)
        if refusal is not None:
            return endpoint.refuse(refusal)
        fault = fault_for(self.deployment, self.urls, request, key)
        if fault is not None:
            return fault_answer(
                fault,
                endpoint.refuse,
                lambda: endpoint.answer(request, urlsplit(request.url).query),
            )
        return endpoint.answer(request, urlsplit(request.url).query)

    def _management_ui(self) -> ManagementUi:
        # Built on first use: the page's modules cost nothing to a fake nobody browses.
        if self._ui is None:
            from patgate.ui.operations import UiOperations
            from patgate.ui.site import ManagementUi

            operations = UiOperations(self.deployment, self.request_log)
            self._ui = ManagementUi(operations, self.urls.ui_url)
        return self._ui

    def _not_found(self) -> WireResponse:
        served = "; ".join(f"{method} {url}" for method, url in self.urls.endpoints())
        return json_response(404, errors_body(f"not found; this fake serves {served}"))


def _limits(request: WireRequest) -> HttpRefusal | None:
    if len(request.headers) > MAX_HEADERS:
        return HttpRefusal(431, "the request has too many header fields", code="HEADERS_TOO_LARGE")
    for _name, value in request.headers:
        if len(value) > MAX_HEADER_BYTES:
            return HttpRefusal(
                431, "a request header field is larger than 16 KiB", code="HEADERS_TOO_LARGE"
            )
    if len(request.body) > MAX_BODY_BYTES:
        return HttpRefusal(413, "the request body is larger than 1 MiB", code="PAYLOAD_TOO_LARGE")
    return None

"""Users' own content API paths, served behind the fake's authorization.

A downstream test whose code reads, say, content items registers the path and its answer::

    fake.content.add("/content-items/{id}", lambda call: {"id": call.params["id"]})

and the path then gets the content API's token rules exactly as the built-in routes do: 401
with a Bearer challenge for a missing or invalid token, 403 for a removed user or one without
content permission, and only then the registered answer. ``path`` is relative to
``{base_url}/v2/content``; ``{name}`` segments are path parameters.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from patgate.fake.content import ContentRecord
from patgate.fake.deployment import Deployment
from patgate.service.api_paths import CONTENT_PREFIX
from patgate.wire.content_api import HAL_TYPE, ContentEndpoint
from patgate.wire.endpoint import Call, Endpoint
from patgate.wire.messages import WireRequest, WireResponse, json_response
from patgate.wire.urls import FakeUrls

__all__ = ["ContentCall", "ContentPaths"]

_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE"})


@dataclass(frozen=True)
class ContentCall:
    """What a registered answer sees: path parameters, query, the caller, the body."""

    method: str
    params: Mapping[str, str]
    query: str
    user_id: str
    organization_id: str
    body: bytes

    def json(self) -> Any:
        """The request body decoded as JSON."""
        return json.loads(self.body)


Answer = Callable[[ContentCall], Any]


class MountsRoutes(Protocol):
    """What registering a path needs of the app (:class:`~patgate.wire.app.WireApp` is one)."""

    @property
    def deployment(self) -> Deployment: ...

    @property
    def urls(self) -> FakeUrls: ...

    def mount(self, base: str, path: str, endpoint: Endpoint) -> None: ...


class _UserEndpoint(ContentEndpoint):
    """One registered path: an answer per method."""

    def __init__(self, app: MountsRoutes) -> None:
        super().__init__(app.deployment, app.urls)
        self.answers: dict[str, tuple[int, Any]] = {}
        self.methods = ()

    def respond(self, request: WireRequest, call: Call) -> WireResponse:
        """The registered answer, for a caller with content permission."""
        assert call.principal is not None, "content routes are authorized before routing"
        self.deployment.authorize_content_reader(call.principal)
        status, answer = self.answers[request.method]
        if callable(answer):
            seen = ContentCall(
                request.method,
                call.params,
                call.query,
                call.principal.user_id,
                call.principal.organization_id,
                request.body,
            )
            answer = answer(seen)
        if isinstance(answer, WireResponse):
            return answer
        return json_response(status, answer, (), HAL_TYPE)


class ContentPaths:
    """``fake.content``: register extra content API paths; add records to the seeded hubs."""

    def __init__(self, app: MountsRoutes) -> None:
        self._app = app
        self._endpoints: dict[str, _UserEndpoint] = {}

    def add(
        self, path: str, answer: Any | Answer, *, method: str = "GET", status: int = 200
    ) -> None:
        """Serve ``method`` on ``{base_url}/v2/content`` + ``path`` with ``answer``.

        ``answer`` is a JSON-ready body, or a callable taking a :class:`ContentCall` and
        returning one (or a :class:`~patgate.wire.messages.WireResponse` for full control).
        A path or method the fake already serves raises ``ValueError``.
        """
        method = method.upper()
        if method not in _METHODS:
            raise ValueError(f"method must be one of {', '.join(sorted(_METHODS))}")
        if not path.startswith("/"):
            raise ValueError("path must start with '/', relative to {base_url}/v2/content")
        endpoint = self._endpoints.get(path)
        if endpoint is None:
            endpoint = _UserEndpoint(self._app)
            self._app.mount(self._app.urls.base_url, CONTENT_PREFIX + path, endpoint)
            self._endpoints[path] = endpoint
        if method in endpoint.answers:
            raise ValueError(f"{method} {path} is already registered")
        endpoint.answers[method] = (status, answer)
        endpoint.methods = tuple(sorted(endpoint.answers))

    def add_record(self, kind: str, hub_id: str, **fields: Any) -> ContentRecord:
        """Add a record of ``kind`` (``"webhooks"``, ...) to a hub; see ``fake.content``."""
        return self._app.deployment.content.add(kind, hub_id, **fields)

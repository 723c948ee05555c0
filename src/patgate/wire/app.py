"""The fake's one HTTP application: the route table, the content API's gate, request limits.

``WireApp(deployment, urls)`` is a :data:`~patgate.wire.messages.WireHandler`: every
transport (httpx, requests, the loopback server) calls it and so gets the same answers. It
returns ``None`` for a URL outside the fake's bases, which the transport passes to the
network (or refuses, in strict mode).

A request is answered in this order:

0. under a mounted subtree (the management page, which ``patgate.harness`` mounts with
   :meth:`WireApp.mount_subtree`): its handler, which answers for itself;
1. under ``{base_url}/v2/content``: size limits, then the bearer (401) and the caller's
   permission (403), on every path, known or not;
2. the route table: an unknown path is 404, a known path with another method 405 with
   ``Allow``; ``HEAD`` is answered wherever ``GET`` is, and ``OPTIONS`` with ``Allow``
   (:mod:`patgate.wire.methods`, for the page too);
3. size limits (outside the content API), a fault rule a test set, then the endpoint.

Mounting more routes (a control API under a reserved prefix) is one call per route::

    app.mount(app.urls.base_url, "/_patgate/control/users/{user_id}", MyEndpoint(...))

and a handler that answers for a URL and everything below it (a page with its own routing)
is one call too: ``app.mount_subtree(app.urls.base_url, "/ui", handler)``.

where ``MyEndpoint`` subclasses :class:`~patgate.wire.endpoint.Endpoint` (``methods``,
``respond(request, call)`` with ``call.params["user_id"]``, ``render``). A path mounted under
``/v2/content`` gets the content API's authorization like every other.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from patgate.basics.reasons import Reason
from patgate.errors import DomainError, NotFound
from patgate.fake.deployment import Deployment
from patgate.fake.model import Principal
from patgate.service.api_paths import CONTENT_PREFIX
from patgate.wire.content_api import ContentEndpoint, authorize
from patgate.wire.endpoint import Call, Endpoint
from patgate.wire.fault_answers import announce_rate_limit, fault_answer, fault_for
from patgate.wire.messages import WireRequest, WireResponse
from patgate.wire.methods import with_implicit_methods
from patgate.wire.request_log import RequestLog
from patgate.wire.router import RouteMatch, Router
from patgate.wire.routes import EndpointFactory, served_routes
from patgate.wire.statuses import HttpRefusal
from patgate.wire.urls import FakeUrls, canonical_url

if TYPE_CHECKING:
    from patgate.wire.user_content import ContentPaths

__all__ = ["MAX_BODY_BYTES", "MAX_HEADERS", "MAX_HEADER_BYTES", "WireApp"]

Subtree = Callable[[WireRequest], WireResponse]
"""A handler answering a URL and every URL below it (see :meth:`WireApp.mount_subtree`)."""

MAX_BODY_BYTES = 1024 * 1024
"""Bodies above 1 MiB are refused with 413 before anything reads them."""
MAX_HEADER_BYTES = 16 * 1024
"""One header value above 16 KiB is refused with 431."""
MAX_HEADERS = 100
"""More header fields than this are refused with 431."""


class _Unrouted(ContentEndpoint):
    """Answers what no route serves, in the content API's error shape."""

    def __init__(self, deployment: Deployment, urls: FakeUrls, router: Router[Endpoint]) -> None:
        super().__init__(deployment, urls)
        # The router, not the app: no reference cycle, so a dropped fake is freed at once.
        self.router = router

    def respond(self, request: WireRequest, call: Call) -> WireResponse:
        raise NotFound(
            f"not found; this fake serves {describe_routes(self.router)}",
            reason=no_route(request, [template for template, _ in self.router]),
        )


class WireApp:
    """Routes a :class:`WireRequest` to the endpoint serving its URL."""

    def __init__(
        self,
        deployment: Deployment,
        urls: FakeUrls | None = None,
        request_log: RequestLog | None = None,
    ) -> None:
        self.deployment = deployment
        self.urls = urls if urls is not None else FakeUrls()
        self.request_log = request_log
        self._subtrees: tuple[tuple[str, str, Subtree], ...] = ()
        """Canonical URL, the same with a ``/`` after it, and the handler answering it and
        every URL below it."""
        self.router: Router[Endpoint] = Router()
        """Canonical URL template -> endpoint; :meth:`mount` adds to it."""
        self._content_base = self.urls.base_url + CONTENT_PREFIX
        self._below_content = self._content_base + "/"
        self._unrouted = _Unrouted(deployment, self.urls, self.router)
        for template, factory in _builtin_routes(self.urls):
            self.router.add(template, factory(deployment, self.urls))

    def mount(self, base: str, path: str, endpoint: Endpoint) -> None:
        """Serve ``base + path`` (``{name}`` segments are path parameters) with ``endpoint``.

        ``base`` must be one of this app's base URLs (``app.urls.base_url``, ...); a URL the
        app already serves raises ``ValueError``.
        """
        self.router.add(_route_template(self.urls, base, path), endpoint)

    def mount_subtree(self, base: str, path: str, handler: Subtree) -> None:
        """Let ``handler`` answer ``base + path`` and every URL below it, before the route
        table and any fault rule (a page that routes, signs in and refuses for itself).

        ``base`` must be one of this app's base URLs; a subtree already mounted raises
        ``ValueError``.
        """
        prefix = _route_template(self.urls, base, path).rstrip("/")
        if any(prefix == mounted for mounted, _, _ in self._subtrees):
            raise ValueError(f"{prefix} is already mounted")
        self._subtrees = (*self._subtrees, (prefix, prefix + "/", handler))

    @functools.cached_property
    def content(self) -> ContentPaths:
        """Users' own content API paths behind the same authorization (``fake.content``)."""
        # Made on first use: it points back at the app, and a cycle would keep every test's
        # fake alive until the garbage collector runs. Imported then too: most fakes never
        # serve a user's own path.
        from patgate.wire.user_content import ContentPaths

        return ContentPaths(self)

    def describe(self) -> str:
        """Every route as ``METHODS url-template``, separated by ``; ``."""
        return describe_routes(self.router)

    def __call__(self, request: WireRequest) -> WireResponse | None:
        # HEAD and OPTIONS wherever a route or the page serves GET (wire/methods.py).
        return with_implicit_methods(self._answer, request)

    def _answer(self, request: WireRequest) -> WireResponse | None:
        key = canonical_url(request.url)
        if not self.urls.serves_canonical(key):
            return None
        for prefix, below, handler in self._subtrees:
            if key == prefix or key.startswith(below):
                return handler(request)
        match = self.router.match(key)
        # A fault stands for the service failing: it answers before any token is judged.
        fault = fault_for(self.deployment, self.urls, request, key)
        if fault is not None:
            refuse = match.target.refuse if match is not None else self._unrouted.refuse
            answer = fault_answer(fault, refuse, lambda: self._route(request, key, match))
        else:
            answer = self._route(request, key, match)
        if key == self.urls.graphql_url and self.deployment.profile.rate_limit_announce != "none":
            return announce_rate_limit(self.deployment, request, answer)
        return answer

    def _route(
        self, request: WireRequest, key: str, match: RouteMatch[Endpoint] | None
    ) -> WireResponse:
        query = urlsplit(request.url).query
        principal: Principal | None = None
        limits_checked = False
        if key == self._content_base or key.startswith(self._below_content):
            try:
                _check_limits(request)
                limits_checked = True
                principal = authorize(self.deployment, request, query)
            except (DomainError, HttpRefusal) as error:
                return self._unrouted.refuse(error)
        if match is None:
            return self._unrouted.answer(request, Call(query))
        endpoint = match.target
        if request.method not in endpoint.methods:
            allow = ", ".join(endpoint.methods)
            path = urlsplit(request.url).path
            return endpoint.refuse(
                HttpRefusal(
                    405,
                    f"this endpoint answers {allow} only",
                    code="METHOD_NOT_ALLOWED",
                    headers=(("Allow", allow),),
                    reason=Reason(
                        "method-not-allowed",
                        f"{request.method[:16]} {path[:200]}: this path answers {allow} only",
                    ),
                )
            )
        if not limits_checked:
            try:
                _check_limits(request)
            except HttpRefusal as refusal:
                return endpoint.refuse(refusal)
        return endpoint.answer(request, Call(query, match.params, principal))


def no_route(request: WireRequest, templates: list[str]) -> Reason:
    """Why a URL no route serves is refused, with the nearest route's path when one is
    close (``no route GET /v2/content/hub (did you mean /v2/content/hubs?)``)."""
    import difflib  # only when a test sends a path the fake does not serve

    path = urlsplit(request.url).path[:200]
    known = sorted({urlsplit(template).path for template in templates})
    close = difflib.get_close_matches(path, known, n=1, cutoff=0.8)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return Reason("no-route", f"no route {request.method[:16]} {path}{hint}")


def describe_routes(router: Router[Endpoint]) -> str:
    """Every route of ``router`` as ``METHODS url-template``, separated by ``; ``."""
    return "; ".join(f"{'/'.join(e.methods)} {template}" for template, e in router)


@functools.lru_cache(maxsize=64)
def _builtin_routes(urls: FakeUrls) -> tuple[tuple[str, EndpointFactory], ...]:
    # Every test's fresh fake serves the same routes on the same URLs: worked out once.
    return tuple(
        (_route_template(urls, urls.base_for(path.base), path.template), factory)
        for path, factory in served_routes()
    )


def _route_template(urls: FakeUrls, base: str, path: str) -> str:
    template = canonical_url(base + path) if path else canonical_url(base).rstrip("/")
    if not urls.serves_canonical(template):
        raise ValueError(f"{base} is not one of this fake's base URLs")
    return template


def _check_limits(request: WireRequest) -> None:
    if len(request.headers) > MAX_HEADERS:
        raise HttpRefusal(431, "the request has too many header fields", code="HEADERS_TOO_LARGE")
    for _name, value in request.headers:
        if len(value) > MAX_HEADER_BYTES:
            raise HttpRefusal(
                431, "a request header field is larger than 16 KiB", code="HEADERS_TOO_LARGE"
            )
    if len(request.body) > MAX_BODY_BYTES:
        raise HttpRefusal(413, "the request body is larger than 1 MiB", code="PAYLOAD_TOO_LARGE")

"""``patgate.Fake``: the fake deployment, its HTTP app, and interception of httpx and requests.

::

    with patgate.Fake() as fake:
        token = httpx.post(fake.world["auth_url"] + "/oauth/token", data={...})

Importing this module is cheap: the domain, the wire layer and the HTTP libraries are
imported when a ``Fake`` is built or started, so neither ``import patgate`` nor the pytest
plugin pays for them in a session that does not use the fake.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol

from patgate.target_contract import TARGET_KEYS

if TYPE_CHECKING:
    import httpx

    from patgate.fake.clock import Clock
    from patgate.fake.deployment import Deployment
    from patgate.fake.model import CreatedToken, Hub, PatRecord, Role, User
    from patgate.fake.world import DefaultWorld
    from patgate.wire.messages import WireHandler, WireRequest, WireResponse
    from patgate.wire.request_log import RequestLog
    from patgate.wire.urls import FakeUrls
    from patgate.wire.user_content import ContentPaths

__all__ = ["WORLD_KEYS", "Fake"]

WORLD_KEYS = TARGET_KEYS
"""The keys of a target file (docs/design.md, "The target contract"), in the documented order."""


class _Interception(Protocol):
    def start(self) -> None: ...
    def stop(self) -> None: ...


def _coerce_urls(urls: FakeUrls | Mapping[str, str | None] | None) -> FakeUrls:
    from patgate.wire.urls import FakeUrls

    if urls is None:
        return FakeUrls()
    if isinstance(urls, FakeUrls):
        return urls
    unknown = set(urls) - {"auth_url", "base_url", "graphql_url"}
    if unknown:
        raise TypeError(f"unknown URL keys: {sorted(unknown)}")
    return FakeUrls.build(
        auth_url=urls.get("auth_url"),
        base_url=urls.get("base_url"),
        graphql_url=urls.get("graphql_url"),
    )


class Fake:
    """An in-process fake of the service, populated with the default world.

    While started (``with Fake() as fake:`` or :meth:`start`) it answers every httpx
    (sync and async) and requests call to its URLs; other URLs reach the network, or raise
    :class:`~patgate.wire.urls.UnmatchedRequest` when ``strict``.

    ``deployment``: a :class:`~patgate.fake.deployment.Deployment` (a subclass with a fault,
    say) to serve; the default world is added to it. ``urls``: a ``FakeUrls`` or a mapping
    with any of ``auth_url``, ``base_url``, ``graphql_url`` (default: the real hosts).
    ``wrap_app``: ``app -> app``, to alter answers on the way out. A bug inside the fake
    raises in the caller; it never becomes a 500.

    The deployment's settings, keyword-only (without ``deployment``): ``expires_in`` (client
    token lifetime, s, default 300), ``session_expires_in`` (default 86400),
    ``max_tokens_per_user`` (the PAT cap, default 5), ``pat_prefix`` (default ``amp_pat_``),
    ``seed`` (ids and, other than 0, names of the world, generated with the ``worlds`` extra).
    """

    def __init__(
        self,
        deployment: Deployment | None = None,
        urls: FakeUrls | Mapping[str, str | None] | None = None,
        strict: bool = False,
        wrap_app: Callable[[WireHandler], WireHandler] | None = None,
        **settings: Any,
    ) -> None:
        from patgate.fake.deployment import Deployment
        from patgate.fake.settings import deployment_settings
        from patgate.fake.world import build_default_world
        from patgate.wire.app import WireApp
        from patgate.wire.request_log import RequestLog

        chosen = deployment_settings(settings, given_deployment=deployment is not None)
        self.deployment: Deployment = deployment if deployment is not None else Deployment(**chosen)
        self.urls: FakeUrls = _coerce_urls(urls)
        self.strict = strict
        self.default_world: DefaultWorld = build_default_world(
            self.deployment, chosen.get("seed", 0)
        )
        """The default world's ids and credentials (``admin_id``, ``member_token``, ...)."""
        self.request_log: RequestLog = RequestLog(self.deployment.pat_format.prefix)
        """Every request the fake answered: method, redacted URL, status."""
        wire_app = WireApp(self.deployment, self.urls, self.request_log)
        self.content: ContentPaths = wire_app.content
        """Register your own content API paths behind the fake's authorization."""
        app: WireHandler = wire_app
        self._app = wrap_app(app) if wrap_app is not None else app
        self._interceptions: list[_Interception] = []

    # -- serving ---------------------------------------------------------------------------

    def handle(self, request: WireRequest) -> WireResponse | None:
        """Answer one request (``None``: not a URL of this fake) and log it."""
        response = self._app(request)
        if response is not None:
            self.request_log.record(request, response)
        return response

    @property
    def world(self) -> dict[str, str]:
        """The target file of this fake: exactly :data:`WORLD_KEYS` (a fresh dict each time)."""
        w = self.default_world
        return {
            "auth_url": self.urls.auth_url,
            "base_url": self.urls.base_url,
            "graphql_url": self.urls.graphql_url,
            "client_id": w.client_id,
            "client_secret": w.client_secret,
            "organization_id": w.organization_id,
            "admin_token": w.admin_token,
            "member_token": w.member_token,
            "removed_token": w.removed_token,
            "unpermitted_token": w.unpermitted_token,
            "pat_prefix": self.deployment.pat_format.prefix,
            "ui_url": self.urls.ui_url,
        }

    def httpx_transport(self) -> httpx.BaseTransport:
        """An httpx transport (sync and async) answering from this fake, with no network.

        It works whether or not the fake is started; a URL the fake does not serve raises
        ``httpx.ConnectError``.
        """
        from patgate.transports.httpx_adapter import FakeTransport

        return FakeTransport(self.handle, self.urls)

    @property
    def active(self) -> bool:
        """Whether httpx and requests are being intercepted."""
        return bool(self._interceptions)

    def start(self) -> Fake:
        """Intercept httpx and requests until :meth:`stop`; returns ``self``."""
        if self._interceptions:
            return self
        from patgate.transports.httpx_adapter import HttpxInterception
        from patgate.transports.requests_adapter import RequestsInterception

        for interception in (
            HttpxInterception(self.handle, self.urls, strict=self.strict),
            RequestsInterception(self.handle, self.urls, strict=self.strict),
        ):
            try:
                interception.start()
            except BaseException:
                self.stop()
                raise
            self._interceptions.append(interception)
        return self

    def stop(self) -> None:
        """Stop intercepting (safe to call when not started)."""
        while self._interceptions:
            self._interceptions.pop().stop()

    def __enter__(self) -> Fake:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "active" if self.active else "stopped"
        return f"Fake({self.urls.base_url}, {state}, {len(self.request_log)} requests)"

    # -- control: what a test does out of band ---------------------------------------------

    @property
    def clock(self) -> Clock:
        """The fake's clock; client tokens expire against it."""
        return self.deployment.clock

    def advance_clock(self, seconds: float) -> None:
        """Move the fake's time forward (client tokens expire; PATs do not)."""
        self.deployment.clock.advance(seconds)

    def _org(self, organization_id: str | None) -> str:
        return organization_id or self.default_world.organization_id

    def add_user(
        self,
        name: str,
        email: str | None = None,
        *,
        role: Role | str = "member",
        organization_id: str | None = None,
    ) -> User:
        """A new user in the organization (default: the world's) with ``role``."""
        from patgate.fake.model import Role

        address = email or ".".join(name.lower().split()) + "@example.com"
        return self.deployment.add_user(name, address, self._org(organization_id), Role(role))

    def add_client(self, user_id: str, organization_id: str | None = None) -> tuple[str, str]:
        """An API key acting as ``user_id``: ``(client_id, client_secret)``."""
        return self.deployment.add_client(user_id, self._org(organization_id))

    def add_hub(
        self,
        name: str,
        *,
        organization_id: str | None = None,
        created_by: str | None = None,
        **fields: Any,
    ) -> Hub:
        """A hub in the organization; ``fields`` may set label, description, status, ..."""
        creator = created_by or self.default_world.admin_id
        return self.deployment.add_hub(
            self._org(organization_id), name, created_by=creator, **fields
        )

    def set_role(self, user_id: str, role: Role | str, organization_id: str | None = None) -> None:
        """Change the user's role, or add them back to the organization with it."""
        from patgate.fake.model import Role

        self.deployment.set_role(user_id, self._org(organization_id), Role(role))

    def remove_user(self, user_id: str, organization_id: str | None = None) -> None:
        """Remove the user from the organization; their PATs stop working at once."""
        self.deployment.remove_user(user_id, self._org(organization_id))

    def request_token_via_ui(
        self, user_id: str, name: str, organization_id: str | None = None
    ) -> CreatedToken:
        """The management UI path: an admin's token works at once, anyone else's pends."""
        return self.deployment.request_token_via_ui(user_id, self._org(organization_id), name)

    def approve_token_request(self, token_id: str, approver_id: str | None = None) -> PatRecord:
        """An admin approves a pending token; it becomes usable."""
        return self.deployment.approve_token_request(token_id, approver_id)

    def reject_token_request(self, token_id: str) -> None:
        """An admin rejects a pending token; it disappears."""
        self.deployment.reject_token_request(token_id)

    def issue_token(
        self, user_id: str, name: str = "patgate test token", organization_id: str | None = None
    ) -> str:
        """A usable PAT for ``user_id`` through the UI path, approved if it pends."""
        from patgate.fake.model import PatStatus

        created = self.request_token_via_ui(user_id, name, organization_id)
        if created.record.status is PatStatus.PENDING:
            self.approve_token_request(created.record.id)
        return created.value

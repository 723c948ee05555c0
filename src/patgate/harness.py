"""``patgate.Fake``: the fake deployment, its HTTP app, and interception of httpx and requests.

::

    with patgate.Fake() as fake:
        token = httpx.post(fake.world["auth_url"] + "/oauth/token", data={...})

Importing this module is cheap: the domain, the wire layer and httpx are imported when a
``Fake`` is built or started, so neither ``import patgate`` nor the pytest plugin pays for
them in a session that does not use the fake. A fake does not import requests: it intercepts
requests from the moment the process imports it (at once if it already has).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Mapping
from os import PathLike
from time import perf_counter
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol

from patgate.service.target_contract import TARGET_KEYS

if TYPE_CHECKING:
    from datetime import datetime

    import httpx

    from patgate.fake.clock import Clock
    from patgate.fake.deployment import AcceptedCallers, Deployment
    from patgate.fake.faults import FaultRule, Faults
    from patgate.fake.model import ApiClient, CreatedToken, Hub, PatRecord, Role, User
    from patgate.fake.profile import Profile
    from patgate.fake.world import DefaultWorld
    from patgate.wire.control_api import ControlApi
    from patgate.wire.control_service import ControlService
    from patgate.wire.messages import WireHandler, WireRequest, WireResponse
    from patgate.wire.request_log import RequestLog, RequestPage
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
        return _checked_urls(None, None, None)
    if isinstance(urls, FakeUrls):
        return urls
    unknown = set(urls) - {"auth_url", "base_url", "graphql_url"}
    if unknown:
        raise TypeError(f"unknown URL keys: {sorted(unknown)}")
    return _checked_urls(urls.get("auth_url"), urls.get("base_url"), urls.get("graphql_url"))


@functools.lru_cache(maxsize=64)
def _checked_urls(auth_url: str | None, base_url: str | None, graphql_url: str | None) -> FakeUrls:
    # Every test's fake asks for the same URLs; FakeUrls is immutable, so one checked
    # instance serves them all (a refusal raises and is not cached).
    from patgate.wire.urls import FakeUrls

    return FakeUrls.build(auth_url=auth_url, base_url=base_url, graphql_url=graphql_url)


class _PageOnFirstUse:
    """The management page, mounted into the wire app from here: its modules are imported,
    and the page built, when a request first reaches it."""

    def __init__(self, urls: FakeUrls, control: _ControlOnFirstUse, secret: str) -> None:
        # Not the app: the app holds this page, and a cycle would keep a dropped fake alive.
        self._urls = urls
        self._control = control
        self._secret = secret
        self._page: Callable[[WireRequest], WireResponse] | None = None
        self._lock = threading.Lock()

    def __call__(self, request: WireRequest) -> WireResponse:
        page = self._page
        if page is None:
            with self._lock:
                if self._page is None:
                    from patgate.ui.page import management_page

                    self._page = management_page(self._urls, self._control(), self._secret)
                page = self._page
        return page(request)


class _ControlOnFirstUse:
    """The fake's :class:`ControlService`, made (and its module imported) when first used:
    most tests call no control operation. The page holds this, not the fake (no cycle)."""

    def __init__(
        self,
        deployment: Deployment,
        world: DefaultWorld,
        request_log: RequestLog,
        seeded_state: Callable[[], dict[str, Any]] | None,
    ) -> None:
        self._arguments = (deployment, world, request_log, seeded_state)
        self._service: ControlService | None = None
        self._lock = threading.Lock()

    def __call__(self) -> ControlService:
        service = self._service
        if service is None:
            with self._lock:
                if self._service is None:
                    from patgate.wire.control_service import ControlService

                    self._service = ControlService(*self._arguments)
                service = self._service
        return service


def _deployment_choices(
    settings: Mapping[str, Any], deployment: Deployment | None, profile: object
) -> dict[str, Any]:
    """The deployment's settings checked (``settings`` apply to the fake's own deployment
    only, as does ``profile``: a :class:`~patgate.errors.UsageError` otherwise)."""
    from patgate.errors import UsageError
    from patgate.fake.settings import deployment_settings

    chosen = deployment_settings(settings, given_deployment=deployment is not None)
    if deployment is not None and profile is not None:
        raise UsageError(
            "profile applies to the fake's own deployment; "
            "pass it to Deployment(profile=load_profile(...)) instead"
        )
    return chosen


def _own_deployment(
    chosen: dict[str, Any], profile: str | PathLike[str] | Mapping[str, Any] | Profile | None
) -> Deployment:
    """The fake's own deployment, of the chosen settings and clock, under ``profile``."""
    from patgate.fake.deployment import Deployment
    from patgate.fake.profile import load_profile

    chosen = dict(chosen)
    if chosen.pop("clock", "fake") == "system":
        from patgate.fake.clock import SystemClock

        chosen["clock"] = SystemClock()
    return Deployment(**chosen, profile=load_profile(profile))


class Fake:
    """An in-process fake of the service, populated with the default world.

    While started (``with Fake() as fake:`` or :meth:`start`) it answers every httpx
    (sync and async) and requests call to its URLs; other URLs reach the network, or raise
    :class:`~patgate.wire.urls.UnmatchedRequest` when ``strict``.

    ``deployment``: a :class:`~patgate.fake.deployment.Deployment` (a subclass with a fault,
    say) to serve; the default world is added to it. ``urls``: a ``FakeUrls`` or a mapping
    with any of ``auth_url``, ``base_url``, ``graphql_url`` (default: the real hosts).
    ``wrap_app``: ``app -> app``, to alter answers on the way out. ``log_size``: how many
    requests :attr:`request_log` keeps (default 1000; the oldest go first); ``log_bytes``:
    the most memory its entries hold (default 8 MiB). ``control_token``: the token
    the HTTP control API (``world["control_url"]``) requires (default: a new random one).
    ``world``: the ids and credentials of a world already in ``deployment`` (a restored
    state); without it the default world is built. ``profile``: the choices where the
    documentation is silent (docs/profile.md), a YAML file's path or a mapping; default:
    the shipped default profile; a bad one raises :class:`~patgate.errors.UsageError`
    naming the file and line. A bug inside the fake raises in the
    caller; it never becomes a 500.

    The deployment's settings, keyword-only (without ``deployment``): ``expires_in`` (client
    token lifetime, s; default: the profile's, 300 in the shipped one; given, it wins),
    ``session_expires_in`` (default 86400), ``max_tokens_per_user`` (the PAT cap, default
    5), ``pat_prefix`` (default ``amp_pat_``),
    ``seed`` (ids and, other than 0, names of the world, generated with the ``worlds`` extra),
    ``clock`` (``"fake"``, the default: the fake's own clock, moved by :meth:`advance_clock`;
    ``"system"``: ``time.time()``, so time-machine and freezegun move the fake as they move
    the code under test, and :meth:`advance_clock` raises).

    The control methods below (reset, users, the UI path, the clock, the log, faults) are
    those of :class:`~patgate.wire.control_service.ControlService` (:attr:`control`), with
    the same names as :class:`patgate.ControlClient`'s, which calls them over HTTP; both are
    generated from :mod:`patgate.control.operations` (``python -m patgate.control.document``).
    """

    def __init__(
        self,
        deployment: Deployment | None = None,
        urls: FakeUrls | Mapping[str, str | None] | None = None,
        strict: bool = False,
        wrap_app: Callable[[WireHandler], WireHandler] | None = None,
        *,
        log_size: int | None = None,
        log_bytes: int | None = None,
        control_token: str | None = None,
        ui_secret: str | None = None,
        world: DefaultWorld | None = None,
        profile: str | PathLike[str] | Mapping[str, Any] | Profile | None = None,
        **settings: Any,
    ) -> None:
        from patgate.fake.pat_format import new_secret
        from patgate.wire.request_log import DEFAULT_LOG_BYTES, DEFAULT_LOG_SIZE, RequestLog

        self._bind_the_request_path()
        chosen = _deployment_choices(settings, deployment, profile)
        own_deployment = deployment is None
        self.deployment: Deployment = deployment or _own_deployment(chosen, profile)
        self.urls: FakeUrls = _coerce_urls(urls)
        self.strict = strict
        seeded_state = self._seed_world(world, own_deployment, chosen.get("seed", 0))
        self.request_log: RequestLog = RequestLog(
            self.deployment.pat_format.prefix,
            log_size or DEFAULT_LOG_SIZE,
            max_bytes=log_bytes or DEFAULT_LOG_BYTES,
        )
        """The latest requests the fake answered (a sequence, oldest first): method, URL,
        headers, body, status, principal, every credential redacted."""
        self._control = _ControlOnFirstUse(
            self.deployment, self.default_world, self.request_log, seeded_state
        )
        if seeded_state is None:
            self._control()  # the state a reset returns to is exported now, as it is
        self.ui_secret: str = ui_secret or new_secret(24)
        """The management page's key: the target file's ``ui_url`` carries it as ``?key=``."""
        self._mount_the_app(wrap_app)
        self.control_token: str = control_token or new_secret()
        """What the HTTP control API requires as ``Authorization: Bearer``."""
        self._know_the_secrets()
        self._control_url = self.urls.control_url
        self._control_api: ControlApi | None = None
        self._interceptions: list[_Interception] = []

    def _bind_the_request_path(self) -> None:
        """Bind here what handle() uses, not imported per request: it is on every one's path."""
        from patgate.fake.deployment import AcceptedCallers
        from patgate.wire.fault_answers import ANSWERED_BY, DroppedConnection, request_credential

        self._dropped_connection = DroppedConnection
        self._request_credential = request_credential
        self._answered_by = ANSWERED_BY
        self._note_accepted_callers = AcceptedCallers.start_noting

    def _seed_world(
        self, world: DefaultWorld | None, own_deployment: bool, seed: int
    ) -> Callable[[], dict[str, Any]] | None:
        """Set :attr:`default_world`: the one given, else the default world added to the
        deployment; the state a reset returns to, when it is worked out later."""
        from patgate.fake.world import build_default_world, stamp_default_world

        seeded_state: Callable[[], dict[str, Any]] | None = None
        if world is None and own_deployment:
            # The same world as building it, made from records (see fake/world.py); the
            # state a reset returns to is worked out on the first reset.
            stamped = stamp_default_world(self.deployment, seed)
            world, seeded_state = stamped.world, stamped.seeded_state
        elif world is None:
            world = build_default_world(self.deployment, seed)
        self.default_world: DefaultWorld = world
        """The default world's ids and credentials (``admin_id``, ``member_token``, ...)."""
        return seeded_state

    def _mount_the_app(self, wrap_app: Callable[[WireHandler], WireHandler] | None) -> None:
        """The wire app with the management page under ``{base_url}/ui``, wrapped if asked."""
        from patgate.wire.app import WireApp
        from patgate.wire.urls import UI_PATH

        wire_app = WireApp(self.deployment, self.urls, self.request_log)
        wire_app.mount_subtree(
            self.urls.base_url, UI_PATH, _PageOnFirstUse(self.urls, self._control, self.ui_secret)
        )
        self._wire_app = wire_app
        app: WireHandler = wire_app
        self._app = wrap_app(app) if wrap_app is not None else app

    def _know_the_secrets(self) -> None:
        """Tell the request log every secret to redact by value."""
        # By value: the secrets the fake handed out (the page's key too: a Referer or a
        # pasted address may carry it), the world's PATs and its client's Basic credential.
        # Every PAT and client token is also redacted by shape (the PAT prefix, a JWT).
        world = self.default_world
        self.request_log.know(
            self.control_token,
            self.ui_secret,
            world.admin_token,
            world.member_token,
            world.removed_token,
            world.unpermitted_token,
        )
        self.request_log.know_basic(world.client_id, world.client_secret)
        self.deployment.credential_observers.append(self.request_log.know)

    # -- serving ---------------------------------------------------------------------------

    def handle(self, request: WireRequest) -> WireResponse | None:
        """Answer one request (``None``: not a URL of this fake) and log it.

        Control API calls are answered first and are not logged.
        """
        if request.url.startswith(self._control_url):
            return self._control_handler()(request)
        started = perf_counter()
        self._answered_by.set(None)
        # Who the bearer speaks for, as the endpoint's authentication found it (else as the
        # deployment identifies it, changing nothing): checked once, not once more here.
        accepted = self._note_accepted_callers()
        try:
            try:
                response = self._app(request)
            except self._dropped_connection:
                self._record(request, None, started, accepted)
                raise
            if response is not None:
                self._record(request, response, started, accepted)
            return response
        finally:
            accepted.stop()

    def _record(
        self,
        request: WireRequest,
        response: WireResponse | None,
        started: float,
        accepted: AcceptedCallers,
    ) -> None:
        duration = perf_counter() - started
        credential = self._request_credential(self.deployment, request, accepted)
        self.request_log.append(
            request,
            response,
            principal=credential.user_id if credential is not None else None,
            duration=duration,
            via=credential.via if credential is not None else None,
            fault=self._answered_by.get(),
        )

    def _control_handler(self) -> ControlApi:
        # Built on first use: most tests never call the HTTP control API.
        if self._control_api is None:
            from patgate.wire.control_api import ControlApi

            self._control_api = ControlApi(self.control, self.control_token, self.urls.base_url)
        return self._control_api

    @property
    def control(self) -> ControlService:
        """The control operations as plain calls (the HTTP control API and the page call them)."""
        return self._control()

    @property
    def profile(self) -> Profile:
        """The deployment's profile: its choices where the documentation is silent."""
        return self.deployment.profile

    @property
    def content(self) -> ContentPaths:
        """Register your own content API paths behind the fake's authorization."""
        return self._wire_app.content

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
            "ui_url": self.ui_address,
            "control_url": self._control_url,
            "control_token": self.control_token,
        }

    @property
    def ui_address(self) -> str:
        """The management page's address that signs a browser in (it carries the key)."""
        from patgate.wire.urls import UI_KEY_PARAMETER

        return f"{self.urls.ui_url}/?{UI_KEY_PARAMETER}={self.ui_secret}"

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
        from patgate.transports.post_import import StartOnImport

        for interception in (
            HttpxInterception(self.handle, self.urls, strict=self.strict),
            # Importing requests costs about as much as the rest of a first fake: a process
            # that has not imported it is intercepted from the moment it does.
            StartOnImport("requests", self._requests_interception),
        ):
            try:
                interception.start()
            except BaseException:
                self.stop()
                raise
            self._interceptions.append(interception)
        return self

    def _requests_interception(self) -> _Interception:
        from patgate.transports.requests_adapter import RequestsInterception

        return RequestsInterception(self.handle, self.urls, strict=self.strict)

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

    @property
    def faults(self) -> Faults:
        """Fault rules and the rate-limit switch: ``fake.faults.add("hubs", status=503)``."""
        return self.deployment.faults

    # -- generated by `python -m patgate.control.document`: do not edit below --

    def reset(self) -> None:
        """Back to the default world with the same credentials; no faults; an empty log."""
        self.control.reset()

    def snapshot(self) -> dict[str, Any]:
        """The state as JSON values (users, roles, clients, hubs, masked tokens, clock)."""
        return self.control.snapshot()

    def world_ids(self) -> dict[str, str]:
        """The seeded world's organization and principals (``admin``, ...) by id."""
        return self.control.world_ids()

    def users(self) -> list[User]:
        """Every user, members or not."""
        return self.control.users()

    def add_user(
        self,
        name: str,
        email: str | None = None,
        *,
        role: Role | str = "member",
        organization_id: str | None = None,
    ) -> User:
        """A new user in the organization (default: the world's) with ``role``."""
        return self.control.add_user(name, email, role=role, organization_id=organization_id)

    def remove_user(self, user_id: str, organization_id: str | None = None) -> None:
        """Remove the user from the organization; their PATs stop working at once."""
        self.control.remove_user(user_id, organization_id)

    def restore_user(self, user_id: str, organization_id: str | None = None) -> None:
        """Add a removed user back with the role they had; their PATs work again."""
        self.control.restore_user(user_id, organization_id)

    def set_role(self, user_id: str, role: Role | str, organization_id: str | None = None) -> None:
        """Change the user's role, or add them back to the organization with it."""
        self.control.set_role(user_id, role, organization_id)

    def clients(self) -> list[ApiClient]:
        """Every API client (never a secret)."""
        return self.control.clients()

    def add_client(
        self,
        user_id: str | None = None,
        organization_id: str | None = None,
    ) -> tuple[str, str]:
        """A new API key: ``(client_id, client_secret)``, for the client-credentials grant.

        ``user_id``: the user its tokens act as (default: the world's admin,
        ``default_world.admin_id``, like the world's own client; the control API needs it); their
        role and membership decide what the tokens may do. ``organization_id``: the organization the
        tokens work in (default: the world's). The secret is shown only here (the fake keeps its
        hash) and is redacted from the request log.
        """
        return self.control.add_client(user_id, organization_id)

    def hubs(self) -> list[Hub]:
        """Every hub of every organization."""
        return self.control.hubs()

    def add_hub(
        self,
        name: str,
        *,
        organization_id: str | None = None,
        created_by: str | None = None,
        **fields: Any,
    ) -> Hub:
        """A hub in the organization; ``fields`` may set label, description, status, ..."""
        return self.control.add_hub(
            name,
            organization_id=organization_id,
            created_by=created_by,
            **fields,
        )

    def pending_requests(self, organization_id: str | None = None) -> list[PatRecord]:
        """Token requests waiting for an admin's approval, oldest first (every organization's when
        ``organization_id`` is not given).
        """
        return self.control.pending_requests(organization_id)

    def request_token_via_ui(
        self,
        user_id: str,
        name: str,
        organization_id: str | None = None,
    ) -> CreatedToken:
        """The management UI path: an admin's token works at once, anyone else's pends; the answer
        holds the full token (``value``), shown this once.
        """
        return self.control.request_token_via_ui(user_id, name, organization_id)

    def approve_token_request(self, token_id: str, approver_id: str | None = None) -> PatRecord:
        """An admin approves a pending token (as ``approver_id``, who must be an admin, when given);
        it becomes usable.
        """
        return self.control.approve_token_request(token_id, approver_id)

    def reject_token_request(self, token_id: str) -> None:
        """An admin rejects a pending token; it disappears."""
        self.control.reject_token_request(token_id)

    def profile_document(self) -> dict[str, Any]:
        """The active profile (docs/profile.md) as a document of ``specs/profile.schema.json``."""
        return self.control.profile_document()

    def clock_now(self) -> datetime:
        """The fake's current instant (over HTTP: ISO 8601, UTC, milliseconds)."""
        return self.control.clock_now()

    def advance_clock(self, seconds: float) -> None:
        """Move the fake's time forward (client tokens expire; PATs do not)."""
        self.control.advance_clock(seconds)

    def requests(
        self,
        page: int = 0,
        size: int = 50,
        *,
        status: int | str | None = None,
        path: str | None = None,
    ) -> RequestPage:
        """The request log, newest first, filtered by status (``429``, ``"4xx"``) and path."""
        return self.control.requests(page, size, status=status, path=path)

    def clear_requests(self) -> None:
        """Empty the request log."""
        self.control.clear_requests()

    def add_fault(self, endpoint: str = "any", **spec: Any) -> FaultRule:
        """Add a fault rule (:mod:`patgate.fake.faults`): ``add_fault("token", status=503)``; it
        applies from the next request.
        """
        return self.control.add_fault(endpoint, **spec)

    def remove_fault(self, rule_id: str) -> None:
        """Remove one fault rule."""
        self.control.remove_fault(rule_id)

    def clear_faults(self) -> None:
        """Remove every fault rule and switch the rate limit off."""
        self.control.clear_faults()

    def set_rate_limit(self, on: bool) -> None:
        """Switch the GraphQL rate limit (the profile's ``rate_limit``: 60 requests per minute per
        key by default) on or off. A key's minute starts at its first request, whatever the clock
        shows; ``Retry-After`` gives the seconds left of it, and :meth:`advance_clock` by that much
        ends it.
        """
        self.control.set_rate_limit(on)

    # -- generated: do not edit above --

    def issue_token(
        self, user_id: str, name: str = "patgate test token", organization_id: str | None = None
    ) -> str:
        """A usable PAT for ``user_id`` through the UI path, approved if it pends."""
        from patgate.fake.model import PatStatus

        created = self.request_token_via_ui(user_id, name, organization_id)
        if created.record.status is PatStatus.PENDING:
            self.approve_token_request(created.record.id)
        return created.value

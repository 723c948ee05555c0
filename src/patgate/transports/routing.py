"""Which active fake serves a URL: the routing table both interceptions share.

Interception sits in front of a client's choice of transport (httpx's ``_transport_for_url``,
requests' ``Session.get_adapter``), not on the transports users' mock libraries patch
(respx, responses, pytest-httpx). A URL that an active fake serves goes to that fake's own
transport; any other URL gets the client's usual transport, so a user's mocks answer it or
it reaches the network.

Several fakes may be active at once when their URLs do not overlap: each answers its own.
Starting a fake whose URLs overlap an active one's raises :class:`~patgate.errors.UsageError`,
because which of the two answers would be a guess.

In strict mode a request that would reach the network raises
:class:`~patgate.errors.UnmatchedRequest`; a user's mock answering it first is not the
network, so strict mode and a user's mocks agree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from patgate.errors import UnmatchedRequest, UsageError
from patgate.wire.fault_answers import DroppedConnection
from patgate.wire.messages import WireHandler, WireRequest, WireResponse
from patgate.wire.urls import FakeUrls, canonical_url

__all__ = [
    "ClassPatches",
    "Interception",
    "InterceptionCore",
    "Route",
    "RoutingTable",
    "answer",
    "overlap",
]

T = TypeVar("T")


def _bases(urls: FakeUrls) -> tuple[str, ...]:
    return (urls.auth_url, urls.base_url, urls.graphql_url)


def _under(url: str, base: str) -> bool:
    return url == base or url.startswith(base + "/")


def overlap(first: FakeUrls, second: FakeUrls) -> str | None:
    """A base URL the two fakes would both answer under, or ``None``."""
    for a in _bases(first):
        for b in _bases(second):
            if _under(a, b):
                return a
            if _under(b, a):
                return b
    return None


@dataclass(eq=False)
class Route(Generic[T]):
    """One active fake's URLs and its library-specific transport (or adapter)."""

    urls: FakeUrls
    transport: T
    strict: bool = False


class RoutingTable(Generic[T]):
    """The routes of the active fakes for one HTTP library, and the patch that consults them.

    ``install`` is called when the first route is added and ``uninstall`` when the last one
    goes; both patch the library's class attributes.
    """

    def __init__(self, install: Callable[[], None], uninstall: Callable[[], None]) -> None:
        self._routes: list[Route[T]] = []
        self._strict: list[Route[T]] = []
        self._install = install
        self._uninstall = uninstall

    def add(self, route: Route[T]) -> None:
        """Route ``route.urls`` to ``route.transport``; overlapping URLs raise ``UsageError``."""
        for other in self._routes:
            shared = overlap(route.urls, other.urls)
            if shared is not None:
                raise UsageError(
                    f"another patgate fake is already active on {shared}; give this fake "
                    "other URLs (Fake(urls={...}) or @pytest.mark.patgate(base_url=...)) or "
                    "stop the first one"
                )
        if not self._routes:
            self._install()
        self._routes.append(route)
        if route.strict:
            self._strict.append(route)

    def remove(self, route: Route[T]) -> None:
        """Stop routing to ``route`` (safe to call twice)."""
        if route in self._routes:
            self._routes.remove(route)
            if route in self._strict:
                self._strict.remove(route)
            if not self._routes:
                self._uninstall()

    def find(self, url: str) -> T | None:
        """The transport of the fake serving ``url``, or ``None``."""
        routes = self._routes
        if not routes:
            return None
        key = canonical_url(url)
        for route in routes:
            if route.urls.serves_canonical(key):
                return route.transport
        return None

    @property
    def strict(self) -> bool:
        """Whether some active fake refuses requests that would reach the network."""
        return bool(self._strict)

    def refuse(self, what: str) -> UnmatchedRequest:
        """The error for ``what`` (a request, a connection) about to reach the network while a
        strict fake is active; ``what`` must hold no secret (no query string)."""
        return UnmatchedRequest(
            f"patgate (strict): {what} would reach the network (no fake serves it and no mock "
            f"answered it); the fake serves:\n{self._strict[0].urls.describe()}"
        )


class ClassPatches:
    """Class attributes replaced while fakes are active, and what they were."""

    def __init__(self) -> None:
        self._saved: list[tuple[type, str, Any, Any]] = []

    def patch(self, cls: type, name: str, wrap: Callable[[Any], Any]) -> None:
        """Replace ``cls.name`` with ``wrap(original)``, unless already done."""
        if self.patched(cls, name):
            return
        original = cls.__dict__[name]
        replacement = wrap(original)
        self._saved.append((cls, name, original, replacement))
        setattr(cls, name, replacement)

    def patched(self, cls: type, name: str) -> bool:
        """Whether ``cls.name`` is one of ours."""
        return any(c is cls and n == name for c, n, _, _ in self._saved)

    def restore_all(self) -> None:
        """Put every original back, newest first."""
        while self._saved:
            cls, name, original, replacement = self._saved.pop()
            # Restore only what is still ours: a patch that a user's mock started after us and
            # has not stopped yet keeps calling our replacement, which passes every URL on.
            if cls.__dict__.get(name) is replacement:
                setattr(cls, name, original)


class Interception(Generic[T]):
    """One fake's route in its library's table while started; a strict route also guards the
    network. A library's adapter subclasses it, naming its :class:`InterceptionCore`.

    Other URLs go to the client's usual transport (a user's mock, or the network); in
    ``strict`` mode a request that would reach the network raises
    :class:`~patgate.wire.urls.UnmatchedRequest`. Starting a second interception whose URLs
    overlap an active one's raises :class:`~patgate.errors.UsageError`.
    """

    core: ClassVar[InterceptionCore[Any]]

    def __init__(self, handler: WireHandler, urls: FakeUrls, *, strict: bool = False) -> None:
        self._route: Route[T] = Route(urls, self.core.transport(handler, urls), strict)
        self._started = False

    def start(self) -> None:
        """Begin intercepting."""
        if not self._started:
            self.core.table.add(self._route)
            self._started = True
            if self._route.strict:
                self.core.guard_network()

    def stop(self) -> None:
        """Stop intercepting (safe to call twice)."""
        if self._started:
            self._started = False
            self.core.table.remove(self._route)


def answer(
    handler: WireHandler,
    request: WireRequest,
    *,
    dropped: Callable[[], Exception],
    unserved: Callable[[], Exception],
) -> WireResponse:
    """The fake's answer to ``request``, or the library's own error: ``dropped()`` when a
    fault rule drops the connection, ``unserved()`` for a URL the fake does not serve."""
    try:
        response = handler(request)
    except DroppedConnection:
        raise dropped() from None
    if response is None:
        raise unserved()
    return response


class InterceptionCore(Generic[T]):
    """What interception is for one HTTP library, written once: the routing table, the
    class patches, the router in front of the client's choice of transport and the strict
    guard on its connections. An adapter names its library's parts:

    ``routed``: the (class, method) pairs that choose a transport for ``(owner, url)``;
    ``guarded``: the (class, method) pairs that open a connection for ``(owner, target)``,
    patched only while a strict fake is active; ``describe``: what a refused ``target`` is
    called in the error (no secret: no query string); ``transport``: the library's
    transport (or adapter) answering from one fake.
    """

    def __init__(
        self,
        routed: Callable[[], list[tuple[type, str]]],
        guarded: Callable[[], list[tuple[type, str]]],
        describe: Callable[[Any], str],
        transport: Callable[[WireHandler, FakeUrls], T],
    ) -> None:
        self._routed = routed
        self._guarded = guarded
        self._describe = describe
        self.transport = transport
        """Makes the library's transport (or adapter) that answers from one fake."""
        self._patches = ClassPatches()
        self.table: RoutingTable[T] = RoutingTable(self._install, self._patches.restore_all)

    def _install(self) -> None:
        for cls, name in self._routed():
            self._patches.patch(cls, name, self._router)

    def guard_network(self) -> None:
        """Refuse network connections while a strict fake is active."""
        for cls, name in self._guarded():
            self._patches.patch(cls, name, self._guard)

    def _router(self, original: Any) -> Any:
        table = self.table

        def choose(owner: Any, url: Any) -> Any:
            transport = table.find(str(url))
            return transport if transport is not None else original(owner, url)

        return choose

    def _guard(self, original: Any) -> Any:
        table, describe = self.table, self._describe

        def connect(owner: Any, target: Any, *args: Any, **kwargs: Any) -> Any:
            if table.strict:
                raise table.refuse(describe(target))
            return original(owner, target, *args, **kwargs)

        return connect

"""The fake on a real socket: a threaded HTTP/1.1 server with keep-alive, for any client.

One thread per connection (:mod:`~patgate.transports.loopback_connection`) reads the socket
and feeds httptools, the binding of llhttp (the parser Node.js uses); each complete request
goes to the wire app and its answer leaves in one write, with Nagle's algorithm off. Parsing
in C is what lets the server keep up with a bare stdlib server while the fake routes,
authenticates and logs every request: with ``http.server``'s own parsing in front of the same
app, ``patgate serve`` answered about half the requests per second of a bare
``ThreadingHTTPServer`` (docs/performance.md).

Every answer, malformed requests included, is JSON and never a 5xx, except one: when the fake
itself fails (a bug), that request gets a 500 on the wire and the exception is recorded and
re-raised by :meth:`LoopbackServer.stop` (or :meth:`~LoopbackServer.check_errors`), so the
test sees it.

Limits. At most ``max_connections`` connections are open at once
(:data:`DEFAULT_MAX_CONNECTIONS`, and never more than the process's descriptor limit
allows); a connection beyond them gets ``503`` with ``Retry-After: 1`` and is closed, from a
few short-lived refusal threads (beyond those, it is closed at once). When ``accept`` fails
for want of descriptors or memory (``EMFILE``, ``ENFILE``, ...), accepting pauses until a
connection closes or :data:`ACCEPT_PAUSE_SECONDS` pass: the loop never spins on a listening
socket it cannot accept from. Deadlines for a request's head and body are the connection's
(:mod:`~patgate.transports.loopback_connection`).
"""

from __future__ import annotations

import contextlib
import errno
import resource
import socket
import socketserver
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Any

from patgate.transports.loopback_connection import (
    BODY_SECONDS,
    HEAD_SECONDS,
    Connection,
    refuse_busy,
)
from patgate.wire.messages import WireHandler
from patgate.wire.urls import FakeUrls

__all__ = ["ACCEPT_PAUSE_SECONDS", "DEFAULT_MAX_CONNECTIONS", "LoopbackServer"]

DEFAULT_MAX_CONNECTIONS = 256
"""Connections open at once; one more is answered 503 and closed."""
ACCEPT_PAUSE_SECONDS = 0.5
"""How long accepting pauses, at most, after ``accept`` failed for want of descriptors."""
_REFUSERS = 8
"""Threads that may be answering 503 at once; a connection beyond them is closed at once."""
# Descriptors kept free for what is not a connection: the state file, its journal and lock,
# the world file, the interpreter's own.
_RESERVED_DESCRIPTORS = 64
_OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})

_QUIET_ERRORS = (ConnectionError, TimeoutError)


def _descriptor_room() -> int:
    """How many connections the process's descriptor limit leaves room for."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 1 << 20
    return max(1, soft - _RESERVED_DESCRIPTORS)


class _Handler(socketserver.BaseRequestHandler):
    server: _Server

    def setup(self) -> None:
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def handle(self) -> None:
        owner = self.server.owner
        Connection(
            self.request, owner, head_seconds=owner.head_seconds, body_seconds=owner.body_seconds
        ).serve()


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], owner: LoopbackServer) -> None:
        self.owner = owner
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        self.connection_closed = threading.Condition(self.connections_lock)
        self.refusers = threading.BoundedSemaphore(_REFUSERS)
        self.accept_pauses = 0
        self.stopping = False
        super().__init__(address, _Handler)

    def get_request(self) -> tuple[socket.socket, Any]:
        try:
            return super().get_request()
        except OSError as error:
            if error.errno in _OUT_OF_RESOURCES:
                # The listening socket stays readable: returning at once would spin. Wait
                # for a connection to close (or a little while), then try again.
                with self.connection_closed:
                    self.accept_pauses += 1
                    if not self.stopping:
                        self.connection_closed.wait(ACCEPT_PAUSE_SECONDS)
            raise

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.connections_lock:
            full = len(self.connections) >= self.owner.max_connections
            if not full:
                self.connections.add(request)
        if full:
            self._refuse(request)
            return
        try:
            super().process_request(request, client_address)
        except RuntimeError:  # no thread could be started: the connection is refused
            self.shutdown_request(request)

    def _refuse(self, request: socket.socket) -> None:
        if not self.refusers.acquire(blocking=False):
            with contextlib.suppress(OSError):
                request.close()
            return

        def refuse() -> None:
            try:
                refuse_busy(request)
            finally:
                self.refusers.release()

        try:
            threading.Thread(target=refuse, name="patgate-refuse", daemon=True).start()
        except RuntimeError:
            self.refusers.release()
            with contextlib.suppress(OSError):
                request.close()

    def shutdown_request(self, request: Any) -> None:
        with self.connections_lock:
            self.connections.discard(request)
            self.connection_closed.notify_all()
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        error = sys.exc_info()[1]
        if error is not None and not isinstance(error, _QUIET_ERRORS):
            self.owner.record_error(error)


class _Server6(_Server):
    address_family = socket.AF_INET6


class LoopbackServer:
    """Serves a :data:`~patgate.wire.messages.WireHandler` over HTTP on ``host:port``.

    The socket is bound on construction (port 0 picks a free port), so :attr:`base_url` and
    :attr:`urls` are known before the fake that will answer is built; :meth:`start` then
    serves ``handler`` from a daemon thread. ``on_error`` is called with each exception the
    handler raised, as it happens (the ``serve`` command prints them). ``max_connections``,
    ``head_seconds`` and ``body_seconds`` are the limits of the module's docstring.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        on_error: Callable[[BaseException], None] | None = None,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        head_seconds: float = HEAD_SECONDS,
        body_seconds: float = BODY_SECONDS,
    ) -> None:
        if max_connections < 1:
            raise ValueError("max_connections must be at least 1")
        self.max_connections = min(max_connections, _descriptor_room())
        """Connections open at once (the asked number, or what the descriptor limit allows)."""
        self.head_seconds = head_seconds
        self.body_seconds = body_seconds
        server_class = _Server6 if ":" in host else _Server
        self._server = server_class((host, port), self)
        self._thread: threading.Thread | None = None
        self._errors: list[BaseException] = []
        self._errors_lock = threading.Lock()
        self._on_error = on_error
        self.handler: WireHandler | None = None
        host_bound, bound_port = self._server.server_address[:2]
        bound_host = str(host_bound)
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        self.base_url = f"http://{shown}:{bound_port}"
        """``http://HOST:PORT``, with the port actually bound."""

    @property
    def urls(self) -> FakeUrls:
        """Auth, content and GraphQL all on this origin; GraphQL at ``/graphql``."""
        return FakeUrls.same_origin(self.base_url)

    @property
    def bound_address(self) -> tuple[str, int]:
        """``(host, port)`` the socket is bound to."""
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    @property
    def bound_url(self) -> str:
        """``http://HOST:PORT`` of the bound socket (:attr:`base_url` unless a public URL)."""
        host, port = self.bound_address
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    def use_public_url(self, public_url: str) -> None:
        """Answer as ``public_url`` (``patgate serve --public-url``): the origin clients
        reach the server by, through a container's port mapping or a proxy. Requests are
        handed to the fake with URLs on this origin, so its links name it too."""
        self.base_url = public_url.rstrip("/")

    def start(self, handler: WireHandler) -> LoopbackServer:
        """Serve ``handler`` from a background thread; returns ``self``."""
        if self._thread is not None:
            raise RuntimeError("the loopback server is already serving")
        self.handler = handler
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.02},  # how long stop() may wait
            name=f"patgate-server-{self.base_url}",
            daemon=True,
        )
        self._thread.start()
        return self

    def record_error(self, error: BaseException) -> None:
        """Keep ``error`` for :meth:`check_errors` (called from the serving threads)."""
        with self._errors_lock:
            self._errors.append(error)
        if self._on_error is not None:
            self._on_error(error)

    @property
    def open_connections(self) -> int:
        """Connections being served now."""
        with self._server.connections_lock:
            return len(self._server.connections)

    @property
    def accept_pauses(self) -> int:
        """How many times accepting paused for want of descriptors."""
        with self._server.connections_lock:
            return self._server.accept_pauses

    @property
    def errors(self) -> list[BaseException]:
        """The errors recorded and not yet re-raised."""
        with self._errors_lock:
            return list(self._errors)

    def check_errors(self) -> None:
        """Re-raise the first error the handler raised since the last check, if any."""
        with self._errors_lock:
            errors, self._errors = self._errors, []
        if errors:
            raise errors[0]

    def stop(self, *, raise_errors: bool = True) -> None:
        """Stop serving, close every connection, then re-raise a recorded error (if any)."""
        thread, self._thread = self._thread, None
        with self._server.connection_closed:
            self._server.stopping = True
            self._server.connection_closed.notify_all()
        if thread is not None:
            self._server.shutdown()
            thread.join()
        self._server.server_close()
        with self._server.connections_lock:
            connections = list(self._server.connections)
        for connection in connections:
            with contextlib.suppress(OSError):  # already closed by the client
                connection.shutdown(socket.SHUT_RDWR)
        if raise_errors:
            self.check_errors()

    def __enter__(self) -> LoopbackServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        # Re-raising a recorded error would hide the exception already propagating.
        self.stop(raise_errors=exc is None)

"""A total deadline per request, below httpx: every socket read and write of the request
(connect, TLS, headers, body) waits at most until the deadline, whatever the per-read
timeout says.

httpx times each read on its own, so a server that drips one byte a second, or sends
informational (1xx) answers forever, holds a request as long as it likes. This network
backend (httpcore's documented extension point) shortens each wait to what is left of the
request's deadline, which the caller sets for its own thread.
"""

from __future__ import annotations

import functools
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpcore
    import httpx

__all__ = ["DEADLINE_MESSAGE", "Deadlines", "deadline_transport"]

DEADLINE_MESSAGE = "the request's deadline passed"


class Deadlines:
    """The deadline of the request each thread is sending (a :func:`time.monotonic` time)."""

    def __init__(self) -> None:
        self._local = threading.local()

    @contextmanager
    def within(self, seconds: float) -> Iterator[None]:
        """Every read and write inside the block ends by ``seconds`` from now."""
        self._local.deadline = time.monotonic() + seconds
        try:
            yield
        finally:
            self._local.deadline = None

    def bound(self, timeout: float | None, *, reading: bool = True) -> float | None:
        """``timeout`` shortened to what is left of this thread's deadline; raises httpcore's
        timeout once it has passed."""
        import httpcore

        deadline: float | None = getattr(self._local, "deadline", None)
        if deadline is None:
            return timeout
        left = deadline - time.monotonic()
        if left <= 0:
            raise (httpcore.ReadTimeout if reading else httpcore.WriteTimeout)(DEADLINE_MESSAGE)
        return left if timeout is None else min(timeout, left)


def deadline_transport(deadlines: Deadlines, *, connections: int = 1) -> httpx.HTTPTransport:
    """An httpx transport (TLS verified, no proxy) whose every socket operation keeps to
    ``deadlines``, pooling up to ``connections`` kept-alive connections."""
    import httpcore
    import httpx

    from patgate.guards.httpx_private import use_pool

    transport = httpx.HTTPTransport(verify=True, trust_env=False)
    # httpx builds its connection pool without a way to pass a network backend; the pool
    # it would build, with the backend added.
    pool = httpcore.ConnectionPool(
        ssl_context=httpx.create_ssl_context(verify=True, trust_env=False),
        network_backend=_backend_type()(deadlines),
        max_connections=connections,
        max_keepalive_connections=connections,
    )
    use_pool(transport, pool)
    return transport


@functools.cache
def _stream_type() -> Callable[[httpcore.NetworkStream, Deadlines], httpcore.NetworkStream]:
    """A network stream whose reads and writes keep to the deadlines (made once: httpcore
    is imported only when a transport is)."""
    import httpcore

    class _Stream(httpcore.NetworkStream):
        def __init__(self, inner: httpcore.NetworkStream, deadlines: Deadlines) -> None:
            self._inner = inner
            self._deadlines = deadlines

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            return self._inner.read(max_bytes, self._deadlines.bound(timeout))

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            self._inner.write(buffer, self._deadlines.bound(timeout, reading=False))

        def close(self) -> None:
            self._inner.close()

        def start_tls(
            self,
            ssl_context: ssl.SSLContext,
            server_hostname: str | None = None,
            timeout: float | None = None,
        ) -> httpcore.NetworkStream:
            bound = self._deadlines.bound(timeout)
            inner = self._inner.start_tls(ssl_context, server_hostname, bound)
            return _Stream(inner, self._deadlines)

        def get_extra_info(self, info: str) -> Any:
            return self._inner.get_extra_info(info)

    return _Stream


@functools.cache
def _backend_type() -> Callable[[Deadlines], httpcore.NetworkBackend]:
    """A network backend whose connections keep to the deadlines (made once)."""
    import httpcore

    stream = _stream_type()

    class _Backend(httpcore.NetworkBackend):
        def __init__(self, deadlines: Deadlines) -> None:
            self._inner = httpcore.SyncBackend()
            self._deadlines = deadlines

        def connect_tcp(
            self,
            host: str,
            port: int,
            timeout: float | None = None,
            local_address: str | None = None,
            socket_options: Iterable[Any] | None = None,
        ) -> httpcore.NetworkStream:
            bound = self._deadlines.bound(timeout)
            inner = self._inner.connect_tcp(host, port, bound, local_address, socket_options)
            return stream(inner, self._deadlines)

        def connect_unix_socket(
            self,
            path: str,
            timeout: float | None = None,
            socket_options: Iterable[Any] | None = None,
        ) -> httpcore.NetworkStream:
            bound = self._deadlines.bound(timeout)
            inner = self._inner.connect_unix_socket(path, bound, socket_options)
            return stream(inner, self._deadlines)

        def sleep(self, seconds: float) -> None:
            self._inner.sleep(seconds)

    return _Backend

"""The fake on a real socket: a threaded HTTP/1.1 server with keep-alive, for any client.

Built on the standard library's ``ThreadingHTTPServer``, with Nagle's algorithm off (without
that a keep-alive client waits ~40 ms per request) and no reverse DNS at bind time. Every
answer, malformed requests included, is JSON and never a 5xx, except one: when the fake
itself fails (a bug), that request gets a 500 on the wire and the exception is recorded and
re-raised by :meth:`LoopbackServer.stop` (or :meth:`~LoopbackServer.check_errors`), so the
test sees it.
"""

from __future__ import annotations

import contextlib
import email.utils
import re
import socket
import socketserver
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from patgate.wire.app import MAX_BODY_BYTES
from patgate.wire.fault_answers import DroppedConnection
from patgate.wire.messages import WireHandler, WireRequest, WireResponse, json_response
from patgate.wire.urls import FakeUrls

__all__ = ["LoopbackServer"]

_MAX_CHUNK_LINE = 1024
# ASCII digits only: str.isdigit() also passes "²", which int() then refuses.
_CONTENT_LENGTH = re.compile(r"[0-9]+")
_QUIET_ERRORS = (ConnectionError, TimeoutError)
_ERROR_MESSAGES = {
    400: "the request is malformed",
    408: "the request took too long",
    413: "the request body is larger than 1 MiB",
    414: "the request line is too long",
    431: "the request header fields are too large",
}


class _BodyError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _error_body(message: str) -> dict[str, Any]:
    return {"errors": [{"message": message}]}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    timeout = 60  # an idle keep-alive connection is closed after a minute
    server: _Server

    def __getattr__(self, name: str) -> Any:
        # http.server looks up do_<METHOD>; every method reaches the app, which answers 405.
        if name.startswith("do_"):
            return self._serve
        raise AttributeError(name)

    def log_message(self, format: str, *args: Any) -> None:
        # Request lines may carry tokens (?access_token=...); the server logs nothing.
        del format, args

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # http.server's own refusals (bad request line, long headers, ...) as JSON; its 5xx
        # (an HTTP version it does not speak) become a 400. The message never echoes input.
        del message, explain
        if self.request_version == "HTTP/0.9":
            # Set before the request line parsed; 0.9 would send a body with no status line.
            self.request_version = "HTTP/1.0"
        status = code if code < 500 else 400
        text = _ERROR_MESSAGES.get(status, HTTPStatus(status).phrase.lower())
        self.close_connection = True
        self._send(json_response(status, _error_body(text)))

    def _serve(self) -> None:
        owner = self.server.owner
        try:
            body = self._read_body()
        except _BodyError as error:
            self.close_connection = True
            self._send(json_response(error.status, _error_body(str(error))))
            return
        path = self.path if self.path.startswith("/") else _origin_form(self.path)
        if path is None:
            self.close_connection = True
            self._send(json_response(400, _error_body(_ERROR_MESSAGES[400])))
            return
        request = WireRequest(
            self.command, owner.base_url + path, tuple(self.headers.items()), body
        )
        handler = owner.handler
        try:
            response = handler(request) if handler is not None else None
        except DroppedConnection:
            self.close_connection = True  # a fault rule: close without a word
            return
        except Exception as error:
            owner.record_error(error)
            self.close_connection = True
            message = "the fake failed on this request; the error is re-raised in the test"
            self._send(json_response(500, _error_body(message)))
            return
        if response is None:
            response = json_response(404, _error_body("this server does not serve that URL"))
        self._send(response)

    def _read_body(self) -> bytes:
        lengths = self.headers.get_all("Content-Length") or []
        coding = self.headers.get("Transfer-Encoding")
        if coding is not None:
            if lengths:
                raise _BodyError(400, "send Content-Length or Transfer-Encoding, not both")
            if coding.strip().lower() != "chunked":
                raise _BodyError(400, "the only transfer coding supported is chunked")
            return self._read_chunked()
        if not lengths:
            return b""
        digits = lengths[0].strip()
        if len(set(lengths)) > 1 or not _CONTENT_LENGTH.fullmatch(digits):
            raise _BodyError(400, "Content-Length is not a single non-negative integer")
        # Compared as text first: int() refuses more than 4300 digits.
        digits = digits.lstrip("0") or "0"
        if len(digits) > len(str(MAX_BODY_BYTES)) or int(digits) > MAX_BODY_BYTES:
            raise _BodyError(413, _ERROR_MESSAGES[413])
        length = int(digits)
        return self.rfile.read(length)

    def _read_chunked(self) -> bytes:
        chunks: list[bytes] = []
        total = 0
        while True:
            line = self.rfile.readline(_MAX_CHUNK_LINE)
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise _BodyError(400, "a chunk size is malformed") from None
            if size < 0:
                raise _BodyError(400, "a chunk size is malformed")
            if size == 0:
                break
            total += size
            if total > MAX_BODY_BYTES:
                raise _BodyError(413, _ERROR_MESSAGES[413])
            chunks.append(self.rfile.read(size))
            self.rfile.readline(_MAX_CHUNK_LINE)
        while self.rfile.readline(_MAX_CHUNK_LINE) not in (b"\r\n", b"\n", b""):
            pass  # trailer fields are ignored
        return b"".join(chunks)

    def _send(self, response: WireResponse) -> None:
        # The status line, headers and body leave in one write: with Nagle's algorithm off,
        # separate writes would be separate segments, and a client reads each of them.
        body = response.body
        head = [
            f"{self.protocol_version} {response.status} {_reason(response.status)}\r\n"
            f"Server: patgate\r\nDate: {_http_date()}\r\n"
        ]
        for name, value in response.headers:
            head.append(f"{name}: {value}\r\n")
            if name.lower() == "connection" and value.strip().lower() == "close":
                self.close_connection = True
        head.append(f"Content-Length: {len(body)}\r\n")
        if self.close_connection:
            head.append("Connection: close\r\n")
        head.append("\r\n")
        data = "".join(head).encode("latin-1", "strict")
        if self.request_version == "HTTP/0.9":
            data = b""  # a 0.9 answer is the body alone
        self.wfile.write(data if self.command == "HEAD" else data + body)


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


_date_cache: tuple[int, str] = (0, "")


def _http_date() -> str:
    """The ``Date`` header's value, formatted at most once a second."""
    global _date_cache
    now = int(time.time())
    second, text = _date_cache
    if second != now:
        text = email.utils.formatdate(now, usegmt=True)
        _date_cache = (now, text)
    return text


def _origin_form(target: str) -> str | None:
    """The path and query of an absolute-form target (as sent to proxies) or ``*``.

    ``None`` when the target cannot be parsed at all (an unclosed IPv6 bracket, say).
    """
    try:
        parts = urlsplit(target)
    except ValueError:
        return None
    path = parts.path if parts.path.startswith("/") else "/" + parts.path
    return f"{path}?{parts.query}" if parts.query else path


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], owner: LoopbackServer) -> None:
        self.owner = owner
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind looks the host name up (reverse DNS); that can take seconds.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name = str(host)
        self.server_port = int(port)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.connections_lock:
            self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.connections_lock:
            self.connections.discard(request)
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
    handler raised, as it happens (the ``serve`` command prints them).
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        server_class = _Server6 if ":" in host else _Server
        self._server = server_class((host, port), self)
        self._thread: threading.Thread | None = None
        self._errors: list[BaseException] = []
        self._errors_lock = threading.Lock()
        self._on_error = on_error
        self.handler: WireHandler | None = None
        bound_host, bound_port = self._server.server_name, self._server.server_port
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        self.base_url = f"http://{shown}:{bound_port}"
        """``http://HOST:PORT``, with the port actually bound."""

    @property
    def urls(self) -> FakeUrls:
        """Auth, content and GraphQL all on this origin; GraphQL at ``/graphql``."""
        return FakeUrls.same_origin(self.base_url)

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

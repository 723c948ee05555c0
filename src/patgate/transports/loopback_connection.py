"""One client's connection to the loopback server: parse, answer in order, close when due.

The socket's bytes go to httptools, the binding of llhttp (the parser Node.js uses); each
complete request becomes a :class:`~patgate.wire.messages.WireRequest` for the server's
handler, and each answer leaves in one write. What llhttp refuses, and what passes the limits
below, is answered here in JSON (400, 408, 413, 414, 431) and the connection is closed.

Deadlines: a request's head must arrive whole within :data:`HEAD_SECONDS` of its first byte,
and its body within :data:`BODY_SECONDS` of the head (else 408 and the connection closes),
however the bytes trickle in; between requests a connection may stay silent for
:data:`IDLE_SECONDS`. On Linux these times are kept by the kernel (``SO_RCVTIMEO``,
``SO_SNDTIMEO`` on a blocking socket), so each read and each write is one system call;
elsewhere by Python's socket timeout, which polls before each. An answer of status 1xx,
204 or 304 never carries a body, whatever the handler (a fault rule, say) put in it.
``100 Continue`` is sent only for the request answered next: a pipelined request's interim
answer waits for the answers before it.
"""

from __future__ import annotations

import contextlib
import email.utils
import re
import socket
import struct
import sys
import time
from http import HTTPStatus
from typing import Protocol
from urllib.parse import urlsplit

import httptools

from patgate.wire.app import MAX_BODY_BYTES, MAX_HEADERS
from patgate.wire.fault_answers import DroppedConnection
from patgate.wire.messages import WireHandler, WireRequest, WireResponse, json_response

__all__ = [
    "BODY_SECONDS",
    "HEAD_SECONDS",
    "IDLE_SECONDS",
    "MAX_FIELD_BYTES",
    "MAX_HEAD_BYTES",
    "MAX_TARGET_BYTES",
    "Connection",
    "http_date",
    "refuse_busy",
]

MAX_TARGET_BYTES = 64 * 1024
"""A request target (path and query) above 64 KiB is refused with 414."""
MAX_FIELD_BYTES = 64 * 1024
"""One header field value above 64 KiB is refused with 431 (the app's own limit is lower)."""
MAX_HEAD_BYTES = 256 * 1024
"""The request line and header fields together: above 256 KiB, 414 or 431."""
IDLE_SECONDS = 60
"""A connection that sends nothing for a minute is closed."""
HEAD_SECONDS = 10.0
"""A request's line and header fields must arrive within 10 s of its first byte (else 408)."""
BODY_SECONDS = 30.0
"""A request's body must arrive within 30 s of its head (else 408)."""

_RECEIVE_BYTES = 64 * 1024
# After refusing a request, read what the client still sends for this long (at most this
# much), so closing does not reset the connection before the client has read the answer.
_LINGER_SECONDS = 1.0
_LINGER_BYTES = 4 * MAX_BODY_BYTES
# llhttp knows a fixed list of methods; another token gets the app's 405 (with ``Allow``),
# as from the in-process transports. RFC 9110 token characters; 32 is plenty for a method.
_METHOD_TOKEN = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}) ")
_PARTIAL_TOKEN = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}")
_STAND_IN_METHOD = b"GET"
_VERSIONS = ("1.1", "1.0", "0.9")
_CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
_ERROR_MESSAGES = {
    400: "the request is malformed",
    408: "the request did not arrive in time",
    413: "the request body is larger than 1 MiB",
    414: "the request line is too long",
    431: "the request header fields are too large",
}
_REASONS = {status.value: status.phrase for status in HTTPStatus}
# RFC 9110 §6.4.1: these answers have no content, and a Content-Length would mislead.
_BODILESS = frozenset({204, 304})
_BUSY_BODY = b'{"errors":[{"message":"the server holds its most connections; retry"}]}'
_BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nServer: patgate\r\nRetry-After: 1\r\n"
    b"Content-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
    % len(_BUSY_BODY)
) + _BUSY_BODY


class _Refusal(Exception):
    """A request the server answers itself, then closes the connection."""

    def __init__(self, status: int, message: str | None = None) -> None:
        super().__init__(message or _ERROR_MESSAGES[status])
        self.status = status


def _refusal_response(refusal: _Refusal) -> WireResponse:
    return json_response(refusal.status, {"errors": [{"message": str(refusal)}]})


class _Message:
    """One request as the parser delivers it."""

    __slots__ = (
        "body",
        "body_bytes",
        "expect",
        "headers",
        "keep_alive",
        "length",
        "method",
        "target",
        "version",
    )

    def __init__(self) -> None:
        self.method = ""
        self.target = bytearray()
        self.headers: list[tuple[str, str]] = []  # names lower-cased, as WireRequest keeps them
        self.length: str | None = None  # Content-Length (llhttp allows one, digits only)
        self.expect: str | None = None
        self.body: list[bytes] = []
        self.body_bytes = 0
        self.keep_alive = False
        self.version = "1.1"


class ConnectionOwner(Protocol):
    """What a connection needs of its server (:class:`~patgate.transports.loopback_server.
    LoopbackServer` is one): the public base URL, the handler, a place to report errors."""

    base_url: str
    handler: WireHandler | None

    def record_error(self, error: BaseException) -> None: ...


class Connection:
    """Reads one client's requests, answers them in order, and closes when it must.

    The ``on_*`` methods are httptools' callbacks; a refusal raised in one is kept in
    ``_refusal`` (httptools wraps it in its own error).
    """

    def __init__(
        self,
        sock: socket.socket,
        owner: ConnectionOwner,
        *,
        head_seconds: float = HEAD_SECONDS,
        body_seconds: float = BODY_SECONDS,
    ) -> None:
        self._socket = sock
        self._owner = owner
        self._head_seconds = head_seconds
        self._body_seconds = body_seconds
        self._deadline: float | None = None  # when the head or body being read is due
        self._continue_due = False  # a 100 Continue waits for the answers before it
        self._parser = httptools.HttpRequestParser(self)
        self._message = _Message()
        self._in_message = False  # between on_message_begin and on_message_complete
        self._ready: list[_Message] = []
        self._refusal: _Refusal | None = None
        self._head_bytes = 0  # header names and values parsed so far
        self._head_received = 0  # bytes read while the head is incomplete
        self._headers_done = False
        self._stand_in_method: str | None = None
        self._carry = b""  # the start of an unknown method, split across reads
        self._timeout: float | None = None  # what the socket's timeout was last set to

    # -- httptools callbacks ---------------------------------------------------------------

    def on_message_begin(self) -> None:
        self._message = _Message()
        self._in_message = True
        self._head_bytes = 0
        self._head_received = 0
        self._headers_done = False
        self._continue_due = False
        self._deadline = time.monotonic() + self._head_seconds

    def on_url(self, part: bytes) -> None:
        message = self._message
        message.target += part
        if len(message.target) > MAX_TARGET_BYTES:
            self._refuse(414)

    def on_header(self, name: bytes, value: bytes) -> None:
        message = self._message
        self._head_bytes += len(name) + len(value)
        if (
            len(message.headers) >= MAX_HEADERS
            or len(value) > MAX_FIELD_BYTES
            or self._head_bytes + len(message.target) > MAX_HEAD_BYTES
        ):
            self._refuse(431)
        field, text = name.decode("latin-1").lower(), value.decode("latin-1")
        if field == "content-length":
            message.length = text
        elif field == "expect":
            message.expect = text
        message.headers.append((field, text))

    def on_headers_complete(self) -> None:
        message = self._message
        self._headers_done = True
        message.version = self._parser.get_http_version()
        if message.version not in _VERSIONS:
            self._refuse(400, "this server speaks HTTP/1.1 and HTTP/1.0")
        if self._stand_in_method is not None:
            message.method, self._stand_in_method = self._stand_in_method, None
        else:
            message.method = self._parser.get_method().decode("ascii")
        if message.length is not None and int(message.length) > MAX_BODY_BYTES:
            self._refuse(413)  # llhttp has checked the digits; refused before the body is read
        expect = message.expect
        self._deadline = time.monotonic() + self._body_seconds
        if (
            expect is not None
            and expect.strip().lower() == "100-continue"
            and message.version == "1.1"
        ):
            if self._ready:
                self._continue_due = True  # sent once the requests before it are answered
            else:
                self._socket.sendall(_CONTINUE)  # the client waits for this before its body

    def on_body(self, part: bytes) -> None:
        message = self._message
        message.body_bytes += len(part)
        if message.body_bytes > MAX_BODY_BYTES:
            self._refuse(413)
        message.body.append(part)

    def on_message_complete(self) -> None:
        message = self._message
        message.keep_alive = message.version != "0.9" and self._parser.should_keep_alive()
        self._ready.append(message)
        self._in_message = False
        self._continue_due = False  # the body came without it
        self._deadline = None

    def _refuse(self, status: int, message: str | None = None) -> None:
        self._refusal = _Refusal(status, message)
        raise self._refusal

    # -- the connection --------------------------------------------------------------------

    def serve(self) -> None:
        """Answer requests until the client closes, a refusal, or ``Connection: close``."""
        while True:
            deadline = self._deadline
            wait = IDLE_SECONDS if deadline is None else deadline - time.monotonic()
            try:
                if wait <= 0:
                    raise TimeoutError
                timeout = min(wait, IDLE_SECONDS)
                if timeout != self._timeout:
                    # Set only when it changes: between keep-alive requests the timeout is
                    # the same minute every time.
                    _set_timeout(self._socket, timeout)
                    self._timeout = timeout
                data = self._socket.recv(_RECEIVE_BYTES)
            except (TimeoutError, BlockingIOError):  # BlockingIOError: the kernel's timeout
                if self._deadline is not None:  # a head or a body is late: say so
                    self._send(_refusal_response(_Refusal(408)), keep_alive=False)
                    self._linger()
                return
            if not data:
                return
            refusal = self._feed(data)
            if not self._answer_ready():
                return
            if self._continue_due:
                self._continue_due = False
                try:
                    self._socket.sendall(_CONTINUE)
                except OSError:
                    return
            if refusal is not None:
                self._send(_refusal_response(refusal), keep_alive=False)
                self._linger()
                return

    def _feed(self, data: bytes) -> _Refusal | None:
        """Parse ``data``; the refusal that ends the connection, if any."""
        at_boundary = not self._in_message
        data, self._carry = self._carry + data, b""
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            # The request itself is complete; this server switches to no other protocol.
            if self._ready:
                self._ready[-1].keep_alive = False
            return None
        except httptools.HttpParserInvalidMethodError:
            if at_boundary and not self._ready:
                return self._unknown_method(data)
            return _Refusal(400)
        except httptools.HttpParserCallbackError:
            return self._refusal or _Refusal(400)
        except httptools.HttpParserError as error:
            # A length beyond what llhttp can count is beyond 1 MiB too.
            return _Refusal(413 if "overflow" in str(error).lower() else 400)
        if self._in_message and not self._headers_done:
            # A field still being read is held inside the parser: bound what arrives too.
            self._head_received += len(data)
            if self._head_received > MAX_HEAD_BYTES:
                return _Refusal(431 if self._message.headers else 414)
        return None

    def _unknown_method(self, data: bytes) -> _Refusal | None:
        """Parse a request whose method llhttp does not know, under a stand-in method."""
        self._in_message = False  # the failed parser may have begun one
        token = _METHOD_TOKEN.match(data)
        if token is None:
            if _PARTIAL_TOKEN.fullmatch(data):
                self._carry = data  # the method's first bytes; wait for the rest
                self._parser = httptools.HttpRequestParser(self)
                return None
            return _Refusal(400)
        self._parser = httptools.HttpRequestParser(self)
        self._stand_in_method = token.group(1).decode("ascii").upper()
        return self._feed(_STAND_IN_METHOD + data[len(token.group(1)) :])

    def _answer_ready(self) -> bool:
        """Answer every complete request in order; ``False`` once the connection must close."""
        ready, self._ready = self._ready, []
        for message in ready:
            response, keep_alive = self._respond(message)
            if response is None:
                return False  # a fault rule dropped the connection
            if message.version == "0.9":
                with contextlib.suppress(OSError):
                    self._socket.sendall(response.body)  # a 0.9 answer is the body alone
                return False
            if not self._send(response, keep_alive=keep_alive, head_only=message.method == "HEAD"):
                return False
        return True

    def _respond(self, message: _Message) -> tuple[WireResponse | None, bool]:
        owner = self._owner
        target = message.target.decode("latin-1")
        path = target if target.startswith("/") else _origin_form(target)
        if path is None:
            return _refusal_response(_Refusal(400)), False
        request = WireRequest(
            message.method, owner.base_url + path, tuple(message.headers), b"".join(message.body)
        )
        handler = owner.handler
        try:
            response = handler(request) if handler is not None else None
        except DroppedConnection:
            return None, False
        except Exception as error:
            owner.record_error(error)
            text = "the fake failed on this request; the error is re-raised in the test"
            return json_response(500, {"errors": [{"message": text}]}), False
        if response is None:
            refusal = _Refusal(404, "this server does not serve that URL")
            return _refusal_response(refusal), message.keep_alive
        return response, message.keep_alive

    def _send(self, response: WireResponse, *, keep_alive: bool, head_only: bool = False) -> bool:
        """Write ``response`` in one write (separate segments would each be read on their own).

        ``False`` when the connection is to be closed after it.
        """
        body = response.body
        status = response.status
        bodiless = status in _BODILESS or 100 <= status < 200
        if bodiless:
            body = b""
        head = [
            f"HTTP/1.1 {response.status} {_REASONS.get(response.status, '')}\r\n"
            f"Server: patgate\r\nDate: {http_date()}\r\n"
        ]
        length = str(len(body))
        for name, value in response.headers:
            lowered = name.lower()
            if lowered == "content-length":
                # The server frames the body itself; a HEAD answer's own value is the length
                # its GET body has (RFC 9110 8.6), which the empty body cannot tell.
                if head_only and not body and not bodiless:
                    length = value
                continue
            if bodiless and lowered == "transfer-encoding":
                continue
            head.append(f"{name}: {value}\r\n")
            if lowered == "connection" and value.strip().lower() == "close":
                keep_alive = False
        if not bodiless:
            head.append(f"Content-Length: {length}\r\n")
        if not keep_alive:
            head.append("Connection: close\r\n")
        head.append("\r\n")
        data = "".join(head).encode("latin-1", "strict")
        try:
            self._socket.sendall(data if head_only else data + body)
        except OSError:
            return False
        return keep_alive

    def _linger(self) -> None:
        """Stop writing, then read and drop what the client still sends, briefly."""
        with contextlib.suppress(OSError):
            self._socket.shutdown(socket.SHUT_WR)
            self._socket.settimeout(_LINGER_SECONDS)
            deadline = time.monotonic() + _LINGER_SECONDS
            drained = 0
            while drained < _LINGER_BYTES and time.monotonic() < deadline:
                chunk = self._socket.recv(_RECEIVE_BYTES)
                if not chunk:
                    break
                drained += len(chunk)


def _kernel_timeout(sock: socket.socket, seconds: float) -> None:
    """Time the socket's reads and writes out in the kernel (``SO_RCVTIMEO``,
    ``SO_SNDTIMEO``), the socket itself blocking: each ``recv`` and ``sendall`` is then one
    system call, where Python's own timeout polls before each (a read past the time raises
    ``BlockingIOError``)."""
    if sock.gettimeout() is not None:
        sock.settimeout(None)
    whole = int(seconds)
    micro = int((seconds - whole) * 1_000_000)
    if whole == 0 and micro == 0:
        micro = 1  # a zero struct timeval means no limit at all
    interval = struct.pack("@ll", whole, micro)  # a struct timeval
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, interval)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, interval)


def _python_timeout(sock: socket.socket, seconds: float) -> None:
    sock.settimeout(seconds)


_set_timeout = _kernel_timeout if sys.platform == "linux" else _python_timeout
"""How a connection times its socket out: in the kernel where its ``struct timeval`` is
known (Linux), else with Python's own timeout."""


def refuse_busy(sock: socket.socket) -> None:
    """Answer 503 on a connection beyond the server's limit, then close it.

    What the client sent first is read (briefly) so that closing does not reset the
    connection before the answer is read.
    """
    with contextlib.suppress(OSError):
        sock.settimeout(_LINGER_SECONDS)
        with contextlib.suppress(TimeoutError):
            sock.recv(_RECEIVE_BYTES)
        sock.sendall(_BUSY)
        sock.shutdown(socket.SHUT_WR)
        deadline = time.monotonic() + _LINGER_SECONDS
        while time.monotonic() < deadline and sock.recv(_RECEIVE_BYTES):
            pass
    with contextlib.suppress(OSError):
        sock.close()


_date_cache: tuple[int, str] = (0, "")


def http_date() -> str:
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

"""Other HTTP fronts for the wire app ``patgate serve`` serves, for ``server_fronts.py``.

``python -m benchmarks._fronts KIND WORLD_FILE`` binds a free loopback port, builds on it the
fake ``patgate serve`` builds (same-origin URLs, seed 0), writes the fake's world as JSON to
WORLD_FILE, prints ``listening on URL`` and serves ``fake.handle`` behind the front KIND
until SIGTERM or SIGINT:

- ``stdlib``: ``http.server``'s ``BaseHTTPRequestHandler`` on a ``ThreadingHTTPServer``,
  HTTP/1.1 keep-alive, the body read by Content-Length (what ``patgate serve`` used before
  it parsed with httptools);
- ``h11``: h11's pure-Python HTTP/1.1 state machine, a thread per connection;
- ``uvicorn``: uvicorn with httptools and uvloop, an ASGI adapter that calls the app inline
  on the event loop (the app is synchronous and never waits).

Where the library leaves it to the front, each answers as ``patgate serve`` does: the app's
status and headers, Content-Length (never chunked), ``Server`` and ``Date``, the whole answer
in one write, Nagle's algorithm off; uvicorn writes the head and the body apart, as it always
does. These fronts serve what the benchmark sends and no more: the limits, refusals and
error handling of patgate's own server are left out, which if anything flatters them.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from benchmarks._bare_server import wait_for_signal
from patgate import Fake, FakeUrls, WireRequest, WireResponse
from patgate.fake.deployment import Deployment
from patgate.transports.loopback_connection import http_date
from patgate.wire.messages import WireHandler, json_response

__all__ = ["KINDS", "main"]

HOST = "127.0.0.1"
_RECEIVE_BYTES = 64 * 1024
_BACKLOG = 128  # as patgate serve's: wrk opens its connections at once
_REASONS = {status.value: status.phrase for status in HTTPStatus}
_NOT_FOUND = json_response(404, {"errors": [{"message": "this server does not serve that URL"}]})


def _fake(base_url: str, world_file: Path) -> WireHandler:
    """The app ``patgate serve`` serves on ``base_url``; its world written to ``world_file``."""
    fake = Fake(deployment=Deployment(seed=0), urls=FakeUrls.same_origin(base_url))
    world_file.write_text(json.dumps(fake.world), encoding="utf-8")
    return fake.handle


def _answer(app: WireHandler, request: WireRequest) -> WireResponse:
    """The app's answer, or a 404 where it serves nothing (as ``patgate serve`` answers)."""
    response = app(request)
    return response if response is not None else _NOT_FOUND


def _closes(response: WireResponse) -> bool:
    """Whether the app asked for the connection to be closed after ``response``."""
    value = response.header("connection")
    return value is not None and value.strip().lower() == "close"


def _listener() -> socket.socket:
    """A listening socket on a free loopback port."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((HOST, 0))
    listener.listen(_BACKLOG)
    return listener


def _base_url(listener: socket.socket) -> str:
    return f"http://{HOST}:{listener.getsockname()[1]}"


# -- http.server ---------------------------------------------------------------------------


class _StdlibServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = _BACKLOG
    base_url = ""
    app: WireHandler


class _StdlibHandler(BaseHTTPRequestHandler):
    """Every request to the app; the answer rendered here so that it leaves in one write."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _StdlibServer

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        request = WireRequest(
            self.command, self.server.base_url + self.path, tuple(self.headers.items()), body
        )
        response = _answer(self.server.app, request)
        if _closes(response):
            self.close_connection = True
        # send_response and end_headers would write the head apart from the body: two
        # segments with Nagle's algorithm off, which the client reads one at a time.
        head = [
            f"HTTP/1.1 {response.status} {_REASONS.get(response.status, '')}\r\n"
            f"Server: patgate\r\nDate: {http_date()}\r\n"
        ]
        head += [f"{name}: {value}\r\n" for name, value in response.headers]
        head.append(f"Content-Length: {len(response.body)}\r\n")
        if self.close_connection:
            head.append("Connection: close\r\n")
        head.append("\r\n")
        self.wfile.write("".join(head).encode("latin-1") + response.body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

    def log_message(self, format: str, *args: Any) -> None:
        del format, args  # a line per request on stderr would cost more than the parsing


def _stdlib(world_file: Path) -> None:
    server = _StdlibServer((HOST, 0), _StdlibHandler)
    server.base_url = f"http://{HOST}:{server.server_address[1]}"
    server.app = _fake(server.base_url, world_file)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    print(f"listening on {server.base_url}", flush=True)
    try:
        wait_for_signal()
    finally:
        server.shutdown()
        thread.join()
        server.server_close()


# -- h11 -----------------------------------------------------------------------------------


def _h11(world_file: Path) -> None:
    import h11

    listener = _listener()
    base_url = _base_url(listener)
    app = _fake(base_url, world_file)

    def next_request(
        connection: h11.Connection, client: socket.socket
    ) -> tuple[h11.Request, bytes] | None:
        """The next request and its body; ``None`` once the client is gone."""
        request: h11.Request | None = None
        parts: list[bytes] = []
        while True:
            event = connection.next_event()
            if event is h11.NEED_DATA:
                connection.receive_data(client.recv(_RECEIVE_BYTES))
            elif isinstance(event, h11.Request):
                request = event
            elif isinstance(event, h11.Data):
                parts.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage) and request is not None:
                return request, b"".join(parts)
            else:
                return None  # ConnectionClosed, or PAUSED after a close

    def serve(client: socket.socket) -> None:
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        connection = h11.Connection(h11.SERVER)
        with client:
            while True:
                try:
                    received = next_request(connection, client)
                except (h11.RemoteProtocolError, OSError):
                    return
                if received is None:
                    return
                request, body = received
                response = _answer(
                    app,
                    WireRequest(
                        request.method.decode("ascii"),
                        base_url + request.target.decode("latin-1"),
                        tuple(
                            (n.decode("latin-1"), v.decode("latin-1")) for n, v in request.headers
                        ),
                        body,
                    ),
                )
                headers = [
                    ("Server", "patgate"),
                    ("Date", http_date()),
                    *response.headers,
                    ("Content-Length", str(len(response.body))),
                ]
                reason = _REASONS.get(response.status, "").encode("ascii")
                data = b"".join(
                    connection.send(event) or b""
                    for event in (
                        h11.Response(status_code=response.status, headers=headers, reason=reason),
                        h11.Data(data=response.body),
                        h11.EndOfMessage(),
                    )
                )
                try:
                    client.sendall(data)
                except OSError:
                    return
                if connection.our_state is not h11.DONE:
                    return  # MUST_CLOSE: either side said Connection: close
                connection.start_next_cycle()

    def accept() -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # the listener was closed
            threading.Thread(target=serve, args=(client,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    print(f"listening on {base_url}", flush=True)
    try:
        wait_for_signal()
    finally:
        listener.close()


# -- uvicorn -------------------------------------------------------------------------------

_Scope = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
_Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def _uvicorn(world_file: Path) -> None:
    import uvicorn

    listener = _listener()
    base_url = _base_url(listener)
    app = _fake(base_url, world_file)

    async def asgi(scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope["type"] != "http":
            return  # lifespan is off; nothing else reaches an HTTP/1.1 server
        parts: list[bytes] = []
        more = True
        while more:
            message = await receive()
            parts.append(message.get("body", b""))
            more = message.get("more_body", False)
        target = (scope.get("raw_path") or scope["path"].encode("utf-8")).decode("latin-1")
        if scope["query_string"]:
            target += "?" + scope["query_string"].decode("latin-1")
        headers = tuple((n.decode("latin-1"), v.decode("latin-1")) for n, v in scope["headers"])
        response = _answer(
            app, WireRequest(scope["method"], base_url + target, headers, b"".join(parts))
        )
        # Without a Content-Length uvicorn would answer chunked.
        raw_headers = [(n.encode("latin-1"), v.encode("latin-1")) for n, v in response.headers]
        raw_headers.append((b"content-length", str(len(response.body)).encode("ascii")))
        await send(
            {"type": "http.response.start", "status": response.status, "headers": raw_headers}
        )
        await send({"type": "http.response.body", "body": response.body})

    config = uvicorn.Config(
        asgi,
        http="httptools",
        loop="uvloop",
        lifespan="off",
        access_log=False,
        log_level="warning",
    )
    # The socket already listens: connections made before the loop runs wait in its backlog.
    print(f"listening on {base_url}", flush=True)
    uvicorn.Server(config).run(sockets=[listener])  # stops on SIGTERM or SIGINT itself


KINDS: dict[str, Callable[[Path], None]] = {"stdlib": _stdlib, "h11": _h11, "uvicorn": _uvicorn}
"""Each front by the name ``python -m benchmarks._fronts`` takes."""


def main(argv: list[str]) -> int:
    """Serve the front ``argv[0]``, writing the world to ``argv[1]``; 2 on a usage error."""
    if len(argv) != 2 or argv[0] not in KINDS:
        print(
            f"usage: python -m benchmarks._fronts {{{','.join(KINDS)}}} WORLD_FILE", file=sys.stderr
        )
        return 2
    KINDS[argv[0]](Path(argv[1]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""A hostile deployment on loopback: the fake answers, except that chosen answers are
replaced by raw bytes that misbehave (a slow drip, a body that never ends, a charset no
codec knows, JSON of the wrong types...).

Requests are parsed by the standard library's HTTP server; the misbehaviour is written to
the socket as is. Every misbehaving writer stops by itself: when the client goes away,
when the server stops, or after :data:`WRITER_LIMIT` seconds.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from patgate.harness import Fake
from patgate.wire.messages import WireRequest, WireResponse
from patgate.wire.urls import FakeUrls

WRITER_LIMIT = 20.0
"""Seconds a misbehaving writer may keep a connection busy, at most."""

Writer = Callable[["Handler", WireRequest, WireResponse], None]
"""Writes one (mis)behaving answer, given the request and the fake's own answer to it."""


def is_graphql(request: WireRequest) -> bool:
    """Any GraphQL request."""
    return request.url.split("?")[0].endswith("/graphql")


def is_token(request: WireRequest) -> bool:
    """A request to the token endpoint."""
    return "/oauth/token" in request.url


def is_hubs(request: WireRequest) -> bool:
    """A request to the hubs listing."""
    return "/v2/content/hubs" in request.url


def is_create(request: WireRequest) -> bool:
    """A GraphQL request that creates a PAT."""
    return is_graphql(request) and b"createPersonalAccessToken" in request.body


def is_listing(request: WireRequest) -> bool:
    """A GraphQL request that lists PATs (and creates or deletes none)."""
    body = request.body
    return (
        is_graphql(request)
        and b"personalAccessTokens" in body
        and b"createPersonalAccessToken" not in body
        and b"deletePersonalAccessToken" not in body
    )


@dataclass(frozen=True)
class Misbehaviour:
    """One kind of hostile answer, to the first ``times`` requests ``when`` accepts."""

    name: str
    write: Writer
    when: Callable[[WireRequest], bool] = is_graphql
    times: int = 2


class Handler(BaseHTTPRequestHandler):
    """Answers from the fake, or hands the answer to the case's writer."""

    protocol_version = "HTTP/1.1"
    server: Server

    def __getattr__(self, name: str) -> Any:
        if name.startswith("do_"):
            return self._serve
        raise AttributeError(name)

    def log_message(self, format: str, *args: Any) -> None:
        del format, args

    def _serve(self) -> None:
        self.server.received += 1
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        request = WireRequest(
            self.command, self.server.base_url + self.path, tuple(self.headers.items()), body
        )
        answer = self.server.fake.handle(request) or WireResponse(404, (), b"{}")
        writer = self.server.writer_for(request)
        if writer is None:
            self.send_raw(normal(answer))
            return
        self.close_connection = True
        # OSError: the client hung up, which is what a bounded client does.
        with contextlib.suppress(OSError):
            writer(self, request, answer)

    def send_raw(self, data: bytes) -> None:
        """Write ``data`` to the socket now."""
        self.wfile.write(data)
        self.wfile.flush()

    def drip(self, pieces: Iterator[bytes], pause: float) -> None:
        """Write ``pieces`` one by one, ``pause`` seconds apart, until the client leaves,
        the server stops or :data:`WRITER_LIMIT` passes."""
        ends = time.monotonic() + WRITER_LIMIT
        for piece in pieces:
            if self.server.stopping.is_set() or time.monotonic() > ends:
                return
            self.send_raw(piece)
            if pause:
                self.server.stopping.wait(pause)


class Server(ThreadingHTTPServer):
    """The hostile deployment: ``fake`` answers, ``case`` spoils chosen answers."""

    daemon_threads = True

    def __init__(self, case: Misbehaviour | None) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server_port}"
        self.fake = Fake(urls=FakeUrls.same_origin(self.base_url))
        self.case = case
        self.spoiled = 0
        self.received = 0
        """Requests that reached this server, whatever their URL."""
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05})

    def writer_for(self, request: WireRequest) -> Writer | None:
        """The case's writer while it still has answers to spoil and ``request`` is one."""
        case = self.case
        if case is None or not case.when(request):
            return None
        with self._lock:
            if self.spoiled >= case.times:
                return None
            self.spoiled += 1
        return case.write

    def start(self) -> Server:
        """Serve from a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and end every writer."""
        self.stopping.set()
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def run_tokens(self) -> list[str]:
        """Names of the admin's tokens that a patgate run made and did not delete."""
        deployment = self.fake.deployment
        principal = deployment.authenticate(self.fake.world["admin_token"])
        return [
            record.name
            for record in deployment.list_tokens(principal)
            if record.name.startswith("patgate-")
        ]

    def write_world(self, path: Any) -> None:
        """The target file of this deployment, at ``path``."""
        path.write_text(json.dumps(self.fake.world), encoding="utf-8")


def normal(answer: WireResponse, *, body: bytes | None = None, extra: bytes = b"") -> bytes:
    """``answer`` as bytes on the wire (``body`` replaces its body, ``extra`` adds header
    lines, each ending CRLF)."""
    content = answer.body if body is None else body
    head = [f"HTTP/1.1 {answer.status} X".encode()]
    head += [f"{n}: {v}".encode() for n, v in answer.headers if n.lower() != "content-length"]
    head.append(f"Content-Length: {len(content)}".encode())
    return b"\r\n".join(head) + b"\r\n" + extra + b"\r\n" + content

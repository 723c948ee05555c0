"""The concurrency benchmark's parts: its proxy relays requests faithfully and counts them,
and its critical path follows the scheduler's claims."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from benchmarks.run_concurrency import DELAY, critical_path, delaying_proxy

from .support import builtin


class _Echo(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        text = f"{self.command} {self.path} {self.headers.get('Authorization')} ".encode() + body
        self.send_response(201)
        self.send_header("X-Echo", "yes")
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)

    do_GET = do_POST = _answer

    def log_message(self, format: str, *args: Any) -> None:
        del format, args


@pytest.fixture
def echo() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def test_the_proxy_relays_method_path_headers_and_body_and_counts(echo: str) -> None:
    with delaying_proxy(echo) as proxy, httpx.Client(timeout=10) as client:
        near = f"http://127.0.0.1:{proxy.server_address[1]}"
        posted = client.post(f"{near}/graphql?x=1", content=b"{}", headers={"Authorization": "B"})
        got = client.get(f"{near}/v2/content/hubs")
    assert posted.status_code == 201
    assert posted.headers["x-echo"] == "yes"
    assert posted.content == b"POST /graphql?x=1 B {}"
    assert got.content == b"GET /v2/content/hubs None "
    assert proxy.requests == 2


def test_the_critical_path_follows_the_phases_and_the_principals_needed_alone() -> None:
    chosen = {s.id: s for s in builtin()}
    picked = [
        chosen[i]
        for i in (
            "pat-cap",
            "pat-create",
            "pat-delete",
            "token-ok",
            "pat-admin-only",
            "pat-no-expiry",
        )
    ]
    requests = {
        "pat-cap": 10,
        "pat-create": 4,
        "pat-delete": 3,
        "token-ok": 20,
        "pat-admin-only": 2,
        "pat-no-expiry": 5,
    }
    # The clock mover first (5); then the longest of: pat-cap, alone as the admin (10), the
    # member's listing counter (2) and any other scenario (token-ok, 20). The admin's other
    # writers share its slots beside pat-cap's chain.
    assert critical_path(picked, requests) == pytest.approx(DELAY * (5 + 20))
    requests["token-ok"] = 1
    assert critical_path(picked, requests) == pytest.approx(DELAY * (5 + 10))

"""The loopback server against requests built to be read two ways, Host headers built to
pass the page's check, and a client that never reads its answers. (security K90, L96)"""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Iterator

import pytest

from patgate.harness import Fake
from patgate.transports import loopback_connection
from patgate.transports.loopback_server import LoopbackServer


@pytest.fixture
def served() -> Iterator[tuple[LoopbackServer, Fake]]:
    server = LoopbackServer(max_connections=8)
    fake = Fake(urls=server.urls)
    server.start(fake.handle)
    yield server, fake
    server.stop()


def _exchange(server: LoopbackServer, data: bytes, timeout: float = 5.0) -> bytes:
    host, port = server.base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(data)
        chunks = []
        try:
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        except ConnectionError:
            pass
    return b"".join(chunks)


def _statuses(answer: bytes) -> list[bytes]:
    return re.findall(rb"HTTP/1\.1 (\d{3}) ", answer)


SMUGGLED = b"GET /ui/ HTTP/1.1\r\nHost: localhost\r\n\r\n"
TWO_WAYS = {
    "length-and-chunked": b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "two-lengths": b"Content-Length: 0\r\nContent-Length: 5\r\n\r\n",
    "chunked-not-last": b"Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n",
    "unknown-coding": b"Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n",
    "folded-coding": b"Transfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n",
    "space-before-colon": b"Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n",
    "bare-line-feeds": b"Content-Length: 0\n\n",
    "nul-in-a-value": b"X-A: a\x00b\r\nContent-Length: 0\r\n\r\n",
    "signed-length": b"Content-Length: +0\r\n\r\n",
    "chunk-size-overflow": b"Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff1\r\n",
}


@pytest.mark.parametrize("framing", TWO_WAYS.values(), ids=TWO_WAYS.keys())
def test_a_request_framed_two_ways_is_refused_and_nothing_behind_it_is_answered(
    served: tuple[LoopbackServer, Fake], framing: bytes
) -> None:
    server, fake = served
    head = b"POST /graphql HTTP/1.1\r\nHost: localhost\r\n"
    answer = _exchange(server, head + framing + SMUGGLED)
    assert _statuses(answer) in ([b"400"], [b"413"]), answer[:300]
    assert b"Connection: close" in answer
    assert [entry.url for entry in fake.request_log if "/ui" in entry.url] == []


@pytest.mark.parametrize(
    "hosts",
    [
        (b"evil.example", b"localhost"),
        (b"localhost", b"evil.example"),
        (b"localhost", b"localhost"),
        (b"localhost:\xb2",),  # a superscript two is a digit to str.isdigit
        (b"[::1]\xa0evil.example",),
    ],
)
def test_a_host_header_built_to_pass_the_pages_check_gets_421(
    served: tuple[LoopbackServer, Fake], hosts: tuple[bytes, ...]
) -> None:
    server, _fake = served
    fields = b"".join(b"Host: " + host + b"\r\n" for host in hosts)
    answer = _exchange(server, b"GET /ui/ HTTP/1.1\r\n" + fields + b"Connection: close\r\n\r\n")
    assert _statuses(answer) == [b"421"], answer[:200]


def test_an_absolute_form_target_does_not_stand_in_for_the_host_header(
    served: tuple[LoopbackServer, Fake],
) -> None:
    server, _fake = served
    request = b"GET http://localhost/ui/ HTTP/1.1\r\nHost: evil.example\r\n"
    request += b"Connection: close\r\n\r\n"
    assert _statuses(_exchange(server, request)) == [b"421"]


def test_a_client_that_never_reads_frees_its_connection_at_the_idle_deadline(
    served: tuple[LoopbackServer, Fake], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, _fake = served
    monkeypatch.setattr(loopback_connection, "IDLE_SECONDS", 1.0)
    host, port = server.base_url.removeprefix("http://").split(":")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, int(port)))
    try:
        asset = b"GET /ui/assets/page.js HTTP/1.1\r\nHost: localhost\r\n\r\n"
        sock.sendall(asset * 500)  # far more answer than the socket buffers hold
        deadline = time.monotonic() + 3
        while server.open_connections == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert server.open_connections == 1
        deadline = time.monotonic() + 10
        while server.open_connections and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.open_connections == 0
    finally:
        sock.close()

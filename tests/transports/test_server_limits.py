"""The loopback server keeps its limits against hostile clients, checked on real sockets:
a cap on open connections, deadlines for a request's head and body (slowloris), a pause
instead of a spin when ``accept`` runs out of descriptors, no body on 1xx/204/304 answers,
and a pipelined request's ``100 Continue`` only once the answers before it are sent."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator

import pytest

from patgate.harness import Fake
from patgate.transports import loopback_connection
from patgate.transports.loopback_server import DEFAULT_MAX_CONNECTIONS, LoopbackServer


def _serve(**limits: float) -> tuple[LoopbackServer, Fake]:
    server = LoopbackServer(**limits)  # type: ignore[arg-type]
    fake = Fake(urls=server.urls)
    server.start(fake.handle)
    return server, fake


@pytest.fixture
def quick() -> Iterator[tuple[LoopbackServer, Fake]]:
    """A server whose head and body deadlines are short enough to test."""
    server, fake = _serve(head_seconds=0.6, body_seconds=0.6, max_connections=4)
    yield server, fake
    server.stop()


def _connect(server: LoopbackServer) -> socket.socket:
    host, port = server.base_url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=5)


def _read_all(sock: socket.socket) -> bytes:
    chunks = []
    with _peer_may_reset():
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


class _peer_may_reset:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return isinstance(exc[1], ConnectionError)


def _statuses(answer: bytes) -> list[bytes]:
    return re.findall(rb"HTTP/1\.1 (\d{3}) ", answer)


def test_connections_beyond_the_cap_get_503_and_the_served_ones_keep_working(
    quick: tuple[LoopbackServer, Fake],
) -> None:
    server, fake = quick
    held = [_connect(server) for _ in range(4)]
    try:
        deadline = time.monotonic() + 5
        while server.open_connections < 4 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.open_connections == 4
        extra = _connect(server)
        extra.sendall(b"GET /v2/content/hubs HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = _read_all(extra)
        extra.close()
        assert _statuses(answer) == [b"503"]
        assert b"\r\nRetry-After: 1\r\n" in answer
        assert b"\r\nConnection: close\r\n" in answer
        # A held connection is still served.
        auth = f"Authorization: Bearer {fake.world['admin_token']}\r\n".encode()
        held[0].sendall(b"GET /v2/content/hubs HTTP/1.1\r\n" + auth + b"Connection: close\r\n\r\n")
        assert _statuses(_read_all(held[0])) == [b"200"]
    finally:
        for sock in held:
            sock.close()
    # Once connections close, new ones are served again.
    deadline = time.monotonic() + 5
    while server.open_connections and time.monotonic() < deadline:
        time.sleep(0.01)
    sock = _connect(server)
    sock.sendall(b"GET /nowhere HTTP/1.1\r\nConnection: close\r\n\r\n")
    assert _statuses(_read_all(sock)) == [b"404"]
    sock.close()


def test_the_serve_flag_defaults_to_the_servers_own_default() -> None:
    import argparse

    from patgate.commands import serve

    parser = argparse.ArgumentParser()
    serve.configure(parser)
    [action] = [a for a in parser._actions if a.dest == "max_connections"]
    assert f"(default: {DEFAULT_MAX_CONNECTIONS}," in (action.help or "")


def test_a_head_sent_one_byte_at_a_time_gets_408_at_its_deadline(
    quick: tuple[LoopbackServer, Fake],
) -> None:
    server, _ = quick
    sock = _connect(server)
    started = time.monotonic()
    answer = b""
    for byte in b"GET /v2/content/hubs HTTP/1.1\r\nX-Slow: " + b"a" * 100:
        try:
            sock.sendall(bytes([byte]))
        except OSError:
            break
        time.sleep(0.05)  # each byte well inside the idle time, the whole head too slow
        if time.monotonic() - started > 3:
            break
    answer = _read_all(sock)
    sock.close()
    assert _statuses(answer) == [b"408"]
    assert time.monotonic() - started < 3
    assert b"\r\nConnection: close\r\n" in answer


def test_a_silent_half_head_gets_408_at_its_deadline(quick: tuple[LoopbackServer, Fake]) -> None:
    server, _ = quick
    sock = _connect(server)
    started = time.monotonic()
    sock.sendall(b"GET /v2/content/hubs HTTP/1.1\r\nHost: x\r\n")
    answer = _read_all(sock)
    sock.close()
    assert _statuses(answer) == [b"408"]
    assert 0.5 < time.monotonic() - started < 3


def test_a_body_that_trickles_gets_408_at_its_deadline(quick: tuple[LoopbackServer, Fake]) -> None:
    server, _ = quick
    sock = _connect(server)
    started = time.monotonic()
    sock.sendall(
        b"POST /graphql HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
    )
    with _peer_may_reset():
        for _ in range(60):
            sock.sendall(b" ")
            time.sleep(0.05)
    answer = _read_all(sock)
    sock.close()
    assert _statuses(answer) == [b"408"]
    assert time.monotonic() - started < 4


def test_an_idle_kept_alive_connection_is_not_cut_by_the_head_deadline(
    quick: tuple[LoopbackServer, Fake],
) -> None:
    server, _ = quick
    sock = _connect(server)
    sock.sendall(b"GET /nowhere HTTP/1.1\r\n\r\n")
    time.sleep(1.2)  # twice the head deadline, between requests
    sock.sendall(b"GET /nowhere HTTP/1.1\r\nConnection: close\r\n\r\n")
    assert _statuses(_read_all(sock)) == [b"404", b"404"]
    sock.close()


@pytest.mark.parametrize("status", [204, 304])
def test_a_fault_rule_cannot_put_a_body_on_a_bodiless_status(
    quick: tuple[LoopbackServer, Fake], status: int
) -> None:
    server, fake = quick
    fake.add_fault("hubs", status=status, body={"smuggled": "GET /evil HTTP/1.1"}, count=1)
    auth = f"Authorization: Bearer {fake.world['admin_token']}\r\n".encode()
    sock = _connect(server)
    sock.sendall(
        b"GET /v2/content/hubs HTTP/1.1\r\n" + auth + b"\r\n"
        b"GET /v2/content/hubs HTTP/1.1\r\n" + auth + b"Connection: close\r\n\r\n"
    )
    answer = _read_all(sock)
    sock.close()
    first, _, rest = answer.partition(b"\r\n\r\n")
    assert first.startswith(b"HTTP/1.1 %d " % status)
    assert b"content-length" not in first.lower()
    assert b"smuggled" not in answer
    assert rest.startswith(b"HTTP/1.1 200 ")  # the next answer is read where it belongs
    assert _statuses(answer) == [str(status).encode(), b"200"]


def test_a_pipelined_100_continue_follows_the_answer_before_it(
    quick: tuple[LoopbackServer, Fake],
) -> None:
    server, fake = quick
    form = (
        f"client_id={fake.world['client_id']}&client_secret={fake.world['client_secret']}"
        "&grant_type=client_credentials"
    ).encode()
    sock = _connect(server)
    sock.sendall(
        b"GET /nowhere HTTP/1.1\r\n\r\n"
        b"POST /oauth/token HTTP/1.1\r\nExpect: 100-continue\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\nConnection: close\r\n"
        b"Content-Length: %d\r\n\r\n" % len(form)
    )
    received = b""
    while b"100 Continue" not in received:
        chunk = sock.recv(65536)
        assert chunk, received
        received += chunk
    assert _statuses(received) == [b"404", b"100"]
    sock.sendall(form)
    received += _read_all(sock)
    sock.close()
    assert _statuses(received) == [b"404", b"100", b"200"]
    assert json.loads(received.rpartition(b"\r\n\r\n")[2])["token_type"] == "Bearer"


_EMFILE_PROGRAM = textwrap.dedent(
    """
    import os, resource, socket, sys, time
    from patgate.transports.loopback_server import LoopbackServer
    from patgate.harness import Fake

    server = LoopbackServer(max_connections=1000)
    fake = Fake(urls=server.urls)
    server.start(fake.handle)
    port = int(server.base_url.rsplit(":", 1)[1])
    open_now = len(os.listdir("/proc/self/fd"))
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (open_now + 4, hard))
    print(port, flush=True)
    sys.stdin.readline()  # the clients hold more connections than descriptors are left
    cpu = time.process_time()
    time.sleep(2)
    busy = time.process_time() - cpu
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    print(busy, server.accept_pauses, flush=True)
    sys.stdin.readline()
    server.stop()
    """
)


def test_out_of_descriptors_pauses_accepting_instead_of_spinning() -> None:
    with subprocess.Popen(
        [sys.executable, "-c", _EMFILE_PROGRAM],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as server:
        try:
            _hold_more_connections_than_descriptors(server)
        finally:
            if server.poll() is None:
                server.kill()


def _hold_more_connections_than_descriptors(server: subprocess.Popen[str]) -> None:
    assert server.stdin is not None
    assert server.stdout is not None
    port = int(server.stdout.readline())
    clients = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(12)]
    try:
        server.stdin.write("\n")
        server.stdin.flush()
        busy, pauses = server.stdout.readline().split()
        assert float(busy) < 0.25  # a spinning accept loop burns the whole 2 s
        assert int(pauses) >= 1
    finally:
        for sock in clients:
            sock.close()
    # Descriptors are back: the server answers again.
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"GET /nowhere HTTP/1.1\r\nConnection: close\r\n\r\n")
        assert _statuses(_read_all(sock)) == [b"404"]
    server.stdin.write("\n")
    server.stdin.flush()
    assert server.wait(timeout=10) == 0


@pytest.mark.parametrize("seconds", [1e-9, 0.05, 1.25])
def test_a_connections_timeout_ends_a_silent_read_at_its_time(seconds: float) -> None:
    # However short (a timeout the kernel would round to nothing must not mean "never").
    ours, theirs = socket.socketpair()
    with ours, theirs:
        loopback_connection._set_timeout(ours, seconds)
        started = time.monotonic()
        with pytest.raises((TimeoutError, BlockingIOError)):
            ours.recv(10)
        assert time.monotonic() - started < seconds + 1.0
        theirs.sendall(b"x")
        assert ours.recv(10) == b"x"  # and a read that has data is answered

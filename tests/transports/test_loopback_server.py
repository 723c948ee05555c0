from __future__ import annotations

import http.client
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from patgate.harness import Fake
from patgate.transports.loopback_server import LoopbackServer
from tests.transports.test_httpx_adapter import BrokenHubs


@pytest.fixture
def served() -> Iterator[tuple[LoopbackServer, Fake]]:
    server = LoopbackServer()
    fake = Fake(urls=server.urls)
    server.start(fake.handle)
    yield server, fake
    server.stop()


def _raw(server: LoopbackServer, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send raw bytes, read one response (the server closes after errors like these)."""
    host, port = server.base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, body


def _connection(server: LoopbackServer) -> http.client.HTTPConnection:
    return http.client.HTTPConnection(server.base_url.removeprefix("http://"), timeout=5)


def test_the_base_url_and_urls_share_one_origin(served: tuple[LoopbackServer, Fake]) -> None:
    server, fake = served
    assert server.base_url.startswith("http://127.0.0.1:")
    assert not server.base_url.endswith(":0")
    assert fake.world["auth_url"] == fake.world["base_url"] == server.base_url
    assert fake.world["graphql_url"] == server.base_url + "/graphql"


def test_keep_alive_serves_several_requests_on_one_connection(
    served: tuple[LoopbackServer, Fake],
) -> None:
    server, fake = served
    connection = _connection(server)
    auth = {"Authorization": f"Bearer {fake.world['admin_token']}"}
    for _ in range(3):
        connection.request("GET", "/v2/content/hubs", headers=auth)
        response = connection.getresponse()
        assert response.status == 200
        assert response.getheader("Connection") != "close"
        json.loads(response.read())
    connection.close()


def test_a_chunked_body_is_read(served: tuple[LoopbackServer, Fake]) -> None:
    server, fake = served
    form = (
        f"client_id={fake.world['client_id']}&client_secret={fake.world['client_secret']}"
        "&grant_type=client_credentials"
    ).encode()
    chunks = (
        b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (form[:7], form[7:]))
        + b"0\r\n\r\n"
    )
    status, _, body = _raw(
        server,
        b"POST /oauth/token HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\nConnection: close\r\n\r\n" + chunks,
    )
    assert status == 200, body
    assert json.loads(body)["token_type"] == "Bearer"


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"GARBAGE\r\n\r\n", 400),
        (b"GET / HTTP/2.0\r\n\r\n", 400),
        (b"GET /v2/content/hubs HTTP/1.1\r\nX: " + b"a" * 70_000 + b"\r\n\r\n", 431),
        (b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n", 414),
        (b"POST /graphql HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400),
        (b"POST /graphql HTTP/1.1\r\nContent-Length: -5\r\n\r\n", 400),
        (b"POST /graphql HTTP/1.1\r\nContent-Length: x\r\n\r\n", 400),
        (b"POST /graphql HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n", 413),
        # A digit to str.isdigit() that int() refuses, and more digits than int() takes.
        (b"POST /graphql HTTP/1.1\r\nContent-Length: \xb2\r\n\r\n", 400),
        (b"POST /graphql HTTP/1.1\r\nContent-Length: " + b"9" * 5000 + b"\r\n\r\n", 413),
        (b"GET http://[bad/v2/content/hubs HTTP/1.1\r\n\r\n", 400),
        (b"POST /graphql HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 400),
        (b"POST /graphql HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", 400),
        (b"POST /graphql HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        # A chunked body is counted as it arrives: refused once past 1 MiB.
        (
            b"POST /graphql HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n200000\r\n"
            + b"{" * (1024 * 1024 + 1),
            413,
        ),
        (b"BREW /graphql HTTP/1.1\r\nConnection: close\r\n\r\n", 405),
        (b"GET /nowhere HTTP/1.1\r\nConnection: close\r\n\r\n", 404),
        (b"GET * HTTP/1.1\r\nConnection: close\r\n\r\n", 404),
    ],
)
def test_malformed_requests_get_a_json_4xx(
    served: tuple[LoopbackServer, Fake], request_bytes: bytes, status: int
) -> None:
    server, _ = served
    got, headers, body = _raw(server, request_bytes)
    assert got == status
    assert headers["content-type"] == "application/json"
    assert json.loads(body)["errors"][0]["message"]
    assert b"aaaa" not in body


def test_an_absolute_form_target_is_served(served: tuple[LoopbackServer, Fake]) -> None:
    server, _ = served
    status, headers, _ = _raw(
        server, b"GET http://elsewhere/v2/content/hubs HTTP/1.1\r\nConnection: close\r\n\r\n"
    )
    assert (status, headers["www-authenticate"]) == (401, "Bearer")


def test_head_gets_the_get_answers_headers_without_a_body(
    served: tuple[LoopbackServer, Fake],
) -> None:
    server, fake = served
    connection = _connection(server)
    auth = {"Authorization": f"Bearer {fake.world['admin_token']}"}
    connection.request("GET", "/v2/content/hubs", headers=auth)
    got = connection.getresponse()
    body = got.read()
    connection.request("HEAD", "/v2/content/hubs", headers=auth)
    response = connection.getresponse()
    assert response.status == 200
    assert response.getheader("Content-Type") == got.getheader("Content-Type")
    # The length the GET body has (RFC 9110 8.6), and no body: the next answer reads clean.
    assert response.getheader("Content-Length") == str(len(body)) != "0"
    assert response.read() == b""
    connection.request("HEAD", "/oauth/token")
    refused = connection.getresponse()
    assert (refused.status, refused.getheader("Allow")) == (405, "POST, OPTIONS")
    assert refused.read() == b""
    connection.close()


def test_a_bug_is_a_500_on_the_wire_and_raises_at_stop() -> None:
    server = LoopbackServer()
    fake = Fake(deployment=BrokenHubs(), urls=server.urls)
    server.start(fake.handle)
    connection = _connection(server)
    connection.request(
        "GET", "/v2/content/hubs", headers={"Authorization": f"Bearer {fake.world['admin_token']}"}
    )
    response = connection.getresponse()
    assert response.status == 500
    assert "re-raised" in json.loads(response.read())["errors"][0]["message"]
    connection.close()
    assert len(server.errors) == 1
    with pytest.raises(RuntimeError, match="bug in list_hubs"):
        server.stop()
    assert server.errors == []


def test_on_error_sees_each_failure_as_it_happens() -> None:
    seen: list[BaseException] = []
    server = LoopbackServer(on_error=seen.append)
    fake = Fake(deployment=BrokenHubs(), urls=server.urls)
    server.start(fake.handle)
    connection = _connection(server)
    connection.request(
        "GET", "/v2/content/hubs", headers={"Authorization": f"Bearer {fake.world['admin_token']}"}
    )
    connection.getresponse().read()
    connection.close()
    server.stop(raise_errors=False)
    assert [type(error) for error in seen] == [RuntimeError]


def test_a_server_cannot_start_twice(served: tuple[LoopbackServer, Fake]) -> None:
    server, fake = served
    with pytest.raises(RuntimeError, match="already serving"):
        server.start(fake.handle)


def test_concurrent_creates_over_sockets_respect_the_cap(
    served: tuple[LoopbackServer, Fake],
) -> None:
    server, fake = served
    world = fake.world
    body = json.dumps(
        {
            "query": "mutation($i: CreatePersonalAccessTokenInput!) {"
            " createPersonalAccessToken(input: $i) { id } }",
            "variables": {"i": {"name": "race", "organizationId": world["organization_id"]}},
        }
    )
    headers = {
        "Authorization": f"Bearer {world['admin_token']}",
        "Content-Type": "application/json",
    }
    barrier = threading.Barrier(12)

    def create() -> dict[str, object]:
        connection = _connection(server)
        barrier.wait()
        connection.request("POST", "/graphql", body=body, headers=headers)
        answer: dict[str, object] = json.loads(connection.getresponse().read())
        connection.close()
        return answer

    with ThreadPoolExecutor(12) as pool:
        answers = list(pool.map(lambda _: create(), range(12)))
    created = [a for a in answers if "errors" not in a]
    assert len(created) == 4  # the world's token is the first of five
    assert len(list(fake.deployment.tokens_of(fake.default_world.admin_id))) == 5


def _exchange(server: LoopbackServer, *parts: bytes, pause: float = 0.05) -> bytes:
    """Send ``parts`` as separate writes, then read until the server closes."""
    host, port = server.base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        for part in parts:
            sock.sendall(part)
            time.sleep(pause)  # each part arrives in a read of its own
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_an_unknown_method_split_across_writes_gets_the_apps_405(
    served: tuple[LoopbackServer, Fake],
) -> None:
    server, _ = served
    answer = _exchange(server, b"BR", b"EW /graphql HTTP/1.1\r\nConnection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 405 ")
    assert b"\r\nAllow: POST, OPTIONS\r\n" in answer


def test_pipelined_requests_are_answered_in_order(served: tuple[LoopbackServer, Fake]) -> None:
    server, fake = served
    auth = f"Authorization: Bearer {fake.world['admin_token']}\r\n".encode()
    answer = _exchange(
        server,
        b"GET /v2/content/hubs HTTP/1.1\r\n" + auth + b"\r\n"
        b"GET /nowhere HTTP/1.1\r\n\r\n"
        b"GET /v2/content/hubs HTTP/1.1\r\nConnection: close\r\n\r\n",
    )
    assert re.findall(rb"HTTP/1\.1 (\d{3}) ", answer) == [b"200", b"404", b"401"]


def test_expect_100_continue_is_answered_before_the_body(
    served: tuple[LoopbackServer, Fake],
) -> None:
    server, fake = served
    form = (
        f"client_id={fake.world['client_id']}&client_secret={fake.world['client_secret']}"
        "&grant_type=client_credentials"
    ).encode()
    host, port = server.base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(
            b"POST /oauth/token HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\nConnection: close\r\n"
            b"Content-Length: %d\r\n\r\n" % len(form)
        )
        assert sock.recv(65536) == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(form)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 ")
    assert json.loads(body)["token_type"] == "Bearer"


def test_a_head_larger_than_its_limit_is_refused(served: tuple[LoopbackServer, Fake]) -> None:
    server, _ = served
    # Fewer fields than the count limit, each under the field limit, too many bytes in all.
    fields = b"".join(b"X-%d: %s\r\n" % (n, b"v" * 4096) for n in range(70))
    status, headers, body = _raw(server, b"GET /v2/content/hubs HTTP/1.1\r\n" + fields + b"\r\n")
    assert (status, headers["connection"]) == (431, "close")
    assert b"vvvv" not in body


def test_an_upgrade_request_is_answered_then_closed(served: tuple[LoopbackServer, Fake]) -> None:
    server, _ = served
    answer = _exchange(
        server,
        b"GET /nowhere HTTP/1.1\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n",
    )
    assert answer.startswith(b"HTTP/1.1 404 ")
    assert b"\r\nConnection: close\r\n" in answer


def test_an_http_0_9_request_gets_the_body_alone(served: tuple[LoopbackServer, Fake]) -> None:
    server, _ = served
    answer = _exchange(server, b"GET /nowhere\r\n\r\n")
    assert not answer.startswith(b"HTTP/")  # HTTP/0.9 has no status line
    assert json.loads(answer)["errors"][0]["message"]

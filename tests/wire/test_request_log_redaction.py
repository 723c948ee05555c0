"""The request log redacts by value every credential the fake knows, wherever it is sent,
cuts long fields, and stays under its byte bound; its matchers cost linear time."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Iterator

import httpx
import pytest

import patgate
from patgate.wire import WireRequest, WireResponse
from patgate.wire.request_log import (
    DEFAULT_LOG_BYTES,
    MAX_BODY_BYTES,
    MAX_URL_TEXT,
    REDACTED,
    TRUNCATED,
    RequestLog,
)


def _client_token(fake: patgate.Fake) -> str:
    world = fake.world
    answer = httpx.post(
        world["auth_url"] + "/oauth/token",
        data={
            "grant_type": "client_credentials",
            "client_id": world["client_id"],
            "client_secret": world["client_secret"],
        },
    )
    token: str = answer.json()["access_token"]
    return token


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    # One client per test: httpx.get() builds a TLS context per call (about 0.1 s).
    with httpx.Client() as client:
        yield client


@pytest.fixture
def fake_and_secrets() -> Iterator[tuple[patgate.Fake, dict[str, str]]]:
    with patgate.Fake() as fake:
        _, added_secret = fake.add_client(fake.default_world.admin_id)
        credentials = {
            "client secret": fake.world["client_secret"],
            "added client secret": added_secret,
            "PAT": fake.world["admin_token"],
            "client token": _client_token(fake),
            "control token": fake.control_token,
        }
        fake.request_log.clear()
        yield fake, credentials


def _logged_text(fake: patgate.Fake) -> str:
    return repr([(e, e.body, e.to_json()) for e in fake.request_log])


KINDS = ["client secret", "added client secret", "PAT", "client token", "control token"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_credential_in_a_body_field_of_any_name_is_redacted(
    fake_and_secrets: tuple[patgate.Fake, dict[str, str]], kind: str, http: httpx.Client
) -> None:
    fake, credentials = fake_and_secrets
    secret = credentials[kind]
    graphql = fake.world["graphql_url"]
    http.post(graphql, json={"query": "{ x }", "variables": {"clientSecret": secret}})
    http.post(graphql, json={"query": "{ x }", "variables": {"access-token": secret}})
    http.post(fake.world["auth_url"] + "/oauth/token", data={"whatever": secret, "x": "1"})
    http.post(graphql, content=b"raw \xff bytes " + secret.encode() + b" \xfe end")
    assert len(fake.request_log) == 4
    assert secret not in _logged_text(fake)
    bodies = [entry.body for entry in fake.request_log]
    assert all(REDACTED.encode() in body for body in bodies)
    assert b"raw \xff bytes " in bodies[3]
    assert b" \xfe end" in bodies[3]
    assert b'"query"' in bodies[0]


@pytest.mark.parametrize("kind", KINDS)
def test_a_credential_in_a_header_of_any_scheme_is_redacted(
    fake_and_secrets: tuple[patgate.Fake, dict[str, str]], kind: str, http: httpx.Client
) -> None:
    fake, credentials = fake_and_secrets
    secret = credentials[kind]
    hubs = fake.world["base_url"] + "/v2/content/hubs"
    for headers in (
        {"Authorization": f"Custom {secret}"},
        {"Authorization": f"Bearer {secret}"},
        {"X-Whatever": f"Token {secret}"},
        {"X-Client": f"id={secret};v=1"},
        {"Proxy-Authorization": secret},
        {f"X-{secret}": "1"},
    ):
        http.get(hubs, headers=headers)
    assert len(fake.request_log) == 6
    assert secret not in _logged_text(fake)
    assert dict(fake.request_log[3].headers)["x-client"] == f"id={REDACTED};v=1"


@pytest.mark.parametrize("kind", KINDS)
def test_a_credential_in_a_path_or_a_query_string_is_redacted(
    fake_and_secrets: tuple[patgate.Fake, dict[str, str]], kind: str, http: httpx.Client
) -> None:
    fake, credentials = fake_and_secrets
    secret = credentials[kind]
    base = fake.world["base_url"] + "/v2/content"
    http.get(f"{base}/hubs/{secret}")
    http.get(f"{base}/hubs/x{secret}y/z")
    http.get(f"{base}/hubs?page=0&anything={secret}")
    http.get(f"{base}/hubs?{secret}=1&q=[{secret}]")
    assert len(fake.request_log) == 4
    assert secret not in _logged_text(fake)
    assert fake.request_log[2].url.endswith(f"?page=0&anything={REDACTED}")


def test_the_log_is_a_sequence_whose_entries_carry_the_request_and_the_status(
    patgate_fake: patgate.Fake, patgate_world: dict[str, str], http: httpx.Client
) -> None:
    auth = {"Authorization": "Bearer " + patgate_world["admin_token"]}
    for page in range(3):
        http.get(patgate_world["base_url"] + f"/v2/content/hubs?page={page}", headers=auth)
    sent = b'{"query":"{ viewer { id } }"}'  # bytes as sent (httpx's json= spacing varies)
    json_auth = {**auth, "Content-Type": "application/json"}
    http.post(patgate_world["graphql_url"], content=sent, headers=json_auth)
    log = patgate_fake.request_log
    assert len(log) == 4
    assert [e.url[-1] for e in log[:3]] == ["0", "1", "2"]
    assert log[-1].method == "POST"
    assert log[-1].body == sent
    assert log[-1].status == 200
    assert dict(log[-1].headers)["authorization"] == f"Bearer {REDACTED}"
    assert log[1:2] == [log[1]]
    assert log[::-1][0] is log[-1]
    assert log.index(log[2]) == 2
    assert log[0] in log


def test_long_fields_are_cut_after_redaction() -> None:
    log = RequestLog()
    long_url = "https://api.test/v2/content/" + "a" * 10_000
    long_body = b"b" * 100_000
    entry = log.record(
        WireRequest("POST", long_url, (("x-long", "v" * 5000), ("n" * 500, "1")), long_body),
        WireResponse(200),
    )
    assert len(entry.url) == MAX_URL_TEXT + len(TRUNCATED)
    assert entry.url.endswith(TRUNCATED)
    assert len(entry.body) == MAX_BODY_BYTES + len(TRUNCATED)
    assert all(len(name) <= 64 + len(TRUNCATED) for name, _ in entry.headers)
    assert all(len(value) <= 256 + len(TRUNCATED) for _, value in entry.headers)


def test_a_secret_across_the_cut_leaves_no_piece_behind() -> None:
    log = RequestLog()
    secret = "S3cr3tValueThatIsLong_abcdefghijklmnopqrstuvwxyz"
    log.know(secret)
    url = "https://api.test/" + "a" * (MAX_URL_TEXT - 30) + secret
    entry = log.record(WireRequest("GET", url), WireResponse(404))
    assert secret[:10] not in entry.url


@pytest.mark.slow
def test_ten_thousand_long_url_requests_stay_under_the_byte_bound() -> None:
    bound = 2 * 1024 * 1024
    log = RequestLog(capacity=1_000_000, max_bytes=bound)
    tracemalloc.start()
    try:
        for n in range(10_000):
            url = f"https://api.test/v2/content/hubs/{n}?q=" + "x" * 5_000
            log.record(
                WireRequest("GET", url, (("user-agent", "u" * 1000), ("x-n", str(n)))),
                WireResponse(404),
            )
        assert log.nbytes <= bound
        assert len(log) < 10_000
        assert log[-1].url.startswith("https://api.test/v2/content/hubs/9")
        with_log = tracemalloc.get_traced_memory()[0]
        del log
        held = with_log - tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    # The estimate is an upper bound of what the entries really hold.
    assert 0 < held <= bound


def test_the_default_byte_bound_is_documented_and_a_fake_takes_another(
    http: httpx.Client,
) -> None:
    assert DEFAULT_LOG_BYTES == 8 * 1024 * 1024
    with patgate.Fake(log_bytes=10_000) as fake:
        assert fake.request_log.max_bytes == 10_000
        for _ in range(50):
            http.get(fake.world["base_url"] + "/v2/content/hubs?" + "z" * 3000)
        assert 1 <= len(fake.request_log) < 50
        assert fake.request_log.nbytes <= 10_000


@pytest.mark.parametrize(
    "hostile",
    [
        "eyJ" * 40_000,
        "eyJ" + "a" * 120_000,
        "amp_pat_" * 15_000,
        ("eyJa." * 30_000),
        "a." * 60_000,
    ],
)
def test_redaction_costs_linear_time_on_hostile_text(hostile: str) -> None:
    log = RequestLog()
    log.know("known-secret-value-1234")
    started = time.perf_counter()
    log.record(
        WireRequest("POST", "https://api.test/" + hostile, (("x", hostile),), hostile.encode()),
        WireResponse(404),
    )
    assert time.perf_counter() - started < 0.5


def test_clients_added_while_requests_are_logged_break_nothing() -> None:
    import threading

    log = RequestLog()
    stop = threading.Event()

    def add() -> None:
        for n in range(2000):
            log.know(f"secret-value-{n:08d}")
        stop.set()

    adder = threading.Thread(target=add)
    adder.start()
    while not stop.is_set():
        log.record(
            WireRequest("GET", "https://api.test/?q=secret-value-00000001"), WireResponse(200)
        )
    adder.join()
    assert log.record(
        WireRequest("GET", "https://api.test/?q=secret-value-00001999"), WireResponse(200)
    ).url.endswith(f"q={REDACTED}")


def test_a_hostile_megabyte_in_every_field_costs_no_more_than_the_fields_limits() -> None:
    log = RequestLog()
    log.know("known-secret-value-1234")
    hostile = "eyJx.eyJy.z amp_pat_q.r known-secret-value-1234 " * 22_000  # about 1 MB
    started = time.perf_counter()
    entry = log.record(
        WireRequest("POST", "https://api.test/" + hostile, (("x", hostile),), hostile.encode()),
        WireResponse(400),
    )
    assert time.perf_counter() - started < 0.25  # about 1 ms measured; the machine is shared
    assert entry.url.endswith(TRUNCATED)
    assert entry.body.endswith(TRUNCATED.encode())
    for text in (entry.url, dict(entry.headers)["x"], entry.body.decode()):
        assert "known-secret" not in text
        assert "eyJy" not in text
        assert "amp_pat_q" not in text


def test_a_field_cut_before_redaction_is_marked_even_when_it_shrank() -> None:
    log = RequestLog()
    # One PAT-shaped run longer than the limit and its margin: redacted to a few characters.
    url = "https://api.test/x?t=amp_pat_" + "a" * 20_000
    entry = log.record(WireRequest("GET", url), WireResponse(401))
    assert entry.url == f"https://api.test/x?t={REDACTED}{TRUNCATED}"

"""Entries a fake appends are kept as sent and redacted when first read: whatever reads
them sees what ``record`` (redacting at once) would have given, and the byte bound holds."""

from __future__ import annotations

import dataclasses
import gc
import threading
import time
import tracemalloc

import pytest

from patgate.wire import WireRequest, WireResponse
from patgate.wire.request_log import (
    MAX_BODY_BYTES,
    MAX_URL_TEXT,
    REDACTED,
    TRUNCATED,
    LoggedRequest,
    RequestLog,
)

PAT = "amp_pat_0VDx5anoRUK7QmNWYZIOrQ.IqSKk8gASgZKhpIqSKk8gASgZKhpIqSKk8gASgZ"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"
SECRET = "client-secret-4f9a1c77e2"

REQUESTS = [
    WireRequest("GET", "https://api.test/v2/content/hubs", (("Authorization", f"Bearer {PAT}"),)),
    WireRequest("GET", f"https://api.test/v2/content/hubs?access_token={PAT}&page=1"),
    WireRequest(
        "POST",
        "https://auth.test/oauth/token",
        (("Content-Type", "application/x-www-form-urlencoded"),),
        f"client_id=c&client_secret={SECRET}&grant_type=client_credentials".encode(),
    ),
    WireRequest(
        "POST",
        "https://api.test/graphql",
        (("authorization", f"Bearer {JWT}"), ("content-type", "application/json")),
        b'{"query":"mutation Make { x }","variables":{"t":"' + PAT.encode() + b'"}}',
    ),
    WireRequest("GET", "https://api.test/x", (("x-forwarded", SECRET), ("cookie", "s=1"))),
    WireRequest("GET", "https://api.test/" + "a" * (MAX_URL_TEXT + 10)),
    WireRequest("POST", "https://api.test/b", (), b"b" * (MAX_BODY_BYTES + 10)),
    WireRequest("GET", "https://api.test/h", (("x-long", "v" * 5000),)),
]


def _without_number_and_time(entry: LoggedRequest) -> LoggedRequest:
    return dataclasses.replace(entry, number=0, at=0.0)


@pytest.mark.parametrize("request_", REQUESTS, ids=range(len(REQUESTS)))
def test_an_appended_entry_reads_as_the_recorded_one(request_: WireRequest) -> None:
    recorded, appended = RequestLog(), RequestLog()
    for log in (recorded, appended):
        log.know(SECRET)
    entry = recorded.record(request_, WireResponse(201), principal="u1", duration=0.002, via="pat")
    appended.append(request_, WireResponse(201), principal="u1", duration=0.002, via="pat")
    assert _without_number_and_time(appended[-1]) == _without_number_and_time(entry)
    assert appended.nbytes == recorded.nbytes
    text = repr(appended) + repr(appended.entries())
    for secret in (PAT, JWT, SECRET, "IqSKk8"):
        assert secret not in text


def test_a_value_known_after_the_append_is_redacted_when_read() -> None:
    log = RequestLog()
    log.append(WireRequest("GET", f"https://api.test/x?q={SECRET}"), WireResponse(404))
    log.know(SECRET)
    assert SECRET not in log[0].url
    assert REDACTED in log[0].url


@pytest.mark.parametrize(
    "read",
    [
        lambda log: [log[0], log[-1]],
        lambda log: log[:],
        list,
        lambda log: log.entries(),
        lambda log: list(log.page().entries),
    ],
    ids=["index", "slice", "iteration", "entries", "page"],
)
def test_every_reader_sees_redacted_entries(read) -> None:  # type: ignore[no-untyped-def]
    log = RequestLog()
    for _ in range(3):
        log.append(REQUESTS[0], WireResponse(200))
    entries = read(log)
    assert all(type(entry) is LoggedRequest for entry in entries)
    assert all(PAT not in repr(entry.headers) for entry in entries)


def test_the_log_repr_shows_no_unread_request() -> None:
    log = RequestLog()
    log.append(WireRequest("GET", f"https://api.test/x?t={PAT}"), WireResponse(200))
    assert PAT not in repr(log)
    assert REDACTED in repr(log)


def test_appended_and_recorded_entries_keep_their_order_and_numbers() -> None:
    log = RequestLog(capacity=4)
    for n in range(10):
        request = WireRequest("GET", f"https://api.test/{n}")
        if n % 3 == 0:
            log.record(request, WireResponse(200))
        else:
            log.append(request, WireResponse(200))
    assert [entry.url for entry in log] == [f"https://api.test/{n}" for n in range(6, 10)]
    assert [entry.number for entry in log] == [7, 8, 9, 10]
    log.clear()
    log.append(REQUESTS[0], WireResponse(200))
    assert len(log) == 1
    assert log[0].number == 11


def test_a_request_past_the_limits_is_cut_at_once() -> None:
    log = RequestLog()
    body = b"x" * 1_000_000
    tracemalloc.start()
    try:
        request = WireRequest("POST", "https://api.test/big", (), body)
        before = tracemalloc.get_traced_memory()[0]
        log.append(request, WireResponse(413))
        del request, body
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # The megabyte went with the request: the log keeps its first 4 KiB, cut.
    assert held < 100_000
    assert log[0].body.endswith(TRUNCATED.encode())


@pytest.mark.slow
def test_ten_thousand_appended_requests_stay_under_the_byte_bound() -> None:
    bound = 1024 * 1024
    log = RequestLog(capacity=1_000_000, max_bytes=bound)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(10_000):
            # Strings of their own, as each request's are: nothing shared between entries.
            headers = tuple((f"x-field-{k}", f"{n}-" + "v" * 200) for k in range(40))
            log.append(
                WireRequest("GET", f"https://api.test/v2/content/hubs/{n}", headers, b"b" * 500),
                WireResponse(404),
            )
        assert log.nbytes <= bound
        assert len(log) < 10_000
        held = tracemalloc.get_traced_memory()[0] - before
        assert log[-1].url == "https://api.test/v2/content/hubs/9999"
    finally:
        tracemalloc.stop()
    # The estimate is an upper bound of what the unread entries really hold.
    assert 0 < held <= bound


def test_appends_and_reads_from_many_threads_lose_nothing() -> None:
    log = RequestLog(capacity=10_000)
    seen: list[int] = []

    def append() -> None:
        for _ in range(300):
            log.append(REQUESTS[3], WireResponse(200))

    def read() -> None:
        for _ in range(50):
            seen.extend(entry.number for entry in log.entries())

    threads = [threading.Thread(target=append) for _ in range(4)]
    threads.append(threading.Thread(target=read))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    numbers = [entry.number for entry in log]
    assert numbers == list(range(1, 1201))
    assert all(JWT not in repr(entry) for entry in log)
    assert set(seen) <= set(numbers)


def test_unread_entries_leave_the_garbage_collector_nothing_to_visit() -> None:
    # Every full collection visits every tracked object: a log of a thousand entries as
    # objects (or tuples of pairs) would add thousands to each, on every request's path.
    log = RequestLog(capacity=2_000)
    gc.collect()
    before = len(gc.get_objects())
    for n in range(1_000):
        headers = tuple((f"x-field-{k}", f"{n}") for k in range(8))
        log.append(WireRequest("POST", f"https://api.test/{n}", headers, b"{}"), WireResponse(200))
    gc.collect(0)
    assert len(gc.get_objects()) - before < 100
    assert len(log) == 1_000


def test_a_redaction_that_fails_loses_no_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    failed, reference = RequestLog(), RequestLog()
    for log in (failed, reference):
        log.know(SECRET)
        for number in range(4):
            request = WireRequest("GET", f"https://api.test/{number}", (("x-secret", SECRET),))
            log.append(request, WireResponse(200), principal="u1")
    redacted = RequestLog._redacted
    calls = []

    def failing_on_the_third(self: RequestLog, unread: tuple[object, ...]) -> object:
        calls.append(unread)
        if len(calls) == 3:
            raise ValueError("a bug in redaction")
        return redacted(self, unread)  # type: ignore[arg-type]

    monkeypatch.setattr(RequestLog, "_redacted", failing_on_the_third)
    with pytest.raises(ValueError, match="a bug in redaction"):
        failed.entries()
    monkeypatch.setattr(RequestLog, "_redacted", redacted)
    entries = failed.entries()
    assert [entry.url for entry in entries] == [f"https://api.test/{n}" for n in range(4)]
    assert [entry.number for entry in entries] == sorted(entry.number for entry in entries)
    assert [_without_number_and_time(e) for e in entries] == [
        _without_number_and_time(e) for e in reference.entries()
    ]
    assert all(dict(entry.headers)["x-secret"] == REDACTED for entry in entries)
    assert failed.nbytes == reference.nbytes


def test_a_request_kept_as_sent_is_one_untracked_tuple_that_reads_back_by_name() -> None:
    from patgate.wire.logged_request import SentRequest

    sent = SentRequest.of(
        REQUESTS[3], WireResponse(201), number=7, principal="u1", duration=0.5, via="pat"
    )
    packed = sent.packed()
    gc.collect()
    # The collector untracks a plain tuple of strings and numbers, never a subclass's.
    assert type(packed) is tuple
    assert not gc.is_tracked(packed)
    assert SentRequest.unpacked(packed) == sent
    assert sent.headers == tuple((name.lower(), value) for name, value in REQUESTS[3].headers)
    request = REQUESTS[3]
    assert (sent.method, sent.url, sent.body) == (request.method, request.url, request.body)
    assert (sent.number, sent.status, sent.principal, sent.via) == (7, 201, "u1", "pat")
    assert (sent.duration, sent.fault) == (0.5, None)
    assert abs(time.time() - 0.5 - sent.at) < 60


@pytest.mark.parametrize("bound", ["capacity", "bytes"])
def test_unread_entries_past_the_bound_go_oldest_first_and_the_rest_read(bound: str) -> None:
    log = RequestLog(capacity=3) if bound == "capacity" else RequestLog(max_bytes=3_500)
    for n in range(10):
        log.append(WireRequest("GET", f"https://api.test/{n}"), WireResponse(200))
    assert [entry.number for entry in log] == [8, 9, 10]
    assert log.nbytes <= 3_500

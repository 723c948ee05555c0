"""The request log is a bounded ring buffer, read newest first, filtered, redacted."""

from __future__ import annotations

import pytest

from patgate.wire.messages import WireRequest, WireResponse
from patgate.wire.request_log import REDACTED, RequestLog

BASE = "https://api.example.test/v2/content"


def _record(log: RequestLog, path: str, status: int, **headers: str) -> None:
    log.record(WireRequest("GET", BASE + path, tuple(headers.items())), WireResponse(status))


def test_the_log_keeps_only_its_capacity_and_numbers_every_request() -> None:
    log = RequestLog(capacity=3)
    for n in range(5):
        _record(log, f"/hubs?page={n}", 200)
    assert len(log) == 3
    assert [e.number for e in log] == [3, 4, 5]
    assert [e.url.rsplit("=", 1)[1] for e in log] == ["2", "3", "4"]


def test_pages_come_newest_first_and_filters_apply_before_paging() -> None:
    log = RequestLog()
    for n in range(6):
        _record(log, "/hubs" if n % 2 else "/other", 200 if n < 4 else 429)
    newest = log.page(0, 2)
    assert [e.number for e in newest.entries] == [6, 5]
    assert newest.total == 6
    assert [e.number for e in log.page(1, 2).entries] == [4, 3]
    assert [e.number for e in log.page(0, 10, status=429).entries] == [6, 5]
    assert [e.number for e in log.page(0, 10, status="2xx", path="/hubs").entries] == [4, 2]
    assert log.page(5, 10).entries == ()


def test_a_bad_status_filter_is_refused() -> None:
    with pytest.raises(ValueError, match="status must be a code such as 429"):
        RequestLog().page(status="teapot")


def test_headers_are_kept_with_every_credential_redacted() -> None:
    log = RequestLog()
    secret = "amp_pat_abcdefghijklmnopqrstuv.secretsecretsecret"
    _record(
        log,
        "/hubs",
        200,
        Authorization=f"Bearer {secret}",
        Cookie="session=abc",
        **{"X-Trace": f"id {secret}", "Accept": "application/json"},
    )
    [entry] = log
    headers = dict(entry.headers)
    assert headers == {
        "authorization": f"Bearer {REDACTED}",
        "cookie": REDACTED,
        "x-trace": f"id {REDACTED}",
        "accept": "application/json",
    }
    assert secret not in repr(entry) + str(entry.to_json())


def test_a_capacity_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        RequestLog(capacity=0)

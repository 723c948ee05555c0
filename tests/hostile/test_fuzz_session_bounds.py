"""``patgate fuzz`` reads a target through requests, not the run's exchange: its session
reads every answer within the same cap, one coding at most, so a bomb is a failure naming
the refusal, not gigabytes held. (The fuzzing passes themselves need the ``fuzz`` extra;
these tests need only requests.)"""

from __future__ import annotations

import gzip
import tracemalloc
from collections.abc import Iterator

import pytest
import requests

from patgate.errors import RequestFailed
from patgate.fuzz.bounded_session import AnswerUnread, bounded_session
from patgate.fuzz.recorder import Recorder
from patgate.fuzz.report import FuzzReport
from patgate.guards.redaction import Redactor
from patgate.runner.connection.exchange import DEFAULT_MAX_RESPONSE_BYTES

from . import bombs
from .server import Misbehaviour, Server

CAP = DEFAULT_MAX_RESPONSE_BYTES


def _every(request: object) -> bool:
    return True


@pytest.fixture
def session() -> Iterator[requests.Session]:
    with requests.Session() as plain:
        yield bounded_session(plain, CAP)


def serving(writer: bombs.Writer) -> Server:
    return Server(Misbehaviour("bomb", writer, _every, times=1))


def get_holding(session: requests.Session, url: str) -> tuple[BaseException | None, int]:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        try:
            session.get(url, timeout=(5, 20))
            raised = None
        except requests.RequestException as error:
            raised = error
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return raised, peak


def test_a_gibibyte_bomb_is_refused_having_held_under_twice_the_cap(
    session: requests.Session,
) -> None:
    bombs.gzip_bomb(1024)
    with serving(bombs.GIB_GZIP) as server:
        raised, peak = get_holding(session, server.base_url + "/v2/content/hubs")
    assert isinstance(raised, AnswerUnread)
    assert f"larger than {CAP} bytes" in str(raised)
    assert peak < 2 * CAP, f"held {peak / bombs.MIB:.1f} MiB"


def test_the_measure_sees_what_a_plain_session_holds() -> None:
    """The twin: without the bounded adapter, requests holds the whole decoded bomb."""
    bombs.gzip_bomb(64)
    with (
        requests.Session() as plain,
        serving(bombs.coded(lambda: bombs.gzip_bomb(64), b"gzip")) as server,
    ):
        raised, peak = get_holding(plain, server.base_url + "/v2/content/hubs")
    assert raised is None
    assert peak > 4 * CAP


def test_an_answer_compressed_twice_is_refused(session: requests.Session) -> None:
    bombs.stacked_gzip_bomb(256)
    with serving(bombs.STACKED_GZIP) as server:
        raised, peak = get_holding(session, server.base_url + "/v2/content/hubs")
    assert isinstance(raised, AnswerUnread)
    assert "compressed more than once (Content-Encoding: gzip, gzip)" in str(raised)
    assert peak < CAP // 4


def test_an_honest_gzip_answer_reads_as_the_plain_one(session: requests.Session) -> None:
    with Server(None) as server:
        plain = session.get(server.base_url + "/v2/content/hubs", timeout=5)
    with serving(bombs.compressed_answer(gzip.compress, b"gzip")) as server:
        answer = session.get(server.base_url + "/v2/content/hubs", timeout=5)
    assert answer.content == plain.content
    assert answer.json() == plain.json()
    # What schemathesis reads of the raw answer is still there.
    assert answer.raw.headers.getlist("content-encoding") == ["gzip"]
    assert answer.raw.version == 11


def test_a_set_up_call_answered_by_a_bomb_fails_naming_it(session: requests.Session) -> None:
    recorder = Recorder(session, FuzzReport("t", 0, 1), Redactor(), timeout=(5, 20))
    bombs.stacked_gzip_bomb(256)
    with (
        serving(bombs.GZIP_LISTED_TWICE) as server,
        pytest.raises(RequestFailed, match="compressed more than once"),
    ):
        recorder.send("POST", server.base_url + "/graphql", json_body={"query": "{}"})

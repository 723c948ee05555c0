"""A run at ``--concurrency N``: the same report as one scenario at a time, the events in
catalogue order, one client whose pool keeps its connections alive, and exact cleanup when a
signal lands in the middle of concurrent writes."""

from __future__ import annotations

import http.server
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from patgate.cli import main
from patgate.harness import Fake
from patgate.reporting.json_document import report_document
from patgate.runner import FakeTarget, LiveTarget, RunOptions, TargetConfig
from patgate.runner.connection.exchange import Exchange
from patgate.runner.engine import consume, run
from patgate.runner.interruption import SignalGuard
from patgate.runner.results.events import (
    Event,
    Outcome,
    RunFinished,
    RunStarted,
    ScenarioFinished,
    ScenarioStarted,
)
from patgate.scenario import Scenario

from .support import builtin, scenarios, writer

WAIT = 10.0


def two_admins() -> Fake:
    """A fake whose member is an admin too: both may create, so writes run side by side."""
    fake = Fake()
    fake.set_role(fake.world_ids()["member"], "admin")
    return fake


def writers() -> list[Scenario]:
    """Three writers as the admin and three as the member, interleaved, and two readers
    (run them on :func:`two_admins`)."""
    chosen: list[Scenario] = []
    for n in range(3):
        chosen += scenarios(writer(f"admin-writes-{n}", "admin_token"))
        chosen += scenarios(writer(f"member-writes-{n}", "member_token"))
    chosen += [s for s in builtin() if s.id in ("token-ok", "pat-list-own")]
    return chosen


def _comparable(events: list[Event]) -> tuple[list[tuple[str, str]], dict[str, Any]]:
    """The events' kinds and scenarios, and the JSON report without its timings and run id."""
    started = next(e for e in events if isinstance(e, RunStarted))
    finished = events[-1]
    assert isinstance(finished, RunFinished)
    document = report_document(started, finished)
    for key in ("run_id", "duration"):
        document.pop(key)
    for scenario in document["scenarios"]:
        scenario.pop("duration")
    kinds = [(type(e).__name__, getattr(e, "scenario_id", "")) for e in events]
    return kinds, document


@pytest.mark.parametrize("concurrency", [4, 8])
def test_the_built_in_run_reports_the_same_at_concurrency_1_and_more(concurrency: int) -> None:
    chosen = builtin()
    one = list(run(chosen, FakeTarget(), RunOptions(concurrency=1)))
    four = list(run(chosen, FakeTarget(), RunOptions(concurrency=concurrency)))
    events_one, report_one = _comparable(one)
    events_four, report_four = _comparable(four)
    assert report_four == report_one
    assert events_four == events_one
    started = [e.scenario_id for e in four if isinstance(e, ScenarioStarted)]
    assert started == [s.id for s in chosen], "events in catalogue order"
    assert report_four["exit_code"] == 0
    assert report_four["counts"]["tokens_created"] == report_four["counts"]["tokens_deleted"] > 0


def _stopping_target(fake: Fake, *, after_creates: int) -> LiveTarget:
    """The fake as a live target whose transport sends this process SIGTERM as the
    ``after_creates``-th create goes out (the create itself still reaches the fake)."""
    inner = fake.httpx_transport()
    lock = threading.Lock()
    seen = {"creates": 0}

    def handle(request: httpx.Request) -> httpx.Response:
        if b"createPersonalAccessToken" in request.content:
            with lock:
                seen["creates"] += 1
                now = seen["creates"]
            if now == after_creates:
                os.kill(os.getpid(), signal.SIGTERM)  # this process, under the test's guard
        return inner.handle_request(request)

    return LiveTarget(TargetConfig(fake.world), transport=httpx.MockTransport(handle))


@pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(),
    reason="signals reach the main thread only: run pytest from a shell, not inside a thread",
)
def test_a_sigterm_in_the_middle_of_concurrent_writes_deletes_every_token() -> None:
    fake = two_admins()
    before = set(fake.deployment.tokens)
    chosen = writers()
    target = _stopping_target(fake, after_creates=2)
    with SignalGuard(notice=lambda _: None):
        end = consume(
            run(chosen, target, RunOptions(allow_writes=True, concurrency=4)), lambda _: None
        )
    assert end is not None
    assert end.interrupted == "SIGTERM"
    assert end.exit_code == 143
    tallies = end.tallies
    assert tallies is not None
    assert tallies.tokens_created >= 2
    assert tallies.tokens_deleted == tallies.tokens_created
    assert tallies.tokens_leaked == 0
    assert set(fake.deployment.tokens) == before, "every token the run made is gone"
    assert [r.scenario_id for r in end.scenarios] == [s.id for s in chosen]
    assert sum(end.counts.values()) == len(chosen)
    reasons = {r.scenario_id: r.reason for r in end.scenarios if r.outcome is Outcome.NOT_CHECKED}
    assert any(why == "not run: the run was interrupted by SIGTERM" for why in reasons.values())
    assert set(reasons.values()) <= {
        "not run: the run was interrupted by SIGTERM",
        "interrupted by SIGTERM while it ran",
    }


def test_an_interrupt_in_a_reporter_halts_a_concurrent_run() -> None:
    fake = two_admins()
    before = set(fake.deployment.tokens)
    chosen = writers()
    handled: list[Event] = []

    def reporter(event: Event) -> None:
        handled.append(event)
        if isinstance(event, ScenarioFinished) and event.scenario_id == "member-writes-0":
            raise KeyboardInterrupt

    end = consume(run(chosen, FakeTarget(fake), RunOptions(concurrency=4)), reporter)
    assert end is not None
    assert end is handled[-1]
    assert (end.interrupted, end.exit_code) == ("SIGINT", 130)
    assert [r.scenario_id for r in end.scenarios] == [s.id for s in chosen]
    results = {r.scenario_id: r for r in end.scenarios}
    assert results["admin-writes-0"].outcome is Outcome.PASSED
    tallies = end.tallies
    assert tallies is not None
    assert tallies.tokens_deleted == tallies.tokens_created
    assert tallies.tokens_leaked == 0
    assert set(fake.deployment.tokens) == before
    shown = [e.scenario_id for e in handled if isinstance(e, ScenarioFinished)]
    assert shown == [s.id for s in chosen if s.id in shown], "events stay in catalogue order"


class _Counting(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive
    peers: set[tuple[str, int]]
    lock: threading.Lock

    def do_GET(self) -> None:
        with self.lock:
            self.peers.add(self.client_address)
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format: str, *args: Any) -> None:
        del format, args


@pytest.fixture
def counting_server() -> Iterator[tuple[str, set[tuple[str, int]]]]:
    """A loopback HTTP/1.1 server that notes each connection's client address."""
    peers: set[tuple[str, int]] = set()
    handler = type("Handler", (_Counting,), {"peers": peers, "lock": threading.Lock()})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", peers
    finally:
        server.shutdown()
        server.server_close()
        thread.join(WAIT)


def test_the_client_is_shared_by_threads_and_keeps_its_connections_alive(
    counting_server: tuple[str, set[tuple[str, int]]],
) -> None:
    url, peers = counting_server
    exchange = Exchange(LiveTarget(TargetConfig({"base_url": url})), connections=4)
    statuses: list[int] = []
    lock = threading.Lock()

    def send_many() -> None:
        for _ in range(10):
            observed = exchange.send("GET", f"{url}/v2/content/hubs", kind="hubs")
            with lock:
                statuses.append(observed.status)

    threads = [threading.Thread(target=send_many) for _ in range(4)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(WAIT)
    finally:
        exchange.close()
    assert statuses == [200] * 40
    assert 1 <= len(peers) <= 4, "40 requests from 4 threads over at most 4 connections"


@pytest.mark.parametrize("value", ["0", "65", "many"])
def test_a_concurrency_out_of_range_is_a_usage_error(
    value: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["run", "--concurrency", value])
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert "--concurrency" in error
    assert "1 to 64" in error or "not a number of scenarios" in error


def test_concurrency_1_runs_one_scenario_at_a_time_in_the_calling_thread() -> None:
    threads: set[str] = set()
    fake = Fake()
    inner = fake.httpx_transport()

    def handle(request: httpx.Request) -> httpx.Response:
        threads.add(threading.current_thread().name)
        return inner.handle_request(request)

    target = LiveTarget(TargetConfig(fake.world), transport=httpx.MockTransport(handle))
    chosen = [s for s in builtin() if s.id in ("token-ok", "pat-list-own")]
    events = list(run(chosen, target, RunOptions(concurrency=1)))
    assert isinstance(events[-1], RunFinished)
    assert threads == {threading.current_thread().name}
    threads.clear()
    events = list(run(chosen, target, RunOptions(concurrency=2)))
    assert isinstance(events[-1], RunFinished)
    assert threads
    assert all(name.startswith("patgate-scenario-") for name in threads)

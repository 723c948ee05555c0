"""Fuzzing a deployment over HTTP (the fake on a loopback server, as a live target).

A live target is fuzzed read-only unless writes are allowed; with writes, every token the
run creates is deleted again, so the user's tokens are the same before and after.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("schemathesis", reason="needs the fuzz extra: pip install -e '.[fuzz]'")

from patgate.fuzz import FuzzOptions, fuzz_target
from patgate.harness import Fake
from patgate.runner.connection.config import TargetConfig
from patgate.runner.custody.ledger import Ledger
from patgate.transports.loopback_server import LoopbackServer

WRITES = ("Mutation.createPersonalAccessToken", "Mutation.deletePersonalAccessToken")


@pytest.fixture
def served() -> Iterator[Fake]:
    server = LoopbackServer()
    fake = Fake(urls=server.urls)
    server.start(fake.handle)
    try:
        yield fake
    finally:
        server.stop()


def _token_ids(fake: Fake) -> set[str]:
    return {record.id for record in fake.deployment.tokens_of(fake.default_world.admin_id)}


def test_a_live_target_is_fuzzed_read_only_by_default(served: Fake) -> None:
    before = _token_ids(served)
    report = fuzz_target(TargetConfig(served.world), FuzzOptions(max_examples=5, seed=3))
    assert report.ok, report.render()
    for name in (*WRITES, "PAT lifecycle"):
        assert report.tallies[name].not_checked == "writes need --allow-writes"
        assert report.tallies[name].cases == 0
    assert report.tallies["Query.viewer"].cases > 0
    assert report.tallies["POST /oauth/token +basic"].statuses[200] > 0
    assert _token_ids(served) == before


def test_allowed_writes_are_fuzzed_and_every_token_made_is_deleted(served: Fake) -> None:
    before = _token_ids(served)
    options = FuzzOptions(max_examples=5, seed=3, allow_writes=True)
    report = fuzz_target(TargetConfig(served.world), options)
    assert report.ok, report.render()
    assert all(report.tallies[name].cases > 0 for name in (*WRITES, "PAT lifecycle"))
    assert report.tallies["PAT lifecycle"].statuses[200] > 0
    assert _token_ids(served) == before


def test_the_lifecycle_writes_every_token_to_the_ledger_before_it_exists(
    served: Fake, tmp_path: Path
) -> None:
    # A fuzz run killed midway must leave nothing `patgate cleanup` cannot find: each create
    # is written down (pending) before it is sent, and each delete closes its entry.
    ledger = tmp_path / "ledger.jsonl"
    options = FuzzOptions(max_examples=3, seed=5, allow_writes=True, ledger_path=ledger)
    report = fuzz_target(TargetConfig(served.world), options)
    assert report.ok, report.render()
    events = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
    pending = [e["name"] for e in events if e["event"] == "pending"]
    created = {e["name"]: e["id"] for e in events if e["event"] == "created"}
    deleted = {e["id"] for e in events if e["event"] == "deleted"}
    assert pending
    assert all(name.startswith("patgate-") for name in pending)
    assert created
    assert set(created.values()) <= deleted
    first_event = {}
    for index, event in enumerate(events):
        first_event.setdefault((event["name"], event["event"]), index)
    assert all(first_event[(n, "pending")] < first_event[(n, "created")] for n in created)
    (run,) = Ledger.load(ledger)
    assert run.outstanding() == []
    assert {t.id for t in served.deployment.tokens_of(served.default_world.admin_id)}.isdisjoint(
        created.values()
    )

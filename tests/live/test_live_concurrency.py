"""``patgate run --concurrency 4`` against ``patgate serve``: a real SIGTERM (or SIGINT)
while two users' creates are in flight leaves no token behind, and the JSON report adds up."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from patgate.control_client import ControlClient

from ..runner.support import writer
from .support import Served, ledger_events, stop

pytestmark = pytest.mark.slow

LATENCY = 0.3
"""Seconds the served fake adds to every GraphQL answer, so writes are in flight a while."""


@pytest.fixture
def two_admins(served: Served) -> Served:
    """``patgate serve`` whose member is an admin too (both may create) and whose GraphQL
    answers are slowed by :data:`LATENCY`; its target file without the control keys."""
    with ControlClient(served.control["control_url"], served.control["control_token"]) as control:
        control.set_role(control.world_ids()["member"], "admin")
        control.faults.add("graphql", latency=LATENCY)
    return served


def _pending_as(ledger: Path, keys: set[str], timeout: float = 60.0) -> None:
    """Until the ledger holds a create written down by each of ``keys``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ledger.exists():
            seen = {e.get("as") for e in ledger_events(ledger) if e["event"] == "pending"}
            if keys <= seen:
                return
        time.sleep(0.05)
    raise AssertionError(f"{ledger} never held creates by {sorted(keys)}")


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_during_concurrent_writes_deletes_every_token(
    two_admins: Served, sig: signal.Signals, code: int
) -> None:
    served = two_admins
    folder = served.folder / "writers"
    folder.mkdir()
    for n in range(3):
        for key in ("admin_token", "member_token"):
            name = f"{key.split('_')[0]}-writes-{n}"
            (folder / f"{name}.yaml").write_text(writer(name, key), encoding="utf-8")
    ledger = served.folder / "ledger.jsonl"
    report = served.folder / "report.json"
    process = served.start(
        "run",
        "--world",
        str(served.world_file),
        "--allow-writes",
        "--concurrency",
        "4",
        "--ledger",
        str(ledger),
        "--scenarios",
        str(folder),
        "--report",
        f"json:{report}",
    )
    try:
        _pending_as(ledger, {"admin_token", "member_token"})
        process.send_signal(sig)  # the run this test started, by its handle
        out, err = process.communicate(timeout=90)
    finally:
        stop(process)
    assert process.returncode == code, out + err
    assert "Traceback" not in err
    assert f"exit {code}: interrupted ({sig.name})" in out
    document = json.loads(report.read_text(encoding="utf-8"))
    assert (document["interrupted"], document["signal"]) == (True, sig.name)
    assert document["exit_code"] == code
    counts = document["counts"]
    assert counts["tokens_created"] >= 2
    assert counts["tokens_deleted"] == counts["tokens_created"]
    assert counts["tokens_leaked"] == 0
    assert len(document["scenarios"]) == 6
    assert sum(counts[k] for k in ("passed", "failed", "warning", "not_checked")) == 6
    assert any(s["reason"].startswith("not run") for s in document["scenarios"])
    assert served.run_tokens("admin_token") == []
    assert served.run_tokens("member_token") == []
    history: dict[str, list[str]] = {}
    for entry in ledger_events(ledger):
        history.setdefault(entry["name"], []).append(entry["event"])
    assert history
    for name, events in history.items():
        assert events[0] == "pending", f"{name}: written down before it was sent"
        assert events[-1] in ("deleted", "refused", "absent"), f"{name}: {events}"

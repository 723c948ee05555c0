"""A run stopped in the middle of a scenario leaves no token behind: SIGTERM and Ctrl-C run
the cleanup; after a SIGKILL, ``patgate cleanup`` finishes from the ledger. The same holds
for scenario items in a pytest session, which pytest alone would not clean up on SIGTERM."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from .support import SLOW_CREATE, Served, ledger_events, stop, wait_for

pytestmark = pytest.mark.slow


def _slow_run(served: Served, ledger: Path) -> tuple[subprocess.Popen[str], Path]:
    scenario = served.folder / "slow.yaml"
    scenario.write_text(SLOW_CREATE, encoding="utf-8")
    process = served.start(
        "run",
        "--world",
        str(served.world_file),
        "--allow-writes",
        "--max-wait",
        "120",
        "--ledger",
        str(ledger),
        "--scenarios",
        str(scenario),
    )
    return process, scenario


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_in_the_middle_of_a_scenario_leaves_no_token_behind(
    served: Served, sig: signal.Signals, code: int
) -> None:
    ledger = served.folder / "ledger.jsonl"
    process, _ = _slow_run(served, ledger)
    try:
        wait_for(ledger, '"created"')
        assert len(served.run_tokens()) == 1, "the token exists while the scenario waits"
        process.send_signal(sig)  # the run this test started, by its handle
        out, err = process.communicate(timeout=60)
    finally:
        stop(process)
    assert process.returncode == code, out + err
    assert "interrupted by " + sig.name in out
    assert "tokens: 1 created, 1 deleted, 0 leaked" in out
    assert f"exit {code}: interrupted ({sig.name})" in out
    assert "Traceback" not in err
    assert served.run_tokens() == []
    assert [e["event"] for e in ledger_events(ledger)] == ["pending", "created", "deleted"]


def test_patgate_cleanup_finishes_a_run_killed_outright(served: Served) -> None:
    ledger = served.folder / "ledger.jsonl"
    process, _ = _slow_run(served, ledger)
    try:
        wait_for(ledger, '"created"')
        process.kill()  # SIGKILL to the run this test started: no cleanup can happen
        process.wait(timeout=30)
    finally:
        stop(process)
    left = served.run_tokens()
    assert len(left) == 1
    untouched = served.create_token("made by someone else after the run")

    first = served.run("cleanup", "--world", str(served.world_file), "--ledger", str(ledger))
    assert first.returncode == 0, first.stdout + first.stderr
    assert ": 1 deleted, 0 never created, 0 left" in first.stdout
    assert served.run_tokens() == []
    assert untouched in {t["id"] for t in served.tokens()}, "only ledger entries are deleted"

    second = served.run("cleanup", "--world", str(served.world_file), "--ledger", str(ledger))
    assert second.returncode == 0, second.stdout + second.stderr
    assert "nothing left open" in second.stdout


def test_sigterm_to_a_pytest_session_of_scenario_items_cleans_up(served: Served) -> None:
    folder = served.folder / "checks"
    folder.mkdir()
    (folder / "slow.yaml").write_text(SLOW_CREATE, encoding="utf-8")
    ledger = served.folder / "ledger.jsonl"
    process = served.start_python(
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "--patgate-scenarios",
        "checks",
        "--patgate-world",
        str(served.world_file),
        "--patgate-allow-writes",
        "--patgate-max-wait",
        "120",
        "--patgate-ledger",
        str(ledger),
        "checks",
    )
    try:
        wait_for(ledger, '"created"')
        process.send_signal(signal.SIGTERM)  # the session this test started, by its handle
        out, err = process.communicate(timeout=60)
    finally:
        stop(process)
    assert process.returncode == 2, out + err  # pytest's "interrupted"
    assert "patgate tokens: 1 created, 1 deleted, 0 leaked" in out
    assert served.run_tokens() == []


def test_a_bad_ledger_path_stops_the_run_before_any_create(served: Served) -> None:
    blocker = served.folder / "a-file"
    blocker.write_text("", encoding="utf-8")
    done = served.run(
        "run",
        "--world",
        str(served.world_file),
        "--allow-writes",
        "--scenario",
        "pat-create",
        "--ledger",
        str(blocker / "ledger.jsonl"),
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "cannot write the ledger" in done.stderr
    assert served.run_tokens() == []

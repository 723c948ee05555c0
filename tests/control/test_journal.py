"""The journal of ``patgate serve --state``: folded into the snapshot in the background, and
nothing on a timer, so an idle server spends no CPU whatever the size of its state."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from benchmarks.state_cost import cpu_seconds

from patgate.commands import serve_state
from patgate.commands.serve_state import open_state
from patgate.errors import Unauthenticated
from patgate.wire.urls import FakeUrls
from tests.control.served import patgate_command

URLS = FakeUrls.same_origin("http://127.0.0.1:9")


@pytest.mark.slow
def test_the_journal_is_folded_into_the_snapshot_while_serving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(serve_state, "COMPACT_BYTES", 1000)
    path = tmp_path / "state.json"
    persistence = open_state(path, URLS, seed=0, log_size=None)
    fake = persistence.fake
    admin = fake.default_world.admin_id
    kept, gone = [], []
    for number in range(40):
        created = fake.request_token_via_ui(admin, f"t{number}")
        persistence.commit()
        if number >= 37:
            kept.append(created.value)
            continue
        fake.deployment.delete_token(fake.deployment.authenticate(created.value), created.id)
        persistence.commit()
        gone.append(created.value)
    journal = path.with_name(path.name + ".journal")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        through = json.loads(path.read_text(encoding="utf-8")).get("journal_through", 0)
        old = path.with_name(path.name + ".journal.old")
        if through > 0 and journal.stat().st_size < 1000 and not old.exists():
            break
        time.sleep(0.05)
    assert through > 0  # a snapshot was written while serving
    assert not path.with_name(path.name + ".journal.old").exists()
    # A kill now (no final snapshot): the snapshot and what is left of the journal suffice.
    persistence._state_lock.release()
    again = open_state(path, URLS, seed=0, log_size=None)
    try:
        for value in kept:
            assert again.fake.deployment.authenticate(value).user_id == admin
        for value in gone:
            with pytest.raises(Unauthenticated):
                again.fake.deployment.authenticate(value)
    finally:
        again.close()


@pytest.mark.slow
def test_an_idle_server_with_a_large_state_spends_no_cpu(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    persistence = open_state(path, URLS, seed=0, log_size=None)
    fake = persistence.fake
    for number in range(600):  # 3,000 PATs
        user = fake.add_user(f"user {number}")
        fake.set_role(user.id, "admin")
        for slot in range(5):
            fake.request_token_via_ui(user.id, f"t{slot}")
    persistence.close()
    process = subprocess.Popen(
        [*patgate_command(), "serve", "--port", "0", "--state", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert "listening on" in process.stdout.readline()
        time.sleep(1.0)  # start-up done
        before = cpu_seconds(process.pid)
        time.sleep(3.0)
        spent = cpu_seconds(process.pid) - before
        # The accept loop's poll is all that runs: a few ms; a periodic export of 3,000
        # tokens took about half a second of every three.
        assert spent < 0.15, spent
    finally:
        process.terminate()  # the process started here, by its handle
        process.communicate(timeout=20)


def test_a_failed_compaction_loses_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "state.json"
    persistence = open_state(path, URLS, seed=0, log_size=None)
    fake = persistence.fake
    world = fake.default_world
    first = fake.issue_token(world.admin_id, "before the failure")
    persistence.commit()
    real = serve_state.write_atomically

    def full_disk(target: Path, data: str | bytes) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(serve_state, "write_atomically", full_disk)
    with pytest.raises(OSError, match="No space"):
        persistence._compact_live()  # the old journal stays, with entries no snapshot has
    monkeypatch.setattr(serve_state, "write_atomically", real)
    second = fake.issue_token(world.member_id, "after the failure")
    persistence.commit()
    persistence._compact_live()
    third = fake.issue_token(world.unpermitted_id, "after the second compaction")
    persistence.commit()
    persistence._state_lock.release()  # a kill: no final snapshot
    again = open_state(path, URLS, seed=0, log_size=None)
    try:
        for value in (first, second, third):
            again.fake.deployment.authenticate(value)
    finally:
        again.close()

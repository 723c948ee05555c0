"""``patgate cleanup``: finishes the open entries of a ledger, and touches nothing else."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from patgate.cli import main
from patgate.harness import Fake
from patgate.runner.custody.ledger import Ledger


def _world(fake: Fake, folder: Path) -> Path:
    path = folder / "w.json"
    path.write_text(json.dumps(fake.world), encoding="utf-8")
    return path


def _admin_ids(fake: Fake) -> set[str]:
    admin = fake.default_world.admin_id
    return {t.id for t in fake.deployment.tokens.values() if t.user_id == admin}


def test_open_entries_are_settled_and_deleted_and_nothing_else(
    patgate_server: Fake, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = patgate_server
    world = fake.default_world
    untouched = _admin_ids(fake)
    path = tmp_path / "ledger.jsonl"
    ledger = Ledger(path, "killed")
    made, answered_too_late, never_made = (ledger.next_name() for _ in range(3))
    for name in (made, answered_too_late, never_made):
        ledger.intend(name, "admin_token")
    ledger.confirm(made, fake.request_token_via_ui(world.admin_id, made).record.id)
    # The deployment made this one, but the run was killed before the answer came.
    fake.request_token_via_ui(world.admin_id, answered_too_late)
    # A token of the same owner that no ledger holds.
    outside = fake.request_token_via_ui(world.admin_id, "someone else's").record.id

    assert main(["cleanup", "--world", str(_world(fake, tmp_path)), "--ledger", str(path)]) == 0
    out = capsys.readouterr().out
    assert "run killed: 2 deleted, 1 never created, 0 left" in out
    assert _admin_ids(fake) == untouched | {outside}
    events = [json.loads(line)["event"] for line in path.read_text().splitlines()]
    assert (events.count("deleted"), events.count("absent")) == (2, 1)

    assert main(["cleanup", "--world", str(_world(fake, tmp_path)), "--ledger", str(path)]) == 0
    assert "nothing left open" in capsys.readouterr().out


def test_a_token_already_gone_is_closed_not_left(
    patgate_server: Fake, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ledger.jsonl"
    ledger = Ledger(path, "r")
    name = ledger.next_name()
    ledger.intend(name, "admin_token")
    ledger.confirm(name, "an-id-that-is-gone")
    world = _world(patgate_server, tmp_path)
    assert main(["cleanup", "--world", str(world), "--ledger", str(path)]) == 0
    assert "run r: 1 deleted, 0 never created, 0 left" in capsys.readouterr().out


def test_only_the_runs_asked_for(
    patgate_server: Fake, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ledger.jsonl"
    for run_id in ("one", "two"):
        ledger = Ledger(path, run_id)
        ledger.intend(ledger.next_name(), "admin_token")
    world = str(_world(patgate_server, tmp_path))
    assert main(["cleanup", "--world", world, "--ledger", str(path), "--run", "two"]) == 0
    out = capsys.readouterr().out
    assert "run two:" in out
    assert "run one:" not in out
    assert main(["cleanup", "--world", world, "--ledger", str(path), "--run", "three"]) == 2
    assert "holds no run 'three'" in capsys.readouterr().err


def test_cleanup_needs_a_target_and_reads_the_default_ledger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("PATGATE_"):
            monkeypatch.delenv(name)
    assert main(["cleanup"]) == 2
    assert "cleanup needs the target the run used" in capsys.readouterr().err
    assert main(["cleanup", "--base-url", "http://127.0.0.1:9"]) == 0
    assert "no ledger at .patgate/ledger.jsonl; nothing to do" in capsys.readouterr().out


def test_a_corrupt_ledger_is_a_usage_error_naming_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ledger.jsonl"
    path.write_text("{}\n", encoding="utf-8")
    code = main(["cleanup", "--base-url", "http://127.0.0.1:9", "--ledger", str(path)])
    assert code == 2
    assert f"{path}:1: not a ledger entry" in capsys.readouterr().err


def test_a_bug_is_reported_with_the_secrets_redacted(
    patgate_server: Fake,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from patgate.runner.custody.custodian import Custodian

    secret = patgate_server.world["admin_token"]

    def explode(self: Custodian, *, settle: float = 0.0) -> None:
        raise RuntimeError(f"the deployment sent {secret}")

    monkeypatch.setattr(Custodian, "finish", explode)
    path = tmp_path / "ledger.jsonl"
    ledger = Ledger(path, "r")
    ledger.intend(ledger.next_name(), "admin_token")
    world = str(_world(patgate_server, tmp_path))
    assert main(["cleanup", "--world", world, "--ledger", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("patgate cleanup: internal error\n")
    assert "the deployment sent [REDACTED]" in err
    assert secret not in err

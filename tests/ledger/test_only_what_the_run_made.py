"""Cleanup deletes only what the run made: the ledger records the target and each name, and
a delete is sent only when the token listed under the id carries the recorded name on the
same target."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from patgate.cli import main
from patgate.harness import Fake
from patgate.runner.connection.config import TargetConfig
from patgate.runner.connection.exchange import origin_of
from patgate.runner.custody.ledger import Ledger, LedgerState, TargetIdentity


def _world(fake: Fake, folder: Path, **changes: str) -> Path:
    path = folder / "w.json"
    path.write_text(json.dumps({**fake.world, **changes}), encoding="utf-8")
    return path


def _identity(fake: Fake) -> TargetIdentity:
    return TargetIdentity.of(TargetConfig(fake.world))


def _admin_names(fake: Fake) -> set[str]:
    admin = fake.default_world.admin_id
    return {t.name for t in fake.deployment.tokens.values() if t.user_id == admin}


def _cleanup(fake: Fake, folder: Path, ledger: Path, **changes: str) -> int:
    world = _world(fake, folder, **changes)
    return main(["cleanup", "--world", str(world), "--ledger", str(ledger)])


def test_the_ledger_records_the_target_and_the_name(tmp_path: Path) -> None:
    fake = Fake()
    path = tmp_path / "ledger.jsonl"
    ledger = Ledger(path, "r", target=_identity(fake))
    ledger.intend(ledger.next_name(), "admin_token")
    record = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert record["name"] == "patgate-r-1"
    urls = [fake.world[key] for key in ("auth_url", "base_url", "graphql_url")]
    assert record["target"] == {
        "origins": sorted({origin_of(url) for url in urls}),
        "organization": fake.world["organization_id"],
    }
    (replayed,) = Ledger.load(path)
    assert replayed.entries()[0].target == _identity(fake)


def test_an_id_reused_by_another_token_is_reported_not_deleted(
    patgate_server: Fake, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = patgate_server
    path = tmp_path / "ledger.jsonl"
    ledger = Ledger(path, "old", target=_identity(fake))
    name = ledger.next_name()
    ledger.intend(name, "admin_token")
    # The target restarted and gave the id to a token of the user's own.
    users_own = fake.request_token_via_ui(fake.default_world.admin_id, "my laptop").record
    ledger.confirm(name, users_own.id)

    assert _cleanup(fake, tmp_path, path) == 1
    captured = capsys.readouterr()
    assert "my laptop" not in captured.out + captured.err, "another token's name is not shown"
    assert "mismatch" in captured.out + captured.err
    assert "my laptop" in _admin_names(fake), "the user's token was not deleted"
    assert Ledger.load(path)[0].entries()[0].state is LedgerState.MISMATCH


def test_a_ledger_of_another_target_is_not_cleaned_there(
    patgate_server: Fake, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = patgate_server
    path = tmp_path / "ledger.jsonl"
    elsewhere = TargetIdentity(("https://other.example:443",), "org-elsewhere")
    ledger = Ledger(path, "old", target=elsewhere)
    name = ledger.next_name()
    ledger.intend(name, "admin_token")
    made = fake.request_token_via_ui(fake.default_world.admin_id, name).record
    ledger.confirm(name, made.id)

    assert _cleanup(fake, tmp_path, path) == 1
    captured = capsys.readouterr()
    assert "another target" in captured.out + captured.err
    assert name in _admin_names(fake), "nothing was deleted on the wrong target"


def test_the_token_the_run_made_is_deleted(patgate_server: Fake, tmp_path: Path) -> None:
    fake = patgate_server
    path = tmp_path / "ledger.jsonl"
    ledger = Ledger(path, "old", target=_identity(fake))
    name = ledger.next_name()
    ledger.intend(name, "admin_token")
    ledger.confirm(name, fake.request_token_via_ui(fake.default_world.admin_id, name).record.id)
    assert _cleanup(fake, tmp_path, path) == 0
    assert name not in _admin_names(fake)


def test_a_create_answered_with_an_error_after_the_token_was_made_is_found_and_deleted(
    tmp_path: Path,
) -> None:
    from tests.hostile.cases import CASES
    from tests.hostile.server import Server
    from tests.hostile.test_hostile_server import run_against

    (teapot,) = [case for case in CASES if case.name == "created-then-418"]
    with Server(teapot) as server:
        code, output = run_against(server, tmp_path, "--scenario", "pat-create")
        left = server.run_tokens()
    assert server.spoiled == 1
    assert code == 1, output
    assert left == []
    events = [json.loads(line) for line in (tmp_path / "ledger.jsonl").read_text().splitlines()]
    assert "refused" not in {event["event"] for event in events}, "the 418 was not believed"

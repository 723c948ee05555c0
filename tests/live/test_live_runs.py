"""``patgate run`` against ``patgate serve`` in another process: read-only by default,
production refuses bulk writes, the ledger records every create, a foreign delete is
refused, and the cap probe never touches the user's own tokens."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.runner.support import FOREIGN_DELETE

from .support import Served, ledger_events

pytestmark = pytest.mark.slow


def test_a_live_run_is_read_only_by_default(served: Served) -> None:
    before = served.tokens()
    done = served.run("run", "--world", str(served.world_file))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "not checked       pat-cap" in done.stdout
    assert "writes to the deployment; run with --allow-writes" in done.stdout
    assert "tokens: 0 created, 0 deleted, 0 leaked" in done.stdout
    assert served.tokens() == before
    assert not (served.folder / ".patgate").exists(), "no ledger for a run that wrote nothing"


def test_every_create_is_in_the_ledger_and_every_token_is_deleted(served: Served) -> None:
    ledger = served.folder / "ledger.jsonl"
    done = served.run(
        "run", "--world", str(served.world_file), "--allow-writes", "--ledger", str(ledger)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    run_id = done.stdout.split()[2].rstrip(":")
    entries = ledger_events(ledger)
    created = [e for e in entries if e["event"] == "created"]
    deleted = [e for e in entries if e["event"] == "deleted"]
    assert created
    assert {e["id"] for e in created} == {e["id"] for e in deleted}
    for entry in entries:
        assert re.fullmatch(rf"patgate-{run_id}-\d+", entry["name"])
    for entry in created:
        first = next(i for i, e in enumerate(entries) if e["name"] == entry["name"])
        assert entries[first]["event"] == "pending", "written down before the create"
    assert f"tokens: {len(created)} created, {len(created)} deleted, 0 leaked" in done.stdout
    assert served.run_tokens() == []
    assert served.run_tokens("member_token") == []


def test_the_default_ledger_is_in_the_current_folder(served: Served) -> None:
    done = served.run(
        "run", "--world", str(served.world_file), "--allow-writes", "--scenario", "pat-create"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    events = [e["event"] for e in ledger_events(served.folder / ".patgate" / "ledger.jsonl")]
    assert events.count("created") == events.count("deleted") == 2


def test_a_production_target_refuses_the_cap_probe_unless_it_is_named(served: Served) -> None:
    world = served.write_world(served.folder / "prod.json", production=True)
    common = ("run", "--world", str(world), "--allow-writes", "--ledger", "l.jsonl")
    refused = served.run(*common, "--rule", "PAT-CAP", "--rule", "PAT-CREATE-FIELDS")
    assert refused.returncode == 0, refused.stdout + refused.stderr
    assert "passed            pat-create" in refused.stdout
    assert (
        "not checked       pat-cap  A user holds at most 5 PATs, and the cap counts live tokens"
    ) in refused.stdout
    assert "production target refuses unless the scenario is named: --scenario pat-cap" in (
        refused.stdout
    )
    named = served.run(*common, "--scenario", "pat-cap")
    assert named.returncode == 0, named.stdout + named.stderr
    assert "passed            pat-cap" in named.stdout
    assert served.run_tokens() == []


def test_a_delete_of_a_token_the_run_did_not_create_is_refused(served: Served) -> None:
    scenario = served.folder / "foreign.yaml"
    scenario.write_text(FOREIGN_DELETE, encoding="utf-8")
    before = served.tokens()
    done = served.run(
        "run",
        "--world",
        str(served.world_file),
        "--allow-writes",
        "--ledger",
        "l.jsonl",
        "--scenarios",
        str(scenario),
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "this run's ledger does not hold it" in done.stdout
    assert "tokens: 0 created, 0 deleted, 0 leaked, 1 deletes refused" in done.stdout
    assert served.tokens() == before, "the admin's token is still there"


def _hold(served: Served, count: int) -> list[dict[str, str]]:
    for index in range(count - len(served.tokens())):
        served.create_token(f"the admin's own {index}")
    return served.tokens()


def test_the_cap_probe_is_skipped_for_a_user_who_holds_5_tokens(served: Served) -> None:
    before = _hold(served, 5)
    done = served.run(
        "run", "--world", str(served.world_file), "--allow-writes", "--scenario", "pat-cap"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "the admin already holds 5 tokens, and patgate deletes only what it created" in done.stdout
    )
    assert served.tokens() == before


def test_the_cap_probe_creates_only_up_to_the_cap_and_keeps_the_users_tokens(
    served: Served, tmp_path: Path
) -> None:
    before = _hold(served, 3)
    ledger = tmp_path / "l.jsonl"
    done = served.run(
        "run",
        "--world",
        str(served.world_file),
        "--allow-writes",
        "--scenario",
        "pat-cap",
        "--ledger",
        str(ledger),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tokens: 3 created, 3 deleted, 0 leaked" in done.stdout  # 2 to the cap, 1 after
    assert served.tokens() == before

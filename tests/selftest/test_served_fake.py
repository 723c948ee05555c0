"""The unmodified fake passes every scenario through ``patgate serve`` in another process.

``patgate serve --world w.json`` then ``patgate run --world w.json --allow-writes``: the
run sees a live target on loopback whose target file names its control API, so the control
scenarios (approval, removal, the clock) run over HTTP too: none is skipped, nothing fails.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.control.served import patgate_command, served

pytestmark = pytest.mark.slow


@pytest.fixture
def world_file(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "w.json"
    with served(path):
        yield path


def test_a_served_fake_passes_every_scenario(world_file: Path, tmp_path: Path) -> None:
    report = tmp_path / "run.json"
    done = subprocess.run(
        [
            *patgate_command(),
            "run",
            "--world",
            str(world_file),
            "--allow-writes",
            "--ledger",
            str(tmp_path / "ledger.jsonl"),
            "--report",
            f"json:{report}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    text = report.read_text(encoding="utf-8")
    document = json.loads(text)
    assert document["counts"]["failed"] == document["counts"]["warning"] == 0
    assert document["counts"]["passed"] >= 20
    assert document["counts"]["tokens_created"] == document["counts"]["tokens_deleted"] > 0
    assert document["counts"]["tokens_leaked"] == 0
    skipped = {s["id"]: s["reason"] for s in document["scenarios"] if s["outcome"] == "not_checked"}
    assert skipped == {}
    outcomes = {rule["id"]: rule["outcome"] for rule in document["rules"]}
    for rule in ("PAT-APPROVAL", "PAT-REMOVAL-IMMEDIATE", "PAT-NO-EXPIRY", "CLIENT-TOKEN-EXPIRY"):
        assert outcomes[rule] == "passed", rule
    secrets = json.loads(world_file.read_text(encoding="utf-8"))
    for key in ("client_secret", "admin_token", "member_token"):
        assert secrets[key] not in done.stdout + text


def _comparable(report: Path) -> dict:
    """A JSON report without what differs between two runs of the same results."""
    document: dict = json.loads(report.read_text(encoding="utf-8"))
    for key in ("run_id", "duration", "flags", "started"):
        document.pop(key, None)
    for scenario in document["scenarios"]:
        scenario.pop("duration", None)
    return document


def test_a_served_fake_reports_the_same_at_concurrency_8_as_one_at_a_time(
    world_file: Path, tmp_path: Path
) -> None:
    # Writers of the admin overlap within its slots, control scenarios overlap what they do
    # not change (over the control API): the verdicts must not move.
    reports = {}
    for concurrency in ("1", "8", "1", "8"):
        report = tmp_path / f"run-{concurrency}.json"
        done = subprocess.run(
            [
                *patgate_command(),
                "run",
                "--world",
                str(world_file),
                "--allow-writes",
                "--concurrency",
                concurrency,
                "--ledger",
                str(tmp_path / "ledger.jsonl"),
                "--report",
                f"json:{report}",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        document = _comparable(report)
        if concurrency in reports:
            assert document == reports[concurrency], "the same at the same concurrency"
        reports[concurrency] = document
    assert reports["8"] == reports["1"]
    assert reports["8"]["counts"]["tokens_leaked"] == 0

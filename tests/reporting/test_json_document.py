from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from patgate.errors import UsageError
from patgate.reporting import make_reporter
from patgate.runner.results.events import Event, Failure, Outcome, RunFinished
from tests.reporting.sample import CAP_ACTUAL, CAP_EXPECTED, feed_events, run_events, scenario


def write_report(path: Path, events: list[Event]) -> Any:
    feed_events(make_reporter(f"json:{path}", stream=io.StringIO()), events)
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_document_matches_the_events(tmp_path: Path, sample_run: list[Event]) -> None:
    document = write_report(tmp_path / "report.json", sample_run)
    assert document["run_id"] == "run-7f3a"
    assert document["target"] == "http://127.0.0.1:8765"
    assert document["exit_code"] == 1
    assert document["duration"] == 0.84
    assert document["counts"] == {
        "passed": 2,
        "failed": 1,
        "waived": 0,
        "warning": 1,
        "not_checked": 1,
    }
    # Yes/no fields are booleans; the signal, when there was one, is named apart.
    assert (document["interrupted"], document["signal"]) == (False, None)
    assert (document["unreachable"], document["lost"]) == (False, False)
    scenarios = {item["id"]: item for item in document["scenarios"]}
    assert scenarios["pat-cap-sixth"]["failures"] == [
        {
            "rule": "PAT-CAP",
            "level": "gate",
            "step": "create a 6th token",
            "message": "the 6th create was accepted",
            "expected": CAP_EXPECTED,
            "actual": CAP_ACTUAL,
        }
    ]
    assert scenarios["pat-approval"]["outcome"] == "not_checked"
    assert scenarios["pat-approval"]["reason"] == "needs member_token"
    assert scenarios["pat-cap-sixth"]["source"] == "scenarios/pat-cap.yaml:12"
    rules = {rule["id"]: rule for rule in document["rules"]}
    assert rules["PAT-CAP"] == {
        "id": "PAT-CAP",
        "title": "The rule PAT-CAP",
        "level": "gate",
        "outcome": "failed",
        "scenarios": ["pat-cap-sixth"],
        "reason": "",
    }


def test_keys_come_in_a_fixed_order_and_output_is_deterministic(
    tmp_path: Path, sample_run: list[Event]
) -> None:
    first = write_report(tmp_path / "a.json", sample_run)
    write_report(tmp_path / "b.json", sample_run)
    assert list(first) == [
        "format_version",
        "run_id",
        "target",
        "exit_code",
        "interrupted",
        "signal",
        "unreachable",
        "lost",
        "unreachable_reason",
        "duration",
        "counts",
        "gate_rules",
        "waivers",
        "excluded",
        "rules",
        "scenarios",
    ]
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_counts_are_tallied_when_the_runner_sent_none(tmp_path: Path) -> None:
    events = run_events(scenario("a", "TOKEN-OK", Outcome.PASSED))
    finished = events[-1]
    assert isinstance(finished, RunFinished)
    events[-1] = RunFinished(
        finished.run_id, finished.rules, finished.scenarios, finished.exit_code, 1.0
    )
    document = write_report(tmp_path / "r.json", events)
    assert document["counts"] == {
        "passed": 1,
        "failed": 0,
        "waived": 0,
        "warning": 0,
        "not_checked": 0,
    }


def test_an_existing_report_is_replaced_whole(tmp_path: Path, sample_run: list[Event]) -> None:
    path = tmp_path / "report.json"
    path.write_text("{" + " " * 100_000 + "old, longer and not JSON")
    write_report(path, sample_run)
    assert json.loads(path.read_text())["run_id"] == "run-7f3a"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_a_failed_write_keeps_the_old_report_and_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sample_run: list[Event]
) -> None:
    path = tmp_path / "report.json"
    path.write_text('{"previous": true}')

    def refuse(source: str, destination: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    reporter = make_reporter(f"json:{path}", stream=io.StringIO())
    with pytest.raises(UsageError, match=r"cannot write report .*report\.json: No space left"):
        feed_events(reporter, sample_run)
    assert path.read_text() == '{"previous": true}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_nothing_is_written_when_the_run_never_finishes(
    tmp_path: Path, sample_run: list[Event]
) -> None:
    path = tmp_path / "report.json"
    reporter = make_reporter(f"json:{path}", stream=io.StringIO())
    feed_events(reporter, sample_run[:-1])
    assert not path.exists()


def test_bytes_that_were_not_utf8_survive_as_escapes(tmp_path: Path) -> None:
    odd = "caf\udce9 \x00 <>"
    failure = Failure("PAT-CAP", "gate", "list", "odd bytes", actual=odd)
    document = write_report(
        tmp_path / "r.json",
        run_events(scenario("s", "PAT-CAP", Outcome.FAILED, failures=(failure,))),
    )
    assert document["scenarios"][0]["failures"][0]["actual"] == odd

"""The last-resort net: a bug of patgate's own in the middle of a run still ends with every
report written and the cleanup done; the run says "internal error" and exits 5."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from patgate.cli import main
from patgate.runner.results.outcomes import EXIT_INTERNAL


def _run(folder: Path, *scenarios: str) -> int:
    chosen = [flag for scenario in scenarios for flag in ("--scenario", scenario)]
    return main(
        [
            "run",
            *chosen,
            "--concurrency",
            "1",
            "--report",
            f"json:{folder / 'run.json'}",
            "--report",
            f"junit:{folder / 'run.xml'}",
        ]
    )


def _left_by(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Records, at the end of each run, the names of the run's tokens still on the fake."""
    from patgate.runner.engine import ScenarioRunner

    left: list[list[str]] = []
    close = ScenarioRunner.close

    def closing(self: ScenarioRunner) -> None:
        close(self)
        fake = self.context.target.fake  # type: ignore[attr-defined]
        prefix = self.context.ledger.name_prefix
        left.append([t.name for t in fake.deployment.tokens.values() if t.name.startswith(prefix)])

    monkeypatch.setattr(ScenarioRunner, "close", closing)
    return left


def test_a_bug_in_a_step_fails_the_step_and_the_run_exits_5(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from patgate.runner.execution.scenario_execution import ScenarioExecution

    left = _left_by(monkeypatch)
    learn = ScenarioExecution._learn

    def broken(self: ScenarioExecution, result: Any, label: str) -> None:
        learn(self, result, label)
        if "create" in label:
            raise TypeError("unhashable type: 'list'")

    monkeypatch.setattr(ScenarioExecution, "_learn", broken)
    assert _run(tmp_path, "pat-create", "token-ok") == EXIT_INTERNAL
    captured = capsys.readouterr()
    assert "patgate run: internal error\nTraceback" in captured.err
    assert "exit 5: internal error" in captured.out
    report = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    assert report["exit_code"] == EXIT_INTERNAL
    messages = [f["message"] for s in report["scenarios"] for f in s["failures"]]
    assert any(m.startswith("internal error") and "TypeError" in m for m in messages)
    outcomes = {s["id"]: s["outcome"] for s in report["scenarios"]}
    assert outcomes["token-ok"] == "passed", "the other scenarios still ran"
    ET.parse(tmp_path / "run.xml")  # noqa: S314 - our own report
    assert left == [[]], "the token the broken step created was deleted"


def test_a_bug_outside_any_scenario_still_reports_and_cleans_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from patgate.runner.custody.custodian import Custodian

    left = _left_by(monkeypatch)
    finish = Custodian.finish

    def broken(self: Custodian, *, settle: float = 0.0) -> None:
        finish(self, settle=settle)
        raise KeyError("a bug at the end")

    monkeypatch.setattr(Custodian, "finish", broken)
    assert _run(tmp_path, "pat-create") == EXIT_INTERNAL
    assert "KeyError" in capsys.readouterr().err
    report = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    assert report["exit_code"] == EXIT_INTERNAL
    assert left == [[]]

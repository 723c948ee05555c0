"""The gate checks documented rules only: the fake passes it under a profile that differs
from the default on every field, embedded (``patgate run --profile``) and reached as a live
deployment with writes allowed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from benchmarks.profile_start import PROFILE

from patgate.basics.levels import Level
from patgate.cli import main
from patgate.harness import Fake
from patgate.runner.results.events import ScenarioFinished
from tests.runner.support import builtin, live, run_events

# A profile other than the default on every field: the one the start-up benchmark loads.
DIFFERENT = PROFILE


def _profile(tmp_path: Path) -> Path:
    path = tmp_path / "profile.yaml"
    path.write_text(DIFFERENT, encoding="utf-8")
    return path


def test_the_different_profile_differs_on_every_field(tmp_path: Path) -> None:
    from patgate.fake.profile import default_profile, load_profile

    different = load_profile(_profile(tmp_path)).as_document()
    default = default_profile().as_document()
    same = [key for key in default if key != "profile_version" and different[key] == default[key]]
    assert same == []


def test_patgate_run_with_a_profile_passes_every_gate_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    argv = ["run", "--profile", str(_profile(tmp_path)), "--report", f"json:{report}"]
    assert main(argv) == 0
    assert "0 failed" in capsys.readouterr().out
    document = json.loads(report.read_text(encoding="utf-8"))
    gate = [rule for rule in document["rules"] if rule["level"] == "gate"]
    assert gate
    assert {rule["outcome"] for rule in gate} == {"passed"}
    # The profile was in use: the advisory on the conventional lifetime noticed 600 s.
    lifetime = next(rule for rule in document["rules"] if rule["id"] == "TOKEN-LIFETIME")
    assert lifetime["outcome"] == "warning"


def test_the_fake_with_a_profile_reached_as_a_live_deployment_fails_no_gate_rule() -> None:
    fake = Fake(profile=yaml.safe_load(DIFFERENT))
    events, end = run_events(builtin(), live(fake), allow_writes=True)
    gate_failures = [
        (event.scenario_id, failure.rule, failure.message)
        for event in events
        if isinstance(event, ScenarioFinished)
        for failure in event.failures
        if failure.level is Level.GATE
    ]
    assert gate_failures == []
    assert end.counts["passed"] > 20
    names = {t.name for t in fake.deployment.tokens_of(fake.default_world.admin_id)}
    assert names == {"patgate world token"}  # the run deleted every token it made


@pytest.mark.parametrize(
    ("extra", "text", "expected"),
    [
        ([], "profile_version: 1\ntoken_cap: 6\n", "profile.yaml:2: token_cap: 6 contradicts"),
        (
            ["--base-url", "http://127.0.0.1:9"],
            "profile_version: 1\n",
            "--profile shapes the embedded fake",
        ),
    ],
)
def test_patgate_run_refuses_a_bad_profile_or_one_beside_a_live_target(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    text: str,
    expected: str,
) -> None:
    path = tmp_path / "profile.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["run", "--profile", str(path), *extra]) == 2
    assert expected in capsys.readouterr().err

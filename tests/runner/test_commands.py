"""``patgate run`` and ``patgate rules`` from the command line (in process)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from patgate.cli import main
from patgate.errors import UsageError
from patgate.reporting import durations
from patgate.runner.session import ledger_path

from .support import builtin


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_run_with_no_target_passes_on_the_embedded_fake(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run"]) == 0
    out = capsys.readouterr().out
    assert "against embedded fake" in out
    assert "PAT-CAP" in out


def test_run_writes_the_reports_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "out" / "run.json"
    assert main(["run", "--rule", "PAT-CAP", "--report", f"json:{report}"]) == 0
    document = json.loads(report.read_text(encoding="utf-8"))
    assert "PAT-CAP" in json.dumps(document)
    assert "pat-cap" in capsys.readouterr().out


def test_a_bad_world_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = tmp_path / "w.json"
    world.write_text("{not json", encoding="utf-8")
    assert main(["run", "--world", str(world)]) == 2
    assert f"the world file {world}:1: not valid JSON" in capsys.readouterr().err


def test_an_unknown_rule_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--rule", "PAT-NOPE"]) == 2
    assert "unknown rule 'PAT-NOPE'" in capsys.readouterr().err


def test_a_bad_report_spec_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--report", "pdf:x.pdf"]) == 2
    assert "unknown report kind" in capsys.readouterr().err


def test_a_bad_scenario_folder_exits_2_naming_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "broken.yaml").write_text("id: x\nid: y\n", encoding="utf-8")
    assert main(["run", "--scenarios", str(tmp_path)]) == 2
    assert f"{tmp_path / 'broken.yaml'}:2: the key 'id' appears twice" in capsys.readouterr().err


def test_an_unreachable_target_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    assert main(["run", "--base-url", url, "--auth-url", url]) == 3
    assert f"cannot reach {url}" in capsys.readouterr().err


def test_patgate_variables_name_a_live_target(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    monkeypatch.setenv("PATGATE_BASE_URL", url)
    assert main(["run", "--scenario", "auth-required"]) == 3
    assert "cannot reach" in capsys.readouterr().err


def test_rules_prints_each_rule_with_its_scenarios(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--check"]) == 0
    out = capsys.readouterr().out
    assert "PAT-CAP" in out
    assert "covered by: pat-cap" in out
    assert 'source: spec 8: "PATs per user: Up to 5"' in out
    assert "source: convention (RFC 6750 3.1): " in out
    assert "every rule is covered" in out


def test_rules_names_what_no_scenario_covers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "one.yaml").write_text(
        "id: one\ntitle: t\nrules: [TOKEN-OK]\nsteps:\n  - hubs: true\n    expect: [{ok: true}]\n",
        encoding="utf-8",
    )
    assert main(["rules", "--scenarios", str(tmp_path)]) == 0
    assert main(["rules", "--scenarios", str(tmp_path), "--check"]) == 1
    out = capsys.readouterr().out
    assert "NOT COVERED by any scenario" in out
    assert "not covered: TOKEN-BAD-CREDENTIALS" in out


def test_run_reports_what_it_created_and_deleted(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--scenario", "pat-create"]) == 0
    assert "tokens: 2 created, 2 deleted, 0 leaked" in capsys.readouterr().out


def test_the_ledger_goes_where_asked_else_a_default_for_live_targets(tmp_path: Path) -> None:
    given = tmp_path / "mine.jsonl"
    assert ledger_path(given, {"PATGATE_LEDGER": "env.jsonl"}, live=True) == given
    assert ledger_path(None, {"PATGATE_LEDGER": "env.jsonl"}, live=False) == Path("env.jsonl")
    assert ledger_path(None, {}, live=True) == Path(".patgate/ledger.jsonl")
    assert ledger_path(None, {}, live=False) is None


@pytest.mark.parametrize(("error", "code"), [(RuntimeError, 5), (UsageError, 2)])
def test_an_error_is_printed_with_the_secrets_redacted(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    error: type[Exception],
    code: int,
) -> None:
    from patgate.runner.execution.scenario_execution import ScenarioExecution

    seen: list[str] = []

    def explode(self: ScenarioExecution) -> None:
        secret = self.context.config.text("client_secret") or ""
        seen.append(secret)
        raise error(f"the deployment sent {secret}")

    monkeypatch.setattr(ScenarioExecution, "run", explode)
    assert main(["run", "--scenario", "token-ok"]) == code
    err = capsys.readouterr().err
    assert "the deployment sent [REDACTED]" in err
    assert seen[0] not in err


def test_durations_prints_the_slowest_scenarios_and_steps(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        main(["run", "--scenario", "pat-create", "--scenario", "token-ok", "--durations", "2"]) == 0
    )
    out = capsys.readouterr().out
    lines = out[out.index("slowest 2 scenarios:") :].splitlines()
    assert lines[0] == "slowest 2 scenarios:"
    assert {line.split("ms  ")[1] for line in lines[1:3]} == {"pat-create", "token-ok"}
    assert lines[3] == "slowest 2 steps:"
    steps = lines[4:6]
    assert all(" ms  " in line and ".yaml:" in line for line in steps), steps
    times = [float(line.split("ms")[0]) for line in lines[1:3]]
    assert times == sorted(times, reverse=True), "slowest first"


def test_durations_0_lists_every_step_and_cleanup_steps_say_so(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Steps under half a millisecond are left out (the next test); against the embedded
    # fake a delete can take less, so every step is shown here.
    monkeypatch.setattr(durations, "_SHOWN_BELOW", 0.0)
    assert main(["run", "--scenario", "pat-create", "--durations", "0"]) == 0
    out = capsys.readouterr().out
    assert "every scenario, slowest first:" in out
    steps = out[out.index("every step, slowest first:") :].splitlines()[1:]
    scenario = next(s for s in builtin() if s.id == "pat-create")
    assert len(steps) == len(scenario.steps) + len(scenario.cleanup)
    assert sum("(cleanup)" in line for line in steps) == len(scenario.cleanup)


def test_durations_leave_out_what_took_less_than_the_threshold(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(durations, "_SHOWN_BELOW", 60.0)  # nothing here takes a minute
    assert main(["run", "--scenario", "pat-create", "--durations", "0"]) == 0
    assert "slowest first" not in capsys.readouterr().out


def test_durations_must_be_a_whole_number(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["run", "--durations", "-1"])
    assert stopped.value.code == 2
    assert "--durations" in capsys.readouterr().err


def test_without_durations_no_timings_are_printed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--scenario", "token-ok"]) == 0
    assert "slowest" not in capsys.readouterr().out

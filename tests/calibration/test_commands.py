"""``patgate calibrate`` and ``patgate compare``: usage errors exit 2 with a clear message,
an unreachable target exits 3 with the reports still written."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from patgate.cli import main


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _world(tmp_path: Path, **extra: object) -> Path:
    origin = f"http://127.0.0.1:{_closed_port()}"
    world = {
        "auth_url": origin,
        "base_url": origin,
        "graphql_url": origin + "/graphql",
        "client_id": "an-id",
        "client_secret": "a-secret-made-here",
        "admin_token": "amp_pat_AAAAAAAAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB",
        **extra,
    }
    path = tmp_path / "world.json"
    path.write_text(json.dumps(world), "utf-8")
    return path


@pytest.mark.parametrize("command", ["calibrate", "compare"])
def test_without_a_deployment_is_a_usage_error(
    command: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for key in ("PATGATE_BASE_URL", "PATGATE_ADMIN_TOKEN", "PATGATE_AUTH_URL"):
        monkeypatch.delenv(key, raising=False)
    extra = ["--out", str(tmp_path / "p.yaml")] if command == "calibrate" else []
    assert main([command, *extra]) == 2
    assert f"{command} needs a deployment: --world PATH" in capsys.readouterr().err


def test_calibrate_needs_out(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["calibrate", "--world", "w.json"])
    assert stop.value.code == 2
    assert "--out" in capsys.readouterr().err


def test_a_bad_profile_names_its_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "profile.yaml"
    profile.write_text("profile_version: 1\nlisting_ordr: created_descending\n", "utf-8")
    assert main(["compare", "--world", str(_world(tmp_path)), "--profile", str(profile)]) == 2
    said = capsys.readouterr().err
    assert f"{profile}:2" in said
    assert "listing_order" in said


def test_an_unknown_report_kind_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", "--world", str(_world(tmp_path)), "--report", "pdf:x.pdf"]) == 2
    assert "use json:PATH, junit:PATH or html:PATH" in capsys.readouterr().err


def test_writes_on_a_production_target_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    world = _world(tmp_path, production=True)
    out = tmp_path / "p.yaml"
    assert main(["calibrate", "--world", str(world), "--allow-writes", "--out", str(out)]) == 2
    assert "marked production" in capsys.readouterr().err
    assert not out.exists()


def test_an_unreachable_target_exits_3_with_the_reports_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    world = _world(tmp_path)
    reports = {kind: tmp_path / f"r.{kind}" for kind in ("json", "junit", "html")}
    flags = [f"--report={kind}:{path}" for kind, path in reports.items()]
    code = main(["compare", "--world", str(world), "--ledger", str(tmp_path / "l"), *flags])
    assert code == 3
    document = json.loads(reports["json"].read_text("utf-8"))
    assert document["unreachable"]
    assert document["drift"] == []
    assert "<error" in reports["junit"].read_text("utf-8")
    assert "target unreachable" in reports["html"].read_text("utf-8")
    said = capsys.readouterr()
    assert "unreachable" in said.err
    assert "a-secret-made-here" not in said.err + said.out


def test_calibrate_against_an_unreachable_target_exits_3_and_writes_nothing(
    tmp_path: Path,
) -> None:
    out = tmp_path / "p.yaml"
    flags = ["--world", str(_world(tmp_path)), "--ledger", str(tmp_path / "l")]
    assert main(["calibrate", *flags, "--out", str(out)]) == 3
    assert not out.exists()

"""The example workflows and the composite action run end to end on this machine.

Each job runs in a fresh workspace through :mod:`tests.workflows.emulator`: patgate's
checkout is a copy of this repository, and the job's own ``pip install`` installs it into a
new virtual environment whose ``python`` leads the steps' PATH. pip stays off the network
(no index, no build isolation): patgate's dependencies and its build backend come from this
environment through a path file, patgate itself only from the job's install. The targets
are served fakes on loopback: the one the gate workflow serves itself, one the test serves
with a fault that breaks gate rules, and one the compare workflow is pointed at.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import httpx
import pytest
import yaml

from tests.control.served import patgate_command, served
from tests.workflows.emulator import JobRun, run_job

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
REPORTS = {
    "junit-report": "patgate-reports/patgate.xml",
    "json-report": "patgate-reports/patgate.json",
    "html-report": "patgate-reports/patgate.html",
}
"""The action's default report paths, as its outputs name them."""

ACTION_JOB = """
name: the action with its defaults
on: push
jobs:
  gate:
    runs-on: ubuntu-latest
    steps:
      - name: Check out patgate
        uses: actions/checkout@v4
        with:
          repository: your-org/patgate
          path: patgate
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - name: Run the conformance gate
        id: gate
        uses: ./patgate
        with:
          worlds: |
            target.json
          args: --allow-writes
      - name: Keep the reports
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: patgate-reports
          path: patgate-reports/
"""
"""A user's job that installs patgate through the action (from the action's own folder)."""


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    """A new virtual environment that sees this environment's packages but not patgate."""
    folder = tmp_path / "runner-python"
    subprocess.run(
        [sys.executable, "-m", "venv", str(folder)], check=True, capture_output=True, timeout=120
    )
    site = subprocess.run(
        [str(folder / "bin" / "python"), "-c", "import site; print(site.getsitepackages()[0])"],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.strip()
    # A path file adds folders but runs none of their path files: the checkout's editable
    # install of patgate stays out of sight.
    here = sorted({sysconfig.get_paths()[key] for key in ("purelib", "platlib")})
    (Path(site) / "patgate_test_dependencies.pth").write_text("\n".join(here) + "\n")
    return folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "workspace"
    folder.mkdir()
    return folder


def _job(
    workflow: Path, job: str, venv: Path, workspace: Path, secrets: dict[str, str] | None = None
) -> JobRun:
    temp = workspace.parent / "runner-temp"
    temp.mkdir()
    environ = {
        "PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(temp),
        "LANG": "C.UTF-8",
        "PYTHONNOUSERSITE": "1",
        "PIP_NO_INDEX": "1",
        "PIP_NO_BUILD_ISOLATION": "0",  # pip reads it inverted: 0 turns build isolation off
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    return run_job(
        workflow,
        job,
        repository=ROOT,
        workspace=workspace,
        temp=temp,
        environ=environ,
        secrets=secrets,
    )


def _gate_job(workspace: Path, inputs: dict[str, object], path: str) -> JobRun:
    """The action's gate, with ``inputs``, where ``path`` leads to the patgate it runs."""
    steps = [
        {
            "name": "Check out patgate",
            "uses": "actions/checkout@v4",
            "with": {"repository": "your-org/patgate", "path": "patgate"},
        },
        {"name": "Run the conformance gate", "id": "gate", "uses": "./patgate", "with": inputs},
    ]
    workflow = workspace.parent / "gate-job.yml"
    workflow.write_text(yaml.safe_dump({"jobs": {"gate": {"steps": steps}}}), encoding="utf-8")
    temp = workspace.parent / "runner-temp"
    temp.mkdir()
    environ = {"PATH": path, "HOME": str(temp), "LANG": "C.UTF-8"}
    return run_job(
        workflow, "gate", repository=ROOT, workspace=workspace, temp=temp, environ=environ
    )


WAIVERS = """
waivers:
  - rule: PAT-CAP
    reason: the deployment allows six tokens until the fix ships
    expires: 2099-01-01
"""


def test_the_action_passes_each_input_to_patgate_run(workspace: Path) -> None:
    shutil.copy(ROOT / "src" / "patgate" / "fake" / "default_profile.json", workspace)
    (workspace / "waivers.yaml").write_text(WAIVERS, encoding="utf-8")
    inputs = {
        "install": False,  # the patgate of this environment: the embedded fake needs no pip
        "profile": "default_profile.json",
        "waivers": "waivers.yaml",
        "require": "checkable\nTOKEN-OK\n",
        "junit-report": "out/gate.xml",
        "json-report": "out/gate.json",
        "html-report": "",
        "args": "--exclude-scenario pat-cap --concurrency 2",
    }
    job = _gate_job(workspace, inputs, f"{Path(sys.executable).parent}:/usr/bin:/bin")
    gate = job.step("Run the conformance gate")
    assert gate.code == 0, job.log
    assert gate.outputs == {
        "exit-code": "0",
        "junit-report": "out/gate.xml",
        "json-report": "out/gate.json",
        "html-report": "",
    }
    assert (workspace / "out" / "gate.xml").is_file()
    assert sorted(path.name for path in (workspace / "out").iterdir()) == ["gate.json", "gate.xml"]
    report = json.loads((workspace / "out" / "gate.json").read_text("utf-8"))
    assert report["gate_rules"]["required"] == ["checkable", "TOKEN-OK"]
    assert [waiver["source"] for waiver in report["waivers"]] == ["waivers.yaml:3"]
    assert report["excluded"]["scenarios"] == ["pat-cap"]


def test_a_usage_error_is_the_step_s_exit_code_and_no_report_path_is_output(
    workspace: Path,
) -> None:
    inputs = {"install": False, "profile": "missing.yaml"}
    stale = workspace / REPORTS["json-report"]
    stale.parent.mkdir()
    stale.write_text("{}", encoding="utf-8")  # an earlier run's report is not this run's
    job = _gate_job(workspace, inputs, f"{Path(sys.executable).parent}:/usr/bin:/bin")
    gate = job.step("Run the conformance gate")
    assert gate.code == 2
    assert gate.outputs == {"exit-code": "2", **dict.fromkeys(REPORTS, "")}
    assert "profile: missing.yaml: cannot read" in job.log
    assert not stale.exists()


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"install": "yes"}, "::error title=patgate::install must be true or false, not 'yes'"),
        ({"install": False}, "::error title=patgate::no patgate command"),
    ],
)
def test_the_install_step_refuses_a_bad_install_input_or_a_missing_patgate(
    workspace: Path, inputs: dict[str, object], message: str
) -> None:
    job = _gate_job(workspace, inputs, "/usr/bin:/bin")  # no patgate on this PATH
    assert [step.code for step in job.steps] == [0, 2], job.log
    assert message in job.log
    assert not (workspace / "patgate-reports").exists()


def _installed_by_the_job(venv: Path) -> None:
    """patgate is in the job's environment, installed there by the job, not the checkout's."""
    assert (venv / "bin" / "patgate").is_file()
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import patgate; print(patgate.__file__)"],
        cwd=venv,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.strip()
    assert Path(where).is_relative_to(venv), where


def _report(workspace: Path) -> dict:
    document: dict = json.loads((workspace / REPORTS["json-report"]).read_text("utf-8"))
    return document


def test_the_gate_workflow_passes_against_the_fake_it_serves(venv: Path, workspace: Path) -> None:
    job = _job(EXAMPLES / "github-actions.yml", "conformance", venv, workspace)
    assert [(step.name, step.code) for step in job.steps if step.code != 0] == [], job.log
    _installed_by_the_job(venv)
    gate = job.step("Run the conformance gate")
    assert gate.outputs == {"exit-code": "0", **REPORTS}
    assert all((workspace / path).is_file() for path in REPORTS.values())
    counts = _report(workspace)["counts"]
    assert counts["failed"] == 0
    assert counts["passed"] >= 20
    assert "::error" not in job.log
    assert "| Rule | Level | Verdict | Reason |" in job.summary
    assert "| `PAT-CAP` | gate | passed |" in job.summary
    assert job.artifacts == {"patgate-reports": [workspace / "patgate-reports"]}
    # The fake the workflow served in the background is stopped with the job.
    world = json.loads((workspace / "fake.json").read_text("utf-8"))
    with pytest.raises(httpx.ConnectError):
        httpx.get(world["base_url"] + "/v2/content/hubs", timeout=5)


def test_the_action_fails_the_step_with_annotations_when_a_gate_rule_fails(
    venv: Path, workspace: Path
) -> None:
    workflow = workspace.parent / "action-job.yml"
    workflow.write_text(ACTION_JOB, encoding="utf-8")
    with served(workspace / "target.json") as world:
        broken = httpx.post(
            world["control_url"] + "/faults",
            json={"endpoint": "hubs", "status": 500, "body": {"errors": [{"message": "down"}]}},
            headers={"Authorization": f"Bearer {world['control_token']}"},
            timeout=10,
        )
        assert broken.status_code == 201, broken.text
        job = _job(workflow, "gate", venv, workspace)
    codes = {step.name: step.code for step in job.steps}
    assert codes == {
        "Check out patgate": 0,
        "actions/setup-python@v5": 0,
        "Run the conformance gate": 1,
        "Keep the reports": 0,
    }, job.log
    _installed_by_the_job(venv)  # by the action, from its own folder
    assert job.step("Run the conformance gate").outputs == {"exit-code": "1", **REPORTS}
    # A built-in scenario: named by rule and scenario, no file the repository lacks.
    assert "::error title=AUTH-REQUIRED auth-required::" in job.log
    assert "file=patgate/scenarios" not in job.log
    assert "::error title=patgate run::exit 1" in job.log
    assert "| `AUTH-REQUIRED` | gate | **failed** |" in job.summary
    outcomes = {rule["id"]: rule["outcome"] for rule in _report(workspace)["rules"]}
    assert outcomes["AUTH-REQUIRED"] == "failed"
    assert all((workspace / path).is_file() for path in REPORTS.values())
    assert world["control_token"] not in job.log + job.summary


def _compare(
    venv: Path, workspace: Path, tmp_path: Path, fault: dict[str, object] | None
) -> tuple[JobRun, dict[str, str]]:
    """The compare workflow against a served deployment calibrated first, then given
    ``fault``; the job and the deployment's target file."""
    with served(tmp_path / "deployment.json") as world:
        (workspace / "ci").mkdir()
        target = {key: world[key] for key in ("auth_url", "base_url", "graphql_url")}
        target["organization_id"] = world["organization_id"]  # no secret in the repository
        (workspace / "ci" / "staging.yaml").write_text(yaml.safe_dump(target), "utf-8")
        (workspace / "tests").mkdir()
        profile = workspace / "tests" / "staging-profile.yaml"
        calibrate = [*patgate_command(), "calibrate", "--world", str(tmp_path / "deployment.json")]
        subprocess.run(
            [*calibrate, "--out", str(profile)], check=True, capture_output=True, timeout=120
        )
        if fault is not None:
            added = httpx.post(
                world["control_url"] + "/faults",
                json=fault,
                headers={"Authorization": f"Bearer {world['control_token']}"},
                timeout=10,
            )
            assert added.status_code == 201, added.text
        secrets = {
            f"PATGATE_{key.upper()}": world[key]
            for key in ("client_id", "client_secret", "admin_token", "member_token")
        }
        job = _job(EXAMPLES / "compare-schedule.yml", "compare", venv, workspace, secrets=secrets)
    _installed_by_the_job(venv)
    drift = [workspace / "out" / name for name in ("drift.json", "drift.xml", "drift.html")]
    assert all(path.is_file() for path in drift)
    assert job.artifacts == {"patgate-drift": [workspace / "out"]}
    for key in ("client_secret", "admin_token", "member_token"):
        assert world[key] not in job.log
    return job, world


def test_the_compare_workflow_finds_no_drift_on_a_deployment_answering_like_the_fake(
    venv: Path, workspace: Path, tmp_path: Path
) -> None:
    job, _ = _compare(venv, workspace, tmp_path, fault=None)
    assert [(step.name, step.code) for step in job.steps if step.code != 0] == [], job.log
    assert "patgate compare: 0 drift" in job.log


def test_the_compare_workflow_fails_on_drift_and_keeps_the_report(
    venv: Path, workspace: Path, tmp_path: Path
) -> None:
    changed = {"data": None, "errors": [{"message": "Something else entirely"}]}
    job, _ = _compare(
        venv, workspace, tmp_path, fault={"endpoint": "graphql", "status": 200, "body": changed}
    )
    codes = {step.name: step.code for step in job.steps}
    assert codes["Compare the deployment with the fake"] == 1, job.log
    assert codes["Keep the drift report"] == 0
    assert re.search(r"patgate compare: [1-9]\d* drift", job.log), job.log
    report = json.loads((workspace / "out" / "drift.json").read_text("utf-8"))
    assert report["drift"], "the fields that differ are in the report"

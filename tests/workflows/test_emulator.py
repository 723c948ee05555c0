"""The workflow emulation refuses what it does not know instead of passing over it.

An unknown expression, a composite run step without a shell, an input the action does not
declare, an action it does not emulate: each stops the job with the problem named. An
upload of a path that is not there fails its step. None of these start a script, so they
are quick.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.workflows.emulator import JobRun, WorkflowError, run_job, substitute

ROOT = Path(__file__).resolve().parents[2]


def _job(tmp_path: Path, steps: str, secrets: dict[str, str] | None = None) -> JobRun:
    workflow = tmp_path / "workflow.yml"
    workflow.write_text(f"jobs:\n  job:\n    steps:\n{steps}", encoding="utf-8")
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    temp = tmp_path / "temp"
    temp.mkdir(exist_ok=True)
    return run_job(
        workflow,
        "job",
        repository=ROOT,
        workspace=workspace,
        temp=temp,
        environ={"PATH": "/usr/bin:/bin"},
        secrets=secrets,
    )


def _action(tmp_path: Path, text: str) -> None:
    folder = tmp_path / "workspace" / "action"
    folder.mkdir(parents=True)
    (folder / "action.yml").write_text(text, encoding="utf-8")


def test_an_unknown_expression_stops_the_job(tmp_path: Path) -> None:
    steps = "      - env:\n          SHA: ${{ github.sha }}\n        run: echo $SHA\n"
    with pytest.raises(WorkflowError, match=r"unknown expression \$\{\{ github.sha \}\}"):
        _job(tmp_path, steps)


def test_a_secret_the_table_lacks_is_an_unknown_expression(tmp_path: Path) -> None:
    steps = "      - env:\n          KEY: ${{ secrets.OTHER }}\n        run: echo\n"
    with pytest.raises(WorkflowError, match=re.escape("secrets.OTHER")):
        _job(tmp_path, steps, secrets={"KEY": "value"})


def test_an_unknown_condition_stops_the_job(tmp_path: Path) -> None:
    with pytest.raises(
        WorkflowError, match=re.escape("unknown condition if: github.ref == 'main'")
    ):
        _job(tmp_path, "      - if: github.ref == 'main'\n        run: echo\n")


def test_a_composite_run_step_without_a_shell_is_refused(tmp_path: Path) -> None:
    _action(tmp_path, "runs:\n  using: composite\n  steps:\n    - run: echo\n")
    with pytest.raises(WorkflowError, match="needs shell:"):
        _job(tmp_path, "      - uses: ./action\n")


def test_an_input_the_action_does_not_declare_is_refused(tmp_path: Path) -> None:
    _action(tmp_path, "inputs:\n  world: {}\nruns:\n  using: composite\n  steps: []\n")
    with pytest.raises(WorkflowError, match=r"unexpected input\(s\) \['worlds'\]"):
        _job(tmp_path, "      - uses: ./action\n        with:\n          worlds: w.json\n")


def test_an_action_that_is_not_emulated_is_refused(tmp_path: Path) -> None:
    with pytest.raises(WorkflowError, match="actions/cache@v4 is not emulated"):
        _job(tmp_path, "      - uses: actions/cache@v4\n")


def test_an_upload_of_a_missing_path_fails_its_step(tmp_path: Path) -> None:
    upload = "      - uses: actions/upload-artifact@v4\n        with:\n          name: r\n"
    assert [step.code for step in _job(tmp_path, upload + "          path: out/\n").steps] == [1]
    (tmp_path / "workspace" / "out").mkdir()
    job = _job(tmp_path, upload + "          path: out/\n")
    assert [step.code for step in job.steps] == [0]
    assert job.artifacts == {"r": [tmp_path / "workspace" / "out"]}


def test_an_input_default_is_evaluated_in_the_calling_step(tmp_path: Path) -> None:
    # The runner evaluates defaults before the action's steps: github.action_path is unset.
    action = "inputs:\n  source:\n    default: ${{ github.action_path }}\n"
    _action(tmp_path, action + "runs:\n  using: composite\n  steps: []\n")
    with pytest.raises(WorkflowError, match=re.escape("input source: unknown expression")):
        _job(tmp_path, "      - uses: ./action\n")


def test_or_takes_the_first_operand_that_is_not_empty() -> None:
    known = {"inputs.a": "", "inputs.b": "b", "inputs.c": "c"}
    assert substitute("${{ inputs.a || inputs.b || inputs.c }}", known, "here") == "b"
    assert substitute("${{ inputs.a || inputs.a }}", known, "here") == ""
    with pytest.raises(WorkflowError, match=re.escape("${{ inputs.d }}")):
        substitute("${{ inputs.b || inputs.d }}", known, "here")


def test_a_skipped_step_s_outputs_are_empty_and_others_stay_unknown(tmp_path: Path) -> None:
    steps = (
        "      - run: exit 3\n"
        "      - id: never\n        run: echo\n"
        "      - if: always()\n        env:\n"
        "          SEEN: ${{ steps.never.outputs.code }}\n"
        '        run: test -z "$SEEN"\n'
    )
    assert [step.code for step in _job(tmp_path, steps).steps] == [3, None, 0]
    with pytest.raises(WorkflowError, match=re.escape("${{ steps.other.outputs.code }}")):
        _job(tmp_path, steps.replace("steps.never", "steps.other"))

"""Run one job of a GitHub Actions workflow on this machine, as far as the examples need it.

Each ``run:`` step's script runs under bash, in order, in its own process group, with the
variables GitHub's runner sets (``GITHUB_ACTIONS``, ``GITHUB_WORKSPACE``, ``RUNNER_TEMP``,
a fresh ``GITHUB_OUTPUT`` and ``GITHUB_STEP_SUMMARY`` per step). A step runs when no step
before it failed, or when its ``if:`` is ``always()``. ``${{ ... }}`` is replaced from a
table of the expressions the caller knows (secrets, inputs, ``github.action_path`` in an
action's own steps, the outputs of steps that ran), alone or joined by ``||``: any other
expression is an error, so a job cannot pass by ignoring one. ``uses: ./PATH`` expands a
local composite action and runs its steps; ``actions/checkout``, ``actions/setup-python``
and ``actions/upload-artifact`` are emulated (a copy of this repository, nothing, a check
that the paths exist); any other action is an error. When the job ends, every process
group a step left behind is stopped, as the runner stops orphan processes.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

__all__ = ["JobRun", "StepRun", "WorkflowError", "copy_repository", "run_job"]

STEP_TIMEOUT = 240
"""Seconds one step may take; a pip install from a checkout takes a few."""
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
SKIPPED = "skipped"
"""What ``steps.ID`` stands for once step ``ID`` was skipped: its outputs are then empty."""
CONDITIONS = {"always()": True}
"""The ``if:`` conditions a step may carry; without one a step runs while nothing failed."""
NOT_COPIED = (".git", ".venv", ".venv-*", "__pycache__", ".*_cache", ".hypothesis", ".cache")
NOT_COPIED += (".artifacts", ".patgate", "node_modules", "dist", "build", "*.egg-info")


class WorkflowError(AssertionError):
    """The workflow asks for something GitHub would refuse or the emulation does not know."""


@dataclass
class StepRun:
    """One step of the job: its exit code (``None`` when skipped) and its outputs."""

    name: str
    code: int | None
    outputs: dict[str, str] = field(default_factory=dict)


@dataclass
class JobRun:
    """What a job left: its steps, their output, the job summary and the uploaded artifacts."""

    steps: list[StepRun]
    log: str
    summary: str
    artifacts: dict[str, list[Path]]

    def step(self, name: str) -> StepRun:
        """The step called ``name`` (its ``name:``, else its ``id:``, else what it uses)."""
        found = [step for step in self.steps if step.name == name]
        assert len(found) == 1, f"no single step {name!r} in {[s.name for s in self.steps]}"
        return found[0]


def copy_repository(source: Path, destination: Path) -> None:
    """A checkout of ``source`` at ``destination``: its files without caches or builds."""
    shutil.copytree(source, destination, ignore=shutil.ignore_patterns(*NOT_COPIED))


def substitute(text: str, known: Mapping[str, str], where: str) -> str:
    """``text`` with each ``${{ expression }}`` replaced from ``known``; any other is an error."""

    def value(match: re.Match[str]) -> str:
        # `a || b`: the first operand that is not empty, as GitHub's `||` on strings.
        values = [_lookup(operand.strip(), known, where) for operand in match.group(1).split("||")]
        return next((value for value in values if value), "")

    return EXPRESSION.sub(value, text)


def _lookup(expression: str, known: Mapping[str, str], where: str) -> str:
    if expression in known:
        return known[expression]
    skipped = re.fullmatch(r"(steps\.[\w-]+)\.outputs\.[\w-]+", expression)
    if skipped and known.get(skipped.group(1)) == SKIPPED:
        return ""  # a skipped step's outputs are empty, as on GitHub
    raise WorkflowError(f"{where}: unknown expression ${{{{ {expression} }}}}")


def _text(value: object) -> str:
    """A YAML value as GitHub hands it to a step: Booleans as ``true`` and ``false``."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _substituted(values: Mapping[str, Any] | None, known: Mapping[str, str], where: str) -> dict:
    return {
        key: substitute(_text(v), known, f"{where}: {key}") for key, v in (values or {}).items()
    }


def _label(step: Mapping[str, Any]) -> str:
    return str(step.get("name") or step.get("id") or step.get("uses") or "run")


def _outputs(path: Path) -> dict[str, str]:
    """The ``name=value`` and ``name<<DELIMITER`` lines a step wrote to ``GITHUB_OUTPUT``."""
    outputs: dict[str, str] = {}
    lines = iter(path.read_text(encoding="utf-8").splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body = []
            for following in lines:
                if following == delimiter:
                    break
                body.append(following)
            else:
                raise WorkflowError(f"GITHUB_OUTPUT: {name} never closed by {delimiter}")
            outputs[name] = "\n".join(body)
        elif "=" in line:
            name, text = line.split("=", 1)
            outputs[name] = text
        elif line:
            raise WorkflowError(f"GITHUB_OUTPUT: not an output line: {line!r}")
    return outputs


@dataclass
class _Job:
    repository: Path
    workspace: Path
    temp: Path
    environ: Mapping[str, str]
    after_step: Callable[[str], None] | None
    summaries: list[str] = field(default_factory=list)
    artifacts: dict[str, list[Path]] = field(default_factory=dict)
    groups: list[int] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    count: int = 0

    def steps(
        self, steps: list[dict[str, Any]], known: dict[str, str], composite: bool, action: str = ""
    ) -> list[StepRun]:
        """Run ``steps`` in order; a step's outputs become known to the steps after it."""
        runs: list[StepRun] = []
        failed = False
        for step in steps:
            label = _label(step)
            condition = str(step.get("if", "")).strip()
            if condition and condition not in CONDITIONS:
                raise WorkflowError(f"{label}: unknown condition if: {condition}")
            if failed and not condition:
                runs.append(StepRun(label, None))
                if "id" in step:
                    known[f"steps.{step['id']}"] = SKIPPED
                continue
            code, outputs = self.step(step, known, composite, action)
            runs.append(StepRun(label, code, outputs))
            failed = failed or code != 0
            if "id" in step:
                known.update({f"steps.{step['id']}.outputs.{k}": v for k, v in outputs.items()})
            if self.after_step is not None:
                self.after_step(label)
        return runs

    def step(
        self, step: dict[str, Any], known: dict[str, str], composite: bool, action: str
    ) -> tuple[int, dict[str, str]]:
        """Run one step: a script, a local composite action or an emulated third-party one."""
        label = _label(step)
        if "run" in step:
            return self.script(step, known, composite, action)
        uses = str(step.get("uses", ""))
        inputs = _substituted(step.get("with"), known, label)
        if uses.startswith("./"):
            return self.composite(self.workspace / uses, inputs, known)
        return self.third_party(label, uses, inputs), {}

    def script(
        self, step: dict[str, Any], known: dict[str, str], composite: bool, action: str
    ) -> tuple[int, dict[str, str]]:
        """Run a ``run:`` step under bash as GitHub does; its exit code and its outputs."""
        label = _label(step)
        shell = step.get("shell")
        if composite and shell is None:
            raise WorkflowError(f"{label}: a composite action's run step needs shell:")
        if shell not in (None, "bash"):
            raise WorkflowError(f"{label}: shell {shell!r} is not emulated")
        # GitHub's bash: `bash -e {0}` by default, `bash --noprofile --norc -eo pipefail {0}`
        # for shell: bash.
        options = ["-e"] if shell is None else ["--noprofile", "--norc", "-eo", "pipefail"]
        self.count += 1
        files = {n: self.temp / f"{n.lower()}-{self.count}" for n in ("OUTPUT", "STEP_SUMMARY")}
        script = self.temp / f"step-{self.count}.sh"
        script.write_text(substitute(str(step["run"]), known, label), encoding="utf-8")
        environ = {**self.environ, **_substituted(step.get("env"), known, label)}
        environ.update({f"GITHUB_{name}": str(path) for name, path in files.items()})
        for path in files.values():
            path.touch()
        if action:
            environ["GITHUB_ACTION_PATH"] = action
        log = self.temp / f"step-{self.count}.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                ["bash", *options, str(script)],
                cwd=self.workspace / str(step.get("working-directory", ".")),
                env=environ,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its background processes are stopped with the job
            )
            self.groups.append(process.pid)
            try:
                code = process.wait(timeout=STEP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.stop()
                raise
        self.log.append(f"--- {label} (exit {code})\n" + log.read_text(encoding="utf-8"))
        self.summaries.append(files["STEP_SUMMARY"].read_text(encoding="utf-8"))
        return code, _outputs(files["OUTPUT"])

    def composite(
        self, folder: Path, given: dict[str, str], caller: Mapping[str, str]
    ) -> tuple[int, dict[str, str]]:
        """Run a local composite action's steps; its exit code and its declared outputs.

        Input defaults are evaluated where the runner evaluates them, in the calling step
        (``caller``): ``github.action_path`` is known only to the action's own steps.
        """
        action = yaml.safe_load((folder / "action.yml").read_text(encoding="utf-8"))
        if action["runs"]["using"] != "composite":
            raise WorkflowError(f"{folder}: not a composite action")
        declared = action.get("inputs") or {}
        if unknown := sorted(set(given) - set(declared)):
            raise WorkflowError(f"{folder}: unexpected input(s) {unknown}")
        known = {"github.action_path": str(folder)}
        for name, spec in declared.items():
            default = substitute(_text(spec.get("default", "")), caller, f"input {name}")
            if spec.get("required") and name not in given:
                raise WorkflowError(f"{folder}: input {name} is required")
            known[f"inputs.{name}"] = given.get(name, default)
        runs = self.steps(action["runs"]["steps"], known, composite=True, action=str(folder))
        code = next((run.code for run in runs if run.code), 0)
        outputs = {
            name: substitute(str(spec["value"]), known, f"output {name}")
            for name, spec in (action.get("outputs") or {}).items()
        }
        return code, outputs

    def third_party(self, label: str, uses: str, inputs: dict[str, str]) -> int:
        """The known third-party actions, emulated; 0, or 1 when the emulation finds a fault."""
        name = uses.split("@", 1)[0]
        if name == "actions/checkout":
            if "path" in inputs:  # patgate's checkout: this repository
                copy_repository(self.repository, self.workspace / inputs["path"])
            return 0  # the job's own repository is the workspace the caller prepared
        if name == "actions/setup-python":
            if "python-version" not in inputs:
                raise WorkflowError(f"{label}: setup-python without python-version")
            return 0  # the job's PATH already leads to the Python it installs into
        if name == "actions/upload-artifact":
            paths = [self.workspace / line for line in inputs["path"].split() if line]
            missing = [str(path) for path in paths if not path.exists()]
            self.log.append(f"--- {label}: upload {inputs['name']}, missing {missing}\n")
            self.artifacts[inputs["name"]] = paths
            return 1 if missing or not paths else 0
        raise WorkflowError(f"{label}: {uses} is not emulated")

    def stop(self) -> None:
        """Stop what the steps left running: each step's own process group, by its id."""
        for group in self.groups:
            with contextlib.suppress(ProcessLookupError):  # nothing of that step is left
                os.killpg(group, signal.SIGTERM)
        deadline = time.monotonic() + 10
        for group in self.groups:
            with contextlib.suppress(ProcessLookupError):
                while time.monotonic() < deadline:
                    os.killpg(group, 0)  # raises once the group is gone
                    time.sleep(0.05)
                os.killpg(group, signal.SIGKILL)


def run_job(
    workflow: Path,
    job: str,
    *,
    repository: Path,
    workspace: Path,
    temp: Path,
    environ: Mapping[str, str],
    secrets: Mapping[str, str] | None = None,
    after_step: Callable[[str], None] | None = None,
) -> JobRun:
    """Run ``job`` of the workflow file ``workflow`` in ``workspace``; its steps and results.

    ``environ`` is every variable the steps see besides those the runner sets; ``secrets``
    answer ``${{ secrets.NAME }}``; ``after_step`` is called with each step's name once it ran.
    """
    document = yaml.safe_load(workflow.read_text(encoding="utf-8"))
    steps = document["jobs"][job]["steps"]
    runner = {"GITHUB_ACTIONS": "true", "CI": "true", "RUNNER_TEMP": str(temp)}
    runner.update(GITHUB_WORKSPACE=str(workspace), GITHUB_ENV=str(temp / "env"))
    runner["GITHUB_PATH"] = str(temp / "path")
    state = _Job(repository, workspace, temp, {**environ, **runner}, after_step)
    known = {f"secrets.{name}": value for name, value in (secrets or {}).items()}
    try:
        runs = state.steps(steps, known, composite=False)
    finally:
        state.stop()
    return JobRun(runs, "".join(state.log), "".join(state.summaries), state.artifacts)

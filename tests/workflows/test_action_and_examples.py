"""What can be read off ``action.yml`` and the example workflows without running them.

The action passes ``patgate run`` only flags it has, reaches its script only through
environment variables (an input pasted into a script would run as shell), uses every input
it declares; the examples install patgate the way the README says (a checkout, never the
package index). Each check is a function, and a twin test plants the fault it catches.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
EXAMPLES = sorted((ROOT / "examples").glob("*.yml"))


def _run_options() -> set[str]:
    from patgate.cli import build_parser

    parser = build_parser()
    run = parser._subparsers._group_actions[0].choices["run"]  # type: ignore[union-attr]
    return {option for action in run._actions for option in action.option_strings}


def unknown_run_flags(script: str) -> list[str]:
    """The ``--flags`` a script adds to patgate's arguments that ``patgate run`` lacks."""
    added = re.findall(r"argv\+=\(([^)]*)\)", script)
    flags = {flag for words in added for flag in re.findall(r"(?<![\w-])--[a-z][a-z-]*", words)}
    return sorted(flags - _run_options())


def pasted_expressions(steps: list[dict[str, Any]]) -> list[str]:
    """Expressions written into a ``run:`` script instead of passed through ``env:``."""
    return [m for step in steps for m in re.findall(r"\$\{\{[^}]*\}\}", step.get("run", ""))]


def index_installs(script: str) -> list[str]:
    """What a script's ``pip install`` fetches by name from a package index."""
    wanted = [w for line in re.findall(r"pip install ([^\n;&|]*)", script) for w in line.split()]
    return [w for w in wanted if not w.startswith(("-", "./", "/", "$", '"$', "git+"))]


def _gate_script() -> str:
    gate = next(step for step in ACTION["runs"]["steps"] if step.get("id") == "gate")
    script: str = gate["run"]
    return script


def test_the_action_passes_only_flags_patgate_run_has() -> None:
    script = _gate_script()
    assert 'patgate "${argv[@]}"' in script
    assert unknown_run_flags(script) == []
    assert unknown_run_flags(script.replace("(--waivers ", "(--waiver-file ")) == ["--waiver-file"]


def test_the_action_passes_its_inputs_through_the_environment_only() -> None:
    steps = ACTION["runs"]["steps"]
    assert pasted_expressions(steps) == []
    assert pasted_expressions([{"run": "patgate run ${{ inputs.args }}"}]) == ["${{ inputs.args }}"]
    used = {m for step in steps for m in re.findall(r"inputs\.([\w-]+)", str(step.get("env")))}
    assert used == set(ACTION["inputs"])


def test_the_action_outputs_the_exit_code_and_the_report_paths() -> None:
    assert ACTION["runs"]["using"] == "composite"
    install = next(step for step in ACTION["runs"]["steps"] if step["name"] == "Install patgate")
    # By default from the action's own folder, known only inside the action's steps.
    assert install["env"]["PATGATE_SOURCE"] == "${{ inputs.patgate-source || github.action_path }}"
    assert all("github." not in str(spec.get("default")) for spec in ACTION["inputs"].values())
    outputs = {name: spec["value"] for name, spec in ACTION["outputs"].items()}
    assert outputs == {
        name: f"${{{{ steps.gate.outputs.{name} }}}}"
        for name in ("exit-code", "junit-report", "json-report", "html-report")
    }
    script = _gate_script()
    for name in outputs:
        assert f'echo "{name}=' in script
    assert script.rstrip().endswith('exit "$code"')


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.name)
def test_the_examples_install_patgate_from_its_checkout(example: Path) -> None:
    workflow = yaml.safe_load(example.read_text(encoding="utf-8"))
    scripts = [step.get("run", "") for job in workflow["jobs"].values() for step in job["steps"]]
    assert any("pip install ./patgate" in script for script in scripts)
    assert [name for script in scripts for name in index_installs(script)] == []
    assert index_installs("python -m pip install patgate") == ["patgate"]
    checkouts = [
        step
        for job in workflow["jobs"].values()
        for step in job["steps"]
        if str(step.get("uses", "")).startswith("actions/checkout")
    ]
    assert any(step.get("with", {}).get("path") == "patgate" for step in checkouts)
    assert "@" not in str([step.get("with") for step in checkouts]), "no tag to promise yet"

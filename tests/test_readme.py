"""README.md promises only what runs: its commands and its examples are executed here or in CI."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from patgate.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _block_after(heading: str, language: str) -> str:
    section = README.split(f"\n{heading}\n", 1)[1]
    match = re.search(rf"```{language}\n(.*?)```", section, re.DOTALL)
    assert match, f"no {language} block under {heading!r}"
    return match.group(1)


def test_the_readme_opens_with_the_two_commands_that_ci_executes() -> None:
    first_block = re.search(r"```sh\n(.*?)```", README, re.DOTALL)
    assert first_block
    assert README.index("```sh") < README.index("\n## ")
    setup_and_run, tests = first_block.group(1).strip().splitlines()
    assert "pip install" in setup_and_run
    assert setup_and_run.endswith("patgate run")
    assert "pytest" in tests
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "readme_command 1" in ci
    assert "readme_command 2" in ci


def test_the_scenario_example_loads_and_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "mine.yaml").write_text(_block_after("## Writing a scenario", "yaml"))
    assert main(["run", "--scenarios", str(tmp_path)]) == 0
    assert "my-admin-lists-tokens" in capsys.readouterr().out

"""The default run is fast (no slow tests); CI runs everything and can never run nothing."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.counterparts import REQUIRE_VARIABLE

ROOT = Path(__file__).resolve().parent.parent

TWO_TESTS = """
import pytest

def test_quick():
    pass

@pytest.mark.slow
def test_slow():
    pass
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.delenv(REQUIRE_VARIABLE, raising=False)
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow\n")
    pytester.makepyfile(test_two=TWO_TESTS)
    return pytester


def _run(project: pytest.Pytester, *args: str) -> pytest.RunResult:
    return project.runpytest_inprocess("-p", "tests.slow_selection", *args)


def test_the_default_run_leaves_the_slow_tests_out(project: pytest.Pytester) -> None:
    result = _run(project)
    result.assert_outcomes(passed=1, deselected=1)
    result.stdout.fnmatch_lines(["*slow tests left out (pass --run-slow*"])


def test_run_slow_runs_everything(project: pytest.Pytester) -> None:
    _run(project, "--run-slow").assert_outcomes(passed=2)


def test_a_marker_expression_chooses_for_itself(project: pytest.Pytester) -> None:
    _run(project, "-m", "slow").assert_outcomes(passed=1, deselected=1)


def test_ci_refuses_a_run_without_the_slow_tests(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(REQUIRE_VARIABLE, "1")
    result = _run(project)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--run-slow" in result.stderr.str()
    _run(project, "--run-slow").assert_outcomes(passed=2)


def test_ci_still_shows_the_help(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REQUIRE_VARIABLE, "1")
    result = _run(project, "--help")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*--run-slow*"])


def test_a_ci_run_that_selects_nothing_fails(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(REQUIRE_VARIABLE, "1")
    result = _run(project, "--run-slow", "-k", "no_such_test")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def _ci_pytest_commands() -> list[list[str]]:
    """Every pytest command CI runs: README's second command and the ones in .ci/run."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", readme, re.DOTALL)
    assert block
    commands = [block.group(1).strip().splitlines()[1].split("&&")[-1]]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    suite = re.search(r"extremes_suite=\((.*?)\)", ci, re.DOTALL)
    assert suite
    commands.append("pytest " + suite.group(1))
    commands += [line for line in ci.splitlines() if "-m pytest" in line and "extremes" not in line]
    return [shlex.split(command.replace("\\\n", " ")) for command in commands]


def test_every_pytest_command_ci_runs_includes_the_slow_tests() -> None:
    commands = _ci_pytest_commands()
    assert len(commands) >= 3
    for command in commands:
        assert "--run-slow" in command or "-m" in command[command.index("pytest") + 1 :], command

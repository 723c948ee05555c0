"""Run as pytest items against a hostile deployment, the scenarios fail or pass, pytest ends
normally and writes its JUnit file, and no token is left behind."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET

import pytest

# pytester forgets the modules an inner session imported; PyYAML's C extension does not
# survive being imported a second time, so it is imported once here, outside the sessions.
import yaml  # noqa: F401

from patgate.basics.resources import scenarios_dir
from tests.scenarios_pytest.test_scenario_items import CONFTEST

from .cases import CASES
from .server import Server

ONCE_CRASHING = ("retry-after-superscript", "lying-charset-utf16", "object-for-id")
"""Kinds of answer that once crashed pytest at session end."""


@pytest.mark.parametrize("name", ONCE_CRASHING)
def test_pytest_survives_a_hostile_deployment_and_writes_junit(
    pytester: pytest.Pytester, name: str
) -> None:
    (case,) = [case for case in CASES if case.name == name]
    pytester.makeconftest(CONFTEST)
    checks = pytester.mkdir("checks")
    for scenario in ("pat-create", "pat-list-own", "token-ok", "content-pat"):
        shutil.copy(scenarios_dir() / f"{scenario}.yaml", checks)
    with Server(case) as server:
        server.write_world(pytester.path / "w.json")
        options = ["--patgate-world", "w.json", "--patgate-allow-writes"]
        result = pytester.runpytest(
            "-p", "no:patgate", "-p", "no:cacheprovider", "--patgate-scenarios", "checks",
            "checks", *options, "--junitxml", "out.xml",
        )  # fmt: skip
        left = server.run_tokens()
    output = result.stdout.str() + result.stderr.str()
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), output
    assert "INTERNALERROR" not in output
    assert "Traceback" not in output
    suite = ET.parse(pytester.path / "out.xml").getroot()  # noqa: S314 - pytest's own file
    assert len(list(suite.iter("testcase"))) == 4
    assert left == []

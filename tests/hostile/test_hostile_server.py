"""No answer crashes the runner: against a deployment that misbehaves in each way of
:mod:`tests.hostile.cases`, ``patgate run`` ends with a documented exit code, prints no
traceback, writes its JSON and JUnit reports, and leaves no token behind (the hostile
deployment honours deletes once its spoiled answers are spent)."""

from __future__ import annotations

import contextlib
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from patgate.cli import main

from .cases import CASES
from .server import Misbehaviour, Server

# Each case serves a misbehaving deployment on loopback and waits out its timeouts.
pytestmark = pytest.mark.slow

EXIT_CODES = {0: "no gate rule failed", 1: "a gate rule failed"}
"""The README's exit codes a hostile answer may lead to (2 and 3 are for bad input and an
unreachable target, which the first answer disproves)."""
TIMEOUTS = ("--connect-timeout", "2", "--read-timeout", "3")


def run_against(server: Server, folder: Path, *extra: str) -> tuple[int, str]:
    """``patgate run`` against ``server`` with writes allowed; exit code and all output."""
    world = folder / "w.json"
    server.write_world(world)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(
            [
                "run",
                "--world",
                str(world),
                "--allow-writes",
                *TIMEOUTS,
                "--ledger",
                str(folder / "ledger.jsonl"),
                "--report",
                f"json:{folder / 'run.json'}",
                "--report",
                f"junit:{folder / 'run.xml'}",
                *extra,
            ]
        )
    return code, out.getvalue() + err.getvalue()


def test_there_are_at_least_thirty_kinds_of_misbehaviour() -> None:
    assert len({case.name for case in CASES}) == len(CASES) >= 30


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_hostile_answer_is_a_failed_step_not_a_crash(case: Misbehaviour, tmp_path: Path) -> None:
    with Server(case) as server:
        code, output = run_against(server, tmp_path)
        left = server.run_tokens()
    assert server.spoiled, "the run met the misbehaviour"
    assert "Traceback" not in output
    assert "internal error" not in output
    assert code in EXIT_CODES, output
    report = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    assert report["scenarios"], "the JSON report lists the scenarios"
    suite = ET.parse(tmp_path / "run.xml").getroot()  # noqa: S314 - our own report
    assert suite.iter("testcase"), "the JUnit report parses"
    assert left == [], "every token the run made was deleted"
    if code == 1:
        assert "failed" in output


def test_the_same_run_against_a_well_behaved_deployment_passes(tmp_path: Path) -> None:
    """The suite's baseline: without misbehaviour the run passes, so a case's failure is
    the misbehaviour's doing."""
    with Server(None) as server:
        code, output = run_against(server, tmp_path)
        left = server.run_tokens()
    assert code == 0, output
    assert left == []

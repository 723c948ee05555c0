"""Answers of the wrong JSON type wherever the runner reads one for itself end as a failed
step naming the field and what came, with every report written and nothing left behind;
and a create answered with the wrong id never makes the run delete that id."""

from __future__ import annotations

import json
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .server import Server
from .test_hostile_server import run_against
from .wrong_types import FOREIGN_ID, HOSTILE_TEXT, UNKNOWN_ID, WRONG_TYPES, WrongType

ONE_AT_A_TIME = ("--concurrency", "1")
"""A case spoils the first few answers of a kind (the first listings, say): with one scenario
at a time the same answers are spoiled in every run, the runner's own reads among them; side
by side, which scenario meets them depends on timing."""
# Each case runs the scenarios against a deployment served on loopback.
pytestmark = pytest.mark.slow


def _report(folder: Path) -> dict[str, object]:
    report = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    ET.parse(folder / "run.xml")  # noqa: S314 - our own report
    return report


def _messages(report: dict[str, object]) -> str:
    scenarios = report["scenarios"]
    assert isinstance(scenarios, list)
    return "\n".join(
        failure["message"] for scenario in scenarios for failure in scenario["failures"]
    )


def _run(
    server: Server, folder: Path, drop: tuple[str, ...] = (), scenarios: tuple[str, ...] = ()
) -> tuple[int, str]:
    chosen = [flag for name in scenarios for flag in ("--scenario", name)]
    if not drop:
        return run_against(server, folder, *ONE_AT_A_TIME, *chosen)
    world = {k: v for k, v in server.fake.world.items() if k not in drop}

    def write_world(path: object) -> None:
        Path(str(path)).write_text(json.dumps(world), encoding="utf-8")

    server.write_world = write_world  # type: ignore[method-assign]
    return run_against(server, folder, *ONE_AT_A_TIME, *chosen)


@pytest.mark.parametrize("wrong", WRONG_TYPES, ids=[wrong.case.name for wrong in WRONG_TYPES])
def test_a_wrong_json_type_is_a_failed_step_naming_the_field(
    wrong: WrongType, tmp_path: Path
) -> None:
    with Server(wrong.case) as server:
        code, output = _run(server, tmp_path, wrong.drop, wrong.scenarios)
        left = server.run_tokens()
    assert server.spoiled, "the run met the misbehaviour"
    assert "Traceback" not in output
    assert "internal error" not in output
    assert code == 1, output
    report = _report(tmp_path)
    assert wrong.shows in _messages(report) + output
    assert left == [], "every token the run made was deleted"


def _admin_token_works(server: Server) -> bool:
    deployment = server.fake.deployment
    principal = deployment.authenticate(server.fake.world["admin_token"])
    return principal is not None


def test_a_create_answering_a_foreign_id_never_deletes_that_token(tmp_path: Path) -> None:
    with Server(FOREIGN_ID) as server:
        before = {t.id for t in server.fake.deployment.tokens.values()}
        code, output = run_against(server, tmp_path, *ONE_AT_A_TIME)
        after = {t.id for t in server.fake.deployment.tokens.values()}
        left = server.run_tokens()
        assert _admin_token_works(server)
    assert server.spoiled
    assert before <= after, "no token that existed before the run was deleted"
    assert left == [], "the tokens the run really made were found by name and deleted"
    assert code == 1, output
    assert "Traceback" not in output
    report = _report(tmp_path)
    assert "a token that existed before the create" in _messages(report)
    assert "wrong ids answered (left alone)" in output
    assert "0 deletes refused" not in output


def test_a_create_answering_an_unknown_id_does_not_hide_the_real_token(tmp_path: Path) -> None:
    with Server(UNKNOWN_ID) as server:
        code, output = run_against(server, tmp_path, *ONE_AT_A_TIME)
        left = server.run_tokens()
    assert server.spoiled
    assert left == [], "the real tokens were found by the run's name and deleted"
    assert code == 1, output
    assert "Traceback" not in output
    assert "an id its creator does not list" in _messages(_report(tmp_path))
    assert "wrong ids answered (left alone)" in output


def test_answers_of_hostile_text_are_redacted_in_linear_time(tmp_path: Path) -> None:
    """Half a megabyte of token-like runs, digits and near-JWTs in each of several answers:
    the run ends as usual (its failures quote the answers, redacted first), in a time far
    from the minutes a quadratic redaction took."""
    with Server(HOSTILE_TEXT) as server:
        started = time.perf_counter()
        code, output = run_against(server, tmp_path, *ONE_AT_A_TIME)
        elapsed = time.perf_counter() - started
        left = server.run_tokens()
    assert server.spoiled
    assert "Traceback" not in output
    assert code == 1, output
    assert left == []
    assert elapsed < 60, f"the run took {elapsed:.1f} s"
    _report(tmp_path)

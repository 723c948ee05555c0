"""Levels, ledger states and tallies are typed values: no layer compares their text."""

from __future__ import annotations

import ast
from pathlib import Path

from patgate.basics.levels import Level
from patgate.runner.custody.ledger import Ledger, LedgerState
from patgate.runner.results.events import Failure, RunFinished, Tallies

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "patgate"
WORDS = {member.value for member in Level} | {member.value for member in LedgerState}
HOMES = {PACKAGE / "basics" / "levels.py", PACKAGE / "runner" / "ledger.py"}
CONTROL_CLIENT = PACKAGE / "control_client.py"
"""Reads the fake's own token states over its control API (a token "pending" approval)."""


def _compared_strings(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                if isinstance(side, ast.Constant) and side.value in WORDS:
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {side.value!r}")
    return found


def test_no_code_compares_a_level_or_a_ledger_state_as_text() -> None:
    offenders = [
        hit
        for path in sorted(PACKAGE.rglob("*.py"))
        # The fake and its management page have their own token states (a token "pending"
        # approval), which are not the ledger's.
        if path not in {*HOMES, CONTROL_CLIENT} and not {"fake", "ui"} & set(path.parts)
        for hit in _compared_strings(path)
    ]
    assert offenders == []


def test_a_level_prints_and_serialises_as_its_word() -> None:
    failure = Failure("PAT-CAP", "gate", "step", "message")  # type: ignore[arg-type]
    assert failure.level is Level.GATE
    assert f"{failure.level}" == str(failure.level) == "gate"
    assert f"{failure.level:<8}|" == "gate    |"


def test_tallies_say_when_something_was_left_behind() -> None:
    assert not Tallies(tokens_created=2, tokens_deleted=2).left_behind
    assert Tallies(tokens_created=2, tokens_deleted=1, tokens_leaked=1).left_behind
    assert Tallies(deletes_refused=1).left_behind


def test_the_json_counts_still_carry_the_tallies() -> None:
    from patgate.reporting.summary import count_outcomes

    finished = RunFinished("r", (), (), 0, 0.1, {"passed": 1}, Tallies(3, 3, 0, 0, 1))
    counts = count_outcomes(finished)
    assert counts["passed"] == 1
    assert (counts["tokens_created"], counts["tokens_deleted"], counts["retries"]) == (3, 3, 1)


def test_ledger_states_are_enum_members_after_a_replay(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    ledger = Ledger(path, "run1")
    ledger.intend("patgate-run1-1")
    ledger.confirm("patgate-run1-1", "id-1")
    ledger.intend("patgate-run1-2")
    ledger.abandon("patgate-run1-2")
    (replayed,) = Ledger.load(path)
    states = {entry.name: entry.state for entry in replayed.entries()}
    assert states == {"patgate-run1-1": LedgerState.CREATED, "patgate-run1-2": LedgerState.REFUSED}
    assert all(isinstance(state, LedgerState) for state in states.values())

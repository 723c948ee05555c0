"""The ledger: written before a create, refuses foreign deletes, survives a crash."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from patgate.errors import ForeignDeleteRefused, UsageError
from patgate.runner.custody.ledger import Ledger


def _lines(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_create_is_on_disk_before_it_is_sent(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    ledger = Ledger(path, "run1")
    name = ledger.next_name()
    assert name == "patgate-run1-1"
    ledger.intend(name, "admin_token")
    last = _lines(path)[-1]
    assert (last["event"], last["name"], last["as"], last["run_id"]) == (
        "pending",
        name,
        "admin_token",
        "run1",
    )
    assert [e.name for e in ledger.outstanding()] == [name]
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_counts_follow_the_lifecycle(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "l.jsonl", "r")
    for token_id in ("a", "b"):
        name = ledger.next_name()
        ledger.intend(name)
        ledger.confirm(name, token_id)
    refused = ledger.next_name()
    ledger.intend(refused)
    ledger.abandon(refused)
    ledger.check_delete("a")
    ledger.deleted("a")
    assert ledger.counts() == {
        "created": 2,
        "deleted": 1,
        "leaked": 1,
        "refused": 0,
        "wrong_ids": 0,
    }
    assert [e.token_id for e in ledger.outstanding()] == ["b"]


def test_a_delete_of_an_id_not_in_the_ledger_is_refused_and_counted(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "l.jsonl", "r")
    name = ledger.next_name()
    ledger.intend(name)
    ledger.confirm(name, "mine")
    with pytest.raises(ForeignDeleteRefused, match="'someone-elses'"):
        ledger.check_delete("someone-elses")
    assert ledger.check_delete("mine").state == "created"
    ledger.deleted("mine")
    # Still ours once deleted: a scenario may ask what a second delete answers.
    assert ledger.check_delete("mine").state == "deleted"
    assert ledger.counts()["refused"] == 1


def test_a_name_is_used_once(tmp_path: Path) -> None:
    ledger = Ledger(None, "r")
    ledger.intend("patgate-r-1")
    with pytest.raises(ValueError, match="already in the ledger"):
        ledger.intend("patgate-r-1")


def test_an_unsure_create_is_settled_by_a_listing() -> None:
    ledger = Ledger(None, "r")
    found, missing = ledger.next_name(), ledger.next_name()
    ledger.intend(found)
    ledger.intend(missing)
    assert ledger.counts()["leaked"] == 2, "an unsettled create counts as left behind"
    ledger.confirm(found, "id-1")
    ledger.absent(missing)
    assert [e.name for e in ledger.outstanding()] == [found]


def test_a_token_still_listed_after_its_delete_is_reopened(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    ledger = Ledger(path, "r")
    name = ledger.next_name()
    ledger.intend(name)
    ledger.confirm(name, "id-1")
    ledger.deleted("id-1")
    ledger.reopen(name)
    assert [e.token_id for e in ledger.outstanding()] == ["id-1"]
    (replayed,) = Ledger.load(path)
    assert [e.token_id for e in replayed.outstanding()] == ["id-1"]


def test_a_ledger_without_a_path_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    ledger = Ledger(None, "r")
    name = ledger.next_name()
    ledger.intend(name)
    ledger.confirm(name, "x")
    ledger.deleted("x")
    assert ledger.counts() == {
        "created": 1,
        "deleted": 1,
        "leaked": 0,
        "refused": 0,
        "wrong_ids": 0,
    }
    assert list(tmp_path.iterdir()) == []


def test_a_crashed_run_is_replayed_from_disk(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    first = Ledger(path, "crashed")
    for token_id in ("x", "y"):
        name = first.next_name()
        first.intend(name, "admin_token")
        first.confirm(name, token_id)
    first.deleted("x")
    dangling = first.next_name()
    first.intend(dangling, "member_token")  # killed before the create answered
    other = Ledger(path, "finished")
    name = other.next_name()
    other.intend(name)
    other.confirm(name, "z")
    other.deleted("z")
    runs = {ledger.run_id: ledger for ledger in Ledger.load(path)}
    outstanding = runs["crashed"].outstanding()
    assert {(e.token_id, e.bearer_key) for e in outstanding} == {
        ("y", "admin_token"),
        (None, "member_token"),
    }
    assert runs["finished"].outstanding() == []
    with pytest.raises(ForeignDeleteRefused):
        runs["finished"].check_delete("y")


def test_a_corrupt_ledger_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    path.write_text('{"run_id": "r", "event": "pending", "name": "n"}\nnot json\n')
    with pytest.raises(UsageError, match=r"l\.jsonl:2"):
        Ledger.load(path)
    path.write_text('{"run_id": 3, "event": "pending", "name": "n"}\n')
    with pytest.raises(UsageError, match=r"l\.jsonl:1: not a ledger entry"):
        Ledger.load(path)
    with pytest.raises(UsageError, match="cannot read"):
        Ledger.load(tmp_path / "missing.jsonl")


def test_an_unwritable_ledger_is_a_usage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    ledger = Ledger(blocker / "ledger.jsonl", "r")
    with pytest.raises(UsageError, match="cannot write the ledger"):
        ledger.intend(ledger.next_name())

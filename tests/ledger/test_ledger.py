"""The ledger: written before a create, refuses foreign deletes, survives a crash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from patgate.errors import UsageError
from patgate.runner.ledger import ForeignDeleteRefused, Ledger


def test_a_create_is_on_disk_before_it_is_sent(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.jsonl", "run1")
    name = ledger.next_name()
    assert name == "patgate-run1-1"
    ledger.intend(name)
    lines = [json.loads(x) for x in (tmp_path / "ledger.jsonl").read_text().splitlines()]
    assert lines[-1]["event"] == "pending"
    assert lines[-1]["name"] == name
    assert [e.name for e in ledger.outstanding()] == [name]


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
    assert ledger.counts() == {"created": 2, "deleted": 1, "leaked": 1}
    assert [e.token_id for e in ledger.outstanding()] == ["b"]


def test_a_delete_of_an_id_not_in_the_ledger_is_refused(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "l.jsonl", "r")
    name = ledger.next_name()
    ledger.intend(name)
    ledger.confirm(name, "mine")
    with pytest.raises(ForeignDeleteRefused):
        ledger.check_delete("someone-elses")
    ledger.check_delete("mine")
    ledger.deleted("mine")
    with pytest.raises(ForeignDeleteRefused):
        ledger.check_delete("mine")


def test_a_crashed_run_is_replayed_from_disk(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    first = Ledger(path, "crashed")
    for token_id in ("x", "y"):
        name = first.next_name()
        first.intend(name)
        first.confirm(name, token_id)
    first.deleted("x")
    dangling = first.next_name()
    first.intend(dangling)  # killed before the create answered
    other = Ledger(path, "finished")
    name = other.next_name()
    other.intend(name)
    other.confirm(name, "z")
    other.deleted("z")
    runs = {ledger.run_id: ledger for ledger in Ledger.load(path)}
    assert {e.token_id for e in runs["crashed"].outstanding()} == {"y", None}
    assert runs["finished"].outstanding() == []


def test_a_corrupt_ledger_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    path.write_text('{"run_id": "r", "event": "pending", "name": "n"}\nnot json\n')
    with pytest.raises(UsageError, match=r"l\.jsonl:2"):
        Ledger.load(path)
    with pytest.raises(UsageError, match="cannot read"):
        Ledger.load(tmp_path / "missing.jsonl")

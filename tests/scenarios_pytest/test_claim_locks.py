"""The cross-process locks of scenario items under pytest-xdist: a principal's slots are
shared by writers up to the budget, a cap probe holds its principal alone, and the slots
are taken all at once or not at all."""

from __future__ import annotations

import threading
from pathlib import Path

from patgate.plugin.scenario_workers import ClaimLocks
from patgate.runner.planning.scheduler import SLOTS, Claim

WAIT = 10.0
_ROOM = {"admin_token": SLOTS, "member_token": SLOTS}


def _admin(count: int) -> Claim:
    return Claim(slots=(("admin_token", count),))


def test_writers_share_a_principal_up_to_its_slots(tmp_path: Path) -> None:
    # Each worker process has its own ClaimLocks on the shared folder.
    first, second, third = (ClaimLocks(tmp_path) for _ in range(3))
    try:
        with first.hold(_admin(2)), second.hold(_admin(SLOTS - 2)):
            assert third._try_slots({"admin_token": 1}, _ROOM) is None, "the slots are spent"
            assert third._try_slots({"member_token": 2}, _ROOM) is not None
        taken = third._try_slots({"admin_token": SLOTS}, _ROOM)
        assert taken is not None, "every slot is free again"
        for lock in taken:
            lock.release()
    finally:
        for locks in (first, second, third):
            locks.close()


def test_a_partial_take_keeps_nothing(tmp_path: Path) -> None:
    holder, other = ClaimLocks(tmp_path), ClaimLocks(tmp_path)
    try:
        with holder.hold(_admin(SLOTS - 1)):
            # member's slots are free, the admin's are not: nothing is kept.
            assert other._try_slots({"admin_token": 2, "member_token": 1}, _ROOM) is None
            taken = other._try_slots({"member_token": SLOTS}, _ROOM)
            assert taken is not None
            for lock in taken:
                lock.release()
    finally:
        holder.close()
        other.close()


def test_a_cap_probe_waits_for_the_writers_of_its_principal(tmp_path: Path) -> None:
    writer, probe = ClaimLocks(tmp_path), ClaimLocks(tmp_path)
    order: list[str] = []
    started = threading.Event()

    def run_probe() -> None:
        started.set()
        with probe.hold(Claim(alone_as=frozenset({"admin_token"}))):
            order.append("probe")

    try:
        with writer.hold(_admin(1)):
            thread = threading.Thread(target=run_probe)
            thread.start()
            started.wait(WAIT)
            thread.join(0.3)  # the probe must still be waiting
            order.append("writer done")
        thread.join(WAIT)
        assert order == ["writer done", "probe"]
    finally:
        writer.close()
        probe.close()


def test_a_principals_room_is_counted_once_and_sizes_its_slots(tmp_path: Path) -> None:
    # The admin already holds 3 tokens: 2 slots for the whole session, counted once.
    first, second = ClaimLocks(tmp_path), ClaimLocks(tmp_path)
    asked: list[str] = []

    def count(key: str) -> int:
        asked.append(key)
        return 3

    try:
        with first.hold(_admin(1), count), second.hold(_admin(1), count):
            assert first.room("admin_token", count) == {"admin_token": 2}
            third = ClaimLocks(tmp_path)
            try:
                room = third.room("admin_token", count)
                assert third._try_slots({"admin_token": 1}, {"admin_token": 2}) is None
                assert room == {"admin_token": 2}
            finally:
                third.close()
        assert asked == ["admin_token"], "counted by the first writer only"
    finally:
        first.close()
        second.close()


def test_a_claim_larger_than_the_room_still_runs_alone(tmp_path: Path) -> None:
    # 4 tokens held: one slot; a writer wanting 2 takes the one and does not wait forever.
    locks, other = ClaimLocks(tmp_path), ClaimLocks(tmp_path)
    try:
        with locks.hold(_admin(2), lambda key: 4):
            assert other._try_slots({"admin_token": 1}, {"admin_token": 1}) is None
    finally:
        locks.close()
        other.close()

"""The probe order is data: each probe starts once what it is ``after`` is reached, never
beside what it ``excludes``, and a schedule naming an unknown probe or waiting in a circle is
refused before anything is sent."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace
from typing import Any

import pytest

from patgate.calibration.probing import Milestones
from patgate.calibration.scheduler import PROBES, Probe, ScheduleError, check_schedule, run_schedule
from patgate.errors import RequestFailed


class Log:
    """When each stub probe started and ended (a counter, not a clock)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.events: list[tuple[str, str]] = []

    def note(self, what: str, name: str) -> None:
        with self.lock:
            self.events.append((what, name))

    def index(self, what: str, name: str) -> int:
        return self.events.index((what, name))


def _stub(log: Log, name: str, *, seconds: float = 0.02, fail: bool = False) -> Any:
    def run(probing: Any) -> None:
        log.note("start", name)
        time.sleep(seconds)
        if name == "a":
            probing.milestones.reach("a:half")
            time.sleep(seconds)
        log.note("end", name)
        if fail:
            raise RequestFailed("no answer")

    return run


def _probing() -> Any:
    missed: list[tuple[tuple[str, ...], str]] = []
    return SimpleNamespace(
        milestones=Milestones(), missed=lambda names, why: missed.append((names, why))
    )


def test_the_shipped_schedule_is_sound() -> None:
    check_schedule(PROBES)
    assert len({p.name for p in PROBES}) == len(PROBES)


def test_a_probe_starts_after_what_it_needs_and_never_beside_what_it_excludes() -> None:
    log = Log()
    probes = [
        Probe("a", _stub(log, "a"), points=("a:half",)),
        Probe("b", _stub(log, "b"), after=("a",)),
        Probe("c", _stub(log, "c"), after=("a:half",)),
        Probe("d", _stub(log, "d"), after=("a:half",), excludes=("c",)),
    ]
    run_schedule(_probing(), probes)
    assert log.index("start", "b") > log.index("end", "a")
    # A point passed mid-run lets its waiter start before the probe ends.
    assert log.index("start", "c") < log.index("end", "a")
    c = (log.index("start", "c"), log.index("end", "c"))
    d = (log.index("start", "d"), log.index("end", "d"))
    assert c[1] < d[0] or d[1] < c[0], log.events


def test_a_probe_that_stops_still_lets_the_others_go() -> None:
    log = Log()
    probing = _probing()
    probes = [
        Probe("a", _stub(log, "a", fail=True), points=("a:half",)),
        Probe("b", _stub(log, "b"), after=("a",)),
    ]
    run_schedule(probing, probes)
    assert ("end", "b") in log.events


def test_a_name_no_chosen_probe_reaches_counts_as_reached() -> None:
    log = Log()
    probes = [Probe("b", _stub(log, "b"), after=("a",)), Probe("a", _stub(log, "a"))]
    run_schedule(_probing(), probes, chosen={"b"})  # "a" is not chosen
    assert log.events == [("start", "b"), ("end", "b")]


def test_an_unknown_name_is_refused() -> None:
    # The same schedule with "a" chosen is sound; a name nobody declares is not.
    with pytest.raises(ScheduleError, match="no such probe or point"):
        check_schedule([Probe("b", print, after=("a:never",)), Probe("a", print)])


def test_a_circle_is_refused() -> None:
    probes = [
        Probe("a", print, after=("c",)),
        Probe("b", print, after=("a",)),
        Probe("c", print, after=("b:half",)),
        Probe("x", print, points=("b:half",)),
    ]
    check_schedule(probes)  # b:half is x's point: no circle
    circle = [*probes[:3], Probe("b2", print, points=("b:half",))]
    circle[1] = Probe("b", print, after=("a",), points=("b:half",))
    with pytest.raises(ScheduleError, match="waits, step by step, for itself"):
        check_schedule(circle[:3])

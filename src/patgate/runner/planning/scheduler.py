"""Running scenarios concurrently, serializing those that share a constraint.

Each scenario gets a :class:`Claim`, derived from its loaded model (never from its id):

- a scenario with control steps (they change users, roles, faults or the clock for every
  scenario), a bulk writer (it fills a user's cap of tokens) and, on a target patgate
  controls, a scenario that waits (the wait moves the deployment's clock) is *exclusive*:
  nothing overlaps it;
- a scenario that writes claims the principals it writes as (the target keys its steps send
  as bearer or basic credentials): creates and deletes by one principal share that user's
  cap of tokens, so two scenarios writing as the same principal never overlap;
- a read-only scenario claims nothing and runs beside anything but an exclusive one.

The :class:`Scheduler` hands scenarios to a pool of worker threads; a scenario starts when
its claim conflicts with no running scenario and with no scenario ahead of it in the
dispatch order that is still waiting (so the scenarios of one serialized group run in
their catalogue order, and an exclusive one is never starved). Results come back in the
catalogue's order, whichever finished first.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from patgate.runner.results.events import ScenarioFinished
from patgate.scenario.expressions import template_names
from patgate.scenario.model import Scenario
from patgate.target_contract import TARGET_KEYS

__all__ = [
    "Claim",
    "Scheduler",
    "claim_of",
    "dispatch_order",
]

_POLL = 0.2
"""Seconds the main thread waits for a worker at a time (a signal is handled in between)."""


@dataclass(frozen=True)
class Claim:
    """What a scenario must not share while it runs."""

    exclusive: bool = False
    """Nothing else may run beside it."""
    principals: frozenset[str] = frozenset()
    """Target keys it writes as: no other scenario writing as one of them may overlap."""
    why: str = "reads only"

    def conflicts(self, other: Claim) -> bool:
        """Whether the two scenarios may not overlap."""
        return self.exclusive or other.exclusive or bool(self.principals & other.principals)


def claim_of(scenario: Scenario, *, controlled: bool) -> Claim:
    """The claim of ``scenario``; ``controlled``: the target is one patgate controls (a
    wait step then moves its clock)."""
    if scenario.control:
        return Claim(exclusive=True, why="control steps change the deployment for everyone")
    if scenario.bulk:
        return Claim(exclusive=True, why="writes in bulk")
    if scenario.waits and controlled:
        return Claim(exclusive=True, why="a wait moves the deployment's clock")
    if not (scenario.writes or scenario.untracked_writes):
        return Claim()
    principals = frozenset(_credentials(scenario))
    if not principals:
        return Claim(exclusive=True, why="writes as a principal its steps do not name")
    return Claim(principals=principals, why=f"writes as {', '.join(sorted(principals))}")


def _credentials(scenario: Scenario) -> Iterator[str]:
    """The target keys the scenario's steps send as credentials."""
    for step in (*scenario.steps, *scenario.cleanup):
        for value in (step.bearer, step.basic, dict(step.headers)):
            for name in template_names(value):
                if name in TARGET_KEYS:
                    yield name


def dispatch_order(scenarios: Sequence[Scenario], claims: Sequence[Claim]) -> list[int]:
    """Indexes of ``scenarios`` in the order the scheduler offers them a worker: exclusive
    ones first, then writers (the serialized chains start early), then readers; each group
    in catalogue order."""

    def rank(index: int) -> tuple[int, int]:
        claim = claims[index]
        return (0 if claim.exclusive else 1 if claim.principals else 2), index

    return sorted(range(len(scenarios)), key=rank)


RunOne = Callable[[Scenario], ScenarioFinished]
"""Runs one scenario in a worker thread."""


class Scheduler:
    """Runs ``scenarios`` on ``workers`` threads under their claims.

    Iterate :meth:`results` for ``(scenario, result)`` in catalogue order. After an
    interrupt, :meth:`halt` stops handing out scenarios, waits for the running ones and
    returns the results not yet delivered. An exception in a worker (the target cannot be
    reached) stops the handing out too and is raised once the running ones are done.

    Only the thread that iterates hands out and collects; workers write their result under
    a lock. A signal may land in the iterating thread at any instant, so :meth:`halt` waits
    for every worker thread, whatever the bookkeeping says.
    """

    def __init__(
        self,
        scenarios: Sequence[Scenario],
        run_one: RunOne,
        *,
        workers: int,
        controlled: bool,
    ) -> None:
        self.scenarios = tuple(scenarios)
        self.claims = [claim_of(s, controlled=controlled) for s in self.scenarios]
        self._run_one = run_one
        self._workers = max(1, workers)
        self._waiting = dispatch_order(self.scenarios, self.claims)
        self._running: set[int] = set()
        """Handed out and not yet collected (the iterating thread's view)."""
        self._changed = threading.Condition()
        self._done: dict[int, ScenarioFinished | None] = {}
        """Written by the workers under ``_changed``: each scenario's result (``None``: it
        did not run)."""
        self._error: BaseException | None = None
        self._next = 0
        self._stopping = threading.Event()
        self._queue: queue.SimpleQueue[int | None] = queue.SimpleQueue()
        # The threads are listed before any starts: a signal landing while they start
        # cannot leave one running that :meth:`halt` would not wait for.
        self._threads = [
            threading.Thread(target=self._serve, name=f"patgate-scenario-{n}", daemon=True)
            for n in range(1, self._workers + 1)
        ]
        for thread in self._threads:
            thread.start()

    def results(self) -> Iterator[tuple[Scenario, ScenarioFinished]]:
        """Each scenario's result, in catalogue order, as soon as it and those before it
        are done."""
        try:
            while self._next < len(self.scenarios):
                self._collect()
                self._dispatch()
                with self._changed:
                    ready = self._next in self._done and self._next not in self._running
                    result = self._done.pop(self._next, None) if ready else None
                if ready:
                    index = self._next
                    self._next += 1
                    if result is not None:
                        yield self.scenarios[index], result
                    continue
                if self._error is not None and not self._running:
                    raise self._error
                self._wait(_POLL)
            if self._error is not None:
                raise self._error
        finally:
            if self._next >= len(self.scenarios) or self._error is not None:
                self._shutdown()

    def halt(self) -> list[tuple[Scenario, ScenarioFinished]]:
        """Start no more scenarios, wait for the running ones, and return the results not
        delivered yet, in catalogue order (scenarios never started have none)."""
        self._stopping.set()
        self._shutdown()
        with self._changed:
            ready = sorted(index for index in self._done if index >= self._next)
            found = [(self.scenarios[i], self._done.pop(i)) for i in ready]
        self._next = len(self.scenarios)
        self._running.clear()
        self._waiting.clear()
        return [(scenario, result) for scenario, result in found if result is not None]

    def _shutdown(self) -> None:
        """Let every worker thread end and wait for it, whatever signal comes meanwhile
        (a running scenario ends on its own: every request is bounded by its timeouts)."""
        if not self._threads:
            return
        told = 0
        while told < len(self._threads):
            try:
                self._queue.put(None)  # one "end" per thread; a spare one is harmless
                told += 1
            except KeyboardInterrupt:
                continue
        for thread in self._threads:
            while thread.is_alive():
                try:
                    thread.join()
                except KeyboardInterrupt:
                    continue
        self._threads = []

    # -- handing out ------------------------------------------------------------------------

    def _dispatch(self) -> None:
        if self._stopping.is_set() or self._error is not None:
            return
        running = [self.claims[index] for index in self._running]
        passed: list[Claim] = []
        for index in list(self._waiting):
            if len(self._running) >= self._workers:
                return
            claim = self.claims[index]
            if any(claim.conflicts(other) for other in (*running, *passed)):
                passed.append(claim)
                continue
            self._waiting.remove(index)
            self._running.add(index)
            running.append(claim)
            self._queue.put(index)

    def _serve(self) -> None:
        """A worker thread: run the scenarios handed out, until told to end."""
        while (index := self._queue.get()) is not None:
            self._work(index)

    def _work(self, index: int) -> None:
        result: ScenarioFinished | None = None
        error: BaseException | None = None
        try:
            if not self._stopping.is_set():
                result = self._run_one(self.scenarios[index])
        except BaseException as failure:  # raised again in the iterating thread
            error = failure
        with self._changed:
            self._done[index] = result
            if error is not None and self._error is None:
                self._error = error
            self._changed.notify_all()

    def _collect(self) -> None:
        """Forget the running scenarios that are done; after an error, hand out no more."""
        with self._changed:
            self._running -= self._done.keys()
        if self._error is not None:
            self._waiting.clear()

    def _wait(self, timeout: float) -> None:
        with self._changed:
            self._changed.wait_for(lambda: bool(self._running & self._done.keys()), timeout)
        self._collect()

"""Running scenarios concurrently, keeping apart those that would disturb each other.

Each scenario gets a :class:`Claim`, derived from its loaded model (never from its id):

- a writer claims *slots* of the principals it writes as (the target keys its writing
  steps send as credentials): as many as it may create tokens as that principal at most
  (each create step counts one). A principal holds at most :data:`PAT_CAP` PATs, so its
  *room* is the cap less the tokens the deployment lists for it before the run (its own
  token and any others its user holds; :data:`SLOTS` when they could not be counted), and
  writers run side by side while each principal's room suffices: every scenario's "fewer
  than N held" assumption then holds whatever runs beside it. A claim larger than the room
  runs as if it needed the principal alone (its own precondition then says it cannot run);
- a scenario that needs a principal *alone* (a cap probe: a bulk writer, or a create step
  repeated; a scenario that compares the length of a principal's listing) runs beside no
  other writer as that principal (readers and other principals' writers go on);
- control scenarios say what they change: a principal (removed, given another role) or
  the clock (moved, or, on a target patgate controls, waited on). One that changes a
  principal runs beside any scenario that neither uses nor changes that principal. Those
  that move the clock disturb everything: they form the *control phase*, offered first
  and run one after another while nothing else runs, so they stall the rest once, not
  once per control scenario;
- a writer whose writing steps name no principal is *exclusive*: nothing overlaps it;
- a read-only scenario claims nothing and runs beside any other of its phase.

The :class:`Scheduler` hands scenarios to a pool of worker threads; a scenario starts when
it fits beside the running scenarios and the ones ahead of it in the dispatch order that
still wait (their slots are reserved, so a large claim is never starved). Results come back
in the catalogue's order, whichever finished first.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from patgate.runner.custody.custodian import PAT_CAP
from patgate.runner.results.events import ScenarioFinished
from patgate.scenario.expressions import template_names
from patgate.scenario.model import ControlCall, GraphqlCall, HttpCall, Scenario, Step, WaitCall
from patgate.scenario.step_kinds import TOKEN_ENDPOINT
from patgate.scenario.writes import graphql_writes, method_writes
from patgate.service.target_contract import TARGET_KEYS

__all__ = [
    "CLOCK",
    "SLOTS",
    "Claim",
    "Room",
    "Scheduler",
    "claim_of",
    "dispatch_order",
    "fits",
    "room_of",
]

_POLL = 0.2
"""Seconds the main thread waits for a worker at a time (a signal is handled in between)."""

SLOTS = PAT_CAP - 1
"""A principal's room when its tokens could not be counted: the cap less the principal's own
token (every principal of a world holds one)."""
Room = Mapping[str, int]
"""Per principal (target key): the tokens the run's scenarios may hold at once as it."""
CLOCK = "clock"
"""What a control scenario changes when it moves the deployment's clock: everything."""
_USER_ACTIONS = ("remove_user", "restore_user", "set_role")
"""Control actions that change a principal (named by the argument, or its ``user``)."""


@dataclass(frozen=True)
class Claim:
    """What a scenario must not share while it runs."""

    exclusive: bool = False
    """Nothing else may run beside it."""
    slots: tuple[tuple[str, int], ...] = ()
    """``(target key, tokens)`` for each principal it writes as: the most tokens it may hold
    as that principal at once (0: it writes, deletes say, and creates nothing)."""
    alone_as: frozenset[str] = frozenset()
    """Principals it needs alone: no other writer as one of them may overlap."""
    control: bool = False
    """It has control steps, or a wait that moves the clock."""
    touches: frozenset[str] = frozenset()
    """What its control steps change: principals (target keys) and :data:`CLOCK`."""
    uses: frozenset[str] = frozenset()
    """The target keys its steps send as credentials."""
    why: str = "reads only"

    @property
    def principals(self) -> frozenset[str]:
        """The principals it writes as."""
        return frozenset(key for key, _ in self.slots) | self.alone_as

    def need(self, principal: str, room: Room | None = None) -> int:
        """Slots of ``principal`` it holds while it runs, out of the principal's room."""
        capacity = room_of(principal, room)
        if principal in self.alone_as:
            return capacity
        return min(capacity, dict(self.slots).get(principal, 0))

    def conflicts(self, other: Claim) -> bool:
        """Whether the two may never overlap, whatever else runs (the slots they need
        together are :func:`fits`'s to count)."""
        if self.exclusive or other.exclusive or CLOCK in self.touches | other.touches:
            return True
        if self.alone_as & other.principals or other.alone_as & self.principals:
            return True
        return bool(self.touches & other._footprint or other.touches & self._footprint)

    @property
    def _footprint(self) -> frozenset[str]:
        return self.uses | self.principals | self.touches


def room_of(principal: str, room: Room | None) -> int:
    """The slots ``principal`` has: its counted room, at least one (a principal with no
    room still runs its writers, one at a time: each scenario's precondition then says it
    cannot create), :data:`SLOTS` when uncounted."""
    counted = room.get(principal) if room is not None else None
    return SLOTS if counted is None else max(1, min(counted, PAT_CAP))


def fits(claim: Claim, beside: Iterable[Claim], room: Room | None = None) -> bool:
    """Whether ``claim`` may run beside ``beside`` (running, or reserved ahead of it): no
    conflict, and every principal's room enough for them all."""
    others = list(beside)
    if any(claim.conflicts(other) for other in others):
        return False
    return all(
        claim.need(key, room) + sum(other.need(key, room) for other in others) <= room_of(key, room)
        for key in claim.principals
    )


def claim_of(scenario: Scenario, *, controlled: bool) -> Claim:
    """The claim of ``scenario``; ``controlled``: the target is one patgate controls (a
    wait step then moves its clock)."""
    steps = (*scenario.steps, *scenario.cleanup)
    uses = frozenset(key for step in steps for key in (*_credentials(step), *_acts_as(step)))
    touches = frozenset(key for step in steps for key in _touched(step, controlled=controlled))
    control = bool(scenario.control or touches)
    slots: dict[str, int] = {}
    alone: set[str] = {
        key for step in steps if _counts_a_listing(step) for key in _credentials(step)
    }
    writer = scenario.writes or scenario.untracked_writes
    for step in steps if writer else ():
        writes, creates = _writes(step)
        if not writes:
            continue
        principals = _writer_keys(step)
        if not principals:
            return Claim(exclusive=True, why="writes as a principal its steps do not name")
        for key in principals:
            slots[key] = slots.get(key, 0) + (1 if creates else 0)
        if creates and (step.repeat is not None or step.for_each is not None):
            alone |= principals
    if scenario.bulk:
        alone |= set(slots)
    if scenario.bulk and not alone:
        return Claim(exclusive=True, why="writes in bulk as a principal its steps do not name")
    why = _why(slots, alone, control, touches)
    return Claim(
        slots=tuple(sorted((key, count) for key, count in slots.items() if key not in alone)),
        alone_as=frozenset(alone),
        control=control,
        touches=touches,
        uses=uses,
        why=why,
    )


def _why(slots: dict[str, int], alone: set[str], control: bool, touches: frozenset[str]) -> str:
    parts = []
    if control:
        changed = ", ".join(sorted(touches)) or "no principal"
        parts.append(f"control{' phase' if CLOCK in touches else ''}, changes {changed}")
    if alone:
        parts.append(f"alone as {', '.join(sorted(alone))}")
    shared = {key: count for key, count in slots.items() if key not in alone}
    if shared:
        parts.append(
            "writes as "
            + ", ".join(f"{key} ({count} slots)" for key, count in sorted(shared.items()))
        )
    return "; ".join(parts) or "reads only"


def _credentials(step: Step) -> Iterator[str]:
    """The target keys a step sends as credentials."""
    for value in (step.bearer, step.basic, dict(step.headers)):
        for name in template_names(value):
            if name in TARGET_KEYS:
                yield name


def _acts_as(step: Step) -> Iterator[str]:
    """The principal a control action acts as: an admin approves or rejects a request."""
    if isinstance(step.request, ControlCall) and step.request.action in ("approve", "reject"):
        yield "admin_token"


def _user_key(user: object) -> str | None:
    """The target key of a principal a control action names (``member`` -> ``member_token``),
    ``None`` when the name is computed."""
    if isinstance(user, str) and "${" not in user and f"{user}_token" in TARGET_KEYS:
        return f"{user}_token"
    return None


def _writes(step: Step) -> tuple[bool, bool]:
    """``(writes, creates)`` of one step, judged as the loader judges a scenario."""
    request = step.request
    if isinstance(request, GraphqlCall):
        if request.query is not None:
            mutation = graphql_writes(request.query)
            return mutation, mutation
        return request.operation in ("create_token", "delete_token"), (
            request.operation == "create_token"
        )
    if isinstance(request, HttpCall) and method_writes(request.method):
        return True, not TOKEN_ENDPOINT.fullmatch(request.url)
    if isinstance(request, ControlCall) and request.action == "request_token":
        return True, True
    return False, False


def _writer_keys(step: Step) -> set[str]:
    """The principals a writing step writes as (empty: it cannot be told)."""
    request = step.request
    if isinstance(request, ControlCall):
        argument = request.argument
        key = _user_key(argument.get("user") if isinstance(argument, dict) else None)
        return {key} if key else set()
    return set(_credentials(step))


def _touched(step: Step, *, controlled: bool) -> Iterator[str]:
    """What a step changes for every other scenario: a principal, or the clock."""
    request = step.request
    if isinstance(request, WaitCall):
        if controlled:
            yield CLOCK
        return
    if not isinstance(request, ControlCall):
        return
    if request.action in ("request_token", "approve", "reject"):
        return  # a token of its own, pending or decided: the slots count the request
    if request.action in _USER_ACTIONS:
        argument = request.argument
        user = argument.get("user") if isinstance(argument, dict) else argument
        key = _user_key(user)
        yield key if key else CLOCK  # a principal it cannot name: as wide as the clock
        return
    yield CLOCK  # the clock, or an action whose reach is not known


def _counts_a_listing(step: Step) -> bool:
    """Whether a step compares the length of a listing (another writer as the same
    principal would change it)."""
    return any(
        expectation.check == "length" or "length" in expectation.options
        for expectation in step.expect
    )


def dispatch_order(scenarios: Sequence[Scenario], claims: Sequence[Claim]) -> list[int]:
    """Indexes of ``scenarios`` in the order the scheduler offers them a worker: exclusive
    ones first, then the control phase (those moving the clock), control scenarios that
    change a principal (whatever uses it waits for them), the other control scenarios,
    writers that need a principal alone (the longest chains), the other writers, then
    readers; each group in catalogue order."""

    def rank(index: int) -> tuple[int, int]:
        claim = claims[index]
        if claim.exclusive:
            group = 0
        elif claim.control:
            group = 1 if CLOCK in claim.touches else 2 if claim.touches else 3
        elif claim.alone_as:
            group = 4
        elif claim.slots:
            group = 5
        else:
            group = 6
        return group, index

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
        room: Callable[[Sequence[Claim]], Room] | None = None,
    ) -> None:
        self.scenarios = tuple(scenarios)
        self.claims = [claim_of(s, controlled=controlled) for s in self.scenarios]
        self.room: Room = room(self.claims) if room is not None else {}
        """Each written principal's room, counted once before any scenario starts."""
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
            if not fits(claim, (*running, *passed), self.room):
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

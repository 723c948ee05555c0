"""Scenario items under pytest-xdist: workers that share one live target coordinate.

Under ``pytest -n N`` every worker process opens its own runner session on the target (its
own client, run id and ledger entries), so what ``patgate run``'s scheduler keeps apart
within one process (:func:`patgate.runner.planning.scheduler.claim_of`) is kept apart across
processes with file locks in a folder the controller makes for the session:

- an *exclusive* scenario, and every scenario of the control phase (control steps, a
  wait on a target patgate controls), holds the session's gate for writing: nothing runs
  beside it (the control phase is not gathered across processes);
- every other scenario holds the gate for reading (any number at once); a writer also holds
  each principal it writes as: for reading and as many of the principal's slot locks as it
  may hold tokens, or for writing when it needs the principal alone (a cap probe). A
  principal has as many slot locks as its *room*: the cap less the tokens the deployment
  listed for it when the first writer as it came (counted once per session, before any slot
  is taken, and kept in the lock folder for every worker). The slot locks are taken all at
  once or not at all (tried, let go, tried again), so two writers never wait on each other
  crosswise, and a principal's cap of tokens is never overrun by the workers together.

The locks come from ``filelock`` (SQLite reader/writer locks for the gate and each
principal, plain file locks for the slots). Each worker deletes what its own scenarios left
behind when it ends, and reports its run id and tallies to the controller; the controller
then reads the shared ledger, finishes whatever a worker left open (one that crashed, say)
and prints one merged ``patgate tokens: ...`` line; a token left behind fails the session,
as without xdist.

Against the embedded fake nothing is shared (each worker has a fake of its own), so no lock
is taken. Nothing here imports xdist: its hooks are declared optional.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from filelock import FileLock, ReadWriteLock

    from patgate.runner.planning.scheduler import Claim, Room
    from patgate.runner.results.events import Tallies

__all__ = [
    "ClaimLocks",
    "WorkerController",
    "register",
    "report",
    "worker_locks",
    "worker_run_id",
]

_LOCKS = "patgate_locks"
"""The ``workerinput`` key naming the session's lock folder."""
_SESSION = "patgate_session"
"""The ``workerinput`` key holding the session id every worker's run id starts with."""
_OUTPUT = "patgate"
"""The ``workeroutput`` key of what a worker reports (run id, ledger, tallies)."""


class ClaimLocks:
    """The cross-process locks of one session, in ``folder`` (shared by every worker)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._gate: ReadWriteLock | None = None
        self._principals: dict[str, ReadWriteLock] = {}
        self._slots: dict[tuple[str, int], FileLock] = {}

    def _gate_lock(self) -> ReadWriteLock:
        if self._gate is None:
            from filelock import ReadWriteLock

            self._gate = ReadWriteLock(self.folder / "gate.db", is_singleton=False)
        return self._gate

    def _principal_lock(self, key: str) -> ReadWriteLock:
        lock = self._principals.get(key)
        if lock is None:
            from filelock import ReadWriteLock

            path = self.folder / f"writes-as-{key}.db"
            lock = self._principals[key] = ReadWriteLock(path, is_singleton=False)
        return lock

    def _slot_lock(self, key: str, number: int) -> FileLock:
        lock = self._slots.get((key, number))
        if lock is None:
            from filelock import FileLock

            path = self.folder / f"slot-{key}-{number}.lock"
            lock = self._slots[(key, number)] = FileLock(path, is_singleton=False)
        return lock

    def room(self, key: str, count: Callable[[str], int | None]) -> Room:
        """The room of principal ``key`` for the whole session (``{}``: uncounted). The first
        worker to ask counts the principal's tokens (``count``), under a lock, before any
        worker has taken a slot of it; the others read what it wrote."""
        from filelock import FileLock

        from patgate.runner.custody.custodian import PAT_CAP

        path = self.folder / f"room-{key}.txt"
        with FileLock(self.folder / f"room-{key}.lock", is_singleton=False):
            if not path.exists():
                held = count(key)
                path.write_text("" if held is None else str(PAT_CAP - held), encoding="utf-8")
            text = path.read_text(encoding="utf-8").strip()
        return {key: int(text)} if text.lstrip("-").isdigit() else {}

    @contextlib.contextmanager
    def hold(
        self, claim: Claim, count: Callable[[str], int | None] | None = None
    ) -> Iterator[None]:
        """Wait until ``claim`` fits beside what runs in every worker, and hold it.
        ``count``: the tokens a principal (target key) holds on the deployment, asked once
        per principal and session to size its room."""
        room: dict[str, int] = {}
        if count is not None:
            for key in sorted(claim.principals):
                room.update(self.room(key, count))
        gate = self._gate_lock()
        with contextlib.ExitStack() as held:
            if claim.exclusive or claim.control:
                held.enter_context(gate.write_lock())
                yield
                return
            held.enter_context(gate.read_lock())
            for key in sorted(claim.principals):  # in name order: no crosswise wait
                lock = self._principal_lock(key)
                alone = key in claim.alone_as
                held.enter_context(lock.write_lock() if alone else lock.read_lock())
            wanted = {
                key: claim.need(key, room) for key in claim.principals if key not in claim.alone_as
            }
            held.enter_context(self._hold_slots(wanted, room))
            yield

    @contextlib.contextmanager
    def _hold_slots(self, wanted: dict[str, int], room: Room) -> Iterator[None]:
        """Take ``wanted[key]`` slot locks of each principal, all at once or none."""
        from patgate.runner.planning.scheduler import room_of

        slots = {key: room_of(key, room) for key in wanted}
        pause = 0.01
        while (taken := self._try_slots(wanted, slots)) is None:
            time.sleep(pause)
            pause = min(pause * 2, 0.2)
        try:
            yield
        finally:
            for lock in taken:
                lock.release()

    def _try_slots(self, wanted: dict[str, int], slots: Mapping[str, int]) -> list[FileLock] | None:
        """The slot locks ``wanted`` asks for, taken without waiting; ``None`` (and none
        kept) when another worker holds too many."""
        from filelock import Timeout

        taken: list[FileLock] = []
        for key, count in sorted(wanted.items()):
            got = 0
            for number in range(slots[key]):
                if got >= count:
                    break
                lock = self._slot_lock(key, number)
                try:
                    lock.acquire(timeout=0)
                except Timeout:
                    continue
                taken.append(lock)
                got += 1
            if got < count:
                for lock in taken:
                    lock.release()
                return None
        return taken

    def close(self) -> None:
        """Let go of the reader/writer locks' database connections."""
        for lock in (self._gate, *self._principals.values()):
            if lock is not None:
                lock.close()
        self._gate = None
        self._principals = {}


def worker_locks(config: pytest.Config) -> ClaimLocks | None:
    """The session's locks when ``config`` is an xdist worker's, else ``None``."""
    given = getattr(config, "workerinput", {}).get(_LOCKS)
    return ClaimLocks(Path(given)) if given else None


def worker_run_id(config: pytest.Config) -> str | None:
    """On an xdist worker, its run id: the session id and the worker's (``3f9a1c0b7egw0``),
    so that the controller finds every worker's entries in the ledger."""
    workerinput = getattr(config, "workerinput", {})
    session, worker = workerinput.get(_SESSION), workerinput.get("workerid")
    return f"{session}{worker}" if session and worker else None


def report(config: pytest.Config, run_id: str, ledger: Path | None, tallies: Tallies) -> None:
    """On an xdist worker, hand its run id, ledger and tallies to the controller."""
    output = getattr(config, "workeroutput", None)
    if output is not None:
        output[_OUTPUT] = {
            "run_id": run_id,
            "ledger": str(ledger) if ledger is not None else None,
            "tallies": dataclasses.asdict(tallies),
        }


class WorkerController:
    """The controller's side: hands the workers a lock folder and a session id, merges what
    they report, and checks (and finishes) the shared ledger once they are all down."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.session = uuid.uuid4().hex[:10]
        self._folder: Path | None = None
        self.reports: list[dict[str, Any]] = []
        self.tallies: Tallies | None = None
        self.problems: list[str] = []

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="patgate-locks-"))
        node.workerinput[_LOCKS] = str(self._folder)
        node.workerinput[_SESSION] = self.session

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        reported = getattr(node, "workeroutput", {}).get(_OUTPUT)
        if isinstance(reported, dict):
            self.reports.append(reported)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self._folder is None:
            return  # not run under xdist
        self.tallies = self._merge()
        if self.tallies is not None and self.tallies.left_behind and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for problem in self.problems:
            terminalreporter.write_line(f"patgate: {problem}")
        if self.tallies is not None:
            # Imported only then: the reporting modules (and the scenario loader and YAML
            # parser under them) are about 24 ms a session that ran no scenario need not pay.
            from patgate.reporting.summary import custody_line

            terminalreporter.write_line(f"patgate {custody_line(self.tallies)}")

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)

    # -- merging -----------------------------------------------------------------------------

    def _merge(self) -> Tallies | None:
        """The workers' tallies summed; the token counts come from the shared ledger, after
        whatever a worker left open there has been finished."""
        from patgate.runner.results.events import Tallies

        summed = Tallies()
        for reported in self.reports:
            summed = Tallies(
                *(
                    getattr(summed, field.name) + int(reported["tallies"].get(field.name, 0))
                    for field in dataclasses.fields(Tallies)
                )
            )
        ledgers = {r["ledger"] for r in self.reports if r.get("ledger")}
        if not self.reports:
            # Every worker went down without reporting: look where they would have written.
            ledgers = {str(path) for path in [self._ledger_path()] if path is not None}
        counted = False
        created = deleted = leaked = 0
        for path in sorted(ledgers):
            counts = self._settle(Path(path))
            if counts is None:
                continue
            counted = True
            created += counts["created"]
            deleted += counts["deleted"]
            leaked += counts["leaked"]
        if not self.reports and not counted:
            return None  # no worker ran a scenario item
        if counted:
            summed = dataclasses.replace(
                summed, tokens_created=created, tokens_deleted=deleted, tokens_leaked=leaked
            )
        return summed

    def _ledger_path(self) -> Path | None:
        """The ledger the workers used, worked out as they do (for workers that crashed
        before reporting); ``None`` when the session has no live target."""
        from patgate.errors import PatgateError
        from patgate.runner.connection.config import resolve_target_config
        from patgate.runner.session import ledger_path

        world = self.config.getoption("patgate_world", default=None)
        here = self.config.invocation_params.dir
        try:
            target = resolve_target_config(here / world if world else None, os.environ)
        except PatgateError:
            return None
        if target is None:
            return None
        given = self.config.getoption("patgate_ledger", default=None)
        return ledger_path(given, os.environ, live=True, base=here)

    def _settle(self, path: Path) -> dict[str, int] | None:
        """The counts of this session's runs in the ledger at ``path``, after finishing the
        entries a worker left open; ``None`` when the ledger holds none of them."""
        from patgate.errors import PatgateError
        from patgate.runner.custody.ledger import Ledger

        if not path.is_file():
            return None
        try:
            runs = [r for r in Ledger.load(path) if r.run_id.startswith(self.session)]
        except PatgateError as error:
            self.problems.append(str(error))
            return None
        if not runs:
            return None
        open_runs = [run for run in runs if run.outstanding()]
        if open_runs:
            self._finish(open_runs)
        totals = {"created": 0, "deleted": 0, "leaked": 0}
        for run in runs:
            counts = run.counts()
            for key in totals:
                totals[key] += counts[key]
        return totals

    def _finish(self, open_runs: list[Any]) -> None:
        """Delete what the workers left open, through one session of the controller's own."""
        from patgate.errors import PatgateError
        from patgate.runner import RunOptions
        from patgate.runner.connection.config import resolve_target_config
        from patgate.runner.session import open_session, target_for

        world = self.config.getoption("patgate_world", default=None)
        here = self.config.invocation_params.dir
        try:
            config = resolve_target_config(here / world if world else None, os.environ)
            if config is None:
                return
            with open_session(target_for(config), RunOptions()) as session:
                for ledger in open_runs:
                    custodian = session.context.custodian_for(ledger)
                    custodian.finish()
                    self.problems.extend(session.context.redact(p) for p in custodian.problems)
        except PatgateError as error:
            self.problems.append(f"could not finish the workers' tokens: {error}")


def register(config: pytest.Config) -> None:
    """On the controller of an xdist session (or any session that may become one), register
    the :class:`WorkerController`; on a worker, nothing."""
    if hasattr(config, "workerinput") or not config.pluginmanager.hasplugin("xdist"):
        return
    controller = WorkerController(config)
    config.pluginmanager.register(controller, "patgate-scenario-workers")

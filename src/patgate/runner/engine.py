"""The conformance run: scenarios in, events out.

:func:`run` yields :class:`RunStarted`, then ``ScenarioStarted`` / ``ScenarioFinished`` for
each scenario, then :class:`RunFinished` with the rule results, the ledger's tallies and the
exit code; before that, the run deletes whatever it created that is still there. Reporters
consume the events and never call back. A target that does not answer the run's first
request raises :class:`~patgate.errors.TargetUnreachable` (exit code 3).

:class:`ScenarioRunner` runs scenarios against one target (the pytest items use it, one at
a time); :func:`run` is built on it, one scenario at a time or, with ``concurrency`` above 1,
on the worker threads of a :class:`~patgate.runner.planning.scheduler.Scheduler`. Whether a scenario
can run at all on the target is :mod:`patgate.runner.planning.admission`'s question.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Generator, Sequence

from patgate.basics.levels import Level
from patgate.errors import PatgateError, RequestFailed, TargetUnreachable, UnexpectedAnswer
from patgate.guards.redaction import Redactor
from patgate.runner.connection.config import Target
from patgate.runner.context import RunContext, RunOptions
from patgate.runner.custody.custodian import PAT_CAP
from patgate.runner.execution.scenario_execution import ScenarioExecution
from patgate.runner.interruption import interrupt_name
from patgate.runner.planning.admission import is_inherent, key_costs, skip_reason
from patgate.runner.planning.scheduler import Claim, Room, Scheduler
from patgate.runner.results.events import (
    Event,
    Failure,
    Outcome,
    RuleResult,
    RunFinished,
    RunStarted,
    ScenarioFinished,
    ScenarioStarted,
    Tallies,
    WaiverNote,
)
from patgate.runner.results.outcomes import rule_results, run_exit_code, scenario_outcome
from patgate.scenario.catalogue import Catalogue, load_catalogue
from patgate.scenario.model import Scenario

__all__ = ["ScenarioRunner", "consume", "run", "run_session"]

_MAX_SETTLE = 5.0
"""Seconds the end of a run waits, at most, for an unanswered create to show in a listing."""
LOST_CLEANUP = 10.0
"""Seconds the cleanup of a run whose target stopped answering may take, at most."""
BECAME_UNREACHABLE = "target became unreachable"
"""The reason given for every scenario a lost target kept from running."""


class ScenarioRunner:
    """Runs scenarios against one target, sharing one client, one run id and one ledger.

    :meth:`run_scenario` may be called from several threads at once (the scheduler's
    workers): what the scenarios share is guarded by locks.

    ``completed`` holds the ids of the scenarios whose steps all ran. Call :meth:`close`
    when done (or use it as a context manager): it deletes whatever the run left behind.
    """

    def __init__(
        self,
        target: Target,
        options: RunOptions | None = None,
        *,
        catalogue: Catalogue | None = None,
        redactor: Redactor | None = None,
    ) -> None:
        self.options = options if options is not None else RunOptions()
        self.catalogue = catalogue if catalogue is not None else load_catalogue()
        self.context = RunContext(target, self.options, redactor=redactor)
        self.completed: set[str] = set()
        self._completing = threading.Lock()
        self.interrupted = ""
        """The signal that cut :meth:`finish` short, if one did (it then ran to the end)."""
        self.unreachable = ""
        """Why the target did not answer the run's first request, if it did not."""
        self._finished = False
        self._closed = False

    @property
    def run_id(self) -> str:
        """The id that names what this run creates."""
        return self.context.run_id

    def run_scenario(self, scenario: Scenario) -> ScenarioFinished:
        """Run one scenario (its cleanup included) and describe how it ended."""
        started = time.perf_counter()
        context = self.context
        if context.lost:
            return _skipped(scenario, f"not run: {BECAME_UNREACHABLE}")
        if context.halted:
            return _skipped(scenario, f"not run: the run was interrupted by {context.halt_reason}")
        try:
            reason = skip_reason(scenario, context)
        except (RequestFailed, UnexpectedAnswer) as error:
            # Finding the organization id went over the network and got no answer (or one of
            # the wrong shape): that fails the scenario, as it would fail one of its steps.
            return self._unanswered(scenario, error, time.perf_counter() - started)
        if reason:
            skipped = _skipped(scenario, context.redact(reason), time.perf_counter() - started)
            return dataclasses.replace(skipped, inherent=is_inherent(reason))
        execution = ScenarioExecution(context, scenario, self.catalogue)
        execution.run()
        checked = tuple(sorted(execution.held))
        if context.exchange.unreachable:
            context.lose(context.exchange.unreachable)
        if context.lost:
            # What failed after the target went away says nothing about its rules.
            why = f"{BECAME_UNREACHABLE} while it ran"
            return _skipped(scenario, why, time.perf_counter() - started, checked)
        if execution.cut:
            why = f"interrupted by {context.halt_reason} while it ran"
            return _skipped(scenario, why, time.perf_counter() - started, checked)
        if execution.completed:
            with self._completing:
                self.completed.add(scenario.id)
        excluded = self.options.excluded_rules
        failures = tuple(f for f in execution.failures if f.rule not in excluded)
        outcome = scenario_outcome(failures)
        if outcome is Outcome.PASSED and execution.skip_reason:
            outcome = Outcome.NOT_CHECKED
        result = ScenarioFinished(
            scenario.id,
            scenario.title,
            scenario.rules,
            outcome,
            time.perf_counter() - started,
            reason=context.redact(execution.skip_reason),
            failures=failures,
            source=scenario.location,
            checked=checked,
            steps=tuple(execution.step_times),
        )
        if self.options.waivers:
            # Said as the scenario ends, so the progress line agrees with the final report.
            from patgate.runner.results.waivers import active_rules, waive_scenario

            waived = active_rules(
                self.options.waivers,
                label=self.options.target_label,
                display=context.target.display,
            )
            result = waive_scenario(result, waived)
        return result

    def _unanswered(
        self, scenario: Scenario, error: RequestFailed | UnexpectedAnswer, duration: float
    ) -> ScenarioFinished:
        rule = scenario.rules[0]
        level = self.catalogue[rule].level if rule in self.catalogue else Level.GATE
        failure = Failure(
            rule,
            level,
            "find the organization id",
            self.context.redact(
                f"no answer while looking for the organization id: {error}"
                if isinstance(error, RequestFailed)
                else f"an answer while looking for the organization id: {error}"
            ),
        )
        return ScenarioFinished(
            scenario.id,
            scenario.title,
            scenario.rules,
            scenario_outcome((failure,)),
            duration,
            failures=(failure,),
            source=scenario.location,
        )

    def finish(self) -> Tallies:
        """Delete what the run left behind (once) and return its tallies.

        An interrupt that lands here is noted in :attr:`interrupted` and the cleanup starts
        over: the signal guard lets only the first signal through.
        """
        if not self._finished:
            self._finished = True
            custodian = self.context.custodian
            # A create that timed out may finish on the deployment up to a read timeout later.
            settle = min(self.options.read_timeout, _MAX_SETTLE)
            lost = bool(self.context.lost or self.unreachable)
            if lost:
                # Try, within a bounded time: what is not deleted stays in the ledger.
                self.context.exchange.cut_off(LOST_CLEANUP)
                settle = 0.0
            try:
                try:
                    custodian.finish(settle=settle)
                except KeyboardInterrupt as stop:
                    self.interrupted = interrupt_name(stop)
                    custodian.finish()
            except (TargetUnreachable, RequestFailed):
                if not lost:
                    raise
            except PatgateError:
                raise
            except Exception as error:  # the last-resort net: the tallies still come
                self.context.note_internal_error(error)
        return self.tallies()

    def tallies(self) -> Tallies:
        """Tokens created, deleted and leaked, deletes refused and retries, so far."""
        counts = self.context.ledger.counts()
        return Tallies(
            tokens_created=counts["created"],
            tokens_deleted=counts["deleted"],
            tokens_leaked=counts["leaked"],
            deletes_refused=counts["refused"],
            retries=self.context.retry.retries,
            wrong_ids=counts["wrong_ids"],
        )

    def close(self) -> None:
        """Finish (delete what is left), then close the run's HTTP client."""
        if self._closed:
            return
        self._closed = True
        try:
            self.finish()
        finally:
            self.context.close()

    def __enter__(self) -> ScenarioRunner:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _skipped(
    scenario: Scenario, reason: str, duration: float = 0.0, checked: tuple[str, ...] = ()
) -> ScenarioFinished:
    return ScenarioFinished(
        scenario.id,
        scenario.title,
        scenario.rules,
        Outcome.NOT_CHECKED,
        duration,
        reason=reason,
        source=scenario.location,
        checked=checked,
    )


def run(
    scenarios: Sequence[Scenario],
    target: Target,
    options: RunOptions | None = None,
    *,
    catalogue: Catalogue | None = None,
    redactor: Redactor | None = None,
) -> Generator[Event, None, None]:
    """Run ``scenarios`` in order against ``target``, yielding events as they happen.

    A ``KeyboardInterrupt`` (SIGINT, or SIGTERM under a
    :class:`~patgate.runner.interruption.SignalGuard`) stops the scenarios; the run still
    deletes what it created and ends with :class:`RunFinished` (``interrupted`` set, the
    scenarios not run skipped). Use :func:`consume` to feed reporters, so that an interrupt
    landing in a reporter reaches the run too.
    """
    runner = ScenarioRunner(target, options, catalogue=catalogue, redactor=redactor)
    yield from run_session(runner, scenarios)


def run_session(
    runner: ScenarioRunner, scenarios: Sequence[Scenario]
) -> Generator[Event, None, None]:
    """:func:`run` on a session already open (see :func:`patgate.runner.session.open_session`);
    the session is closed when the run ends.

    With ``options.concurrency`` above 1 the scenarios run on that many threads under the
    :mod:`~patgate.runner.planning.scheduler`'s constraints; the events come in the same order
    either way (each scenario's ``ScenarioStarted`` and ``ScenarioFinished`` in the order of
    ``scenarios``, once it and those before it are done).
    """
    started = time.perf_counter()
    finished: list[ScenarioFinished] = []
    try:
        interrupted = yield from _run_scenarios(runner, scenarios, finished)
        why = _why_not_run(runner, interrupted)
        if why:
            interrupted = yield from _not_run(scenarios, finished, why, interrupted)
        order = {scenario.id: index for index, scenario in enumerate(scenarios)}
        finished.sort(key=lambda result: order.get(result.scenario_id, len(order)))
        tallies = runner.finish()
        interrupted = interrupted or runner.interrupted
        rules, notes = _verdicts(runner, finished)
        context = runner.context
        options = runner.options
        yield RunFinished(
            run_id=runner.run_id,
            rules=rules,
            scenarios=tuple(finished),
            exit_code=run_exit_code(
                rules,
                tallies,
                strict=options.strict,
                interrupted=interrupted,
                require=options.require,
                unreachable=bool(runner.unreachable or context.lost),
                internal=bool(context.internal_errors),
            ),
            duration=time.perf_counter() - started,
            counts=_counts(finished),
            tallies=tallies,
            interrupted=interrupted,
            require=options.require,
            unreachable=runner.unreachable or context.lost,
            lost=bool(context.lost) and not runner.unreachable,
            waivers=notes,
            excluded_rules=tuple(sorted(options.excluded_rules)),
            excluded_scenarios=options.excluded_scenarios,
        )
    finally:
        runner.close()


def _run_scenarios(
    runner: ScenarioRunner, scenarios: Sequence[Scenario], finished: list[ScenarioFinished]
) -> Generator[Event, None, str]:
    """Announce the run and run its scenarios, one after the other or at once; the signal
    that interrupted it, if one did. A lost target or an internal error is noted on the
    runner, not raised."""
    target = runner.context.target
    try:
        keys, missing = key_costs(target, scenarios, runner.catalogue)
        yield RunStarted(
            runner.run_id,
            target.display,
            len(scenarios),
            keys,
            missing,
            runner.options.as_flags(),
        )
        if runner.options.concurrency > 1 and len(scenarios) > 1:
            return (yield from _concurrent(runner, scenarios, finished))
        return (yield from _sequential(runner, scenarios, finished))
    except KeyboardInterrupt as stop:
        return interrupt_name(stop)  # it landed before the first scenario
    except TargetUnreachable as error:
        runner.unreachable = runner.context.redact(str(error))
    except PatgateError:
        raise
    except Exception as error:  # the last-resort net: report, clean up, exit 5
        runner.context.note_internal_error(error)
    return ""


def _why_not_run(runner: ScenarioRunner, interrupted: str) -> str:
    """Why the scenarios that did not run did not (``""``: every one ran)."""
    if interrupted:
        return f"not run: the run was interrupted by {interrupted}"
    if runner.unreachable:
        return "not run: the target did not answer"  # why: in the run's verdict
    if runner.context.lost:
        return f"not run: {BECAME_UNREACHABLE}"
    if runner.context.internal_errors:
        return "not run: the run stopped on an internal error"
    return ""


def _not_run(
    scenarios: Sequence[Scenario], finished: list[ScenarioFinished], why: str, interrupted: str
) -> Generator[Event, None, str]:
    """Add every scenario not finished as skipped for ``why``; the signal that came."""
    done = {result.scenario_id for result in finished}
    rest = [_skipped(s, why) for s in scenarios if s.id not in done]
    finished.extend(rest)
    if interrupted:
        return interrupted  # after a signal, the run hurries to its cleanup
    # A lost or unreachable target: each scenario not run is shown as it is reported.
    try:
        for result in rest:
            yield ScenarioStarted(result.scenario_id, result.title, result.rules)
            yield result
    except KeyboardInterrupt as stop:
        return interrupt_name(stop)  # the run still cleans up and ends
    return ""


def _verdicts(
    runner: ScenarioRunner, finished: list[ScenarioFinished]
) -> tuple[tuple[RuleResult, ...], tuple[WaiverNote, ...]]:
    """Each rule's verdict from the scenarios, without the excluded rules, with the waivers
    applied (``finished`` takes the waived outcomes); the waivers' notes."""
    options = runner.options
    rules = rule_results(
        runner.catalogue, finished, runner.completed, every_rule=options.every_rule
    )
    rules = tuple(rule for rule in rules if rule.rule_id not in options.excluded_rules)
    if not options.waivers:
        return rules, ()
    from patgate.runner.results.waivers import apply_waivers

    rules, waived, notes = apply_waivers(
        options.waivers,
        rules,
        finished,
        label=options.target_label,
        display=runner.context.target.display,
    )
    finished[:] = waived
    return rules, notes


def _counts(finished: Sequence[ScenarioFinished]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for result in finished:
        counts[result.outcome.value] = counts.get(result.outcome.value, 0) + 1
    return counts


def _sequential(
    runner: ScenarioRunner, scenarios: Sequence[Scenario], finished: list[ScenarioFinished]
) -> Generator[Event, None, str]:
    """One scenario after the other, in this thread; returns the signal that stopped them."""
    current: Scenario | None = None
    try:
        for scenario in scenarios:
            current = scenario
            yield ScenarioStarted(scenario.id, scenario.title, scenario.rules)
            result = runner.run_scenario(scenario)
            finished.append(result)
            current = None
            yield result
            if runner.context.lost:
                break  # the rest are skipped: the target became unreachable
    except KeyboardInterrupt as stop:
        interrupted = interrupt_name(stop)
        if current is not None:
            cut = _skipped(current, f"interrupted by {interrupted} while it ran")
            finished.append(cut)
            yield cut
        return interrupted
    return ""


def _concurrent(
    runner: ScenarioRunner, scenarios: Sequence[Scenario], finished: list[ScenarioFinished]
) -> Generator[Event, None, str]:
    """The scenarios on worker threads; their events in catalogue order. A signal (it lands
    in this, the main thread) halts the run: no scenario starts, the running ones stop
    before their next step and clean up; returns the signal's name."""
    context = runner.context
    scheduler = Scheduler(
        scenarios,
        runner.run_scenario,
        workers=runner.options.concurrency,
        controlled=context.target.control is not None,
        room=lambda claims: _room(context, claims),
    )
    try:
        for scenario, result in scheduler.results():
            finished.append(result)
            yield ScenarioStarted(scenario.id, scenario.title, scenario.rules)
            yield result
            if context.lost:
                # Hand out no more; the running ones stop before their next step.
                for other, outcome in scheduler.halt():
                    finished.append(outcome)
                    yield ScenarioStarted(other.id, other.title, other.rules)
                    yield outcome
                break
    except KeyboardInterrupt as stop:
        interrupted = interrupt_name(stop)
        context.halt(interrupted)
        rest = scheduler.halt()
        finished.extend(result for _, result in rest)
        try:
            for scenario, result in rest:
                yield ScenarioStarted(scenario.id, scenario.title, scenario.rules)
                yield result
        except KeyboardInterrupt:
            pass  # a later signal: the reporters miss these events, the run still finishes
        return interrupted
    finally:
        # Closed early, or a worker failed: no scenario may still run when the cleanup does.
        scheduler.halt()
    return ""


def _room(context: RunContext, claims: Sequence[Claim]) -> Room:
    """Each principal the scenarios write as, and the tokens they may hold at once as it:
    the cap less what the deployment lists for it now (its user's own tokens count; a
    principal whose tokens cannot be listed is left to the scheduler's default). On a live
    target without --allow-writes nothing writes, so nothing is counted."""
    target = context.target
    if target.live and not context.options.allow_writes:
        return {}
    room: dict[str, int] = {}
    for key in sorted({key for claim in claims for key in claim.principals}):
        held = context.tokens_held(key)
        if held is not None:
            room[key] = PAT_CAP - held
    return room


def consume(
    events: Generator[Event, None, None], handle: Callable[[Event], None]
) -> RunFinished | None:
    """Pass every event of a :func:`run` to ``handle`` and return the :class:`RunFinished`.

    An interrupt raised while ``handle`` runs (a signal lands while a reporter writes) is
    thrown into the run, which cleans up and still finishes; it is raised again only if
    the run had already finished.
    """
    last: RunFinished | None = None
    pending: BaseException | None = None
    while True:
        try:
            event = events.throw(pending) if pending is not None else next(events)
        except StopIteration:
            return last
        pending = None
        if isinstance(event, RunFinished):
            last = event
        try:
            handle(event)
        except KeyboardInterrupt as stop:
            if last is not None:
                events.close()
                raise
            pending = stop

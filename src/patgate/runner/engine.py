"""The conformance run: scenarios in, events out.

:func:`run` yields :class:`RunStarted`, then ``ScenarioStarted`` / ``ScenarioFinished`` for
each scenario, then :class:`RunFinished` with the rule results and the exit code. Reporters
consume the events and never call back. A target that does not answer the run's first
request raises :class:`~patgate.errors.TargetUnreachable` (exit code 3).

:class:`ScenarioRunner` runs scenarios one at a time against one target (the pytest items
use it); :func:`run` is built on it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

from patgate.runner.context import RunContext, RunOptions
from patgate.runner.events import (
    Event,
    Outcome,
    RunFinished,
    RunStarted,
    ScenarioFinished,
    ScenarioStarted,
)
from patgate.runner.execution import ScenarioExecution
from patgate.runner.results import exit_code, rule_results, scenario_outcome
from patgate.runner.target import Target
from patgate.scenario.catalogue import Catalogue, load_catalogue
from patgate.scenario.model import Scenario

__all__ = ["ScenarioRunner", "run", "skip_reason"]


class ScenarioRunner:
    """Runs scenarios against one target, sharing one client and one run id.

    ``completed`` holds the ids of the scenarios whose steps all ran. Call :meth:`close`
    when done (or use it as a context manager).
    """

    def __init__(
        self,
        target: Target,
        options: RunOptions | None = None,
        *,
        catalogue: Catalogue | None = None,
    ) -> None:
        self.options = options if options is not None else RunOptions()
        self.catalogue = catalogue if catalogue is not None else load_catalogue()
        self.context = RunContext(target, self.options)
        self.completed: set[str] = set()

    @property
    def run_id(self) -> str:
        """The id that names what this run creates."""
        return self.context.run_id

    def run_scenario(self, scenario: Scenario) -> ScenarioFinished:
        """Run one scenario (its cleanup included) and describe how it ended."""
        started = time.perf_counter()
        context = self.context
        reason = skip_reason(scenario, context)
        if reason:
            return ScenarioFinished(
                scenario.id,
                scenario.title,
                scenario.rules,
                Outcome.SKIPPED,
                time.perf_counter() - started,
                reason=context.redact(reason),
                source=scenario.location,
            )
        execution = ScenarioExecution(context, scenario, self.catalogue)
        execution.run()
        if execution.completed:
            self.completed.add(scenario.id)
        failures = tuple(execution.failures)
        outcome = scenario_outcome(failures)
        if outcome is Outcome.PASSED and execution.skip_reason:
            outcome = Outcome.SKIPPED
        return ScenarioFinished(
            scenario.id,
            scenario.title,
            scenario.rules,
            outcome,
            time.perf_counter() - started,
            reason=context.redact(execution.skip_reason),
            failures=failures,
            source=scenario.location,
        )

    def close(self) -> None:
        """Close the run's HTTP client."""
        self.context.close()

    def __enter__(self) -> ScenarioRunner:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def run(
    scenarios: Sequence[Scenario],
    target: Target,
    options: RunOptions | None = None,
    *,
    catalogue: Catalogue | None = None,
) -> Iterator[Event]:
    """Run ``scenarios`` in order against ``target``, yielding events as they happen."""
    started = time.perf_counter()
    runner = ScenarioRunner(target, options, catalogue=catalogue)
    finished: list[ScenarioFinished] = []
    with runner:
        yield RunStarted(runner.run_id, target.display, len(scenarios))
        for scenario in scenarios:
            yield ScenarioStarted(scenario.id, scenario.title, scenario.rules)
            result = runner.run_scenario(scenario)
            finished.append(result)
            yield result
    rules = rule_results(
        runner.catalogue, finished, runner.completed, every_rule=runner.options.every_rule
    )
    counts: dict[str, int] = {}
    for result in finished:
        counts[result.outcome.value] = counts.get(result.outcome.value, 0) + 1
    yield RunFinished(
        run_id=runner.run_id,
        rules=rules,
        scenarios=tuple(finished),
        exit_code=exit_code(rules, strict=runner.options.strict),
        duration=time.perf_counter() - started,
        counts=counts,
    )


def skip_reason(scenario: Scenario, context: RunContext) -> str:
    """Why ``scenario`` cannot run on this target, or ``""``."""
    target = context.target
    if scenario.control and target.control is None:
        return "needs control of the deployment (runs against the embedded fake)"
    missing = [
        key
        for key in scenario.needs
        if key != "organization_id" and context.config.get(key) is None
    ]
    if missing:
        return f"needs {', '.join(missing)}"
    if scenario.writes and target.live and not context.options.allow_writes:
        return "writes to the deployment; run with --allow-writes"
    if "organization_id" in scenario.needs:
        organization, why = context.organization_id()
        if organization is None:
            return why
    return ""

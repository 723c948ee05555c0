"""Scenario files as pytest items: one item per scenario, validated at collection.

The pytest plugin calls :func:`add_options` and :func:`collect_file`. A YAML file is
collected when it lies in a folder named by ``--patgate-scenarios DIR`` or the ini option
``patgate_scenarios`` (and pytest visits it: put the folder among the test paths). Items run
against the embedded fake, or against a live target given by ``--patgate-world PATH`` or
``PATGATE_*`` variables. One target (and one client) serves every item of a session.

Every token the items create goes into a ledger (``--patgate-ledger``, ``PATGATE_LEDGER``,
default ``.patgate/ledger.jsonl`` on a live target; memory on the fake) and what is left
is deleted when the session ends; the counts are printed in the summary and a leak fails
the session. SIGTERM is turned into ``KeyboardInterrupt`` while items run (CI cancels jobs
with it, and pytest handles only SIGINT), so the cleanup happens then too. Failures and
errors are shown with every secret of the run redacted.

Only pytest is imported here; the scenario layer and the runner load when a file is
collected or an item runs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from patgate.fake.profile import Profile
    from patgate.plugin.scenario_workers import ClaimLocks
    from patgate.runner.engine import ScenarioRunner
    from patgate.runner.results.events import Failure, Tallies
    from patgate.scenario.model import Scenario

__all__ = ["ScenarioFile", "ScenarioItem", "add_options", "collect_file"]

_SUFFIXES = (".yaml", ".yml")
_RUNNER_KEY = pytest.StashKey["ScenarioRunner"]()
_LOCKS_KEY = pytest.StashKey["ClaimLocks | None"]()


def add_options(parser: pytest.Parser) -> None:
    """The command-line and ini options of scenario collection."""
    group = parser.getgroup("patgate", "patgate conformance scenarios")
    group.addoption(
        "--patgate-scenarios",
        action="append",
        default=[],
        metavar="DIR",
        help="collect the scenario files in DIR as tests (repeatable)",
    )
    group.addoption(
        "--patgate-world",
        metavar="PATH",
        help="run scenario items against the deployment in this target file "
        "(default: the embedded fake, unless PATGATE_* variables name a target)",
    )
    group.addoption(
        "--patgate-profile",
        metavar="PATH",
        help="the embedded fake's profile, as `patgate run --profile` (default: the ini "
        "option patgate_profile, else the default profile); the gate checks only "
        "documented rules, so the scenarios pass under any",
    )
    group.addoption(
        "--patgate-allow-writes",
        action="store_true",
        help="on a live target, run scenarios that create and delete tokens",
    )
    group.addoption(
        "--patgate-ledger",
        metavar="PATH",
        help="where live items write down every token they create "
        "(default: PATGATE_LEDGER, else .patgate/ledger.jsonl)",
    )
    group.addoption(
        "--patgate-max-wait",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="longest real wait a live scenario may take (default 0)",
    )
    group.addoption(
        "--patgate-strict-advisory",
        action="store_true",
        help="a failed advisory rule fails the item (like patgate run --strict)",
    )
    parser.addini(
        "patgate_scenarios",
        type="paths",
        default=[],
        help="folders whose scenario files are collected as tests",
    )


def _scenario_dirs(config: pytest.Config) -> list[Path]:
    here = config.invocation_params.dir
    given = [here / d for d in config.getoption("patgate_scenarios", default=None) or []]
    return [Path(d).resolve() for d in [*given, *config.getini("patgate_scenarios")]]


def collect_file(file_path: Path, parent: pytest.Collector) -> pytest.File | None:
    """A :class:`ScenarioFile` for a YAML file inside a scenario folder, else ``None``."""
    if file_path.suffix not in _SUFFIXES:
        return None
    resolved = file_path.resolve()
    if not any(resolved.is_relative_to(folder) for folder in _scenario_dirs(parent.config)):
        return None
    return ScenarioFile.from_parent(parent, path=file_path)


class ScenarioFile(pytest.File):
    """A scenario file; a file that does not validate is a collection error naming file:line."""

    def collect(self) -> Iterator[pytest.Item]:
        """One item per scenario of the file."""
        from patgate.errors import ScenarioError
        from patgate.scenario import load_file

        try:
            loaded = load_file(self.path)
        except ScenarioError as error:
            raise self.CollectError(str(error)) from None
        for scenario in loaded.scenarios:
            yield ScenarioItem.from_parent(self, name=scenario.id, scenario=scenario)


class ScenarioItem(pytest.Item):
    """One scenario, run against the session's target."""

    def __init__(self, *, scenario: Scenario, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario

    def runtest(self) -> None:
        """Run the scenario; gate failures (all failures when strict) fail the item."""
        from patgate.basics.levels import Level
        from patgate.errors import CheckFailure
        from patgate.runner.results.events import Outcome

        runner = _runner(self.config)
        locks: ClaimLocks | None = self.config.stash.get(_LOCKS_KEY, None)
        if locks is None:
            result = runner.run_scenario(self.scenario)
        else:
            # Under pytest-xdist on a live target: what may not overlap waits for the
            # other workers' scenarios, as patgate run's scheduler keeps its threads apart.
            from patgate.runner.planning.scheduler import claim_of

            context = runner.context
            controlled = context.target.control is not None
            claim = claim_of(self.scenario, controlled=controlled)
            writes = context.options.allow_writes or not context.target.live
            with locks.hold(claim, context.tokens_held if writes else None):
                result = runner.run_scenario(self.scenario)
        if runner.context.lost:
            # Not a skip: a target that stopped answering checked nothing, and says so.
            from patgate.errors import TargetUnreachable

            why = result.reason or "the target became unreachable"
            raise TargetUnreachable(f"{why} ({runner.context.lost})")
        strict = bool(self.config.getoption("patgate_strict_advisory", default=False))
        failing = [f for f in result.failures if strict or f.level is Level.GATE]
        warned = [f for f in result.failures if f not in failing]
        if warned:
            self.add_report_section(
                "call", "patgate advisory", "\n\n".join(_describe(f) for f in warned)
            )
        if failing:
            first = failing[0]
            raise CheckFailure(
                "\n\n".join(_describe(f) for f in failing),
                rule=first.rule,
                title=runner.catalogue[first.rule].title if first.rule in runner.catalogue else "",
                expected=first.expected,
                actual=first.actual,
            )
        if result.outcome is Outcome.NOT_CHECKED:
            pytest.skip(result.reason)

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> Any:
        """The rule, step, expectation and answer of a check failure, without a traceback;
        patgate's own errors (a bad target file, an unreachable target) as their message;
        any other error as pytest shows it. Every secret of the run is redacted from all."""
        from patgate.errors import CheckFailure, PatgateError

        runner = self.config.stash.get(_RUNNER_KEY, None)
        if isinstance(excinfo.value, CheckFailure):
            header = (
                f"scenario {self.scenario.id} ({self.scenario.location}): {self.scenario.title}"
            )
            text = f"{header}\n\n{excinfo.value}"
        elif isinstance(excinfo.value, PatgateError):
            text = f"patgate: {excinfo.value}"
        else:
            text = str(super().repr_failure(excinfo, style))
        return runner.context.redact(text) if runner is not None else text

    def reportinfo(self) -> tuple[Path, int, str]:
        """Where the scenario is, for pytest's report lines."""
        return self.path, max(self.scenario.line - 1, 0), f"scenario {self.scenario.id}"


def _describe(failure: Failure) -> str:
    lines = [
        f"{failure.rule} ({failure.level}) failed",
        f"  step:     {failure.step}",
        f"  problem:  {failure.message}",
    ]
    if failure.expected:
        lines.append(f"  expected: {failure.expected}")
    if failure.actual:
        lines.append(f"  actual:   {failure.actual}")
    return "\n".join(lines)


class _SessionCustody:
    """Ends the session's run: deletes what is left, prints the counts, fails on a leak."""

    def __init__(self, runner: ScenarioRunner) -> None:
        self.runner = runner
        self.tallies: Tallies | None = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        from patgate.plugin.scenario_workers import report

        self.tallies = self.runner.finish()
        # On a pytest-xdist worker the controller merges the tallies and prints them.
        report(session.config, self.runner.run_id, self.runner.options.ledger_path, self.tallies)
        if self.tallies.left_behind and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        from patgate.reporting.summary import custody_line

        if self.tallies is not None:
            terminalreporter.write_line(f"patgate {custody_line(self.tallies)}")


def _profile(config: pytest.Config) -> Profile | None:
    """The embedded fake's profile: ``--patgate-profile``, else the ini option
    ``patgate_profile`` (registered by the plugin, the fixture's too), else ``profile`` of
    ``[tool.patgate]`` (or ``[tool.patgate.run]``), else ``None``."""
    from patgate.fake.profile import load_profile

    given = config.getoption("patgate_profile", default=None)
    if given:
        return load_profile(config.invocation_params.dir / given)
    try:
        configured = config.getini("patgate_profile")
    except ValueError:  # the plugin is not loaded: no such ini option
        return None
    if configured:
        return load_profile(config.rootpath / configured)
    from patgate.guards.project_file import configured as project_setting

    found = project_setting(config.rootpath, "run", "profile")  # [tool.patgate]
    return load_profile(Path(found)) if found else None


def _runner(config: pytest.Config) -> ScenarioRunner:
    """The session's runner, made at the first item: the embedded fake or a live target."""
    existing = config.stash.get(_RUNNER_KEY, None)
    if existing is not None:
        return existing
    import signal

    from patgate.plugin.scenario_workers import worker_locks, worker_run_id
    from patgate.runner import RunOptions
    from patgate.runner.connection.config import resolve_target_config
    from patgate.runner.interruption import SignalGuard
    from patgate.runner.session import ledger_path, open_session, target_for

    world = config.getoption("patgate_world", default=None)
    here = config.invocation_params.dir
    live = resolve_target_config(here / world if world else None, os.environ)
    if live is not None and config.getoption("patgate_profile", default=None):
        from patgate.errors import UsageError

        raise UsageError(
            "--patgate-profile shapes the embedded fake; these items have a live target"
        )
    target = target_for(live, _profile(config) if live is None else None)
    given = config.getoption("patgate_ledger", default=None)
    options = RunOptions(
        allow_writes=bool(config.getoption("patgate_allow_writes", default=False)),
        max_wait=float(config.getoption("patgate_max_wait", default=0.0)),
        strict=bool(config.getoption("patgate_strict_advisory", default=False)),
        ledger_path=ledger_path(given, os.environ, live=target.live, base=here),
        run_id=worker_run_id(config),
    )
    runner = open_session(target, options)
    config.stash[_RUNNER_KEY] = runner
    # Workers of one pytest-xdist session share a live target (each has a fake of its own).
    locks = worker_locks(config) if target.live else None
    config.stash[_LOCKS_KEY] = locks
    if locks is not None:
        config.add_cleanup(locks.close)
    # Cleanups run last registered first: the runner closes before the guard goes.
    guard = SignalGuard((signal.SIGTERM,)).install()
    config.add_cleanup(guard.restore)
    config.add_cleanup(runner.close)
    custody = _SessionCustody(runner)
    config.pluginmanager.register(custody, "patgate-scenario-custody")
    config.add_cleanup(lambda: config.pluginmanager.unregister(custody))
    return runner

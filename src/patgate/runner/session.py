"""The one way to open a runner session: ``patgate run``, ``cleanup``, ``fuzz`` and the
pytest items all call :func:`open_session`.

A session is a :class:`~patgate.runner.engine.ScenarioRunner`: one target (the embedded fake
when no key names a live one), one HTTP client, one run id, one ledger and its custodian,
one redactor. Closing it deletes whatever the run created and left behind.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from patgate.errors import UsageError

if TYPE_CHECKING:
    from patgate.fake.profile import Profile
    from patgate.guards.redaction import Redactor
    from patgate.runner.connection.config import Target, TargetConfig
    from patgate.runner.context import RunOptions
    from patgate.runner.engine import ScenarioRunner
    from patgate.scenario.catalogue import Catalogue

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_LEDGER",
    "MAX_CONCURRENCY",
    "ledger_path",
    "open_session",
    "target_for",
    "target_redactor",
]

DEFAULT_CONCURRENCY = 4
"""Scenarios ``patgate run`` runs at once unless ``--concurrency`` says otherwise."""
MAX_CONCURRENCY = 64
"""The most ``--concurrency`` allows (each scenario at once holds a connection and a thread)."""

DEFAULT_LEDGER = Path(".patgate") / "ledger.jsonl"
"""Where a live run's ledger goes unless ``--ledger`` or ``PATGATE_LEDGER`` says otherwise."""


def ledger_path(
    given: Path | str | None,
    environ: Mapping[str, str],
    *,
    live: bool,
    base: Path | None = None,
) -> Path | None:
    """The ledger file: ``given``, else ``PATGATE_LEDGER``, else :data:`DEFAULT_LEDGER` on a
    live target; ``None`` (memory) on the embedded fake unless one was given. A relative
    path is taken from ``base`` when one is given (pytest's invocation folder)."""
    chosen: Path | None
    if given:
        chosen = Path(given)
    elif environ.get("PATGATE_LEDGER"):
        chosen = Path(environ["PATGATE_LEDGER"])
    else:
        chosen = DEFAULT_LEDGER if live else None
    if chosen is not None and base is not None:
        chosen = base / chosen
    return chosen


def target_for(config: TargetConfig | None, profile: Profile | None = None) -> Target:
    """The embedded fake (answering by ``profile``, else the default) when ``config`` is
    ``None``, else the live target it describes (a profile then is a usage error)."""
    if config is None:
        from patgate.runner.connection.fake import FakeTarget

        if profile is None:
            return FakeTarget()
        from patgate.harness import Fake

        return FakeTarget(Fake(profile=profile))
    if profile is not None:
        raise UsageError("a profile shapes the embedded fake; this target is a live one")
    from patgate.runner.connection.config import LiveTarget

    return LiveTarget(config)


def target_redactor(config: TargetConfig | None) -> Redactor:
    """A redactor that knows the target's secrets (and learns the run's as it goes): the
    config's own (:meth:`TargetConfig.redactor`), or one of the default PAT prefix for the
    embedded fake."""
    if config is not None:
        return config.redactor()
    from patgate.guards.redaction import Redactor

    return Redactor()


def open_session(
    target: Target | TargetConfig | None,
    options: RunOptions,
    *,
    catalogue: Catalogue | None = None,
    redactor: Redactor | None = None,
) -> ScenarioRunner:
    """A runner session on ``target`` (a target, the config of a live one, or ``None`` for
    the embedded fake). Use it as a context manager, or call ``close()``."""
    from patgate.runner.connection.config import TargetConfig
    from patgate.runner.engine import ScenarioRunner

    if target is None or isinstance(target, TargetConfig):
        target = target_for(target)
    return ScenarioRunner(target, options, catalogue=catalogue, redactor=redactor)

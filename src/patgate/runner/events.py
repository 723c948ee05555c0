"""What the runner emits while it runs. Reporters consume these and nothing else.

Every value in an event is already redacted: a reporter may print any field as it is.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

__all__ = [
    "RUN_TALLIES",
    "Event",
    "Failure",
    "Outcome",
    "RuleResult",
    "RunFinished",
    "RunStarted",
    "ScenarioFinished",
    "ScenarioStarted",
]


RUN_TALLIES: tuple[str, ...] = (
    "tokens_created",
    "tokens_deleted",
    "tokens_leaked",
    "deletes_refused",
    "retries",
)
"""Keys :class:`RunFinished` ``counts`` carries beside the outcomes: what the run's ledger
created, deleted and left behind, the deletes it refused (ids it did not create), and the
requests it resent after a 429 or 503."""


class Outcome(str, enum.Enum):
    PASSED = "passed"
    FAILED = "failed"
    """A gate rule failed."""
    WARNING = "warning"
    """Only advisory rules failed."""
    SKIPPED = "skipped"
    """Not run; ``reason`` says why (a missing target key, writes not allowed, ...)."""


@dataclass(frozen=True)
class Failure:
    """One failed check: which rule, at which step, what was expected and what came back."""

    rule: str
    level: str
    step: str
    message: str
    expected: str = ""
    actual: str = ""


@dataclass(frozen=True)
class RunStarted:
    run_id: str
    target: str
    """A display name: ``embedded fake`` or the target's base URL."""
    scenario_count: int


@dataclass(frozen=True)
class ScenarioStarted:
    scenario_id: str
    title: str
    rules: tuple[str, ...]


@dataclass(frozen=True)
class ScenarioFinished:
    scenario_id: str
    title: str
    rules: tuple[str, ...]
    outcome: Outcome
    duration: float
    reason: str = ""
    failures: tuple[Failure, ...] = ()
    source: str = ""
    """``path:line`` of the scenario."""


@dataclass(frozen=True)
class RuleResult:
    rule_id: str
    title: str
    level: str
    outcome: Outcome
    scenarios: tuple[str, ...]
    reason: str = ""


@dataclass(frozen=True)
class RunFinished:
    run_id: str
    rules: tuple[RuleResult, ...]
    scenarios: tuple[ScenarioFinished, ...]
    exit_code: int
    duration: float
    counts: dict[str, int] = field(default_factory=dict)
    """Outcome value -> number of scenarios; then the run's own tallies (see
    :data:`RUN_TALLIES`): tokens created, deleted and leaked, deletes refused, retries."""
    interrupted: str = ""
    """``SIGINT`` or ``SIGTERM`` when a signal stopped the run before its last scenario."""


Event = RunStarted | ScenarioStarted | ScenarioFinished | RunFinished

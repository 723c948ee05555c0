"""What the runner emits while it runs. Reporters consume these and nothing else.

Every value in an event is already redacted: a reporter may print any field as it is.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from patgate.basics.levels import Level

__all__ = [
    "CANNOT_BE_CHECKED",
    "OUTCOME_WORDS",
    "Event",
    "Exchange",
    "Failure",
    "Outcome",
    "OutcomeWords",
    "RuleResult",
    "RunFinished",
    "RunStarted",
    "ScenarioFinished",
    "ScenarioStarted",
    "StepTime",
    "Tallies",
    "Targets",
    "WaiverNote",
]


@dataclass(frozen=True)
class Tallies:
    """What the run's ledger created, deleted and left behind, the deletes it refused (ids
    it did not create), and the requests it resent after a 429 or 503."""

    tokens_created: int = 0
    tokens_deleted: int = 0
    tokens_leaked: int = 0
    deletes_refused: int = 0
    retries: int = 0
    wrong_ids: int = 0
    """Creates answered with an id a listing did not show as the run's new token (a token
    that already existed, or none): each a finding, the id left alone, never deleted."""

    @property
    def left_behind(self) -> bool:
        """A token may be left on the target, or a delete was refused: the run fails."""
        return bool(self.tokens_leaked or self.deletes_refused)

    def as_counts(self) -> Mapping[str, int]:
        """The tallies by name, as the JSON report's ``counts`` carries them."""
        return {
            "tokens_created": self.tokens_created,
            "tokens_deleted": self.tokens_deleted,
            "tokens_leaked": self.tokens_leaked,
            "deletes_refused": self.deletes_refused,
            "retries": self.retries,
            "wrong_ids": self.wrong_ids,
        }


class Outcome(str, enum.Enum):
    """The verdict on a scenario or a rule; its value is what the JSON report carries, and
    :data:`OUTCOME_WORDS` holds the words every other report shows for it."""

    PASSED = "passed"
    FAILED = "failed"
    """A gate rule failed."""
    WARNING = "warning"
    """Only advisory rules failed."""
    NOT_CHECKED = "not_checked"
    """Not run, or none of its expectations ran; ``reason`` says why (a missing target key,
    writes not allowed, ...), starting with :data:`CANNOT_BE_CHECKED` when the target's
    nature is why."""
    WAIVED = "waived"
    """A gate rule failed, and a waiver that has not expired accepts it (``--waivers``)."""


@dataclass(frozen=True)
class OutcomeWords:
    """How reports name one outcome to a person."""

    word: str
    """``not checked``: one of them."""
    plural: str
    """``advisory warnings``: several of them (after a count)."""

    def counted(self, number: int) -> str:
        """``2 advisory warnings``, ``1 not checked``."""
        return f"{number} {self.word if number == 1 else self.plural}"


OUTCOME_WORDS: Mapping[Outcome, OutcomeWords] = {
    Outcome.PASSED: OutcomeWords("passed", "passed"),
    Outcome.FAILED: OutcomeWords("failed", "failed"),
    Outcome.WAIVED: OutcomeWords("waived", "waived"),
    Outcome.WARNING: OutcomeWords("advisory warning", "advisory warnings"),
    Outcome.NOT_CHECKED: OutcomeWords("not checked", "not checked"),
}
"""The one vocabulary of outcomes, one entry per name: the terminal, JUnit, HTML and the
step summary (and the documentation) say these words; the JSON report carries the
:class:`Outcome` values (``not_checked``; ``warning`` for an advisory warning)."""

CANNOT_BE_CHECKED = "cannot be checked on this target"
"""The reason that starts every "not checked" caused by what the target is (no control of
the deployment, a live deployment), as opposed to a reason the user can remove (no
``--allow-writes``, a missing key, a wait over ``--max-wait``)."""


@dataclass(frozen=True)
class Exchange:
    """The request a failing step sent and the answer it got, redacted, bodies shortened."""

    method: str
    url: str
    request_headers: tuple[tuple[str, str], ...] = ()
    request_body: str = ""
    status: int = 0
    response_headers: tuple[tuple[str, str], ...] = ()
    response_body: str = ""


@dataclass(frozen=True)
class Failure:
    """One failed check: which rule, at which step, what was expected and what came back."""

    rule: str
    level: Level
    step: str
    message: str
    expected: str = ""
    actual: str = ""
    line: int = field(default=0, compare=False)
    """The line of the failing step in the scenario file (0: not known)."""
    exchange: Exchange | None = field(default=None, compare=False, repr=False)
    """What the failing step sent and got back, when it was an HTTP request."""
    clause: str = field(default="", compare=False)
    """The documented clause (or convention) the rule holds the target to, quoted."""

    def __post_init__(self) -> None:
        # A level given as its text ("gate") is taken as the enum member.
        object.__setattr__(self, "level", Level(self.level))


@dataclass(frozen=True)
class WaiverNote:
    """What a report says about one waiver of the run's target."""

    rule: str
    reason: str
    expires: str
    """The last day it applies (ISO date)."""
    state: str
    """``applied`` (the rule failed and is waived), ``expired`` (past its date: it no longer
    applies) or ``stale`` (the rule did not fail: the waiver can go)."""
    source: str = ""
    """``path:line`` of the waiver."""
    target: str = ""


@dataclass(frozen=True)
class Targets:
    """Sent once before the first run when one ``patgate run`` checks several targets in
    turn: the labels (the ``--world`` files) in the order given."""

    labels: tuple[str, ...]


@dataclass(frozen=True)
class RunStarted:
    run_id: str
    target: str
    """A display name: ``embedded fake`` or the target's base URL."""
    scenario_count: int
    keys: tuple[str, ...] = ()
    """The target keys found (defaults included), never their values."""
    missing: tuple[tuple[str, str], ...] = ()
    """``(key, what its absence costs)`` for each target key the run lacks."""
    flags: tuple[str, ...] = ()
    """The run's options as flags (``--allow-writes``, ``--concurrency 4``, ...)."""


@dataclass(frozen=True)
class ScenarioStarted:
    scenario_id: str
    title: str
    rules: tuple[str, ...]


@dataclass(frozen=True)
class StepTime:
    """How long one step of a scenario took (its repeats and retries included)."""

    name: str
    line: int
    seconds: float
    cleanup: bool = False


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
    checked: tuple[str, ...] = ()
    """Rules with at least one expectation that ran and held in this scenario."""
    inherent: bool = False
    """Skipped for what the target is (no control plane), not for a reason the user can
    remove (``--allow-writes``, a missing key, ``--max-wait``)."""
    steps: tuple[StepTime, ...] = field(default=(), compare=False, repr=False)
    """Each step that ran, with its time (``patgate run --durations``); not compared: two
    runs with the same results are equal whatever their timings."""


@dataclass(frozen=True)
class RuleResult:
    rule_id: str
    title: str
    level: Level
    outcome: Outcome
    scenarios: tuple[str, ...]
    reason: str = ""
    inherent: bool = False
    """Not checked because this target cannot check it (every scenario covering it needs
    a control plane, or none covers it): ``--require checkable`` lists it, not counts it."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "level", Level(self.level))


@dataclass(frozen=True)
class RunFinished:
    run_id: str
    rules: tuple[RuleResult, ...]
    scenarios: tuple[ScenarioFinished, ...]
    exit_code: int
    duration: float
    counts: dict[str, int] = field(default_factory=dict)
    """Outcome value -> number of scenarios."""
    tallies: Tallies | None = None
    """The ledger's tallies; ``None`` when the run kept no ledger (a report built by hand)."""
    interrupted: str = ""
    """``SIGINT`` or ``SIGTERM`` when a signal stopped the run before its last scenario."""
    require: tuple[str, ...] = ()
    """The gate rules ``--require`` named (``all``: every one in scope)."""
    unreachable: str = ""
    """Why the target could not be reached (exit code 3): it did not answer the run's first
    request, or (``lost``) it stopped answering mid-run."""
    lost: bool = False
    """The target answered at first, then became unreachable: the scenarios not reached are
    skipped, the cleanup was tried within a bounded time."""
    waivers: tuple[WaiverNote, ...] = ()
    """The waivers of this target: applied, expired or stale."""
    excluded_rules: tuple[str, ...] = ()
    """Rules ``--exclude-rule`` left out of the run."""
    excluded_scenarios: tuple[str, ...] = ()
    """Scenarios ``--exclude-scenario`` (or ``--exclude-rule``) left out of the run."""


Event = Targets | RunStarted | ScenarioStarted | ScenarioFinished | RunFinished

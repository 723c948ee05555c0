"""The scenario format as typed, frozen values: what the loader builds and the runner reads.

Values that may hold ``${name}`` references (templates) are kept as written; the runner
substitutes them when the step runs. Nothing downstream of the loader sees raw YAML.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from patgate.service.target_contract import TARGET_KEYS

__all__ = [
    "BUILTIN_NAMES",
    "GRAPHQL_OPERATIONS",
    "PRINCIPALS",
    "TARGET_KEYS",
    "Capture",
    "ControlCall",
    "Expectation",
    "GraphqlCall",
    "HttpCall",
    "HubsCall",
    "Request",
    "Scenario",
    "Step",
    "TokenCall",
    "WaitCall",
]


BUILTIN_NAMES: tuple[str, ...] = (
    "run_id",
    "new_name",
    "random_pat",
    "missing_id",
    "index",
    "item",
)
"""Names the runner provides: the run's id, a fresh ``patgate-<run id>-<n>`` name, a
well-formed PAT nobody holds, a token id nobody holds (the one id besides the run's own
that a delete may name), and the loop variables of ``repeat`` and ``for_each``."""

GRAPHQL_OPERATIONS: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "viewer": ((), ()),
    "organizations": ((), ()),
    "create_token": (("name",), ("organization_id",)),
    "delete_token": (("id",), ()),
}
"""Named GraphQL operations: (required args, optional args)."""

PRINCIPALS: tuple[str, ...] = ("admin", "member", "removed", "unpermitted")
"""Who a control step may act on: the owner of ``<principal>_token``."""


@dataclass(frozen=True)
class Expectation:
    """One check on a response: the registry name, its argument and options, the rule."""

    check: str
    argument: Any
    options: Mapping[str, Any]
    rule: str
    line: int

    @property
    def label(self) -> str:
        """The expectation as written, for messages: ``status: 4xx``."""
        return f"{self.check}: {_short(self.argument)}"


@dataclass(frozen=True)
class Capture:
    """Store a value of the response under ``name`` for later steps."""

    name: str
    path: str
    count: bool = False
    """Store the length of the list at ``path`` instead of the list."""
    append: bool = False
    """Append to a list (inside ``repeat``) instead of replacing."""
    optional: bool = False
    """Nothing at ``path`` is no failure: the name stays unset, and a step whose ``assume``
    names it is skipped with its reason (a precondition the target does not meet)."""
    line: int = 0


@dataclass(frozen=True)
class Request:
    """What a step sends: each step kind's frozen request dataclass derives from it.

    The built-in kinds' requests are below; a new kind's may live beside its entry in
    :mod:`patgate.scenario.step_kinds`.
    """


@dataclass(frozen=True)
class TokenCall(Request):
    """``POST {auth_url}/oauth/token`` with these form fields."""

    form: Mapping[str, Any]


@dataclass(frozen=True)
class HubsCall(Request):
    """``GET {base_url}/v2/content/hubs`` with these query parameters."""

    params: Mapping[str, Any]


@dataclass(frozen=True)
class GraphqlCall(Request):
    """A named operation (``operation`` and ``args``) or a document (``query``)."""

    operation: str | None = None
    args: Mapping[str, Any] = field(default_factory=dict)
    query: str | None = None
    variables: Mapping[str, Any] = field(default_factory=dict)
    operation_name: str | None = None


@dataclass(frozen=True)
class HttpCall(Request):
    """Any HTTP request, for what the helpers do not cover."""

    method: str
    url: str
    body: str | None = None
    json: Any = None
    form: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class ControlCall(Request):
    """An out-of-band action on a deployment patgate controls (the embedded fake)."""

    action: str
    argument: Any


@dataclass(frozen=True)
class WaitCall(Request):
    """Let ``seconds`` pass: the fake's clock moves; a live run sleeps if ``--max-wait`` allows."""

    seconds: int | str


@dataclass(frozen=True)
class Step:
    """One request (or control action), what is expected of its answer, what to keep."""

    name: str
    line: int
    kind: str
    """The step kind: the key of :data:`~patgate.scenario.step_kinds.STEP_KINDS` it holds."""
    request: Request
    rule: str
    """The rule its expectations and captures name unless they say otherwise."""
    bearer: str | None = None
    basic: tuple[str, str] | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    expect: tuple[Expectation, ...] = ()
    capture: tuple[Capture, ...] = ()
    repeat: int | str | None = None
    for_each: str | None = None
    assume: str | None = None
    assume_reason: str = ""


@dataclass(frozen=True)
class Scenario:
    """A scenario: the rules it covers, what it needs of a target, its steps and cleanup."""

    id: str
    title: str
    rules: tuple[str, ...]
    needs: tuple[str, ...]
    """Target keys it needs (declared, plus every ``${key}`` it refers to)."""
    writes: bool
    waits: bool
    control: bool
    steps: tuple[Step, ...]
    cleanup: tuple[Step, ...] = ()
    source: str = ""
    line: int = 0
    description: str = ""
    appends: tuple[str, ...] = ()
    """Capture names that collect lists; they start empty."""
    bulk: bool = False
    """Writes in bulk (the cap probe): refused on a production target unless named."""
    untracked_writes: bool = False
    """Sends a write the ledger cannot track (a raw GraphQL mutation, an HTTP POST, PUT,
    PATCH or DELETE): it runs only against the embedded fake."""

    @property
    def location(self) -> str:
        """``path:line`` of the scenario's first line."""
        return f"{self.source}:{self.line}"

    def covers(self, rule: str) -> bool:
        """Whether the scenario lists ``rule``."""
        return rule in self.rules


def _short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."

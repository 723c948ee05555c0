"""The recorder and the senders every probe shares: :class:`Probing`, and what it records.

:class:`Probing` sends a probe's requests through a runner session (its client, ledger and
custodian, so every token a probe makes is named, written down and deleted as ``patgate
run`` does) and records, per field, a :class:`Finding` (the value seen, or why not) or a
:class:`RuleBreak` (a documented rule broken: a gate failure, never a value). Every value
is redacted by the session's redactor as it is recorded. :class:`Milestones` is where the
scheduler (:mod:`patgate.calibration.scheduler`) notes what the probes reached.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from patgate.calibration.fields import FIELDS, VIEWER
from patgate.errors import UnexpectedAnswer
from patgate.runner.connection.answers import TokenListing, token_listing
from patgate.runner.custody.custodian import MalformedListing, delete_succeeded
from patgate.runner.model import Observed

if TYPE_CHECKING:
    from patgate.runner.engine import ScenarioRunner

__all__ = [
    "LISTING_RULE",
    "NEEDS_WRITES",
    "PROBE_CONNECTIONS",
    "Finding",
    "Milestones",
    "ProbeResult",
    "Probing",
    "RuleBreak",
]

PROBE_CONNECTIONS = 8
"""Connections a probing session pools: the probes that may run at once."""
NEEDS_WRITES = "needs --allow-writes (it creates and deletes tokens of its own)"
"""The reason of a field only a write probe shows, on a read-only run."""
LISTING_RULE = "PAT-LIST-MASKED"
"""The rule whose clause says what a listing returns for each token (id, name, ...)."""


@dataclass(frozen=True)
class Finding:
    """One profile field as a probe saw it: ``value`` when ``observed``, else ``reason``.
    ``request`` is the request that showed it, with the target's keys in braces
    (``POST {graphql_url}: mutation deletePersonalAccessToken``), never a credential."""

    field: str
    value: Any = None
    request: str = ""
    observed: bool = True
    reason: str = ""
    sampled: Any = dataclasses.field(default=None, compare=False, repr=False)
    """For a shape: the answer's body, redacted, where calibrate takes the sample of a key
    the fake does not serve (never compared, never written whole)."""


@dataclass(frozen=True)
class RuleBreak:
    """A documented rule the target broke while it was probed: a gate failure."""

    rule: str
    what: str
    request: str


@dataclass
class ProbeResult:
    """What the probes of one target found."""

    findings: dict[str, Finding] = field(default_factory=dict)
    breaks: list[RuleBreak] = field(default_factory=list)

    def observed(self) -> dict[str, Finding]:
        """The findings that carry a value."""
        return {name: f for name, f in self.findings.items() if f.observed}

    def not_observed(self) -> dict[str, str]:
        """Field -> why it was not observed (every field of :data:`FIELDS` a probe missed)."""
        return {
            name: (self.findings[name].reason if name in self.findings else "not probed")
            for name in FIELDS
            if name not in self.findings or not self.findings[name].observed
        }


class Milestones:
    """What the probes reached: each probe's name once it ended, and the points a probe
    declares (``"token lifecycle:made"``) once it passed them. A name nobody will reach
    (its probe was not chosen) counts as reached."""

    def __init__(self) -> None:
        self.condition = threading.Condition()
        self._reached: set[str] = set()
        self._coming: set[str] | None = None

    def expect(self, names: Iterable[str]) -> None:
        """The names that will be reached in this run (any other counts as reached)."""
        with self.condition:
            self._coming = set(names)

    def reach(self, *names: str) -> None:
        """``names`` are reached: whoever waits on one goes on."""
        with self.condition:
            self._reached.update(names)
            self.condition.notify_all()

    def reached(self, name: str) -> bool:
        """Whether ``name`` was reached (call with :attr:`condition` held, or for a look)."""
        return name in self._reached or (self._coming is not None and name not in self._coming)

    def wait_for(self, name: str) -> None:
        """Wait until ``name`` is reached."""
        with self.condition:
            self.condition.wait_for(lambda: self.reached(name))


class Probing:
    """Sends a probe's requests through a runner session and records what they showed."""

    def __init__(
        self,
        session: ScenarioRunner,
        *,
        allow_writes: bool,
        sleep: Callable[[float], None],
        max_wait: float = 0.0,
    ) -> None:
        self.session = session
        self.max_wait = max_wait
        """Seconds a probe may wait on a live target (beyond the first gap)."""
        self.context = session.context
        self.allow_writes = allow_writes
        self.result = ProbeResult()
        self._sleep = sleep
        self.schema_fields: tuple[str, ...] = ()
        """The fields of the delete result's object type, when introspection showed one."""
        self.masked: str | None = None
        """A masked token as the admin's listing showed it (kept for the write probes)."""
        self._lock = threading.Lock()  # two groups of probes record at once
        self.room: int | None = None
        """Tokens the admin may still create once the lifecycle made its own."""
        self.held: int | None = None
        """Tokens the admin held before the lifecycle's creates (``None``: not listed)."""
        self.milestones = Milestones()
        """What the probes reached so far (the scheduler's; a probe may wait on one)."""
        self.made: list[tuple[str, str, str]] = []
        """The lifecycle's tokens (id, name, value), in creation order, until deleted."""
        self.delete_selection: str | None = None
        """The selection of the probes' own deletes, as the shape probe learned it: ``""``
        for a scalar result, ``" { __typename }"`` for an object (the probes' document: the
        run's shared documents are never changed from here)."""
        self.client_token: str | None = None
        """A client-credential token the token endpoint answered (kept in memory only)."""

    # -- recording ------------------------------------------------------------------------------

    def found(self, name: str, value: Any, request: str) -> None:
        """``name`` was seen as ``value`` (redacted: a value never carries a credential)."""
        finding = Finding(name, self.context.redactor.redact_data(value), request)
        with self._lock:
            self.result.findings[name] = finding

    def found_shape(self, name: str, shape: Any, body: Any, request: str) -> None:
        """The shape ``name`` was seen as ``shape`` in an answer whose body was ``body``."""
        redactor = self.context.redactor
        finding = Finding(
            name, redactor.redact_data(shape), request, sampled=redactor.redact_data(body)
        )
        with self._lock:
            self.result.findings[name] = finding

    def missed(self, names: Sequence[str], reason: str) -> None:
        """None of ``names`` could be seen, for ``reason`` (a finding already made stays)."""
        reason = self.context.redact(reason)
        with self._lock:
            for name in names:
                if name not in self.result.findings:
                    self.result.findings[name] = Finding(name, observed=False, reason=reason)

    def seen(self, name: str) -> bool:
        """Whether ``name`` was observed already."""
        with self._lock:
            finding = self.result.findings.get(name)
            return finding is not None and finding.observed

    def broke(self, rule: str, what: str, request: str) -> None:
        """The target broke the documented ``rule`` (said once per rule and text)."""
        found = RuleBreak(rule, self.context.redact(what), request)
        with self._lock:
            if found not in self.result.breaks:
                self.result.breaks.append(found)

    # -- sending --------------------------------------------------------------------------------

    def key(self, name: str) -> str | None:
        """A target key's value (a credential is revealed here only to build a request)."""
        return self.context.config.text(name)

    def graphql(self, query: str, bearer_key: str | None = "admin_token") -> Observed:
        """POST ``query`` with the bearer of ``bearer_key`` (none when ``None``)."""
        bearer = self.key(bearer_key) if bearer_key else None
        return self.context.graphql(query, None, bearer)

    def graphql_as(self, query: str, bearer: str | None) -> Observed:
        """POST ``query`` with ``bearer`` (a token a probe created)."""
        return self.context.graphql(query, None, bearer)

    def get(self, path: str, bearer_key: str | None = "admin_token", **params: Any) -> Observed:
        """GET ``{base_url}{path}`` with the bearer of ``bearer_key``."""
        bearer = self.key(bearer_key) if bearer_key else None
        headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
        url = f"{self.key('base_url') or ''}{path}"
        return self.context.exchange.send(
            "GET", url, kind="http", headers=headers, params=params or None
        )

    def listing(self, bearer: str | None) -> TokenListing | None:
        """The tokens ``bearer`` lists, entry by entry, or ``None`` when the listing cannot
        be read. An entry that is not a token is left out and breaks the listing's rule."""
        query, _ = self.context.documents.viewer()
        observed = self.context.graphql(query, None, bearer)
        try:
            listed = token_listing(observed)
        except UnexpectedAnswer:
            return None
        self.malformed(entry.problem for entry in listed.malformed)
        if bearer:
            self.context.custodian.saw(bearer, listed.ids())
        return listed

    def malformed(self, problems: Iterable[str]) -> None:
        """A listing held entries that are not tokens (each named by its index and field):
        each token it lists has an id and a name (a gate failure, never a value)."""
        for problem in problems:
            self.broke(LISTING_RULE, f"a listed entry is not a token (left out): {problem}", VIEWER)

    def create(
        self, name: str, bearer_key: str | None = "admin_token", bearer: str | None = None
    ) -> Observed:
        """Create a token named ``name`` as ``bearer_key`` (or with ``bearer``, a token a
        probe holds: the ledger then names no key for it), through the ledger."""
        context = self.context
        organization, why = context.organization_id()
        if organization is None:
            raise UnexpectedAnswer(why)
        query, variables = context.documents.create_token(name, organization)
        url = self.key("graphql_url") or ""
        if bearer is None and bearer_key is not None:
            bearer = self.key(bearer_key)

        def send() -> Observed:
            headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
            payload: dict[str, Any] = {"query": query}
            if variables:
                payload["variables"] = variables
            return context.exchange.send(
                "POST", url, kind="graphql", headers=headers, json=payload, repeat=False
            )

        # Each create costs a request less: the latest listing of the creator stands for
        # the one before it (the custodian's proof still needs the run's name listed).
        try:
            return context.custodian.create(
                name, send, bearer=bearer, bearer_key=bearer_key, reuse_listing=True
            )
        except MalformedListing as flawed:  # settled all the same: the probe goes on
            self.malformed(flawed.problems)
            return flawed.observed

    def delete_document(self, token_id: str, selection: str | None = None) -> str | None:
        """The probes' own delete of ``token_id`` with ``selection`` (default: the one the
        shape probe learned); ``None`` when it is unknown or the target file gives its own
        delete document (the run's document is sent then)."""
        chosen = self.delete_selection if selection is None else selection
        if chosen is None or "delete_token" in self.context.documents.overrides:
            return None
        field = f"deletePersonalAccessToken(input: {{id: {json.dumps(token_id)}}})"
        return f"mutation {{ {field}{chosen} }}"

    def delete(
        self, token_id: str, bearer: str | None, selection: str | None = None
    ) -> Observed | None:
        """Delete ``token_id`` (one of the probe's own, the ledger holds it) with ``bearer``:
        in the probes' own document once the result's shape is known (``selection``, else
        the shape probe's), through the ledger (a foreign id is refused, nothing sent);
        else in the run's document, through the custodian."""
        context = self.context
        own = self.delete_document(token_id, selection)
        if own is None:

            def send(query: str, variables: Mapping[str, Any] | None) -> Observed:
                return context.graphql(query, variables, bearer)

            return context.custodian.delete(token_id, send, cleanup=False)
        context.ledger.check_delete(token_id)
        observed = context.graphql(own, None, bearer)
        if delete_succeeded(observed):
            context.custodian.gone(token_id)
        return observed

    def name(self, suffix: str = "") -> str:
        """A fresh name of the run (``patgate-<run id>-<n>``), with ``suffix``."""
        return self.context.new_name() + suffix

    def pause(self, seconds: float, *, elapsed: float = 0.0) -> None:
        """Let ``seconds`` pass on the target: its clock moves when patgate controls it;
        else sleep what is left of them after ``elapsed`` seconds already spent."""
        control = self.context.target.control
        if control is not None:
            control.advance_clock(seconds)
        elif seconds > elapsed:
            self._sleep(seconds - elapsed)

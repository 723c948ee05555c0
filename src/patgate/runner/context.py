"""What every scenario of one run shares: options, the client, the ledger, secrets, names."""

from __future__ import annotations

import base64
import itertools
import secrets
import threading
import traceback
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from patgate.errors import RequestFailed, UnexpectedAnswer
from patgate.guards.redaction import LogScrub
from patgate.runner.connection.answers import revealed_secrets, token_listing
from patgate.runner.connection.config import Target
from patgate.runner.connection.documents import Documents, organization_ids
from patgate.runner.connection.exchange import Exchange, NetworkPolicy
from patgate.runner.connection.retries import RetryPolicy
from patgate.runner.custody.custodian import Custodian
from patgate.runner.custody.ledger import Ledger, TargetIdentity
from patgate.runner.custody.revealed_tokens import RevealedTokens
from patgate.runner.model import Observed

if TYPE_CHECKING:
    from patgate.guards.redaction import Redactor
    from patgate.runner.results.waivers import Waiver

__all__ = ["BEARER_KEYS", "RunContext", "RunOptions"]

BEARER_KEYS = ("admin_token", "member_token", "unpermitted_token")
"""Tokens the runner may use for its own queries (introspection, organization id), in order."""


@dataclass(frozen=True)
class RunOptions:
    """How to run: what a live target allows, the ledger, timeouts, and how results count."""

    allow_writes: bool = False
    """On a live target, run scenarios that create or delete (the fake always allows it)."""
    max_wait: float = 0.0
    """Seconds a live scenario may wait (a client token expiring); longer waits are skipped."""
    strict: bool = False
    """Advisory warnings fail the run."""
    connect_timeout: float = 5.0
    read_timeout: float = 30.0
    run_id: str | None = None
    every_rule: bool = True
    """Report every rule of the catalogue (``False``: only rules the scenarios touch)."""
    ledger_path: Path | None = None
    """Where the ledger is appended; ``None`` keeps it in memory."""
    retry_budget: float = 60.0
    """Seconds all waits after 429 / 503 answers may add up to, over the whole run."""
    max_retry_wait: float = 30.0
    """The longest single wait a ``Retry-After`` may ask for; a longer one is not waited."""
    explicit: frozenset[str] = frozenset()
    """Scenario ids named on the command line: only these run in bulk on production."""
    require: tuple[str, ...] = ()
    """Gate rules that must be checked (``all``: every gate rule in scope); one that is not
    makes the run exit with ``EXIT_UNCHECKED``."""
    network: NetworkPolicy = field(default_factory=NetworkPolicy)
    """Where requests may go and how much of an answer is read."""
    concurrency: int = 1
    """Scenarios run at once (1: one after the other); the client pools as many
    connections. See :mod:`patgate.runner.planning.scheduler` for what is never run side by side."""
    waivers: tuple[Waiver, ...] = ()
    """Known failures accepted until a date (``--waivers``)."""
    target_label: str = ""
    """How the user named the target (the ``--world`` file): what a waiver's ``target``
    matches, with the target's base URL."""
    excluded_rules: frozenset[str] = frozenset()
    """Rules left out of the run (``--exclude-rule``): not reported, their failures ignored."""
    excluded_scenarios: tuple[str, ...] = ()
    """Scenarios left out of the run (``--exclude-scenario``), for the report to say so."""

    def as_flags(self) -> tuple[str, ...]:
        """The options as the ``patgate run`` flags that set them (for a report's header)."""
        flags = ["--allow-writes"] if self.allow_writes else []
        flags += ["--strict"] if self.strict else []
        flags += [f"--require {rule}" for rule in self.require]
        flags += [
            f"--concurrency {self.concurrency}",
            f"--max-wait {self.max_wait:g}",
            f"--connect-timeout {self.connect_timeout:g}",
            f"--read-timeout {self.read_timeout:g}",
            f"--retry-budget {self.retry_budget:g}",
            f"--max-retry-wait {self.max_retry_wait:g}",
        ]
        return tuple(flags)


class RunContext:
    """The state of one run. Created by the engine; closed when the run ends.

    ``redactor``: the registry of the run's secrets, built from the target's config
    (:meth:`TargetConfig.redactor`) when not given; the CLI passes the one it made before
    the target was known (it scrubs an error message with everything the run saw), and the
    config teaches it the target's secrets.
    """

    def __init__(
        self, target: Target, options: RunOptions, *, redactor: Redactor | None = None
    ) -> None:
        self.target = target
        self.options = options
        self.config = target.config
        self.run_id = options.run_id or uuid.uuid4().hex[:12]
        if redactor is None:
            redactor = target.config.redactor()
        else:
            target.config.register_secrets(redactor)
        self.redactor = redactor
        self.retry = RetryPolicy(budget=options.retry_budget, max_wait=options.max_retry_wait)
        self.exchange = Exchange(
            target,
            connect_timeout=options.connect_timeout,
            read_timeout=options.read_timeout,
            retry=self.retry,
            observe=self._observe,
            network=options.network,
            connections=options.concurrency,
        )
        self.documents = Documents(target.config.documents)
        self.target_identity = TargetIdentity.of(target.config)
        """The deployment this run creates on, written with each create."""
        self.ledger = Ledger(options.ledger_path, self.run_id, target=self.target_identity)
        self.custodian = self.custodian_for(self.ledger)
        self.revealed = RevealedTokens(target.config.pat)
        for key in (*BEARER_KEYS, "removed_token"):
            value = target.config.text(key)
            if value:
                self.revealed.add(value, f"the target's {key}")
        self._missing = itertools.count(1)
        self._organization: tuple[str | None, str] | None = None
        # Scenarios run in several threads: what is learned once per run is learned under
        # this lock (a second thread waits for the answer instead of asking again).
        self._once = threading.RLock()
        self._halt = threading.Event()
        self.halt_reason = ""
        """The signal that halted the run (``SIGTERM``), once :meth:`halt` was called."""
        self.lost = ""
        """Why the target became unreachable mid-run, once :meth:`lose` was called."""
        self._log_scrub = LogScrub(self.redactor).install()
        self.internal_errors: list[str] = []
        """The redacted traceback of each bug the run met (the last-resort net caught it:
        the run still reports and cleans up, then exits with ``EXIT_INTERNAL``)."""
        self._errors_lock = threading.Lock()
        self._made_up: set[str] = set()

    def note_internal_error(self, error: BaseException) -> str:
        """Record a bug the run met (its traceback, redacted); returns the line a report
        shows: ``internal error: TypeError: ...``."""
        text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        with self._errors_lock:
            self.internal_errors.append(self.redact(text))
        return self.redact(
            f"internal error (a bug in patgate, not a finding about the target): "
            f"{type(error).__name__}: {error}"
        )

    def halt(self, reason: str) -> None:
        """Ask every running scenario to stop before its next step (its cleanup still
        runs): the run was interrupted by ``reason``."""
        self.halt_reason = reason
        self._halt.set()

    def lose(self, why: str) -> None:
        """The target stopped answering: no scenario starts, the running ones stop before
        their next step (their cleanup still runs, bounded by the exchange's cut-off)."""
        if not self.lost:
            self.lost = self.redact(why)
        self._halt.set()

    def pause(self, seconds: float) -> None:
        """Sleep ``seconds`` (a live scenario's wait), ending early if the run is halted."""
        self._halt.wait(seconds)

    @property
    def halted(self) -> bool:
        """Whether :meth:`halt` was called."""
        return self._halt.is_set()

    def custodian_for(self, ledger: Ledger) -> Custodian:
        """A custodian of ``ledger`` sending through this run's client (``patgate cleanup``
        finishes each ledger it loads with one)."""
        return Custodian(
            ledger,
            self.documents,
            self.graphql,
            bearer_of_key=self.config.text,
            retry=self.retry,
            target=self.target_identity,
        )

    def new_name(self) -> str:
        """``patgate-<run id>-<n>``: what a writing scenario names what it creates."""
        return self.ledger.next_name()

    def missing_id(self) -> str:
        """An id no token has (made up by this run, so a delete of it may be sent)."""
        made = f"{self.ledger.name_prefix}missing-{next(self._missing)}"
        with self._errors_lock:
            self._made_up.add(made)
        return made

    def random_pat(self) -> str:
        """A well-formed PAT of the target's prefix that nobody holds."""

        def segment(size: int) -> str:
            return base64.urlsafe_b64encode(secrets.token_bytes(size)).decode().rstrip("=")

        return f"{self.config.pat_prefix}{segment(16)}.{segment(32)}"

    def is_missing_id(self, value: object) -> bool:
        """Whether ``value`` is an id :meth:`missing_id` made up (one it handed out: an
        answer that imitates the form, knowing the run id from the names it sees, is not)."""
        with self._errors_lock:
            return isinstance(value, str) and value in self._made_up

    def key(self, name: str) -> str | None:
        """A target key's value as text (secrets revealed: the caller is building a request);
        ``organization_id`` is discovered when the target lacks it."""
        value = self.config.text(name)
        if value is None and name == "organization_id":
            value = self.organization_id()[0]
        return value

    def bearer(self) -> str | None:
        """The first of the target's admin, member and unpermitted tokens it has."""
        return next((v for k in BEARER_KEYS if (v := self.config.text(k))), None)

    def _observe(self, observed: Observed) -> None:
        # Every access token and created PAT is registered the moment it is read, whichever
        # step (or the custodian) asked.
        self.redactor.register_all(revealed_secrets(observed))

    # -- GraphQL --------------------------------------------------------------------------------

    def graphql(
        self, query: str, variables: Mapping[str, Any] | None, bearer: str | None
    ) -> Observed:
        """POST ``query`` (and ``variables``) to the target's GraphQL endpoint; a read or a
        delete, so it may be resent after a 429 or 503."""
        url = self.config.text("graphql_url") or ""
        payload: dict[str, Any] = {"query": query}
        if variables:
            payload["variables"] = dict(variables)
        headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
        return self.exchange.send(
            "POST", url, kind="graphql", headers=headers, json=payload, repeat=True
        )

    def discover(self) -> None:
        """Learn the target's GraphQL shapes once (before the first named operation)."""
        bearer = self.bearer()
        if not bearer or not self.config.get("graphql_url"):
            return
        with self._once:
            if not self.documents.discovered:
                self.documents.discover(lambda query: self.graphql(query, None, bearer))

    def tokens_held(self, key: str) -> int | None:
        """How many tokens the deployment lists for the principal of target key ``key``
        (``None``: no such key, or its listing could not be read)."""
        bearer = self.config.text(key)
        if not bearer or not self.config.get("graphql_url"):
            return None
        try:
            # Counting is the run's own question: an answer it cannot read (the target's
            # introspection included) leaves the count unknown, for a scenario to find.
            self.discover()
            query, variables = self.documents.viewer()
            listing = token_listing(self.graphql(query, variables, bearer))
        except (RequestFailed, UnexpectedAnswer):
            return None
        # An entry that does not decode may still be a token that counts against the cap.
        return len(listing.tokens) + len(listing.malformed)

    def organization_id(self) -> tuple[str | None, str]:
        """``(id, "")``, or ``(None, why it could not be found)``; asked once per run.
        :class:`~patgate.errors.UnexpectedAnswer` when an answer on the way is of the wrong
        shape (asked again next time)."""
        found = self._organization
        if found is not None:  # known: no wait behind a discovery another thread is making
            return found
        with self._once:
            if self._organization is None:
                self._organization = self._find_organization()
            return self._organization

    def _find_organization(self) -> tuple[str | None, str]:
        given = self.config.text("organization_id")
        if given:
            return given, ""
        bearer = self.bearer()
        if not bearer or not self.config.get("graphql_url"):
            return None, "needs organization_id"
        self.discover()
        shapes = (
            (self.documents.organizations_shape,)
            if self.documents.organizations_shape or "organizations" in self.documents.overrides
            else ("connection", "list")
        )
        for shape in shapes:
            query, variables = self.documents.organizations(shape)
            ids = organization_ids(self.graphql(query, variables, bearer), shape)
            if len(ids) == 1:
                return ids[0], ""
            if len(ids) > 1:
                return None, (
                    f"needs organization_id (the token belongs to {len(ids)} organizations; "
                    "set one)"
                )
        return None, "needs organization_id (it could not be discovered through viewer)"

    def redact(self, text: str) -> str:
        """``text`` with every secret of the run replaced."""
        return self.redactor.redact(text)

    def close(self) -> None:
        """Close the run's HTTP client and stop redacting the HTTP libraries' logs."""
        self._log_scrub.remove()
        self.exchange.close()

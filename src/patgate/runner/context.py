"""What every scenario of one run shares: options, the client, documents, secrets, names."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from patgate.checks import Observed
from patgate.redaction import Redactor
from patgate.runner.documents import Documents, organization_ids
from patgate.runner.exchange import Exchange
from patgate.runner.leaks import RevealedTokens
from patgate.runner.target import Target

__all__ = ["BEARER_KEYS", "RunContext", "RunOptions"]

BEARER_KEYS = ("admin_token", "member_token", "unpermitted_token")
"""Tokens the runner may use for its own queries (introspection, organization id), in order."""


@dataclass(frozen=True)
class RunOptions:
    """How to run: what a live target allows, and how results count."""

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


class RunContext:
    """The state of one run. Created by the engine; closed when the run ends."""

    def __init__(self, target: Target, options: RunOptions) -> None:
        self.target = target
        self.options = options
        self.config = target.config
        self.run_id = options.run_id or uuid.uuid4().hex[:12]
        self.exchange = Exchange(
            target, connect_timeout=options.connect_timeout, read_timeout=options.read_timeout
        )
        self.documents = Documents(target.config.documents)
        prefix = target.config.pat_prefix
        self.revealed = RevealedTokens(prefix)
        self.redactor = Redactor(prefix)
        self.redactor.register_all(target.config.secrets())
        for key in (*BEARER_KEYS, "removed_token"):
            value = target.config.keys.get(key)
            if value:
                self.revealed.add(value, f"the target's {key}")
        self._names = itertools.count(1)
        self._organization: tuple[str | None, str] | None = None

    def new_name(self) -> str:
        """``patgate-<run id>-<n>``: what a writing scenario names what it creates."""
        return f"patgate-{self.run_id}-{next(self._names)}"

    def key(self, name: str) -> str | None:
        """A target key's value; ``organization_id`` is discovered when the target lacks it."""
        value = self.config.get(name)
        if value is None and name == "organization_id":
            value = self.organization_id()[0]
        return value

    def bearer(self) -> str | None:
        """The first of the target's admin, member and unpermitted tokens it has."""
        return next((self.config.keys[k] for k in BEARER_KEYS if self.config.keys.get(k)), None)

    # -- GraphQL --------------------------------------------------------------------------------

    def graphql(
        self, query: str, variables: Mapping[str, Any] | None, bearer: str | None
    ) -> Observed:
        """POST ``query`` (and ``variables``) to the target's GraphQL endpoint."""
        url = self.config.get("graphql_url") or ""
        payload: dict[str, Any] = {"query": query}
        if variables:
            payload["variables"] = dict(variables)
        headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
        return self.exchange.send("POST", url, kind="graphql", headers=headers, json=payload)

    def discover(self) -> None:
        """Learn the target's GraphQL shapes once (before the first named operation)."""
        bearer = self.bearer()
        if self.documents.discovered or not bearer or not self.config.get("graphql_url"):
            return
        self.documents.discover(lambda query: self.graphql(query, None, bearer))

    def organization_id(self) -> tuple[str | None, str]:
        """``(id, "")``, or ``(None, why it could not be found)``; asked once per run."""
        if self._organization is None:
            self._organization = self._find_organization()
        return self._organization

    def _find_organization(self) -> tuple[str | None, str]:
        given = self.config.get("organization_id")
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
        """Close the run's HTTP client."""
        self.exchange.close()

"""Where the fault book meets HTTP: what a request is, and the answer a fired rule gives.

The wire app asks :func:`fault_for` before an endpoint answers; the domain's
:class:`~patgate.fake.faults.Faults` decides, and :func:`fault_answer` turns its action into
a response in the endpoint family's own error shape (or raises :class:`DroppedConnection`,
which each transport turns into its library's connection error).
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import time
from collections.abc import Callable
from contextvars import ContextVar

from patgate.basics.behaviours import OBSERVERS, note
from patgate.basics.reasons import Reason
from patgate.errors import PatgateError
from patgate.fake.deployment import AcceptedCallers, Deployment
from patgate.fake.faults import CallSite, FaultAction
from patgate.fake.model import Principal
from patgate.wire.messages import WireRequest, WireResponse, json_response
from patgate.wire.statuses import HttpRefusal
from patgate.wire.urls import FakeUrls

__all__ = [
    "ANSWERED_BY",
    "DroppedConnection",
    "endpoint_names",
    "fault_answer",
    "fault_for",
    "request_credential",
    "request_principal",
]

ANSWERED_BY: ContextVar[str | None] = ContextVar("patgate_fault_answered_by", default=None)
"""The id of the fault rule that answered the request being handled in this context."""

_OPERATION = re.compile(rb"\b(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)")
_OPERATION_NAME = re.compile(rb'"operationName"\s*:\s*"([_A-Za-z][_0-9A-Za-z]*)"')


class DroppedConnection(PatgateError):
    """A fault rule asked to close the connection without answering."""


def _operation(request: WireRequest) -> str | None:
    # A cheap look, not a parse: the executor parses the document properly afterwards.
    named = _OPERATION_NAME.search(request.body) or _OPERATION.search(request.body)
    return named.group(1).decode("ascii") if named else None


def _bearer(request: WireRequest) -> str | None:
    # A plain look, raising nothing: the endpoint judges the header (and records refusals).
    values = request.header_values("authorization")
    if len(values) != 1:
        return None
    scheme, _, token = values[0].strip().partition(" ")
    return (token.strip() or None) if scheme.lower() == "bearer" else None


def request_credential(
    deployment: Deployment, request: WireRequest, accepted: AcceptedCallers | None = None
) -> Principal | None:
    """Who ``request``'s bearer speaks for (user and kind of token), or ``None``: as
    ``deployment`` accepted it as while ``accepted`` was noting callers, else as it
    identifies it."""
    bearer = _bearer(request)
    if accepted is not None and bearer is not None:
        principal = accepted.principal(deployment, bearer)
        if principal is not None:
            return principal
    return deployment.identify(bearer)


def request_principal(deployment: Deployment, request: WireRequest) -> str | None:
    """The user id ``request``'s bearer speaks for, or ``None``; marks nothing as used."""
    principal = deployment.identify(_bearer(request))
    return principal.user_id if principal is not None else None


def endpoint_names(urls: FakeUrls, key: str) -> tuple[str, ...]:
    """The fault-rule endpoint names of the canonical URL ``key``."""
    if key == urls.token_url:
        return ("token",)
    if key == urls.graphql_url:
        return ("graphql",)
    if key == urls.hubs_url or key.startswith(urls.hubs_url + "/"):
        return ("content", "hubs")
    return ("content",)


def _rate_key(bearer: str | None) -> str | None:
    """What the rate limit counts a bearer by (a digest: never the credential)."""
    return hashlib.sha256(bearer.encode("utf-8", "surrogatepass")).hexdigest() if bearer else None


def announce_rate_limit(
    deployment: Deployment, request: WireRequest, response: WireResponse
) -> WireResponse:
    """``response`` (a GraphQL answer) with the rate limit's ``RateLimit-Policy`` and
    ``RateLimit`` fields for the request's bearer (the profile's ``rate_limit.announce``)."""
    fields = deployment.faults.announced(_rate_key(_bearer(request)))
    if not fields:
        return response
    return dataclasses.replace(response, headers=(*response.headers, *fields))


def fault_for(
    deployment: Deployment, urls: FakeUrls, request: WireRequest, key: str
) -> FaultAction | None:
    """The fault action for ``request`` (canonical URL ``key``), or ``None``.

    Costs one check while the book is empty, the rate limit is off and none is announced.
    """
    faults = deployment.faults
    if not len(faults) and not faults.rate_limit and not faults.counts_announced:
        return None
    endpoints = endpoint_names(urls, key)
    bearer = _bearer(request)
    principal = deployment.identify(bearer)
    rate_key = _rate_key(bearer)
    operation = _operation(request) if "graphql" in endpoints else None
    site = CallSite(endpoints, operation, principal.user_id if principal else None, rate_key)
    return faults.decide(site)


def _note(action: FaultAction) -> None:
    if action.latency:
        note("FAULT", "latency")
    if action.drop:
        note("FAULT", "dropped")
    elif action.status is not None:
        if action.rule_id == "rate-limit":
            note("RATE-LIMIT", "refused")
        else:
            note("FAULT", "status")


def fault_answer(
    action: FaultAction,
    render: Callable[[HttpRefusal], WireResponse],
    real: Callable[[], WireResponse],
) -> WireResponse:
    """Wait the latency, then drop, answer the rule's status, or give the ``real`` answer."""
    ANSWERED_BY.set(action.rule_id)
    if OBSERVERS:
        _note(action)
    if action.latency:
        time.sleep(action.latency)
    if action.drop:
        raise DroppedConnection(f"fault rule {action.rule_id} dropped the connection")
    if action.status is None:
        return real()
    headers: tuple[tuple[str, str], ...] = ()
    if action.retry_after is not None:
        headers = (("Retry-After", str(action.retry_after)),)
    code = "rate-limited" if action.rule_id == "rate-limit" else "fault"
    reason = Reason(code, action.why or f"fault rule {action.rule_id} answered")
    if action.body is not None:
        answer = json_response(action.status, action.body, headers)
        return dataclasses.replace(answer, reason=reason)
    message = f"fault injected by rule {action.rule_id}"
    return render(
        HttpRefusal(action.status, message, code="FAULT_INJECTED", headers=headers, reason=reason)
    )

"""What every endpoint of the fake shares: allowed methods, and turning refusals into answers.

An endpoint's ``respond`` may raise a :class:`~patgate.errors.DomainError` (a rule said no)
or an :class:`~patgate.wire.statuses.HttpRefusal` (the request itself is malformed); both
become a 4xx shaped by the endpoint's family. Anything else is a bug in the fake and is
left to propagate, so it reaches the test instead of becoming a polite 500.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import ClassVar

from patgate.basics.reasons import Reason
from patgate.errors import DomainError
from patgate.fake.deployment import Deployment
from patgate.fake.model import Principal
from patgate.wire.messages import Headers, WireRequest, WireResponse
from patgate.wire.statuses import HttpRefusal, answer_of
from patgate.wire.urls import FakeUrls

__all__ = ["Call", "Endpoint", "Refusal", "media_type", "reason_of", "with_reason"]

Refusal = DomainError | HttpRefusal


@dataclass(frozen=True)
class Call:
    """What routing learnt about a request before its endpoint runs."""

    query: str = ""
    """The raw query string."""
    params: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """The path parameters of the matched route (``{"hub_id": ...}``), percent-decoded."""
    principal: Principal | None = None
    """Who the bearer speaks for, when the route needed authorization (the content API)."""


def reason_of(error: Refusal) -> Reason:
    """Why ``error`` refused: its own reason, else its message (which never echoes what
    was sent) under the code its kind stands for."""
    if error.reason is not None:
        return error.reason
    if isinstance(error, HttpRefusal):
        code = "method-not-allowed" if error.status == 405 else "request-invalid"
        return Reason(code, error.message)
    for kind in type(error).__mro__:
        fallback = _FALLBACK_CODES.get(kind.__name__)
        if fallback is not None:
            return Reason(fallback, error.message)
    return Reason("refused", error.message)


_FALLBACK_CODES = {
    "InvalidRequest": "request-invalid",
    "UnsupportedGrantType": "grant-type-unsupported",
    "InvalidClient": "client-unknown",
    "Unauthenticated": "bearer-not-issued",
    "TokenLimitReached": "token-cap",
    "NotFound": "not-found",
}
"""A refusal that kept no facts of its own: the code its class (or the nearest class it
derives from) stands for."""


def with_reason(response: WireResponse, reason: Reason | None) -> WireResponse:
    """``response`` carrying ``reason`` (the same response when there is none)."""
    return response if reason is None else dataclasses.replace(response, reason=reason)


def media_type(request: WireRequest) -> str:
    """The request's media type, lower-cased, without parameters (``""`` when absent)."""
    value = request.header("content-type")
    if value is None:
        return ""
    return value.partition(";")[0].strip().lower()


class Endpoint(ABC):
    """One route of the fake (a URL template), answering one or more methods."""

    methods: tuple[str, ...]
    """The methods it answers; any other gets 405 with ``Allow``."""

    def __init__(self, deployment: Deployment, urls: FakeUrls) -> None:
        self.deployment = deployment
        self.urls = urls

    @abstractmethod
    def respond(self, request: WireRequest, call: Call) -> WireResponse:
        """The answer to an allowed method."""

    @abstractmethod
    def render(
        self, status: int, code: str, message: str, headers: Headers, error: Refusal
    ) -> WireResponse:
        """A refusal in this endpoint family's body shape."""

    profiled: ClassVar[bool] = True
    """Whether the deployment's profile shapes this family's refusals (the token endpoint's
    answers are documented and OAuth's: not)."""

    operation: ClassVar[str | None] = None
    """The operation ``refusal_messages`` names this route by (``hubs``, ``hub``,
    ``token``); ``None``: only ``refusals.<kind>.message`` applies."""

    def refuse(self, error: Refusal) -> WireResponse:
        """The 4xx answer for ``error``; its status, code and message come from the one
        table (:mod:`~patgate.wire.statuses`) under the deployment's profile. The answer
        carries the refusal's reason for the request log (never sent)."""
        if isinstance(error, HttpRefusal):
            answer = self.render(error.status, error.code, error.message, error.headers, error)
        else:
            profile = self.deployment.profile
            error.answered()
            shaped = answer_of(error, profile if self.profiled else None)
            message = shaped.message or error.message
            if self.operation is not None and shaped.kind is not None:
                by_kind = profile.refusal_messages.get(self.operation)
                if by_kind is not None:  # this operation's own message wins
                    message = by_kind.get(shaped.kind, message)
            answer = self.render(shaped.status, shaped.code or "", message, (), error)
        return with_reason(answer, reason_of(error))

    def answer(self, request: WireRequest, call: Call) -> WireResponse:
        """:meth:`respond`, with domain and request errors turned into 4xx answers."""
        try:
            return self.respond(request, call)
        except (DomainError, HttpRefusal) as error:
            return self.refuse(error)

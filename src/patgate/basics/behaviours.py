"""The documented behaviours a test can drive the fake through, and an observer hook for them.

A behaviour is a rule of ``specs/rules.yaml`` and an outcome: ``"PAT-CAP refused"``,
``"PAT-APPROVAL approved"``. The domain and the wire call :func:`note` where they decide
(a refusal is noted where a front door answers its :class:`~patgate.errors.DomainError`,
never when one is made; a state change where it happens, a fault where it fires). With no
observer (the usual case) a call site costs one truthiness test of :data:`OBSERVERS`;
``--patgate-coverage`` adds one.

What the fake does to itself is not a behaviour anyone drove: building a default world
(whoever builds it: a fixture, or ``patgate.Fake()`` inside a test body) runs under
:func:`quiet`, which silences :func:`note` in that thread (or task) alone.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar

__all__ = ["CATALOGUE", "OBSERVERS", "note", "observe", "quiet", "unobserve"]

_QUIET: ContextVar[bool] = ContextVar("patgate_behaviours_quiet", default=False)

Observer = Callable[[str], None]

OBSERVERS: list[Observer] = []
"""Who is told of each behaviour; call sites test this list before calling :func:`note`."""

CATALOGUE: dict[str, str] = {
    "TOKEN-OK issued": "a client-credential token is issued",
    "TOKEN-BAD-CREDENTIALS refused": "an unknown client or a wrong secret is refused",
    "TOKEN-GRANT-TYPE refused": "a missing or unsupported grant_type is refused",
    "TOKEN-ERROR-BODY refused": "a malformed token request is refused",
    "CLIENT-TOKEN-EXPIRY refused": "an expired client token is refused",
    "AUTH-REQUIRED refused": "a request without a token is refused",
    "AUTH-INVALID-TOKEN refused": "an invalid, unknown or deleted token is refused",
    "HUBS-HAL refused": "a bad hubs page or size is refused",
    "PAT-CREATE-FIELDS created": "a PAT is created",
    "PAT-CREATE-FIELDS refused": "a bad token name is refused",
    "PAT-ADMIN-ONLY refused": "a non-admin's create is refused",
    "PAT-CAP refused": "a token over the cap is refused",
    "PAT-LAST-USED set": "a PAT's lastUsedDate is set by its use",
    "PAT-DELETE deleted": "a PAT is deleted",
    "PAT-DELETE-OWN-ONLY refused": "deleting a token that is not the caller's is refused",
    "PAT-REMOVED-USER refused": "a removed user's PAT is refused",
    "PAT-LOST-PERMISSION refused": "a user without content permission is refused",
    "PAT-APPROVAL approved": "an admin approves a pending token",
    "PAT-APPROVAL rejected": "an admin rejects a pending token",
    "PAT-APPROVAL refused": "a pending token is used, or a bad approval is refused",
    "ORG-DISCOVERY refused": "a bad organizations page is refused",
    "FAULT status": "a fault rule answers an error status (a 429, a 503, ...)",
    "FAULT dropped": "a fault rule drops the connection",
    "FAULT latency": "a fault rule delays an answer",
    "RATE-LIMIT refused": "the GraphQL rate limit answers 429",
}
"""Every behaviour the report lists, by key, with what it means."""


def note(rule_id: str, outcome: str) -> None:
    """Tell the observers that the behaviour ``"{rule_id} {outcome}"`` happened."""
    if rule_id and not _QUIET.get():
        key = f"{rule_id} {outcome}"
        for observer in OBSERVERS:
            observer(key)


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Note nothing inside this block (in this thread or task): the fake's own set-up."""
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


def observe(observer: Observer) -> None:
    """Start telling ``observer`` of every behaviour."""
    OBSERVERS.append(observer)


def unobserve(observer: Observer) -> None:
    """Stop telling ``observer`` (safe to call twice)."""
    if observer in OBSERVERS:
        OBSERVERS.remove(observer)

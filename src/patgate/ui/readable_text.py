"""What the page says to people: refusals with a next step, durations, dates, fault counts.

One place for the wording, so that the same thing is said the same way on every page.
"""

from __future__ import annotations

from datetime import datetime, timezone

from patgate.errors import DomainError
from patgate.fake.clock import format_timestamp

__all__ = [
    "exact_time",
    "fault_frequency",
    "plain_duration",
    "readable_time",
    "refusal",
]

# (rule id, status) or rule id -> (what happened, what to do next).
_BY_RULE: dict[str | tuple[str, int], tuple[str, str]] = {
    ("PAT-APPROVAL", 403): (
        "Only an organization admin sees and decides token requests.",
        "Act as an admin of the organization (Who you are) to approve or reject requests.",
    ),
    "PAT-CAP": (
        "You already hold the most tokens one user may have.",
        "Delete a token you no longer use, then create the new one.",
    ),
    "PAT-DELETE-OWN-ONLY": (
        "That token is not one of yours, or it was deleted already.",
        "Go back to your tokens; the list shows what you hold now.",
    ),
    "PAT-APPROVAL": (
        "That request cannot be decided: it is no longer pending, or you are not an admin of "
        "its organization.",
        "Go back to Approvals; the list shows what still waits.",
    ),
    "PAT-REMOVED-USER": (
        "This user is not a member of the organization any more, so they cannot hold tokens.",
        "Restore the user in the Inspector, or act as another user.",
    ),
}
_BY_STATUS: dict[int, str] = {
    400: "Check the form and send it again.",
    401: "Open the address patgate serve printed, or sign in again.",
    403: "Act as a user who may do this (Who you are), or reload the page and try again.",
    404: "Go back to the start; the list there shows what exists now.",
    405: "Use the buttons on the page instead of typing the address.",
    409: "Go back and look at the current state before trying again.",
    413: "Send a shorter form.",
    415: "Use the form on the page.",
}


def refusal(error: DomainError | None, status: int, message: str) -> tuple[str, str]:
    """``(what happened, what to do next)`` for a refusal with ``status`` and ``message``."""
    if error is not None and error.rule_id:
        words = _BY_RULE.get((error.rule_id, status)) or _BY_RULE.get(error.rule_id)
        if words is not None:
            what, then = words
            return f"{what} ({_sentence(message)})", then
    return _sentence(message), _BY_STATUS.get(status, "Go back to the start and try again.")


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return "The request was refused."
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def readable_time(moment: datetime) -> str:
    """``25 Nov 2026, 14:17 UTC``: a date a person reads at a glance."""
    utc = moment.astimezone(timezone.utc)
    return f"{utc.day} {utc:%b %Y, %H:%M} UTC"


def exact_time(moment: datetime) -> str:
    """The exact UTC instant, as the API writes it (for a title or ``datetime``)."""
    return format_timestamp(moment.astimezone(timezone.utc))


def plain_duration(seconds: float) -> str:
    """``5 minutes``, ``1 hour``, ``400 days``, ``90 seconds``."""
    whole = int(seconds)
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if whole >= size and whole % size == 0:
            n = whole // size
            return f"{n} {unit}{'' if n == 1 else 's'}"
    return f"{whole} second{'' if whole == 1 else 's'}"


_FRACTIONS = {0.5: "half of the", 0.25: "a quarter of the", 0.75: "three quarters of the"}


def fault_frequency(count: int | None, probability: float) -> str:
    """How often a fault rule answers, in one sentence part.

    ``every request``, ``half of the requests``, ``the next 3 requests``, ``10% of the
    requests, for the next 3 that it hits``.
    """
    if probability >= 1.0:
        share = "every request"
    elif probability in _FRACTIONS:
        share = f"{_FRACTIONS[probability]} requests"
    else:
        share = f"{probability:.0%} of the requests"
    if count is None:
        return share
    if probability >= 1.0:
        return f"the next {count} request{'' if count == 1 else 's'}"
    return f"{share}, {count} more time{'' if count == 1 else 's'} at most"

"""What a create's answer and its creator's listings say, as the custodian reads them.

:func:`created_token_id` reads the id a create answered, :func:`refused_create` whether the
answer clearly says no token was made, and :class:`MalformedListing` is the finding of a
create whose listings held entries that are not tokens. :data:`PAT_CAP` is the documented
cap the scheduler and the executor reason with.
"""

from __future__ import annotations

from dataclasses import dataclass

from patgate.errors import UnexpectedAnswer
from patgate.runner.connection.answers import TokenListing, created_token
from patgate.runner.connection.retries import RETRY_STATUSES
from patgate.runner.model import Observed

__all__ = [
    "PAT_CAP",
    "ClaimedId",
    "MalformedListing",
    "created_token_id",
    "judge_claimed_id",
    "malformed_note",
    "refused_create",
    "shown_id",
]

_MALFORMED_SHOWN = 3
"""Malformed entries a message quotes (the rest are counted)."""


class MalformedListing(UnexpectedAnswer):
    """A create was settled, but a listing it took held entries that are not tokens: left
    out (never deleted, never proof that a token is the run's). ``observed`` is the
    create's answer, for a caller that reports the finding and goes on."""

    def __init__(self, problems: list[str], observed: Observed) -> None:
        super().__init__(malformed_note(problems))
        self.problems = tuple(problems)
        """Each malformed entry: its index and field, and what came."""
        self.observed = observed


def malformed_note(problems: list[str]) -> str:
    """What a create's listings held that is not a token, each entry by its index and field."""
    count = len(problems)
    shown = "; ".join(problems[:_MALFORMED_SHOWN])
    if count > _MALFORMED_SHOWN:
        shown += f"; and {count - _MALFORMED_SHOWN} more"
    entries = "a malformed entry" if count == 1 else f"{count} malformed entries"
    return f"the creator's listing holds {entries}, never deleted nor taken as proof: {shown}"


PAT_CAP = 5
"""The documented cap of PATs per user: a create refused while the creator lists this many
was refused at the cap, whatever else the answer says."""


def created_token_id(observed: Observed) -> str | None:
    """The id in a ``createPersonalAccessToken`` answer, if there is one (``None`` for an
    answer that is not a GraphQL object: an HTML error page, a bare 503).
    :class:`UnexpectedAnswer` when the answer names one of the wrong shape."""
    if not isinstance(observed.body, dict):
        return None
    created = created_token(observed)
    return created.id if created is not None else None


def shown_id(token_id: str, limit: int = 200) -> str:
    """An id as a message quotes it: ``repr``, cut to ``limit`` characters."""
    text = repr(token_id)
    return text if len(text) <= limit else text[: limit - 4] + "...'"


def refused_create(observed: Observed) -> bool:
    """Whether an answer clearly says the create was not done: a 4xx other than 429, or
    GraphQL errors with the field null."""
    if 400 <= observed.status < 500 and observed.status not in RETRY_STATUSES:
        return True
    body = observed.body
    if observed.status != 200 or not isinstance(body, dict) or not body.get("errors"):
        return False
    data = body.get("data")
    return data is None or (
        isinstance(data, dict) and data.get("createPersonalAccessToken") is None
    )


@dataclass(frozen=True)
class ClaimedId:
    """What the creator's listing says of the id a create answered."""

    ours: str | None
    """The id of the token new since before the create and named as the run named it."""
    wrong: str | None
    """Why the answered id is not that token's (``None``: it is)."""

    def message(self, claimed: str) -> str:
        """The finding, for a wrong id: left alone, and what is deleted instead."""
        found = (
            "the token listed under the run's name is deleted instead"
            if self.ours is not None
            else "no token of the run's name is listed; it is looked for again at the end"
        )
        return (
            f"a wrong id: the create answered {self.wrong}, left alone (never deleted); {found} "
            f"(answered id {shown_id(claimed)}"
            + (f", the run's token {shown_id(self.ours)})" if self.ours is not None else ")")
        )


def judge_claimed_id(
    listed: TokenListing, before: frozenset[str] | None, claimed: str, name: str
) -> ClaimedId:
    """Whether ``claimed`` is the token ``listed`` shows new since ``before`` (the ids listed
    before the create; ``None``: unknown) under ``name``, and which token is, if any."""
    new = [t for t in listed.tokens if before is None or t.id not in before]
    if any(t.id == claimed and t.name == name for t in new):
        return ClaimedId(claimed, None)
    ours = next((t.id for t in new if t.name == name), None)
    if before is not None and claimed in before:
        reason = "the id of a token that existed before the create"
    elif any(t.id == claimed for t in listed.tokens):
        reason = "the id of a token listed under another name"
    else:
        reason = "an id its creator does not list"
    return ClaimedId(ours, reason)

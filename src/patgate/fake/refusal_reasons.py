"""The facts behind the domain's refusals, as :class:`~patgate.basics.reasons.Reason` values.

Each function names what the deployment looked at (ids, names, dates, counts; never a
secret) so that a test author sees why a request was refused. :class:`Revocations`
remembers recently deleted PATs by their id segment, so a deleted token is told apart from
one never issued.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from patgate.basics.reasons import Reason, clock_time
from patgate.fake.model import PatRecord, User

__all__ = [
    "Revocation",
    "Revocations",
    "client_credential_creation",
    "client_credentials",
    "expired_client_token",
    "not_admin",
    "token_cap",
    "user_named",
]

_KEPT = 4096
"""Deleted PATs remembered (each entry a short id segment, an id and a name cut to 64
characters: well under 1 MiB in all)."""


def user_named(user: User | None, user_id: str) -> str:
    """A user as a reason names them: their email, else their id."""
    return f"user {user.email}" if user is not None and user.email else f"user {user_id}"


def client_credentials(client_id: str | None, known: bool) -> Reason:
    """A token request whose client id is unknown, or whose secret is not the client's."""
    if not client_id:
        return Reason("client-unknown", "no client_id was sent (in the form or as Basic)")
    shown = repr(client_id[:80])
    if not known:
        return Reason("client-unknown", f"no API client of this fake has the id {shown}")
    return Reason("client-secret-mismatch", f"the client secret does not match client {shown}")


def expired_client_token(
    issued_at: float | None, expires_at: float, now: datetime, expires_in: int
) -> Reason:
    """A client-credential token past its ``exp``, with when it was issued and the lifetime
    the fake gives its tokens (``exp`` rounds up to a whole second, so ``exp - iat`` may be
    one more)."""
    ago = now.timestamp() - expires_at
    expired = datetime.fromtimestamp(expires_at, tz=now.tzinfo)
    if issued_at is None:
        when = f"expired at {clock_time(expired)}"
    else:
        issued = datetime.fromtimestamp(issued_at, tz=now.tzinfo)
        when = f"issued at {clock_time(issued)}, expires_in {expires_in}"
    return Reason(
        "client-token-expired",
        f"client token expired {ago:.0f} s ago ({when}, the fake's clock is {clock_time(now)})",
    )


def client_credential_creation(user: User | None, user_id: str) -> Reason:
    """A create sent with a client-credential token where the profile refuses one."""
    return Reason(
        "client-credential-creation",
        f"{user_named(user, user_id)} created a token with a client-credential token; the "
        "profile refuses that (pat_creation.client_credentials: refused): send a user's PAT",
    )


def not_admin(user: User | None, user_id: str, organization_id: str, role: str) -> Reason:
    """A create by someone who is not an admin of the organization it names."""
    return Reason(
        "not-admin",
        f"{user_named(user, user_id)} is not an admin of organization {organization_id} "
        f"(their role there: {role})",
    )


def token_cap(user: User, held: Iterable[PatRecord], cap: int) -> Reason:
    """A create refused at the cap, naming the tokens the user holds."""
    names = [record.name for record in held]
    shown = ", ".join(repr(name[:64]) for name in names[:10])
    more = f" and {len(names) - 10} more" if len(names) > 10 else ""
    return Reason(
        "token-cap",
        f"{user_named(user, user.id)} holds {len(names)} tokens (the cap is {cap}): {shown}{more}",
    )


@dataclass(frozen=True, slots=True)
class Revocation:
    """A deleted PAT, as remembered for a reason."""

    token_id: str
    name: str
    when: datetime
    how: str


class Revocations:
    """The last :data:`_KEPT` deleted PATs, by id segment (a bounded, thread-safe record)."""

    def __init__(self) -> None:
        self._kept: OrderedDict[str, Revocation] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, id_segment: str, record: PatRecord, when: datetime, how: str) -> None:
        """Remember that ``record`` (found by ``id_segment``) was deleted at ``when``."""
        with self._lock:
            self._kept[id_segment] = Revocation(record.id, record.name[:64], when, how)
            self._kept.move_to_end(id_segment)
            while len(self._kept) > _KEPT:
                self._kept.popitem(last=False)

    def reason(self, id_segment: str) -> Reason | None:
        """Why a PAT with ``id_segment`` is refused, if it was deleted."""
        with self._lock:
            found = self._kept.get(id_segment)
        if found is None:
            return None
        return Reason(
            "pat-revoked",
            f"PAT {found.token_id} ({found.name!r}) was {found.how} at {clock_time(found.when)}",
        )

    def clear(self) -> None:
        """Forget every deleted PAT (the deployment's state was replaced)."""
        with self._lock:
            self._kept.clear()

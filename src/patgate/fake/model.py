"""The nouns of the fake's world: organizations, users, memberships, clients, hubs, tokens.

The records a world holds by the hundred thousand (users, hubs, tokens) use slots: a third
less memory each, and a faster build.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

__all__ = [
    "ApiClient",
    "CreatedToken",
    "Hub",
    "HubPage",
    "Organization",
    "PatRecord",
    "PatStatus",
    "Principal",
    "Role",
    "User",
]


class Role(str, enum.Enum):
    """A user's role in an organization."""

    ADMIN = "admin"
    """May create PATs through the API and approve requests; has content permission."""
    MEMBER = "member"
    """Has content permission; PAT requests go through the approval step."""
    RESTRICTED = "restricted"
    """A member without content permission: the hubs listing refuses them."""

    @property
    def can_read_content(self) -> bool:
        """Whether the hubs listing answers this role."""
        return self is not Role.RESTRICTED


@dataclass
class Organization:
    """An organization: tokens are created per user and per organization."""

    id: str
    name: str


@dataclass(slots=True)
class User:
    """A person, with a role in each organization they belong to."""

    id: str
    uuid: str
    name: str
    email: str
    memberships: dict[str, Role] = field(default_factory=dict)
    """Organization id -> role. A removed user simply has no entry for that organization."""


@dataclass(frozen=True)
class ApiClient:
    """An API key issued out of band. Its tokens act as ``user_id`` within ``organization_id``."""

    client_id: str
    secret_hash: bytes
    user_id: str
    organization_id: str


@dataclass(slots=True)
class Hub:
    """A hub of the content API, with the fields its listing shows."""

    id: str
    organization_id: str
    name: str
    label: str
    description: str
    status: str
    settings: dict[str, Any]
    created_by: str
    created_date: datetime
    last_modified_by: str
    last_modified_date: datetime


@dataclass(frozen=True)
class HubPage:
    """One page of the hubs listing; ``number`` is 0-based as in the real API."""

    hubs: tuple[Hub, ...]
    number: int
    size: int
    total_elements: int

    @property
    def total_pages(self) -> int:
        """How many pages of ``size`` hold every hub."""
        return (self.total_elements + self.size - 1) // self.size


class PatStatus(str, enum.Enum):
    """Whether a stored PAT may be used yet."""

    ACTIVE = "active"
    PENDING = "pending"
    """Requested by a non-admin through the management UI: listed, not usable."""


@dataclass(slots=True)
class PatRecord:
    """A stored PAT. The secret is never kept: only its hash and the masked display form."""

    id: str
    user_id: str
    organization_id: str
    name: str
    id_segment: str
    secret_hash: bytes = field(repr=False)
    """Never shown by ``repr``: a hash is still a secret's fingerprint."""
    masked: str
    created_date: datetime
    last_used_date: datetime | None = None
    status: PatStatus = PatStatus.ACTIVE


@dataclass(frozen=True)
class CreatedToken:
    """The result of a create: the only time the full value exists outside the caller.

    ``id``, ``name`` and ``status`` are the stored record's (``record``); ``value`` is the
    one-time full token. ``repr`` never shows the value.
    """

    record: PatRecord
    value: str

    @property
    def id(self) -> str:
        """The token's id (the GraphQL ``id``)."""
        return self.record.id

    @property
    def name(self) -> str:
        """The token's name."""
        return self.record.name

    @property
    def status(self) -> PatStatus:
        """``PatStatus.ACTIVE``, or ``PatStatus.PENDING`` until an admin approves it."""
        return self.record.status

    def __repr__(self) -> str:
        return (
            f"CreatedToken(id={self.id!r}, name={self.name!r}, status={self.status.value!r}, "
            "value=<hidden>)"
        )


@dataclass(frozen=True)
class Principal:
    """Who a bearer token speaks for."""

    user_id: str
    organization_id: str
    via: str
    """``"pat"`` or ``"client"``."""
    token_id: str | None = None
    """The PAT record id when ``via == "pat"``."""

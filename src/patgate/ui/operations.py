"""Every call the management page makes on the fake, in one place.

The page never decides a rule itself: who may approve, the cap of 5, who may delete what are
the domain's answers (a :class:`~patgate.errors.DomainError`), which the page shows as they
come. This module only turns "the person using the page" into the domain's arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from patgate.errors import Forbidden, NotFound
from patgate.fake.deployment import Deployment
from patgate.fake.faults import FaultRule
from patgate.fake.model import CreatedToken, Organization, PatRecord, Principal, Role, User
from patgate.wire.control_service import ControlService
from patgate.wire.request_log import LoggedRequest

__all__ = ["Identity", "Membership", "PendingRequest", "UiOperations"]

_VIA = "ui"
"""How a :class:`Principal` acting through the page says where it came from."""


@dataclass(frozen=True)
class Identity:
    """The person using the page: a user, and the organization they act in."""

    user: User
    organization: Organization | None
    """``None`` for a user who belongs to no organization (removed everywhere)."""
    role: Role | None

    @property
    def principal(self) -> Principal:
        """The domain's caller for this person; refused by the domain once removed."""
        organization_id = self.organization.id if self.organization is not None else ""
        return Principal(self.user.id, organization_id, via=_VIA)

    @property
    def is_admin(self) -> bool:
        """Whether the person is an admin of their organization."""
        return self.role is Role.ADMIN


@dataclass(frozen=True)
class Membership:
    """One row of the inspector: a user and their role in one organization (``None``: not a
    member)."""

    user: User
    organization: Organization
    role: Role | None


@dataclass(frozen=True)
class PendingRequest:
    """A token waiting for an admin, with the user who asked for it."""

    record: PatRecord
    requester: User


class UiOperations:
    """The page's view of one fake: what a user reads and does, and the control operations.

    Every control action (people, approvals, the clock, the log, faults) goes through the
    fake's :class:`~patgate.wire.control_service.ControlService`, the same one the HTTP
    control API calls; a user's own token actions are the domain's API calls.
    """

    def __init__(self, deployment: Deployment, control: ControlService) -> None:
        self.deployment = deployment
        self.control = control

    # -- who is who ------------------------------------------------------------------------

    def organizations(self) -> list[Organization]:
        """Every organization, in creation order."""
        return list(self.deployment.organizations.values())

    def users(self) -> list[User]:
        """Every user, in creation order."""
        return list(self.deployment.users.values())

    def identity(self, user_id: str) -> Identity:
        """The person ``user_id`` acting in their first organization.

        Raises :class:`NotFound` for an unknown id (a stale cookie, say).
        """
        user = self.deployment.users.get(user_id)
        if user is None:
            raise NotFound("no such user; pick who you are again", rule_id="")
        memberships = dict(user.memberships)
        for organization_id, role in memberships.items():
            return Identity(user, self.deployment.organizations[organization_id], role)
        return Identity(user, None, None)

    def memberships(self) -> list[Membership]:
        """Every user against every organization, for the inspector."""
        return [
            Membership(user, organization, user.memberships.get(organization.id))
            for organization in self.organizations()
            for user in self.users()
        ]

    # -- a person's tokens -----------------------------------------------------------------

    def tokens(self, identity: Identity) -> list[PatRecord]:
        """The person's tokens as the API lists them (pending ones included)."""
        return self.deployment.list_tokens(identity.principal)

    def token_cap(self) -> int:
        """How many tokens one user may hold."""
        return self.deployment.max_tokens_per_user

    def request_token(self, identity: Identity, name: str) -> CreatedToken:
        """The UI path: an admin's token is usable at once, anyone else's waits for approval."""
        organization_id = identity.organization.id if identity.organization else ""
        return self.control.request_token_via_ui(identity.user.id, name, organization_id)

    def find_token(self, identity: Identity, token_id: str) -> PatRecord:
        """One of the person's own tokens; another user's id looks like an unknown one."""
        for record in self.tokens(identity):
            if record.id == token_id:
                return record
        raise NotFound("no such personal access token", rule_id="PAT-DELETE-OWN-ONLY")

    def delete_token(self, identity: Identity, token_id: str) -> PatRecord:
        """Delete one of the person's own tokens."""
        return self.deployment.delete_token(identity.principal, token_id)

    # -- approvals -------------------------------------------------------------------------

    def pending(self, identity: Identity) -> list[PendingRequest]:
        """The requests waiting in the person's organization; admins only."""
        self._require_admin(identity)
        organization_id = identity.principal.organization_id
        return [
            PendingRequest(record, self.deployment.users[record.user_id])
            for record in self.control.pending_requests(organization_id)
        ]

    def approve(self, identity: Identity, token_id: str) -> PatRecord:
        """Approve a pending token as this admin; it is usable at once."""
        return self.control.approve_token_request(token_id, identity.user.id)

    def reject(self, identity: Identity, token_id: str) -> PatRecord:
        """Reject a pending token of the admin's organization; it disappears."""
        record = self._pending_in(identity, token_id)
        self.control.reject_token_request(token_id)
        return record

    def _pending_in(self, identity: Identity, token_id: str) -> PatRecord:
        for request in self.pending(identity):
            if request.record.id == token_id:
                return request.record
        raise NotFound("no such pending token request", rule_id="PAT-APPROVAL")

    def _require_admin(self, identity: Identity) -> None:
        if self.deployment.role_of(identity.principal) is not Role.ADMIN:
            raise Forbidden("only an organization admin approves", rule_id="PAT-APPROVAL")

    # -- the inspector ---------------------------------------------------------------------

    def remove_user(self, user_id: str, organization_id: str) -> None:
        """Remove a user from an organization; their PATs stop working at once."""
        self.control.remove_user(user_id, organization_id)

    def restore_user(self, user_id: str, organization_id: str) -> None:
        """Add a removed user back to the organization; their PATs work again."""
        self.control.restore_user(user_id, organization_id)

    def set_role(self, user_id: str, organization_id: str, role: Role) -> None:
        """Change a user's role, or restore a removed user with it."""
        self.control.set_role(user_id, role, organization_id)

    def now(self) -> datetime:
        """The fake's current instant."""
        return self.control.clock_now()

    def advance_clock(self, seconds: float) -> None:
        """Move the fake's time forward."""
        self.control.advance_clock(seconds)

    def latest_requests(self, limit: int, *, hidden_prefix: str) -> Sequence[LoggedRequest]:
        """The newest API requests first, without the page's own (under ``hidden_prefix``)."""
        entries = [
            e for e in self.control.request_log.entries() if not e.url.startswith(hidden_prefix)
        ]
        return entries[: -limit - 1 : -1]

    def active_faults(self) -> list[FaultRule]:
        """The fault rules the fake answers with, oldest first."""
        return self.control.faults.rules()

    def rate_limit(self) -> bool:
        """Whether the published GraphQL rate limit is switched on."""
        return self.control.faults.rate_limit

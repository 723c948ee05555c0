"""Every call the management page makes on the fake, in one place.

The page never decides a rule itself: who may approve, the cap of 5, who may delete what are
the domain's answers (a :class:`~patgate.errors.DomainError`), which the page shows as they
come. This module only turns "the person using the page" into the domain's arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from patgate.errors import Forbidden, InvalidRequest, NotFound
from patgate.fake.deployment import Deployment
from patgate.fake.faults import FaultRule
from patgate.fake.model import CreatedToken, Organization, PatRecord, Principal, Role, User
from patgate.wire.control_service import ControlService
from patgate.wire.request_log import LoggedRequest

__all__ = ["Identity", "Membership", "PendingRequest", "RequestFilter", "UiOperations"]

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


@dataclass(frozen=True)
class RequestFilter:
    """The inspector's filters of the request log; an empty field keeps every entry."""

    user: str = ""
    """A user id: the requests whose credential spoke for them."""
    status: str = ""
    """A code (``429``) or a class (``4xx``)."""
    operation: str = ""
    """A GraphQL operation name."""

    @classmethod
    def parse(cls, query: dict[str, str]) -> RequestFilter:
        """The filters of the inspector's query string; a bad status is a 400 naming it."""
        status = query.get("status", "").strip().lower()
        if status and not (
            (len(status) == 3 and status[0] in "12345" and status[1:] == "xx")
            or (status.isascii() and status.isdigit() and len(status) == 3)
        ):
            raise InvalidRequest(
                "the status filter is a code such as 429 or a class such as 4xx", rule_id=""
            )
        return cls(query.get("user", "").strip(), status, query.get("operation", "").strip())

    def keeps(self, entry: LoggedRequest) -> bool:
        """Whether ``entry`` passes every filter."""
        if self.user and entry.principal != self.user:
            return False
        if self.operation and entry.operation != self.operation:
            return False
        if self.status:
            code = str(entry.status)
            if self.status.endswith("xx"):
                return code[:1] == self.status[0]
            return code == self.status
        return True

    @property
    def active(self) -> bool:
        """Whether any filter is set."""
        return bool(self.user or self.status or self.operation)


class UiOperations:
    """The page's view of one fake: what a user reads and does, and the control operations.

    Every control action (people, approvals, the clock, the log, faults) goes through the
    fake's :class:`~patgate.wire.control_service.ControlService`, the same one the HTTP
    control API calls; a user's own token actions are the domain's API calls.
    """

    def __init__(self, deployment: Deployment, control: ControlService) -> None:
        self.deployment = deployment
        self.control = control

    @classmethod
    def through(cls, control: ControlService) -> UiOperations:
        """The operations on ``control``'s deployment, through ``control``."""
        return cls(control.deployment, control)

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

    def pending_request(self, identity: Identity, token_id: str) -> PendingRequest:
        """One request waiting in the admin's organization; :class:`NotFound` otherwise."""
        for request in self.pending(identity):
            if request.record.id == token_id:
                return request
        raise NotFound("no such pending token request", rule_id="PAT-APPROVAL")

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

    def membership(self, user_id: str, organization_id: str) -> Membership:
        """One user in one organization; :class:`NotFound` names which is unknown."""
        user = self.deployment.users.get(user_id)
        if user is None:
            raise NotFound("there is no such user (reload the Inspector)", rule_id="")
        organization = self.deployment.organizations.get(organization_id)
        if organization is None:
            raise NotFound("there is no such organization (reload the Inspector)", rule_id="")
        return Membership(user, organization, user.memberships.get(organization_id))

    def check_removable(self, user_id: str, organization_id: str) -> None:
        """Refuse (403) to take the last admin of an organization away from it."""
        row = self.membership(user_id, organization_id)
        if row.role is not Role.ADMIN:
            return
        admins = [
            user
            for user in self.users()
            if user.memberships.get(organization_id) is Role.ADMIN and user.id != user_id
        ]
        if not admins:
            raise Forbidden(
                f"{row.user.name} is the last admin of {row.organization.name}: nobody could "
                "approve requests or manage people afterwards. Make another user an admin "
                "first",
                rule_id="",
            )

    def remove_user(self, user_id: str, organization_id: str) -> None:
        """Remove a user from an organization; their PATs stop working at once.

        The page never removes an organization's last admin (the control API may).
        """
        self.check_removable(user_id, organization_id)
        self.control.remove_user(user_id, organization_id)

    def restore_user(self, user_id: str, organization_id: str) -> Role:
        """Add a removed user back to the organization; their PATs work again."""
        return self.control.restore_user(user_id, organization_id)

    def set_role(self, user_id: str, organization_id: str, role: Role) -> None:
        """Change a user's role, or restore a removed user with it; never demotes the last
        admin."""
        if role is not Role.ADMIN:
            self.check_removable(user_id, organization_id)
        self.control.set_role(user_id, role, organization_id)

    # -- generated by `python -m patgate.control.document`: do not edit below --

    def reset(self) -> None:
        """Back to the default world with the same credentials; no faults; an empty log."""
        self.control.reset()

    def advance_clock(self, seconds: float) -> None:
        """Move the fake's time forward (client tokens expire; PATs do not)."""
        self.control.advance_clock(seconds)

    def remove_fault(self, rule_id: str) -> None:
        """Remove one fault rule."""
        self.control.remove_fault(rule_id)

    def clear_faults(self) -> None:
        """Remove every fault rule and switch the rate limit off."""
        self.control.clear_faults()

    def set_rate_limit(self, on: bool) -> None:
        """Switch the GraphQL rate limit (the profile's ``rate_limit``: 60 requests per minute per
        key by default) on or off. A key's minute starts at its first request, whatever the clock
        shows; ``Retry-After`` gives the seconds left of it, and :meth:`advance_clock` by that much
        ends it.
        """
        self.control.set_rate_limit(on)

    # -- generated: do not edit above --

    def now(self) -> datetime:
        """The fake's current instant."""
        return self.control.clock_now()

    def latest_requests(
        self, limit: int, filters: RequestFilter | None = None, *, hidden_prefix: str
    ) -> Sequence[LoggedRequest]:
        """The newest API requests first, without the page's own (under ``hidden_prefix``),
        those ``filters`` keep."""
        keep = filters or RequestFilter()
        found: list[LoggedRequest] = []
        for entry in reversed(self.control.request_log.entries()):
            if not entry.url.startswith(hidden_prefix) and keep.keeps(entry):
                found.append(entry)
                if len(found) >= limit:
                    break
        return found

    def request_choices(self, *, hidden_prefix: str) -> tuple[list[str], list[str]]:
        """The user ids and the operation names the log holds, for the filters' lists."""
        users: dict[str, None] = {}
        operations: dict[str, None] = {}
        for entry in self.control.request_log.entries():
            if entry.url.startswith(hidden_prefix):
                continue
            if entry.principal:
                users[entry.principal] = None
            if entry.operation:
                operations[entry.operation] = None
        return sorted(users), sorted(operations)

    def user_name(self, user_id: str) -> str:
        """A user's name, or the id itself for a user the fake no longer knows."""
        user = self.deployment.users.get(user_id)
        return user.name if user is not None else user_id

    def logged_request(self, number: int) -> LoggedRequest:
        """One entry of the log by its number; :class:`NotFound` once it was dropped."""
        for entry in self.control.request_log.entries():
            if entry.number == number:
                return entry
        raise NotFound(
            f"request {number} is not in the log (the log keeps the latest "
            f"{self.control.request_log.capacity})",
            rule_id="",
        )

    def add_fault(self, form: dict[str, str]) -> FaultRule:
        """Add a fault rule from the inspector's form, through the control service.

        Fields: ``endpoint``, ``status``, ``retry_after``, ``latency``, ``count``,
        ``probability`` (in percent), ``operation``, ``principal``, ``drop``; empty ones are
        left out, and the fault book checks the rest.
        """
        spec: dict[str, object] = {}
        for name in ("status", "retry_after", "count"):
            text = form.get(name, "").strip()
            if text:
                if not (text.isascii() and text.isdigit() and len(text) <= 9):
                    raise InvalidRequest(
                        f"{name.replace('_', ' ')} must be a whole number", rule_id=""
                    )
                spec[name] = int(text)
        for name, scale in (("latency", 1.0), ("probability", 100.0)):
            text = form.get(name, "").strip()
            if text:
                try:
                    number = float(text)
                except ValueError:
                    raise InvalidRequest(f"{name} must be a number", rule_id="") from None
                if number != number or number in (float("inf"), float("-inf")):
                    raise InvalidRequest(f"{name} must be a number", rule_id="")
                spec[name] = number / scale
        for name in ("operation", "principal"):
            text = form.get(name, "").strip()
            if text:
                spec[name] = text
        if form.get("drop") == "on":
            spec["drop"] = True
        return self.control.add_fault(form.get("endpoint", "any") or "any", **spec)

    def active_faults(self) -> list[FaultRule]:
        """The fault rules the fake answers with, oldest first."""
        return self.control.faults.rules()

    def rate_limit(self) -> bool:
        """Whether the published GraphQL rate limit is switched on."""
        return self.control.faults.rate_limit

    def requests_per_minute(self) -> int | None:
        """The rate limit per key of the active profile; ``None``: the profile sets none."""
        return self.deployment.profile.requests_per_minute

"""The control operations of one fake, as plain Python calls: the one implementation.

``ControlService`` is what every control front door calls: ``patgate.Fake``'s methods, the
HTTP control API (:mod:`patgate.wire.control_api`, under ``/__patgate``) and the management
page. Each operation is declared once in :mod:`patgate.control.operations` (its parameters,
result, route and docstring); a method here of the same name implements it, and
``python -m patgate.control.document`` writes the front doors' methods from the declaration.
Arguments are plain values; results are domain objects (``User``, ``PatRecord``,
``CreatedToken``, ...) or, for :meth:`ControlService.snapshot`, JSON values. Refusals are the
domain's own errors (:class:`~patgate.errors.DomainError`), which each front door shapes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from patgate.fake.clock import format_timestamp
from patgate.fake.deployment import Deployment
from patgate.fake.faults import FaultRule, Faults
from patgate.fake.model import ApiClient, CreatedToken, Hub, PatRecord, PatStatus, Role, User
from patgate.fake.state import export_state, load_state
from patgate.fake.views import control_view
from patgate.fake.world import DefaultWorld
from patgate.wire.request_log import RequestLog, RequestPage

__all__ = ["ControlService"]


@dataclass
class ControlService:
    """Reset, snapshot, people, clients, hubs, the UI path, the clock, the log and faults.

    ``world`` is the seeded world's ids and credentials; a :meth:`reset` brings the state
    back to what it was when the service was made, with the same credentials, so a client's
    configuration (a target file) survives it. ``seeded_state_source``: what makes that
    state, called when it is first needed (a stamped world's, :mod:`patgate.fake.world`);
    without it, the deployment's state is exported when the service is made.
    """

    deployment: Deployment
    world: DefaultWorld
    request_log: RequestLog
    seeded_state_source: Callable[[], dict[str, Any]] | None = None

    def __post_init__(self) -> None:
        self._baseline: dict[str, Any] | None = None
        if self.seeded_state_source is None:
            self._baseline = export_state(self.deployment)
        self._roles_before_removal: dict[tuple[str, str], Role] = {}
        self._lock = threading.Lock()

    # -- the whole state -------------------------------------------------------------------

    def reset(self) -> None:
        """Back to the seeded world: state, clock, no faults, rate limit off, an empty log."""
        with self._lock:
            load_state(self.deployment, self._seeded())
            self._roles_before_removal.clear()
        self.deployment.faults.clear()
        self.request_log.clear()

    def seeded_state(self) -> dict[str, Any]:
        """The state :meth:`reset` returns to, as JSON values (``patgate serve --state``)."""
        with self._lock:
            return self._seeded()

    def _seeded(self) -> dict[str, Any]:
        baseline = self._baseline
        if baseline is None:
            source = self.seeded_state_source
            baseline = source() if source is not None else export_state(self.deployment)
            self._baseline = baseline
        return baseline

    def world_ids(self) -> dict[str, str]:
        """The seeded world's organization and principals by role name: ids, no secret."""
        w = self.world
        return {
            "organization_id": w.organization_id,
            "admin": w.admin_id,
            "member": w.member_id,
            "removed": w.removed_id,
            "unpermitted": w.unpermitted_id,
        }

    def snapshot(self) -> dict[str, Any]:
        """The state as JSON values: tokens masked with their status, never a secret."""
        d = self.deployment
        return {
            "organizations": control_view(list(d.organizations.values())),
            "users": control_view(list(d.users.values())),
            "clients": control_view(list(d.clients.values())),
            "hubs": control_view(list(d.hubs)),
            "tokens": control_view(list(d.tokens.values())),
            "pending": control_view(self.pending_requests()),
            "clock": self.clock_view(),
            **control_view(d.faults),
        }

    # -- people, clients, hubs -------------------------------------------------------------

    def _org(self, organization_id: str | None) -> str:
        return organization_id or self.world.organization_id

    def add_user(
        self,
        name: str,
        email: str | None = None,
        *,
        role: Role | str = Role.MEMBER,
        organization_id: str | None = None,
    ) -> User:
        """A new user in the organization (default: the world's) with ``role``."""
        address = email or ".".join(name.lower().split()) + "@example.com"
        return self.deployment.add_user(name, address, self._org(organization_id), Role(role))

    def users(self) -> list[User]:
        """Every user, members or not."""
        return list(self.deployment.users.values())

    def remove_user(self, user_id: str, organization_id: str | None = None) -> None:
        """Remove the user from the organization; their PATs stop working at once."""
        org = self._org(organization_id)
        role = self.deployment.user(user_id).memberships.get(org)
        if role is not None:
            self._roles_before_removal[(user_id, org)] = role
        self.deployment.remove_user(user_id, org)

    def restore_user(self, user_id: str, organization_id: str | None = None) -> Role:
        """Add a removed user back with the role they had (member if unknown)."""
        org = self._org(organization_id)
        role = self._roles_before_removal.pop((user_id, org), Role.MEMBER)
        self.deployment.set_role(user_id, org, role)
        return role

    def set_role(self, user_id: str, role: Role | str, organization_id: str | None = None) -> None:
        """Change the user's role, or add them back to the organization with it."""
        self.deployment.set_role(user_id, self._org(organization_id), Role(role))

    def add_client(
        self, user_id: str | None = None, organization_id: str | None = None
    ) -> tuple[str, str]:
        """An API key acting as ``user_id`` (default: the world's admin) in
        ``organization_id`` (default: the world's): ``(client_id, client_secret)``."""
        return self.deployment.add_client(
            user_id or self.world.admin_id, self._org(organization_id)
        )

    def clients(self) -> list[ApiClient]:
        """Every API client (their secrets are not kept)."""
        return list(self.deployment.clients.values())

    def add_hub(
        self,
        name: str,
        *,
        organization_id: str | None = None,
        created_by: str | None = None,
        **fields: Any,
    ) -> Hub:
        """A hub in the organization; ``fields`` may set label, description, status, ..."""
        creator = created_by or self.world.admin_id
        return self.deployment.add_hub(
            self._org(organization_id), name, created_by=creator, **fields
        )

    def hubs(self) -> list[Hub]:
        """Every hub of every organization."""
        return list(self.deployment.hubs)

    # -- the management-UI path ------------------------------------------------------------

    def request_token_via_ui(
        self, user_id: str, name: str, organization_id: str | None = None
    ) -> CreatedToken:
        """The management UI path: an admin's token works at once, anyone else's pends."""
        return self.deployment.request_token_via_ui(user_id, self._org(organization_id), name)

    def pending_requests(self, organization_id: str | None = None) -> list[PatRecord]:
        """Token requests waiting for an admin, oldest first (every organization's if none)."""
        return [
            t
            for t in list(self.deployment.tokens.values())
            if t.status is PatStatus.PENDING
            and (organization_id is None or t.organization_id == organization_id)
        ]

    def approve_token_request(self, token_id: str, approver_id: str | None = None) -> PatRecord:
        """An admin approves a pending token; it becomes usable."""
        return self.deployment.approve_token_request(token_id, approver_id)

    def reject_token_request(self, token_id: str) -> None:
        """An admin rejects a pending token; it disappears."""
        self.deployment.reject_token_request(token_id)

    # -- the profile -----------------------------------------------------------------------

    def profile_document(self) -> dict[str, Any]:
        """The active profile (docs/profile.md) as a document of ``specs/profile.schema.json``."""
        return self.deployment.profile.as_document()

    # -- the clock -------------------------------------------------------------------------

    def clock_now(self) -> datetime:
        """The fake's current instant."""
        return self.deployment.clock.now()

    def clock_view(self) -> dict[str, Any]:
        """The clock as JSON values: now, and how far it was advanced."""
        clock = self.deployment.clock
        return {"now": format_timestamp(clock.now()), "offset_seconds": clock.offset}

    def advance_clock(self, seconds: float) -> None:
        """Move the fake's time forward (client tokens expire; PATs do not)."""
        self.deployment.clock.advance(seconds)

    # -- the request log -------------------------------------------------------------------

    def requests(
        self,
        page: int = 0,
        size: int = 50,
        *,
        status: int | str | None = None,
        path: str | None = None,
    ) -> RequestPage:
        """The request log, newest first, filtered by status (``429``, ``"4xx"``) and path."""
        return self.request_log.page(page, size, status=status, path=path)

    def clear_requests(self) -> None:
        """Empty the request log."""
        self.request_log.clear()

    # -- faults ----------------------------------------------------------------------------

    @property
    def faults(self) -> Faults:
        """The fault rules and the rate-limit switch (:class:`~patgate.fake.faults.Faults`)."""
        return self.deployment.faults

    def add_fault(self, endpoint: str = "any", **spec: Any) -> FaultRule:
        """Add a fault rule (see :mod:`patgate.fake.faults`)."""
        return self.deployment.faults.add(endpoint, **spec)

    def remove_fault(self, rule_id: str) -> None:
        """Remove one fault rule."""
        self.deployment.faults.remove(rule_id)

    def clear_faults(self) -> None:
        """Remove every fault rule and switch the rate limit off."""
        self.deployment.faults.clear()

    def set_rate_limit(self, on: bool) -> None:
        """Switch the GraphQL rate limit (60 per minute per key) on or off."""
        self.deployment.faults.set_rate_limit(on)

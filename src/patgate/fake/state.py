"""A deployment's whole state as plain JSON values, and back: for reset and ``--state``.

What is written: organizations, users and their roles, API clients and PATs (hashes of their
secrets only, never a value), hubs, the clock's offset and the id generator's position, so
ids made after a restore continue the same sequence. Client-credential tokens are not kept:
their signing key lives and dies with the process, and clients fetch a new one.
"""

from __future__ import annotations

import copy
import random
from datetime import datetime
from typing import Any

from patgate.errors import UsageError
from patgate.fake.deployment import Deployment
from patgate.fake.model import ApiClient, Hub, Organization, PatRecord, PatStatus, Role, User

__all__ = ["STATE_VERSION", "export_state", "load_state"]

STATE_VERSION = 1


def _when(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _moment(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text is not None else None


def export_state(deployment: Deployment) -> dict[str, Any]:
    """The deployment's state as JSON values (a deep copy: later changes do not show)."""
    with deployment._lock:
        random_state = deployment.ids.random_state()
        return {
            "version": STATE_VERSION,
            "pat_prefix": deployment.pat_format.prefix,
            "clock_offset": deployment.clock.offset,
            "ids": random_state,
            "organizations": [
                {"id": o.id, "name": o.name} for o in deployment.organizations.values()
            ],
            "users": [
                {
                    "id": u.id,
                    "uuid": u.uuid,
                    "name": u.name,
                    "email": u.email,
                    "memberships": {org: role.value for org, role in u.memberships.items()},
                }
                for u in deployment.users.values()
            ],
            "clients": [
                {
                    "client_id": c.client_id,
                    "secret_hash": c.secret_hash.hex(),
                    "user_id": c.user_id,
                    "organization_id": c.organization_id,
                }
                for c in deployment.clients.values()
            ],
            "hubs": [
                {
                    "id": h.id,
                    "organization_id": h.organization_id,
                    "name": h.name,
                    "label": h.label,
                    "description": h.description,
                    "status": h.status,
                    "settings": copy.deepcopy(h.settings),
                    "created_by": h.created_by,
                    "created_date": _when(h.created_date),
                    "last_modified_by": h.last_modified_by,
                    "last_modified_date": _when(h.last_modified_date),
                }
                for h in deployment.hubs
            ],
            "tokens": [
                {
                    "id": t.id,
                    "user_id": t.user_id,
                    "organization_id": t.organization_id,
                    "name": t.name,
                    "id_segment": t.id_segment,
                    "secret_hash": t.secret_hash.hex(),
                    "masked": t.masked,
                    "created_date": _when(t.created_date),
                    "last_used_date": _when(t.last_used_date),
                    "status": t.status.value,
                }
                for t in deployment.tokens.values()
            ],
        }


def load_state(deployment: Deployment, state: dict[str, Any]) -> None:
    """Replace the deployment's state with ``state`` (from :func:`export_state`).

    A state of another version, another PAT prefix or a wrong shape raises
    :class:`~patgate.errors.UsageError` naming the problem; the deployment is then unchanged.
    """
    if not isinstance(state, dict) or state.get("version") != STATE_VERSION:
        raise UsageError(f"the state is not a patgate state of version {STATE_VERSION}")
    if state.get("pat_prefix") != deployment.pat_format.prefix:
        raise UsageError(
            f"the state's PAT prefix {state.get('pat_prefix')!r} is not this fake's "
            f"{deployment.pat_format.prefix!r}"
        )
    try:
        organizations = [Organization(o["id"], o["name"]) for o in state["organizations"]]
        users = [
            User(
                u["id"],
                u["uuid"],
                u["name"],
                u["email"],
                {org: Role(role) for org, role in u["memberships"].items()},
            )
            for u in state["users"]
        ]
        clients = [
            ApiClient(
                c["client_id"], bytes.fromhex(c["secret_hash"]), c["user_id"], c["organization_id"]
            )
            for c in state["clients"]
        ]
        hubs = [_hub(h) for h in state["hubs"]]
        tokens = [_token(t) for t in state["tokens"]]
        offset = float(state["clock_offset"])
        ids = state["ids"]
        probe = random.Random()
        probe.setstate(_random_state(ids))
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise UsageError(f"the state is damaged: {type(error).__name__}: {error}") from None
    with deployment._lock:
        deployment.replace_state(organizations, users, clients, hubs, tokens)
        deployment.clock.set_offset(offset)
        deployment.ids.set_random_state(ids)


def _random_state(value: Any) -> tuple[Any, ...]:
    version, internal, gauss = value
    return (version, tuple(internal), gauss)


def _hub(h: dict[str, Any]) -> Hub:
    return Hub(
        id=h["id"],
        organization_id=h["organization_id"],
        name=h["name"],
        label=h["label"],
        description=h["description"],
        status=h["status"],
        settings=copy.deepcopy(h["settings"]),
        created_by=h["created_by"],
        created_date=datetime.fromisoformat(h["created_date"]),
        last_modified_by=h["last_modified_by"],
        last_modified_date=datetime.fromisoformat(h["last_modified_date"]),
    )


def _token(t: dict[str, Any]) -> PatRecord:
    created = _moment(t["created_date"])
    if created is None:
        raise ValueError("a token without a creation date")
    return PatRecord(
        id=t["id"],
        user_id=t["user_id"],
        organization_id=t["organization_id"],
        name=t["name"],
        id_segment=t["id_segment"],
        secret_hash=bytes.fromhex(t["secret_hash"]),
        masked=t["masked"],
        created_date=created,
        last_used_date=_moment(t["last_used_date"]),
        status=PatStatus(t["status"]),
    )

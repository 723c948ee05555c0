"""The JSON view of each domain object, written once for every place that shows one.

Two forms of the same view: ``stored`` (``fake/state.py``: the state ``reset`` returns to,
``patgate serve --state``'s snapshot and journal: every field, hashes of secrets, dates in
full precision) and shown (the control answers and ``ControlService.snapshot``: no hash and
no secret, a PAT masked, dates as the API writes them). A field both forms show is written
here once, so the two never drift apart.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from patgate.fake.clock import format_timestamp
from patgate.fake.faults import FaultRule, Faults
from patgate.fake.model import ApiClient, CreatedToken, Hub, Organization, PatRecord, User

__all__ = [
    "client_json",
    "control_view",
    "hub_json",
    "organization_json",
    "token_json",
    "user_json",
]


def _stored_moment(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _shown_moment(moment: datetime | None) -> str | None:
    return format_timestamp(moment) if moment is not None else None


def settings_copy(settings: Any) -> Any:
    """A hub's settings, copied (most hubs have none: no deepcopy's bookkeeping for those)."""
    return {} if type(settings) is dict and not settings else copy.deepcopy(settings)


def organization_json(o: Organization, *, stored: bool = False) -> dict[str, Any]:
    """An organization: its id and name (both forms)."""
    return {"id": o.id, "name": o.name}


def user_json(u: User, *, stored: bool = False) -> dict[str, Any]:
    """A user: id, name, e-mail and role per organization (stored: its uuid too, and the
    roles under ``memberships``)."""
    roles = {org: role.value for org, role in u.memberships.items()}
    if stored:
        return {"id": u.id, "uuid": u.uuid, "name": u.name, "email": u.email, "memberships": roles}
    return {"id": u.id, "name": u.name, "email": u.email, "roles": roles}


def client_json(c: ApiClient, *, stored: bool = False) -> dict[str, Any]:
    """An API client; never its secret (stored: the secret's hash)."""
    view = {"client_id": c.client_id, "user_id": c.user_id, "organization_id": c.organization_id}
    return (
        {"client_id": c.client_id, "secret_hash": c.secret_hash.hex(), **view} if stored else view
    )


def hub_json(h: Hub, *, stored: bool = False) -> dict[str, Any]:
    """A hub (stored: every field, its settings copied)."""
    view = {
        "id": h.id,
        "organization_id": h.organization_id,
        "name": h.name,
        "label": h.label,
    }
    if not stored:
        return {**view, "status": h.status}
    return {
        **view,
        "description": h.description,
        "status": h.status,
        "settings": settings_copy(h.settings),
        "created_by": h.created_by,
        "created_date": _stored_moment(h.created_date),
        "last_modified_by": h.last_modified_by,
        "last_modified_date": _stored_moment(h.last_modified_date),
    }


def token_json(t: PatRecord, *, stored: bool = False) -> dict[str, Any]:
    """A stored PAT, never its value: shown masked with its status (stored: the hash of its
    secret and its id segment too)."""
    moment = _stored_moment if stored else _shown_moment
    view: dict[str, Any] = {
        "id": t.id,
        "user_id": t.user_id,
        "organization_id": t.organization_id,
        "name": t.name,
    }
    if stored:
        view.update(id_segment=t.id_segment, secret_hash=t.secret_hash.hex(), masked=t.masked)
    else:
        view.update(token=t.masked, status=t.status.value)
    view["created_date"] = moment(t.created_date)
    view["last_used_date"] = moment(t.last_used_date)
    if stored:
        view["status"] = t.status.value
    return view


def _created_token(created: CreatedToken) -> dict[str, Any]:
    # The one time the full value is shown, as the management UI shows it once.
    return {**token_json(created.record), "value": created.value}


def _faults(faults: Faults) -> dict[str, Any]:
    return {"faults": [rule.to_json() for rule in faults.rules()], "rate_limit": faults.rate_limit}


_SHOWN: Mapping[type, Callable[[Any], Any]] = {
    Organization: organization_json,
    User: user_json,
    ApiClient: client_json,
    Hub: hub_json,
    PatRecord: token_json,
    CreatedToken: _created_token,
    FaultRule: FaultRule.to_json,
    Faults: _faults,
}


def control_view(value: Any) -> Any:
    """What a control answer shows of ``value``: a domain object's shown view, a list of
    them, or a JSON value as it is."""
    show = _SHOWN.get(type(value))
    if show is not None:
        return show(value)
    if isinstance(value, list | tuple):
        return [control_view(item) for item in value]
    return value

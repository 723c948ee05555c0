"""A deployment's whole state as plain JSON values, and back: for reset and ``--state``.

What is written: organizations, users and their roles, API clients and PATs (hashes of their
secrets only, never a value), hubs, the clock's offset and the id generator's position, so
ids made after a restore continue the same sequence. Client-credential tokens are not kept:
their signing key lives and dies with the process, and clients fetch a new one.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from patgate.errors import UsageError
from patgate.fake.deployment import Deployment
from patgate.fake.model import ApiClient, Hub, Organization, PatRecord, PatStatus, Role, User
from patgate.fake.views import (
    client_json,
    hub_json,
    organization_json,
    settings_copy,
    token_json,
    user_json,
)

if TYPE_CHECKING:
    from patgate.fake.changes import Taken

__all__ = [
    "STATE_VERSION",
    "apply_changes",
    "changed_records",
    "exclusive",
    "export_state",
    "load_state",
    "state_document",
]

STATE_VERSION = 1


def _moment(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text is not None else None


def exclusive(deployment: Deployment) -> contextlib.AbstractContextManager[Any]:
    """The deployment's lock: while held, no operation changes the state (the journal of
    ``patgate serve --state`` takes its entries and snapshots under it)."""
    return deployment.exclusive()


def _organization_json(o: Organization) -> dict[str, Any]:
    return organization_json(o, stored=True)


def _user_json(u: User) -> dict[str, Any]:
    return user_json(u, stored=True)


def _client_json(c: ApiClient) -> dict[str, Any]:
    return client_json(c, stored=True)


def _hub_json(h: Hub) -> dict[str, Any]:
    return hub_json(h, stored=True)


def _token_json(t: PatRecord) -> dict[str, Any]:
    return token_json(t, stored=True)


# How a record of each store is keyed, and written.
KEY_OF = {
    "organizations": "id",
    "users": "id",
    "clients": "client_id",
    "hubs": "id",
    "tokens": "id",
}


def export_state(deployment: Deployment) -> dict[str, Any]:
    """The deployment's state as JSON values (a deep copy: later changes do not show)."""
    d = deployment
    with d.exclusive():
        return state_document(
            pat_prefix=d.pat_format.prefix,
            clock_offset=d.clock.offset,
            ids=d.ids.random_state(),
            organizations=d.organizations.values(),
            users=d.users.values(),
            clients=d.clients.values(),
            hubs=d.hubs,
            tokens=d.tokens.values(),
        )


def state_document(
    *,
    pat_prefix: str,
    clock_offset: float,
    ids: list[Any],
    organizations: Iterable[Organization],
    users: Iterable[User],
    clients: Iterable[ApiClient],
    hubs: Iterable[Hub],
    tokens: Iterable[PatRecord],
) -> dict[str, Any]:
    """A state as :func:`export_state` writes it, from records held outside a deployment
    (the default world's as it was built, whatever a test changed since)."""
    return {
        "version": STATE_VERSION,
        "pat_prefix": pat_prefix,
        "clock_offset": clock_offset,
        "ids": ids,
        "organizations": [_organization_json(o) for o in organizations],
        "users": [_user_json(u) for u in users],
        "clients": [_client_json(c) for c in clients],
        "hubs": [_hub_json(h) for h in hubs],
        "tokens": [_token_json(t) for t in tokens],
    }


def changed_records(deployment: Deployment, taken: Taken) -> dict[str, Any]:
    """A journal entry's values for the changes ``taken``: each changed record's current
    value (``None`` once removed), the clock's offset and the id generator's position when
    they moved; the whole state after a reset. Call it holding ``deployment.exclusive()``."""
    if taken.full:
        return {"full": export_state(deployment)}
    entry: dict[str, Any] = {}
    d = deployment
    lookups: dict[str, Callable[[str], dict[str, Any] | None]] = {
        "organizations": lambda key: _maybe(_organization_json, d.organizations.get(key)),
        "users": lambda key: _maybe(_user_json, d.users.get(key)),
        "clients": lambda key: _maybe(_client_json, d.clients.get(key)),
        "hubs": lambda key: _maybe(_hub_json, d.find_hub(key)),
        "tokens": lambda key: _maybe(_token_json, d.tokens.get(key)),
    }
    for store, keys in taken.keys.items():
        if keys:
            entry[store] = {key: lookups[store](key) for key in sorted(keys)}
    if taken.clock:
        entry["clock_offset"] = d.clock.offset
    if taken.ids:
        entry["ids"] = d.ids.random_state()
    return entry


def _maybe(write: Callable[[Any], dict[str, Any]], record: Any) -> dict[str, Any] | None:
    return None if record is None else write(record)


def apply_changes(state: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    """``state`` (from :func:`export_state`) with one entry of :func:`changed_records`
    applied: a record added, replaced where it stood, or removed. Applying an entry twice
    changes nothing more, so a journal may be replayed over a newer snapshot."""
    if "full" in entry:
        full: dict[str, Any] = entry["full"]
        return full
    for store, records in entry.items():
        if store not in KEY_OF:
            continue
        key = KEY_OF[store]
        by_key = {item[key]: item for item in state[store]}
        for record_key, record in records.items():
            if record is None:
                by_key.pop(record_key, None)
            else:
                by_key[record_key] = record
        state[store] = list(by_key.values())
    if "clock_offset" in entry:
        state["clock_offset"] = entry["clock_offset"]
    if "ids" in entry:
        state["ids"] = entry["ids"]
    return state


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
        deployment.clock.check_offset(offset)
        ids = state["ids"]
        probe = random.Random()
        probe.setstate(_random_state(ids))
    except RecursionError:
        raise UsageError("the state is damaged: a value is nested too deeply") from None
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as error:
        raise UsageError(f"the state is damaged: {type(error).__name__}: {error}") from None
    with deployment.exclusive():
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
        settings=settings_copy(h["settings"]),
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

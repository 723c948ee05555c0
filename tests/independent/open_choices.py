"""The independent deployment's choices on the profile's newer fields, and how it serves them.

Like :mod:`.deployment` it reads nothing of patgate: only the vendor's documentation (where
it is silent, each field here is a choice) and the profile contract's field names.

:data:`FURTHER_CHOICES` says what the deployment does on these fields unless told otherwise
(what it has always done); :data:`SECOND_CHOICE_PARTS` is a second deployment's choices, one
entry per open point, and :data:`SECOND_CHOICES` all of them at once, to give as
``running_independent_deployment(choices=SECOND_CHOICES)``.

The helpers below render what those choices change: the token answer and a hub record
through their shape (a key the shape lacks is omitted; one the deployment does not know is
served with the shape's ``sample``), a timestamp's precision and UTC offset, a content API
refusal as JSON or RFC 9457 problem details, the announced rate limit's headers, the hubs'
order and a page's links.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

__all__ = [
    "FREE_FORM_SECTIONS",
    "FURTHER_CHOICES",
    "SECOND_CHOICES",
    "SECOND_CHOICE_PARTS",
    "check_further",
    "merged_over",
    "ordered_hubs",
    "page_links",
    "problem_body",
    "rate_limit_headers",
    "refusal_message",
    "shaped",
    "timestamp_text",
    "with_further",
]

FURTHER_CHOICES: dict[str, Any] = {
    "hubs": {"order": "created_descending"},
    "pages": {"over_maximum": "refused", "links": ["self"]},
    "date_offset": {"lastUsedDate": "Z", "hubs": "Z"},
    "rate_limit": {"announce": "none"},
    "pat_creation": {"client_credentials": "refused"},
    "graphql": {"refusal_status": "ok"},
    "content_errors": {"format": "json"},
    "refusal_messages": {},
    "shapes": {},
}
"""What the deployment does on the profile's newer fields unless ``choices=`` says otherwise:
hubs newest first, a size over the maximum refused, self-only page links, ``Z`` for UTC, no
announced rate limit, no PAT created with a client-credential token (it names no user), a
refusal inside an executed GraphQL document answered 200, content refusals as JSON, no
per-operation refusal message, every answer as it has always looked (no shape)."""

FREE_FORM_SECTIONS = ("refusal_messages", "shapes")
"""Sections whose keys are names chosen by the profile (operations, answers), not fields."""

HUB_ORDERS = ("created_ascending", "created_descending", "name_ascending", "name_descending")
PAGE_RELATIONS = ("self", "first", "prev", "next", "last")
PRECISIONS = ("seconds", "milliseconds", "microseconds")
OFFSETS = ("Z", "+00:00")
OPERATIONS = ("token", "hubs", "hub", "create_token", "list_tokens", "delete_token")
SHAPED_ANSWERS = {"token": "application/json", "hub": "application/hal+json"}
"""The answers this deployment renders through a shape, with the content type it serves."""

_TEXT = {"type": "string", "form": "text"}
_DATE = {"type": "string", "form": "date-time/milliseconds/Z"}

TOKEN_SHAPE: dict[str, Any] = {
    "status": 200,
    "content_type": "application/json",
    "headers": [],
    "body": {
        "type": "object",
        "keys": {
            "access_token": {"type": "string", "form": "jwt"},
            "expires_in": {"type": "integer"},
            "session_expires_in": {"type": "integer"},
            "scope": {"type": "string", "form": "text", "sample": "content"},
        },
    },
}
"""The second deployment's token answer: no ``token_type``, a ``scope`` (the fake serves no
scope, so it carries a sample; ``session_expires_in`` is documented, the fake serves it)."""

HUB_SHAPE: dict[str, Any] = {
    "status": 200,
    "content_type": "application/hal+json",
    "headers": [],
    "body": {
        "type": "object",
        "keys": {
            "id": _TEXT,
            "name": _TEXT,
            "label": _TEXT,
            "status": _TEXT,
            "createdBy": _TEXT,
            "createdDate": _DATE,
            "lastModifiedBy": _TEXT,
            "lastModifiedDate": _DATE,
            "region": {"type": "string", "form": "text", "sample": "eu-west-1"},
            "plan": {"type": "string", "form": "text", "sample": "enterprise"},
            "_links": {
                "type": "object",
                "keys": {
                    "self": {
                        "type": "object",
                        "keys": {"href": {"type": "string", "form": "uri"}},
                    }
                },
            },
        },
    },
}
"""The second deployment's hub record: the first one's fields, plus ``region`` and ``plan``."""

CLIENT_CREDENTIAL_REFUSED = "a user credential is required"

SECOND_CHOICE_PARTS: dict[str, dict[str, Any]] = {
    "token_type_absent": {"client_token": {"token_type": None}},
    "token_extra_fields": {"shapes": {"token": TOKEN_SHAPE}},
    "problem_json_errors": {"content_errors": {"format": "problem+json"}},
    "last_used_microseconds": {
        "date_precision": {"lastUsedDate": "microseconds"},
        "date_offset": {"lastUsedDate": "+00:00"},
    },
    "refusal_status": {
        "graphql": {"refusal_status": "refusal"},
        "refusals": {"token_limit": {"status": 409}},
    },
    "over_maximum_cut": {"pages": {"over_maximum": "cut"}},
    "hubs_name_descending": {"hubs": {"order": "name_descending"}},
    "hub_extra_fields": {"shapes": {"hub": HUB_SHAPE}},
    "self_only_pages": {"pages": {"links": ["self"]}},
    "admin_pat_creates": {
        "pat_creation": {"client_credentials": "refused"},
        "refusal_messages": {"create_token": {"forbidden": CLIENT_CREDENTIAL_REFUSED}},
    },
    "announced_rate_limit": {
        "rate_limit": {"requests_per_minute": 1200, "announce": "ratelimit_headers"}
    },
}
"""A second deployment's choices, one entry per open point, each in the profile contract's
shape (only the fields it sets)."""


def merged_over(base: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``changes`` laid over it, mapping by mapping, new keys added (a shape's
    ``keys`` and a delete result's ``fields`` are replaced whole: they list what is there)."""
    merged = copy.deepcopy(dict(base))
    for key, value in changes.items():
        current = merged.get(key)
        whole = key in ("keys", "fields")
        if isinstance(current, dict) and isinstance(value, Mapping) and not whole:
            merged[key] = merged_over(current, value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def _all_parts() -> dict[str, Any]:
    chosen: dict[str, Any] = {}
    for part in SECOND_CHOICE_PARTS.values():
        chosen = merged_over(chosen, part)
    return chosen


SECOND_CHOICES: dict[str, Any] = _all_parts()
"""Every entry of :data:`SECOND_CHOICE_PARTS` at once: the second deployment."""


def with_further(choices: Mapping[str, Any]) -> dict[str, Any]:
    """``choices`` (the first deployment's) with :data:`FURTHER_CHOICES` added."""
    return merged_over(choices, FURTHER_CHOICES)


# -- checking what can be served --------------------------------------------------------------


def _one_of(value: Any, allowed: Sequence[Any], name: str) -> None:
    if value not in allowed:
        raise ValueError(f"choices: {name} {value!r} (this deployment serves {list(allowed)})")


def check_further(choices: Mapping[str, Any], known_hub_fields: Sequence[str]) -> None:
    """Raise ``ValueError`` naming the field where ``choices`` asks what this deployment
    cannot serve on the newer fields."""
    _one_of(choices["hubs"]["order"], HUB_ORDERS, "hubs.order")
    _one_of(choices["pages"]["over_maximum"], ("refused", "cut"), "pages.over_maximum")
    links = choices["pages"]["links"]
    if "self" not in links or [r for r in links if r not in PAGE_RELATIONS]:
        raise ValueError(f"choices: pages.links {links!r} (self, then any of {PAGE_RELATIONS})")
    _one_of(choices["date_precision"]["lastUsedDate"], PRECISIONS, "date_precision.lastUsedDate")
    for name, offset in choices["date_offset"].items():
        _one_of(offset, OFFSETS, f"date_offset.{name}")
    rate_limit = choices["rate_limit"] or {}
    announce = rate_limit.get("announce", "none")
    _one_of(announce, ("none", "ratelimit_headers"), "rate_limit.announce")
    if announce != "none" and not rate_limit.get("requests_per_minute"):
        raise ValueError("choices: rate_limit.announce needs rate_limit.requests_per_minute")
    # A client-credential token names no user, and a PAT belongs to a user: nobody to own it.
    _one_of(choices["pat_creation"]["client_credentials"], ("refused",), "pat_creation")
    _one_of(choices["graphql"]["refusal_status"], ("ok", "refusal"), "graphql.refusal_status")
    _one_of(choices["content_errors"]["format"], ("json", "problem+json"), "content_errors")
    _one_of(choices["client_token"]["token_type"], ("bearer", "Bearer", None), "token_type")
    for operation, kinds in choices["refusal_messages"].items():
        _one_of(operation, OPERATIONS, "refusal_messages operation")
        for kind, message in kinds.items():
            _one_of(kind, list(choices["refusals"]), f"refusal_messages.{operation}")
            if not isinstance(message, str) or not message:
                raise ValueError(f"choices: refusal_messages.{operation}.{kind} {message!r}")
    _check_shapes(choices, known_hub_fields)


def _check_shapes(choices: Mapping[str, Any], known_hub_fields: Sequence[str]) -> None:
    served = {
        "token": ("access_token", "token_type", "expires_in", "session_expires_in", "scope"),
        "hub": (*known_hub_fields, "_links"),
    }
    always = {"token": {"access_token"}, "hub": {"id", "name"}}
    for answer, shape in choices["shapes"].items():
        _one_of(answer, list(SHAPED_ANSWERS), "shapes answer")
        where = f"choices: shapes.{answer}"
        if shape.get("status", 200) != 200:
            raise ValueError(f"{where}.status {shape['status']!r} (a success answers 200)")
        if shape.get("content_type", SHAPED_ANSWERS[answer]) != SHAPED_ANSWERS[answer]:
            raise ValueError(
                f"{where}.content_type: this deployment serves {SHAPED_ANSWERS[answer]}"
            )
        keys: Mapping[str, Any] = shape["body"]["keys"]
        if not always[answer] <= set(keys):
            raise ValueError(f"{where}.body.keys lacks {sorted(always[answer] - set(keys))}")
        unserved = [k for k in keys if k not in served[answer] and "sample" not in keys[k]]
        if unserved:
            raise ValueError(f"{where}.body.keys {unserved} have no sample to serve")
    token_keys = choices["shapes"].get("token", {}).get("body", {}).get("keys", {})
    if choices["client_token"]["token_type"] is None and "token_type" in token_keys:
        raise ValueError("choices: client_token.token_type is null, shapes.token has it")


# -- rendering ----------------------------------------------------------------------------------


def shaped(known: Mapping[str, Any], shape: Mapping[str, Any] | None) -> dict[str, Any]:
    """``known`` (every key the deployment can serve, in its order) through ``shape``: its
    keys in the shape's order, a key the deployment lacks served with its sample."""
    if shape is None:
        return dict(known)
    keys: Mapping[str, Any] = shape["body"]["keys"]
    return {key: known[key] if key in known else node["sample"] for key, node in keys.items()}


def timestamp_text(moment: float, precision: str, offset: str) -> str:
    """ISO 8601 in UTC, to the second, millisecond or microsecond, naming UTC as ``Z`` or
    ``+00:00``."""
    stamp = datetime.fromtimestamp(moment, timezone.utc)
    fraction = {
        "seconds": "",
        "milliseconds": f".{stamp.microsecond // 1000:03d}",
        "microseconds": f".{stamp.microsecond:06d}",
    }[precision]
    return stamp.strftime("%Y-%m-%dT%H:%M:%S") + fraction + offset


def refusal_message(choices: Mapping[str, Any], kind: str, operation: str | None) -> str:
    """The message of a refusal of ``kind`` in ``operation``: the operation's own, if chosen."""
    chosen = choices["refusal_messages"].get(operation or "", {}).get(kind)
    message: str = chosen if chosen is not None else choices["refusals"][kind]["message"]
    return message


def problem_body(kind: str, status: int, code: str | None, message: str) -> dict[str, Any]:
    """An RFC 9457 problem details object for a refusal (``type`` names its kind)."""
    return {
        "type": f"https://problems.independent.invalid/{kind.replace('_', '-')}",
        "title": (code or kind).replace("_", " ").capitalize(),
        "status": status,
        "detail": message,
    }


def rate_limit_headers(limit: int, remaining: int, reset: int) -> dict[str, str]:
    """The announced quota: the policy (a window of 60 s) and what is left of it."""
    return {
        "RateLimit-Policy": f"{limit};w=60",
        "RateLimit": f"limit={limit}, remaining={max(remaining, 0)}, reset={max(reset, 0)}",
    }


def ordered_hubs(hubs: Sequence[Any], order: str) -> list[Any]:
    """Hubs (with ``name`` and ``created``) in the chosen order; ties keep their order."""
    descending = order.endswith("descending")
    if order.startswith("name"):
        return sorted(hubs, key=lambda hub: hub.name, reverse=descending)
    return sorted(hubs, key=lambda hub: hub.created, reverse=descending)


def page_links(
    relations: Sequence[str], href: Any, number: int, total_pages: int
) -> dict[str, Any]:
    """A hubs page's ``_links``: each chosen relation, ``prev`` and ``next`` only where they
    apply; ``href(number)`` is a page's address."""
    last = max(total_pages - 1, 0)
    targets = {"self": number, "first": 0, "last": last}
    if number > 0:
        targets["prev"] = min(number - 1, last)
    if number < last:
        targets["next"] = number + 1
    return {rel: {"href": href(targets[rel])} for rel in relations if rel in targets}

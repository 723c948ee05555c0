"""The profile: every choice the fake makes where the vendor's documentation is silent.

A profile is one YAML document (``specs/profile.schema.json``, ``profile_version: 1``); the
shipped default (``default_profile.json`` beside this module: JSON, which is YAML too, so the
first fake of a process needs no YAML parser) is the fake's behaviour when no profile is
given. :func:`load_profile` reads a file or a mapping, fills what it leaves out
from the default, and returns a frozen :class:`Profile`; anything wrong is a
:class:`~patgate.errors.UsageError` naming the file and line (or the field, for a mapping):
an unknown field with the nearest known name, a wrong type, or a value that contradicts a
documented rule (the cap of 5, masked listings, admin-only creation, ``createdDate`` in
milliseconds), quoting the clause.

The domain reads the parts it needs (mask, name limit, listing and hub order, dates, the
delete result's shape, who may create); the wire layer reads the refusals and their
per-operation messages, the client token's ``token_type``, the hub fields and links, the
page sizes and links, the rate limit's announcement, the GraphQL refusal status, the content
errors' format and the answers' ``shapes`` (:mod:`patgate.fake.answer_shapes`). ``accepted``
is for ``patgate compare`` alone. The documented rules a profile cannot change live in
:mod:`patgate.fake.profile_rules`.
"""

from __future__ import annotations

import copy
import functools
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from os import PathLike
from pathlib import Path
from types import MappingProxyType
from typing import Any

from patgate.basics.resources import specs_dir
from patgate.errors import UsageError
from patgate.fake.profile_rules import (
    DOCUMENTED,
    refuse_contradictions,
    refuse_documented,
    schema_problem,
)

__all__ = [
    "DEFAULT_PROFILE_PATH",
    "DOCUMENTED",
    "OPERATIONS",
    "REFUSAL_KINDS",
    "AcceptedDifference",
    "DeleteResult",
    "MaskedToken",
    "Profile",
    "RefusalShape",
    "default_profile",
    "load_profile",
]

DEFAULT_PROFILE_PATH = Path(__file__).resolve().parent / "default_profile.json"
"""The shipped default profile."""

REFUSAL_KINDS = (
    "unauthenticated",
    "forbidden",
    "not_found",
    "token_limit",
    "invalid_input",
    "rate_limited",
)
"""Every kind of refusal a profile shapes, in the document's order."""

OPERATIONS = ("token", "hubs", "hub", "create_token", "list_tokens", "delete_token")
"""The operations ``refusal_messages`` names: the token endpoint, the hubs listing, one hub,
and the three PAT operations of GraphQL."""

MAX_PROFILE_BYTES = 1024 * 1024
"""A profile file above 1 MiB is refused (a real one is about 1 KiB); it is read under the
discipline of :mod:`patgate.guards.supplied_files` (no aliases, no foreign tags, UTF-8 only)."""
MAX_PROFILE_DEPTH = 16
"""A profile nested deeper than this is refused (a real one has 4 levels)."""
MAX_PROFILE_VALUES = 10_000
"""A profile with more values than this is refused (a real one has about 80)."""


@dataclass(frozen=True)
class DeleteResult:
    """What ``deletePersonalAccessToken`` answers."""

    shape: str
    """``boolean`` or ``object``."""
    object_type: str
    fields: tuple[tuple[str, str], ...]
    """(field, what it carries: ``token_id``, ``true`` or ``name``), in order."""

    @property
    def is_object(self) -> bool:
        """Whether the result is an object (else a Boolean)."""
        return self.shape == "object"


@dataclass(frozen=True)
class MaskedToken:
    """The listing's masked form of a token."""

    visible_characters: int
    mask_character: str
    mask_width: int


@dataclass(frozen=True)
class RefusalShape:
    """How one kind of refusal looks where the documentation is silent."""

    status: int
    code: str | None
    message: str | None
    """``None``: the fake's own wording for each refusal."""


@dataclass(frozen=True)
class AcceptedDifference:
    """A difference ``patgate compare`` reports as accepted until ``expires`` has passed."""

    field: str
    """A dotted path as compare names it (``shapes.hub.body.keys.plan``)."""
    reason: str
    expires: date

    def holds_on(self, day: date) -> bool:
        """Whether the acceptance still holds on ``day`` (it does on its expiry day)."""
        return day <= self.expires


@dataclass(frozen=True)
class Profile:
    """A loaded, checked profile (immutable; shared between fakes)."""

    delete_result: DeleteResult
    masked_token: MaskedToken
    refusals: Mapping[str, RefusalShape]
    expires_in: int
    token_type: str | None
    """``None``: the token answer has no ``token_type`` field."""
    hub_fields: tuple[str, ...]
    hub_links: tuple[str, ...]
    hub_date_precision: str
    default_page_size: int
    maximum_page_size: int
    requests_per_minute: int | None
    name_max_length: int
    listing_order: str
    last_used_precision: str
    last_used_interval: int
    hub_order: str
    over_maximum: str
    """``refused`` (invalid input) or ``cut`` (served with size = the maximum)."""
    page_links: tuple[str, ...]
    """The relations a hubs page links (in the fake's order, where they apply)."""
    last_used_offset: str
    hub_date_offset: str
    rate_limit_announce: str
    client_credentials_creation: str
    graphql_refusal_status: str
    content_error_format: str
    refusal_messages: Mapping[str, Mapping[str, str]]
    """Per operation (:data:`OPERATIONS`), per kind: the message; see :meth:`message_for`."""
    accepted: tuple[AcceptedDifference, ...]
    shapes: Mapping[str, Mapping[str, Any]]
    """Per answer (``token``, ``hub``, ``refusal.content.not_found``...): its shape
    (:mod:`patgate.fake.answer_shapes`); read-only by convention."""
    source: str = "default"
    """Where it came from: a path, ``<mapping>`` or ``default``."""

    @functools.cached_property
    def _identity(self) -> str:
        return json.dumps(self.as_document(), sort_keys=True)

    def __hash__(self) -> int:
        return hash(self._identity)

    def __eq__(self, other: object) -> bool:
        """Equal when every choice is (wherever each came from)."""
        if not isinstance(other, Profile):
            return NotImplemented
        return self._identity == other._identity

    def as_document(self) -> dict[str, Any]:
        """The profile as a YAML-ready mapping of the schema's shape (every field)."""
        return {
            "profile_version": 1,
            "delete_result": {
                "shape": self.delete_result.shape,
                "object_type": self.delete_result.object_type,
                "fields": dict(self.delete_result.fields),
            },
            "masked_token": {
                "visible_characters": self.masked_token.visible_characters,
                "mask_character": self.masked_token.mask_character,
                "mask_width": self.masked_token.mask_width,
            },
            "refusals": {
                kind: {"status": r.status, "code": r.code, "message": r.message}
                for kind, r in self.refusals.items()
            },
            "client_token": {"expires_in": self.expires_in, "token_type": self.token_type},
            "hubs": {
                "fields": list(self.hub_fields),
                "links": list(self.hub_links),
                "date_precision": self.hub_date_precision,
                "order": self.hub_order,
            },
            "pages": {
                "default_size": self.default_page_size,
                "maximum_size": self.maximum_page_size,
                "over_maximum": self.over_maximum,
                "links": list(self.page_links),
            },
            "rate_limit": {
                "requests_per_minute": self.requests_per_minute,
                "announce": self.rate_limit_announce,
            },
            "pat_name": {"max_length": self.name_max_length},
            "listing_order": self.listing_order,
            "date_precision": {"lastUsedDate": self.last_used_precision},
            "last_used_date": {"update_interval_seconds": self.last_used_interval},
            **self._knobs_document(),
        }

    def _knobs_document(self) -> dict[str, Any]:
        return {
            "date_offset": {"lastUsedDate": self.last_used_offset, "hubs": self.hub_date_offset},
            "pat_creation": {"client_credentials": self.client_credentials_creation},
            "graphql": {"refusal_status": self.graphql_refusal_status},
            "content_errors": {"format": self.content_error_format},
            "refusal_messages": {op: dict(kinds) for op, kinds in self.refusal_messages.items()},
            "accepted": [
                {"field": a.field, "reason": a.reason, "expires": a.expires.isoformat()}
                for a in self.accepted
            ],
            "shapes": copy.deepcopy({name: dict(shape) for name, shape in self.shapes.items()}),
        }

    def message_for(self, operation: str, kind: str) -> str | None:
        """The message of a ``kind`` refusal of ``operation``: ``refusal_messages`` first,
        then ``refusals.<kind>.message``; ``None``: the fake's own wording."""
        by_kind = self.refusal_messages.get(operation)
        if by_kind is not None and kind in by_kind:
            return by_kind[kind]
        return self.refusals[kind].message

    @property
    def is_default(self) -> bool:
        """Whether every choice is the shipped default's."""
        return self == default_profile()


@functools.cache
def _schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        (specs_dir() / "profile.schema.json").read_text(encoding="utf-8")
    )
    return loaded


@functools.cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(_schema())


@functools.cache
def _default_document() -> Mapping[str, Any]:
    # JSON, read by the standard library: the YAML parser's import is a fifth of what the
    # first fake of every process pays, and the default is all most processes read.
    loaded = json.loads(DEFAULT_PROFILE_PATH.read_text(encoding="utf-8"))
    return MappingProxyType(loaded)


@functools.cache
def default_profile() -> Profile:
    """The shipped default profile (read once)."""
    return _build(copy.deepcopy(dict(_default_document())), "default")


def load_profile(
    source: str | PathLike[str] | Mapping[str, Any] | Profile | None,
) -> Profile:
    """A checked :class:`Profile` from a YAML file's path, a mapping, or ``None`` (default).

    Fields left out keep the default's value. Raises :class:`~patgate.errors.UsageError`
    naming the file and line (a mapping: the field) of an unknown field (with the nearest
    known name), a wrong type or value, or a value that contradicts a documented rule.
    """
    if source is None:
        return default_profile()
    if isinstance(source, Profile):
        return source
    if isinstance(source, Mapping):
        return _load_mapping(source)
    if isinstance(source, (str, PathLike)):
        return _load_file(os.fspath(source))
    raise UsageError(f"a profile is a path or a mapping, got {type(source).__name__}")


_MAX_KEPT = 64
_kept: dict[object, Profile] = {}
"""Profiles already loaded: a file by its identity and version (device, inode, mtime, size),
a mapping by its canonical JSON; so a fake per test with the same profile reads it once."""


def _remember(key: object, profile: Profile) -> Profile:
    if len(_kept) >= _MAX_KEPT:
        _kept.clear()
    _kept[key] = profile
    return profile


def _load_file(path: str) -> Profile:
    from patgate.guards.supplied_files import FileRefused, load_yaml

    try:
        # A stat, not an open, when the file is known: a fake per test costs nothing more.
        status = os.stat(path)
    except OSError as error:
        raise UsageError(f"profile: {path}: cannot read: {error.strerror}") from None
    key = ("file", status.st_dev, status.st_ino, status.st_mtime_ns, status.st_size)
    kept = _kept.get(key)
    if kept is not None:
        return kept
    try:
        documents = load_yaml(path, limit=MAX_PROFILE_BYTES, max_depth=MAX_PROFILE_DEPTH)
    except FileRefused as error:
        raise UsageError(f"profile: {error}") from None
    if len(documents) != 1 or not isinstance(documents[0].data, dict):
        raise UsageError(f"profile: {path}:1: a profile is one mapping (profile_version: 1, ...)")
    document = documents[0]

    def where(at: Sequence[str | int]) -> str:
        return f"profile: {path}:{document.line_of(at)}: "

    _bounded(document.data, f"profile: {path}: ")
    _plain_dates(document.data)

    return _remember(key, _checked(document.data, where, path))


def _load_mapping(mapping: Mapping[str, Any]) -> Profile:
    try:
        # In order: the order of fields and lists is meant.
        text = json.dumps(mapping, default=_iso_date)
    except (TypeError, ValueError) as error:
        raise UsageError(f"profile: not a plain mapping of JSON values: {error}") from None
    kept = _kept.get(("mapping", text))
    if kept is not None:
        return kept
    data = json.loads(text)
    _bounded(data, "profile: ")
    if not isinstance(data, dict):  # pragma: no cover - a Mapping dumps as an object
        raise UsageError("profile: a profile is a mapping")

    def where(_at: Sequence[str | int]) -> str:
        return "profile: "

    return _remember(("mapping", text), _checked(data, where, "<mapping>"))


def _bounded(data: Any, where: str) -> None:
    """Refuse a document of more than :data:`MAX_PROFILE_VALUES` values (YAML aliases can
    make a small file a huge tree), counting without walking past the budget."""
    budget = MAX_PROFILE_VALUES
    stack = [data]
    while stack:
        value = stack.pop()
        budget -= 1
        if budget < 0:
            raise UsageError(f"{where}more than {MAX_PROFILE_VALUES} values: not a profile")
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


def _iso_date(value: object) -> str:
    if isinstance(value, date):  # a datetime is a date too
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not a JSON value")


def _plain_dates(data: Any) -> None:
    """YAML reads an unquoted 2027-01-31 as a date: written back as the text it was."""
    stack = [data]
    while stack:
        value = stack.pop()
        pairs = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in list(pairs):
            if isinstance(item, date):
                value[key] = item.isoformat()
            elif isinstance(item, (dict, list)):
                stack.append(item)


def _checked(data: dict[str, Any], where: Any, source: str) -> Profile:
    if "profile_version" not in data:
        raise UsageError(f"{where(())}missing 'profile_version' (write profile_version: 1)")
    refuse_documented(data, where)
    # YAML reads an unquoted true as a Boolean; the delete result's field says "true".
    fields = (
        data.get("delete_result", {}).get("fields")
        if isinstance(data.get("delete_result"), dict)
        else None
    )
    if isinstance(fields, dict):
        for name, carried in fields.items():
            if carried is True:
                fields[name] = "true"
    # The deepest problem first (the most precise message), then in document order.
    errors = sorted(
        _validator().iter_errors(data),
        key=lambda e: (-len(e.absolute_path), [str(part) for part in e.absolute_path]),
    )
    if errors:
        raise UsageError(schema_problem(errors[0], where))
    merged = _merged(data)
    refuse_contradictions(merged, where)
    return _build(merged, source)


def _merged(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` over the default: each section's fields, each refusal kind's fields."""
    merged = copy.deepcopy(dict(_default_document()))
    for key, value in data.items():
        if key == "refusals":
            for kind, fields in value.items():
                merged["refusals"][kind] = {**merged["refusals"][kind], **fields}
        elif isinstance(value, dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


def _build(document: dict[str, Any], source: str) -> Profile:
    delete = document["delete_result"]
    mask = document["masked_token"]
    hubs = document["hubs"]
    fields = list(hubs["fields"])
    for required in ("name", "id"):
        if required not in fields:
            fields.insert(0, required)
    return Profile(
        delete_result=DeleteResult(
            delete["shape"], delete["object_type"], tuple(delete["fields"].items())
        ),
        masked_token=MaskedToken(
            mask["visible_characters"], mask["mask_character"], mask["mask_width"]
        ),
        refusals=MappingProxyType(
            {
                kind: RefusalShape(
                    document["refusals"][kind]["status"],
                    document["refusals"][kind]["code"],
                    document["refusals"][kind]["message"],
                )
                for kind in REFUSAL_KINDS
            }
        ),
        expires_in=document["client_token"]["expires_in"],
        token_type=document["client_token"]["token_type"],
        hub_fields=tuple(fields),
        hub_links=tuple(hubs["links"]),
        hub_date_precision=hubs["date_precision"],
        default_page_size=document["pages"]["default_size"],
        maximum_page_size=document["pages"]["maximum_size"],
        requests_per_minute=document["rate_limit"]["requests_per_minute"],
        name_max_length=document["pat_name"]["max_length"],
        listing_order=document["listing_order"],
        last_used_precision=document["date_precision"]["lastUsedDate"],
        last_used_interval=document["last_used_date"]["update_interval_seconds"],
        **_knobs(document),
        source=source,
    )


def _knobs(document: dict[str, Any]) -> dict[str, Any]:
    """The fields of the second round of knobs, by :class:`Profile`'s names."""
    return dict(
        hub_order=document["hubs"]["order"],
        over_maximum=document["pages"]["over_maximum"],
        page_links=tuple(document["pages"]["links"]),
        last_used_offset=document["date_offset"]["lastUsedDate"],
        hub_date_offset=document["date_offset"]["hubs"],
        rate_limit_announce=document["rate_limit"]["announce"],
        client_credentials_creation=document["pat_creation"]["client_credentials"],
        graphql_refusal_status=document["graphql"]["refusal_status"],
        content_error_format=document["content_errors"]["format"],
        refusal_messages=MappingProxyType(
            {
                op: MappingProxyType(dict(kinds))
                for op, kinds in document["refusal_messages"].items()
            }
        ),
        accepted=tuple(
            AcceptedDifference(a["field"], a["reason"], date.fromisoformat(a["expires"]))
            for a in document["accepted"]
        ),
        shapes=MappingProxyType(dict(document["shapes"])),
    )

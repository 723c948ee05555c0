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

The domain reads the parts it needs (mask, name limit, listing order, dates, the delete
result's shape); the wire layer reads the refusals, the client token's ``token_type``, the
hub fields and links and the page sizes.
"""

from __future__ import annotations

import copy
import functools
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from types import MappingProxyType
from typing import Any

from patgate.basics.resources import specs_dir
from patgate.errors import UsageError

__all__ = [
    "DEFAULT_PROFILE_PATH",
    "DOCUMENTED",
    "REFUSAL_KINDS",
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

MAX_PROFILE_BYTES = 1024 * 1024
"""A profile file above 1 MiB is refused (a real one is about 1 KiB); it is read under the
discipline of :mod:`patgate.guards.supplied_files` (no aliases, no foreign tags, UTF-8 only)."""
MAX_PROFILE_DEPTH = 16
"""A profile nested deeper than this is refused (a real one has 4 levels)."""
MAX_PROFILE_VALUES = 10_000
"""A profile with more values than this is refused (a real one has about 80)."""

ID_SEGMENT_LENGTH = 22
"""Characters of a PAT's id segment (16 bytes in base64url)."""


@dataclass(frozen=True)
class Clause:
    """A documented clause, as ``specs/rules.yaml``'s ``specification`` restates it."""

    section: str
    text: str

    def __str__(self) -> str:
        return f'section {self.section}: "{self.text}"'


_CAP = Clause("8", "PATs per user: Up to 5")
_MASKED = Clause(
    "2.1", "In listings only the start is returned and the rest is replaced by asterisks."
)
_MATCH = Clause(
    "4.3",
    "Finding a token's owner: send the token itself as the bearer token and query viewer "
    "with personalAccessTokens, email, id and name. Match the masked token to the one "
    "used, then delete it by id. The caller must still be an admin of the organization in "
    "which the token was created.",
)
_ADMIN = Clause(
    "4.3",
    "Creating a token through the API requires organization admin permission in the "
    "organization given by organizationId.",
)
_CREATED_MS = Clause(
    "2.1", "createdDate: string, ISO 8601 UTC timestamp with milliseconds. Creation time."
)
_NO_EXPIRY = Clause("8", "Lifetime of a PAT: No expiry")
_TOKEN_400 = Clause("7", "Invalid client id or secret at the token endpoint: HTTP 400.")


@dataclass(frozen=True)
class Documented:
    """A field a profile might carry for a documented rule: only the documented value."""

    where: tuple[str, ...]
    allowed: object
    clause: Clause
    what: str


DOCUMENTED: tuple[Documented, ...] = (
    Documented(("token_cap",), 5, _CAP, "the cap of 5 tokens per user is documented"),
    Documented(("max_tokens_per_user",), 5, _CAP, "the cap of 5 tokens per user is documented"),
    Documented(("masked_listings",), True, _MASKED, "listings are documented as masked"),
    Documented(
        ("admin_only_creation",),
        True,
        _ADMIN,
        "creation through the API is documented as admin-only",
    ),
    Documented(
        ("date_precision", "createdDate"),
        "milliseconds",
        _CREATED_MS,
        "createdDate's milliseconds are documented",
    ),
    Documented(("pat_expires_in",), None, _NO_EXPIRY, "a PAT is documented as never expiring"),
    Documented(
        ("refusals", "invalid_client"), None, _TOKEN_400, "the token endpoint's 400 is documented"
    ),
)
"""Documented rules a profile may name only with their documented value (then dropped)."""


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
class Profile:
    """A loaded, checked profile (immutable; shared between fakes)."""

    delete_result: DeleteResult
    masked_token: MaskedToken
    refusals: Mapping[str, RefusalShape]
    expires_in: int
    token_type: str
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
            },
            "pages": {
                "default_size": self.default_page_size,
                "maximum_size": self.maximum_page_size,
            },
            "rate_limit": {"requests_per_minute": self.requests_per_minute},
            "pat_name": {"max_length": self.name_max_length},
            "listing_order": self.listing_order,
            "date_precision": {"lastUsedDate": self.last_used_precision},
            "last_used_date": {"update_interval_seconds": self.last_used_interval},
        }

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

    return _remember(key, _checked(document.data, where, path))


def _load_mapping(mapping: Mapping[str, Any]) -> Profile:
    try:
        text = json.dumps(mapping)  # in order: the order of fields and lists is meant
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


def _dotted(at: Sequence[str | int]) -> str:
    return ".".join(str(part) for part in at) or "(top)"


def _checked(data: dict[str, Any], where: Any, source: str) -> Profile:
    if "profile_version" not in data:
        raise UsageError(f"{where(())}missing 'profile_version' (write profile_version: 1)")
    _refuse_documented(data, where)
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
        raise UsageError(_schema_problem(errors[0], where))
    merged = _merged(data)
    _refuse_contradictions(merged, where)
    return _build(merged, source)


def _refuse_documented(data: dict[str, Any], where: Any) -> None:
    for rule in DOCUMENTED:
        parent: Any = data
        for key in rule.where[:-1]:
            parent = parent.get(key) if isinstance(parent, dict) else None
        if not isinstance(parent, dict) or rule.where[-1] not in parent:
            continue
        value = parent[rule.where[-1]]
        if value == rule.allowed and type(value) is type(rule.allowed):
            del parent[rule.where[-1]]  # the documented value: nothing to choose
            continue
        raise _contradiction(rule.where, value, rule.what, rule.clause, where)


def _contradiction(
    at: Sequence[str], value: object, what: str, clause: Clause, where: Any
) -> UsageError:
    return UsageError(
        f"{where(at)}{_dotted(at)}: {value!r} contradicts a documented rule "
        f"({what}; {clause}); a profile names only what the documentation leaves open"
    )


def _refuse_contradictions(merged: dict[str, Any], where: Any) -> None:
    mask = merged["masked_token"]
    visible = mask["visible_characters"]
    if visible >= ID_SEGMENT_LENGTH:
        raise _contradiction(
            ("masked_token", "visible_characters"),
            visible,
            f"showing {ID_SEGMENT_LENGTH} or more characters reveals the whole id segment",
            _MASKED,
            where,
        )
    if visible < 1:
        raise _contradiction(
            ("masked_token", "visible_characters"),
            visible,
            "with no character of the id shown, a masked token cannot be matched to the one used",
            _MATCH,
            where,
        )
    if mask["mask_width"] < 1:
        raise _contradiction(
            ("masked_token", "mask_width"),
            mask["mask_width"],
            "without a mask the listing is not masked",
            _MASKED,
            where,
        )
    if mask["mask_character"] != "*":
        raise _contradiction(
            ("masked_token", "mask_character"),
            mask["mask_character"],
            "the mask is documented as asterisks",
            _MASKED,
            where,
        )
    taken = _schema_type_names()
    if merged["delete_result"]["object_type"] in taken:
        raise UsageError(
            f"{where(('delete_result', 'object_type'))}delete_result.object_type: "
            f"{merged['delete_result']['object_type']!r} is already a type of the GraphQL "
            "schema; name the result's own type"
        )
    pages = merged["pages"]
    if pages["default_size"] > pages["maximum_size"]:
        raise UsageError(
            f"{where(('pages', 'default_size'))}pages.default_size "
            f"({pages['default_size']}) is larger than pages.maximum_size ({pages['maximum_size']})"
        )


@functools.cache
def _schema_type_names() -> frozenset[str]:
    """The type names ``specs/schema.graphql`` defines, and GraphQL's own scalars."""
    import re

    sdl = (specs_dir() / "schema.graphql").read_text(encoding="utf-8")
    defined = re.findall(r"^(?:type|input|scalar|enum|interface|union)\s+(\w+)", sdl, re.M)
    return frozenset({*defined, "String", "Boolean", "ID", "Int", "Float"})


def _schema_problem(problem: Any, where: Any) -> str:
    at: list[str | int] = list(problem.absolute_path)
    if problem.validator == "additionalProperties":
        allowed = sorted(problem.schema.get("properties", {}))
        unknown = [key for key in problem.instance if key not in allowed]
        name = unknown[0] if unknown else "?"
        import difflib  # only for a wrong name's nearest known one

        nearest = difflib.get_close_matches(str(name), allowed, n=1, cutoff=0.5)
        hint = (
            f"; did you mean {_dotted([*at, nearest[0]])!r}?"
            if nearest
            else f"; known: {', '.join(allowed)}"
        )
        at = [*at, name]
        return f"{where(at)}unknown field {_dotted(at)!r}{hint}"
    field = _dotted(at)
    if problem.validator == "type":
        expected = problem.validator_value
        names: list[str] = expected if isinstance(expected, list) else [expected]
        shown = " or ".join(_YAML_TYPES.get(name, name) for name in names)
        return (
            f"{where(at)}{field} must be {_article(shown)}, "
            f"got {type(problem.instance).__name__} {problem.instance!r}"
        )
    if problem.validator == "enum":
        choices = ", ".join(repr(choice) for choice in problem.validator_value)
        return f"{where(at)}{field} must be one of {choices}, got {problem.instance!r}"
    if problem.validator == "const":
        return f"{where(at)}{field} must be {problem.validator_value!r}, got {problem.instance!r}"
    return f"{where(at)}{field}: {problem.message}"


_YAML_TYPES: dict[str, str] = {"array": "list", "object": "mapping", "null": "null (~)"}
"""JSON Schema's type names in the words of a YAML file."""


def _article(shown: str) -> str:
    return f"an {shown}" if shown[:1] in "aeiou" else f"a {shown}"


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
        source=source,
    )

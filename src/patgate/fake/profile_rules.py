"""The documented rules a profile cannot change, and the words of a profile's problems.

:mod:`patgate.fake.profile` loads a profile; this module refuses a field that contradicts a
documented rule (quoting the clause of ``specs/rules.yaml``'s ``specification``) and words a
schema problem (an unknown field with the nearest known name, a wrong type, a value outside
its choices) for the file and line the loader names.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from patgate.basics.resources import specs_dir
from patgate.errors import UsageError

__all__ = [
    "DOCUMENTED",
    "ID_SEGMENT_LENGTH",
    "Clause",
    "Documented",
    "dotted",
    "refuse_contradictions",
    "refuse_documented",
    "schema_problem",
]

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


def dotted(at: Sequence[str | int]) -> str:
    return ".".join(str(part) for part in at) or "(top)"


def refuse_documented(data: dict[str, Any], where: Any) -> None:
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
        f"{where(at)}{dotted(at)}: {value!r} contradicts a documented rule "
        f"({what}; {clause}); a profile names only what the documentation leaves open"
    )


def refuse_contradictions(merged: dict[str, Any], where: Any) -> None:
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
    for index, accepted in enumerate(merged["accepted"]):
        try:
            date.fromisoformat(accepted["expires"])
        except ValueError:
            at = ("accepted", index, "expires")
            raise UsageError(
                f"{where(at)}{dotted(at)}: {accepted['expires']!r} is not a date (YYYY-MM-DD)"
            ) from None
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


def schema_problem(problem: Any, where: Any) -> str:
    at: list[str | int] = list(problem.absolute_path)
    if problem.validator == "additionalProperties":
        allowed = sorted(problem.schema.get("properties", {}))
        unknown = [key for key in problem.instance if key not in allowed]
        name = unknown[0] if unknown else "?"
        import difflib  # only for a wrong name's nearest known one

        nearest = difflib.get_close_matches(str(name), allowed, n=1, cutoff=0.5)
        hint = (
            f"; did you mean {dotted([*at, nearest[0]])!r}?"
            if nearest
            else f"; known: {', '.join(allowed)}"
        )
        at = [*at, name]
        return f"{where(at)}unknown field {dotted(at)!r}{hint}"
    field = dotted(at)
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

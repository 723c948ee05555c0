"""The field catalogue: every field a probe may observe, by probe, in the order they are seen.

A field is a dotted path: a profile field (``pages.over_maximum``), a shape
(``shapes.refusal.content.not_found``: compare diffs it node by node, calibrate writes it
under ``shapes``), or one of the answers compare looks at that no profile field holds
(:data:`NOT_PROFILE_FIELDS`).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "CREATE",
    "DELETE",
    "DERIVED_FIELDS",
    "FIELDS",
    "FIELDS_OF",
    "HUBS",
    "NOT_PROFILE_FIELDS",
    "SHAPE_PREFIX",
    "TOKEN_REQUEST",
    "VIEWER",
    "WRITE_FIELDS",
    "WRITE_PROBES",
    "refusal_fields",
]

TOKEN_REQUEST = "POST {auth_url}/oauth/token (client_credentials)"
HUBS = "GET {base_url}/v2/content/hubs"
VIEWER = "POST {graphql_url}: query viewer { personalAccessTokens }"
CREATE = "POST {graphql_url}: mutation createPersonalAccessToken"
DELETE = "POST {graphql_url}: mutation deletePersonalAccessToken"
"""The requests a finding names, with the target's keys in braces (never a credential)."""

SHAPE_PREFIX = "shapes."
"""Fields that hold an answer's shape start so; the rest of the name is the answer."""


def refusal_fields(kind: str, keys: Sequence[str] = ("status", "code")) -> tuple[str, ...]:
    """``refusals.<kind>.<key>`` for each key."""
    return tuple(f"refusals.{kind}.{key}" for key in keys)


_TOKEN_REFUSALS = ("unauthenticated", "invalid_input")
_CONTENT_REFUSALS = ("invalid_input", "not_found", "forbidden", "unauthenticated")

_READ = {
    "client token": (
        "client_token.expires_in",
        "client_token.token_type",
        "shapes.token",
        *(f"shapes.refusal.token.{kind}" for kind in _TOKEN_REFUSALS),
        *(f"refusal_messages.token.{kind}" for kind in _TOKEN_REFUSALS),
    ),
    "hubs listing": (
        "shapes.hubs_page",
        "hubs.fields",
        "hubs.links",
        "hubs.date_precision",
        "date_offset.hubs",
        "hubs.order",
        "shapes.hub",
        "pages.default_size",
        "pages.maximum_size",
        "pages.over_maximum",
        "pages.links",
        "refusals.invalid_input.status",
        "refusals.not_found.status",
        "refusals.forbidden.status",
        "content_errors.format",
        *(f"shapes.refusal.content.{kind}" for kind in _CONTENT_REFUSALS),
        "refusal_messages.hubs.invalid_input",
        "refusal_messages.hub.not_found",
        "refusal_messages.hubs.forbidden",
        "refusal_messages.hubs.unauthenticated",
    ),
    "unauthenticated refusal": (
        *refusal_fields("unauthenticated"),
        "refusal_messages.list_tokens.unauthenticated",
    ),
    "token listing": (
        "masked_token.visible_characters",
        "masked_token.mask_character",
        "masked_token.mask_width",
        "date_precision.lastUsedDate",
        "date_offset.lastUsedDate",
    ),
    "delete result shape": (
        "delete_result.shape",
        "delete_result.object_type",
        "rate_limit.announce",
        "rate_limit.requests_per_minute",
    ),
}
WRITE_PROBES = {
    "token lifecycle": ("listing_order", "last_used_date.update_interval_seconds"),
    "token limit": (
        "refusals.token_limit.code",
        "refusal_messages.create_token.token_limit",
        "graphql_refusal_status.token_limit",
    ),
    "lifecycle deletes": ("delete_result.fields",),
    "client-credential create": ("pat_creation.client_credentials",),
    "name length": (
        "pat_name.max_length",
        "refusals.invalid_input.code",
        "refusal_messages.create_token.invalid_input",
        "graphql_refusal_status.invalid_input",
    ),
    "unknown id": (
        "refusals.not_found.code",
        "refusal_messages.delete_token.not_found",
        "graphql_refusal_status.not_found",
    ),
    "non-admin create": (
        "refusals.forbidden.code",
        "refusal_messages.create_token.forbidden",
        "graphql_refusal_status.forbidden",
    ),
}
"""The write probes' fields (seen only with ``--allow-writes``)."""
DERIVED_FIELDS = ("graphql.refusal_status", "refusals.token_limit.status")
"""Fields read off the write probes' refusals once they all ran."""
_DERIVED = DERIVED_FIELDS

FIELDS_OF: dict[str, tuple[str, ...]] = {**_READ, **WRITE_PROBES}
"""Probe name -> the fields it may observe."""
WRITE_FIELDS: tuple[str, ...] = (
    *(name for fields in WRITE_PROBES.values() for name in fields),
    *_DERIVED,
)
FIELDS: tuple[str, ...] = (
    *(name for fields in FIELDS_OF.values() for name in fields),
    *_DERIVED,
)
"""Every field a probe may observe, in the order the probes look at them."""
NOT_PROFILE_FIELDS = frozenset(name for name in FIELDS if name.startswith("graphql_"))
"""Fields compare looks at that no profile field holds: ``graphql_refusal_status.<kind>``,
the HTTP status of a refusal inside an executed GraphQL request (the profile holds the rule
that sets it, ``graphql.refusal_status``)."""

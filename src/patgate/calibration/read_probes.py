"""The read-only GraphQL probes: the unauthenticated refusal, the admin's token listing and
the delete result's shape (with the rate limit its answer announces).

They send no mutation. The listing is also judged against the documented rules (masked, at
most 5, ``createdDate`` in milliseconds): a broken one is a gate failure, never a value.
"""

from __future__ import annotations

from patgate.calibration.answer_reading import VIEWER, at, mask, offset, precision, record_refusal
from patgate.calibration.content_probes import read_rate_limit
from patgate.calibration.fields import FIELDS_OF
from patgate.calibration.probing import Probing
from patgate.runner.connection.answers import TokenListing

__all__ = ["CAP", "judge_listing", "probe_delete_shape", "probe_listing", "probe_unauthenticated"]

CAP = 5
"""The documented number of tokens a user may hold."""


def probe_unauthenticated(probing: Probing) -> None:
    """``refusals.unauthenticated``: a GraphQL query without a token."""
    fields = FIELDS_OF["unauthenticated refusal"]
    if not probing.key("graphql_url"):
        probing.missed(fields, "needs graphql_url")
        return
    request = "POST {graphql_url}: query viewer (no token)"
    observed = probing.graphql("query { viewer { id } }", bearer_key=None)
    if observed.status == 200 and at(observed.body, "data", "viewer"):
        probing.broke("AUTH-REQUIRED", "the viewer query answered data without a token", request)
        probing.missed(fields, "the target answered without a token (a gate failure)")
        return
    record_refusal(probing, "unauthenticated", observed, request, "list_tokens")


def probe_listing(probing: Probing) -> None:
    """The admin's own tokens: the masked form, ``lastUsedDate``'s precision and offset, and
    the documented rules a listing shows (masked, at most 5, createdDate with milliseconds);
    read before the cap probe fills the admin's tokens."""
    fields = FIELDS_OF["token listing"]
    if not (probing.key("graphql_url") and probing.key("admin_token")):
        probing.missed(fields, "needs graphql_url and admin_token")
        return
    listed = probing.listing(probing.key("admin_token"))
    if listed is None:
        probing.missed(fields, "the admin's tokens could not be listed")
        return
    judge_listing(probing, listed)
    if not listed.entries:
        probing.missed(fields, "the admin holds no token to read the listing from")


def judge_listing(probing: Probing, listed: TokenListing, *, counts: bool = True) -> None:
    """Read a listing: record the masked form and the date precision, note broken rules
    (``counts``: more than 5 tokens breaks PAT-CAP; not for a listing taken while the cap
    probe fills the admin's tokens, which judges the cap itself). Its malformed entries
    are broken rules of their own (:meth:`Probing.listing`), not counted here."""
    prefix = probing.context.config.pat_prefix
    held = len(listed.tokens)
    if counts and held > CAP:
        probing.broke("PAT-CAP", f"the admin's listing holds {held} tokens", VIEWER)
    for token in listed.entries:
        value = token.get("token")
        if isinstance(value, str) and value:
            masked = mask(value, prefix)
            if masked is None:
                probing.broke(
                    "PAT-LIST-MASKED", "a listed token is not masked (shown in full?)", VIEWER
                )
            elif masked[1] != "*" or "." in value[len(prefix) : len(prefix) + masked[0]]:
                probing.broke(
                    "PAT-LIST-MASKED",
                    "a listed token is masked with another character than an asterisk, "
                    "or shows its secret segment",
                    VIEWER,
                )
            elif not probing.seen("masked_token.mask_width"):
                probing.masked = value
                visible, char, width = masked
                probing.found("masked_token.visible_characters", visible, VIEWER)
                probing.found("masked_token.mask_character", char, VIEWER)
                probing.found("masked_token.mask_width", width, VIEWER)
        created = token.get("createdDate")
        if created is not None and precision(created) != "milliseconds":
            probing.broke(
                "PAT-DATE-FORMAT",
                f"createdDate {created!r} is not ISO 8601 UTC with milliseconds",
                VIEWER,
            )
        used = precision(token.get("lastUsedDate"))
        if used is not None and not probing.seen("date_precision.lastUsedDate"):
            probing.found("date_precision.lastUsedDate", used, VIEWER)
            probing.found("date_offset.lastUsedDate", offset(token.get("lastUsedDate")), VIEWER)


_DELETE_TYPE = (
    "query { __schema { mutationType { fields { name type { kind name ofType { kind name "
    "ofType { kind name ofType { kind name } } } } } } } }"
)


def probe_delete_shape(probing: Probing) -> None:
    """``delete_result.shape`` and ``object_type`` through introspection (read-only), and
    the rate limit the answer announces (``rate_limit``); the probes' own deletes select
    what the result's shape needs from then on."""
    fields = ("delete_result.shape", "delete_result.object_type")
    if not (probing.key("graphql_url") and probing.key("admin_token")):
        probing.missed(fields, "needs graphql_url and admin_token")
        return
    request = "POST {graphql_url}: introspection of deletePersonalAccessToken"
    observed = probing.graphql(_DELETE_TYPE)
    read_rate_limit(probing, observed, request)
    mutations = at(observed.body, "data", "__schema", "mutationType", "fields")
    if observed.status != 200 or not isinstance(mutations, list):
        probing.missed(fields, f"introspection is not answered (HTTP {observed.status})")
        return
    entry = next(
        (
            m
            for m in mutations
            if isinstance(m, dict) and m.get("name") == "deletePersonalAccessToken"
        ),
        None,
    )
    type_ref = entry.get("type") if entry else None
    while isinstance(type_ref, dict) and type_ref.get("kind") in ("NON_NULL", "LIST"):
        type_ref = type_ref.get("ofType")
    if not isinstance(type_ref, dict):
        probing.missed(fields, "the schema names no deletePersonalAccessToken mutation")
        return
    kind, name = type_ref.get("kind"), type_ref.get("name")
    probing.delete_selection = "" if kind in ("SCALAR", "ENUM") else " { __typename }"
    if kind in ("SCALAR", "ENUM"):
        probing.found("delete_result.shape", "boolean" if name == "Boolean" else str(name), request)
        probing.missed(("delete_result.object_type",), "the result is not an object")
        return
    probing.found("delete_result.shape", "object", request)
    probing.found("delete_result.object_type", name, request)
    described = probing.graphql(f'query {{ __type(name: "{name}") {{ fields {{ name }} }} }}')
    listed = at(described.body, "data", "__type", "fields")
    if isinstance(listed, list):
        probing.schema_fields = tuple(
            str(f["name"]) for f in listed if isinstance(f, dict) and isinstance(f.get("name"), str)
        )

"""The write probes: each makes and deletes tokens of its own, through the ledger.

The token lifecycle creates three tokens named out of creation order, lists them (the
listing order), uses one twice (``lastUsedDate``); the token limit fills the admin's tokens
to the cap and asks for one more; the lifecycle's deletes select every field of the result
(what each carries). The name probe searches the longest name taken; the unknown id, the
non-admin's create and the client-credential create show their refusals. Every create goes
through the session's custodian, so the ledger holds each token before it exists and the
session's close deletes whatever a probe left.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from patgate.calibration.answer_reading import (
    CREATE,
    DELETE,
    VIEWER,
    at,
    bounded_search,
    describe_order,
    first_error,
    offset,
    precision,
    record_refusal,
)
from patgate.calibration.fields import FIELDS_OF
from patgate.calibration.probing import Probing
from patgate.calibration.read_probes import CAP, judge_listing
from patgate.runner.connection.answers import TokenListing, created_token
from patgate.runner.model import Observed

__all__ = [
    "COUNTED",
    "LIFECYCLE_DELETES",
    "MADE",
    "probe_client_credentials",
    "probe_forbidden",
    "probe_lifecycle",
    "probe_lifecycle_deletes",
    "probe_name_length",
    "probe_not_found",
    "probe_token_limit",
]

COUNTED = "token lifecycle:counted"
"""Reached once the lifecycle listed the admin's tokens (:attr:`Probing.held` is known)."""
MADE = "token lifecycle:made"
"""Reached once the lifecycle made its tokens or gave up (:attr:`Probing.room` is known)."""
LIFECYCLE_DELETES = "lifecycle deletes"
"""The probe that deletes the lifecycle's tokens (reached once it ended)."""
_NAME_CEILING = 4096
"""The longest name the name probe tries."""
_USE_GAP = 1.1
"""Seconds between the two uses that show whether ``lastUsedDate`` moves on every use, for a
date in whole seconds (one with fractions shows a move after :data:`_FINE_GAP`)."""
_FINE_GAP = 0.05
_INTERVALS = (5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600)
"""The update intervals tried (seconds since the first use), within ``max_wait``."""
_LAST_USED = "last_used_date.update_interval_seconds"
_USE_REQUEST = f"{VIEWER} with the new token after its first use"
_USE_QUERY = "query { viewer { id } }"


def probe_lifecycle(probing: Probing) -> None:
    """Create three tokens of the probe's own (names out of creation order), list them and
    use one twice: the listing order and ``lastUsedDate``. The tokens stay for the token
    limit (they count toward the cap) and are deleted by :func:`probe_lifecycle_deletes`."""
    fields = FIELDS_OF["token lifecycle"]
    admin = probing.key("admin_token")
    if not (admin and probing.key("graphql_url")):
        probing.missed(fields, "needs graphql_url and admin_token")
        return
    try:
        if not _make(probing, admin, fields):
            return
    finally:
        probing.milestones.reach(COUNTED, MADE)
    listed = probing.listing(admin)
    if listed is not None:
        judge_listing(probing, listed, counts=False)
    entries = listed.entries if listed is not None else ()
    order = describe_order(entries, [i for i, _, _ in probing.made])
    if order is None:
        probing.missed(("listing_order",), "the new tokens were not all listed")
    else:
        probing.found("listing_order", order, f"{CREATE} x3, then {VIEWER}")
    first, used_at = _first_use(probing, admin, probing.made[0])
    if first is not None:
        _moves(probing, admin, probing.made[0], first, time.monotonic() - used_at)


def _make(probing: Probing, admin: str, fields: tuple[str, ...]) -> bool:
    """Count the admin's tokens, then make three: whether they all exist."""
    listed = probing.listing(admin)
    # A malformed entry is not counted: if it is a token after all, a create meets the cap
    # early and the probe misses, where counting it could see a sixth token made.
    held = None if listed is None else len(listed.tokens)
    probing.held = held
    probing.milestones.reach(COUNTED)
    if held is None:
        probing.missed(fields, "the admin's tokens could not be listed")
        return False
    if CAP - held < 3:
        probing.room = CAP - held
        probing.missed(fields, f"the admin holds {held} tokens; the probe needs room for 3")
        return False
    for name in _out_of_order_names(probing):
        observed = probing.create(name)
        token = created_token(observed) if isinstance(observed.body, dict) else None
        if token is None or not token.token:
            why = f"a create was answered HTTP {observed.status} without a token"
            probing.missed(fields, why)
            return False
        probing.made.append((token.id, name, token.token))
    probing.room = CAP - held - len(probing.made)
    return True


def _out_of_order_names(probing: Probing) -> list[str]:
    """Three fresh names, in the order they are created: the second, the third, the first
    by name. Creation order, its reverse, name order and reverse name order then differ, so
    the listing shows which one the target keeps."""
    names = sorted(probing.name() for _ in range(3))
    return [names[1], names[2], names[0]]


def probe_lifecycle_deletes(probing: Probing) -> None:
    """Delete the lifecycle's tokens side by side, the first selecting every field of the
    result (``delete_result.fields``)."""
    admin = probing.key("admin_token")
    made = list(probing.made)
    if not (admin and made):
        probing.missed(FIELDS_OF["lifecycle deletes"], "the lifecycle made no tokens")
        return
    with ThreadPoolExecutor(2, thread_name_prefix="patgate-probe-delete") as pool:
        deletes = [pool.submit(probing.delete, token_id, admin) for token_id, _, _ in made[1:]]
        _delete_fields(probing, made[0], admin)
        for done in deletes:
            done.result()
    probing.made.clear()


def _did_not_validate(observed: Observed) -> bool:
    """A GraphQL answer with errors and no data: the document did not validate."""
    body = observed.body
    return isinstance(body, dict) and bool(body.get("errors")) and body.get("data") is None


def _used_again(seconds: float) -> str:
    """What the interval probe sent: the listing after a use ``seconds`` after the first."""
    return f"{VIEWER} with the new token, used again {seconds:g} s after its first use"


_USE_QUERY = "query { viewer { id } }"


def _first_use(probing: Probing, admin: str, token: tuple[str, str, str]) -> tuple[Any, float]:
    """Use ``token`` and list it: its ``lastUsedDate`` (``None`` when it stayed null), and
    when the use was answered (:func:`time.monotonic`)."""
    token_id, _, value = token
    probing.graphql_as(_USE_QUERY, value)
    used_at = time.monotonic()
    first = _last_used_of(probing.listing(admin), token_id)
    shown = precision(first)
    if shown is not None:
        probing.found("date_precision.lastUsedDate", shown, _USE_REQUEST)
        probing.found("date_offset.lastUsedDate", offset(first), _USE_REQUEST)
    if first is None:
        probing.missed((_LAST_USED,), "lastUsedDate stayed null after a use")
    return first, used_at


def _moves(
    probing: Probing, admin: str, token: tuple[str, str, str], first: Any, elapsed: float
) -> None:
    """Use ``token`` again :data:`_USE_GAP` after its first use (``elapsed`` seconds have
    passed already) and list it: does ``lastUsedDate`` move on every use? If not, use it
    again once each of :data:`_INTERVALS` has passed since the first use, within
    ``max_wait`` seconds: the first that moves it is the interval (a value between two
    tried is rounded up)."""
    token_id, _, value = token
    gap = _USE_GAP if precision(first) == "seconds" else _FINE_GAP
    waited = 0.0
    for step in (gap, *_INTERVALS):
        if step > gap and step > probing.max_wait:
            break
        probing.pause(step - waited, elapsed=elapsed if step == gap else 0.0)
        waited = step
        probing.graphql_as(_USE_QUERY, value)
        if _last_used_of(probing.listing(admin), token_id) != first:
            probing.found(_LAST_USED, 0 if step == gap else step, _used_again(step))
            return
    probing.missed(
        (_LAST_USED,),
        f"lastUsedDate did not move between uses {waited:g} s apart: it moves less often "
        "(--max-wait SECONDS lets the probe wait up to that long to find the interval)",
    )


def _last_used_of(listed: TokenListing | None, token_id: str) -> Any:
    for token in listed.entries if listed is not None else ():
        if token.get("id") == token_id:
            return token.get("lastUsedDate")
    return None


def probe_token_limit(probing: Probing) -> None:
    """Fill the admin's tokens to the cap (beside the lifecycle's own, once they exist and
    the name probe, which needs a free place, is done), then ask for one more: the refusal
    (or PAT-CAP); the fillers are deleted at once."""
    admin = probing.key("admin_token")
    if not (admin and probing.key("graphql_url")) or probing.held is None or not probing.made:
        probing.missed(FIELDS_OF["token limit"], "the lifecycle made no tokens")
        return
    _token_limit(probing, admin, probing.held + len(probing.made))


def _token_limit(probing: Probing, admin: str, held: int) -> None:
    extra: list[tuple[str, str]] = []
    try:
        for _ in range(max(0, CAP - held)):
            observed = probing.create(probing.name("-fill"))
            token = created_token(observed) if isinstance(observed.body, dict) else None
            if token is None:
                probing.missed(("refusals.token_limit.code",), "a create below the cap was refused")
                return
            extra.append((token.id, token.token or admin))
        request = f"{CREATE} (a sixth token)"
        observed = probing.create(probing.name("-sixth"))
        token = created_token(observed) if isinstance(observed.body, dict) else None
        if token is not None:
            extra.append((token.id, token.token or admin))
            probing.broke("PAT-CAP", "a sixth token was created", request)
            return
        record_refusal(probing, "token_limit", observed, request, "create_token")
    finally:
        for token_id, _bearer in extra:
            probing.delete(token_id, admin)


def _delete_fields(probing: Probing, token: tuple[str, str, str], bearer: str) -> None:
    """Delete ``token`` selecting every field of the result: what each field carries."""
    token_id, name, _ = token
    every = f" {{ {' '.join(probing.schema_fields)} }}" if probing.schema_fields else None
    observed = probing.delete(token_id, bearer, every)
    if observed is None:
        return
    result = at(observed.body, "data", "deletePersonalAccessToken")
    if isinstance(result, dict):
        carried = {}
        for key, value in result.items():
            if key == "__typename":
                continue
            if value == token_id:
                carried[key] = "token_id"
            elif value is True:
                carried[key] = "true"
            elif value == name:
                carried[key] = "name"
            else:
                carried[key] = f"other ({type(value).__name__})"
        probing.found("delete_result.fields", carried, f"{DELETE} selecting every field")
    elif isinstance(result, bool):
        probing.found("delete_result.fields", {}, f"{DELETE}")


def probe_name_length(probing: Probing) -> None:
    """``pat_name.max_length`` by a bounded search, and the refusal of a too-long name
    (``refusals.invalid_input``); every name the target takes is deleted at once."""
    fields = FIELDS_OF["name length"]
    admin = probing.key("admin_token")
    if not (admin and probing.key("graphql_url")):
        probing.missed(fields, "needs graphql_url and admin_token")
        return
    # The lifecycle takes 3 of the admin's free places; with a fourth free, this probe
    # goes at once (it starts once the lifecycle counted them), else once the lifecycle's
    # tokens exist, in the place left.
    if probing.held is None or CAP - probing.held < 4:
        probing.milestones.wait_for(MADE)
        if not probing.room or probing.room < 1:
            probing.missed(fields, "the admin has no room for one more token")
            return
    refusals: list[Observed] = []
    stopped: list[str] = []  # why the search could not go on
    request = f"{CREATE} with a name of N characters"

    def accepts(length: int) -> bool | None:
        base = probing.name("-")
        if length < len(base) + 1:
            return True
        name = base + "n" * (length - len(base))
        observed = probing.create(name)
        token = created_token(observed) if isinstance(observed.body, dict) else None
        if token is not None:
            probing.delete(token.id, admin)
            return True
        if observed.status >= 500 or observed.status == 429:
            stopped.append(f"a create of {length} characters was answered HTTP {observed.status}")
            return None
        # A refusal says "too long" only if the admin had room: the listing that settled
        # the refusal must show fewer tokens than the cap (its malformed entries may be
        # tokens too: each is counted, one with a text id twice, erring toward the cap).
        custodian = probing.context.custodian
        listed = custodian.latest_ids(admin)
        if listed is None or len(listed) + len(custodian.listing_flaws) >= CAP:
            stopped.append(
                f"a name of {length} characters was refused while the admin held "
                f"{'an unknown number of' if listed is None else len(listed)} tokens "
                "(the refusal may be the cap's)"
            )
            return None
        refusals.append(observed)
        return False

    found = _common_limit(accepts, len(probing.context.ledger.name_prefix) + 8)
    if found is None:
        why = stopped[-1] if stopped else "a create answered neither a token nor a refusal"
        probing.missed(fields if not refusals else ("pat_name.max_length",), why)
    elif found >= _NAME_CEILING:
        probing.missed(("pat_name.max_length",), f"no refusal up to {_NAME_CEILING} characters")
    else:
        probing.found("pat_name.max_length", found, request)
    if refusals:
        too_long = f"{CREATE} with a name too long"
        record_refusal(probing, "invalid_input", refusals[-1], too_long, "create_token")


_COMMON_NAME_LIMITS = (255, 100, 256, 128, 64, 50, 200, 500, 1000, 1024, 2048)
"""Name limits deployments often choose: tried first, each with the length one above."""


def _common_limit(accepts: Callable[[int], bool | None], shortest: int) -> int | None:
    """The longest length ``accepts`` takes: the common limits first (a limit among them
    costs two or four tries), then a bisection between the bounds they left."""
    good, bad = shortest, _NAME_CEILING + 1
    for limit in _COMMON_NAME_LIMITS:
        if not good < limit < bad:
            continue
        verdict = accepts(limit)
        if verdict is None:
            return None
        if not verdict:
            bad = limit
            continue
        good = limit
        above = accepts(limit + 1)
        if above is None:
            return None
        if not above:
            return limit
        good = limit + 1
    return bounded_search(accepts, good, bad)


def probe_not_found(probing: Probing) -> None:
    """``refusals.not_found``: a delete of an id no token has (made up by this run)."""
    context = probing.context
    if not (probing.key("admin_token") and probing.key("graphql_url")):
        probing.missed(("refusals.not_found.status",), "needs graphql_url and admin_token")
        return
    # It starts once the shape probe told the delete result's shape: the probes' own
    # document selects what it needs; if it could not tell, one with a selection is sent
    # again when the first does not validate.
    missing = context.missing_id()
    admin = probing.key("admin_token")
    first = probing.delete_document(missing, probing.delete_selection or "")
    if first is None:  # the target file's own delete document
        query, variables = context.documents.delete_token(missing)
        observed = context.graphql(query, variables, admin)
    else:
        observed = context.graphql(first, None, admin)
        if probing.delete_selection is None and _did_not_validate(observed):
            observed = context.graphql(
                probing.delete_document(missing, " { __typename }") or first, None, admin
            )
    unknown = f"{DELETE} of an id no token has"
    record_refusal(probing, "not_found", observed, unknown, "delete_token")


def probe_client_credentials(probing: Probing) -> None:
    """``pat_creation.client_credentials``: a create with the client-credential token the
    client token probe got (its client may act as an admin): ``refused``, or ``allowed``
    and the token deleted at once. It needs a free place of the admin's: once the token
    limit's fillers are gone, and the lifecycle's tokens too if they leave none."""
    name = "pat_creation.client_credentials"
    if probing.room is not None and probing.room < 1:
        probing.milestones.wait_for(LIFECYCLE_DELETES)
    bearer = probing.client_token
    if not (bearer and probing.key("graphql_url")):
        probing.missed((name,), "needs a client-credential token and graphql_url")
        return
    request = f"{CREATE} with a client-credential token"
    observed = probing.create(probing.name("-client"), bearer_key=None, bearer=bearer)
    token = created_token(observed) if isinstance(observed.body, dict) else None
    if token is not None:
        probing.found(name, "allowed", request)
        probing.delete(token.id, bearer)
        return
    error = first_error(observed)
    if error is None and observed.status < 400:
        probing.missed((name,), f"the create answered HTTP {observed.status}, neither way")
        return
    probing.found(name, "refused", request)


def probe_forbidden(probing: Probing) -> None:
    """``refusals.forbidden``: a member who is not an admin asks for a token (PAT-ADMIN-ONLY
    if it is made; the ledger then deletes it)."""
    fields = FIELDS_OF["non-admin create"]
    if not (probing.key("member_token") and probing.key("graphql_url")):
        probing.missed(fields, "needs member_token")
        return
    request = f"{CREATE} as a member who is not an admin"
    observed = probing.create(probing.name("-member"), bearer_key="member_token")
    token = created_token(observed) if isinstance(observed.body, dict) else None
    if token is not None:
        probing.broke("PAT-ADMIN-ONLY", "a member who is not an admin created a token", request)
        probing.delete(token.id, probing.key("member_token"))
        return
    record_refusal(probing, "forbidden", observed, request, "create_token")

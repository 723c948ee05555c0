"""The REST probes: the token endpoint and the content API, their knobs and their shapes.

Read-only. The token endpoint's answer (``client_token``, ``shapes.token``) and its refusals
(a wrong secret, a wrong grant type); the hubs listing (``pages``, ``hubs``, the order of
the hubs, the relations of a page's ``_links``, the dates' precision and offset) and its
refusals (``refusals.<kind>.status``, ``content_errors.format``, the wording per operation);
one hub record. A shape records status, content type, meaningful header names and the body's
structure (:func:`answer_shape`), never a value: only a redacted sample per scalar, which
calibrate writes for a key the fake does not serve itself.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from patgate.calibration.answer_reading import (
    HUBS,
    TOKEN_REQUEST,
    at,
    bounded_search,
    offset,
    precision,
    record_content_refusal,
)
from patgate.runner.model import NOT_JSON, Observed

if TYPE_CHECKING:
    from patgate.calibration.probing import Probing

__all__ = [
    "answer_shape",
    "probe_client_token",
    "probe_hubs",
    "read_rate_limit",
]

PAGE_RELATIONS = ("self", "first", "prev", "next", "last")
"""A page's relations in the contract's order (others follow, in the order seen)."""
_PAGE_CEILING = 10_000
"""The largest page size the page probe asks for."""
_USUAL_PAGE_MAXIMUM = 100
"""The page size the page probe tries first as the maximum (the fake's default)."""
_TOKEN_REFUSALS = (
    ("unauthenticated", "a wrong client secret", {"client_secret": "patgate-wrong-secret"}),
    ("invalid_input", "grant_type=password", {"grant_type": "password"}),
)
"""The token endpoint's refusals a probe asks for: kind, what is wrong, the changed field."""


def answer_shape(observed: Observed) -> dict[str, Any]:
    """The shape of an answer: status, media type, meaningful header names, body structure
    (no ``body`` for an answer that is not JSON)."""
    from patgate.fake.answer_shapes import answer_shape_of

    body = None if observed.body is NOT_JSON else observed.body
    content_type = observed.headers.get("content-type")
    return answer_shape_of(observed.status, content_type, list(observed.headers), body)


def _record_shape(probing: Probing, answer: str, observed: Observed, request: str) -> None:
    probing.found_shape(f"shapes.{answer}", answer_shape(observed), observed.body, request)


def _token_form(probing: Probing, changed: Mapping[str, str]) -> Observed:
    client_id, secret, auth_url = (
        probing.key(k) for k in ("client_id", "client_secret", "auth_url")
    )
    form = {"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret}
    form.update(changed)
    return probing.context.exchange.send("POST", f"{auth_url}/oauth/token", kind="http", form=form)


def probe_client_token(probing: Probing) -> None:
    """``client_token`` and ``shapes.token`` from the answer to valid client credentials (a
    ``token_type`` the answer lacks is ``None``: "absent"), then the endpoint's refusals."""
    fields = ("client_token.expires_in", "client_token.token_type", "shapes.token")
    if not all(probing.key(k) for k in ("client_id", "client_secret", "auth_url")):
        probing.missed(fields, "needs client_id, client_secret and auth_url")
        return
    observed = _token_form(probing, {})
    body = observed.body
    if observed.status != 200 or not isinstance(body, dict):
        probing.missed(fields, f"the token endpoint answered HTTP {observed.status}")
    else:
        probing.client_token = body.get("access_token") or None
        _record_shape(probing, "token", observed, TOKEN_REQUEST)
        if "expires_in" in body:
            probing.found(fields[0], body["expires_in"], TOKEN_REQUEST)
        else:
            probing.missed(fields[:1], "the token answer has no expires_in")
        probing.found(fields[1], body.get("token_type"), TOKEN_REQUEST)
    if probing.allow_writes and probing.client_token and probing.key("graphql_url"):
        # What the token's principal holds, listed now, off the longest chain: the
        # client-credential create, at its end, stands on it instead of a listing of its own.
        probing.listing(probing.client_token)
    for kind, what, changed in _TOKEN_REFUSALS:
        request = f"POST {{auth_url}}/oauth/token with {what}"
        refused = _token_form(probing, changed)
        answer = f"refusal.token.{kind}"
        if not 400 <= refused.status < 500:
            probing.missed((f"shapes.{answer}",), f"{request} was answered HTTP {refused.status}")
            continue
        _record_shape(probing, answer, refused, request)
        described = at(refused.body, "error_description")
        if isinstance(described, str):
            probing.found(f"refusal_messages.token.{kind}", described, request)
        else:
            probing.missed((f"refusal_messages.token.{kind}",), "the refusal has no description")


def probe_hubs(probing: Probing) -> None:
    """The hubs listing: ``hubs``, ``pages``, the order and dates of the hubs, one hub record
    and the listing's refusals; the unauthenticated listing must be refused (AUTH-REQUIRED)."""
    fields = ("hubs.fields", "hubs.links", "pages.default_size", "pages.maximum_size")
    if not (probing.key("base_url") and probing.key("admin_token")):
        probing.missed(fields, "needs base_url and admin_token")
        return
    observed = probing.get("/v2/content/hubs")
    body = observed.body
    if observed.status != 200 or not isinstance(body, dict):
        probing.missed(fields, f"the hubs listing answered HTTP {observed.status}")
    else:
        _record_shape(probing, "hubs_page", observed, HUBS)
        _hubs_of_page(probing, at(body, "_embedded", "hubs"))
        size = at(body, "page", "size")
        if isinstance(size, int) and not isinstance(size, bool) and size > 0:
            probing.found("pages.default_size", size, HUBS)
            _page_maximum(probing, size)
        else:
            probing.missed(fields[2:], "the hubs listing carries no page.size")
        _page_links(probing, at(body, "page", "totalElements"))
    _hubs_refusals(probing)


def _hubs_of_page(probing: Probing, hubs: Any) -> None:
    """What the first page's hubs show: fields, links, dates, order; and one hub record."""
    if not (isinstance(hubs, list) and hubs and all(isinstance(h, dict) for h in hubs)):
        probing.missed(
            ("hubs.fields", "hubs.links", "hubs.date_precision", "date_offset.hubs"),
            "the organization lists no hub",
        )
        probing.missed(("hubs.order", "shapes.hub"), "the organization lists no hub")
        return
    first = hubs[0]
    probing.found("hubs.fields", [key for key in first if key != "_links"], HUBS)
    links = first.get("_links")
    probing.found("hubs.links", list(links) if isinstance(links, dict) else [], HUBS)
    dates = [first.get(key) for key in ("createdDate", "lastModifiedDate")]
    shown = next((d for d in dates if precision(d) is not None), None)
    if shown is None:
        probing.missed(("hubs.date_precision", "date_offset.hubs"), "a hub shows no UTC date")
    else:
        probing.found("hubs.date_precision", precision(shown), HUBS)
        probing.found("date_offset.hubs", offset(shown), HUBS)
    _hub_order(probing, hubs)
    hub_id = first.get("id")
    if isinstance(hub_id, str) and hub_id:
        request = f"{HUBS}/<a listed hub's id>"
        record = probing.get(f"/v2/content/hubs/{hub_id}")
        if record.status == 200 and isinstance(record.body, dict):
            _record_shape(probing, "hub", record, request)
        else:
            probing.missed(("shapes.hub",), f"{request} was answered HTTP {record.status}")
    else:
        probing.missed(("shapes.hub",), "a listed hub has no id")


def hub_order(hubs: Sequence[Mapping[str, Any]]) -> tuple[str | None, str]:
    """``(order, why not)`` of a page of hubs: ``name_ascending``/``name_descending`` when
    the names are so sorted, else ``created_ascending``/``created_descending`` when the
    creation dates rise/fall (some dates that tie are read as creation order); ``None`` and
    the reason when the page cannot tell (fewer than 2 hubs, names in creation order, one
    creation date shared by every hub, or none of these)."""
    if len(hubs) < 2:
        return None, f"the organization lists {len(hubs)} hub(s); an order needs 2"
    names = [str(h.get("name")) for h in hubs]
    created = [str(h.get("createdDate")) for h in hubs]
    dated = all(precision(c) is not None for c in created)
    # Dates of one offset and precision compare as text.
    rising = dated and all(a <= b for a, b in itertools.pairwise(created))
    strictly = dated and all(a < b for a, b in itertools.pairwise(created))
    if names == sorted(names) and len(set(names)) == len(names):
        if strictly:
            return None, "the hubs' names are in creation order: name and creation order agree"
        return "name_ascending", ""
    if names == sorted(names, reverse=True) and len(set(names)) == len(names):
        if strictly:
            return None, "the hubs' names fall in creation order: no listed order tells"
        return "name_descending", ""
    if dated and len(set(created)) == 1:
        return None, "the hubs share one creation date: their order by date cannot be seen"
    if rising:
        return "created_ascending", ""
    if dated and all(a >= b for a, b in itertools.pairwise(created)):
        return "created_descending", ""
    return None, "the hubs are listed in none of creation, name or reverse name order"


def _hub_order(probing: Probing, hubs: Sequence[Mapping[str, Any]]) -> None:
    order, why = hub_order(hubs)
    if order is None:
        probing.missed(("hubs.order",), why)
    else:
        probing.found("hubs.order", order, HUBS)


def _page_links(probing: Probing, total: Any) -> None:
    """``pages.links``: the relations of pages of one hub each, the first and the second
    (with 2 hubs or more, each relation applies on one of them)."""
    if not isinstance(total, int) or total < 2:
        probing.missed(("pages.links",), "fewer than 2 hubs: prev and next never apply")
        return
    seen: list[str] = []
    for number in (0, 1):
        page = probing.get("/v2/content/hubs", size=1, page=number)
        links = at(page.body, "_links")
        if page.status != 200 or not isinstance(links, dict):
            probing.missed(("pages.links",), f"a page of one hub was answered HTTP {page.status}")
            return
        seen += [relation for relation in links if relation not in seen]
    ordered = [r for r in PAGE_RELATIONS if r in seen]
    ordered += [r for r in seen if r not in PAGE_RELATIONS]
    probing.found("pages.links", ordered, f"{HUBS}?size=1&page=0 and page=1")


def _hubs_refusals(probing: Probing) -> None:
    """The listing's refusals: a size of 0, an unknown hub, a member without permission, no
    token (which must be refused: AUTH-REQUIRED)."""
    zero = probing.get("/v2/content/hubs", size=0)
    if record_content_refusal(probing, "invalid_input", zero, f"{HUBS}?size=0", "hubs"):
        _record_shape(probing, "refusal.content.invalid_input", zero, f"{HUBS}?size=0")
    request = f"{HUBS}/<an id no hub has>"
    missing = probing.get(f"/v2/content/hubs/{probing.context.missing_id()}")
    if record_content_refusal(probing, "not_found", missing, request, "hub"):
        _record_shape(probing, "refusal.content.not_found", missing, request)
    if probing.key("unpermitted_token"):
        request = f"{HUBS} as a member without permission"
        observed = probing.get("/v2/content/hubs", bearer_key="unpermitted_token")
        if record_content_refusal(probing, "forbidden", observed, request, "hubs"):
            _record_shape(probing, "refusal.content.forbidden", observed, request)
    else:
        probing.missed(
            ("refusals.forbidden.status", "refusal_messages.hubs.forbidden"),
            "needs unpermitted_token",
        )
        probing.missed(("shapes.refusal.content.forbidden",), "needs unpermitted_token")
    request = f"{HUBS} (no token)"
    unauthenticated = probing.get("/v2/content/hubs", bearer_key=None)
    if unauthenticated.status == 200:
        probing.broke("AUTH-REQUIRED", "the hubs listing answered 200 without a token", request)
    elif record_content_refusal(
        probing, "unauthenticated", unauthenticated, request, "hubs", records_status=False
    ):
        _record_shape(probing, "refusal.content.unauthenticated", unauthenticated, request)


def read_rate_limit(probing: Probing, observed: Observed, request: str) -> None:
    """``rate_limit.announce`` and, when announced, ``requests_per_minute``: from a GraphQL
    answer's ``RateLimit-Policy`` header (``<n>;w=<seconds>``)."""
    name = "rate_limit.requests_per_minute"
    policy = observed.headers.get("ratelimit-policy", "")
    match = re.match(r"^\s*(\d+)\s*;\s*w=(\d+)", policy)
    if match and int(match.group(2)) > 0:
        per_minute = round(int(match.group(1)) * 60 / int(match.group(2)))
        probing.found("rate_limit.announce", "ratelimit_headers", request)
        probing.found(name, per_minute, f"{request} (RateLimit-Policy header)")
        return
    probing.found("rate_limit.announce", "none", request)
    probing.missed(
        (name,),
        "no RateLimit-Policy header; finding the limit takes a burst of requests the "
        "deployment counts against the organization, which a probe does not send",
    )


def _page_maximum(probing: Probing, default: int) -> None:
    """``pages.maximum_size`` and ``pages.over_maximum``: a page size the listing refuses
    (4xx) or cuts down (a smaller ``page.size``) bounds it; in at most a dozen requests."""
    request = f"{HUBS}?size=N"
    clamped: list[int] = []

    def accepts(size: int) -> bool | None:
        observed = probing.get("/v2/content/hubs", size=size, page=0)
        if 400 <= observed.status < 500:
            if not probing.seen("pages.over_maximum"):
                probing.found("pages.over_maximum", "refused", request)
            return False
        answered = at(observed.body, "page", "size")
        if observed.status != 200 or not isinstance(answered, int):
            return None
        if answered < size:
            clamped.append(answered)
            probing.found("pages.over_maximum", "cut", request)
            return False
        return True

    top = accepts(_PAGE_CEILING)
    if clamped:
        probing.found("pages.maximum_size", clamped[0], request)
        return
    if top is None or top:
        why = "got no page answer" if top is None else "is served: no maximum seen"
        probing.missed(("pages.maximum_size", "pages.over_maximum"), f"size={_PAGE_CEILING} {why}")
        return
    # The usual maximum first (two requests settle it), then a bisection.
    usual = accepts(_USUAL_PAGE_MAXIMUM) if default < _USUAL_PAGE_MAXIMUM else None
    if usual:
        good, bad = _USUAL_PAGE_MAXIMUM, _PAGE_CEILING
        found = good if accepts(good + 1) is False else bounded_search(accepts, good, bad, 16)
    else:
        found = bounded_search(
            accepts, default, _USUAL_PAGE_MAXIMUM if usual is False else _PAGE_CEILING, 16
        )
    if clamped:
        found = clamped[0]
    if found is None:
        probing.missed(("pages.maximum_size",), "the page answers did not settle a maximum")
    else:
        probing.found("pages.maximum_size", found, request)

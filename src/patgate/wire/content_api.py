"""The content API's family traits: the bearer gate, the error shape, HAL pages.

Every request under ``{base_url}/v2/content/`` passes :func:`authorize` before routing, so a
missing, malformed, unknown, expired, deleted or pending bearer answers 401 and a removed
user 403 on every path, known or not; only then does an unknown path answer 404. Each route's
domain call then judges the permission it needs (content read permission, for every route the
fake serves), so a user without it gets 403 before a lookup can say 404.
Refusals follow RFC 6750: 401 with ``WWW-Authenticate: Bearer`` (plus
``error="invalid_token"`` when a token was sent but is not valid), 403 with
``error="insufficient_scope"``, and the body ``{"errors": [{"message": ...}]}`` the real API
uses.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from patgate.errors import DomainError, InvalidRequest
from patgate.fake.answer_shapes import render
from patgate.fake.deployment import Deployment
from patgate.fake.model import Principal
from patgate.fake.profile import Profile
from patgate.wire.credentials import authenticate_bearer, bearer_challenge
from patgate.wire.endpoint import Endpoint, Refusal
from patgate.wire.forms import parameter_names, parse_form
from patgate.wire.messages import Headers, WireRequest, WireResponse, json_response
from patgate.wire.statuses import answer_of

__all__ = [
    "ALL_PAGE_LINKS",
    "DEFAULT_PAGE_SIZE",
    "HAL_TYPE",
    "MAX_PAGE_NUMBER",
    "MAX_PAGE_SIZE",
    "PROBLEM_TYPE",
    "ContentEndpoint",
    "PageRequest",
    "authorize",
    "content_refusal",
    "errors_body",
    "hal_page",
    "page_request",
    "problem_body",
    "shaped_content_refusal",
]

HAL_TYPE = "application/hal+json"
PROBLEM_TYPE = "application/problem+json"
"""RFC 9457's media type (the profile's ``content_errors.format: problem+json``)."""
DEFAULT_PAGE_SIZE = 20
"""The default profile's page size (``pages.default_size``)."""
MAX_PAGE_SIZE = 100
"""The default profile's largest page (``pages.maximum_size``); the spec declares it."""
MAX_PAGE_NUMBER = 999_999_999
"""The largest ``page`` (nine digits keep ``int()`` off huge inputs); the spec declares it."""
ALL_PAGE_LINKS = ("self", "first", "prev", "next", "last")
"""Every relation a page links (where it applies)."""
_INTEGER = re.compile(r"-?[0-9]{1,9}")


def errors_body(message: str) -> dict[str, Any]:
    """The content API's error body."""
    return {"errors": [{"message": message}]}


def content_refusal(status: int, message: str, headers: Headers, error: Exception) -> WireResponse:
    """``{"errors": [{"message": ...}]}``, with a Bearer challenge on 401 and 403."""
    return json_response(status, errors_body(message), (*bearer_challenge(status, error), *headers))


def problem_body(status: int, message: str) -> dict[str, Any]:
    """An RFC 9457 problem details body: no problem type of its own (``about:blank``), the
    status's phrase as ``title``, the refusal's message as ``detail``."""
    try:
        title = HTTPStatus(status).phrase
    except ValueError:
        title = "Error"
    return {"type": "about:blank", "title": title, "status": status, "detail": message}


def shaped_content_refusal(
    profile: Profile, status: int, message: str, headers: Headers, error: Exception
) -> WireResponse:
    """A content API refusal in the profile's format (``json`` or ``problem+json``), then
    through its shape of ``refusal.content.<kind>`` when it has one."""
    if profile.content_error_format == "problem+json":
        body, content_type = problem_body(status, message), PROBLEM_TYPE
    else:
        body, content_type = errors_body(message), "application/json"
    challenge = bearer_challenge(status, error)
    if isinstance(error, DomainError):
        shape = profile.shapes.get(f"refusal.content.{answer_of(error, profile).kind}")
        if shape is not None:
            if "body" in shape:
                body = render(body, shape["body"])
            content_type = shape.get("content_type", content_type)
            if "headers" in shape and not _names(shape["headers"], "www-authenticate"):
                challenge = ()  # the deployment does not challenge this refusal
    return json_response(status, body, (*challenge, *headers), content_type)


def _names(header_names: list[str], name: str) -> bool:
    """Whether a shape's ``headers`` name ``name`` (header names ignore case)."""
    return any(listed.lower() == name for listed in header_names)


def authorize(deployment: Deployment, request: WireRequest, query: str) -> Principal:
    """The caller of a content API request: a valid bearer of a user still in the organization."""
    principal = authenticate_bearer(deployment, request, parameter_names(query))
    deployment.role_of(principal)
    return principal


class ContentEndpoint(Endpoint):
    """A content API route: GET only, answers HAL, refuses in the content API's shape."""

    methods: tuple[str, ...] = ("GET",)

    def render(
        self, status: int, code: str, message: str, headers: Headers, error: Refusal
    ) -> WireResponse:
        """``{"errors": [{"message": ...}]}``, with a Bearer challenge on 401 and 403; or
        the profile's ``content_errors.format`` and ``shapes.refusal.content.<kind>``."""
        profile = self.deployment.profile
        if profile.content_error_format == "json" and not profile.shapes:
            return content_refusal(status, message, headers, error)
        return shaped_content_refusal(profile, status, message, headers, error)


@dataclass(frozen=True)
class PageRequest:
    """The ``page`` (0-based) and ``size`` a listing was asked for, validated."""

    number: int
    size: int

    def slice(self, items: Sequence[Any]) -> Sequence[Any]:
        """The items on this page."""
        start = self.number * self.size
        return items[start : start + self.size]


def _integer(params: dict[str, str], name: str, default: int) -> int:
    value = params.get(name)
    if value is None:
        return default
    if not _INTEGER.fullmatch(value):
        # An empty value is refused too: the parameter's type is integer, and "" is none.
        # The digit limit keeps int() off huge inputs; say so, as 10**10 is an integer too.
        raise InvalidRequest(f"{name} must be an integer of at most 9 digits", rule_id="HUBS-HAL")
    return int(value)


def page_request(
    query: str,
    default_size: int = DEFAULT_PAGE_SIZE,
    maximum_size: int = MAX_PAGE_SIZE,
    *,
    cut: bool = False,
) -> PageRequest:
    """``page`` and ``size`` from the query string (defaults 0 and ``default_size``; page 0
    to 999,999,999; size 1 to ``maximum_size``: the profile's ``pages``; with ``cut``, a
    larger size is served as ``maximum_size``); an empty ``page=`` or ``size=`` is refused,
    not ignored."""
    params = parse_form(query, "the query string", keep_blank=True) if query else {}
    number = _integer(params, "page", 0)
    size = _integer(params, "size", default_size)
    if number < 0:
        raise InvalidRequest("page must be 0 or more", rule_id="HUBS-HAL")
    if cut and size > maximum_size:
        size = maximum_size
    if not 1 <= size <= maximum_size:
        raise InvalidRequest(f"size must be between 1 and {maximum_size}", rule_id="HUBS-HAL")
    return PageRequest(number, size)


def hal_page(
    relation: str,
    items: Sequence[Any],
    total: int,
    view: Callable[[Any], dict[str, Any]],
    page: PageRequest,
    listing_url: str,
    relations: Collection[str] = ALL_PAGE_LINKS,
) -> dict[str, Any]:
    """One page as HAL: ``_embedded.<relation>`` (``items``, the page's records, each through
    ``view``), ``_links`` and ``page`` (``total`` records in all).

    ``_links`` holds ``self``, ``first`` and ``last``, with ``prev`` and ``next`` where they
    exist, each with the page's ``size``, as the hubs listing of the real API does; only
    those among ``relations`` (the profile's ``pages.links``), in that same order.
    """
    total_pages = (total + page.size - 1) // page.size

    def link(number: int) -> dict[str, str]:
        return {"href": f"{listing_url}?page={number}&size={page.size}"}

    last = max(total_pages - 1, 0)
    links = {"self": link(page.number), "first": link(0), "last": link(last)}
    if page.number > 0:
        links["prev"] = link(min(page.number - 1, last))
    if page.number < last:
        links["next"] = link(page.number + 1)
    if len(relations) < len(ALL_PAGE_LINKS):  # distinct names of these five: some left out
        links = {name: href for name, href in links.items() if name in relations}
    return {
        "_embedded": {relation: [view(item) for item in items]},
        "_links": links,
        "page": {
            "size": page.size,
            "totalElements": total,
            "totalPages": total_pages,
            "number": page.number,
        },
    }

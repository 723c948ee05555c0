"""``GET {base_url}/v2/content/hubs``: the hubs listing of the content API, as a HAL page.

Refusals follow RFC 6750: 401 with ``WWW-Authenticate: Bearer`` (plus
``error="invalid_token"`` when a token was sent but is not valid), 403 with
``error="insufficient_scope"``, and the body ``{"errors": [{"message": ...}]}`` the real API
uses.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from patgate.errors import InvalidRequest
from patgate.fake.clock import format_timestamp
from patgate.fake.model import Hub, HubPage
from patgate.wire.credentials import bearer_challenge, bearer_token
from patgate.wire.endpoint import Endpoint, Refusal
from patgate.wire.forms import parse_form
from patgate.wire.messages import Headers, WireRequest, WireResponse, json_response

__all__ = ["HubsEndpoint", "errors_body", "hub_page_view"]

HAL_TYPE = "application/hal+json"
DEFAULT_PAGE_SIZE = 20
_INTEGER = re.compile(r"-?[0-9]{1,9}")
# strftime costs ~2.4 us and a hub's dates rarely change, so a page of 20 hubs would spend
# ~100 us formatting the same instants again; the function is pure, so answers are kept.
_timestamp = functools.lru_cache(maxsize=4096)(format_timestamp)


def errors_body(message: str) -> dict[str, Any]:
    """The content API's error body."""
    return {"errors": [{"message": message}]}


def _hub_view(hub: Hub, listing_url: str) -> dict[str, Any]:
    href = f"{listing_url}/{hub.id}"
    return {
        "id": hub.id,
        "name": hub.name,
        "label": hub.label,
        "description": hub.description,
        "status": hub.status,
        "settings": hub.settings,
        "createdBy": hub.created_by,
        "createdDate": _timestamp(hub.created_date),
        "lastModifiedBy": hub.last_modified_by,
        "lastModifiedDate": _timestamp(hub.last_modified_date),
        "_links": {
            "self": {"href": href},
            "hub": {"href": href},
            "content-repositories": {
                "href": f"{href}/content-repositories{{?page,size,sort}}",
                "templated": True,
            },
            "events": {"href": f"{href}/events{{?page,size,sort}}", "templated": True},
        },
    }


def hub_page_view(page: HubPage, listing_url: str) -> dict[str, Any]:
    """One page of hubs as HAL: ``_embedded.hubs``, ``_links`` and the 0-based ``page``."""

    def link(number: int) -> dict[str, str]:
        return {"href": f"{listing_url}?page={number}&size={page.size}"}

    last = max(page.total_pages - 1, 0)
    links = {"self": link(page.number), "first": link(0), "last": link(last)}
    if page.number > 0:
        links["prev"] = link(min(page.number - 1, last))
    if page.number < last:
        links["next"] = link(page.number + 1)
    return {
        "_embedded": {"hubs": [_hub_view(hub, listing_url) for hub in page.hubs]},
        "_links": links,
        "page": {
            "size": page.size,
            "totalElements": page.total_elements,
            "totalPages": page.total_pages,
            "number": page.number,
        },
    }


def _integer(params: dict[str, str], name: str, default: int) -> int:
    value = params.get(name)
    if value is None:
        return default
    if not _INTEGER.fullmatch(value):
        # The digit limit keeps int() off huge inputs; say so, as 10**10 is an integer too.
        raise InvalidRequest(f"{name} must be an integer of at most 9 digits", rule_id="HUBS-HAL")
    return int(value)


class HubsEndpoint(Endpoint):
    """Lists the hubs of the caller's organization; a client token or a PAT may call it."""

    methods = ("GET",)

    def respond(self, request: WireRequest, query: str) -> WireResponse:
        """One HAL page of the hubs of the bearer's organization."""
        params = parse_form(query, "the query string") if query else {}
        token = bearer_token(request, token_in_query="access_token" in params)
        principal = self.deployment.authenticate(token)
        page = _integer(params, "page", 0)
        size = _integer(params, "size", DEFAULT_PAGE_SIZE)
        listing = self.deployment.list_hubs(principal, page=page, size=size)
        return json_response(200, hub_page_view(listing, self.urls.hubs_url), (), HAL_TYPE)

    def render(
        self, status: int, code: str, message: str, headers: Headers, error: Refusal
    ) -> WireResponse:
        """``{"errors": [{"message": ...}]}``, with a Bearer challenge on 401 and 403."""
        return json_response(
            status, errors_body(message), (*bearer_challenge(status, error), *headers)
        )

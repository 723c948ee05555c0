"""The content API's read surface: hubs, each hub's listings, and the records they link to.

Shapes follow the vendor's published SDK fixtures: every resource carries ``_links`` with
``self`` and its own relation name, hubs link each listing under the relation the SDK looks up
(``content-repositories``, ``content-types``, ``list-content-type-schemas``,
``workflow-states``, ``extensions``, ``webhooks``, ``events``), and listings are HAL pages
paged like the hubs listing. The fake advertises only relations it serves, so a client that
follows links never meets a 404 (write relations such as ``create-event`` are left out).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from patgate.fake import content
from patgate.fake.answer_shapes import format_date, render
from patgate.fake.clock import format_timestamp
from patgate.fake.content import ContentRecord
from patgate.fake.deployment import Deployment
from patgate.fake.model import Hub, Principal
from patgate.fake.profile import Profile
from patgate.service import api_paths
from patgate.wire.content_api import (
    HAL_TYPE,
    ContentEndpoint,
    PageRequest,
    hal_page,
    page_request,
)
from patgate.wire.endpoint import Call, Endpoint
from patgate.wire.messages import WireRequest, WireResponse, json_response
from patgate.wire.urls import FakeUrls

__all__ = [
    "KIND_ROUTES",
    "EditionsEndpoint",
    "HubEndpoint",
    "HubListingEndpoint",
    "HubsEndpoint",
    "KindRoute",
    "RecordEndpoint",
    "content_routes",
]

# strftime costs ~2.4 us and a hub's dates rarely change, so a page of 20 hubs would spend
# ~100 us formatting the same instants again; the function is pure, so answers are kept.
_timestamp = functools.lru_cache(maxsize=4096)(format_timestamp)
_PAGED = "{?page,size}"
"""The query a listing honours; a template advertises nothing the fake would ignore."""


@dataclass(frozen=True)
class KindRoute:
    """How one kind of hub record is reached: the hub's relation, its listing, its own URL."""

    kind: str
    """The record kind, also the key of its listing's ``_embedded`` list."""
    hub_relation: str
    """The link relation on a hub that leads to the listing (what the SDK looks up)."""
    listing: api_paths.ApiPath
    single: api_paths.ApiPath
    relation: str | None
    """The record's own relation name besides ``self`` (``content-repository``), if any."""
    template: str = _PAGED
    """The URI template variables the hub's link advertises."""


KIND_ROUTES: tuple[KindRoute, ...] = (
    KindRoute(
        content.CONTENT_REPOSITORIES,
        "content-repositories",
        api_paths.HUB_CONTENT_REPOSITORIES,
        api_paths.CONTENT_REPOSITORY,
        "content-repository",
    ),
    KindRoute(
        content.CONTENT_TYPES,
        "content-types",
        api_paths.HUB_CONTENT_TYPES,
        api_paths.CONTENT_TYPE,
        "content-type",
    ),
    KindRoute(
        content.CONTENT_TYPE_SCHEMAS,
        "list-content-type-schemas",
        api_paths.HUB_CONTENT_TYPE_SCHEMAS,
        api_paths.CONTENT_TYPE_SCHEMA,
        "content-type-schema",
    ),
    KindRoute(
        content.WORKFLOW_STATES,
        "workflow-states",
        api_paths.HUB_WORKFLOW_STATES,
        api_paths.WORKFLOW_STATE,
        "workflow-state",
    ),
    KindRoute(
        content.EXTENSIONS,
        "extensions",
        api_paths.HUB_EXTENSIONS,
        api_paths.EXTENSION,
        "extension",
    ),
    KindRoute(content.WEBHOOKS, "webhooks", api_paths.HUB_WEBHOOKS, api_paths.WEBHOOK, None),
    KindRoute(content.EVENTS, "events", api_paths.HUB_EVENTS, api_paths.EVENT, "event"),
)
"""One row per kind of hub record."""

_BY_KIND: Mapping[str, KindRoute] = MappingProxyType({route.kind: route for route in KIND_ROUTES})


def _href(url: str) -> dict[str, str]:
    return {"href": url}


_HUB_FIELDS: Mapping[str, Callable[[Hub], Any]] = MappingProxyType(
    {
        "id": lambda hub: hub.id,
        "name": lambda hub: hub.name,
        "label": lambda hub: hub.label,
        "description": lambda hub: hub.description,
        "status": lambda hub: hub.status,
        "settings": lambda hub: hub.settings,
        "createdBy": lambda hub: hub.created_by,
        "createdDate": lambda hub: _timestamp(hub.created_date),
        "lastModifiedBy": lambda hub: hub.last_modified_by,
        "lastModifiedDate": lambda hub: _timestamp(hub.last_modified_date),
    }
)
"""Every hub field the fake can serve; the profile's ``hubs.fields`` picks and orders them."""

_DEFAULT_FIELDS = tuple(_HUB_FIELDS)
_DEFAULT_LINKS = ("self", "hub", *(route.hub_relation for route in KIND_ROUTES))


_TODAY = ("milliseconds", "Z")
"""The default profile's hub dates: milliseconds, ``Z``."""


@functools.lru_cache(maxsize=16)
def _readers(date_form: tuple[str, str]) -> Mapping[str, Callable[[Hub], Any]]:
    """The hub fields' readers with dates in ``date_form`` (precision, offset)."""
    if date_form == _TODAY:
        return _HUB_FIELDS
    return MappingProxyType(
        {
            **_HUB_FIELDS,
            "createdDate": lambda hub: format_date(hub.created_date, *date_form),
            "lastModifiedDate": lambda hub: format_date(hub.last_modified_date, *date_form),
        }
    )


def hub_view(
    hub: Hub,
    base_url: str,
    fields: tuple[str, ...] = _DEFAULT_FIELDS,
    links: tuple[str, ...] = _DEFAULT_LINKS,
    date_form: tuple[str, str] = _TODAY,
) -> dict[str, Any]:
    """A hub as the content API shows it: the profile's ``fields``, ``links`` and dates'
    ``(precision, offset)`` (by default every field, a link to every listing the fake
    serves, and milliseconds with ``Z``)."""
    if fields == _DEFAULT_FIELDS and date_form == _TODAY:
        # The default profile's view, written out: it is on every hubs page.
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
            "_links": _hub_links(hub.id, base_url, links),
        }
    readers = _readers(date_form)
    view = {name: readers[name](hub) for name in fields}
    view["_links"] = _hub_links(hub.id, base_url, links)
    return view


@functools.lru_cache(maxsize=1024)
def _hub_links(hub_id: str, base_url: str, chosen: tuple[str, ...]) -> Mapping[str, Any]:
    # A hub's links depend on its id alone; every hubs page shows them, so they are built
    # once. Shared between views, read-only: a view is serialized and dropped.
    href = api_paths.HUB.url(base_url, hub_id=hub_id)
    links: dict[str, Any] = {"self": _href(href), "hub": _href(href)}
    for route in KIND_ROUTES:
        listing = route.listing.url(base_url, hub_id=hub_id)
        links[route.hub_relation] = {"href": listing + route.template, "templated": True}
    return {name: links[name] for name in chosen}


def record_view(record: ContentRecord, base_url: str) -> dict[str, Any]:
    """A hub record: ``id``, its fields, and links to itself and its hub."""
    route = _BY_KIND[record.kind]
    href = route.single.url(base_url, hub_id=record.hub_id, id=record.id)
    links: dict[str, Any] = {"self": _href(href)}
    if route.relation is not None:
        links[route.relation] = _href(href)
    links["hub"] = _href(api_paths.HUB.url(base_url, hub_id=record.hub_id))
    if record.kind == content.EVENTS:
        editions = api_paths.EVENT_EDITIONS.url(base_url, id=record.id)
        links["editions"] = {"href": editions + _PAGED, "templated": True}
    return {"id": record.id, **record.fields, "_links": links}


def _hal(body: dict[str, Any]) -> WireResponse:
    return json_response(200, body, (), HAL_TYPE)


def _shaped(body: dict[str, Any], profile: Profile, answer: str) -> WireResponse:
    """``body`` through the profile's shape of ``answer`` (when it has one) as HAL."""
    shape = profile.shapes.get(answer)
    if shape is None:
        return _hal(body)
    if "body" in shape:
        body = render(body, shape["body"])
    return json_response(200, body, (), shape.get("content_type", HAL_TYPE))


def _hub_date_form(profile: Profile) -> tuple[str, str]:
    return profile.hub_date_precision, profile.hub_date_offset


def _caller(call: Call) -> Principal:
    # The app authorizes every content path before routing; a route without a principal
    # would be a wiring bug, not a client's mistake.
    assert call.principal is not None, "content routes are authorized before routing"
    return call.principal


def _page(call: Call, deployment: Deployment) -> PageRequest:
    profile = deployment.profile
    return page_request(
        call.query,
        profile.default_page_size,
        profile.maximum_page_size,
        cut=profile.over_maximum == "cut",
    )


class HubsEndpoint(ContentEndpoint):
    """``GET /hubs``: the hubs of the caller's organization; a client token or a PAT may call."""

    operation = "hubs"

    def respond(self, request: WireRequest, call: Call) -> WireResponse:
        """One HAL page of the hubs of the bearer's organization."""
        profile = self.deployment.profile
        page = _page(call, self.deployment)
        listing = self.deployment.list_hubs(_caller(call), page=page.number, size=page.size)
        base = self.urls.base_url
        fields, links = profile.hub_fields, profile.hub_links
        form = _hub_date_form(profile)
        body = hal_page(
            "hubs",
            listing.hubs,
            listing.total_elements,
            lambda hub: hub_view(hub, base, fields, links, form),
            page,
            self.urls.hubs_url,
            profile.page_links,
        )
        return _shaped(body, profile, "hubs_page")


class HubEndpoint(ContentEndpoint):
    """``GET /hubs/{hub_id}``: one hub; another organization's hub is not found."""

    operation = "hub"

    def respond(self, request: WireRequest, call: Call) -> WireResponse:
        """The hub, with links to every listing below it."""
        hub = self.deployment.read_hub(_caller(call), call.params["hub_id"])
        profile = self.deployment.profile
        view = hub_view(
            hub, self.urls.base_url, profile.hub_fields, profile.hub_links, _hub_date_form(profile)
        )
        return _shaped(view, profile, "hub")


class HubListingEndpoint(ContentEndpoint):
    """``GET /hubs/{hub_id}/<kind>``: one HAL page of a hub's records of one kind."""

    def __init__(self, deployment: Deployment, urls: FakeUrls, *, kind: str) -> None:
        super().__init__(deployment, urls)
        self.route = _BY_KIND[kind]

    def respond(self, request: WireRequest, call: Call) -> WireResponse:
        """The page the query asks for (``page``, ``size``; other parameters are ignored)."""
        hub = self.deployment.read_hub(_caller(call), call.params["hub_id"])
        page = _page(call, self.deployment)
        records = self.deployment.content.listing(self.route.kind, hub.id)
        base = self.urls.base_url
        listing_url = self.route.listing.url(base, hub_id=hub.id)
        body = hal_page(
            self.route.kind,
            page.slice(records),
            len(records),
            lambda record: record_view(record, base),
            page,
            listing_url,
        )
        return _hal(body)


class RecordEndpoint(ContentEndpoint):
    """``GET`` one hub record by id; a record of another organization's hub is not found."""

    def __init__(self, deployment: Deployment, urls: FakeUrls, *, kind: str) -> None:
        super().__init__(deployment, urls)
        self.route = _BY_KIND[kind]

    def respond(self, request: WireRequest, call: Call) -> WireResponse:
        """The record, with links to itself and its hub."""
        record = self.deployment.read_content_record(
            _caller(call),
            self.route.kind,
            call.params["id"],
            call.params.get("hub_id"),
        )
        return _hal(record_view(record, self.urls.base_url))


class EditionsEndpoint(ContentEndpoint):
    """``GET /events/{id}/editions``: an event's editions; the fake holds none, so the page
    is empty (the vendor's CLI reads it to export events)."""

    def respond(self, request: WireRequest, call: Call) -> WireResponse:
        """An empty HAL page of editions for an event the caller may read."""
        event = self.deployment.read_content_record(
            _caller(call), content.EVENTS, call.params["id"]
        )
        listing_url = api_paths.EVENT_EDITIONS.url(self.urls.base_url, id=event.id)
        return _hal(hal_page("editions", [], 0, dict, _page(call, self.deployment), listing_url))


def content_routes() -> tuple[tuple[api_paths.ApiPath, Callable[..., Endpoint]], ...]:
    """Every content API route the fake serves, as ``(path, endpoint factory)``."""
    routes: list[tuple[api_paths.ApiPath, Callable[..., Endpoint]]] = [
        (api_paths.HUBS, HubsEndpoint),
        (api_paths.HUB, HubEndpoint),
    ]
    for route in KIND_ROUTES:
        routes.append((route.listing, functools.partial(HubListingEndpoint, kind=route.kind)))
        routes.append((route.single, functools.partial(RecordEndpoint, kind=route.kind)))
    routes.append((api_paths.EVENT_EDITIONS, EditionsEndpoint))
    return tuple(routes)

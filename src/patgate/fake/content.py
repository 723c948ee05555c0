"""The content API's resources below a hub: repositories, content types and their schemas,
workflow states, extensions, webhooks and events.

Records are plain JSON-ready field dictionaries, named as the vendor's published SDK
fixtures name them (docs/facts.md, "The JavaScript management SDK"). Each kind has default
fields, so a test adds a record by naming only what it cares about::

    deployment.content.add(WEBHOOKS, hub.id, label="orders")

``Deployment.seed_content`` gives every hub of a deployment the same realistic records on every run:
ids derive from the hub's id by hashing (no random generator, no faker), so they are stable
and do not shift the ids the deployment makes for anything else.
"""

from __future__ import annotations

import copy
import hashlib
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from patgate.fake.clock import format_timestamp

if TYPE_CHECKING:
    from patgate.fake.model import Hub

__all__ = [
    "CONTENT_REPOSITORIES",
    "CONTENT_TYPES",
    "CONTENT_TYPE_SCHEMAS",
    "EVENTS",
    "EXTENSIONS",
    "KINDS",
    "WEBHOOKS",
    "WORKFLOW_STATES",
    "ContentRecord",
    "ContentStore",
]

CONTENT_REPOSITORIES = "content-repositories"
CONTENT_TYPES = "content-types"
CONTENT_TYPE_SCHEMAS = "content-type-schemas"
WORKFLOW_STATES = "workflow-states"
EXTENSIONS = "extensions"
WEBHOOKS = "webhooks"
EVENTS = "events"
KINDS: tuple[str, ...] = (
    CONTENT_REPOSITORIES,
    CONTENT_TYPES,
    CONTENT_TYPE_SCHEMAS,
    WORKFLOW_STATES,
    EXTENSIONS,
    WEBHOOKS,
    EVENTS,
)
"""Every kind of record a hub holds; also the key of each kind's listing in ``_embedded``."""

_SCHEMA_BODY = (
    '{"$schema":"http://json-schema.org/draft-07/schema#","$id":"%s","title":"%s",'
    '"allOf":[{"$ref":"http://bigcontent.io/cms/schema/v1/core#/definitions/content"}],'
    '"type":"object","properties":{"title":{"type":"string","title":"Title"}}}'
)

_DEFAULTS: Mapping[str, Mapping[str, Any]] = {
    CONTENT_REPOSITORIES: {
        "name": "content",
        "label": "Content",
        "status": "ACTIVE",
        "features": [],
        "type": "CONTENT",
        "contentTypes": [],
        "itemLocales": ["en-GB"],
    },
    CONTENT_TYPES: {
        "contentTypeUri": "https://schema.example.com/item.json",
        "status": "ACTIVE",
        "settings": {"label": "Item", "icons": [], "visualizations": []},
    },
    CONTENT_TYPE_SCHEMAS: {
        "schemaId": "https://schema.example.com/item.json",
        "body": _SCHEMA_BODY % ("https://schema.example.com/item.json", "Item"),
        "validationLevel": "CONTENT_TYPE",
        "version": 1,
        "status": "ACTIVE",
    },
    WORKFLOW_STATES: {"label": "Todo", "color": "rgb(0,0,0)"},
    EXTENSIONS: {
        "name": "extension",
        "label": "Extension",
        "description": "",
        "url": "https://extensions.example.com/index.html",
        "height": 200,
        "category": "CONTENT_FIELD",
        "parameters": "{}",
        "snippets": [],
        "settings": '{"API":{"READ":false,"EDIT":false}}',
        "status": "ACTIVE",
    },
    WEBHOOKS: {
        "label": "webhook",
        "events": ["dynamic-content.content-item.updated"],
        "active": True,
        "handlers": ["https://hooks.example.com/content"],
        "notifications": [],
        "headers": [],
        "method": "POST",
    },
    EVENTS: {
        "name": "Event",
        "comment": "",
        "start": "2024-01-01T00:00:00.000Z",
        "end": "2024-01-02T00:00:00.000Z",
        "brief": "",
    },
}


@dataclass
class ContentRecord:
    """One resource of a hub: its kind, id, hub and fields (everything but ``id``)."""

    kind: str
    id: str
    hub_id: str
    fields: dict[str, Any]


def _record_id(hub_id: str, kind: str, serial: int) -> str:
    digest = hashlib.sha256(f"{hub_id}/{kind}/{serial}".encode()).hexdigest()
    return digest[:24]


class ContentStore:
    """Every hub's content resources, by kind and id.

    Hubs given to :meth:`seed_later` get their default records on the store's first use,
    not when the world is built: most tests never read content, and seeding costs more
    than the rest of a fresh fake. The records and their ids are the same either way.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seed_lock = threading.Lock()
        self._unseeded: list[Hub] = []
        self._by_id: dict[str, dict[str, ContentRecord]] = {kind: {} for kind in KINDS}
        self._by_hub: dict[tuple[str, str], list[ContentRecord]] = {}

    def seed_later(self, hubs: list[Hub]) -> None:
        """Give those of ``hubs`` that have no records yet the default records
        (:func:`seed_content`), before the store's next use."""
        with self._seed_lock, self._lock:
            known = {hub.id for hub in self._unseeded}
            known.update(hub_id for (_kind, hub_id), records in self._by_hub.items() if records)
            self._unseeded.extend(hub for hub in hubs if hub.id not in known)

    def _seed_pending(self) -> None:
        if not self._unseeded:  # the common case, without a lock
            return
        with self._seed_lock:
            while self._unseeded:
                # Removed only once seeded: a reader that finds the list empty finds the
                # records complete.
                _seed_hub(self, self._unseeded[0])
                self._unseeded.pop(0)

    def add(self, kind: str, hub_id: str, **fields: Any) -> ContentRecord:
        """A new record of ``kind`` in ``hub_id``: the kind's defaults, overridden by ``fields``.

        The id is derived from the hub, the kind and a serial number, so the same calls give
        the same ids in every run.
        """
        self._seed_pending()
        return self._insert(kind, hub_id, fields)

    def _insert_fields(self, kind: str, hub_id: str, **fields: Any) -> ContentRecord:
        # Seeding's own way in: add() would wait for the seeding in progress.
        return self._insert(kind, hub_id, fields)

    def _insert(self, kind: str, hub_id: str, fields: Mapping[str, Any]) -> ContentRecord:
        if kind not in _DEFAULTS:
            raise ValueError(f"unknown content kind {kind!r}; known: {', '.join(KINDS)}")
        with self._lock:
            listing = self._by_hub.setdefault((kind, hub_id), [])
            serial = len(listing)
            record_id = _record_id(hub_id, kind, serial)
            while record_id in self._by_id[kind]:
                serial += 1
                record_id = _record_id(hub_id, kind, serial)
            record = ContentRecord(kind, record_id, hub_id, copy.deepcopy(dict(_DEFAULTS[kind])))
            record.fields.update(fields)
            listing.append(record)
            self._by_id[kind][record_id] = record
            return record

    def listing(self, kind: str, hub_id: str) -> list[ContentRecord]:
        """The records of ``kind`` in ``hub_id``, oldest first."""
        self._seed_pending()
        with self._lock:
            return list(self._by_hub.get((kind, hub_id), ()))

    def get(self, kind: str, record_id: str) -> ContentRecord | None:
        """The record of ``kind`` with ``record_id``, or ``None``."""
        self._seed_pending()
        with self._lock:
            return self._by_id[kind].get(record_id)


def _seed_hub(store: ContentStore, hub: Hub) -> None:
    who = hub.created_by
    when = format_timestamp(hub.created_date)
    stamp = {"createdBy": who, "createdDate": when, "lastModifiedBy": who, "lastModifiedDate": when}
    types = []
    for name, title in (("article", "Article"), ("banner", "Banner")):
        uri = f"https://schema.example.com/{hub.name}/{name}.json"
        store._insert_fields(
            CONTENT_TYPE_SCHEMAS, hub.id, schemaId=uri, body=_SCHEMA_BODY % (uri, title), **stamp
        )
        content_type = store._insert_fields(
            CONTENT_TYPES,
            hub.id,
            contentTypeUri=uri,
            settings={"label": title, "icons": [], "visualizations": []},
        )
        types.append({"hubContentTypeId": content_type.id, "contentTypeUri": uri})
    store._insert_fields(
        CONTENT_REPOSITORIES, hub.id, name="content", label="Content", contentTypes=types
    )
    store._insert_fields(
        CONTENT_REPOSITORIES,
        hub.id,
        name="slots",
        label="Slots",
        features=["slots"],
        type="CONTENT",
        contentTypes=types[1:],
    )
    for label, color in (("Todo", "rgb(204,204,204)"), ("In review", "rgb(255,187,0)")):
        store._insert_fields(WORKFLOW_STATES, hub.id, label=label, color=color, **stamp)
    store._insert_fields(WORKFLOW_STATES, hub.id, label="Done", color="rgb(0,170,85)", **stamp)
    store._insert_fields(
        EXTENSIONS,
        hub.id,
        hubId=hub.id,
        name="rich-text",
        label="Rich text",
        description="A field for rich text, stored as JSON.",
        **stamp,
    )
    store._insert_fields(
        WEBHOOKS,
        hub.id,
        label="Publish notifications",
        secret="patgate-webhook-signing-key",
        createdDate=when,
        lastModifiedDate=when,
    )
    store._insert_fields(EVENTS, hub.id, name="Spring launch", comment="Seeded by patgate")

"""Hub content is seeded on first use: the same records and ids as seeding at once."""

from __future__ import annotations

import threading

from patgate.fake import content
from patgate.fake.content import ContentStore, _seed_hub
from patgate.fake.deployment import Deployment
from patgate.fake.world import build_default_world


def _eager(deployment: Deployment) -> ContentStore:
    store = ContentStore()
    for hub in deployment.hubs:
        _seed_hub(store, hub)
    return store


def _snapshot(store: ContentStore, hub_ids: list[str]) -> list[tuple[str, str, str]]:
    return [
        (kind, hub_id, record.id)
        for hub_id in hub_ids
        for kind in content.KINDS
        for record in store.listing(kind, hub_id)
    ]


def test_lazily_seeded_records_equal_the_eager_ones() -> None:
    deployment = Deployment()
    build_default_world(deployment, 0)
    hub_ids = [hub.id for hub in deployment.hubs]
    expected = _snapshot(_eager(deployment), hub_ids)
    assert len(expected) == 3 * 12  # twelve records a hub
    assert _snapshot(deployment.content, hub_ids) == expected


def test_a_record_added_first_follows_the_seeded_ones() -> None:
    deployment = Deployment()
    build_default_world(deployment, 0)
    hub = next(iter(deployment.hubs))
    added = deployment.content.add(content.WEBHOOKS, hub.id, label="orders")
    webhooks = deployment.content.listing(content.WEBHOOKS, hub.id)
    assert [record.fields["label"] for record in webhooks] == ["Publish notifications", "orders"]
    assert webhooks[-1] is added
    assert deployment.content.get(content.WEBHOOKS, added.id) is added


def test_seeding_twice_adds_nothing() -> None:
    deployment = Deployment()
    build_default_world(deployment, 0)
    hub = next(iter(deployment.hubs))
    before = deployment.content.listing(content.EVENTS, hub.id)
    deployment.seed_content()
    assert deployment.content.listing(content.EVENTS, hub.id) == before


def test_readers_racing_the_first_use_all_see_every_record() -> None:
    deployment = Deployment()
    build_default_world(deployment, 0)
    hub_ids = [hub.id for hub in deployment.hubs]
    seen: list[int] = []
    start = threading.Barrier(8)

    def read() -> None:
        start.wait(timeout=10)
        seen.append(len(_snapshot(deployment.content, hub_ids)))

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert seen == [36] * 8

"""Hostile floods pin no memory: the caches of the fake are keyed by normalized shapes and
bounded by bytes, whoever sends what (the memory figure itself is the ``hostile_memory``
benchmark's: ``python -m benchmarks --only hostile_memory --quick``)."""

from __future__ import annotations

import httpx

from patgate import Fake
from patgate.fake import graph_documents, graph_executor
from patgate.wire import urls


def test_long_distinct_urls_without_credentials_pin_at_most_a_mebibyte() -> None:
    with Fake() as fake, httpx.Client() as http:
        for number in range(100):
            path = f"/v2/content/hubs/{number}/" + "a" * 60_000
            answer = http.get(f"{fake.urls.base_url}{path}?q={number}")
            assert answer.status_code == 401
        assert urls._CANONICAL.bytes <= 1024 * 1024
        # A URL differing only in its query is the same key: the shape, not the whole URL.
        before = len(urls._CANONICAL)
        for number in range(50):
            http.get(f"{fake.urls.hubs_url}?page={number}")
        assert len(urls._CANONICAL) <= before + 1


def test_huge_documents_with_a_removed_users_pat_stay_within_that_principals_share() -> None:
    graph_documents.clear_caches()
    with Fake() as fake, httpx.Client() as http:
        auth = {"Authorization": f"Bearer {fake.world['removed_token']}"}
        for number in range(40):
            fragments = " ".join(f"fragment f{number}x{i} on Viewer {{ email }}" for i in range(60))
            query = "{ viewer { email } } " + fragments
            if number % 2:
                query += " # " + "x" * 60_000  # above what any cache keeps
            answer = http.post(fake.urls.graphql_url, json={"query": query}, headers=auth)
            assert answer.status_code in (400, 401, 403), answer.status_code
        share = graph_documents.DOCUMENT_CACHE_BYTES // 4
        assert graph_documents._documents.owner_bytes(fake.default_world.removed_id) <= share
        assert graph_documents._documents.bytes <= graph_documents.DOCUMENT_CACHE_BYTES
        assert graph_executor._depths.bytes <= 2 * 1024 * 1024

"""The example's asyncio client against ``patgate_fake``: httpx's async client is intercepted."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from patgate import Fake
from tests.examples.content_api import Pat, TokenLimitReached
from tests.examples.content_client import AsyncContentClient


def test_the_async_client_pages_hubs_and_manages_pats(
    patgate_fake: Fake, patgate_world: dict[str, str]
) -> None:
    for number in range(3):
        patgate_fake.add_hub(f"async-{number}-hub")
    organization = patgate_world["organization_id"]

    async def session() -> tuple[list[str], Pat, list[Pat], list[Pat]]:
        async with httpx.AsyncClient() as http:
            client = AsyncContentClient(
                patgate_world["auth_url"],
                patgate_world["base_url"],
                patgate_world["client_id"],
                patgate_world["client_secret"],
                http=http,
                clock=patgate_fake.clock.timestamp,
            )
            names = [hub.name async for hub in client.hubs(size=2)]
            created = await client.create_pat("async job", organization)
            listed = await client.list_pats()
            await client.delete_pat(created.id)
            while len(await client.list_pats()) < 5:
                await client.create_pat("filler", organization)
            with pytest.raises(TokenLimitReached):
                await client.create_pat("one too many", organization)
            return names, created, listed, await client.list_pats()

    names, created, listed, final = asyncio.run(session())
    assert len(names) == 6
    assert {"async-0-hub", "async-1-hub", "async-2-hub"} <= set(names)
    assert created.id in {pat.id for pat in listed}
    assert created.id not in {pat.id for pat in final}
    assert len(final) == 5
    tokens = [entry for entry in patgate_fake.request_log if entry.url.endswith("/oauth/token")]
    assert len(tokens) == 1

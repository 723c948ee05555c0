"""An application's client for the content API and PAT management, over httpx (sync and async).

::

    client = ContentClient(client_id="...", client_secret="...", http=httpx.Client())
    for hub in client.hubs():
        print(hub.name)
    created = client.create_pat("deploy bot", organization_id)

With client credentials it posts the form to ``{auth_url}/oauth/token`` and caches the token
until 30 s before ``expires_in`` runs out, like the vendor's SDK; with a PAT it sends that.
Refusals come back as this client's own exceptions (``content_api``).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx

from tests.examples.content_api import (
    CREATE_PAT,
    DEFAULT_AUTH_URL,
    DEFAULT_BASE_URL,
    DELETE_PAT,
    LIST_PATS,
    Hub,
    Pat,
    TokenCache,
    graphql_field,
    hubs_page,
    pat_from,
    token_answer,
)

__all__ = ["AsyncContentClient", "ContentClient"]

TIMEOUT = httpx.Timeout(10.0)


class _Credentials:
    """Client credentials (with a token cache) or a fixed personal access token."""

    def __init__(
        self,
        auth_url: str,
        client_id: str | None,
        client_secret: str | None,
        pat: str | None,
        clock: Callable[[], float],
    ) -> None:
        if (pat is None) == (client_id is None or client_secret is None):
            raise ValueError("give either client_id and client_secret, or a pat")
        self.token_url = auth_url.rstrip("/") + "/oauth/token"
        self.form = {
            "client_id": client_id or "",
            "client_secret": client_secret or "",
            "grant_type": "client_credentials",
        }
        self.pat = pat
        self.cache = TokenCache(clock)


class ContentClient:
    """The content API and PAT management over one ``httpx.Client``.

    ``clock`` is what the token cache reads (POSIX seconds); tests may pass another.
    """

    def __init__(
        self,
        auth_url: str = DEFAULT_AUTH_URL,
        base_url: str = DEFAULT_BASE_URL,
        client_id: str | None = None,
        client_secret: str | None = None,
        *,
        pat: str | None = None,
        http: httpx.Client | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._credentials = _Credentials(auth_url, client_id, client_secret, pat, clock)
        self._base_url = base_url.rstrip("/")
        self._http = http if http is not None else httpx.Client(timeout=TIMEOUT)

    @classmethod
    def from_pat(
        cls, pat: str, base_url: str = DEFAULT_BASE_URL, *, http: httpx.Client | None = None
    ) -> ContentClient:
        """A client that sends a personal access token instead of client credentials."""
        return cls(base_url=base_url, pat=pat, http=http)

    def access_token(self) -> str:
        """The bearer token to send: the PAT, the cached client token, or a new one."""
        credentials = self._credentials
        if credentials.pat is not None:
            return credentials.pat
        cached = credentials.cache.current()
        if cached is not None:
            return cached
        response = self._http.post(credentials.token_url, data=credentials.form)
        return credentials.cache.store(*token_answer(response.status_code, response.content))

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.access_token()}"}

    def hubs(self, size: int = 20) -> Iterator[Hub]:
        """Every hub, fetching page after page."""
        number = 0
        while True:
            response = self._http.get(
                f"{self._base_url}/v2/content/hubs",
                params={"page": number, "size": size},
                headers=self._headers(),
            )
            page = hubs_page(response.status_code, response.content)
            yield from page.hubs
            if page.is_last:
                return
            number += 1

    def _graphql(self, query: str, field: str, variables: dict[str, Any] | None = None) -> Any:
        response = self._http.post(
            f"{self._base_url}/graphql",
            json={"query": query, "variables": variables or {}},
            headers=self._headers(),
        )
        return graphql_field(response.status_code, response.content, field)

    def create_pat(self, name: str, organization_id: str) -> Pat:
        """A new PAT for the caller; ``token`` holds the full value, shown only this once."""
        item = self._graphql(
            CREATE_PAT,
            "createPersonalAccessToken",
            {"input": {"name": name, "organizationId": organization_id}},
        )
        return pat_from(item)

    def list_pats(self) -> list[Pat]:
        """The caller's PATs, tokens masked."""
        viewer = self._graphql(LIST_PATS, "viewer")
        return [pat_from(item) for item in viewer["personalAccessTokens"]]

    def delete_pat(self, pat_id: str) -> None:
        """Delete one of the caller's PATs; it stops working at once."""
        self._graphql(DELETE_PAT, "deletePersonalAccessToken", {"input": {"id": pat_id}})


class AsyncContentClient:
    """:class:`ContentClient` for asyncio, over one ``httpx.AsyncClient``."""

    def __init__(
        self,
        auth_url: str = DEFAULT_AUTH_URL,
        base_url: str = DEFAULT_BASE_URL,
        client_id: str | None = None,
        client_secret: str | None = None,
        *,
        pat: str | None = None,
        http: httpx.AsyncClient | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._credentials = _Credentials(auth_url, client_id, client_secret, pat, clock)
        self._base_url = base_url.rstrip("/")
        self._http = http if http is not None else httpx.AsyncClient(timeout=TIMEOUT)

    async def access_token(self) -> str:
        """The bearer token to send: the PAT, the cached client token, or a new one."""
        credentials = self._credentials
        if credentials.pat is not None:
            return credentials.pat
        cached = credentials.cache.current()
        if cached is not None:
            return cached
        response = await self._http.post(credentials.token_url, data=credentials.form)
        return credentials.cache.store(*token_answer(response.status_code, response.content))

    async def hubs(self, size: int = 20) -> AsyncIterator[Hub]:
        """Every hub, fetching page after page."""
        number = 0
        while True:
            response = await self._http.get(
                f"{self._base_url}/v2/content/hubs",
                params={"page": number, "size": size},
                headers={"Authorization": f"Bearer {await self.access_token()}"},
            )
            page = hubs_page(response.status_code, response.content)
            for hub in page.hubs:
                yield hub
            if page.is_last:
                return
            number += 1

    async def _graphql(
        self, query: str, field: str, variables: dict[str, Any] | None = None
    ) -> Any:
        response = await self._http.post(
            f"{self._base_url}/graphql",
            json={"query": query, "variables": variables or {}},
            headers={"Authorization": f"Bearer {await self.access_token()}"},
        )
        return graphql_field(response.status_code, response.content, field)

    async def create_pat(self, name: str, organization_id: str) -> Pat:
        """A new PAT for the caller; ``token`` holds the full value, shown only this once."""
        item = await self._graphql(
            CREATE_PAT,
            "createPersonalAccessToken",
            {"input": {"name": name, "organizationId": organization_id}},
        )
        return pat_from(item)

    async def list_pats(self) -> list[Pat]:
        """The caller's PATs, tokens masked."""
        viewer = await self._graphql(LIST_PATS, "viewer")
        return [pat_from(item) for item in viewer["personalAccessTokens"]]

    async def delete_pat(self, pat_id: str) -> None:
        """Delete one of the caller's PATs; it stops working at once."""
        await self._graphql(DELETE_PAT, "deletePersonalAccessToken", {"input": {"id": pat_id}})

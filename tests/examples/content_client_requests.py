"""The example client again, for an application that uses requests.

::

    client = ContentClient(client_id="...", client_secret="...", session=requests.Session())
    names = [hub.name for hub in client.hubs()]

Same behaviour as ``content_client.ContentClient``: a cached client token renewed 30 s
before it expires, or a fixed PAT; the same exceptions.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import requests

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

__all__ = ["ContentClient"]

TIMEOUT = 10.0


class ContentClient:
    """The content API and PAT management over one ``requests.Session``.

    Give ``client_id`` and ``client_secret``, or ``pat``. ``clock`` is what the token cache
    reads (POSIX seconds); tests may pass another.
    """

    def __init__(
        self,
        auth_url: str = DEFAULT_AUTH_URL,
        base_url: str = DEFAULT_BASE_URL,
        client_id: str | None = None,
        client_secret: str | None = None,
        *,
        pat: str | None = None,
        session: requests.Session | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if (pat is None) == (client_id is None or client_secret is None):
            raise ValueError("give either client_id and client_secret, or a pat")
        self._token_url = auth_url.rstrip("/") + "/oauth/token"
        self._form = {
            "client_id": client_id or "",
            "client_secret": client_secret or "",
            "grant_type": "client_credentials",
        }
        self._pat = pat
        self._cache = TokenCache(clock)
        self._base_url = base_url.rstrip("/")
        self._session = session if session is not None else requests.Session()

    @classmethod
    def from_pat(
        cls, pat: str, base_url: str = DEFAULT_BASE_URL, *, session: requests.Session | None = None
    ) -> ContentClient:
        """A client that sends a personal access token instead of client credentials."""
        return cls(base_url=base_url, pat=pat, session=session)

    def access_token(self) -> str:
        """The bearer token to send: the PAT, the cached client token, or a new one."""
        if self._pat is not None:
            return self._pat
        cached = self._cache.current()
        if cached is not None:
            return cached
        response = self._session.post(self._token_url, data=self._form, timeout=TIMEOUT)
        return self._cache.store(*token_answer(response.status_code, response.content))

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.access_token()}"}

    def hubs(self, size: int = 20) -> Iterator[Hub]:
        """Every hub, fetching page after page."""
        number = 0
        while True:
            response = self._session.get(
                f"{self._base_url}/v2/content/hubs",
                params={"page": number, "size": size},
                headers=self._headers(),
                timeout=TIMEOUT,
            )
            page = hubs_page(response.status_code, response.content)
            yield from page.hubs
            if page.is_last:
                return
            number += 1

    def _graphql(self, query: str, field: str, variables: dict[str, Any] | None = None) -> Any:
        response = self._session.post(
            f"{self._base_url}/graphql",
            json={"query": query, "variables": variables or {}},
            headers=self._headers(),
            timeout=TIMEOUT,
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

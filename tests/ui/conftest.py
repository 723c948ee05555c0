"""The page's HTTP client for the tests of this folder: a browser without a browser."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from patgate import Fake

CSRF = re.compile(r'name="csrf" value="([0-9a-f]{64})"')


class Browser:
    """A cookie-keeping client of the page, the way a web browser posts forms."""

    def __init__(self, fake: Fake) -> None:
        self.fake = fake
        self.ui = fake.urls.ui_url
        self.client = httpx.Client(transport=fake.httpx_transport(), timeout=10)
        self.csrf = ""
        # The target file's address carries the page's key: it signs the browser in.
        signed_in = self.client.get(fake.world["ui_url"])
        assert signed_in.status_code == 303, signed_in.text
        assert signed_in.headers["location"] == "/ui/"

    def get(self, path: str) -> httpx.Response:
        response = self.client.get(self.ui + path)
        found = CSRF.search(response.text)
        if found:
            self.csrf = found.group(1)
        return response

    def post(self, path: str, data: dict[str, str], **headers: str) -> httpx.Response:
        if not self.csrf:
            self.get("/")
        return self.client.post(
            self.ui + path, data={"csrf": self.csrf, **data}, headers=headers or None
        )

    def act_as(self, user_id: str) -> None:
        response = self.post("/session", {"user": user_id})
        assert response.status_code == 303, response.text
        assert response.headers["location"].startswith("/ui/tokens?note=")


@pytest.fixture
def fake() -> Iterator[Fake]:
    with Fake() as started:
        yield started


@pytest.fixture
def browser(fake: Fake) -> Iterator[Browser]:
    person = Browser(fake)
    yield person
    person.client.close()

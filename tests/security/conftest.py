"""A fresh fake and credentials for every catalogue row."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.security.catalogue import Kit


@pytest.fixture
def kit() -> Iterator[Kit]:
    made = Kit()
    try:
        yield made
    finally:
        made.close()

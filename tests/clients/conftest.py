"""Fixtures for the vendor-client tests: the pinned packages, and a fake on a real socket."""

from __future__ import annotations

import pytest

from patgate.harness import Fake
from tests.clients.vendor import install
from tests.counterparts import need_counterpart


@pytest.fixture(scope="session")
def vendor_packages() -> None:
    """The pinned vendor packages, installed into the cache folder on first use."""
    problem = install()
    need_counterpart(problem is None, problem or "")


@pytest.fixture
def served(patgate_server: Fake) -> Fake:
    """A fake on loopback, as ``patgate serve`` runs it (the plugin's ``patgate_server``)."""
    return patgate_server

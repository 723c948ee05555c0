"""The pytest plugin: fixtures for the fake, and scenario files collected as tests.

Imports here stay light; anything heavy is imported inside the fixtures that need it, so a
test session that does not use patgate does not pay for it.

Fixtures:

- ``patgate_fake``: a started :class:`patgate.Fake` intercepting httpx and requests.
- ``patgate_world``: that fake's target-file dict.
- ``patgate_server``: a fake served on a loopback port, for clients that need a socket.

Scenario files in the folders named by ``--patgate-scenarios`` or the ``patgate_scenarios``
ini option are collected as one test per scenario (see :mod:`patgate.scenario_items`).

URLs come from the ``patgate`` marker, else the ini options ``patgate_auth_url``,
``patgate_base_url``, ``patgate_graphql_url``, else the real service's hosts; strict mode
from the marker's ``strict`` or the ``patgate_strict`` ini option.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from patgate import scenario_items

if TYPE_CHECKING:
    from patgate.harness import Fake

__all__ = ["patgate_fake", "patgate_server", "patgate_world"]

_URL_KEYS = ("auth_url", "base_url", "graphql_url")
_MARKER_KEYS = frozenset((*_URL_KEYS, "strict"))


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the ``patgate_*`` ini options and the scenario options."""
    scenario_items.add_options(parser)
    for key in _URL_KEYS:
        parser.addini(
            f"patgate_{key}", f"{key} of the patgate_fake fixture (default: the real host)"
        )
    parser.addini(
        "patgate_strict",
        "patgate_fake refuses requests to URLs it does not serve (default: false)",
        type="bool",
        default=False,
    )


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.File | None:
    """Collect scenario files from the configured scenario folders."""
    return scenario_items.collect_file(file_path, parent)


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``patgate`` marker (the project runs with ``--strict-markers``)."""
    config.addinivalue_line(
        "markers",
        "patgate(auth_url=None, base_url=None, graphql_url=None, strict=None): URLs and strict "
        "mode of the patgate_fake fixture in this test",
    )


def _fake_options(request: pytest.FixtureRequest) -> dict[str, Any]:
    config = request.config
    options: dict[str, Any] = {key: config.getini(f"patgate_{key}") or None for key in _URL_KEYS}
    options["strict"] = bool(config.getini("patgate_strict"))
    marker = request.node.get_closest_marker("patgate")
    if marker is not None:
        # A misused marker is the test's own error: report it without a traceback.
        if marker.args:
            pytest.fail("@pytest.mark.patgate takes keyword arguments only", pytrace=False)
        unknown = set(marker.kwargs) - _MARKER_KEYS
        if unknown:
            pytest.fail(
                f"@pytest.mark.patgate got unknown keys {sorted(unknown)}; "
                f"it knows {sorted(_MARKER_KEYS)}",
                pytrace=False,
            )
        options.update({key: value for key, value in marker.kwargs.items() if value is not None})
    return options


@pytest.fixture
def patgate_fake(request: pytest.FixtureRequest) -> Iterator[Fake]:
    """A fake of the service with the default world, intercepting httpx and requests.

    Scope: function; every test gets fresh state and fresh secrets.
    Type: :class:`patgate.Fake` (started; stopped after the test).
    Default: answers on the real hosts (``https://auth.amplience.net``,
    ``https://api.amplience.net``, GraphQL at ``{base_url}/graphql``), lets other URLs reach
    the network; change with ``@pytest.mark.patgate(base_url=..., strict=True)`` or the
    ``patgate_*`` ini options.
    """
    from patgate.errors import UsageError
    from patgate.harness import Fake

    options = _fake_options(request)
    strict = bool(options.pop("strict"))
    try:
        fake = Fake(urls=options, strict=strict)
    except UsageError as error:
        # A bad URL in the marker or an ini option: the test's own error, without a traceback.
        pytest.fail(f"patgate_fake: {error}", pytrace=False)
    with fake:
        yield fake


@pytest.fixture
def patgate_world(patgate_fake: Fake) -> dict[str, str]:
    """The target file of ``patgate_fake``: URLs, client credentials, tokens, PAT prefix.

    Scope: function.
    Type: ``dict[str, str]`` with exactly the keys of docs/design.md's target contract.
    Default: the default world's organization, API client and principals' tokens.
    """
    return patgate_fake.world


@pytest.fixture
def patgate_server() -> Iterator[Fake]:
    """A fake served over HTTP on ``127.0.0.1`` and a free port, for any client.

    Scope: function; fresh state every test.
    Type: :class:`patgate.Fake` (not intercepting: requests really cross the socket);
    ``fake.world`` holds the server's URLs.
    Default: auth, content and GraphQL on one origin, GraphQL at ``/graphql``. An exception
    inside the fake is re-raised when the test ends.
    """
    from patgate.harness import Fake
    from patgate.transports.loopback_server import LoopbackServer

    server = LoopbackServer()
    try:
        fake = Fake(urls=server.urls)
        server.start(fake.handle)
        yield fake
    finally:
        server.stop()

"""The pytest plugin: fixtures for the fake, and scenario files collected as tests.

Imports here stay light; anything heavy is imported inside the fixtures that need it, so a
test session that does not use patgate does not pay for it.

Fixtures:

- ``patgate_fake``: a started :class:`patgate.Fake` intercepting httpx and requests.
- ``patgate_world``: that fake's target-file dict.
- ``patgate_fakes``: a factory of further started fakes, for a test that needs several.
- ``patgate_server``: a fake served on a loopback port, for clients that need a socket.

Scenario files in the folders named by ``--patgate-scenarios`` or the ``patgate_scenarios``
ini option are collected as one test per scenario (see :mod:`patgate.plugin.scenario_items`).

A fake's options come from the ``patgate`` marker, else the ``patgate_*`` ini options, else
the defaults: URLs (``auth_url``, ``base_url``, ``graphql_url``: the real hosts), ``strict``
(false), the deployment's settings (``expires_in``, ``session_expires_in``,
``max_tokens_per_user``, ``pat_prefix``, ``seed``, ``clock``: see
:mod:`patgate.fake.settings`),
``faults`` (fault rules, as ``fake.faults.add`` takes them), ``rate_limit`` (false) and
``profile`` (docs/profile.md: a YAML file relative to the rootdir, or a dict; the
``patgate_profile`` ini option names a file, else ``profile`` in pyproject.toml's
``[tool.patgate]``, relative to that file, as ``patgate run`` reads it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from patgate.plugin import behaviour_coverage, scenario_items, scenario_workers

if TYPE_CHECKING:
    from patgate.harness import Fake

__all__ = [
    "UnusedFaultWarning",
    "patgate_fake",
    "patgate_fakes",
    "patgate_server",
    "patgate_world",
    "refusal_lines",
]

_URL_KEYS = ("auth_url", "base_url", "graphql_url")
# The deployment's settings (patgate.fake.settings.SETTINGS, kept in step by a test): named
# here so that registering the ini options imports nothing.
_SETTING_KEYS = (
    "expires_in",
    "session_expires_in",
    "max_tokens_per_user",
    "pat_prefix",
    "seed",
    "clock",
)
_MARKER_KEYS = frozenset((*_URL_KEYS, "strict", *_SETTING_KEYS, "faults", "rate_limit", "profile"))


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the ``patgate_*`` ini options, the scenario and the coverage options."""
    scenario_items.add_options(parser)
    behaviour_coverage.add_options(parser)
    for key in _URL_KEYS:
        parser.addini(
            f"patgate_{key}", f"{key} of the patgate_fake fixture (default: the real host)"
        )
    parser.addini(
        "patgate_strict",
        "patgate_fake refuses requests that would reach the network (default: false)",
        type="bool",
        default=False,
    )
    for key in _SETTING_KEYS:
        parser.addini(f"patgate_{key}", f"the fake deployment's {key} (default: the fake's)")
    parser.addini(
        "patgate_profile",
        "the fake's profile: a YAML file, relative to the rootdir (default: profile in "
        "pyproject.toml's [tool.patgate], else the shipped one)",
    )
    parser.addini(
        "patgate_faults",
        "fault rules of patgate_fake, one JSON object per line (default: none)",
        type="linelist",
    )
    parser.addini(
        "patgate_rate_limit",
        "patgate_fake enforces the published GraphQL rate limit (default: false)",
        type="bool",
        default=False,
    )


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.File | None:
    """Collect scenario files from the configured scenario folders."""
    return scenario_items.collect_file(file_path, parent)


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``patgate`` marker (the project runs with ``--strict-markers``) and, when
    asked for, the behaviour coverage."""
    behaviour_coverage.configure(config)
    scenario_workers.register(config)
    config.addinivalue_line(
        "markers",
        "patgate(auth_url=None, base_url=None, graphql_url=None, strict=None, expires_in=None, "
        "session_expires_in=None, max_tokens_per_user=None, pat_prefix=None, seed=None, "
        "clock=None, faults=None, rate_limit=None, profile=None): options of the patgate_fake "
        "fixture in this test (profile: a YAML file, relative to the rootdir, or a dict)",
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A ``patgate`` marker on a test that uses no ``patgate_fake`` configures nothing: the
    test fails with the fix instead of running without what the marker asked for. A marker
    on a class or module (``pytestmark``) is left alone: it may cover tests that do not
    need a fake."""
    own = getattr(item, "own_markers", ())
    if not any(marker.name == "patgate" for marker in own):
        return
    if "patgate_fake" in getattr(item, "fixturenames", ()):
        return
    pytest.fail(
        "@pytest.mark.patgate configures the patgate_fake fixture, which this test does not "
        "use: add patgate_fake (or patgate_world) to its arguments, or give the options to "
        "patgate_fakes(...) instead",
        pytrace=False,
    )


_INI_OPTIONS = pytest.StashKey[dict[str, Any]]()


def _ini_options(config: pytest.Config) -> dict[str, Any]:
    """The ini options that are set, checked (a bad value fails the test, no traceback).

    Read once a session (the ini file does not change during it), then copied.
    """
    cached = config.stash.get(_INI_OPTIONS, None)
    if cached is None:
        cached = config.stash[_INI_OPTIONS] = _read_ini_options(config)
    return dict(cached)


def _read_ini_options(config: pytest.Config) -> dict[str, Any]:
    import json

    from patgate.errors import UsageError
    from patgate.fake.settings import parse_setting

    options: dict[str, Any] = {key: config.getini(f"patgate_{key}") or None for key in _URL_KEYS}
    options["strict"] = bool(config.getini("patgate_strict"))
    options["rate_limit"] = bool(config.getini("patgate_rate_limit"))
    try:
        for key in _SETTING_KEYS:
            text = config.getini(f"patgate_{key}")
            if text:
                options[key] = parse_setting(key, text)
    except UsageError as error:
        pytest.fail(f"ini option patgate_{error}", pytrace=False)
    problem = None
    # A problem of the ini option's file says so; one of [tool.patgate] names its file.
    source = "ini option patgate_profile: " if config.getini("patgate_profile") else ""
    try:  # the ini option, else [tool.patgate]'s profile; read once a session
        profile = _profile_path(config)
        if profile is not None:
            from patgate.fake.profile import load_profile

            options["profile"] = load_profile(profile)
    except UsageError as error:
        problem = str(error)
    if problem is not None:
        pytest.fail(f"{source}{problem}", pytrace=False)
    faults = []
    for line in config.getini("patgate_faults"):
        try:
            faults.append(json.loads(line))
        except ValueError:
            pytest.fail(
                f"ini option patgate_faults: not a JSON object: {line[:60]!r}", pytrace=False
            )
    options["faults"] = faults
    return options


def _profile_path(config: pytest.Config) -> Path | None:
    """The fake's profile file: the ini option ``patgate_profile`` (relative to the
    rootdir), else ``profile`` of ``[tool.patgate]`` or ``[tool.patgate.run]`` in the
    pyproject.toml nearest above the rootdir (relative to that file), else ``None``."""
    profile = config.getini("patgate_profile")
    if profile:
        return _from_rootdir(config, profile)
    from patgate.guards.project_file import configured

    found = configured(config.rootpath, "run", "profile")
    return Path(found) if found else None


def _marker_options(request: pytest.FixtureRequest) -> dict[str, Any]:
    marker = request.node.get_closest_marker("patgate")
    if marker is None:
        return {}
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
    options = {key: value for key, value in marker.kwargs.items() if value is not None}
    if isinstance(options.get("profile"), (str, Path)):
        options["profile"] = _from_rootdir(request.config, options["profile"])
    return options


def _from_rootdir(config: pytest.Config, path: str | Path) -> Path:
    """A profile's path as written, relative to the rootdir unless absolute."""
    return config.rootpath / str(path).strip()


def _build_fake(options: dict[str, Any], where: str, faults_from: str | None = None) -> Fake:
    """A fake (not started) from fixture options; a bad option fails the test cleanly.
    ``faults_from`` says where the fault rules were given (``None``: the caller's line)."""
    from patgate.errors import PatgateError
    from patgate.harness import Fake

    options = dict(options)
    urls = {key: options.pop(key, None) for key in _URL_KEYS}
    strict = bool(options.pop("strict", False))
    faults = options.pop("faults", None) or []
    rate_limit = bool(options.pop("rate_limit", False))
    settings = {key: value for key, value in options.items() if value is not None}
    try:
        fake = Fake(urls=urls, strict=strict, **settings)
        if isinstance(faults, dict) or not isinstance(faults, list | tuple):
            raise TypeError("faults must be a list of rules (dicts)")
        for rule in faults:
            fake.deployment.faults.add_from_json(rule, added_at=faults_from)
        if rate_limit:  # a new fake's is off
            fake.deployment.faults.set_rate_limit(True)
    except (PatgateError, TypeError) as error:
        # A bad URL, setting or rule in the marker or an ini option: the test's own error.
        pytest.fail(f"{where}: {error}", pytrace=False)
    return fake


@pytest.fixture
def patgate_fake(request: pytest.FixtureRequest) -> Iterator[Fake]:
    """A fake of the service with the default world, intercepting httpx and requests.

    Scope: function; every test gets fresh state and fresh secrets.
    Type: :class:`patgate.Fake` (started; stopped after the test).
    Default: answers on the real hosts (``https://auth.amplience.net``,
    ``https://api.amplience.net``, GraphQL at ``{base_url}/graphql``), lets other URLs reach
    the network (or the test's own mocks); settings, faults and URLs come from
    ``@pytest.mark.patgate(...)`` or the ``patgate_*`` ini options.
    """
    marker = _marker_options(request)
    options = {**_ini_options(request.config), **marker}
    faults_from = "the patgate marker" if "faults" in marker else "the patgate_faults ini option"
    fake = _build_fake(options, "patgate_fake", faults_from)
    try:
        fake.start()
    except Exception as error:  # URLs overlapping a fake the test already started
        pytest.fail(f"patgate_fake: {error}", pytrace=False)
    with fake:
        yield fake
    _report_unused_faults(fake, strict=bool(options.get("strict")))


class UnusedFaultWarning(UserWarning):
    """A fault rule a test added never answered a request (the test may not test what it
    meant to)."""


def _report_unused_faults(fake: Fake, *, strict: bool) -> None:
    """Each fault rule that never answered, with where it was added: a warning, or under
    ``strict`` a failure of the test's teardown."""
    unused = fake.deployment.faults.unused()
    if not unused:
        return
    lines = [
        f"fault rule {rule.id} ({rule.endpoint}"
        f"{', added at ' + rule.added_at if rule.added_at else ''}) never answered a request"
        for rule in unused
    ]
    if strict:
        pytest.fail("patgate (strict): " + "; ".join(lines), pytrace=False)
    import warnings

    for line in lines:
        warnings.warn(UnusedFaultWarning(line), stacklevel=2)


_REFUSALS = "patgate: requests the fake refused"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failed test that used ``patgate_fake`` gets a report section listing each request
    the fake refused: method, URL, status and why (the reason's code and facts)."""
    report = yield
    if report.failed and report.when in ("call", "teardown"):
        fake = getattr(item, "funcargs", {}).get("patgate_fake")
        if fake is not None:
            lines = refusal_lines(fake)
            if lines:
                report.sections.append((_REFUSALS, "\n".join(lines)))
    return report


def refusal_lines(fake: Fake) -> list[str]:
    """One line per request ``fake`` refused (with a reason), oldest first."""
    lines = []
    for entry in fake.request_log.entries():
        if entry.reason is None:
            continue
        fault = f" [fault {entry.fault}]" if entry.fault else ""
        lines.append(
            f"{entry.method} {entry.url} -> {entry.status}{fault} {entry.reason_code}: "
            f"{entry.reason}"
        )
    return lines


@pytest.fixture
def patgate_fakes(request: pytest.FixtureRequest) -> Iterator[Callable[..., Fake]]:
    """A factory of started fakes, for a test that needs several (one per region, say).

    Scope: function; every fake it made is stopped after the test.
    Type: ``Callable[..., patgate.Fake]``: call it with any keyword the ``patgate`` marker
    takes (``base_url=...``, ``expires_in=...``, ``faults=[...]``); each fake must have URLs
    of its own, or starting it raises ``UsageError``.
    Default: the ``patgate_*`` ini options (not the marker, which belongs to ``patgate_fake``).
    """
    defaults = _ini_options(request.config)
    made: list[Fake] = []

    def make(**options: Any) -> Fake:
        unknown = set(options) - _MARKER_KEYS
        if unknown:
            raise TypeError(f"patgate_fakes got unknown keys {sorted(unknown)}")
        fake = _build_fake({**defaults, **options}, "patgate_fakes")
        fake.start()
        made.append(fake)
        return fake

    try:
        yield make
    finally:
        while made:
            made.pop().stop()


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

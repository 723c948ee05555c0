"""Where the fake answers: the three base URLs of the target contract, and what lies under them.

By default the fake answers on the real service's hosts, so a user's code is intercepted
without changing its URLs. A URL is *served* when it lies under one of the three bases; any
other URL is left to the network, or refused in strict mode with :class:`UnmatchedRequest`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar
from urllib.parse import urlsplit

from patgate.errors import UnmatchedRequest, UsageError
from patgate.fake.bounded_cache import BoundedCache
from patgate.service import api_paths

__all__ = [
    "DEFAULT_AUTH_URL",
    "DEFAULT_BASE_URL",
    "FakeUrls",
    "UnmatchedRequest",
    "canonical_url",
]

DEFAULT_AUTH_URL = "https://auth.amplience.net"
DEFAULT_BASE_URL = "https://api.amplience.net"
GRAPHQL_PATH = "/graphql"
"""Where ``graphql_url`` is by default, below ``base_url``."""
UI_PATH = "/ui"
UI_KEY_PARAMETER = "key"
"""The query parameter that carries the management page's key: ``{ui_url}/?key=SECRET``."""
"""Where the management page is, below ``base_url``."""
CONTROL_PATH = "/__patgate"
"""Where the control API is, below ``base_url``."""

_DEFAULT_PORTS = {"http": 80, "https": 443}


# Every request asks and clients repeat their URLs, so answers are kept: keyed by the URL
# without its query and fragment (which the answer drops anyway), only for keys up to 2 KiB,
# and within 1 MiB of text in all. A flood of long or distinct URLs pins nothing more. The
# oldest go first (a hit takes no lock: this is on every request's path).
_CANONICAL = BoundedCache[str, str](1024 * 1024, max_entry_bytes=2 * 1024, touch=False)


def canonical_url(url: str) -> str:
    """``scheme://host[:port]/path`` with the query, fragment, user info and default port gone.

    Scheme and host are lower-cased, so URLs that reach the same endpoint compare equal.
    """
    shape = url.partition("?")[0].partition("#")[0]
    known = _CANONICAL.get(shape)
    if known is not None:
        return known
    canonical = _canonical(shape)
    _CANONICAL.put(shape, canonical, 2 * len(shape) + 100)
    return canonical


def _canonical(url: str) -> str:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        host = f"{host}:{port}"
    return f"{scheme}://{host}{parts.path or '/'}"


def _base(name: str, url: str) -> str:
    # The messages never repeat the value: a query or user info may hold a credential.
    parts = urlsplit(url)
    if parts.scheme.lower() not in _DEFAULT_PORTS or not parts.hostname:
        raise UsageError(f"{name} must be an absolute http(s) URL, such as https://api.example.com")
    if parts.query or parts.fragment:
        raise UsageError(f"{name} must not have a query or a fragment")
    try:
        parts.port  # noqa: B018 - validates the port
    except ValueError:
        raise UsageError(f"{name} has an invalid port") from None
    return canonical_url(url).rstrip("/")


@dataclass(frozen=True)
class FakeUrls:
    """The fake's base URLs; ``graphql_url`` defaults to ``{base_url}/graphql``.

    Values are normalised on construction (no trailing slash, lower-case host, no default
    port); a value that is not an absolute http(s) URL raises :class:`UsageError`.
    """

    auth_url: str = DEFAULT_AUTH_URL
    base_url: str = DEFAULT_BASE_URL
    graphql_url: str = ""
    # Set per instance by __post_init__ (not fields: no part of equality, repr or replace).
    _bases: ClassVar[tuple[str, ...]]
    _below_bases: ClassVar[tuple[str, ...]]

    def __post_init__(self) -> None:
        base = _base("base_url", self.base_url)
        object.__setattr__(self, "auth_url", _base("auth_url", self.auth_url))
        object.__setattr__(self, "base_url", base)
        graphql = self.graphql_url or base + GRAPHQL_PATH
        object.__setattr__(self, "graphql_url", _base("graphql_url", graphql))
        # What serves_canonical compares, made once (it runs on every request, twice).
        bases = (self.base_url, self.auth_url, self.graphql_url)
        object.__setattr__(self, "_bases", bases)
        object.__setattr__(self, "_below_bases", tuple(b + "/" for b in bases))

    @classmethod
    def build(
        cls,
        *,
        auth_url: str | None = None,
        base_url: str | None = None,
        graphql_url: str | None = None,
    ) -> FakeUrls:
        """Defaults for whatever is ``None`` or empty."""
        return cls(
            auth_url=auth_url or DEFAULT_AUTH_URL,
            base_url=base_url or DEFAULT_BASE_URL,
            graphql_url=graphql_url or "",
        )

    @classmethod
    def same_origin(cls, origin: str) -> FakeUrls:
        """Everything on one origin, as the loopback server serves it."""
        return cls(auth_url=origin, base_url=origin)

    def base_for(self, key: str) -> str:
        """The base URL of a target key: ``auth_url``, ``base_url`` or ``graphql_url``."""
        if key not in ("auth_url", "base_url", "graphql_url"):
            raise KeyError(key)
        value: str = getattr(self, key)
        return value

    @property
    def token_url(self) -> str:
        """``POST`` here for a client-credential token."""
        return api_paths.TOKEN.url(self.auth_url)

    @property
    def hubs_url(self) -> str:
        """``GET`` here for the hubs listing."""
        return api_paths.HUBS.url(self.base_url)

    @property
    def ui_url(self) -> str:
        """The management page (``GET`` in a browser)."""
        return self.base_url + UI_PATH

    @property
    def control_url(self) -> str:
        """The control API (a target file's ``control_url``)."""
        return self.base_url + CONTROL_PATH

    def endpoints(self) -> tuple[tuple[str, str], ...]:
        """``(method, url)`` of every endpoint the fake serves."""
        return (("POST", self.token_url), ("GET", self.hubs_url), ("POST", self.graphql_url))

    def serves(self, url: str) -> bool:
        """Whether ``url`` lies under one of the bases (its path may still be unknown: 404)."""
        return self.serves_canonical(canonical_url(url))

    def serves_canonical(self, key: str) -> bool:
        """:meth:`serves` for a URL already passed through :func:`canonical_url`."""
        return key in self._bases or key.startswith(self._below_bases)

    def describe(self) -> str:
        """The served endpoints, one per line, for error messages."""
        lines = [f"  {method} {url}" for method, url in self.endpoints()]
        content = self.base_url + api_paths.CONTENT_PREFIX
        lines.append(f"  GET {content}/... (hubs and the resources their links lead to)")
        return "\n".join(lines)

    def unmatched(self, method: str, url: str) -> UnmatchedRequest:
        """The error a strict fake raises for a request it does not serve."""
        return UnmatchedRequest(
            f"patgate (strict): no fake endpoint for {method} {canonical_url(url)}; "
            f"the fake serves:\n{self.describe()}"
        )

"""Who may open the page at all: a per-run secret, and the names the page answers to.

The fake makes a random secret when it starts (``Fake.ui_secret``). The address it hands out
(``patgate serve`` prints it; the target file's ``ui_url`` holds it) carries the secret as
``?key=``: opening it signs the browser in with a cookie and redirects to the same page
without the key. Without the cookie or the key, every page and form answers with a sign-in
page (401) that takes the address or the key.

The ``Host`` header must name the page's own server: a loopback name (``localhost``,
``127.0.0.1``, ``[::1]``) or a host of the fake's URLs (the bound address, a public URL).
Anything else is answered 421 before anything is read: a page on another site whose DNS
name was rebound to this machine gets nothing.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from urllib.parse import urlsplit

from patgate.wire.messages import WireRequest
from patgate.wire.urls import UI_KEY_PARAMETER

__all__ = ["KEY_PARAMETER", "LOOPBACK_NAMES", "UiAccess"]

KEY_PARAMETER = UI_KEY_PARAMETER
"""The query parameter of the signed-in address: ``{ui_url}/?key=SECRET``."""
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
"""Host names that always reach the page (the machine itself)."""


def host_name(host: str) -> str:
    """The name part of a ``Host`` header (``[::1]:80`` -> ``::1``), lower-cased.

    Anything after an IPv6 literal's ``]`` but a port (``[::1].evil.example``) is kept whole,
    so it names no host of the page.
    """
    host = host.strip().lower()
    if host.startswith("["):
        name, bracket, rest = host[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else None
        plain = rest == "" or (port is not None and port.isascii() and port.isdigit())
        return name if bracket and plain else host
    name, _, port = host.rpartition(":")
    return name if name and port.isascii() and port.isdigit() else host


class UiAccess:
    """The secret and the host names of one page."""

    def __init__(self, secret: str, urls: Iterable[str]) -> None:
        self._secret = secret.encode("utf-8")
        self.hosts = frozenset(
            LOOPBACK_NAMES | {host_name(urlsplit(url).netloc) for url in urls if url}
        )
        digest = hashlib.sha256(b"patgate ui cookie " + self._secret).hexdigest()
        self.cookie_name = f"patgate_ui_key_{digest[:10]}"
        """One name per secret: two fakes on one host keep their own sign-ins."""
        self.cookie_value = hmac.new(self._secret, b"signed in", hashlib.sha256).hexdigest()

    def host_allowed(self, request: WireRequest) -> bool:
        """Whether the request's ``Host`` names this page's server."""
        hosts = request.header_values("host")
        if len(hosts) > 1:
            return False  # RFC 9112 §3.2: which one names the server is anyone's guess
        # Only in-process transports omit it; their URL holds the host they asked for.
        host = hosts[0] if hosts else urlsplit(request.url).netloc
        return host_name(host) in self.hosts

    def key_matches(self, text: str) -> bool:
        """Whether ``text`` is the secret, or an address carrying it as ``?key=``."""
        text = text.strip()
        if "?" in text or "://" in text:
            from urllib.parse import parse_qs

            values = parse_qs(urlsplit(text).query).get(KEY_PARAMETER, [""])
            text = values[0]
        return hmac.compare_digest(text.encode("utf-8"), self._secret)

    def signed_in(self, cookies: dict[str, str]) -> bool:
        """Whether the request's cookies hold this page's sign-in."""
        sent = cookies.get(self.cookie_name, "")
        return hmac.compare_digest(sent.encode("utf-8"), self.cookie_value.encode("utf-8"))

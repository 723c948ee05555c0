"""Who is using the page, and proof that a form post came from the page itself.

Two cookies, both ``HttpOnly`` and ``SameSite=Strict`` on the page's path:

- ``patgate_ui_user`` names the user the person picked (it is a fake: no passwords);
- ``patgate_ui_csrf`` holds a random value. Every form carries an HMAC of it under a key
  that lives only in this process (the signed double-submit pattern), so a page on another
  site can neither read nor forge the field. A post whose ``Origin`` or ``Sec-Fetch-Site``
  says it came from elsewhere is refused as well: the ``Origin`` must name the host the
  request was sent to (``localhost`` and ``127.0.0.1`` both work).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from patgate.wire.messages import WireRequest
from patgate.wire.statuses import HttpRefusal

__all__ = [
    "CSRF_COOKIE",
    "CSRF_FIELD",
    "MAX_COOKIE_TEXT",
    "USER_COOKIE",
    "CsrfGuard",
    "Session",
    "request_cookies",
]

USER_COOKIE = "patgate_ui_user"
CSRF_COOKIE = "patgate_ui_csrf"
CSRF_FIELD = "csrf"
_SAME_SITE_FETCH = frozenset({"same-origin", "none"})
MAX_COOKIE_TEXT = 8 * 1024
"""Characters of ``Cookie`` headers read per request (the page's own cookies take under 300);
the rest is ignored."""
# RFC 6265 §4.1.1 cookie-octet: no space, quote, comma, semicolon or backslash. One character
# class, matched whole: linear in the value, whatever it holds.
_COOKIE_VALUE = re.compile(r"[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*")


def _cross_site(message: str) -> HttpRefusal:
    return HttpRefusal(403, message, code="CROSS_SITE_REQUEST")


def request_cookies(request: WireRequest) -> dict[str, str]:
    """The cookies ``request`` sent, the first of each name; a malformed pair counts as none.

    Read in one pass over at most :data:`MAX_COOKIE_TEXT` characters: the standard library's
    cookie parser takes seconds on a quoted value of backslashes, before any sign-in.
    """
    cookies: dict[str, str] = {}
    budget = MAX_COOKIE_TEXT
    for header in request.header_values("cookie"):
        if budget <= 0:
            break
        text, budget = header[:budget], budget - len(header)
        for pair in text.split(";"):
            name, equals, value = pair.partition("=")
            name, value = name.strip(), value.strip()
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = value[1:-1]
            if equals and name and name not in cookies and _COOKIE_VALUE.fullmatch(value):
                cookies[name] = value
    return cookies


@dataclass(frozen=True)
class Session:
    """What one request says about its sender: the picked user and the CSRF value."""

    user_id: str | None
    csrf_value: str
    fresh_csrf: bool
    """True when the request had no CSRF cookie: the answer must set one."""

    @classmethod
    def of(cls, request: WireRequest) -> Session:
        """Read the cookies of ``request``; a missing CSRF value is made anew."""
        cookies = request_cookies(request)
        value = cookies.get(CSRF_COOKIE, "")
        fresh = len(value) < 32
        return cls(
            user_id=cookies.get(USER_COOKIE) or None,
            csrf_value=secrets.token_urlsafe(32) if fresh else value,
            fresh_csrf=fresh,
        )


class CsrfGuard:
    """Makes and checks the forms' CSRF field for one page (one key per process)."""

    def __init__(self, hosts: Iterable[str]) -> None:
        self._key = secrets.token_bytes(32)
        self.hosts = frozenset(hosts)

    def field_value(self, session: Session) -> str:
        """The hidden field for forms rendered to ``session``."""
        digest = hmac.new(self._key, session.csrf_value.encode(), hashlib.sha256)
        return digest.hexdigest()

    def check(self, request: WireRequest, session: Session, form: dict[str, str]) -> None:
        """Raise a 403 :class:`HttpRefusal` unless ``form`` was posted by the page itself."""
        origin = request.header("origin")
        if origin is not None and not self._same_origin(request, origin):
            raise _cross_site("the form was posted from another site")
        fetch_site = request.header("sec-fetch-site")
        if fetch_site is not None and fetch_site.lower() not in _SAME_SITE_FETCH:
            raise _cross_site("the form was posted from another site")
        sent = form.get(CSRF_FIELD, "")
        if session.fresh_csrf or not hmac.compare_digest(sent, self.field_value(session)):
            raise _cross_site("the form has expired; reload the page and try again")

    def _same_origin(self, request: WireRequest, origin: str) -> bool:
        """Whether ``Origin`` names the host the request was sent to, one of the page's."""
        netloc = urlsplit(origin.strip().lower()).netloc
        host = (request.header("host") or urlsplit(request.url).netloc).strip().lower()
        if netloc != host:
            return False
        from patgate.ui.access import host_name

        return host_name(netloc) in self.hosts

"""Reading credentials from request headers: a bearer token, or HTTP Basic client credentials.

Schemes are matched case-insensitively (RFC 9110 11.1; the vendor's SDK sends ``bearer``).
A malformed header is refused with a message that names the problem, never the value.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable

from patgate.basics.reasons import Reason
from patgate.errors import InvalidRequest, Unauthenticated
from patgate.fake.deployment import Deployment
from patgate.fake.model import Principal
from patgate.wire.forms import decode_component
from patgate.wire.messages import Headers, WireRequest
from patgate.wire.statuses import HttpRefusal

__all__ = ["authenticate_bearer", "basic_credentials", "bearer_challenge", "bearer_token"]

# RFC 6750 2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
_B64TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
_INVALID_REQUEST_CHALLENGE = (("WWW-Authenticate", 'Bearer error="invalid_request"'),)


def _bearer_refusal(message: str) -> HttpRefusal:
    return HttpRefusal(400, message, code="invalid_request", headers=_INVALID_REQUEST_CHALLENGE)


def _single_authorization(request: WireRequest) -> str | None:
    values = request.header_values("authorization")
    if len(values) > 1:
        raise _bearer_refusal("send exactly one Authorization header")
    return values[0] if values else None


def bearer_token(request: WireRequest, *, token_in_query: bool = False) -> str | None:
    """The bearer token of ``request``, or ``None`` when it carries no bearer credentials.

    ``access_token`` in the URL is not a credential (RFC 6750 2.3 discourages it); sent
    together with a header it is refused as a second authentication method. A token that is
    not a b64token (spaces, non-ASCII) is refused as invalid, like an unknown one.
    """
    header = _single_authorization(request)
    if header is None:
        return None
    scheme, _, rest = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    token = rest.strip(" ")
    if not token:
        raise _bearer_refusal("the Bearer scheme needs a token")
    if token_in_query:
        raise _bearer_refusal("send the access token in the Authorization header only")
    if not _B64TOKEN.fullmatch(token):
        raise Unauthenticated("the access token is not valid", rule_id="AUTH-INVALID-TOKEN")
    return token


def authenticate_bearer(
    deployment: Deployment, request: WireRequest, query_names: Iterable[str]
) -> Principal:
    """Who the request's bearer speaks for (:meth:`Deployment.authenticate`); a request with
    no bearer is refused with why: no Authorization header, or one of another scheme."""
    token = bearer_token(request, token_in_query="access_token" in query_names)
    try:
        return deployment.authenticate(token)
    except Unauthenticated as error:
        if token is None:
            error.reason = _absent_bearer(request)
        raise


def _absent_bearer(request: WireRequest) -> Reason:
    header = request.header("authorization")
    if header is None:
        return Reason("bearer-missing", "no bearer token: the request has no Authorization header")
    scheme = header.strip().partition(" ")[0][:20]
    return Reason(
        "bearer-scheme",
        f"the Authorization header has no Bearer scheme (its scheme is {scheme!r})",
    )


def basic_credentials(request: WireRequest) -> tuple[str, str] | None:
    """``(client_id, client_secret)`` from HTTP Basic, or ``None`` without a Basic header.

    Both parts are form-urlencoded before base64 (RFC 6749 2.3.1 and its errata), so they
    are decoded again here; an empty part counts as omitted.
    """
    values = request.header_values("authorization")
    if len(values) > 1:
        raise InvalidRequest("send exactly one Authorization header")
    if not values:
        return None
    scheme, _, rest = values[0].strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        raw = base64.b64decode(rest.strip(), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        # UnicodeDecodeError and non-ASCII input are ValueErrors too.
        raise InvalidRequest("the Basic credentials are not valid base64 of UTF-8") from None
    client_id, colon, secret = raw.partition(":")
    if not colon:
        raise InvalidRequest("the Basic credentials must be client_id:client_secret")
    return decode_component(client_id), decode_component(secret)


def bearer_challenge(status: int, error: Exception) -> Headers:
    """The ``WWW-Authenticate`` header RFC 6750 3.1 asks for with a 401 or a 403."""
    if status == 401:
        no_token = isinstance(error, Unauthenticated) and error.rule_id == "AUTH-REQUIRED"
        return (("WWW-Authenticate", "Bearer" if no_token else 'Bearer error="invalid_token"'),)
    if status == 403:
        return (("WWW-Authenticate", 'Bearer error="insufficient_scope"'),)
    return ()

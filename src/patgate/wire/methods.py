"""HEAD and OPTIONS wherever a resource is served (RFC 9110 9.3.2, 9.3.7), for any handler.

A handler (the wire app, the management page, the control API) declares the methods it
serves; :func:`with_implicit_methods` adds the two every HTTP resource answers:

- ``HEAD`` is answered as ``GET`` would be, same status and headers, without the body; its
  ``Content-Length`` is the length the ``GET`` body has (RFC 9110 8.6);
- ``OPTIONS`` answers 204 with ``Allow`` where the handler would refuse the method with 405
  and ``Allow`` (anything said before that, such as the content API's 401, stands);
- every ``Allow`` a 405 carries also names ``HEAD`` (beside ``GET``) and ``OPTIONS``.
"""

from __future__ import annotations

import dataclasses

from patgate.wire.messages import WireHandler, WireRequest, WireResponse

__all__ = ["allow_value", "with_implicit_methods", "without_body"]


def allow_value(methods: str) -> str:
    """``Allow`` for the comma-separated ``methods``, with ``HEAD`` (where ``GET`` is) and
    ``OPTIONS`` added, e.g. ``"GET"`` -> ``"GET, HEAD, OPTIONS"``."""
    listed = [method.strip().upper() for method in methods.split(",") if method.strip()]
    if "GET" in listed and "HEAD" not in listed:
        listed.insert(listed.index("GET") + 1, "HEAD")
    if "OPTIONS" not in listed:
        listed.append("OPTIONS")
    return ", ".join(listed)


def without_body(response: WireResponse) -> WireResponse:
    """``response`` for a ``HEAD`` request: the same status and headers, no body, and the
    ``Content-Length`` the body had."""
    headers = tuple((k, v) for k, v in response.headers if k.lower() != "content-length")
    return WireResponse(
        response.status, (*headers, ("Content-Length", str(len(response.body)))), b""
    )


def _allow_completed(response: WireResponse) -> WireResponse:
    allow = response.header("allow")
    if allow is None:
        return response
    headers = tuple((k, v) for k, v in response.headers if k.lower() != "allow")
    return WireResponse(405, (*headers, ("Allow", allow_value(allow))), response.body)


def with_implicit_methods(handler: WireHandler, request: WireRequest) -> WireResponse | None:
    """``handler``'s answer to ``request``, with ``HEAD`` and ``OPTIONS`` answered for it."""
    if request.method == "HEAD":
        answer = handler(dataclasses.replace(request, method="GET"))
        if answer is None:
            return None
        return without_body(_allow_completed(answer) if answer.status == 405 else answer)
    answer = handler(request)
    if answer is None or answer.status != 405:
        return answer  # the common case costs one comparison
    if request.method == "OPTIONS":
        allow = answer.header("allow")
        if allow is not None:
            return WireResponse(204, (("Allow", allow_value(allow)),))
    return _allow_completed(answer)

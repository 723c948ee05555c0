"""Every use patgate makes of httpx's private parts, in one place.

httpx offers no public hook for either of these:

- Interception (``transports/httpx_adapter.py``): a library cannot choose the transport of
  clients it does not make (``mounts=`` and ``transport=`` belong to whoever makes the
  client), so the fake wraps the method each client asks for a URL's transport,
  ``Client._transport_for_url`` and ``AsyncClient._transport_for_url``.
- The runner's per-request deadline (``runner/connection/deadline.py``): ``HTTPTransport``
  builds its httpcore pool without a way to pass a network backend, so the runner gives the
  transport a pool built with one (``HTTPTransport._pool``).

``pyproject.toml`` caps httpx below 1.0; CI runs the tests of both uses at the lowest httpx it
admits and at the newest. An httpx without either part gets a :class:`UsageError` naming it
and the supported range, not an ``AttributeError`` deep inside a request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from patgate.errors import UsageError

if TYPE_CHECKING:
    import httpcore
    import httpx

__all__ = ["SUPPORTED", "TRANSPORT_HOOK", "hooked_clients", "use_pool"]

SUPPORTED = "httpx>=0.27,<1"
"""The httpx range patgate is tested with (as ``pyproject.toml`` declares it)."""

TRANSPORT_HOOK = "_transport_for_url"
"""The client method interception wraps."""


def _missing(what: str) -> UsageError:
    import httpx

    return UsageError(
        f"patgate relies on httpx's {what}, which httpx {httpx.__version__} does not have: "
        f"install an httpx that patgate supports (pip install '{SUPPORTED}')"
    )


def hooked_clients() -> tuple[type[httpx.Client], type[httpx.AsyncClient]]:
    """The two client classes whose :data:`TRANSPORT_HOOK` interception wraps, checked to
    define it."""
    import httpx

    for client in (httpx.Client, httpx.AsyncClient):
        if not callable(client.__dict__.get(TRANSPORT_HOOK)):
            raise _missing(f"{client.__name__}.{TRANSPORT_HOOK}")
    return httpx.Client, httpx.AsyncClient


def use_pool(transport: httpx.HTTPTransport, pool: httpcore.ConnectionPool) -> None:
    """Make ``transport`` send through ``pool`` instead of the one it built."""
    if not hasattr(transport, "_pool"):
        raise _missing("HTTPTransport._pool")
    transport._pool = pool

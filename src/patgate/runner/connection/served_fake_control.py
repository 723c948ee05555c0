"""The scenarios' control steps over HTTP, for a served fake on loopback.

A target file with ``control_url`` and ``control_token`` (``patgate serve --world`` writes
both) gives the runner out-of-band control of that deployment through its control API, as
the embedded fake gives it in process, so ``control:`` scenarios run there too. The runner
sends control calls to loopback addresses only: a ``control_url`` elsewhere is ignored and
those scenarios skip as "needs control", because a live service must never be told to
remove a user or move its clock.
"""

from __future__ import annotations

import ipaddress
import threading
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from patgate.control_client import ControlClient, ControlError
from patgate.errors import RequestFailed
from patgate.runner.connection.control_plane import ClientPlane, perform_on
from patgate.runner.model import ControlResult

if TYPE_CHECKING:
    from patgate.guards.redaction import Secret

__all__ = ["HttpControl", "http_control_for", "is_loopback_url"]

PRINCIPALS = ("admin", "member", "removed", "unpermitted")
_UNEXPECTED = (KeyError, IndexError, TypeError, AttributeError, ValueError)
"""What reading a control answer of another shape raises (a missing key, a list for a map)."""


class TargetKeys(Protocol):
    """The target file's keys, as control needs them (a
    :class:`~patgate.runner.connection.config.TargetConfig` is one)."""

    def get(self, key: str) -> str | Secret | None: ...

    def text(self, key: str) -> str | None: ...


def is_loopback_url(url: str) -> bool:
    """Whether ``url``'s host is a loopback address (``127.0.0.0/8``, ``::1``, localhost)."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def http_control_for(config: TargetKeys) -> HttpControl | None:
    """Control through ``config``'s control API, when it has one on loopback; else ``None``."""
    url, token = config.text("control_url"), config.get("control_token")
    if not url or token is None or not is_loopback_url(url):
        return None
    secret = token if isinstance(token, str) else token.reveal()
    return HttpControl(ControlClient(url, secret), config)


class HttpControl:
    """The runner's :class:`~patgate.runner.connection.config.Control`, done by the control API.

    Each action is done as :mod:`patgate.runner.connection.control_plane` does it, through a
    ``ClientPlane``: answers are shaped as the embedded fake's control answers are, so a
    scenario reads them the same way on both targets.
    """

    def __init__(self, client: ControlClient, config: TargetKeys) -> None:
        self.client = client
        self._config = config
        self._ids: dict[str, str] | None = None
        self._roles: dict[str, str | None] = {}
        # Control scenarios of one run act from several threads: the principals' ids and
        # roles are learned once, before the first change, and never from a changed world
        # (a role read after another thread's demotion would be "restored" as the demotion).
        self._learning = threading.Lock()
        self._plane = ClientPlane(client, self._user_id, self._role_at_start)

    def _user_id(self, principal: str) -> str:
        with self._learning:
            if self._ids is None:
                ids = self.client.world_ids()
                organization = ids["organization_id"]
                roles = {u["id"]: u["roles"].get(organization) for u in self.client.users()}
                self._roles = {name: roles.get(ids[name]) for name in PRINCIPALS}
                self._ids = ids
            return self._ids[principal]

    def _role_at_start(self, principal: str) -> str | None:
        self._user_id(principal)  # learns the roles with the ids
        return self._roles.get(principal)

    def bearer_of(self, principal: str) -> str | None:
        """The world token of ``principal``, from the target file."""
        value = self._config.get(f"{principal}_token")
        if value is None:
            return None
        return value if isinstance(value, str) else value.reveal()

    def advance_clock(self, seconds: float) -> None:
        """Move the served fake's clock forward; :class:`RequestFailed` (the wait step
        fails) when the control API refuses or answers nothing."""
        import httpx

        try:
            self.client.advance_clock(seconds)
        except (ControlError, httpx.HTTPError) as error:
            raise RequestFailed(f"the control API did not move the clock: {error}") from None

    def perform(self, action: str, argument: Any) -> ControlResult:
        """Do the control action; a refusal of the control API is a result that is not
        ``ok``, with the API's message and code, and so is an answer of another shape than
        the control API's (a served target answers what it likes)."""
        import httpx

        try:
            values = self._perform(action, argument)
        except ControlError as error:
            message = str(error).split(": ", 1)[-1]
            return ControlResult(action, False, message=message, code=error.code or "")
        except httpx.HTTPError as error:
            return ControlResult(action, False, message=f"no answer: {error}")
        except _UNEXPECTED as error:
            message = f"the control API's answer is not of the expected shape ({error!r})"
            return ControlResult(action, False, message=message)
        return ControlResult(action, True, values)

    def _perform(self, action: str, argument: Any) -> dict[str, Any]:
        return perform_on(self._plane, action, argument)

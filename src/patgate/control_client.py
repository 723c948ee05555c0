"""``patgate.ControlClient``: the control API of a served fake, from Python, over HTTP.

::

    control = patgate.ControlClient(world["control_url"], world["control_token"])
    control.remove_user(user_id)
    control.faults.add("hubs", status=429, retry_after=5)

Its methods have the names of :class:`patgate.Fake`'s control methods and take the same
arguments; they answer the control API's JSON (dicts) where ``Fake`` answers domain objects.
Both are written by ``python -m patgate.control.document`` from the one declaration of each
operation (:mod:`patgate.control.operations`).
A refused call raises :class:`ControlError` with the API's status, code and message.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import TracebackType
from typing import Any

from patgate.errors import PatgateError

__all__ = ["CONTROL_ANSWER_BYTES", "ControlClient", "ControlError", "RemoteFaults"]

CONTROL_ANSWER_BYTES = 64 * 1024 * 1024
"""The largest control answer read (decoded): a served fake's request log may be long, but
an answer past this, or compressed more than once, is a :class:`ControlError`."""


class ControlError(PatgateError):
    """The control API refused a call; ``status`` and ``code`` say why."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code


class RemoteFaults:
    """``ControlClient.faults``: the fault rules of the served fake, as ``Fake.faults`` has."""

    def __init__(self, client: ControlClient) -> None:
        self._client = client

    def add(self, endpoint: str = "any", **spec: Any) -> dict[str, Any]:
        """Add a rule (the fields of ``patgate.fake.faults.FaultRule``); returns it."""
        return self._client.add_fault(endpoint, **spec)

    def add_from_json(self, spec: dict[str, Any]) -> dict[str, Any]:
        """Add a rule from its JSON form."""
        rule: dict[str, Any] = self._client.call("POST", "/faults", spec)
        return rule

    def remove(self, rule_id: str) -> None:
        """Remove one rule."""
        self._client.remove_fault(rule_id)

    def clear(self) -> None:
        """Remove every rule and switch the rate limit off."""
        self._client.clear_faults()

    def rules(self) -> list[dict[str, Any]]:
        """The rules, oldest first."""
        rules: list[dict[str, Any]] = self._client.call("GET", "/faults")["faults"]
        return rules

    @property
    def rate_limit(self) -> bool:
        """Whether the GraphQL rate limit is on."""
        return bool(self._client.call("GET", "/faults")["rate_limit"])

    def set_rate_limit(self, on: bool) -> None:
        """Switch the GraphQL rate limit (60 per minute per key) on or off."""
        self._client.set_rate_limit(on)


class ControlClient:
    """Calls the control API at ``url`` (a target file's ``control_url``) with ``token``."""

    def __init__(self, url: str, token: str, *, timeout: float = 10.0) -> None:
        self.url = url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {token}"}
        self._timeout = timeout
        self._tls: Any = None
        """The TLS settings every call shares (made on the first call): building them loads
        the certificate bundle, 20 to 50 ms of CPU that a call per connection would pay each
        time, a URL on plain http included."""
        self.faults = RemoteFaults(self)
        """The served fake's fault rules and rate-limit switch."""

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """One control call; its JSON answer, or :class:`ControlError`.

        Each call has a connection of its own, closed at once: a client that is never
        closed leaves nothing open.
        """
        import httpx

        from patgate.guards.bounded_body import BodyRefused, accepted_codings, read_answer

        if self._tls is None:
            self._tls = httpx.create_ssl_context()
        with httpx.stream(
            method,
            self.url + path,
            json=body,
            headers={**self._headers, "Accept-Encoding": accepted_codings()},
            timeout=self._timeout,
            verify=self._tls,
        ) as response:
            try:
                content = read_answer(response, CONTROL_ANSWER_BYTES)
            except BodyRefused as refused:
                raise ControlError(response.status_code, "UNREAD", str(refused)) from None
        answer = _json(response.status_code, content)
        if response.status_code >= 400:
            error = answer.get("error", {}) if isinstance(answer, dict) else {}
            raise ControlError(
                response.status_code,
                str(error.get("code", "ERROR")),
                str(error.get("message", content[:200].decode("utf-8", "replace"))),
            )
        return answer

    def close(self) -> None:
        """Nothing stays open between calls; kept so a client works as a context manager."""

    def __enter__(self) -> ControlClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ControlClient({self.url!r}, token=<hidden>)"

    # -- the same names as patgate.Fake ----------------------------------------------------

    def issue_token(
        self, user_id: str, name: str = "patgate test token", organization_id: str | None = None
    ) -> str:
        """A usable PAT for ``user_id`` through the UI path, approved if it pends."""
        created = self.request_token_via_ui(user_id, name, organization_id)
        if created["status"] == "pending":
            self.approve_token_request(created["id"])
        value: str = created["value"]
        return value

    # -- generated by `python -m patgate.control.document`: do not edit below --

    def reset(self) -> None:
        """Back to the default world with the same credentials; no faults; an empty log."""
        self._send("POST", "/reset", {})

    def snapshot(self) -> dict[str, Any]:
        """The state as JSON values (users, roles, clients, hubs, masked tokens, clock)."""
        answer = self._send("GET", "/snapshot", {})
        found: dict[str, Any] = answer
        return found

    def world_ids(self) -> dict[str, str]:
        """The seeded world's organization and principals (``admin``, ...) by id."""
        answer = self._send("GET", "/world", {})
        found: dict[str, str] = answer
        return found

    def users(self) -> list[dict[str, Any]]:
        """Every user, members or not."""
        answer = self._send("GET", "/users", {})
        found: list[dict[str, Any]] = answer["users"]
        return found

    def add_user(
        self,
        name: str,
        email: str | None = None,
        *,
        role: str = "member",
        organization_id: str | None = None,
    ) -> dict[str, Any]:
        """A new user in the organization (default: the world's) with ``role``."""
        answer = self._send(
            "POST",
            "/users",
            {"name": name, "email": email, "role": role, "organization_id": organization_id},
        )
        found: dict[str, Any] = answer
        return found

    def remove_user(self, user_id: str, organization_id: str | None = None) -> None:
        """Remove the user from the organization; their PATs stop working at once."""
        self._send(
            "POST",
            "/users/remove",
            {"user_id": user_id, "organization_id": organization_id},
        )

    def restore_user(self, user_id: str, organization_id: str | None = None) -> None:
        """Add a removed user back with the role they had; their PATs work again."""
        self._send(
            "POST",
            "/users/restore",
            {"user_id": user_id, "organization_id": organization_id},
        )

    def set_role(self, user_id: str, role: str, organization_id: str | None = None) -> None:
        """Change the user's role, or add them back to the organization with it."""
        self._send(
            "POST",
            "/users/role",
            {"user_id": user_id, "role": role, "organization_id": organization_id},
        )

    def clients(self) -> list[dict[str, Any]]:
        """Every API client (never a secret)."""
        answer = self._send("GET", "/clients", {})
        found: list[dict[str, Any]] = answer["clients"]
        return found

    def add_client(self, user_id: str, organization_id: str | None = None) -> tuple[str, str]:
        """A new API key: ``(client_id, client_secret)``, for the client-credentials grant.

        ``user_id``: the user its tokens act as (default: the world's admin,
        ``default_world.admin_id``, like the world's own client; the control API needs it); their
        role and membership decide what the tokens may do. ``organization_id``: the organization the
        tokens work in (default: the world's). The secret is shown only here (the fake keeps its
        hash) and is redacted from the request log.
        """
        answer = self._send(
            "POST",
            "/clients",
            {"user_id": user_id, "organization_id": organization_id},
        )
        found: tuple[str, str] = (answer["client_id"], answer["client_secret"])
        return found

    def hubs(self) -> list[dict[str, Any]]:
        """Every hub of every organization."""
        answer = self._send("GET", "/hubs", {})
        found: list[dict[str, Any]] = answer["hubs"]
        return found

    def add_hub(
        self,
        name: str,
        *,
        organization_id: str | None = None,
        **fields: Any,
    ) -> dict[str, Any]:
        """A hub in the organization; ``fields`` may set label, description, status, ..."""
        answer = self._send(
            "POST",
            "/hubs",
            {"name": name, "organization_id": organization_id},
            fields,
        )
        found: dict[str, Any] = answer
        return found

    def pending_requests(self, organization_id: str | None = None) -> list[dict[str, Any]]:
        """Token requests waiting for an admin's approval, oldest first (every organization's when
        ``organization_id`` is not given).
        """
        answer = self._send(
            "GET",
            "/token-requests",
            {"organization_id": organization_id},
            query=True,
        )
        found: list[dict[str, Any]] = answer["pending"]
        return found

    def request_token_via_ui(
        self,
        user_id: str,
        name: str,
        organization_id: str | None = None,
    ) -> dict[str, Any]:
        """The management UI path: an admin's token works at once, anyone else's pends; the answer
        holds the full token (``value``), shown this once.
        """
        answer = self._send(
            "POST",
            "/token-requests",
            {"user_id": user_id, "name": name, "organization_id": organization_id},
        )
        found: dict[str, Any] = answer
        return found

    def approve_token_request(
        self,
        token_id: str,
        approver_id: str | None = None,
    ) -> dict[str, Any]:
        """An admin approves a pending token (as ``approver_id``, who must be an admin, when given);
        it becomes usable.
        """
        answer = self._send(
            "POST",
            "/token-requests/approve",
            {"token_id": token_id, "approver_id": approver_id},
        )
        found: dict[str, Any] = answer
        return found

    def reject_token_request(self, token_id: str) -> None:
        """An admin rejects a pending token; it disappears."""
        self._send("POST", "/token-requests/reject", {"token_id": token_id})

    def profile_document(self) -> dict[str, Any]:
        """The active profile (docs/profile.md) as a document of ``specs/profile.schema.json``."""
        answer = self._send("GET", "/profile", {})
        found: dict[str, Any] = answer
        return found

    def clock_now(self) -> str:
        """The fake's current instant (over HTTP: ISO 8601, UTC, milliseconds)."""
        answer = self._send("GET", "/clock", {})
        found: str = answer["now"]
        return found

    def advance_clock(self, seconds: float) -> None:
        """Move the fake's time forward (client tokens expire; PATs do not)."""
        self._send("POST", "/clock/advance", {"seconds": seconds})

    def requests(
        self,
        page: int = 0,
        size: int = 50,
        *,
        status: int | str | None = None,
        path: str | None = None,
    ) -> dict[str, Any]:
        """The request log, newest first, filtered by status (``429``, ``"4xx"``) and path."""
        answer = self._send(
            "GET",
            "/requests",
            {"page": page, "size": size, "status": status, "path": path},
            query=True,
        )
        found: dict[str, Any] = answer
        return found

    def clear_requests(self) -> None:
        """Empty the request log."""
        self._send("DELETE", "/requests", {})

    def add_fault(self, endpoint: str = "any", **spec: Any) -> dict[str, Any]:
        """Add a fault rule (:mod:`patgate.fake.faults`): ``add_fault("token", status=503)``; it
        applies from the next request.
        """
        answer = self._send("POST", "/faults", {"endpoint": endpoint}, spec)
        found: dict[str, Any] = answer
        return found

    def remove_fault(self, rule_id: str) -> None:
        """Remove one fault rule."""
        self._send("POST", "/faults/remove", {"id": rule_id})

    def clear_faults(self) -> None:
        """Remove every fault rule and switch the rate limit off."""
        self._send("DELETE", "/faults", {})

    def set_rate_limit(self, on: bool) -> None:
        """Switch the GraphQL rate limit (the profile's ``rate_limit``: 60 requests per minute per
        key by default) on or off. A key's minute starts at its first request, whatever the clock
        shows; ``Retry-After`` gives the seconds left of it, and :meth:`advance_clock` by that much
        ends it.
        """
        self._send("PUT", "/rate-limit", {"enabled": on})

    # -- generated: do not edit above --

    def _send(
        self,
        method: str,
        path: str,
        named: dict[str, Any],
        extra: Mapping[str, Any] | None = None,
        *,
        query: bool = False,
    ) -> Any:
        """One operation's call: the named arguments given (``None``: left out for the
        API's default), in the query string or the body with ``extra`` as it is."""
        given = {name: value for name, value in named.items() if value is not None}
        if query:
            import urllib.parse

            text = urllib.parse.urlencode(given)
            return self.call(method, path + ("?" + text if text else ""))
        if method in ("GET", "DELETE"):
            return self.call(method, path)
        return self.call(method, path, {**given, **(extra or {})})


def _json(status: int, content: bytes) -> Any:
    try:
        return json.loads(content)
    except ValueError:
        raise ControlError(
            status, "NOT_JSON", "the control API answered something that is not JSON"
        ) from None
